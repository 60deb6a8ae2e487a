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

    `method=auto` chooses each activation's range by what it costs the
    network: starting from max's ranges, each tensor in program order takes,
    among the amaxes max, percentile, entropy and MSE give it, the one that
    leaves the least output error on the first `search-samples` samples,
    the rest of the network quantized as chosen so far (one sweep of
    coordinate descent: never worse than max on those samples). The
    histogram methods (percentile,
    entropy, mse) are checked the same way: when their ranges give an
    output SQNR more than 0.5 dB below max's on those samples, a warning
    says so and method=auto's choice replaces them (`check-ranges=false`
    keeps them). Tensors whose quantizer names its own method, bounded
    outputs (softmax), asymmetric and per-axis activations keep their
    ranges. The network compiles once for these runs (docs/Accuracy.md):
    two runs for the check, one per tensor and other distinct amax for the
    choice. Ranges that do not come from data (`load=`) are not checked.
  }];
  // method=auto switches ranges with arith and tensor ops.
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    ListOption<"data", "data", "std::string",
               "Calibration arrays: .npy files or folders of them">,
    Option<"method", "method", "std::string", /*default=*/"\"max\"",
           "max, percentile, entropy, mse, last-value, moving-average or "
           "auto (qdq-opt's --calibration-method)">,
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
    Option<"checkRanges", "check-ranges", "bool", /*default=*/"true",
           "Replace a histogram method's ranges by method=auto's when they "
           "cost over 0.5 dB of output SQNR against max's">,
    Option<"searchSamples", "search-samples", "int64_t", /*default=*/"32",
           "Samples method=auto and the check run (0: all)">,
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

def Sensitivity : Pass<"qdq-sensitivity", "::mlir::ModuleOp"> {
  // The switchable network selects between formats with arith and tensor.
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
  let summary = "Per layer, what quantizing its weights and its input "
                "activations costs the network's output";
  let description = [{
    Runs a calibrated network on validation data and measures, for every
    layer that reads a quantized tensor, the output SQNR (all f32 outputs
    together, against the network in float) in four configurations: only
    the layer's weight quantized, only its input activations quantized,
    everything but its weight quantized, and everything but its input
    activations quantized. The first two say how sensitive the layer is on
    its own; the last two how much leaving it in float would buy. The
    network compiles once: every Q/DQ pair can be switched to float by an
    extra input (see docs/Accuracy.md), so the analysis takes one run over
    the data per configuration, four per layer at most (configurations
    that repeat, as for layers sharing one quantized input, run once).

    `output` (`--qdq-sensitivity=FILE`) takes a table: `.json` gives rows
    (what Python's `quant_qdq.sensitivity` returns), `.csv` comma-separated
    values, anything else aligned text (`-`: stdout). `chart=` writes the
    layers' sensitivities as an SVG bar chart. The module is not changed.
    The network must be calibrated (every Q/DQ pair has its scales); an
    activation's range stays the one calibration chose.
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"",
           "Write the table here: .json, .csv or text ('-': stdout)">,
    ListOption<"data", "data", "std::string",
               "Validation data: .npy or .npz files, or folders of them">,
    Option<"chart", "chart", "std::string", /*default=*/"",
           "Write an SVG bar chart of the sensitivities here">,
    Option<"batchSize", "batch-size", "int64_t", /*default=*/"0",
           "Samples per run when the model's batch is dynamic (0: one per "
           "thread, 4 to 32)">,
    Option<"entry", "entry", "std::string", /*default=*/"",
           "Function to run (default: the only public one)">,
  ];
}

def AutoPrecision : Pass<"qdq-auto-precision", "::mlir::ModuleOp"> {
  // The switchable network selects between formats with arith and tensor.
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
  let summary = "The cheapest mix of formats whose output meets an accuracy "
                "target on validation data";
  let description = [{
    Chooses, for every Q/DQ pair of a calibrated network (a weight, or an
    activation with the layers that read it), one of the formats the
    options allow, so that the network's output on the validation data
    meets the target at the least cost, where a pair's cost is its bits
    times the multiply-accumulates of the layers it feeds (float: 32
    bits). Activations keep the range calibration chose, on the new grid;
    weights are scaled from their values.

    1. Each pair's error is measured alone: the network runs with only that
       pair quantized, in each of its formats, the rest in float.
    2. From the cheapest formats, the pair whose next format removes the
       most of that error per unit of cost is raised, and again, until
       every pair is at its most precise format: an ordered list of
       configurations, cheapest first.
    3. The list is searched for its first configuration that meets the
       target, each candidate measured whole on the data (errors do not
       add exactly): from the one whose summed errors predict the target,
       by halving, a few runs. An SQNR target must be met on the even and
       on the odd batches of the data apart, so that a configuration does
       not pass by the luck of which samples were measured (data that fit
       in one batch are judged whole).

    The network compiles once (the formats are switched by an extra input);
    runs over the data: one per pair and format, then a handful, so time
    grows linearly with the pairs. The result is deterministic for the
    same data and batch size. `report=` lists every pair's choice, cost
    and error, and the measured result.
    Where even the most precise configuration misses the target, it is
    kept, with a warning.

    `metric=sqnr` (default) aims at `target-sqnr` dB over the f32 outputs;
    `metric=top1` at `target-top1` percent of classifier rows ([N, C]
    outputs) whose top-1 class agrees with float's.
  }];
  let options = [
    ListOption<"data", "data", "std::string",
               "Validation data: .npy or .npz files, or folders of them">,
    Option<"targetSQNR", "target-sqnr", "double", /*default=*/"0",
           "The output SQNR to reach, in dB (metric=sqnr)">,
    Option<"targetTop1", "target-top1", "double", /*default=*/"0",
           "The top-1 agreement with float to reach, in percent "
           "(metric=top1)">,
    Option<"metric", "metric", "std::string", /*default=*/"\"sqnr\"",
           "sqnr or top1">,
    ListOption<"weightFormats", "weight-formats", "std::string",
               "Formats a weight may take: int4, int8, int16, fp8, float "
               "(default int8)">,
    ListOption<"activationFormats", "activation-formats", "std::string",
               "Formats an activation may take (default int8,float)">,
    Option<"reportPath", "report", "std::string", /*default=*/"",
           "Write every pair's choice, cost and error ('-': stdout)">,
    Option<"batchSize", "batch-size", "int64_t", /*default=*/"0",
           "Samples per run when the model's batch is dynamic (0: one per "
           "thread, 4 to 32)">,
    Option<"entry", "entry", "std::string", /*default=*/"",
           "Function to run (default: the only public one)">,
  ];
  let statistics = [
    Statistic<"numRaised", "raised-pairs",
              "Q/DQ pairs left above their cheapest format">,
    Statistic<"numRuns", "runs", "Runs over the validation data">,
  ];
}

def BiasCorrection : Pass<"qdq-bias-correction", "::mlir::ModuleOp"> {
  let summary = "Fold the mean output shift weight quantization adds into "
                "each layer's bias";
  let description = [{
    Rounding a convolution's or a dense layer's weight shifts the mean of
    each output channel: by `E[conv(x, Q(W) - W)]`, which does not average
    out when the inputs' mean is not zero (after a ReLU it never is). For
    every Conv2D and Dense layer whose weight is a float constant under a
    symmetric signed integer quantizer, the pass runs the float network on
    `data`, measures that shift per output channel exactly (the layer
    applied to its float input with the weight's rounding error as its
    weight: padding, strides and groups included), and subtracts it from
    the layer's bias (adding a bias where there is none). The weight keeps
    its integers; the network's output mean moves back to float's.

    Run it after insert-qdq, before or after calibrate: the weight's scales
    are those calibration gives it (from its values) when it has none yet.
    Layers of other than f32 outputs are left alone, and so, with a
    warning, are layers whose bias is no f32 constant of their own (a
    quantized bias). `report=` lists each layer's largest and mean
    correction. `--qdq-bias-correction=data.npy` is short for
    `--qdq-bias-correction="data=data.npy"`.
  }];
  let options = [
    ListOption<"data", "data", "std::string",
               "Data: .npy or .npz files, or folders of them">,
    Option<"batchSize", "batch-size", "int64_t", /*default=*/"0",
           "Samples per run when the model's batch is dynamic (0: one per "
           "thread, 4 to 32)">,
    Option<"entry", "entry", "std::string", /*default=*/"",
           "Function to run (default: the only public one)">,
    Option<"reportPath", "report", "std::string", /*default=*/"",
           "Write each layer's correction ('-': stdout)">,
  ];
  let statistics = [
    Statistic<"numCorrected", "corrected-layers",
              "Layers whose bias took the correction">,
  ];
}

#endif // QUANTQDQ_CALIBRATION_PASSES_TD
