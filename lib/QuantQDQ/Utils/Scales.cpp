//===- Scales.cpp - scales of weights, and defaults for activations -------===//
//
// A QDQ model needs a scale on every QuantizeLinear. Weights need no
// calibration data: their range is in the constant, so the scale of group c
// is max|w_c| / qmax (per output channel for per-axis quantizers, per block
// for blocked ones), as the NVIDIA toolkit and Model Optimizer compute it
// for their narrow ranges; a full range lets the side of the larger
// magnitude use its extra negative level. A weight quantizer with
// `calibration = mse` takes, per group, the clipping of least squared
// rounding error.
// Activations do: without calibration they get the toolkit's initial range,
// amax = 6, and a warning says so. Export runs this on a copy of the
// module, calibration for the weights, and the `qdq-weight-scales` pass
// (Transforms/WeightScales.cpp) in a pipeline.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Utils/Scales.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <algorithm>
#include <cmath>
#include <iterator>

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

arith::ConstantOp mlir::quant_qdq::createFloatResourceConstant(
    OpBuilder &builder, Location loc, RankedTensorType type,
    ArrayRef<float> values, StringRef name) {
  AsmResourceBlob blob = HeapAsmResourceBlob::allocateAndCopyInferAlign(values);
  return arith::ConstantOp::create(
      builder, NameLoc::get(builder.getStringAttr(name), loc),
      DenseResourceElementsAttr::get(type, name, std::move(blob)));
}

SmallVector<ScaleRun> mlir::quant_qdq::getScaleRuns(QuantizerAttr q,
                                                    ArrayRef<int64_t> shape) {
  int64_t count = ShapedType::getNumElements(shape);
  std::optional<int64_t> axis = q.getAxis();
  if (!axis)
    return {{0, count, 0, 0}};
  int64_t size = shape[*axis], inner = 1, outer = 1;
  for (int64_t d = 0; d < *axis; ++d)
    outer *= shape[d];
  for (int64_t d = *axis + 1; d < int64_t(shape.size()); ++d)
    inner *= shape[d];
  SmallVector<ScaleRun> runs;
  if (!q.isBlocked()) {
    if (inner == 1) {
      for (int64_t o = 0; o < outer; ++o)
        runs.push_back({o * size, size, 0, 1});
      return runs;
    }
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t k = 0; k < size; ++k)
        runs.push_back({(o * size + k) * inner, inner, k, 0});
    return runs;
  }
  int64_t block = *q.getBlockSize();
  int64_t blocks = llvm::divideCeil(size, block);
  if (inner == 1) {
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t b = 0; b < blocks; ++b)
        runs.push_back({o * size + b * block,
                        std::min(block, size - b * block), o * blocks + b, 0});
    return runs;
  }
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < size; ++k)
      runs.push_back({(o * size + k) * inner, inner,
                      (o * blocks + k / block) * inner, 1});
  return runs;
}

namespace {
/// Minimum and maximum per scale group of a quantizer.
struct GroupRanges {
  SmallVector<float> lo, hi;
};
} // namespace

/// Minimum and maximum of `data` (of `shape`) per scale of `q` (one per
/// tensor, slice or block).
static GroupRanges getScaleGroupRanges(ArrayRef<float> data,
                                       ArrayRef<int64_t> shape,
                                       QuantizerAttr q) {
  int64_t groups = ShapedType::getNumElements(q.getScaleShape(shape));
  GroupRanges ranges{SmallVector<float>(groups, 0.0f),
                     SmallVector<float>(groups, 0.0f)};
  // NaN compares false both ways: it changes neither bound.
  for (const ScaleRun &run : getScaleRuns(q, shape)) {
    ArrayRef<float> values = data.slice(run.begin, run.length);
    if (run.scaleStride == 0) {
      float l = ranges.lo[run.scale], h = ranges.hi[run.scale];
      for (float v : values) {
        l = v < l ? v : l;
        h = v > h ? v : h;
      }
      ranges.lo[run.scale] = l;
      ranges.hi[run.scale] = h;
      continue;
    }
    float *l = &ranges.lo[run.scale], *h = &ranges.hi[run.scale];
    for (auto [i, v] : llvm::enumerate(values)) {
      l[i] = v < l[i] ? v : l[i];
      h[i] = v > h[i] ? v : h[i];
    }
  }
  return ranges;
}

/// The same for a constant of static shape.
static FailureOr<GroupRanges> getScaleGroupRanges(ElementsAttr value,
                                                  QuantizerAttr q) {
  auto type = cast<ShapedType>(value.getType());
  if (!type.hasStaticShape() ||
      (q.getAxis() && *q.getAxis() >= type.getRank()))
    return failure();
  GroupRanges ranges;
  if (failed(readFloatConstant(value, [&](ArrayRef<float> data) {
        ranges = getScaleGroupRanges(data, type.getShape(), q);
      })))
    return failure();
  return ranges;
}

/// Whether `q` chooses its weight scales by rounding error: integer
/// storage with `calibration = mse` (FP8's levels are not a uniform grid).
static bool searchesClipping(QuantizerAttr q) {
  return !q.isFloatStorage() && q.getCalibration() == CalibrationMethod::MSE;
}

/// The smallest scale under which [lo, hi] fits [qmin, qmax]: max|w| / qmax
/// for a narrow range; with the full signed range (-8..7 for int4) the side
/// of the larger magnitude may take the extra negative level. 0 for a
/// group of zeros or non-finite bounds.
static float getUnclippedScale(float lo, float hi, QuantizerAttr q) {
  // Unsigned storage has no negative side: magnitudes, as TensorRT's.
  float qmin = q.getQMin() < 0 ? float(q.getQMin()) : -float(q.getQMax());
  float scale = std::max(hi > 0.0f ? hi / float(q.getQMax()) : 0.0f,
                         lo < 0.0f ? lo / qmin : 0.0f);
  return std::isfinite(scale) ? scale : 0.0f;
}

/// getUnclippedScale per group; a group of zeros gets scale 1, since any
/// positive scale represents it exactly.
static SmallVector<float> getUnclippedScales(const GroupRanges &ranges,
                                             QuantizerAttr q) {
  SmallVector<float> scales;
  for (auto [lo, hi] : llvm::zip(ranges.lo, ranges.hi)) {
    float scale = getUnclippedScale(lo, hi, q);
    scales.push_back(scale > 0.0f ? scale : 1.0f);
  }
  return scales;
}

/// What a weight quantizer with `calibration = mse` tries for a group: the
/// unclipped scale, then that scale clipped by each factor. Six factors
/// down to 0.8 find almost all of what a finer search finds (on the trained
/// LM of bench/llm, int4 in blocks of 32: weight SQNR 21.83 dB against
/// 21.87 with 41 factors down to 0.6).
static constexpr float kClipFactors[] = {1.0f,  0.96f, 0.92f,
                                         0.88f, 0.84f, 0.8f};

/// Squared error of `v` rounded to `scale`'s grid in [qmin, qmax], in f32
/// as DequantizeLinear computes it.
static double getRoundingError(float v, float scale, float qmin, float qmax) {
  float q = std::clamp(std::nearbyint(v / scale), qmin, qmax);
  double e = double(v) - double(q * scale);
  return e * e;
}

/// The clipping search of `calibration = mse` for every group of `data` (of
/// `shape`) at once, in one pass over the data.
static SmallVector<float> searchClippedScales(ArrayRef<float> data,
                                              ArrayRef<int64_t> shape,
                                              QuantizerAttr q,
                                              const GroupRanges &ranges) {
  constexpr size_t kFactors = std::size(kClipFactors);
  size_t groups = ranges.lo.size();
  SmallVector<float> base(groups);
  for (size_t g = 0; g < groups; ++g)
    base[g] = getUnclippedScale(ranges.lo[g], ranges.hi[g], q);
  float qmin = float(q.getQMin()), qmax = float(q.getQMax());
  std::vector<double> errors(groups * kFactors, 0.0);
  for (const ScaleRun &run : getScaleRuns(q, shape))
    for (int64_t i = 0; i < run.length; ++i) {
      int64_t g = run.scale + i * run.scaleStride;
      if (!(base[g] > 0.0f))
        continue;
      float v = data[run.begin + i];
      for (size_t f = 0; f < kFactors; ++f)
        errors[g * kFactors + f] +=
            getRoundingError(v, base[g] * kClipFactors[f], qmin, qmax);
    }
  SmallVector<float> scales(groups, 1.0f);
  for (size_t g = 0; g < groups; ++g) {
    if (!(base[g] > 0.0f))
      continue;
    // The first of the least error: ties keep the larger scale.
    size_t best = 0;
    for (size_t f = 1; f < kFactors; ++f)
      if (errors[g * kFactors + f] < errors[g * kFactors + best])
        best = f;
    scales[g] = base[g] * kClipFactors[best];
  }
  return scales;
}

FailureOr<SmallVector<float>>
mlir::quant_qdq::computeWeightScales(ElementsAttr weight, QuantizerAttr q) {
  auto type = cast<ShapedType>(weight.getType());
  if (!type.hasStaticShape() ||
      (q.getAxis() && *q.getAxis() >= type.getRank()) || q.getQMax() <= 0)
    return failure();
  SmallVector<float> scales;
  if (failed(readFloatConstant(weight, [&](ArrayRef<float> data) {
        scales = computeWeightScales(data, type.getShape(), q);
      })))
    return failure();
  return scales;
}

SmallVector<float>
mlir::quant_qdq::computeWeightScales(ArrayRef<float> weight,
                                     ArrayRef<int64_t> shape,
                                     QuantizerAttr q) {
  GroupRanges ranges = getScaleGroupRanges(weight, shape, q);
  if (searchesClipping(q))
    return searchClippedScales(weight, shape, q, ranges);
  return getUnclippedScales(ranges, q);
}

float mlir::quant_qdq::chooseWeightScale(ArrayRef<float> values,
                                         QuantizerAttr q) {
  // The values as one group: the quantizer per tensor.
  return computeWeightScales(values, {int64_t(values.size())},
                             q.withAxis(std::nullopt))
      .front();
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

QuantParams mlir::quant_qdq::computeActivationParams(QuantizerAttr q, double lo,
                                                     double hi, double amax) {
  if (q.getSymmetric() && q.getIsSigned())
    return {amax > 0 ? float(amax / q.getQMax()) : 1.0f, 0};
  return computeAsymmetricParams(q, std::max(lo, -amax), std::min(hi, amax));
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
      FailureOr<SmallVector<float>> scales = computeWeightScales(weight, q);
      if (failed(scales))
        return op->emitError("cannot compute weight scales: the weight must "
                             "be a floating-point constant of static shape");
      return std::optional<Params>(Params{std::move(*scales), {}});
    }
    FailureOr<GroupRanges> ranges = getScaleGroupRanges(weight, q);
    if (failed(ranges))
      return op->emitError("cannot compute weight ranges");
    return std::optional<Params>(
        getAsymmetricParams(q, ranges->lo, ranges->hi));
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
  if (q.isBlocked())
    return op->emitError("block quantization is for weights (constants); "
                         "this activation quantizer has a block size");
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
