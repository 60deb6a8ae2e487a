//===- Calibrator.cpp - ranges of activations from calibration data -------===//

#include "CalibrationData.h"
#include "CalibrationProgress.h"
#include "QuantQDQ/Calibration/Calibration.h"
#include "QuantQDQ/Execution/JITExecutor.h"
#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/Utils/PassThrough.h"
#include "QuantQDQ/Utils/TensorNames.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::quant_qdq;

/// The batch size when none is given and a per-batch method's range is
/// asked for: that of TFMOT's training, which those methods model.
static constexpr int64_t kPerBatchMethodsBatchSize = 32;

bool mlir::quant_qdq::isCalibrationWeight(Value value) {
  Operation *def = value.getDefiningOp();
  return def && def->hasTrait<OpTrait::ConstantLike>();
}

/// The quantizer of a quantize or fake_quant op, else null.
static QuantizerAttr getInputQuantizer(Operation *op) {
  if (auto q = dyn_cast<QuantizeOp>(op))
    return q.getQuantizer();
  if (auto fake = dyn_cast<FakeQuantOp>(op))
    return fake.getQuantizer();
  return nullptr;
}

/// The interval the layer producing `value` bounds its output to, looking
/// through pass-through layers (a reshape of softmax probabilities).
static std::optional<std::pair<double, double>> getKnownBounds(Value value) {
  while (auto layer = value.getDefiningOp<QDQLayerOpInterface>()) {
    if (auto bounds = layer.getOutputBounds())
      return bounds;
    if (!layer.isPassThrough() || layer->getNumOperands() == 0)
      break;
    value = layer->getOperand(layer.getActivationOperandIndices().front());
  }
  return std::nullopt;
}

/// The tensor a pass-through layer quantized alike before and after reads:
/// `value`'s source when its layer moves or selects values (reshape, max
/// pooling, zero padding) from a dequantize whose quantizer a quantize of
/// `value` shares, else null.
static Value getSameValuedSource(Value value) {
  OpOperand *input = getPassThroughInput(value.getDefiningOp());
  auto dequantize =
      input ? input->get().getDefiningOp<DequantizeOp>() : DequantizeOp();
  if (!dequantize)
    return {};
  auto quantize = dequantize.getInput().getDefiningOp<QuantizeOp>();
  if (!quantize || !llvm::any_of(value.getUsers(), [&](Operation *user) {
        return getInputQuantizer(user) == dequantize.getQuantizer();
      }))
    return {};
  return quantize.getInput();
}

namespace {
/// A tensor calibration observes, and the method its quantizer asks for.
struct ObservedTensor {
  Value value;
  std::optional<CalibrationMethod> method;
  /// The positive levels of its widest quantizer (127 for int8), which
  /// entropy and mse calibration quantize the histogram to.
  unsigned levels = 127;
};
} // namespace

/// The tensors calibration observes: the inputs of quantize and fake_quant
/// ops that are not weights, each once, in program order. Quantizers of one
/// tensor that ask for different methods get the first one's, with a
/// warning at the other when `warn` is set.
static SmallVector<ObservedTensor> collectObserved(func::FuncOp func,
                                                   bool warn) {
  SmallVector<ObservedTensor> observed;
  llvm::SmallDenseMap<Value, unsigned> index;
  func.walk([&](Operation *op) {
    QuantizerAttr quantizer = getInputQuantizer(op);
    if (!quantizer)
      return;
    Value input = op->getOperand(0);
    if (isCalibrationWeight(input))
      return;
    // An integer grid of qmax steps above 0; FP8, whose steps are not
    // uniform, is searched as int8 (max is the usual FP8 choice).
    unsigned levels =
        quantizer.isFloatStorage() ? 127u : unsigned(quantizer.getQMax());
    auto [it, inserted] = index.try_emplace(input, observed.size());
    if (inserted) {
      observed.push_back({input, quantizer.getCalibration(), levels});
      return;
    }
    observed[it->second].levels = std::max(observed[it->second].levels, levels);
    std::optional<CalibrationMethod> first = observed[it->second].method;
    if (warn && quantizer.getCalibration() != first)
      op->emitWarning("this quantizer asks for ")
          << (quantizer.getCalibration()
                  ? stringifyCalibrationMethod(*quantizer.getCalibration())
                  : StringRef("the pass's method"))
          << " calibration, another of the same tensor for "
          << (first ? stringifyCalibrationMethod(*first)
                    : StringRef("the pass's method"))
          << "; the tensor has one range: the first quantizer's";
  });
  return observed;
}

func::FuncOp mlir::quant_qdq::findEntryFunction(ModuleOp module,
                                                StringRef name) {
  func::FuncOp entry;
  bool unique = true;
  module.walk([&](func::FuncOp func) {
    if (func.isExternal() ||
        (!name.empty() ? func.getName() != name : !func.isPublic()))
      return;
    unique = unique && !entry;
    entry = func;
  });
  return unique ? entry : func::FuncOp();
}

void mlir::quant_qdq::removeQuantization(func::FuncOp func) {
  SmallVector<Operation *> dead;
  func.walk([&](Operation *op) {
    if (auto fake = dyn_cast<FakeQuantOp>(op)) {
      fake.getResult().replaceAllUsesWith(fake.getInput());
      dead.push_back(fake);
    } else if (auto dq = dyn_cast<DequantizeOp>(op)) {
      if (auto q = dq.getInput().getDefiningOp<QuantizeOp>()) {
        dq.getResult().replaceAllUsesWith(q.getInput());
        dead.push_back(dq);
      }
    }
  });
  for (Operation *op : dead)
    op->erase();
  Builder b(func.getContext());
  func.walk([&](Operation *op) {
    auto setPlaceholder = [&](auto quantOp) {
      if (!quantOp.getScale())
        quantOp.setScaleAttr(b.getDenseF32ArrayAttr(SmallVector<float>(
            ShapedType::getNumElements(quantOp.getQuantizer().getScaleShape(
                cast<RankedTensorType>(quantOp.getInput().getType())
                    .getShape())),
            1.0f)));
    };
    if (auto q = dyn_cast<QuantizeOp>(op)) {
      if (q->use_empty())
        q->erase();
      else
        setPlaceholder(q);
    } else if (auto dq = dyn_cast<DequantizeOp>(op)) {
      setPlaceholder(dq);
    }
  });
}

/// `value` in f32, which the statistics are computed and read in: an ONNX
/// Cast (exact from bf16 and f16) for other float types.
static Value castToF32(OpBuilder &builder, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getElementType().isF32())
    return value;
  constexpr int64_t kOnnxFloat = 1; // TensorProto.FLOAT
  return GenericOp::create(builder, value.getLoc(),
                           TypeRange{type.clone(builder.getF32Type())}, value,
                           builder.getStringAttr("Cast"), /*name=*/StringAttr(),
                           /*domain=*/StringAttr(),
                           builder.getDictionaryAttr(builder.getNamedAttr(
                               "to", builder.getI64IntegerAttr(kOnnxFloat))))
      .getResult(0);
}

/// Makes `results` what `func` returns, its type following.
static void returnValues(func::FuncOp func, func::ReturnOp ret,
                         ValueRange results) {
  ret->setOperands(results);
  func.setType(FunctionType::get(func.getContext(), func.getArgumentTypes(),
                                 ret.getOperandTypes()));
}

void mlir::quant_qdq::makeObservingFunction(func::FuncOp func,
                                           ArrayRef<Value> observed,
                                           bool rangesOnly) {
  removeQuantization(func);
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  SmallVector<Value> results(ret.getOperands());
  if (rangesOnly) {
    OpBuilder builder(ret);
    for (Value value : observed) {
      // Right where the tensor is produced, so that it can be freed after
      // its last use in the network rather than at the function's end.
      builder.setInsertionPointAfterValue(value);
      auto range = TensorRangeOp::create(builder, value.getLoc(),
                                         castToF32(builder, value));
      llvm::append_range(results, range.getResults());
    }
  } else {
    llvm::append_range(results, observed);
  }
  returnValues(func, ret, results);
}

void mlir::quant_qdq::makeHistogramFunction(
    func::FuncOp func, ArrayRef<Value> observed,
    ArrayRef<std::optional<double>> binScales, unsigned bins) {
  removeQuantization(func);
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  SmallVector<Value> results(ret.getOperands());
  OpBuilder builder(ret);
  // The batch: the input's first dimension (dynamic ones compare equal).
  auto inputType = cast<RankedTensorType>(func.getArgumentTypes()[0]);
  std::optional<int64_t> batch;
  if (inputType.getRank() >= 1)
    batch = inputType.getDimSize(0);
  for (auto [value, scale] : llvm::zip(observed, binScales)) {
    if (!scale)
      continue;
    // Right where the tensor is produced, as the ranges are.
    builder.setInsertionPointAfterValue(value);
    Value input = castToF32(builder, value);
    // One histogram per sample where the first dimension is the batch's,
    // so that the batch can run in groups; one for the whole tensor
    // otherwise ([sequence, batch, ...]: a row per position would only
    // cost memory). The host adds the rows either way.
    auto type = cast<RankedTensorType>(input.getType());
    if (type.getRank() >= 2 && type.getDimSize(0) != batch)
      input = FlattenOp::create(builder, value.getLoc(), input,
                                /*name=*/StringAttr(), /*axis=*/uint64_t(0));
    results.push_back(HistogramOp::create(builder, value.getLoc(), input,
                                          uint64_t(bins), APFloat(*scale)));
  }
  returnValues(func, ret, results);
}

/// The entry function calibration runs, once the options and its signature
/// are checked.
static FailureOr<func::FuncOp>
getCalibratedEntry(ModuleOp module, const CalibrationOptions &options) {
  Location loc = module.getLoc();
  if (options.batchSize < 0)
    return emitError(loc) << "batch-size must be positive, or 0 to let "
                             "calibration choose; got "
                          << options.batchSize;
  func::FuncOp entry = findEntryFunction(module, options.entry);
  if (!entry)
    return emitError(loc) << "calibration needs one public function with a "
                             "body, or --entry";
  if (entry.getNumArguments() == 0)
    return entry.emitError("calibration needs a model with inputs");
  return entry;
}

/// Whether a short last batch of `samples` runs padded to `size` samples
/// rather than compiling a shape of its own. Ranges computed in the graph
/// ignore a copied sample (histograms would count it), so it may: where the
/// copies cost less than compiling did.
static bool preferPadding(int64_t samples, int64_t size, double secondsPerRun,
                          double compileSeconds) {
  return secondsPerRun * (size - samples) / size < compileSeconds;
}

/// One batch's range of a tensor from its per-row minima and maxima (one
/// row for a scalar): a NaN row (a NaN among its values) makes it NaN.
static std::pair<double, double> getBatchRange(ArrayRef<float> minima,
                                               ArrayRef<float> maxima) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (float v : minima)
    lo = std::isnan(v) ? NAN : std::min<double>(lo, v);
  for (float v : maxima)
    hi = std::isnan(v) ? NAN : std::max<double>(hi, v);
  return {lo, hi};
}

/// The elements of a result array of the observing model.
template <typename T> static ArrayRef<T> getElements(const NpyArray &array) {
  return ArrayRef<T>(reinterpret_cast<const T *>(array.bytes),
                     array.getNumElements());
}

namespace {
/// An observed tensor as calibration chooses its range: what its quantizers
/// and its layer ask for, and the statistics the passes gather.
struct CalibratedTensor {
  std::string name;
  CalibrationMethod method;
  /// Whether its quantizer names `method` (rather than the pass).
  bool ownMethod = false;
  /// The interval its layer bounds it to (softmax), if any.
  std::optional<std::pair<double, double>> bound;
  /// Its quantizers' positive levels (ObservedTensor::levels).
  unsigned levels;
  /// Whether the histograms' pass observes it.
  bool wantsHistogram;
  TensorStatistics stats;
};

/// The passes over the calibration data: the ranges' pass, then the
/// histograms' pass where a method (or comparing methods) needs one, each
/// running a model compiled once per batch shape met. Ranges and
/// histograms come from the compiled code, where the observed tensors are
/// produced (in f32: other float types are cast there): the tensors never
/// leave it, and calibration holds no more than one run's buffers.
class CalibrationRun {
public:
  CalibrationRun(ModuleOp module, func::FuncOp entry,
                 const CalibrationOptions &options, const CalibrationData &data,
                 MutableArrayRef<CalibratedTensor> tensors);

  /// Runs both passes, filling each tensor's statistics.
  LogicalResult observe();

private:
  /// The observed tensors of the entry in a copy of the module, in the
  /// order of `tensors`.
  std::pair<func::FuncOp, SmallVector<Value>> getObservedIn(ModuleOp copy);
  /// Runs `inputs` through the model of `executors` for their shapes
  /// (compiled on first use), timing the compile and the run.
  FailureOr<SmallVector<NpyArray>> runBatch(ExecutorsByShape &executors,
                                            ArrayRef<NpyArray> inputs,
                                            StringRef what);
  /// Each tensor's minimum, maximum and count; short batches may run padded
  /// where `mayPad`.
  LogicalResult observeRanges(StringRef what, bool mayPad);
  /// Each wanting tensor's histogram, with bins set by the ranges.
  LogicalResult observeHistograms(StringRef what);

  ModuleOp module;
  func::FuncOp entry;
  const CalibrationOptions &options;
  const CalibrationData &data;
  MutableArrayRef<CalibratedTensor> tensors;
  Location loc;
  int64_t batchSize;
  bool histograms;
  CalibrationProgress progress;
  /// The last compile and the last run of a batch, in seconds.
  double compileSeconds = 0, secondsPerRun = 0;
};
} // namespace

CalibrationRun::CalibrationRun(ModuleOp module, func::FuncOp entry,
                               const CalibrationOptions &options,
                               const CalibrationData &data,
                               MutableArrayRef<CalibratedTensor> tensors)
    : module(module), entry(entry), options(options), data(data),
      tensors(tensors), loc(module.getLoc()), batchSize(options.batchSize),
      histograms(options.compareMethods ||
                 llvm::any_of(tensors,
                              [](const CalibratedTensor &tensor) {
                                return TensorStatistics::needsHistogram(
                                    tensor.method);
                              })),
      progress(llvm::errs(), options.progress, llvm::errs().is_displayed(),
               data.totalSamples, histograms ? 2 : 1) {
  if (batchSize == 0 &&
      (options.compareMethods ||
       llvm::any_of(tensors, [](const CalibratedTensor &tensor) {
         return TensorStatistics::dependsOnBatches(tensor.method);
       })))
    batchSize = kPerBatchMethodsBatchSize;
}

LogicalResult CalibrationRun::observe() {
  if (!histograms)
    return observeRanges("calibration", /*mayPad=*/true);
  if (failed(observeRanges("calibration (ranges)", /*mayPad=*/false)))
    return failure();
  return observeHistograms("calibration (histograms)");
}

std::pair<func::FuncOp, SmallVector<Value>>
CalibrationRun::getObservedIn(ModuleOp copy) {
  auto func = copy.lookupSymbol<func::FuncOp>(entry.getName());
  SmallVector<Value> values;
  for (const ObservedTensor &tensor : collectObserved(func, /*warn=*/false))
    values.push_back(tensor.value);
  return {func, values};
}

FailureOr<SmallVector<NpyArray>>
CalibrationRun::runBatch(ExecutorsByShape &executors, ArrayRef<NpyArray> inputs,
                         StringRef what) {
  double start = CalibrationProgress::steadySeconds();
  bool compiled = false;
  JITExecutor *executor = executors.get(module, entry.getName(), inputs, [&] {
    progress.compiling(what, inputs.front().shape);
    compiled = true;
  });
  if (!executor)
    return failure();
  double ran = CalibrationProgress::steadySeconds();
  if (compiled)
    compileSeconds = ran - start;
  SmallVector<NpyArray> outputs;
  if (llvm::Error error = executor->run(inputs, outputs))
    return emitError(loc) << llvm::toString(std::move(error));
  secondsPerRun = CalibrationProgress::steadySeconds() - ran;
  return outputs;
}

LogicalResult CalibrationRun::observeRanges(StringRef what, bool mayPad) {
  ExecutorsByShape executors([&](ModuleOp copy) {
    auto [func, values] = getObservedIn(copy);
    makeObservingFunction(func, values, /*rangesOnly=*/true);
  });
  unsigned numResults = entry.getNumResults();
  int64_t done = 0;
  auto observeBatch = [&](MutableArrayRef<NpyArray> inputs,
                          int64_t samples) -> LogicalResult {
    FailureOr<SmallVector<NpyArray>> outputs =
        runBatch(executors, inputs, what);
    if (failed(outputs))
      return failure();
    const NpyArray &first = inputs.front();
    int64_t runSamples = first.shape.empty() ? 1 : first.shape[0];
    for (auto [i, tensor] : llvm::enumerate(tensors)) {
      // Per-row minima and maxima, and the size.
      ArrayRef<NpyArray> range =
          ArrayRef(*outputs).slice(numResults + 3 * i, 3);
      auto [lo, hi] = getBatchRange(getElements<float>(range[0]),
                                    getElements<float>(range[1]));
      // A padded batch's copies leave the range as it is; the count is the
      // samples'.
      int64_t size = getElements<int64_t>(range[2]).front();
      tensor.stats.observeRange(lo, hi, size / runSamples * samples);
    }
    done += samples;
    progress.update(what, /*pass=*/0, done);
    return success();
  };
  auto padShortBatch = [&](int64_t samples, int64_t size) {
    return preferPadding(samples, size, secondsPerRun, compileSeconds);
  };
  return data.forEachBatch(
      batchSize, loc, observeBatch,
      mayPad ? function_ref<bool(int64_t, int64_t)>(padShortBatch) : nullptr);
}

LogicalResult CalibrationRun::observeHistograms(StringRef what) {
  // Compiled once the ranges have set each histogram's bins: the
  // histograms it returns are all it returns.
  ExecutorsByShape executors([&](ModuleOp copy) {
    auto [func, values] = getObservedIn(copy);
    SmallVector<std::optional<double>> scales;
    for (const CalibratedTensor &tensor : tensors) {
      scales.emplace_back();
      if (tensor.wantsHistogram)
        scales.back() = tensor.stats.getHistogramScale(options.bins);
    }
    makeHistogramFunction(func, values, scales, options.bins);
  });
  unsigned numResults = entry.getNumResults();
  int64_t done = 0;
  auto observeBatch = [&](MutableArrayRef<NpyArray> inputs,
                          int64_t samples) -> LogicalResult {
    FailureOr<SmallVector<NpyArray>> outputs =
        runBatch(executors, inputs, what);
    if (failed(outputs))
      return failure();
    // One [rows, bins] result per tensor that wants a histogram.
    unsigned next = numResults;
    for (CalibratedTensor &tensor : tensors)
      if (tensor.wantsHistogram)
        tensor.stats.addHistogramCounts(
            getElements<int64_t>((*outputs)[next++]), options.bins);
    done += samples;
    progress.update(what, /*pass=*/1, done);
    return success();
  };
  return data.forEachBatch(batchSize, loc, observeBatch);
}

namespace {
/// A tensor's range, and the choice of its method's amax it came from.
struct ChosenRange {
  TensorRange range;
  TensorStatistics::AmaxChoice choice;
};
} // namespace

/// The range of `tensor` under its method: the values seen within its
/// layer's bound where it has one. Warns where entropy's threshold would
/// clip too much and a percentile replaced it.
static ChosenRange chooseRange(const CalibratedTensor &tensor,
                               double percentile, Location loc) {
  const TensorStatistics &stat = tensor.stats;
  ChosenRange chosen;
  TensorRange &range = chosen.range;
  std::tie(range.min, range.max) = stat.getRange(tensor.method);
  chosen.choice = stat.chooseAmax(tensor.method, tensor.levels, percentile);
  range.amax = chosen.choice.amax;
  if (auto bound = tensor.bound) {
    // A layer that bounds its output (softmax): the values seen, never
    // beyond the bound, whatever the method. Its rare large values are
    // its signal (attention's peaks), which a clipping method would cut;
    // its typical ones (attention over 197 tokens averages 0.005) need
    // more resolution than the whole bound, amax 1, leaves.
    auto [lo, hi] = stat.getRange(CalibrationMethod::Max);
    range.min = std::clamp(lo, bound->first, bound->second);
    range.max = std::clamp(hi, bound->first, bound->second);
    range.amax = std::max(std::abs(range.min), std::abs(range.max));
  } else if (chosen.choice.unboundedAmax) {
    emitWarning(loc) << llvm::formatv(
        "entropy calibration of '{0}' would clip {1:F1}% of its values "
        "(amax {2}); using the {3:F0}th percentile, amax {4}",
        tensor.name, 100.0 * chosen.choice.unboundedClipping,
        *chosen.choice.unboundedAmax,
        100.0 * (1.0 - TensorStatistics::kMaxEntropyClipping),
        chosen.choice.amax);
  }
  return chosen;
}

/// Every method's amax and clipping for `tensor`, beside the `chosen` one.
/// Warns, with `warn`, where the chosen method clips far more than the
/// others.
static MethodComparison compareMethods(const CalibratedTensor &tensor,
                                       const ChosenRange &chosen,
                                       double percentile, bool warn,
                                       Location loc) {
  const TensorStatistics &stat = tensor.stats;
  CalibrationMethod method = tensor.method;
  MethodComparison row;
  row.tensor = tensor.name;
  row.chosen = method;
  row.ownMethod = tensor.ownMethod;
  if (tensor.bound)
    row.layerBoundAmax = chosen.range.amax;
  for (unsigned m = 0; m < MethodComparison::kNumMethods; ++m) {
    auto other = static_cast<CalibrationMethod>(m);
    TensorStatistics::AmaxChoice c =
        other == method ? chosen.choice
                        : stat.chooseAmax(other, tensor.levels, percentile);
    row.amax[m] = c.amax;
    row.clipped[m] = stat.getClippedFraction(c.amax);
    if (other == CalibrationMethod::Entropy)
      row.unboundedEntropyAmax = c.unboundedAmax;
  }
  if (warn && !tensor.bound && row.clipsFarMore(method))
    emitWarning(loc) << llvm::formatv(
        "{0} calibration of '{1}' clips {2:F1}% of its values; the other "
        "methods clip {3:F2}% (median)",
        stringifyCalibrationMethod(method), tensor.name,
        100.0 * row.clipped[unsigned(method)],
        100.0 * row.getMedianOfOthers(method));
  return row;
}

LogicalResult mlir::quant_qdq::collectCalibrationTable(
    ModuleOp module, ArrayRef<std::string> dataPaths,
    const CalibrationOptions &options, CalibrationTable &table,
    SmallVectorImpl<MethodComparison> *comparisons) {
  FailureOr<func::FuncOp> entry = getCalibratedEntry(module, options);
  if (failed(entry))
    return failure();
  SmallVector<ObservedTensor> observed = collectObserved(*entry, /*warn=*/true);
  table.method = stringifyCalibrationMethod(options.method).str();
  table.ranges.clear();
  if (observed.empty())
    return success();
  // The names export will give these tensors, assigned once in the IR.
  nameTensors(*entry);
  std::vector<CalibratedTensor> tensors;
  for (const ObservedTensor &observedTensor : observed) {
    CalibratedTensor &tensor = tensors.emplace_back();
    tensor.name = getTensorName(observedTensor.value).str();
    tensor.method = observedTensor.method.value_or(options.method);
    tensor.ownMethod = observedTensor.method.has_value();
    tensor.bound = getKnownBounds(observedTensor.value);
    tensor.levels = observedTensor.levels;
    tensor.wantsHistogram = options.compareMethods ||
                            TensorStatistics::needsHistogram(tensor.method);
    tensor.stats.setMovingAverageDecay(options.movingAverageDecay);
  }

  Location loc = module.getLoc();
  FailureOr<CalibrationData> data =
      CalibrationData::load(dataPaths, *entry, loc);
  if (failed(data))
    return failure();
  CalibrationRun run(module, *entry, options, *data, tensors);
  if (failed(run.observe()))
    return failure();

  for (auto [observedTensor, tensor] : llvm::zip(observed, tensors)) {
    ChosenRange chosen = chooseRange(tensor, options.percentile, loc);
    table.ranges[tensor.name] = chosen.range;
    // The output of a pass-through layer holds its input's values: it takes
    // the input's range (observed earlier, in program order), so both pairs
    // agree and a runtime runs the layer on integers (ONNX Runtime drops
    // Q/DQ around it only then).
    if (Value source = getSameValuedSource(observedTensor.value))
      if (auto it = table.ranges.find(getTensorName(source).str());
          it != table.ranges.end())
        table.ranges[tensor.name] = it->second;
    if (options.compareMethods && comparisons)
      comparisons->push_back(compareMethods(tensor, chosen, options.percentile,
                                            options.warnFarMoreClipping, loc));
  }
  return success();
}
