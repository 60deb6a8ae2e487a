//===- ActivationAwareScales.cpp - AWQ-lite for weight-only layers --------===//
//
// The qdq-awq pass. Weight-only quantization spends the same grid on every
// input channel of a weight, but the channels that carry large inputs
// matter most to the output. Scaling those weight rows up by s_k before
// quantizing, and the inputs down by 1 / s_k, keeps x . W in float and
// moves quantization error onto the channels that matter least. The
// search is Model Optimizer's awq_lite: s = a^alpha for the inputs' mean
// magnitudes a, alpha on a grid, chosen by the layer's output error on
// calibration rows.
//
//===----------------------------------------------------------------------===//

#include "CalibrationData.h"
#include "QuantQDQ/Calibration/Calibration.h"
#include "QuantQDQ/Calibration/Passes.h"
#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/Utils/Scales.h"
#include "QuantQDQ/Utils/TensorNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Threading.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ToolOutputFile.h"

#include <cmath>

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_ACTIVATIONAWARESCALES
#include "QuantQDQ/Calibration/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
/// A dense layer whose weight is quantized and input is not, with what the
/// search learns about its input.
struct Target {
  DenseOp dense;
  arith::ConstantOp weight;
  /// The ops that quantize the weight (quantize and its dequantizes, or a
  /// fake_quant), which take the new weight's scales.
  SmallVector<Operation *> quantOps;
  QuantizerAttr quantizer;
  /// The weight is stored [k x n], or [n x k] when transposed.
  int64_t k = 0, n = 0;
  bool transposed = false;
  /// Sum of |x_k| over the rows seen, and their count.
  std::vector<double> absSum;
  int64_t rowsSeen = 0;
  /// The first rows of the input, row-major [rows x k].
  std::vector<float> rows;
};

/// The outcome of one layer's search.
struct Choice {
  double alpha = 0, error = 0, roundingError = 0;
  std::vector<float> scales;
};
} // namespace

/// The quantizer ops of a symmetric integer weight quantizer on `weight`,
/// or none. The quantized weight must be this layer's alone: scaling one
/// that another layer also reads (shared layers, ALBERT) would change that
/// layer too. (A float constant others read stays: the scaled weight is a
/// new constant.)
static SmallVector<Operation *> getWeightQuantOps(Value weight,
                                                  QuantizerAttr &quantizer) {
  SmallVector<Operation *> ops;
  if (!weight.hasOneUse())
    return ops;
  if (auto fake = weight.getDefiningOp<FakeQuantOp>()) {
    quantizer = fake.getQuantizer();
    ops.push_back(fake);
  } else if (auto dq = weight.getDefiningOp<DequantizeOp>()) {
    auto q = dq.getInput().getDefiningOp<QuantizeOp>();
    if (!q || !q->hasOneUse())
      return {};
    quantizer = q.getQuantizer();
    ops.push_back(q);
    llvm::append_range(ops, q->getUsers());
  }
  if (ops.empty() || quantizer.isFloatStorage() || !quantizer.getSymmetric() ||
      !quantizer.getIsSigned())
    return {};
  return ops;
}

/// Dense layers AWQ can scale, in program order.
static SmallVector<Target> collectTargets(func::FuncOp func) {
  SmallVector<Target> targets;
  func.walk([&](DenseOp dense) {
    Target t;
    t.dense = dense;
    t.quantOps = getWeightQuantOps(dense.getWeight(), t.quantizer);
    if (t.quantOps.empty())
      return;
    t.weight =
        t.quantOps.front()->getOperand(0).getDefiningOp<arith::ConstantOp>();
    auto inputType = dense.getInput().getType();
    Operation *producer = dense.getInput().getDefiningOp();
    // Layers whose input is quantized keep their Q/DQ next to the product
    // (a multiply between them would split TensorRT's fusion).
    if (!t.weight || isa_and_nonnull<DequantizeOp, FakeQuantOp>(producer) ||
        !inputType.getElementType().isF32() ||
        ShapedType::isDynamic(inputType.getShape().back()))
      return;
    auto weightType = cast<RankedTensorType>(t.weight.getType());
    t.k = inputType.getShape().back();
    t.transposed = dense.getTransposeWeight();
    t.n = weightType.getDimSize(t.transposed ? 0 : 1);
    t.absSum.assign(t.k, 0.0);
    targets.push_back(std::move(t));
  });
  return targets;
}

/// Fake-quantizes `weight` (the stored layout) in place with `q` and the
/// scales the export will give it (computeWeightScales).
static void fakeQuantize(MutableArrayRef<float> weight, ArrayRef<int64_t> shape,
                         QuantizerAttr q) {
  SmallVector<float> scales = computeWeightScales(weight, shape, q);
  float qmin = float(q.getQMin()), qmax = float(q.getQMax());
  for (const ScaleRun &run : getScaleRuns(q, shape))
    for (int64_t i = 0; i < run.length; ++i) {
      float scale = scales[run.scale + i * run.scaleStride];
      float &w = weight[run.begin + i];
      w = std::clamp(std::nearbyint(w / scale), qmin, qmax) * scale;
    }
}

/// The input channel (row of W) of element `e` of the stored weight:
/// [k x n], or [n x k] when the layer transposes it.
static int64_t getInputChannel(const Target &t, size_t e) {
  return t.transposed ? int64_t(e) % t.k : int64_t(e) / t.n;
}

/// rows . w ([rows x n]) for `w` in the stored layout, with contiguous
/// inner loops either way.
static std::vector<float> multiplyRows(const Target &t, ArrayRef<float> w,
                                       MLIRContext *context) {
  int64_t rows = int64_t(t.rows.size()) / t.k;
  std::vector<float> y(rows * t.n, 0.0f);
  parallelFor(context, 0, rows, [&](size_t r) {
    const float *x = &t.rows[r * t.k];
    float *out = &y[r * t.n];
    if (t.transposed) {
      for (int64_t j = 0; j < t.n; ++j) {
        const float *column = &w[j * t.k];
        float sum = 0;
        for (int64_t i = 0; i < t.k; ++i)
          sum += x[i] * column[i];
        out[j] = sum;
      }
      return;
    }
    for (int64_t i = 0; i < t.k; ++i) {
      const float *row = &w[i * t.n];
      for (int64_t j = 0; j < t.n; ++j)
        out[j] += x[i] * row[j];
    }
  });
  return y;
}

/// Mean squared difference between rows . w and `reference`.
static double outputError(const Target &t, ArrayRef<float> w,
                          ArrayRef<float> reference, MLIRContext *context) {
  std::vector<float> y = multiplyRows(t, w, context);
  double total = 0;
  for (auto [got, want] : llvm::zip(y, reference))
    total += double(got - want) * double(got - want);
  return total / double(y.size());
}

/// Searches alpha for `t` over the weight `w` (stored layout).
static Choice search(Target &t, ArrayRef<float> w, double alphaStep,
                     MLIRContext *context) {
  auto shape = cast<RankedTensorType>(t.weight.getType()).getShape();
  // The float output the quantized layer should reproduce.
  std::vector<float> reference = multiplyRows(t, w, context);
  // Mean magnitudes, floored so that a silent channel gets a finite scale.
  std::vector<double> magnitude(t.k);
  double largest = 0;
  for (int64_t i = 0; i < t.k; ++i) {
    magnitude[i] = t.absSum[i] / double(std::max<int64_t>(1, t.rowsSeen));
    largest = std::max(largest, magnitude[i]);
  }
  for (double &m : magnitude)
    m = std::max(m, largest * 1e-6 + 1e-12);

  Choice best;
  std::vector<float> scaled(w.size());
  std::vector<float> scales(t.k);
  int steps = int(std::lround(1.0 / alphaStep));
  for (int step = 0; step <= steps; ++step) {
    double alpha = std::min(1.0, step * alphaStep);
    double lo = INFINITY, hi = 0;
    for (int64_t i = 0; i < t.k; ++i) {
      scales[i] = float(std::pow(magnitude[i], alpha));
      lo = std::min(lo, double(scales[i]));
      hi = std::max(hi, double(scales[i]));
    }
    float norm = float(std::sqrt(lo * hi));
    for (float &s : scales)
      s /= norm;
    // Rows of input channel i scaled by s_i, quantized, scaled back.
    for (size_t e = 0; e < w.size(); ++e)
      scaled[e] = w[e] * scales[getInputChannel(t, e)];
    fakeQuantize(scaled, shape, t.quantizer);
    for (size_t e = 0; e < w.size(); ++e)
      scaled[e] /= scales[getInputChannel(t, e)];
    double error = outputError(t, scaled, reference, context);
    if (step == 0)
      best.roundingError = error;
    if (step == 0 || error < best.error) {
      best.alpha = alpha;
      best.error = error;
      best.scales = scales;
    }
  }
  return best;
}

/// Gives `t` the weight diag(s) W and a multiply by 1 / s on its input.
static void apply(Target &t, ArrayRef<float> w, const Choice &choice) {
  auto type = cast<RankedTensorType>(t.weight.getType());
  MLIRContext *context = t.dense.getContext();
  std::string name = getLocationName(t.weight.getLoc()).str();
  if (name.empty())
    name = (t.dense.getLayerName() + "_weight").str();
  name += "_awq";
  AsmResourceBlob blob =
      HeapAsmResourceBlob::allocate(w.size() * sizeof(float), alignof(float));
  MutableArrayRef<char> bytes = blob.getMutableData();
  MutableArrayRef<float> scaled(reinterpret_cast<float *>(bytes.data()),
                                w.size());
  for (size_t e = 0; e < w.size(); ++e)
    scaled[e] = w[e] * choice.scales[getInputChannel(t, e)];
  OpBuilder b(t.weight);
  auto weight = arith::ConstantOp::create(
      b, NameLoc::get(StringAttr::get(context, name), t.weight.getLoc()),
      DenseResourceElementsAttr::get(type, name, std::move(blob)));
  Operation *first = t.quantOps.front();
  first->setOperand(0, weight);
  // Scales follow the new weight; an uncalibrated pair stays uncalibrated.
  FailureOr<SmallVector<float>> scales =
      computeWeightScales(cast<ElementsAttr>(weight.getValue()), t.quantizer);
  for (Operation *op : t.quantOps)
    if (op->hasAttr("scale") && succeeded(scales))
      op->setAttr("scale", b.getDenseF32ArrayAttr(*scales));
  if (t.weight->use_empty())
    t.weight->erase();

  // The input divided by s, along its last dimension.
  SmallVector<float> inverse;
  for (float s : choice.scales)
    inverse.push_back(1.0f / s);
  b.setInsertionPoint(t.dense);
  Location loc = t.dense.getLoc();
  auto divisor = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({t.k}, b.getF32Type()),
                             ArrayRef<float>(inverse)));
  Value input = t.dense.getInput();
  auto multiply = MultiplyOp::create(
      b, loc, input.getType(), ValueRange{input, divisor},
      b.getStringAttr((t.dense.getLayerName() + "_awq_scale").str()));
  t.dense.getInputMutable().assign(multiply.getResult());
}

namespace {
struct ActivationAwareScalesPass
    : public quant_qdq::impl::ActivationAwareScalesBase<
          ActivationAwareScalesPass> {
  using ActivationAwareScalesBase::ActivationAwareScalesBase;

  /// `--qdq-awq=data.npy` names the data.
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    options = options.trim();
    if (!options.empty() && !options.contains('='))
      return ActivationAwareScalesBase::initializeOptions(
          ("data=" + options).str(), errorHandler);
    return ActivationAwareScalesBase::initializeOptions(options, errorHandler);
  }

  void runOnOperation() override;

private:
  LogicalResult observe(ModuleOp module, func::FuncOp function,
                        MutableArrayRef<Target> targets);
};
} // namespace

LogicalResult ActivationAwareScalesPass::observe(
    ModuleOp module, func::FuncOp function, MutableArrayRef<Target> targets) {
  Location loc = module.getLoc();
  SmallVector<std::string> paths(data.begin(), data.end());
  FailureOr<CalibrationData> samples =
      CalibrationData::load(paths, function, loc);
  if (failed(samples))
    return failure();
  // The targets' inputs, found again in each clone by their position in
  // program order.
  ExecutorsByShape executors([&](ModuleOp copy) {
    auto func = copy.lookupSymbol<func::FuncOp>(function.getName());
    SmallVector<Value> inputs;
    for (Target &t : collectTargets(func))
      inputs.push_back(t.dense.getInput());
    makeObservingFunction(func, inputs, /*rangesOnly=*/false);
  });
  unsigned numResults = function.getNumResults();
  // Copies of samples would weigh them twice in the mean |x|: short
  // batches run as they are.
  return samples->forEachBatch(
      batchSize, loc,
      [&](MutableArrayRef<NpyArray> inputs, int64_t) -> LogicalResult {
        JITExecutor *executor =
            executors.get(module, function.getName(), inputs);
        if (!executor)
          return failure();
        SmallVector<const NpyArray *> inputRefs;
        for (const NpyArray &input : inputs)
          inputRefs.push_back(&input);
        SmallVector<NpyArray> outputs;
        if (llvm::Error error = executor->run(inputRefs, outputs))
          return emitError(loc) << llvm::toString(std::move(error));
        for (auto [i, t] : llvm::enumerate(targets)) {
          const NpyArray &x = outputs[numResults + i];
          ArrayRef<float> values(reinterpret_cast<const float *>(x.bytes),
                                 x.getNumElements());
          for (size_t e = 0; e < values.size(); ++e)
            t.absSum[e % t.k] += std::fabs(values[e]);
          t.rowsSeen += int64_t(values.size()) / t.k;
          size_t room = size_t(rows) * t.k - t.rows.size();
          t.rows.insert(t.rows.end(), values.begin(),
                        values.begin() + std::min(room, values.size()));
        }
        return success();
      });
}

void ActivationAwareScalesPass::runOnOperation() {
  ModuleOp module = getOperation();
  Location loc = module.getLoc();
  if (data.empty()) {
    emitError(loc) << "qdq-awq needs calibration data: data=<.npy files>";
    return signalPassFailure();
  }
  if (!(alphaStep > 0 && alphaStep <= 1) || rows < 1) {
    emitError(loc) << "qdq-awq: alpha-step must be in (0, 1] and rows "
                      "positive";
    return signalPassFailure();
  }
  if (batchSize < 0) {
    emitError(loc) << "qdq-awq: batch-size must be positive, or 0 to let "
                      "it choose; got "
                   << static_cast<int64_t>(batchSize);
    return signalPassFailure();
  }
  func::FuncOp function = findEntryFunction(module, entry);
  if (!function || function.getNumArguments() == 0) {
    emitError(loc) << "qdq-awq runs models with inputs and one public "
                      "function (or entry=)";
    return signalPassFailure();
  }
  SmallVector<Target> targets = collectTargets(function);
  if (targets.empty()) {
    emitWarning(loc) << "qdq-awq found no dense layer with a quantized "
                        "weight and a float input (weight-only)";
    return;
  }
  nameTensors(function);
  if (failed(observe(module, function, targets)))
    return signalPassFailure();

  std::string text;
  llvm::raw_string_ostream report(text);
  report << "layer alpha rounding-mse awq-mse\n";
  for (Target &t : targets) {
    std::vector<float> w;
    if (failed(readFloatConstant(cast<ElementsAttr>(t.weight.getValue()),
                                 [&](ArrayRef<float> v) {
                                   w.assign(v.begin(), v.end());
                                 }))) {
      t.dense.emitError("qdq-awq: the weight is not a float constant");
      return signalPassFailure();
    }
    Choice choice = search(t, w, alphaStep, &getContext());
    bool better = choice.alpha > 0 && choice.error < choice.roundingError;
    report << llvm::formatv("{0} {1:F2} {2:E3} {3:E3}\n",
                            t.dense.getLayerName(), better ? choice.alpha : 0.0,
                            choice.roundingError,
                            better ? choice.error : choice.roundingError);
    if (!better)
      continue;
    apply(t, w, choice);
    ++numScaled;
  }
  if (reportPath.empty())
    return;
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> file =
      openOutputFile(reportPath, &error);
  if (!file) {
    emitError(loc) << "cannot write the AWQ report: " << error;
    return signalPassFailure();
  }
  file->os() << text;
  file->keep();
}
