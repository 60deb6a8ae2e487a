//===- QuantQDQOps.td - quant_qdq layer and Q/DQ ops -------*- tablegen -*-===//

#ifndef QUANTQDQ_OPS_TD
#define QUANTQDQ_OPS_TD

include "QuantQDQ/IR/QuantQDQDialect.td"
include "QuantQDQ/IR/QuantQDQAttrs.td"
include "QuantQDQ/IR/QDQLayerOpInterface.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def QDQ_FloatTensor : RankedTensorOf<[AnyFloat]>;
// Quantized storage: integers, or FP8 for an e4m3fn quantizer.
def QDQ_StorageTensor : RankedTensorOf<[AnySignlessInteger, F8E4M3FN]>;
def QDQ_Image : 4DTensorOf<[AnyFloat]>;
def QDQ_Vector : 1DTensorOf<[AnyFloat]>;

def QDQ_PositivePair : ConfinedAttr<DenseI64ArrayAttr,
    [DenseArrayCount<2>, DenseArrayStrictlyPositive<DenseI64ArrayAttr>]>;
def QDQ_Pads : ConfinedAttr<DenseI64ArrayAttr,
    [DenseArrayCount<4>, DenseArrayNonNegative<DenseI64ArrayAttr>]>;

//===----------------------------------------------------------------------===//
// Layer ops
//===----------------------------------------------------------------------===//

// A network layer. The template arguments fill in QDQLayerOpInterface:
// the Keras class name, whether the default table quantizes the input and
// the weight, whether every operand is an activation (multi-input layers),
// and whether the layer is pass-through. `overrides` lists interface methods
// the op implements itself.
class QDQ_LayerOp<string mnemonic, string layerClass, bit quantizeInput,
                  bit quantizeWeight, list<Trait> traits = [],
                  bit allOperandsAreActivations = 0, bit passThrough = 0,
                  list<string> overrides = []>
    : QDQ_Op<mnemonic, traits # [
        DeclareOpInterfaceMethods<QDQLayerOpInterface, overrides>]> {
  code extraLayerClassDeclaration = [{}];
  // Whether the layer has a QOperator (QLinear*) kernel; see
  // QDQLayerOpInterface::hasQLinearKernel.
  bit qlinearKernel = 0;
  let extraClassDeclaration = !strconcat([{
    static constexpr ::llvm::StringLiteral getDefaultLayerClass() {
      return ::llvm::StringLiteral("}], layerClass, [{");
    }
    static constexpr bool kQuantizeInputByDefault = }],
        !if(quantizeInput, "true", "false"), [{;
    static constexpr bool kQuantizeWeightByDefault = }],
        !if(quantizeWeight, "true", "false"), [{;
    static constexpr bool kAllOperandsAreActivations = }],
        !if(allOperandsAreActivations, "true", "false"), [{;
    static constexpr bool kPassThrough = }],
        !if(passThrough, "true", "false"), [{;
    static constexpr bool kQLinearKernel = }],
        !if(qlinearKernel, "true", "false"), [{;
  }], extraLayerClassDeclaration);
  let assemblyFormat = [{
    ($name^)? operands attr-dict `:` functional-type(operands, results)
  }];
}

// Layers whose result type follows from their operands and attributes. The
// shape functions live in LayerShapes.cpp; a result type may be more static
// than the inferred one (a known batch size), never contradict it.
def QDQ_InferredResult : TraitList<[
    Pure, InferTypeOpAdaptorWithIsCompatible]>;

def QDQ_Conv2DOp : QDQ_LayerOp<"conv2d", "Conv2D", 1, 1,
    [QDQ_InferredResult], 0, 0, ["getLayerClass", "getWeightOperandIndex",
                                 "getWeightChannelAxis",
                                 "getWeightReductionAxis",
                                 "getMultiplyAccumulates"]> {
  let qlinearKernel = 1;
  let summary = "2-D convolution, grouped and depthwise included";
  let description = [{
    `output = conv(input, weight) + bias` over two spatial dimensions.

    With `layout = nchw` (ONNX, the default) the input is `N x C x H x W` and
    the weight `O x C/groups x kH x kW`; with `layout = nhwc` (Keras) the
    input is `N x H x W x C` and the weight `kH x kW x C/groups x O`. `pads`
    are `[top, left, bottom, right]`. A convolution with `groups` equal to its
    input channels (and more than one) is a depthwise convolution and reports
    the class `DepthwiseConv2D`.

    Example:

    ```mlir
    %y = quant_qdq.conv2d "conv1" %x, %w, %b {pads = array<i64: 3, 3, 3, 3>,
           strides = array<i64: 2, 2>}
        : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>)
        -> tensor<1x64x112x112xf32>
    ```
  }];
  let arguments = (ins QDQ_Image:$input, QDQ_Image:$weight,
      Optional<QDQ_Vector>:$bias,
      OptionalAttr<StrAttr>:$name,
      DefaultValuedAttr<QDQ_LayoutAttr, "Layout::NCHW">:$layout,
      DefaultValuedAttr<QDQ_PositivePair, "{1, 1}">:$strides,
      DefaultValuedAttr<QDQ_Pads, "{0, 0, 0, 0}">:$pads,
      DefaultValuedAttr<QDQ_PositivePair, "{1, 1}">:$dilations,
      DefaultValuedAttr<ConfinedAttr<I64Attr, [IntPositive]>, "1">:$groups);
  let results = (outs QDQ_Image:$output);
  let extraLayerClassDeclaration = [{
    /// Number of input channels, or ShapedType::kDynamic.
    int64_t getInputChannels();
    /// Whether each input channel is convolved on its own.
    bool isDepthwise();
  }];
}

def QDQ_DenseOp : QDQ_LayerOp<"dense", "Dense", 1, 1, [QDQ_InferredResult], 0,
    0, ["getWeightOperandIndex", "getWeightChannelAxis",
        "getWeightReductionAxis", "getMultiplyAccumulates"]> {
  let summary = "fully connected layer";
  let description = [{
    `output = input . weight + bias` over the last dimension of `input`. The
    weight is `K x N` (Keras kernel), or `N x K` with `transpose_weight`
    (ONNX `Gemm` with `transB = 1`, PyTorch `Linear`). Output channels, and so
    per-channel weight scales, lie along the weight's `N` axis.
  }];
  let arguments = (ins QDQ_FloatTensor:$input,
      2DTensorOf<[AnyFloat]>:$weight, Optional<QDQ_Vector>:$bias,
      OptionalAttr<StrAttr>:$name, UnitAttr:$transpose_weight);
  let results = (outs QDQ_FloatTensor:$output);
  let extraLayerClassDeclaration = [{
    /// A discardable unit attribute: export writes the bias as an Add
    /// after a bias-free Gemm, which ONNX Runtime fuses with its quantized
    /// input and weight into QGemm (its fusion takes no float bias). The
    /// onnxruntime target of insert-qdq sets it; the numbers are the same.
    static constexpr ::llvm::StringLiteral kSeparateBiasAttrName =
        "quant_qdq.separate_bias";
  }];
}

class QDQ_Pool2DOp<string mnemonic, string layerClass, bit quantizeInput,
                   bit passThrough>
    : QDQ_LayerOp<mnemonic, layerClass, quantizeInput, 0,
                  [QDQ_InferredResult], 0, passThrough> {
  let results = (outs QDQ_Image:$output);
}

def QDQ_AvgPool2DOp : QDQ_Pool2DOp<"avg_pool2d", "AveragePooling2D", 1, 0> {
  let qlinearKernel = 1;
  let summary = "2-D average pooling";
  let description = [{
    Averages `kernel_shape` windows. `pads` are `[top, left, bottom, right]`;
    `count_include_pad` counts padded zeros in the divisor; `ceil_mode`
    rounds the output size up (ONNX semantics).
  }];
  let arguments = (ins QDQ_Image:$input, OptionalAttr<StrAttr>:$name,
      DefaultValuedAttr<QDQ_LayoutAttr, "Layout::NCHW">:$layout,
      QDQ_PositivePair:$kernel_shape,
      DefaultValuedAttr<QDQ_PositivePair, "{1, 1}">:$strides,
      DefaultValuedAttr<QDQ_Pads, "{0, 0, 0, 0}">:$pads,
      UnitAttr:$ceil_mode, UnitAttr:$count_include_pad);
}

def QDQ_MaxPool2DOp : QDQ_Pool2DOp<"max_pool2d", "MaxPooling2D", 0, 1> {
  let summary = "2-D max pooling";
  let description = [{
    Takes the maximum of `kernel_shape` windows. It only selects values, so
    it is pass-through: a quantized input stays quantized with the same scale.
  }];
  let arguments = (ins QDQ_Image:$input, OptionalAttr<StrAttr>:$name,
      DefaultValuedAttr<QDQ_LayoutAttr, "Layout::NCHW">:$layout,
      QDQ_PositivePair:$kernel_shape,
      DefaultValuedAttr<QDQ_PositivePair, "{1, 1}">:$strides,
      DefaultValuedAttr<QDQ_Pads, "{0, 0, 0, 0}">:$pads,
      DefaultValuedAttr<QDQ_PositivePair, "{1, 1}">:$dilations,
      UnitAttr:$ceil_mode);
}

class QDQ_GlobalPool2DOp<string mnemonic, string layerClass, bit quantizeInput,
                         bit passThrough>
    : QDQ_LayerOp<mnemonic, layerClass, quantizeInput, 0,
                  [QDQ_InferredResult], 0, passThrough> {
  let arguments = (ins QDQ_Image:$input, OptionalAttr<StrAttr>:$name,
      DefaultValuedAttr<QDQ_LayoutAttr, "Layout::NCHW">:$layout,
      DefaultValuedAttr<BoolAttr, "true">:$keep_dims);
  let results = (outs RankedTensorOf<[AnyFloat]>:$output);
}

def QDQ_GlobalAvgPool2DOp : QDQ_GlobalPool2DOp<"global_avg_pool2d",
    "GlobalAveragePooling2D", 1, 0> {
  let qlinearKernel = 1;
  let summary = "average over both spatial dimensions";
  let description = [{
    With `keep_dims` (default, as ONNX `GlobalAveragePool`) the result is
    `N x C x 1 x 1` (NCHW) or `N x 1 x 1 x C` (NHWC); without it, `N x C`
    (as Keras `GlobalAveragePooling2D`).
  }];
}

def QDQ_GlobalMaxPool2DOp : QDQ_GlobalPool2DOp<"global_max_pool2d",
    "GlobalMaxPooling2D", 0, 1> {
  let summary = "maximum over both spatial dimensions";
  let description = [{
    Same shapes as `global_avg_pool2d`; pass-through for quantization.
  }];
}

def QDQ_BatchNormOp : QDQ_LayerOp<"batch_norm", "BatchNormalization", 0, 0,
    [Pure, InferTypeOpAdaptor]> {
  let summary = "batch normalization in inference form";
  let description = [{
    `output = (input - mean) / sqrt(variance + epsilon) * scale + bias`, per
    channel. The channel axis is 1 for `nchw` and the last axis for `nhwc`.
    Off by default: TensorRT folds a BN that follows a convolution into it;
    the `bn` case quantizes the others (pre-activation ResNet-v2).
  }];
  let arguments = (ins QDQ_FloatTensor:$input, QDQ_Vector:$scale,
      QDQ_Vector:$bias, QDQ_Vector:$mean, QDQ_Vector:$variance,
      OptionalAttr<StrAttr>:$name,
      DefaultValuedAttr<QDQ_LayoutAttr, "Layout::NCHW">:$layout,
      DefaultValuedAttr<F32Attr, "1.0e-5">:$epsilon);
  let results = (outs QDQ_FloatTensor:$output);
  let hasVerifier = 1;
  let extraLayerClassDeclaration = [{
    /// The axis of `input` that `scale`, `bias`, `mean` and `variance` index.
    int64_t getChannelAxis();
  }];
}

def QDQ_ConcatOp : QDQ_LayerOp<"concat", "Concatenate", 0, 0,
    [QDQ_InferredResult], 1> {
  let qlinearKernel = 1;
  let summary = "concatenation along an axis";
  let description = [{
    Joins its inputs along `axis` (negative counts from the end). Every input
    is an activation; `quantization_index` picks among them.
  }];
  let arguments = (ins Variadic<QDQ_FloatTensor>:$inputs,
      OptionalAttr<StrAttr>:$name, I64Attr:$axis);
  let results = (outs QDQ_FloatTensor:$output);
  let hasFolder = 1;
}

class QDQ_ElementwiseOp<string mnemonic, string layerClass>
    : QDQ_LayerOp<mnemonic, layerClass, 0, 0, [QDQ_InferredResult], 1> {
  let arguments = (ins Variadic<QDQ_FloatTensor>:$inputs,
      OptionalAttr<StrAttr>:$name);
  let results = (outs QDQ_FloatTensor:$output);
  let extraLayerClassDeclaration = [{
    /// Whether `op` computes this of two inputs: this layer, or the ONNX
    /// node it imports from (Add, Mul) kept generic. The steps of the
    /// formulas that fusions recognise (GELU, layer normalization).
    static bool isBinaryForm(::mlir::Operation *op);
  }];
}

def QDQ_AddOp : QDQ_ElementwiseOp<"add", "Add"> {
  let qlinearKernel = 1;
  let summary = "element-wise sum of two or more tensors";
  let description = [{
    Sums its inputs with NumPy broadcasting. The residual connection of a
    ResNet block: the `residual` case leaves one convolution-fed input
    unquantized so that TensorRT fuses the addition into that convolution.

    Canonicalization folds the bias of a fully connected layer into it: a
    bias-free `dense` whose only reader adds a constant vector of its
    output width becomes one `dense` with that bias (ONNX's MatMul + Add).
  }];
  let hasCanonicalizer = 1;
}

def QDQ_MultiplyOp : QDQ_ElementwiseOp<"multiply", "Multiply"> {
  let qlinearKernel = 1;
  let summary = "element-wise product of two or more tensors";
  let description = [{
    Multiplies its inputs with NumPy broadcasting: the squeeze-and-excitation
    scaling of EfficientNet and MobileNet-v3. An activation written as
    `x * sigmoid(x)` is a `quant_qdq.activation` (`swish`), not a multiply:
    canonicalization rewrites it so, and `x * hard_sigmoid(x)` with alpha
    1/6 and beta 1/2 to `hard_swish`, when the gate has no other reader;
    and GELU written out, `x * 0.5 * (1 + erf(x / sqrt 2))` in any
    association of the products, to `gelu`, so that no insertion rule sees
    (and quantizes) the Add inside it.
  }];
  let hasCanonicalizer = 1;
}

def QDQ_ActivationOp : QDQ_LayerOp<"activation", "Activation", 0, 0,
    [Pure, SameOperandsAndResultType], 0, 0, ["hasQLinearKernel"]> {
  let summary = "element-wise activation function";
  let description = [{
    Applies `kind`: `relu`, `relu6`, `leaky_relu` (`alpha`, default 0.01),
    `clip` (`min`, `max`, both required), `sigmoid`, `hard_sigmoid`
    (`max(0, min(1, alpha * x + beta))`, defaults 0.2 and 0.5), `swish`
    (`x * sigmoid(x)`), `hard_swish` (`x * relu6(x + 3) / 6`), `tanh`,
    `gelu`, `elu` (`alpha`, default 1), `softplus` or `linear` (identity).
    An attribute the kind does not use is an error.
  }];
  let arguments = (ins QDQ_FloatTensor:$input, QDQ_ActivationKindAttr:$kind,
      OptionalAttr<StrAttr>:$name, OptionalAttr<F32Attr>:$alpha,
      OptionalAttr<F32Attr>:$beta, OptionalAttr<F32Attr>:$min,
      OptionalAttr<F32Attr>:$max);
  let results = (outs QDQ_FloatTensor:$output);
  let assemblyFormat = [{
    custom<ActivationKind>($kind) ($name^)? $input attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
  let extraLayerClassDeclaration = [{
    /// The constants of gelu_tanh, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715
    /// x^3))): its lowering, its export and its fusion share them.
    static constexpr double kGeluTanhScale = 0.7978845608028654;
    static constexpr double kGeluTanhCubic = 0.044715;
  }];
}

def QDQ_SoftmaxOp : QDQ_LayerOp<"softmax", "Softmax", 0, 0,
    [Pure, SameOperandsAndResultType], 0, 0, ["getOutputBounds"]> {
  let summary = "softmax along an axis";
  let description = [{
    Its outputs lie in [0, 1]: calibration gives a quantizer of its output
    the largest value seen within that interval, whatever the method (a
    clipping method would cut attention's rare peaks).
  }];
  let arguments = (ins QDQ_FloatTensor:$input, OptionalAttr<StrAttr>:$name,
      DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs QDQ_FloatTensor:$output);
  let hasVerifier = 1;
}

def QDQ_LayerNormOp : QDQ_LayerOp<"layer_norm", "LayerNormalization", 0, 0,
    [Pure, AttrSizedOperandSegments, AllTypesMatch<["input", "output"]>]> {
  let summary = "layer normalization over the trailing dimensions";
  let description = [{
    `output = (input - mean) / sqrt(variance + epsilon) * scale + bias`, the
    mean and the (biased) variance taken over the dimensions from `axis` on
    (negative counts from the end). `scale` and `bias` are optional and
    broadcast to those dimensions (ONNX `LayerNormalization`, Keras
    `LayerNormalization`). Never quantized by default: TensorRT runs
    normalizations in float, and quantizing inside one is the classic
    transformer accuracy loss.

    Import recognises the form exporters write before opset 17,
    `(x - mean(x)) / sqrt(mean((x - mean(x))^2) + epsilon)` with the square
    as a Pow by 2 or a product, the division as a Div or a product with the
    Reciprocal; canonicalization then folds a following product by a
    constant (the scale) and sum with a constant (the bias) into the layer.
    Export writes `LayerNormalization` from opset 17 and that formula before.

    ```mlir
    %y = quant_qdq.layer_norm "ln" %x scale %gamma bias %beta
           {epsilon = 9.99999997E-7 : f32}
        : (tensor<1x197x768xf32>, tensor<768xf32>, tensor<768xf32>)
        -> tensor<1x197x768xf32>
    ```
  }];
  let arguments = (ins QDQ_FloatTensor:$input,
      Optional<QDQ_FloatTensor>:$scale, Optional<QDQ_FloatTensor>:$bias,
      OptionalAttr<StrAttr>:$name, DefaultValuedAttr<I64Attr, "-1">:$axis,
      DefaultValuedAttr<F32Attr, "1.0e-5">:$epsilon);
  let results = (outs QDQ_FloatTensor:$output);
  let assemblyFormat = [{
    ($name^)? $input (`scale` $scale^)? (`bias` $bias^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraLayerClassDeclaration = [{
    /// The first normalized dimension, counted from the front.
    int64_t getNormalizedAxis();
    /// Whether a scale or bias of `type` fits: the input's element type, a
    /// shape that broadcasts to the normalized dimensions.
    bool fitsNormalizedDims(::mlir::RankedTensorType type);
  }];
}

def QDQ_RMSNormOp : QDQ_LayerOp<"rms_norm", "RMSNormalization", 0, 0,
    [Pure, AllTypesMatch<["input", "output"]>]> {
  let summary = "root-mean-square normalization over the trailing dimensions";
  let description = [{
    `output = input / sqrt(mean(input^2) + epsilon) * scale`, the mean taken
    over the dimensions from `axis` on (negative counts from the end), as
    the normalizations of Llama-style decoders compute it (ONNX
    `RMSNormalization`, Keras `RMSNormalization`). `scale` is optional and
    broadcasts to those dimensions. Never quantized by default, for the
    reasons of `layer_norm`: TensorRT runs normalizations in float.

    Import recognises the form exporters write before opset 23,
    `x / sqrt(mean(x^2) + epsilon)` with the square as a Pow by 2 or a
    product, the division as a Div or a product with the Reciprocal (or
    with 1 divided by the root, torch's `rsqrt`); canonicalization then
    folds a following product by a constant (the weight) into the layer as
    its scale. Export writes `RMSNormalization` from opset 23 and that
    formula before.

    ```mlir
    %y = quant_qdq.rms_norm "norm" %x scale %w {epsilon = 9.99999997E-7 : f32}
        : (tensor<1x16x2048xf32>, tensor<2048xf32>) -> tensor<1x16x2048xf32>
    ```
  }];
  let arguments = (ins QDQ_FloatTensor:$input,
      Optional<QDQ_FloatTensor>:$scale, OptionalAttr<StrAttr>:$name,
      DefaultValuedAttr<I64Attr, "-1">:$axis,
      DefaultValuedAttr<F32Attr, "1.0e-5">:$epsilon);
  let results = (outs QDQ_FloatTensor:$output);
  let assemblyFormat = [{
    ($name^)? $input (`scale` $scale^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraLayerClassDeclaration = [{
    /// The first normalized dimension, counted from the front.
    int64_t getNormalizedAxis();
    /// Whether a scale of `type` fits: the input's element type, a shape
    /// that broadcasts to the normalized dimensions.
    bool fitsNormalizedDims(::mlir::RankedTensorType type);
    /// The same for a layer of `input` and `axis` yet to be built (import
    /// leaves a node whose scale does not fit as it is).
    static bool fitsNormalizedDims(::mlir::RankedTensorType input,
                                   int64_t axis,
                                   ::mlir::RankedTensorType type);
  }];
}

def QDQ_DropoutOp : QDQ_LayerOp<"dropout", "Dropout", 0, 0,
    [Pure, SameOperandsAndResultType], 0, 1> {
  let summary = "dropout (identity at inference)";
  let description = [{
    Kept as a layer so that insertion cases see the producer chains the
    toolkits match (`Dropout <- Activation <- BN <- Conv`); export drops it.
  }];
  let arguments = (ins QDQ_FloatTensor:$input, OptionalAttr<StrAttr>:$name,
      DefaultValuedAttr<F32Attr, "0.5">:$rate);
  let results = (outs QDQ_FloatTensor:$output);
  let hasVerifier = 1;
}

def QDQ_FlattenOp : QDQ_LayerOp<"flatten", "Flatten", 0, 0,
    [QDQ_InferredResult], 0, 1> {
  let summary = "collapse into two dimensions";
  let description = [{
    The dimensions before `axis` become the first result dimension, the
    others the second (ONNX `Flatten`; Keras `Flatten` is `axis = 1`).
  }];
  let arguments = (ins QDQ_FloatTensor:$input, OptionalAttr<StrAttr>:$name,
      DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs 2DTensorOf<[AnyFloat]>:$output);
}

def QDQ_ReshapeOp : QDQ_LayerOp<"reshape", "Reshape", 0, 0,
    [QDQ_InferredResult], 0, 1> {
  let summary = "change the shape, keeping the elements";
  let description = [{
    `shape` gives the new dimensions; one of them may be `-1`, computed from
    the element count. The result type must agree with `shape`.
  }];
  let arguments = (ins QDQ_FloatTensor:$input, OptionalAttr<StrAttr>:$name,
      DenseI64ArrayAttr:$shape);
  let results = (outs QDQ_FloatTensor:$output);
  let hasFolder = 1;
}

def QDQ_TransposeOp : QDQ_LayerOp<"transpose", "Permute", 0, 0,
    [QDQ_InferredResult], 0, 1> {
  let summary = "permute the dimensions";
  let description = [{
    Result dimension `i` is input dimension `perm[i]`.
  }];
  let arguments = (ins QDQ_FloatTensor:$input, OptionalAttr<StrAttr>:$name,
      DenseI64ArrayAttr:$perm);
  let results = (outs QDQ_FloatTensor:$output);
  let hasFolder = 1;
}

def QDQ_PadOp : QDQ_LayerOp<"pad", "ZeroPadding2D", 0, 0,
    [QDQ_InferredResult], 0, 1, ["isPassThrough"]> {
  let summary = "pad every dimension";
  let description = [{
    `pads` holds the amounts before each dimension, then after each dimension
    (ONNX order); `mode` is `constant` (filled with `value`), `reflect` or
    `edge`. Pass-through, except a constant pad with a nonzero `value`: that
    value need not lie on the input's quantization grid.
  }];
  let arguments = (ins QDQ_FloatTensor:$input, OptionalAttr<StrAttr>:$name,
      DenseI64ArrayAttr:$pads,
      DefaultValuedAttr<QDQ_PadModeAttr, "PadMode::Constant">:$mode,
      DefaultValuedAttr<F32Attr, "0.0">:$value);
  let results = (outs QDQ_FloatTensor:$output);
  let hasFolder = 1;
}

def QDQ_GenericOp : QDQ_LayerOp<"generic", "", 0, 0, [], 1, 0,
    ["getLayerClass", "getMultiplyAccumulates"]> {
  let summary = "any layer that no other op models, carried in float";
  let description = [{
    Keeps a layer the tool does not know (an ONNX `LSTM`, a custom op, a
    shape computation) in the graph exactly as it came: its type `op_type`
    and `domain`, its `layer_attributes`, operands and results. Insertion never
    quantizes it unless a QuantizationSpec names it, and export writes it
    back unchanged. Its class is its `op_type`.

    ```mlir
    %y = quant_qdq.generic "LpNormalization" "norm" %x
           {layer_attributes = {axis = 1 : i64, p = 2 : i64}}
        : (tensor<1x64xf32>) -> tensor<1x64xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$inputs, StrAttr:$op_type,
      OptionalAttr<StrAttr>:$name, OptionalAttr<StrAttr>:$domain,
      OptionalAttr<DictionaryAttr>:$layer_attributes);
  let results = (outs Variadic<AnyType>:$outputs);
  let assemblyFormat = [{
    $op_type ($name^)? operands attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraLayerClassDeclaration = [{
    /// ONNX's own domain, which an absent or empty `domain` also means.
    static constexpr ::llvm::StringLiteral kDefaultDomain = "ai.onnx";
    /// Whether the node belongs to ONNX's own domain.
    bool isInDefaultDomain() {
      std::optional<::llvm::StringRef> domain = getDomain();
      return !domain || domain->empty() || *domain == kDefaultDomain;
    }
    /// Whether the node is ONNX's own `opType` (not a custom domain's).
    bool isDefaultDomainNode(::llvm::StringRef opType) {
      return getOpType() == opType && isInDefaultDomain();
    }
  }];
}

//===----------------------------------------------------------------------===//
// Q/DQ ops
//===----------------------------------------------------------------------===//

// Shared by quantize, dequantize and fake_quant: a quantizer, and the scales
// and zero points calibration chooses (absent until then; an absent zero
// point is 0). Per-axis quantizers hold one scale per slice along the axis.
class QDQ_QuantOp<string mnemonic, list<Trait> traits = []>
    : QDQ_Op<mnemonic, traits # [Pure]> {
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether scales have been set (by calibration or by hand).
    bool isCalibrated() { return getScale().has_value(); }
    /// The zero point of slice `i` (0 when none is set).
    int32_t getZeroPointAt(unsigned i) {
      auto zps = getZeroPoint();
      return zps ? (*zps)[zps->size() == 1 ? 0 : i] : 0;
    }
  }];
}

def QDQ_QuantizeOp : QDQ_QuantOp<"quantize", [SameOperandsAndResultShape]> {
  let summary = "quantize a float tensor to integer storage";
  let description = [{
    `output = clamp(round_half_to_even(input / scale) + zero_point, qmin,
    qmax)`, with `[qmin, qmax]` from the quantizer (`[-127, 127]` for the
    default 8-bit narrow signed quantizer). The result element type is a
    signless integer as wide as the quantizer's `bits`, or `f8E4M3FN` for
    an `e4m3fn` quantizer (saturated to [-448, 448] and rounded to the
    nearest FP8 value instead). Exported as ONNX `QuantizeLinear`.

    ```mlir
    %q = quant_qdq.quantize %x <bits = 8> scale [0.0472]
        : tensor<1x64x56x56xf32> -> tensor<1x64x56x56xi8>
    ```
  }];
  let arguments = (ins QDQ_FloatTensor:$input, QDQ_QuantizerAttr:$quantizer,
      OptionalAttr<DenseF32ArrayAttr>:$scale,
      OptionalAttr<DenseI32ArrayAttr>:$zero_point);
  let results = (outs QDQ_StorageTensor:$output);
  let assemblyFormat = [{
    $input $quantizer (`scale` $scale^)? (`zero_point` $zero_point^)?
    attr-dict `:` type($input) `->` type($output)
  }];
  let hasFolder = 1;
}

def QDQ_DequantizeOp : QDQ_QuantOp<"dequantize", [SameOperandsAndResultShape]> {
  let summary = "dequantize integer storage to a float tensor";
  let description = [{
    `output = (input - zero_point) * scale`. With the quantize that feeds it,
    this is fake quantization; the pair is a real computation and is never
    folded away. Exported as ONNX `DequantizeLinear`.
  }];
  let arguments = (ins QDQ_StorageTensor:$input, QDQ_QuantizerAttr:$quantizer,
      OptionalAttr<DenseF32ArrayAttr>:$scale,
      OptionalAttr<DenseI32ArrayAttr>:$zero_point);
  let results = (outs QDQ_FloatTensor:$output);
  let assemblyFormat = [{
    $input $quantizer (`scale` $scale^)? (`zero_point` $zero_point^)?
    attr-dict `:` type($input) `->` type($output)
  }];
}

def QDQ_FakeQuantOp : QDQ_QuantOp<"fake_quant", [SameOperandsAndResultType]> {
  let summary = "quantize and dequantize in one step, staying in float";
  let description = [{
    `output = (clamp(round_half_to_even(input / scale) + zero_point, qmin,
    qmax) - zero_point) * scale`: exactly `dequantize(quantize(input))` with
    the same parameters, as one op that lowers to one kernel.
  }];
  let arguments = (ins QDQ_FloatTensor:$input, QDQ_QuantizerAttr:$quantizer,
      OptionalAttr<DenseF32ArrayAttr>:$scale,
      OptionalAttr<DenseI32ArrayAttr>:$zero_point);
  let results = (outs QDQ_FloatTensor:$output);
  let assemblyFormat = [{
    $input $quantizer (`scale` $scale^)? (`zero_point` $zero_point^)?
    attr-dict `:` type($input)
  }];
  let hasFolder = 1;
}

def QDQ_FakeQuantGradOp : QDQ_QuantOp<"fake_quant_grad",
    [AllTypesMatch<["input", "grad", "output"]>]> {
  let summary = "straight-through gradient of fake_quant, for QAT";
  let description = [{
    The backward of `fake_quant` under the straight-through estimator:
    `output = grad` where the unclamped quantized value
    `round_half_to_even(input / scale) + zero_point` lies in `[qmin, qmax]`,
    and `0` where it saturates. A NaN input gets a zero gradient (it has no
    quantized value in range); so do `+-inf`. Same quantizer, scales and
    zero points as the `fake_quant` it differentiates.

    ```mlir
    %dx = quant_qdq.fake_quant_grad %x, %dy <bits = 8> scale [0.0472]
        : tensor<1x64x56x56xf32>
    ```
  }];
  let arguments = (ins QDQ_FloatTensor:$input, QDQ_FloatTensor:$grad,
      QDQ_QuantizerAttr:$quantizer,
      OptionalAttr<DenseF32ArrayAttr>:$scale,
      OptionalAttr<DenseI32ArrayAttr>:$zero_point);
  let results = (outs QDQ_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $grad $quantizer (`scale` $scale^)? (`zero_point` $zero_point^)?
    attr-dict `:` type($input)
  }];
}

def QDQ_RoundToFormatOp : QDQ_Op<"round_to_format",
    [Pure, SameOperandsAndResultType]> {
  let summary = "round a float tensor onto a number format, staying in float";
  let description = [{
    Each element becomes the value of `format` (`#quant_qdq.number_format`)
    that the format's rule picks: fixed point with its rounding, binary,
    ternary, logarithmic, sparse or binary16. This is TensorQuant's
    quantization (seed 004): fake quantization with no scale to calibrate
    and no ONNX form, for studying number formats on CPU and GPU. Training
    passes the gradient straight through, as TensorQuant does.

    ```mlir
    %y = quant_qdq.round_to_format %x <fixed_point, bits = 16,
        fraction_bits = 8, rounding = stochastic, seed = 7>
        : tensor<1x64x56x56xf32>
    ```
  }];
  let arguments = (ins QDQ_FloatTensor:$input, QDQ_NumberFormatAttr:$format);
  let results = (outs QDQ_FloatTensor:$output);
  let assemblyFormat = "$input $format attr-dict `:` type($input)";
}

//===----------------------------------------------------------------------===//
// Calibration statistics
//===----------------------------------------------------------------------===//

def QDQ_HistogramOp : QDQ_Op<"histogram",
    [Pure, DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "counts of |x| in equal bins, one histogram per row";
  let description = [{
    Calibration's histogram of an observed tensor, computed where the
    tensor is produced (entropy, percentile and MSE calibration), so that
    the tensor itself never leaves the compiled code. Row `r` is
    `input[r, ...]` (the whole tensor below rank 2), and the result holds
    `bins` counts a row: element `x` of the row counts in bin
    `min(floor(|x| * bin_scale), bins - 1)`, computed in f64, so values
    past the last edge, infinities included, fall into the last bin. NaN
    elements are not counted.

    The rows keep the samples of a batch apart: `qdq-split-batch` runs a
    batch in groups of samples through it, and `qdq-lower-histograms` then
    writes it as loops shared among threads, each part of a row counted
    into a histogram of its own.

    ```mlir
    %h = quant_qdq.histogram %x bins 2048 bin_scale 512.0
        : tensor<4x64x56x56xf32>   // -> tensor<4x2048xi64>
    ```
  }];
  let arguments = (ins RankedTensorOf<[F32]>:$input,
      ConfinedAttr<I64Attr, [IntMinValue<1>]>:$bins, F64Attr:$bin_scale);
  let results = (outs 2DTensorOf<[I64]>:$counts);
  let assemblyFormat = [{
    $input `bins` $bins `bin_scale` $bin_scale attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

def QDQ_TensorRangeOp : QDQ_Op<"tensor_range",
    [Pure, DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "per-row minima and maxima of a tensor, and its element count";
  let description = [{
    Calibration's range of an observed tensor, computed where the tensor is
    produced, so that the tensor itself never leaves the compiled code. Row
    `r` is `input[r, ...]` (the whole tensor below rank 2): `min` and `max`
    hold each row's smallest and largest element, one per row (scalars
    below rank 2), and `count` the number of elements of the tensor. A NaN
    in a row makes that row's minimum and maximum NaN, as ONNX ReduceMin and
    ReduceMax do here (`arith.minimumf`, `arith.maximumf`): calibration
    reads a NaN row as a batch with no range. A row without elements gives
    +inf and -inf.

    The rows keep the samples of a batch apart, as the histogram's do.
    `convert-quant-qdq-to-linalg` writes the minima and the maxima as two
    `linalg.generic` reductions over all but the first dimension, which
    `qdq-fuse-sibling-reductions` makes one read of the tensor and whose
    rows the CPU pipeline shares among threads, and the count as a
    constant. The result types follow from the input's.

    ```mlir
    %min, %max, %count = quant_qdq.tensor_range %x : tensor<4x64x56x56xf32>
    // -> tensor<4xf32>, tensor<4xf32>, tensor<i64>
    ```
  }];
  let arguments = (ins RankedTensorOf<[F32]>:$input);
  let results = (outs TensorOf<[F32]>:$min, TensorOf<[F32]>:$max,
      0DTensorOf<[I64]>:$count);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

#endif // QUANTQDQ_OPS_TD
