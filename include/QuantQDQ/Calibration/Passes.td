//===- Passes.td - calibration pass ------------------------*- tablegen -*-===//

#ifndef QUANTQDQ_CALIBRATION_PASSES_TD
#define QUANTQDQ_CALIBRATION_PASSES_TD

include "mlir/Pass/PassBase.td"

def SpecializeInputShapes
    : Pass<"qdq-specialize-input-shapes", "::mlir::ModuleOp"> {
  let summary = "Fix the model's input shapes, and every shape that "
                "follows from them";
  let description = [{
    Gives the entry function's inputs the static `shapes` (one `AxBxC` per
    input, in order; only dynamic sizes may change) and recomputes every
    result type from them, as qdq-run and the data passes do before they
    run a model: layer ops infer theirs, ONNX nodes kept generic take ONNX's
    inference and are imported again with static operands, so that shape
    computations fold to constants and nodes whose output size a tensor
    gives (`Expand`, `Reshape` of a computed shape, ...) become static, or
    layer ops. The module then lowers with `convert-quant-qdq-to-linalg`
    without a dynamic size, for compilers that want static shapes (IREE's
    llvm-cpu). A size the shapes do not determine is an error naming the
    node.

    `--qdq-specialize-input-shapes=1x3x224x224` is short for
    `shapes=1x3x224x224`.
  }];
  let options = [
    ListOption<"shapes", "shapes", "std::string",
               "The inputs' shapes, in order: sizes joined by 'x' "
               "(1x3x224x224); a scalar input is an empty string">,
    Option<"entry", "entry", "std::string", /*default=*/"\"\"",
           "The function to specialize (default: the only public one)">,
  ];
}

def Calibrate : Pass<"calibrate", "::mlir::ModuleOp"> {
  let summary = "Set Q/DQ scales from calibration data (post-training)";
  let description = [{
    Runs the float network (every Q/DQ pair removed) on the calibration
    samples with the CPU JIT, collects statistics of each tensor a quantize
    or fake_quant op reads, and sets the scales: `amax / 127` for symmetric
    int8 quantizers, min/max with a zero point for asymmetric ones. Weights
    get per-channel `max|w| / qmax` from their values.

    Methods (`method=`; qdq-opt's `--calibration-method=` is shorthand for
    it on every `--calibrate`): `max` (largest
    magnitude seen), `percentile` (of |x|, `percentile=99.99`), `entropy`
    (TensorRT's KL-divergence threshold over a histogram of |x|), `mse`
    (the threshold with the least fake-quantization error), and TFMOT's
    range estimators besides `max` (its "all values"): `last-value` (the
    range of the last batch) and `moving-average` (an exponential moving
    average of the batches' ranges, `decay=0.999`, starting at the first
    batch's range). A batch is one run: the model's batch, or `batch-size`
    samples when the batch is dynamic. Without `batch-size`, that is 32
    where a last-value or moving-average range is asked for (the report
    computes them too), else one per thread, at least 4 and at most 32 (or
    up to twice that where it divides the samples): the other
    methods' ranges do not depend on it (on data without NaNs), and small
    batches keep a run's tensors in cache and peak memory low. The histogram methods read the data
    twice; memory does not grow with the number of samples. Each .npy file holds a batch of samples along its first
    dimension; a folder stands for its .npy files. Batches run across
    files. Where the ranges are computed in the compiled model (`max`,
    `last-value`, `moving-average`), copies of a short last batch's own
    samples fill it up (a static batch), or do so when they take less time
    to run than compiling the short batch's shape would (a dynamic one).

    `save=` writes the ranges as JSON (`.json`) or a TensorRT calibration
    cache (other names); `load=` reads such a file instead of running the
    model. `--calibrate=data.npy` is short for `--calibrate="data=data.npy"`.

    `report=` (qdq-opt's `--calibration-report=`) writes, per tensor, the
    amax every method would choose and the share of values it clips, the
    method used marked, and a note where a method clips far more than the
    others (over 1% of the values and ten times the others' median); the
    method used gets a warning when it is that one.
  }];
  let options = [
    ListOption<"data", "data", "std::string",
               "Calibration arrays: .npy files or folders of them">,
    Option<"method", "method", "std::string", /*default=*/"\"max\"",
           "max, percentile, entropy, mse, last-value or moving-average "
           "(qdq-opt's --calibration-method)">,
    Option<"percentile", "percentile", "double", /*default=*/"99.99",
           "Percentile of |x| for the percentile method">,
    Option<"bins", "bins", "unsigned", /*default=*/"2048",
           "Histogram bins of the percentile, entropy and mse methods">,
    Option<"batchSize", "batch-size", "int64_t", /*default=*/"0",
           "Samples per run when the model's batch is dynamic (0: 32 for "
           "last-value, moving-average and report=, else one per thread, "
           "4 to 32)">,
    Option<"savePath", "save", "std::string", /*default=*/"",
           "Write the calibration table (.json, else TensorRT cache)">,
    Option<"loadPath", "load", "std::string", /*default=*/"",
           "Read a calibration table instead of running the model">,
    Option<"entry", "entry", "std::string", /*default=*/"",
           "Function to calibrate (default: the only public one)">,
    Option<"movingAverageDecay", "decay", "double", /*default=*/"0.999",
           "Decay of the moving-average method's average">,
    Option<"reportPath", "report", "std::string", /*default=*/"",
           "Write what every method would choose, per tensor ('-': stdout)">,
  ];
}

def ActivationAwareScales : Pass<"qdq-awq", "::mlir::ModuleOp"> {
  let summary = "Activation-aware scaling of weight-only quantized dense "
                "layers (AWQ-lite)";
  let description = [{
    For each dense layer (MatMul, Gemm) whose weight is quantized and whose
    input is not (weight-only int4 or int8, per channel or in blocks), runs
    the float network on the calibration data, and measures the mean
    magnitude `a_k` of each input channel. Salient channels, those with
    large inputs, lose least to quantization when their weights are scaled
    up before it and their inputs scaled down after: for `alpha` from 0 to
    1 by `alpha-step`, `s_k = a_k^alpha` (normalized so that
    `max(s) * min(s) = 1`), the weight row `k` times `s_k` is quantized
    and divided back, and the squared error of the layer's output on up
    to `rows` calibration rows is measured. The best `alpha` wins when it
    beats `alpha = 0` (plain rounding): the weight becomes `diag(s) W` and
    a `multiply` by `1 / s` (ONNX `Mul`) reads the layer's input, as Model
    Optimizer's `awq_lite` does for its int4 export. `report=` lists each
    layer's `alpha` and errors.

    `--qdq-awq=data.npy` is short for `--qdq-awq="data=data.npy"`.
  }];
  let options = [
    ListOption<"data", "data", "std::string",
               "Calibration arrays: .npy files or folders of them">,
    Option<"batchSize", "batch-size", "int64_t", /*default=*/"0",
           "Samples per run when the model's batch is dynamic (0: one per "
           "thread, 4 to 32)">,
    Option<"alphaStep", "alpha-step", "double", /*default=*/"0.05",
           "Step of the search over alpha in [0, 1]">,
    Option<"rows", "rows", "int64_t", /*default=*/"512",
           "Input rows per layer kept to measure the output error">,
    Option<"entry", "entry", "std::string", /*default=*/"",
           "Function to run (default: the only public one)">,
    Option<"reportPath", "report", "std::string", /*default=*/"",
           "Write each layer's alpha and output errors ('-': stdout)">,
  ];
  let statistics = [
    Statistic<"numScaled", "scaled-layers",
              "Dense layers whose weight AWQ scaled">,
  ];
}

def SmoothActivations : Pass<"qdq-smooth", "::mlir::ModuleOp"> {
  let summary = "Activation outliers migrated into the weights of W8A8 "
                "dense layers (SmoothQuant)";
  let description = [{
    For the dense layers (MatMul, Gemm) whose input and weight are both
    quantized (W8A8), grouped by the float tensor they read (q, k and v
    read one), runs the float network on the calibration data and
    measures each input channel's largest magnitude `max|X_k|`. A few
    channels of a transformer's activations are far larger than the rest,
    and a per-tensor activation scale spends its grid on them. With
    `s_k = max|X_k|^alpha / max|W_k|^(1 - alpha)` (`W_k` the weights of
    input channel `k` in every layer of the group), the input becomes
    `X / s` and each weight `diag(s) W`: the product is unchanged in
    float, and the activation's range flattens at the weights' expense.

    `1 / s` is folded into the scale (and bias) of the `layer_norm` or
    `rms_norm` that produces the tensor when the group's quantizers are
    its only readers; otherwise a `multiply` by `1 / s` (ONNX `Mul`,
    `<layer>_smooth_scale`) comes before the input's quantizer. `alpha`
    (0.5) is the migration strength; `alpha=auto` chooses it per group
    from 0 to 1 by `alpha-step`, or no smoothing, by the group's output
    error with both quantizers simulated (per-tensor `max` activation
    range, per-channel weights) on up to `rows` calibration rows. The
    input's quantizers must not be calibrated yet: calibration comes after
    (the `qdq-quantize` pipeline's order). `report=` lists each group.

    `--qdq-smooth=data.npy` is short for `--qdq-smooth="data=data.npy"`.
  }];
  let options = [
    ListOption<"data", "data", "std::string",
               "Calibration data: .npy or .npz files, or folders of them">,
    Option<"alpha", "alpha", "std::string", /*default=*/"\"0.5\"",
           "Migration strength in [0, 1], or auto (per group)">,
    Option<"alphaStep", "alpha-step", "double", /*default=*/"0.05",
           "Step of alpha=auto's search over [0, 1]">,
    Option<"rows", "rows", "int64_t", /*default=*/"512",
           "Input rows per group kept to measure alpha=auto's error">,
    Option<"batchSize", "batch-size", "int64_t", /*default=*/"0",
           "Samples per run when the model's batch is dynamic (0: one per "
           "thread, 4 to 32)">,
    Option<"entry", "entry", "std::string", /*default=*/"",
           "Function to run (default: the only public one)">,
    Option<"reportPath", "report", "std::string", /*default=*/"",
           "Write each group's alpha, output errors and where 1 / s went "
           "('-': stdout)">,
  ];
  let statistics = [
    Statistic<"numSmoothed", "smoothed-groups",
              "Groups of dense layers whose input was smoothed">,
    Statistic<"numFolded", "folded-groups",
              "Smoothed groups whose 1 / s went into a normalization">,
  ];
}

def GPTQWeights : Pass<"qdq-gptq", "::mlir::ModuleOp"> {
  let summary = "Quantized weights that compensate their rounding error on "
                "calibration data (GPTQ)";
  let description = [{
    For each dense layer (MatMul, Gemm) whose weight has a symmetric signed
    integer quantizer (int4 or int8; per tensor, per channel or in blocks;
    weight-only or with a quantized input), runs the float network on the
    calibration data and accumulates the Gram matrix `H = X^T X` of the
    layer's input rows (once per tensor that several layers read, as q, k
    and v do). GPTQ then quantizes the weight one input channel at a time
    and spreads each channel's rounding error over the channels not yet
    quantized, through the Cholesky factor of `(H + damp * mean(diag H) *
    I)^-1`, so that `X W` changes least: `block` channels at a time with a
    lazy update of the rest. A scale group (a block of `weight-block-size`
    input channels, an output channel, or the tensor) takes
    `max|w| / qmax` of its values, as updated so far, when its first
    channel is reached (the lazy updates do not change the result).
    `act-order` quantizes the channels with the
    largest inputs first; groups keep their channels, so the export's
    blocks stay contiguous.

    The weight becomes the dequantized result and its quantizer ops take
    the scales GPTQ chose, so the export writes GPTQ's integers exactly.
    A layer whose GPTQ output error `tr(D H D^T)` on the calibration rows
    is not below plain rounding's keeps rounding; `report=` lists both per
    layer. `H` takes `k^2` doubles per distinct input of `k` channels for
    the whole run, and solving a layer up to four more `k^2` at once.
    Calibration data holding NaN or infinite values is an error.

    `--qdq-gptq=data.npy` is short for `--qdq-gptq="data=data.npy"`.
  }];
  let options = [
    ListOption<"data", "data", "std::string",
               "Calibration data: .npy or .npz files, or folders of them">,
    Option<"batchSize", "batch-size", "int64_t", /*default=*/"0",
           "Samples per run when the model's batch is dynamic (0: one per "
           "thread, 4 to 32)">,
    Option<"block", "block", "int64_t", /*default=*/"128",
           "Input channels quantized before the lazy update of the rest">,
    Option<"damp", "damp", "double", /*default=*/"0.01",
           "Dampening added to diag(H), as a fraction of its mean">,
    Option<"actOrder", "act-order", "bool", /*default=*/"false",
           "Quantize input channels in decreasing order of diag(H)">,
    Option<"entry", "entry", "std::string", /*default=*/"",
           "Function to run (default: the only public one)">,
    Option<"reportPath", "report", "std::string", /*default=*/"",
           "Write each layer's output error with rounding and with GPTQ "
           "('-': stdout)">,
  ];
  let statistics = [
    Statistic<"numChanged", "gptq-layers",
              "Dense layers whose weight GPTQ rewrote">,
  ];
}

#endif // QUANTQDQ_CALIBRATION_PASSES_TD
