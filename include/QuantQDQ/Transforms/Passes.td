//===- Passes.td - quant_qdq quantization passes -----------*- tablegen -*-===//
//
// The passes that decide and shape quantization: where Q/DQ pairs go
// (insert-qdq, TensorQuant's formats), tensor names, weight scales and
// storage, batch-norm folding, horizontal fusion. The engine's
// code-generation passes are in Codegen/Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_TRANSFORMS_PASSES_TD
#define QUANTQDQ_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def InsertQDQ : Pass<"insert-qdq", "::mlir::ModuleOp"> {
  let summary = "Place quantize/dequantize pairs where TensorRT wants them";
  let description = [{
    Decides, for every layer that implements `QDQLayerOpInterface`, whether
    its activations and its weight get a Q/DQ pair, and inserts the pairs.
    A layer's decision comes from, in order of precedence:

    1. the user's QuantizationSpec (`spec=` or `--qdq-spec=`), by layer name,
       then by class (`is_keras_class`), then by name substring;
    2. the insertion cases (`cases=`), library cases such as `resnet-v1` or
       user cases loaded from `.pdll`/`.mlir` files at run time;
    3. in `full` mode only, the default table of the layer's interface
       (Conv2D, Dense, DepthwiseConv2D: input and weight; AveragePooling2D,
       GlobalAveragePooling2D: input).

    A tensor that several consumers quantize alike gets one shared pair
    (horizontal fusion). With `propagate` (default), a pair requested on the
    output of a pass-through layer (reshape, flatten, transpose, padding,
    max pooling, dropout) whose every consumer wants it moves to that layer's
    input, so the layer runs in INT8. Operands already fed by a dequantize are
    left alone, and so are consumers of a pass-through layer that a
    dequantize feeds, so running the pass twice changes nothing.

    The literal form `--insert-qdq=resnet-v1[,bn,...]` is a list of cases;
    `--insert-qdq="cases=resnet-v1 mode=partial spec=s.json"` sets options.
    Formats: `weight-format=int4` and `activation-format=int16` set the
    default widths (as `weight-bits`/`activation-bits` do, which also take
    other widths); `activation-format=none` quantizes weights only.
    `weight-block-size=N` gives each block of N input channels of a weight
    its own scale (opset-21 blocked `DequantizeLinear`; TensorRT's int4
    weight-only format takes 64 or 128), where it would have one per output
    channel. `weight-scale=auto` (the default) gives integer weights of 4
    bits or fewer the full signed range and each scale group the clipping of
    least rounding error (`narrow_range = false, calibration = mse`), wider
    ones TensorRT's `max|w| / qmax`; `max` and `mse` ask for one rule for
    every width (quantization-aware training's exports ask for `max`, the
    rule their training simulated). `kv-cache=int8` (or `fp8`) quantizes a decoder's key/value
    cache: each float graph output named `present*`, or built by a
    concatenation from an input named `past*`, gets a per-tensor pair that
    every reader takes, so the cache holds values of the grid and
    attention reads the dequantized cache.

    `target=onnxruntime` places pairs the way ONNX Runtime's CPU provider
    forms its integer kernels (docs/InsertQDQ.md, "Runtime targets"): 8-bit
    activations become unsigned and asymmetric (u8, with s8 weights); after
    the decisions above, the output of each layer with a QLinear kernel
    (convolution, addition, multiplication, concatenation, average pooling,
    sigmoid, leaky relu, swish) whose inputs and weight are quantized is
    quantized too, past the relu or clip(0, c) that alone reads it, and so
    is the output of each pass-through layer with a quantized input, where
    a reader then runs on integers (the tensors are chosen together, as a
    greatest fixpoint), so that ORT forms `QLinearConv`, `QLinearAdd` and
    the rest. A swish so quantized splits into a sigmoid and a product.
    Fully connected layers and matmuls keep float outputs (ORT's `QGemm`
    and `MatMulIntegerToFloat` take them); a Gemm's bias is exported as an
    Add so that `QGemm` forms. FP8 and int16 activations are left as
    TensorRT's placement puts them.

    The pass reads nothing but its options. qdq-opt's `--qdq-spec`,
    `--qdq-mode` and `--qdq-report` are shorthand for `spec=`, `mode=` and
    `report=` of every `--insert-qdq` on its command line (written into the
    pass's options before parsing, so reproducers record them); inside a
    `--pass-pipeline` the options are written on the pass.
  }];
  let options = [
    ListOption<"cases", "cases", "std::string",
               "Insertion cases to apply: library names (resnet-v1, resnet-v2, "
               "efficientnet, mobilenet, inception, residual, bn, maxpool, "
               "se-multiply) or paths of .pdll/.mlir (PDL) files">,
    Option<"specPath", "spec", "std::string", /*default=*/"",
           "QuantizationSpec JSON file (qdq-opt's --qdq-spec)">,
    Option<"mode", "mode", "std::string", /*default=*/"\"full\"",
           "full or partial (qdq-opt's --qdq-mode)">,
    Option<"reportPath", "report", "std::string", /*default=*/"",
           "Write a per-layer report of the decisions to this file ('-' for "
           "stdout; qdq-opt's --qdq-report)">,
    Option<"propagate", "propagate", "bool", /*default=*/"true",
           "Move pairs through pass-through layers">,
    Option<"activationBits", "activation-bits", "unsigned", /*default=*/"8",
           "Default bit width of activation quantizers">,
    Option<"weightBits", "weight-bits", "unsigned", /*default=*/"8",
           "Default bit width of weight quantizers">,
    Option<"weightFormat", "weight-format", "std::string", /*default=*/"\"\"",
           "Weight format: int8 or int4 (sets weight-bits)">,
    Option<"activationFormat", "activation-format", "std::string",
           /*default=*/"\"\"",
           "Activation format: int8, int16 (sets activation-bits) or none "
           "(weight-only: no activation Q/DQ)">,
    Option<"weightBlockSize", "weight-block-size", "int64_t", /*default=*/"0",
           "Quantize weights per block of this many input channels "
           "(0: per output channel)">,
    Option<"weightScale", "weight-scale", "std::string",
           /*default=*/"\"auto\"",
           "How weight scales are chosen: max (max|w| / qmax, narrow range: "
           "TensorRT's), mse (full range, each group's clipping of least "
           "rounding error), or auto (mse at 4 bits or fewer, else max)">,
    Option<"attentionMaxSequence", "attention-max-sequence", "int64_t",
           /*default=*/"512",
           "attention-matmul quantizes attention matmuls whose sequence "
           "length is at most this (TensorRT's INT8 fused attention: 512)">,
    Option<"kvCache", "kv-cache", "std::string", /*default=*/"\"\"",
           "Quantize a decoder's key/value cache (present_* outputs): int8 "
           "or fp8 (empty: keep it in float)">,
    Option<"target", "target", "std::string", /*default=*/"\"tensorrt\"",
           "The runtime the pairs are placed for: tensorrt, or onnxruntime "
           "(u8 asymmetric activations, and the outputs of layers with a "
           "QLinear kernel quantized; qdq-opt's --qdq-target)">,
  ];
  let statistics = [
    Statistic<"numLayers", "layers", "Layers decided">,
    Statistic<"numLayersBySpec", "layers-by-spec",
              "Layers a QuantizationSpec entry decided">,
    Statistic<"numLayersByCase", "layers-by-case",
              "Layers an insertion case decided">,
    Statistic<"numLayersByDefault", "layers-by-default-table",
              "Layers the default table decided (full mode)">,
    Statistic<"numLayersWithInputs", "layers-with-quantized-inputs",
              "Layers with at least one quantized activation input">,
    Statistic<"numWeights", "quantized-weights", "Weights quantized">,
    Statistic<"numPairs", "pairs-inserted", "Q/DQ pairs inserted">,
    Statistic<"numAlreadyQuantized", "uses-already-quantized",
              "Uses asked for that an existing dequantize already feeds "
              "(an imported QDQ model, a second run)">,
    Statistic<"numKVCacheTensors", "kv-cache-tensors",
              "Key/value cache tensors quantized (kv-cache=)">,
    Statistic<"numQLinearOutputs", "qlinear-outputs",
              "Outputs of layers with a QLinear kernel quantized "
              "(target=onnxruntime)">,
    Statistic<"numPassThroughOutputs", "pass-through-outputs",
              "Outputs of pass-through layers quantized like their inputs "
              "(target=onnxruntime)">,
  ];
  let dependentDialects = ["::mlir::quant_qdq::QuantQDQDialect",
                           "::mlir::pdl::PDLDialect",
                           "::mlir::pdl_interp::PDLInterpDialect"];
}

def InsertNumberFormats : Pass<"insert-number-formats", "::mlir::ModuleOp"> {
  let summary = "Round layer outputs and weights onto TensorQuant's formats";
  let description = [{
    TensorQuant's quantization (seed 004) as a pass: layers are selected by
    name substring, and a selected layer's outputs (`outputs=`,
    TensorQuant's `extr_q_map`) or all its weights and other parameters
    (`weights=`, its `weight_q_map`) go through `round_to_format`.

    Each option is a TensorQuant map file, JSON `{"name substring":
    "format"}`, where the first key (in file order) that the layer's name
    contains decides and `"none"` leaves the layer alone; or a format
    alone, for every layer. Formats are TensorQuant's names:
    `nearest,16,8` (fixed point, 16 bits of which 8 fractional; also
    `zero`, `down` and `stochastic[,...,seed]`), `binary[,m]`,
    `ternary[,m[,threshold]]`, `logarithmic`, `sparse,<threshold>`, `fp16`.

    `--insert-number-formats="outputs=extr.json weights='ternary'"`.
    The formats are fake quantization: qdq-run and calibration execute them,
    ONNX export refuses them. A map entry that matches no layer is a
    warning at the entry.
  }];
  let options = [
    Option<"outputsMap", "outputs", "std::string", /*default=*/"",
           "TensorQuant map (JSON file) or format for layer outputs">,
    Option<"weightsMap", "weights", "std::string", /*default=*/"",
           "TensorQuant map (JSON file) or format for layer weights">,
  ];
  let statistics = [
    Statistic<"numOutputs", "outputs-rounded", "Layer outputs rounded">,
    Statistic<"numWeights", "weights-rounded", "Layer weights rounded">,
  ];
  let dependentDialects = ["::mlir::quant_qdq::QuantQDQDialect"];
}

def NameTensors : Pass<"qdq-name-tensors", "::mlir::ModuleOp"> {
  let summary = "Give every graph tensor one unique, stable name";
  let description = [{
    Names the arguments of every function (`quant_qdq.onnx.name`, kept from
    the ONNX import, else `input_<i>`) and the results of its layer ops
    (`quant_qdq.tensor_names`): graph outputs keep their names, other results
    are `<layer>_output_<i>` with the layer's name made unique among layers
    (a second layer named `act` gives `act_1_output_0`), `<class>_<k>` for
    unnamed layers. Stored names are kept; of two equal names the later one
    gets a suffix. Calibration tables, reports and ONNX export read these
    names (calibrate and export run the naming themselves), so a table written
    by calibration names the tensors of the model it was written for.
    Idempotent.
  }];
}

def FuseHorizontalQDQ : Pass<"qdq-fuse-horizontal"> {
  let summary = "Share one Q/DQ pair among the consumers of a tensor";
  let description = [{
    Where several quantize ops read the same tensor with the same quantizer,
    scales and zero points, keeps the first and its dequantize and redirects
    the others' users to them (seed 001, figure 3: TensorRT wants one pair
    per tensor). Linear in the number of quantize ops.
  }];
}

def WeightScales : Pass<"qdq-weight-scales", "::mlir::ModuleOp"> {
  let summary = "Scale weight Q/DQ ops from their values";
  let description = [{
    Gives every uncalibrated Q/DQ op whose input is a constant (a weight)
    the scales `max|w| / qmax`, per output channel for per-axis quantizers
    (asymmetric quantizers: the min/max range with a zero point). With
    `activation-amax` above 0, the other uncalibrated ops get the
    toolkit's initial range, scale `amax / qmax`, and a warning says that
    activations are uncalibrated. Calibration (`--calibrate`) sets both
    from data instead.
  }];
  let options = [
    Option<"activationAmax", "activation-amax", "double", /*default=*/"0.0",
           "Range assumed for uncalibrated activations (0: leave them "
           "uncalibrated)">,
  ];
}

def QuantizeWeights : Pass<"qdq-quantize-weights"> {
  let summary = "Store quantized weights as integer constants";
  let description = [{
    Replaces every calibrated 8-bit `quantize` of a floating-point constant
    whose readers are all `dequantize` ops by the constant's quantized
    storage: `clamp(round_half_to_even(w / scale) + zero_point, qmin,
    qmax)` per slice along the quantizer's axis, as an `i8` resource
    constant. The graph then holds each weight once, in int8, and no
    quantize runs for it: ONNX export writes it as an int8 (or uint8)
    initializer read by a `DequantizeLinear` (`--onnx-weights=int8` runs
    this pass). The constant is named after the quantize's tensor name, or
    the weight's name with `_quantized`. Other bit widths are left alone.
    A weight that only layers marked `quant_qdq.float_kernel` read (layers
    ONNX Runtime runs in float all the same; `insert-qdq
    target=onnxruntime` marks them) becomes instead a float constant of its
    dequantized values, `(q - zero_point) * scale`: the same numbers,
    without a dequantize on every run.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def FoldBatchNorm : Pass<"qdq-fold-batch-norm"> {
  let summary = "Fold a BatchNormalization into the convolution before it";
  let description = [{
    Rewrites `batch_norm(conv2d(x, w, b))` into `conv2d(x, w', b')` with
    `w' = w * s` per output channel and `b' = (b - mean) * s + beta`, where
    `s = scale / sqrt(variance + epsilon)`: what TensorRT does at build time,
    done before quantization so that per-channel weight scales are computed
    on the weights that will run. Folds only when the convolution feeds the
    BN alone, the weight, bias and BN parameters are f32 constants (dense or
    resource), and both layers use the same layout; leaves anything else
    as it is. The new weight and bias are resource blobs, one copy each.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def CrossLayerEqualization : Pass<"qdq-equalize", "::mlir::ModuleOp"> {
  let summary = "Rescale consecutive layers' channels so that per-tensor "
                "weight scales fit them";
  let description = [{
    Cross-layer equalization (Nagel et al., 2019), on the float network
    before `insert-qdq`. For each Conv2D or Dense layer whose output reaches
    exactly one other such layer, directly or through one activation that
    commutes with a positive scale (relu, leaky_relu, linear, and relu6 or
    clip(0, c) as below), it divides output channel i of the first layer's
    weight and bias by `s_i` and multiplies input channel i of the second's
    weight by `s_i`, with `s_i = sqrt(r1_i / r2_i)` for the channels'
    largest magnitudes `r1_i` and `r2_i`: both then span
    `sqrt(r1_i * r2_i)`, and the network computes what it computed. A
    layer between two pairs (the depthwise convolution of a MobileNet
    block) takes part in both; the pass sweeps the pairs until no factor
    moves by more than 0.1 % or `max-sweeps` is reached.

    The consumer must take each channel on its own: an ungrouped
    convolution, a depthwise one with one filter per channel, or a dense
    layer reading the channel axis. Weights and biases must be f32
    constants no other op reads. A bounded activation cannot be rescaled
    as it is (`relu6(x / s) * s = min(relu(x), 6 s)`); it becomes `relu`
    followed by the per-channel minimum `c / s_i` (a `generic "Min"`, ONNX
    `Min`), which computes the same. SiLU, GELU and other activations that
    are not homogeneous stop a pair. Run `qdq-fold-batch-norm` first: a
    BatchNormalization between two layers stops the pair too.

    Helps where weights get one scale per tensor; per-channel scales
    already fit each channel. `report=FILE` lists each pair, the factors'
    range, and each rescaled weight's fit to one scale (mean channel range
    over the largest) before and after. A module that already holds Q/DQ
    ops is an error.
  }];
  let options = [
    Option<"maxSweeps", "max-sweeps", "int64_t", /*default=*/"32",
           "The most passes over the pairs">,
    Option<"reportPath", "report", "std::string", /*default=*/"",
           "Write the pairs and the weights' fit before and after here "
           "('-': stdout)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

#endif // QUANTQDQ_TRANSFORMS_PASSES_TD
