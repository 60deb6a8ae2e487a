//===- Scales.cpp - scales of weights, and defaults for activations -------===//
//
// A QDQ model needs a scale on every QuantizeLinear. Weights need no
// calibration data: their range is in the constant, so the scale of slice c
// is max|w_c| / qmax (per output channel for per-axis quantizers), as the
// NVIDIA toolkit computes it. Activations do: without calibration they get
// the toolkit's initial range, amax = 6, and a warning says so. Export runs
// this on a copy of the module, calibration for the weights, and the
// `qdq-weight-scales` pass in a pipeline.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Transforms/Scales.h"
#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/Transforms/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <cmath>

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_WEIGHTSCALES
#include "QuantQDQ/Transforms/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;

LogicalResult
mlir::quant_qdq::readFloatConstant(ElementsAttr value,
                                   function_ref<void(ArrayRef<float>)> fn) {
  auto type = cast<ShapedType>(value.getType());
  auto floatType = dyn_cast<FloatType>(type.getElementType());
  if (!floatType)
    return failure();
  int64_t count = type.getNumElements();
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob || !floatType.isF32() ||
        blob->getData().size() != size_t(count) * sizeof(float))
      return failure();
    fn(blob->getDataAs<float>());
    return success();
  }
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense)
    return failure();
  if (floatType.isF32() && !dense.isSplat()) {
    ArrayRef<char> raw = dense.getRawData();
    fn(ArrayRef<float>(reinterpret_cast<const float *>(raw.data()), count));
    return success();
  }
  SmallVector<float> values;
  values.reserve(count);
  for (APFloat v : dense.getValues<APFloat>()) {
    bool lost;
    v.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
    values.push_back(v.convertToFloat());
  }
  fn(values);
  return success();
}

/// Per-slice minimum and maximum of `value` along `axis` (one slice when
/// `axis` is absent).
static FailureOr<std::pair<SmallVector<float>, SmallVector<float>>>
getSliceRanges(ElementsAttr value, std::optional<int64_t> axis) {
  auto type = cast<ShapedType>(value.getType());
  if (!type.hasStaticShape() || (axis && *axis >= type.getRank()))
    return failure();
  int64_t slices = axis ? type.getDimSize(*axis) : 1;
  int64_t inner = 1;
  if (axis)
    for (int64_t d = *axis + 1; d < type.getRank(); ++d)
      inner *= type.getDimSize(d);
  SmallVector<float> lo(slices, 0.0f), hi(slices, 0.0f);
  LogicalResult ok = readFloatConstant(value, [&](ArrayRef<float> data) {
    // NaN compares false both ways: it changes neither bound.
    if (axis && inner == 1) {
      // The axis is the last dimension (a MatMul's output channels): rows
      // of one element per slice, taken a row at a time.
      for (size_t row = 0; row < data.size(); row += slices)
        for (int64_t s = 0; s < slices; ++s) {
          float v = data[row + s];
          lo[s] = v < lo[s] ? v : lo[s];
          hi[s] = v > hi[s] ? v : hi[s];
        }
      return;
    }
    // Runs of `inner` elements share a slice: no division per element.
    int64_t run = axis ? inner : int64_t(data.size());
    for (int64_t begin = 0, s = 0; begin < int64_t(data.size());
         begin += run, s = (s + 1) % slices) {
      float l = lo[s], h = hi[s];
      for (float v : data.slice(begin, run)) {
        l = v < l ? v : l;
        h = v > h ? v : h;
      }
      lo[s] = l;
      hi[s] = h;
    }
  });
  if (failed(ok))
    return failure();
  return std::make_pair(std::move(lo), std::move(hi));
}

FailureOr<SmallVector<float>> mlir::quant_qdq::computeWeightScales(
    ElementsAttr weight, std::optional<int64_t> axis, int64_t qmax) {
  auto ranges = getSliceRanges(weight, axis);
  if (failed(ranges) || qmax <= 0)
    return failure();
  SmallVector<float> scales;
  for (auto [lo, hi] : llvm::zip(ranges->first, ranges->second)) {
    float amax = std::max(std::abs(lo), std::abs(hi));
    // Any positive scale represents a slice of zeros exactly.
    scales.push_back(amax > 0.0f && std::isfinite(amax) ? amax / float(qmax)
                                                        : 1.0f);
  }
  return scales;
}

namespace {
/// Scales and zero points chosen for one quantizer.
struct Params {
  SmallVector<float> scales;
  SmallVector<int32_t> zeroPoints;
};
} // namespace

QuantParams mlir::quant_qdq::computeAsymmetricParams(QuantizerAttr q,
                                                    double lo, double hi) {
  int64_t qmin = q.getQMin(), qmax = q.getQMax();
  double low = std::min(lo, 0.0), high = std::max(hi, 0.0);
  float scale = float((high - low) / double(qmax - qmin));
  if (!(scale > 0.0f) || !std::isfinite(scale))
    scale = 1.0f;
  int64_t zp = qmin - int64_t(std::nearbyint(low / scale));
  return {scale,
          int32_t(std::clamp(zp, q.getStorageMin(), q.getStorageMax()))};
}

/// Asymmetric parameters for per-slice ranges [lo, hi].
static Params getAsymmetricParams(QuantizerAttr q, ArrayRef<float> lo,
                                  ArrayRef<float> hi) {
  Params p;
  for (auto [l, h] : llvm::zip(lo, hi)) {
    QuantParams slice = computeAsymmetricParams(q, l, h);
    p.scales.push_back(slice.scale);
    p.zeroPoints.push_back(slice.zeroPoint);
  }
  return p;
}

/// The default parameters of an uncalibrated quantize or fake_quant, or
/// nothing when it is an activation and no activation range was given.
static FailureOr<std::optional<Params>>
getDefaultParams(Operation *op, QuantizerAttr q, Value input,
                 std::optional<double> activationAmax, bool &warned) {
  ElementsAttr weight;
  if (matchPattern(input, m_Constant(&weight))) {
    if (q.getSymmetric() && q.getIsSigned()) {
      FailureOr<SmallVector<float>> scales =
          computeWeightScales(weight, q.getAxis(), q.getQMax());
      if (failed(scales))
        return op->emitError("cannot compute weight scales: the weight must "
                             "be a floating-point constant of static shape");
      return std::optional<Params>(Params{std::move(*scales), {}});
    }
    auto ranges = getSliceRanges(weight, q.getAxis());
    if (failed(ranges))
      return op->emitError("cannot compute weight ranges");
    return std::optional<Params>(
        getAsymmetricParams(q, ranges->first, ranges->second));
  }
  if (!activationAmax)
    return std::optional<Params>();
  if (!warned) {
    // About every activation, not this one: at the function.
    auto func = op->getParentOfType<FunctionOpInterface>();
    emitWarning(func ? func.getLoc() : op->getLoc(),
                "activations are uncalibrated: their Q/DQ use the initial "
                "range amax = ")
        << *activationAmax << " (scale = amax / " << q.getQMax() << ")";
    warned = true;
  }
  int64_t slices = 1;
  if (std::optional<int64_t> axis = q.getAxis()) {
    auto type = cast<ShapedType>(input.getType());
    slices = type.getDimSize(*axis);
    if (ShapedType::isDynamic(slices))
      return op->emitError("a per-axis activation quantizer needs a static "
                           "size along its axis");
  }
  float amax = float(*activationAmax);
  if (q.getSymmetric() && q.getIsSigned())
    return std::optional<Params>(
        Params{SmallVector<float>(slices, amax / float(q.getQMax())), {}});
  SmallVector<float> lo(slices, q.getIsSigned() ? -amax : 0.0f),
      hi(slices, amax);
  return std::optional<Params>(getAsymmetricParams(q, lo, hi));
}

template <typename OpTy> static void setParams(OpTy op, const Params &p) {
  Builder b(op.getContext());
  op.setScaleAttr(b.getDenseF32ArrayAttr(p.scales));
  if (llvm::any_of(p.zeroPoints, [](int32_t z) { return z != 0; }))
    op.setZeroPointAttr(b.getDenseI32ArrayAttr(p.zeroPoints));
}

LogicalResult
mlir::quant_qdq::assignDefaultScales(Operation *root,
                                     std::optional<double> activationAmax) {
  bool warned = false;
  WalkResult result = root->walk([&](Operation *op) -> WalkResult {
    auto assign = [&](auto qop) -> WalkResult {
      if (qop.isCalibrated())
        return WalkResult::advance();
      auto params = getDefaultParams(op, qop.getQuantizer(), qop.getInput(),
                                     activationAmax, warned);
      if (failed(params))
        return WalkResult::interrupt();
      if (*params)
        setParams(qop, **params);
      return WalkResult::advance();
    };
    if (auto q = dyn_cast<QuantizeOp>(op))
      return assign(q);
    if (auto fq = dyn_cast<FakeQuantOp>(op))
      return assign(fq);
    if (auto dq = dyn_cast<DequantizeOp>(op)) {
      if (dq.isCalibrated())
        return WalkResult::advance();
      // Quantize ops come first in program order, so the producer is done.
      auto q = dq.getInput().getDefiningOp<QuantizeOp>();
      if (!q || !q.isCalibrated()) {
        if (!q && (activationAmax || matchPattern(dq.getInput(), m_Constant())))
          return dq.emitError("dequantize has no scale and no quantize to "
                              "take one from"),
                 WalkResult::interrupt();
        return WalkResult::advance();
      }
      dq.setScaleAttr(q.getScaleAttr());
      dq.setZeroPointAttr(q.getZeroPointAttr());
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
struct WeightScalesPass
    : public quant_qdq::impl::WeightScalesBase<WeightScalesPass> {
  using WeightScalesBase::WeightScalesBase;
  void runOnOperation() override {
    std::optional<double> amax;
    if (activationAmax > 0.0)
      amax = activationAmax;
    if (failed(assignDefaultScales(getOperation(), amax)))
      signalPassFailure();
  }
};
} // namespace
