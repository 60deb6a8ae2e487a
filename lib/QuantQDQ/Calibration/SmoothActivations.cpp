//===- SmoothActivations.cpp - SmoothQuant for W8A8 dense layers ----------===//
//
// The qdq-smooth pass. A transformer's activations carry a few channels far
// larger than the rest; a per-tensor activation scale spends its grid on
// them and rounds everything else to a few levels. Weights are easy to
// quantize per channel, so SmoothQuant (Xiao et al., 2023) divides each
// input channel by s_k and multiplies the matching weight row by it: the
// product is the same in float, the outliers are gone from the activation.
// 1 / s costs nothing where a normalization produces the tensor: it joins
// the normalization's scale.
//
//===----------------------------------------------------------------------===//

#include "CalibrationData.h"
#include "DenseWeights.h"
#include "QuantQDQ/Calibration/Calibration.h"
#include "QuantQDQ/Calibration/Passes.h"
#include "QuantQDQ/Execution/Npy.h"
#include "QuantQDQ/Utils/BareOption.h"
#include "QuantQDQ/Utils/Scales.h"
#include "QuantQDQ/Utils/TensorNames.h"

#include "mlir/IR/Matchers.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_SMOOTHACTIVATIONS
#include "QuantQDQ/Calibration/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
/// W8A8 dense layers that read one float tensor through its quantizers,
/// smoothed together, and what the data say about the tensor.
struct Group {
  Value input;
  int64_t k = 0;
  SmallVector<QuantizedDenseWeight> layers;
  /// The quantize or fake_quant ops of `input` that feed the layers (and
  /// nothing else).
  SmallVector<Operation *> inputQuantizers;
  QuantizerAttr activationQuantizer;
  /// Per input channel, the smallest and largest value seen.
  std::vector<float> lo, hi;
  /// The first rows of the input, row-major [rows x k].
  std::vector<float> rows;
};

/// The outcome of one group's choice; alpha < 0: no smoothing.
struct Choice {
  double alpha = -1, error = 0, unsmoothedError = 0;
  std::vector<float> scales;
};
} // namespace

/// Whether everything `quantizer` produces reaches only dense layers in
/// `layers`: changing its input changes nothing else.
static bool feedsOnly(Operation *quantizer, ArrayRef<DenseOp> layers) {
  auto isLayer = [&](Operation *user) {
    auto dense = dyn_cast<DenseOp>(user);
    return dense && llvm::is_contained(layers, dense);
  };
  if (isa<FakeQuantOp>(quantizer))
    return llvm::all_of(quantizer->getUsers(), isLayer);
  return llvm::all_of(quantizer->getUsers(), [&](Operation *dq) {
    return isa<DequantizeOp>(dq) && llvm::all_of(dq->getUsers(), isLayer);
  });
}

/// Groups of W8A8 dense layers SmoothQuant can smooth, in program order of
/// their first layer: weight and input quantized, the input's quantizers
/// feeding the group alone, uncalibrated, and of one quantizer.
static std::vector<Group> collectGroups(func::FuncOp func) {
  std::vector<Group> groups;
  llvm::SmallDenseMap<Value, unsigned> index;
  func.walk([&](DenseOp dense) {
    std::optional<QuantizedDenseWeight> layer =
        matchQuantizedDenseWeight(dense);
    if (!layer || !layer->getInputQuantizer())
      return;
    Value input = layer->getFloatInput();
    auto [it, inserted] = index.try_emplace(input, groups.size());
    if (inserted) {
      Group group;
      group.input = input;
      group.k = layer->k;
      groups.push_back(std::move(group));
    }
    groups[it->second].layers.push_back(std::move(*layer));
  });
  std::vector<Group> valid;
  for (Group &group : groups) {
    SmallVector<DenseOp> denses;
    for (QuantizedDenseWeight &layer : group.layers) {
      denses.push_back(layer.dense);
      Operation *quantizer = layer.getInputQuantizer();
      if (!llvm::is_contained(group.inputQuantizers, quantizer))
        group.inputQuantizers.push_back(quantizer);
    }
    bool ok = true;
    for (Operation *quantizer : group.inputQuantizers) {
      auto q = quantizer->getAttrOfType<QuantizerAttr>("quantizer");
      ok = ok && feedsOnly(quantizer, denses) && !quantizer->hasAttr("scale") &&
           !q.isFloatStorage() && !q.getAxis() &&
           (!group.activationQuantizer || group.activationQuantizer == q);
      group.activationQuantizer = q;
    }
    if (ok)
      valid.push_back(std::move(group));
  }
  return valid;
}

/// Fake-quantizes `x` in place with `q` over the range [lo, hi] (per
/// tensor), as calibration's `max` method would set it.
static void fakeQuantizeActivation(MutableArrayRef<float> x, QuantizerAttr q,
                                   double lo, double hi) {
  QuantParams params = computeActivationParams(
      q, lo, hi, std::max(std::fabs(lo), std::fabs(hi)));
  float scale = params.scale, zeroPoint = float(params.zeroPoint);
  float qmin = float(q.getQMin()), qmax = float(q.getQMax());
  for (float &v : x)
    v = (std::clamp(std::nearbyint(v / scale) + zeroPoint, qmin, qmax) -
         zeroPoint) *
        scale;
}

/// s_k = max|X_k|^alpha / max|W_k|^(1 - alpha); a channel without inputs
/// or weights keeps 1.
static std::vector<float> getSmoothingScales(const Group &group,
                                             ArrayRef<float> weightMax,
                                             double alpha) {
  std::vector<float> scales(group.k, 1.0f);
  for (int64_t i = 0; i < group.k; ++i) {
    double a = std::max(std::fabs(group.lo[i]), std::fabs(group.hi[i]));
    double w = weightMax[i];
    if (a > 0 && w > 0)
      scales[i] = float(std::pow(a, alpha) / std::pow(w, 1.0 - alpha));
    if (!(scales[i] > 1e-5f) || !std::isfinite(scales[i]))
      scales[i] = 1.0f;
  }
  return scales;
}

/// The group's mean squared output error with input `x / s` and weights
/// `diag(s) W` both fake-quantized, against the float outputs `reference`
/// (one per layer); no `scales`: unsmoothed.
static double getQuantizedError(const Group &group,
                                ArrayRef<std::vector<float>> weights,
                                ArrayRef<std::vector<float>> reference,
                                std::optional<ArrayRef<float>> scales,
                                MLIRContext *context) {
  int64_t k = group.k;
  std::vector<float> x = group.rows;
  double lo = 0, hi = 0;
  for (int64_t i = 0; i < k; ++i) {
    float s = scales ? (*scales)[i] : 1.0f;
    lo = std::min(lo, double(group.lo[i]) / s);
    hi = std::max(hi, double(group.hi[i]) / s);
  }
  if (scales)
    for (size_t e = 0; e < x.size(); ++e)
      x[e] /= (*scales)[e % k];
  fakeQuantizeActivation(x, group.activationQuantizer, lo, hi);
  double total = 0;
  int64_t count = 0;
  for (auto [layer, w, want] : llvm::zip(group.layers, weights, reference)) {
    std::vector<float> scaled = w;
    if (scales)
      for (size_t e = 0; e < scaled.size(); ++e)
        scaled[e] *= (*scales)[layer.getInputChannel(e)];
    fakeQuantizeWeight(layer, scaled);
    std::vector<float> y = multiplyRows(layer, x, scaled, context);
    for (auto [got, expected] : llvm::zip(y, want))
      total += double(got - expected) * double(got - expected);
    count += int64_t(y.size());
  }
  return total / double(std::max<int64_t>(1, count));
}

/// Chooses the group's scales: `alpha`, or with none the best of the grid
/// by `alphaStep` and no smoothing.
static Choice choose(const Group &group, ArrayRef<std::vector<float>> weights,
                     std::optional<double> alpha, double alphaStep,
                     MLIRContext *context) {
  std::vector<float> weightMax(group.k, 0.0f);
  for (auto [layer, w] : llvm::zip(group.layers, weights))
    for (size_t e = 0; e < w.size(); ++e) {
      float &m = weightMax[layer.getInputChannel(e)];
      m = std::max(m, std::fabs(w[e]));
    }
  std::vector<std::vector<float>> reference;
  for (auto [layer, w] : llvm::zip(group.layers, weights))
    reference.push_back(multiplyRows(layer, group.rows, w, context));

  Choice best;
  best.unsmoothedError =
      getQuantizedError(group, weights, reference, std::nullopt, context);
  best.error = best.unsmoothedError;
  SmallVector<double> candidates;
  if (alpha)
    candidates.push_back(*alpha);
  else
    candidates = getAlphaGrid(alphaStep);
  for (double candidate : candidates) {
    std::vector<float> scales = getSmoothingScales(group, weightMax, candidate);
    double error = getQuantizedError(group, weights, reference,
                                     ArrayRef<float>(scales), context);
    // A fixed alpha applies whatever its error; auto keeps the best.
    if (alpha || error < best.error) {
      best.alpha = candidate;
      best.error = error;
      best.scales = std::move(scales);
    }
  }
  return best;
}

/// The values of `value`, a constant of `k` f32 elements, or ones when it
/// is absent; nothing when it is neither.
static std::optional<std::vector<float>> readFactor(Value value, int64_t k) {
  if (!value)
    return std::vector<float>(k, 1.0f);
  ElementsAttr attr;
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.getElementType().isF32() || type.getNumElements() != k ||
      !matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  std::vector<float> values;
  if (failed(readFloatConstant(
          attr, [&](ArrayRef<float> v) { values.assign(v.begin(), v.end()); })))
    return std::nullopt;
  return values;
}

/// `factor` divided by `scales`, as a new constant of `like`'s type ([k]
/// when absent) named `name`.
static Value createDividedConstant(OpBuilder &b, Location loc,
                                   std::vector<float> factor,
                                   ArrayRef<float> scales, Value like,
                                   const std::string &name) {
  for (size_t i = 0; i < factor.size(); ++i)
    factor[i] /= scales[i];
  auto type =
      like ? cast<RankedTensorType>(like.getType())
           : RankedTensorType::get({int64_t(factor.size())}, b.getF32Type());
  return arith::ConstantOp::create(
      b, NameLoc::get(b.getStringAttr(name), loc),
      DenseElementsAttr::get(type, ArrayRef<float>(factor)));
}

/// The name of a normalization's new `role` constant (scale or bias):
/// after the one it replaces, else after the normalization.
static std::string getSmoothedName(Value old, StringRef layer, StringRef role) {
  StringRef base = old ? getLocationName(old.getLoc()) : StringRef();
  return base.empty() ? (layer + "_" + role + "_smooth").str()
                      : (base + "_smooth").str();
}

/// Folds 1 / s into the normalization producing the group's input, when
/// it normalizes the last dimension alone and only the group reads it.
/// Returns the normalization's name, or nothing.
static std::optional<std::string>
foldIntoNormalization(Group &group, ArrayRef<float> scales) {
  Operation *producer = group.input.getDefiningOp();
  if (!producer || !llvm::all_of(group.input.getUsers(), [&](Operation *u) {
        return llvm::is_contained(group.inputQuantizers, u);
      }))
    return std::nullopt;
  int64_t rank = cast<RankedTensorType>(group.input.getType()).getRank();
  OpBuilder b(producer);
  Location loc = producer->getLoc();
  if (auto norm = dyn_cast<RMSNormOp>(producer)) {
    std::optional<std::vector<float>> scale =
        readFactor(norm.getScale(), group.k);
    if (norm.getNormalizedAxis() != rank - 1 || !scale)
      return std::nullopt;
    std::string name = norm.getLayerName().str();
    norm.getScaleMutable().assign(
        createDividedConstant(b, loc, *scale, scales, norm.getScale(),
                              getSmoothedName(norm.getScale(), name, "scale")));
    return name;
  }
  if (auto norm = dyn_cast<LayerNormOp>(producer)) {
    std::optional<std::vector<float>> scale =
        readFactor(norm.getScale(), group.k);
    std::optional<std::vector<float>> bias =
        norm.getBias() ? readFactor(norm.getBias(), group.k)
                       : std::optional<std::vector<float>>();
    if (norm.getNormalizedAxis() != rank - 1 || !scale ||
        (norm.getBias() && !bias))
      return std::nullopt;
    std::string name = norm.getLayerName().str();
    Value newScale =
        createDividedConstant(b, loc, *scale, scales, norm.getScale(),
                              getSmoothedName(norm.getScale(), name, "scale"));
    if (bias)
      norm.getBiasMutable().assign(
          createDividedConstant(b, loc, *bias, scales, norm.getBias(),
                                getSmoothedName(norm.getBias(), name, "bias")));
    norm.getScaleMutable().assign(newScale);
    return name;
  }
  return std::nullopt;
}

/// Smooths `group` by `scales`: the weights times s, the input divided by
/// s in its normalization or by a multiply. Returns where 1 / s went.
static std::string apply(Group &group, ArrayRef<std::vector<float>> weights,
                         ArrayRef<float> scales) {
  for (auto [layer, w] : llvm::zip(group.layers, weights)) {
    std::vector<float> scaled = w;
    for (size_t e = 0; e < scaled.size(); ++e)
      scaled[e] *= scales[layer.getInputChannel(e)];
    replaceWeight(layer, scaled, "_smooth");
  }
  if (std::optional<std::string> norm = foldIntoNormalization(group, scales))
    return *norm;
  DenseOp first = group.layers.front().dense;
  Operation *earliest = group.inputQuantizers.front();
  for (Operation *quantizer : group.inputQuantizers)
    if (quantizer->isBeforeInBlock(earliest))
      earliest = quantizer;
  OpBuilder b(earliest);
  Value divided = divideInput(b, earliest, group.input, scales,
                              (first.getLayerName() + "_smooth_scale").str());
  for (Operation *quantizer : group.inputQuantizers)
    quantizer->setOperand(0, divided);
  return "multiply";
}

namespace {
struct SmoothActivationsPass
    : public quant_qdq::impl::SmoothActivationsBase<SmoothActivationsPass> {
  using SmoothActivationsBase::SmoothActivationsBase;

  /// `--qdq-smooth=data.npy` names the data.
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    return initializeWithMainOption<SmoothActivationsPass,
                                    SmoothActivationsBase>(
        *this, options, "data", errorHandler);
  }

  void runOnOperation() override;
};
} // namespace

void SmoothActivationsPass::runOnOperation() {
  ModuleOp module = getOperation();
  Location loc = module.getLoc();
  MLIRContext *context = &getContext();
  if (data.empty()) {
    emitError(loc) << "qdq-smooth needs calibration data: data=<.npy or .npz "
                      "files>";
    return signalPassFailure();
  }
  std::optional<double> fixedAlpha;
  if (alpha != "auto") {
    double value;
    if (StringRef(alpha).getAsDouble(value) || !(value >= 0 && value <= 1)) {
      emitError(loc) << "qdq-smooth: alpha must be in [0, 1] or auto; got '"
                     << alpha << "'";
      return signalPassFailure();
    }
    fixedAlpha = value;
  }
  if (failed(checkAlphaSearch(loc, "qdq-smooth", alphaStep, rows)))
    return signalPassFailure();
  func::FuncOp function =
      findDataPassEntry(module, "qdq-smooth", entry, batchSize);
  if (!function)
    return signalPassFailure();
  std::vector<Group> groups = collectGroups(function);
  if (groups.empty()) {
    emitWarning(loc) << "qdq-smooth found no dense layer with a quantized "
                        "weight and an uncalibrated quantized input (W8A8)";
    return;
  }
  nameTensors(function);
  for (Group &group : groups) {
    group.lo.assign(group.k, 0.0f);
    group.hi.assign(group.k, 0.0f);
  }
  SmallVector<std::string> paths(data.begin(), data.end());
  if (failed(observeTensors(
          module, function, paths, batchSize,
          [](func::FuncOp func) {
            SmallVector<Value> inputs;
            for (Group &group : collectGroups(func))
              inputs.push_back(group.input);
            return inputs;
          },
          [&](size_t i, const NpyArray &x) {
            Group &group = groups[i];
            ArrayRef<float> values(reinterpret_cast<const float *>(x.bytes),
                                   x.getNumElements());
            for (size_t e = 0; e < values.size(); ++e) {
              float v = values[e];
              float &lo = group.lo[e % group.k], &hi = group.hi[e % group.k];
              lo = v < lo ? v : lo;
              hi = v > hi ? v : hi;
            }
            size_t room = size_t(rows) * group.k - group.rows.size();
            group.rows.insert(group.rows.end(), values.begin(),
                              values.begin() + std::min(room, values.size()));
          })))
    return signalPassFailure();

  std::string text;
  llvm::raw_string_ostream report(text);
  report << "layers alpha unsmoothed-mse smoothed-mse divided-in\n";
  for (Group &group : groups) {
    std::vector<std::vector<float>> weights;
    for (QuantizedDenseWeight &layer : group.layers) {
      std::vector<float> &w = weights.emplace_back();
      if (failed(readFloatConstant(
              cast<ElementsAttr>(layer.weight.getValue()),
              [&](ArrayRef<float> v) { w.assign(v.begin(), v.end()); }))) {
        layer.dense.emitError("qdq-smooth: the weight is not a float "
                              "constant");
        return signalPassFailure();
      }
    }
    Choice choice = choose(group, weights, fixedAlpha, alphaStep, context);
    std::string names;
    for (QuantizedDenseWeight &layer : group.layers)
      names += (names.empty() ? "" : ",") + layer.dense.getLayerName().str();
    std::string where = "-";
    if (choice.alpha >= 0) {
      where = apply(group, weights, choice.scales);
      ++numSmoothed;
      if (where != "multiply")
        ++numFolded;
    }
    report << llvm::formatv("{0} {1} {2:E3} {3:E3} {4}\n", names,
                            choice.alpha >= 0
                                ? llvm::formatv("{0:F2}", choice.alpha).str()
                                : std::string("-"),
                            choice.unsmoothedError, choice.error, where);
  }
  if (!reportPath.empty() &&
      failed(writeReport(reportPath, text, loc, "SmoothQuant")))
    signalPassFailure();
}
