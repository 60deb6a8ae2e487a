//===- QuantizeWeights.cpp - weights stored as integer constants ----------===//
//
// quantize(constant w) read only by dequantize ops becomes the constant
// quantize would produce, so that a deployed graph stores each weight once,
// in its storage type, and computes no quantize for it.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/IR/E4M3FN.h"
#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/Transforms/Passes.h"
#include "QuantQDQ/Utils/Scales.h"
#include "QuantQDQ/Utils/TensorNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Threading.h"

#include <algorithm>
#include <cmath>

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_QUANTIZEWEIGHTS
#include "QuantQDQ/Transforms/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;

LogicalResult mlir::quant_qdq::quantizeConstant(ElementsAttr value,
                                                QuantizerAttr q,
                                                ArrayRef<float> scales,
                                                ArrayRef<int32_t> zeroPoints,
                                                MutableArrayRef<char> out) {
  auto type = cast<ShapedType>(value.getType());
  int64_t bytes = q ? getStorageBytes(q) : 0;
  if (!q || !type.hasStaticShape() || scales.empty() ||
      int64_t(out.size()) != type.getNumElements() * bytes ||
      int64_t(scales.size()) !=
          ShapedType::getNumElements(q.getScaleShape(type.getShape())) ||
      (!zeroPoints.empty() && zeroPoints.size() != scales.size()))
    return failure();
  int64_t qmin = q.getQMin(), qmax = q.getQMax();
  auto store = [&](int64_t i, int64_t v) {
    // Little endian, as the dense constants of the storage type hold it.
    for (int64_t byte = 0; byte < bytes; ++byte)
      out[i * bytes + byte] = char(uint8_t((uint64_t(v) >> (8 * byte)) & 0xff));
  };
  // Chunks of about 1 Mi elements go to the context's threads (a 600 MB
  // weight takes seconds on one core): a run longer than that (a
  // per-tensor weight) is cut, shorter ones are grouped.
  constexpr int64_t kChunk = 1 << 20;
  SmallVector<ScaleRun> runs;
  for (const ScaleRun &run : getScaleRuns(q, type.getShape()))
    for (int64_t at = 0; at < run.length; at += kChunk)
      runs.push_back({run.begin + at, std::min(kChunk, run.length - at),
                      run.scale + at * run.scaleStride, run.scaleStride});
  bool fp8 = q.isFloatStorage();
  auto quantizeRun = [&](ArrayRef<float> data, const ScaleRun &run) {
    for (int64_t i = 0; i < run.length; ++i) {
      int64_t s = run.scale + i * run.scaleStride;
      float scaled = data[run.begin + i] / scales[s];
      if (fp8) {
        store(run.begin + i, encodeE4M3FN(roundToE4M3FN(scaled)));
        continue;
      }
      int64_t zp = zeroPoints.empty() ? 0 : zeroPoints[s];
      // nearbyint rounds half to even in the default rounding mode.
      scaled = std::nearbyint(scaled);
      int64_t v = std::isnan(scaled) ? zp
                  : scaled > 1e9f    ? qmax
                  : scaled < -1e9f   ? qmin
                                     : int64_t(scaled) + zp;
      store(run.begin + i, std::clamp(v, qmin, qmax));
    }
  };
  return readFloatConstant(value, [&](ArrayRef<float> data) {
    SmallVector<size_t> chunkStarts{0};
    for (int64_t r = 0, filled = 0; r < int64_t(runs.size()); ++r) {
      filled += runs[r].length;
      if (filled >= kChunk && r + 1 < int64_t(runs.size())) {
        chunkStarts.push_back(r + 1);
        filled = 0;
      }
    }
    chunkStarts.push_back(runs.size());
    parallelFor(value.getContext(), 0, chunkStarts.size() - 1,
                [&](size_t chunk) {
                  for (size_t r = chunkStarts[chunk];
                       r < chunkStarts[chunk + 1]; ++r)
                    quantizeRun(data, runs[r]);
                });
  });
}

/// Whether `q`'s f32 weight may be stored as its dequantized f32 values:
/// every layer reading it, through dequantize ops of `q`'s own parameters
/// and an f32 result, runs in float all the same (kFloatKernelAttrName).
static bool isReadByFloatKernelsOnly(QuantizeOp q) {
  if (!cast<ShapedType>(q.getInput().getType()).getElementType().isF32())
    return false;
  bool any = false;
  for (Operation *user : q->getUsers()) {
    auto dequantize = cast<DequantizeOp>(user);
    if (dequantize.getScale() != q.getScale() ||
        dequantize.getZeroPoint() != q.getZeroPoint() ||
        !dequantize.getType().getElementType().isF32())
      return false;
    for (Operation *reader : dequantize->getUsers()) {
      if (!reader->hasAttr(kFloatKernelAttrName))
        return false;
      any = true;
    }
  }
  return any;
}

/// The float values an 8-bit integer `storage` of quantizer `q` stands
/// for: (stored - zero point) * scale, per slice, as DequantizeLinear
/// computes them.
static SmallVector<float> dequantizeStorage(ArrayRef<char> storage,
                                            QuantizerAttr q,
                                            ArrayRef<int64_t> shape,
                                            ArrayRef<float> scales,
                                            ArrayRef<int32_t> zeroPoints) {
  SmallVector<float> values(storage.size());
  for (const ScaleRun &run : getScaleRuns(q, shape))
    for (int64_t i = 0; i < run.length; ++i) {
      int64_t s = run.scale + i * run.scaleStride;
      uint8_t byte = uint8_t(storage[run.begin + i]);
      int32_t stored = q.getIsSigned() ? int32_t(int8_t(byte)) : byte;
      int32_t zp = zeroPoints.empty() ? 0 : zeroPoints[s];
      values[run.begin + i] = float(stored - zp) * scales[s];
    }
  return values;
}

/// Replaces `q` by its quantized constant; false when it does not apply.
/// A weight that only float kernels read becomes the float constant of
/// its dequantized values instead.
static FailureOr<bool> quantizeWeight(QuantizeOp q) {
  ElementsAttr weight;
  if (!q.getScale() || q->use_empty() ||
      !matchPattern(q.getInput(), m_Constant(&weight)) ||
      !llvm::all_of(q->getUsers(),
                    [](Operation *u) { return isa<DequantizeOp>(u); }))
    return false;
  auto type = cast<ShapedType>(weight.getType());
  // Quantized straight into the new weight's storage.
  int64_t bytes = getStorageBytes(q.getQuantizer());
  AsmResourceBlob blob = HeapAsmResourceBlob::allocate(
      type.hasStaticShape() ? type.getNumElements() * bytes : 0, bytes);
  if (failed(quantizeConstant(weight, q.getQuantizer(), *q.getScale(),
                              q.getZeroPoint().value_or(ArrayRef<int32_t>()),
                              blob.getMutableData())))
    return q.emitError("cannot quantize this weight: it must be a "
                       "floating-point constant of static shape");
  // The storage is the quantize's own tensor: its name, or the weight's.
  std::string name = getTensorName(q.getOutput()).str();
  if (name.empty()) {
    StringRef base = getLocationName(q.getInput().getDefiningOp()->getLoc());
    name = (base.empty() ? StringRef("weight") : base).str() + "_quantized";
  }
  MLIRContext *context = q.getContext();
  OpBuilder builder(q);
  QuantizerAttr quantizer = q.getQuantizer();
  if (bytes == 1 && !quantizer.isFloatStorage() &&
      isReadByFloatKernelsOnly(q)) {
    SmallVector<float> values = dequantizeStorage(
        blob.getData(), quantizer, type.getShape(), *q.getScale(),
        q.getZeroPoint().value_or(ArrayRef<int32_t>()));
    std::string floatName =
        StringRef(name).ends_with("_quantized")
            ? StringRef(name).drop_back(10).str() + "_dequantized"
            : name + "_dequantized";
    arith::ConstantOp constant = createFloatResourceConstant(
        builder, q.getLoc(), cast<RankedTensorType>(q.getInput().getType()),
        values, floatName);
    for (Operation *dequantize : llvm::make_early_inc_range(q->getUsers())) {
      dequantize->getResult(0).replaceAllUsesWith(constant.getResult());
      dequantize->erase();
    }
    Operation *floatWeight = q.getInput().getDefiningOp();
    q.erase();
    if (floatWeight->use_empty())
      floatWeight->erase();
    return true;
  }
  auto attr =
      DenseResourceElementsAttr::get(q.getType(), name, std::move(blob));
  auto constant = arith::ConstantOp::create(
      builder, NameLoc::get(StringAttr::get(context, name), q.getLoc()),
      attr);
  Operation *floatWeight = q.getInput().getDefiningOp();
  q.getOutput().replaceAllUsesWith(constant.getResult());
  q.erase();
  if (floatWeight->use_empty())
    floatWeight->erase();
  return true;
}

namespace {
struct QuantizeWeightsPass
    : quant_qdq::impl::QuantizeWeightsBase<QuantizeWeightsPass> {
  void runOnOperation() override {
    SmallVector<QuantizeOp> quantizes;
    getOperation()->walk([&](QuantizeOp q) { quantizes.push_back(q); });
    for (QuantizeOp q : quantizes)
      if (failed(quantizeWeight(q)))
        return signalPassFailure();
  }
};
} // namespace
