//===- QuantQDQAttrs.td - quant_qdq attributes and enums ---*- tablegen -*-===//

#ifndef QUANTQDQ_ATTRS_TD
#define QUANTQDQ_ATTRS_TD

include "QuantQDQ/IR/QuantQDQDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def QDQ_Layout : I32EnumAttr<"Layout", "tensor layout of a spatial layer", [
    I32EnumAttrCase<"NCHW", 0, "nchw">,
    I32EnumAttrCase<"NHWC", 1, "nhwc">]> {
  let cppNamespace = "::mlir::quant_qdq";
  let genSpecializedAttr = 0;
}
def QDQ_LayoutAttr : EnumAttr<QuantQDQ_Dialect, QDQ_Layout, "layout">;

def QDQ_ActivationKind : I32EnumAttr<"ActivationKind",
    "element-wise activation function", [
    I32EnumAttrCase<"Relu", 0, "relu">,
    I32EnumAttrCase<"Relu6", 1, "relu6">,
    I32EnumAttrCase<"LeakyRelu", 2, "leaky_relu">,
    I32EnumAttrCase<"Clip", 3, "clip">,
    I32EnumAttrCase<"Sigmoid", 4, "sigmoid">,
    I32EnumAttrCase<"HardSigmoid", 5, "hard_sigmoid">,
    I32EnumAttrCase<"Swish", 6, "swish">,
    I32EnumAttrCase<"HardSwish", 7, "hard_swish">,
    I32EnumAttrCase<"Tanh", 8, "tanh">,
    I32EnumAttrCase<"Gelu", 9, "gelu">,
    I32EnumAttrCase<"Elu", 10, "elu">,
    I32EnumAttrCase<"Softplus", 11, "softplus">,
    I32EnumAttrCase<"Linear", 12, "linear">,
    I32EnumAttrCase<"GeluTanh", 13, "gelu_tanh">]> {
  let cppNamespace = "::mlir::quant_qdq";
  let genSpecializedAttr = 0;
}
def QDQ_ActivationKindAttr
    : EnumAttr<QuantQDQ_Dialect, QDQ_ActivationKind, "activation">;

def QDQ_PadMode : I32EnumAttr<"PadMode", "how a pad layer fills the border", [
    I32EnumAttrCase<"Constant", 0, "constant">,
    I32EnumAttrCase<"Reflect", 1, "reflect">,
    I32EnumAttrCase<"Edge", 2, "edge">]> {
  let cppNamespace = "::mlir::quant_qdq";
  let genSpecializedAttr = 0;
}
def QDQ_PadModeAttr : EnumAttr<QuantQDQ_Dialect, QDQ_PadMode, "pad_mode">;

// The order is the calibration report's column order.
def QDQ_CalibrationMethod : I32EnumAttr<"CalibrationMethod",
    "how calibration chooses an activation's range", [
    I32EnumAttrCase<"Max", 0, "max">,
    I32EnumAttrCase<"Percentile", 1, "percentile">,
    I32EnumAttrCase<"Entropy", 2, "entropy">,
    I32EnumAttrCase<"MSE", 3, "mse">,
    I32EnumAttrCase<"LastValue", 4, "last-value">,
    I32EnumAttrCase<"MovingAverage", 5, "moving-average">]> {
  let cppNamespace = "::mlir::quant_qdq";
  let genSpecializedAttr = 0;
}

// How quantized values are stored: integers, or an 8-bit float format.
def QDQ_StorageFormat : I32EnumAttr<"StorageFormat",
    "the number format of quantized storage", [
    I32EnumAttrCase<"Int", 0, "int">,
    I32EnumAttrCase<"E4M3FN", 1, "e4m3fn">]> {
  let cppNamespace = "::mlir::quant_qdq";
  let genSpecializedAttr = 0;
}

// TensorQuant's number formats (seed 004), emulated in float.
def QDQ_NumberFormatKind : I32EnumAttr<"NumberFormatKind",
    "a number format that round_to_format emulates", [
    I32EnumAttrCase<"FixedPoint", 0, "fixed_point">,
    I32EnumAttrCase<"Binary", 1, "binary">,
    I32EnumAttrCase<"Ternary", 2, "ternary">,
    I32EnumAttrCase<"Logarithmic", 3, "logarithmic">,
    I32EnumAttrCase<"Sparse", 4, "sparse">,
    I32EnumAttrCase<"Half", 5, "half">]> {
  let cppNamespace = "::mlir::quant_qdq";
  let genSpecializedAttr = 0;
}

// How a fixed-point format rounds onto its grid.
def QDQ_FixedPointRounding : I32EnumAttr<"FixedPointRounding",
    "how a fixed-point number format rounds", [
    I32EnumAttrCase<"Nearest", 0, "nearest">,
    I32EnumAttrCase<"Zero", 1, "zero">,
    I32EnumAttrCase<"Down", 2, "down">,
    I32EnumAttrCase<"Stochastic", 3, "stochastic">]> {
  let cppNamespace = "::mlir::quant_qdq";
  let genSpecializedAttr = 0;
}

// An optional f32 parameter, written as a bare float literal (`0.5`).
class QDQ_OptionalF32Parameter<string desc = "">
    : OptionalParameter<"FloatAttr", desc> {
  let parser = "::mlir::quant_qdq::parseF32Parameter($_parser)";
  let printer = "$_printer << $_self.getValueAsDouble()";
}

//===----------------------------------------------------------------------===//
// Number format
//===----------------------------------------------------------------------===//

def QDQ_NumberFormatAttr : AttrDef<QuantQDQ_Dialect, "NumberFormat"> {
  let mnemonic = "number_format";
  let summary = "A number format emulated in float (TensorQuant's quantizers)";
  let description = [{
    The set of values `round_to_format` rounds a float tensor onto. Unlike
    `#quant_qdq.quantizer` there is no scale to calibrate and no integer
    storage: the format alone fixes the values. These are the quantizers of
    TensorQuant (seed 004), for research on number formats; no ONNX or
    TensorRT operator computes them, so they exist as fake quantization
    only.

    - `fixed_point`, with `bits` (total, 2 to 24) and `fraction_bits` (-64
      to 64): multiples of `2^-fraction_bits` in
      `[-2^(bits-1), 2^(bits-1) - 1] * 2^-fraction_bits`, saturating.
      `rounding` is `nearest` (half away from zero, the default), `zero`
      (truncate), `down` (floor) or `stochastic` (up with probability the
      fraction, from a counter-based generator keyed by `seed` and the
      element's position, so runs repeat);
    - `binary`: `marginal` (default 1) for `x >= 0`, `-marginal` below;
    - `ternary`: `marginal` above `threshold`, `-marginal` below
      `-threshold`, 0 between; without a `threshold`, `0.7 * mean|x|` over
      the whole tensor, computed on every run;
    - `logarithmic`: `sign(x) * 2^floor(log2 |x|)`, 0 stays 0;
    - `sparse`: 0 where `|x| < threshold`, `x` elsewhere;
    - `half`: the nearest IEEE binary16 value, ties to even.

    NaN stays NaN in every format. Example:
    `#quant_qdq.number_format<fixed_point, bits = 16, fraction_bits = 8>`.
  }];
  let parameters = (ins
    "NumberFormatKind":$kind,
    OptionalParameter<"std::optional<int64_t>">:$bits,
    OptionalParameter<"std::optional<int64_t>">:$fraction_bits,
    OptionalParameter<"std::optional<FixedPointRounding>">:$rounding,
    OptionalParameter<"std::optional<int64_t>">:$seed,
    QDQ_OptionalF32Parameter<>:$marginal,
    QDQ_OptionalF32Parameter<>:$threshold);
  let assemblyFormat = [{
    `<` $kind (`,` struct($bits, $fraction_bits, $rounding, $seed, $marginal,
                          $threshold)^)? `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The rounding of a fixed-point format (`nearest` when not given).
    FixedPointRounding getRoundingOrDefault() const {
      return getRounding().value_or(FixedPointRounding::Nearest);
    }
    /// The marginal of a binary or ternary format (1 when not given).
    float getMarginalValue() const {
      return getMarginal() ? getMarginal().getValueAsDouble() : 1.0f;
    }
    /// The threshold, when given.
    std::optional<float> getThresholdValue() const {
      if (!getThreshold())
        return std::nullopt;
      return float(getThreshold().getValueAsDouble());
    }
    /// Whether the format reads a statistic of the whole tensor (ternary
    /// without a threshold).
    bool needsMeanMagnitude() const {
      return getKind() == NumberFormatKind::Ternary && !getThreshold();
    }
    /// Whether values depend on the element's position (stochastic).
    bool isStochastic() const {
      return getKind() == NumberFormatKind::FixedPoint &&
             getRoundingOrDefault() == FixedPointRounding::Stochastic;
    }
    /// TensorQuant's name for the format (`nearest,16,8`, `ternary,1,0.5`).
    std::string getTensorQuantName() const;
    /// Reads such a name: `none` (no format: nullopt), `nearest`, `zero`,
    /// `down` or `stochastic` with `,<bits>,<fraction bits>` (and a seed
    /// for stochastic), `binary[,m]`, `ternary[,m[,threshold]]`,
    /// `logarithmic`, `sparse,<threshold>`, `fp16`. Fails through
    /// `emitError` on anything else.
    static FailureOr<std::optional<NumberFormatAttr>> parseTensorQuantName(
        MLIRContext *context, StringRef name,
        function_ref<InFlightDiagnostic()> emitError);
  }];
}

//===----------------------------------------------------------------------===//
// Quantizer
//===----------------------------------------------------------------------===//

def QDQ_QuantizerAttr : AttrDef<QuantQDQ_Dialect, "Quantizer"> {
  let mnemonic = "quantizer";
  let summary = "How a tensor is quantized: storage, range and granularity";
  let description = [{
    A quantizer says how real values map to integers, independently of the
    scale and zero point that calibration later chooses:

    - `bits`: storage width, 2 to 16;
    - `is_signed`: signed storage `[-2^(b-1), 2^(b-1)-1]` or unsigned
      `[0, 2^b-1]` (default signed);
    - `narrow_range`: drop the lowest storage value, so that a signed 8-bit
      tensor uses `[-127, 127]` (default on, as TensorRT expects);
    - `symmetric`: the zero point is 0 for signed storage (default on);
    - `axis`: when present, one scale per slice along this axis
      (per-channel weights); absent means one scale for the tensor;
    - `block_size`: with `axis`, one scale per block of this many
      consecutive elements along the axis, for each index of the other
      dimensions (blocked int4 weights; ONNX `block_size`). The scales form
      a tensor of the data's rank whose axis dimension is
      `ceil(size / block_size)`, stored row-major;
    - `storage`: `int` (default) or `e4m3fn`, FP8 with 4 exponent and 3
      mantissa bits and no infinities (`f8E4M3FN`, ONNX FLOAT8E4M3FN): the
      scaled value `x / scale` saturates to [-448, 448] and rounds to the
      nearest FP8 value, ties to even; NaN stays NaN. FP8 quantizers are
      8-bit and symmetric (zero point 0); `is_signed` and `narrow_range`
      do not apply;
    - `calibration`: when present, how `calibrate` chooses this
      activation's range (`max`, `percentile`, `entropy`, `mse`,
      `last-value`, `moving-average`), whatever method the pass is given;
      TFMOT's quantizers carry their range estimator the same way. Weights
      are scaled from their values: per group, the smallest scale that
      fits its minimum and maximum into [qmin, qmax] (`max|w| / qmax` for
      a narrow range), clipped, for a signed integer weight with `mse`, by
      the factor of least squared rounding error.

    The defaults are the NVIDIA toolkit's: 8-bit, signed, narrow, symmetric,
    per tensor. Example: `#quant_qdq.quantizer<bits = 8, axis = 0>`.
  }];
  let parameters = (ins
    "unsigned":$bits,
    DefaultValuedParameter<"bool", "true">:$is_signed,
    DefaultValuedParameter<"bool", "true">:$narrow_range,
    DefaultValuedParameter<"bool", "true">:$symmetric,
    OptionalParameter<"std::optional<int64_t>">:$axis,
    OptionalParameter<"std::optional<CalibrationMethod>">:$calibration,
    OptionalParameter<"std::optional<int64_t>">:$block_size,
    DefaultValuedParameter<"StorageFormat", "StorageFormat::Int">:$storage);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins CArg<"unsigned", "8">:$bits,
                     CArg<"std::optional<int64_t>", "std::nullopt">:$axis), [{
      return $_get($_ctxt, bits, /*is_signed=*/true, /*narrow_range=*/true,
                   /*symmetric=*/true, axis,
                   std::optional<CalibrationMethod>(),
                   std::optional<int64_t>(), StorageFormat::Int);
    }]>];
  let extraClassDeclaration = [{
    /// Smallest and largest value a quantized value may take (for FP8,
    /// the format's finite range, -448 and 448).
    int64_t getQMin() const;
    int64_t getQMax() const;
    /// Whether storage is a float format (FP8) rather than integers.
    bool isFloatStorage() const { return getStorage() != StorageFormat::Int; }
    /// The element type of the quantized storage: a signless integer of
    /// `bits` bits, or the float type (f8E4M3FN).
    Type getStorageType() const;
    /// Smallest and largest value the storage type can hold (zero points
    /// live in this range even when narrow_range excludes the lowest one).
    int64_t getStorageMin() const;
    int64_t getStorageMax() const;
    /// Whether scales vary along `axis`: per slice, or per block.
    bool isPerAxis() const { return getAxis().has_value(); }
    bool isBlocked() const { return getBlockSize().has_value(); }
    /// The same quantizer, quantizing per slice along `axis` (or per tensor).
    QuantizerAttr withAxis(std::optional<int64_t> axis) const;
    /// The same quantizer, quantizing blocks of `blockSize` along `axis`.
    QuantizerAttr withBlocks(int64_t axis, int64_t blockSize) const;
    /// The shape of the scale tensor for data of shape `shape`: {} per
    /// tensor, {size along axis} per axis, `shape` with the axis dimension
    /// divided by the block size (rounded up) per block. Dynamic sizes stay
    /// dynamic.
    SmallVector<int64_t> getScaleShape(ArrayRef<int64_t> shape) const;
  }];
}

//===----------------------------------------------------------------------===//
// Case record
//===----------------------------------------------------------------------===//

def QDQ_CaseRecordAttr : AttrDef<QuantQDQ_Dialect, "CaseRecord"> {
  let mnemonic = "case_record";
  let summary = "What the insertion cases decided for one layer";
  let description = [{
    Insertion cases do not insert Q/DQ themselves: each records its decision
    on the layer, in the discardable attribute `quant_qdq.case`, and
    `insert-qdq` reads the records (below the user's QuantizationSpec,
    above the default table) and removes them.

    - `cases`: the cases that decided, in the order they recorded;
    - `inputs`: positions in the layer's activation operand list to
      quantize, sorted, without repeats;
    - `weight`: whether the weight is quantized;
    - `input_quantizer`, `weight_quantizer` (optional): quantizer fields the
      case sets, with a QuantizationSpec's keys (`{bits = 4 : i64,
      calibration = "mse"}`, `block_size`), a spec's `format` written as
      `bits` and `storage` (`int` or `e4m3fn`); the others keep
      insert-qdq's defaults.

    Example: `#quant_qdq.case_record<cases = ["residual"], inputs = [1],
    weight = false>`. A record with no inputs and no weight keeps the layer
    in float.
  }];
  let parameters = (ins
    "ArrayAttr":$cases,
    "DenseI64ArrayAttr":$inputs,
    "bool":$weight,
    OptionalParameter<"DictionaryAttr">:$input_quantizer,
    OptionalParameter<"DictionaryAttr">:$weight_quantizer);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// `previous` (null: no record yet) with `caseName`'s decision added:
    /// its `positions` and `weight` join the record's, or replace them when
    /// it keeps the layer in float (`keepInFloat`); the quantizer fields it
    /// sets override the record's.
    static CaseRecordAttr addDecision(
        MLIRContext *context, CaseRecordAttr previous, StringRef caseName,
        ArrayRef<int64_t> positions, bool weight, bool keepInFloat,
        const QuantizerOverride &inputQuantizer,
        const QuantizerOverride &weightQuantizer);
    /// The cases that decided, joined by `+` (`bn+maxpool`).
    std::string getCaseNames() const;
    /// The quantizer fields the cases set (the verifier checked them).
    QuantizerOverride getInputOverride() const;
    QuantizerOverride getWeightOverride() const;
    ArrayRef<int64_t> getInputPositions() const {
      return getInputs().asArrayRef();
    }
  }];
}

#endif // QUANTQDQ_ATTRS_TD
