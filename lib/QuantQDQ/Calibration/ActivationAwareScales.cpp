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
#include "DenseWeights.h"
#include "QuantQDQ/Calibration/Calibration.h"
#include "QuantQDQ/Calibration/Passes.h"
#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/Utils/BareOption.h"
#include "QuantQDQ/Utils/Scales.h"
#include "QuantQDQ/Utils/TensorNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Threading.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_ACTIVATIONAWARESCALES
#include "QuantQDQ/Calibration/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
/// A weight-only dense layer, with what the search learns about its input.
struct Target {
  QuantizedDenseWeight layer;
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

/// Dense layers AWQ can scale, in program order. Layers whose input is
/// quantized keep their Q/DQ next to the product (a multiply between them
/// would split TensorRT's fusion).
static SmallVector<Target> collectTargets(func::FuncOp func) {
  SmallVector<Target> targets;
  func.walk([&](DenseOp dense) {
    std::optional<QuantizedDenseWeight> layer =
        matchQuantizedDenseWeight(dense);
    if (!layer || layer->hasQuantizedInput())
      return;
    Target t{std::move(*layer), {}, 0, {}};
    t.absSum.assign(t.layer.k, 0.0);
    targets.push_back(std::move(t));
  });
  return targets;
}

/// Mean squared difference between rows . w and `reference`.
static double outputError(const Target &t, ArrayRef<float> w,
                          ArrayRef<float> reference, MLIRContext *context) {
  std::vector<float> y = multiplyRows(t.layer, t.rows, w, context);
  double total = 0;
  for (auto [got, want] : llvm::zip(y, reference))
    total += double(got - want) * double(got - want);
  return total / double(y.size());
}

/// Searches alpha for `t` over the weight `w` (stored layout).
static Choice search(Target &target, ArrayRef<float> w, double alphaStep,
                     MLIRContext *context) {
  const QuantizedDenseWeight &t = target.layer;
  // The float output the quantized layer should reproduce.
  std::vector<float> reference = multiplyRows(t, target.rows, w, context);
  // Mean magnitudes, floored so that a silent channel gets a finite scale.
  std::vector<double> magnitude(t.k);
  double largest = 0;
  for (int64_t i = 0; i < t.k; ++i) {
    magnitude[i] =
        target.absSum[i] / double(std::max<int64_t>(1, target.rowsSeen));
    largest = std::max(largest, magnitude[i]);
  }
  for (double &m : magnitude)
    m = std::max(m, largest * 1e-6 + 1e-12);

  Choice best;
  std::vector<float> scaled(w.size());
  std::vector<float> scales(t.k);
  for (auto [step, alpha] : llvm::enumerate(getAlphaGrid(alphaStep))) {
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
      scaled[e] = w[e] * scales[t.getInputChannel(e)];
    fakeQuantizeWeight(t, scaled);
    for (size_t e = 0; e < w.size(); ++e)
      scaled[e] /= scales[t.getInputChannel(e)];
    double error = outputError(target, scaled, reference, context);
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
static void apply(QuantizedDenseWeight &t, ArrayRef<float> w,
                  const Choice &choice) {
  std::vector<float> scaled(w.size());
  for (size_t e = 0; e < w.size(); ++e)
    scaled[e] = w[e] * choice.scales[t.getInputChannel(e)];
  replaceWeight(t, scaled, "_awq");
  OpBuilder b(t.dense);
  t.dense.getInputMutable().assign(
      divideInput(b, t.dense, t.dense.getInput(), choice.scales,
                  (t.dense.getLayerName() + "_awq_scale").str()));
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
    return initializeWithMainOption<ActivationAwareScalesPass,
                                    ActivationAwareScalesBase>(
        *this, options, "data", errorHandler);
  }

  void runOnOperation() override;

private:
  LogicalResult observe(ModuleOp module, func::FuncOp function,
                        MutableArrayRef<Target> targets);
};
} // namespace

LogicalResult
ActivationAwareScalesPass::observe(ModuleOp module, func::FuncOp function,
                                   MutableArrayRef<Target> targets) {
  // The targets' inputs, found again in each clone by their position in
  // program order. Copies of samples would weigh them twice in the mean
  // |x|: short batches run as they are.
  SmallVector<std::string> paths(data.begin(), data.end());
  return observeTensors(
      module, function, paths, batchSize,
      [](func::FuncOp func) {
        SmallVector<Value> inputs;
        for (Target &t : collectTargets(func))
          inputs.push_back(t.layer.dense.getInput());
        return inputs;
      },
      [&](size_t i, const NpyArray &x) {
        Target &t = targets[i];
        int64_t k = t.layer.k;
        ArrayRef<float> values(reinterpret_cast<const float *>(x.bytes),
                               x.getNumElements());
        for (size_t e = 0; e < values.size(); ++e)
          t.absSum[e % k] += std::fabs(values[e]);
        t.rowsSeen += int64_t(values.size()) / k;
        size_t room = size_t(rows) * k - t.rows.size();
        t.rows.insert(t.rows.end(), values.begin(),
                      values.begin() + std::min(room, values.size()));
      });
}

void ActivationAwareScalesPass::runOnOperation() {
  ModuleOp module = getOperation();
  Location loc = module.getLoc();
  if (data.empty()) {
    emitError(loc) << "qdq-awq needs calibration data: data=<.npy files>";
    return signalPassFailure();
  }
  if (failed(checkAlphaSearch(loc, "qdq-awq", alphaStep, rows)))
    return signalPassFailure();
  func::FuncOp function =
      findDataPassEntry(module, "qdq-awq", entry, batchSize);
  if (!function)
    return signalPassFailure();
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
  for (Target &target : targets) {
    QuantizedDenseWeight &t = target.layer;
    std::vector<float> w;
    if (failed(readFloatConstant(cast<ElementsAttr>(t.weight.getValue()),
                                 [&](ArrayRef<float> v) {
                                   w.assign(v.begin(), v.end());
                                 }))) {
      t.dense.emitError("qdq-awq: the weight is not a float constant");
      return signalPassFailure();
    }
    Choice choice = search(target, w, alphaStep, &getContext());
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
  if (!reportPath.empty() && failed(writeReport(reportPath, text, loc, "AWQ")))
    signalPassFailure();
}
