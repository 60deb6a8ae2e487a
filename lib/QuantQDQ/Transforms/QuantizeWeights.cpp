//===- QuantizeWeights.cpp - weights stored as int8 constants -------------===//
//
// quantize(constant w) read only by dequantize ops becomes the constant
// quantize would produce, so that a deployed graph stores each weight once,
// in its storage type, and computes no quantize for it.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/Transforms/Passes.h"
#include "QuantQDQ/Transforms/Scales.h"
#include "QuantQDQ/Transforms/TensorNames.h"

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
  if (!q || q.getBits() != 8 || !type.hasStaticShape() || scales.empty() ||
      int64_t(out.size()) != type.getNumElements())
    return failure();
  std::optional<int64_t> axis = q.getAxis();
  int64_t slices = axis ? type.getDimSize(*axis) : 1;
  if (int64_t(scales.size()) != slices)
    return failure();
  int64_t inner = 1;
  if (axis)
    for (int64_t d = *axis + 1; d < type.getRank(); ++d)
      inner *= type.getDimSize(d);
  int64_t qmin = q.getQMin(), qmax = q.getQMax();
  auto quantize = [&](ArrayRef<float> data, int64_t begin, int64_t end) {
    // Runs of `inner` elements share a slice: the slice advances when a run
    // ends, with no division per element.
    int64_t s = axis ? (begin / inner) % slices : 0;
    int64_t left = axis ? inner - begin % inner : end - begin;
    float scale = scales[s];
    int64_t zp = zeroPoints.empty() ? 0 : zeroPoints[s];
    for (int64_t i = begin; i < end; ++i) {
      // nearbyint rounds half to even in the default rounding mode.
      float scaled = std::nearbyint(data[i] / scale);
      int64_t v = std::isnan(scaled) ? zp
                  : scaled > 1e9f    ? qmax
                  : scaled < -1e9f   ? qmin
                                     : int64_t(scaled) + zp;
      out[i] = char(uint8_t(std::clamp(v, qmin, qmax) & 0xff));
      if (--left == 0 && axis) {
        s = s + 1 == slices ? 0 : s + 1;
        left = inner;
        scale = scales[s];
        zp = zeroPoints.empty() ? 0 : zeroPoints[s];
      }
    }
  };
  return readFloatConstant(value, [&](ArrayRef<float> data) {
    // Blocks of 1 Mi elements on the context's threads (a 600 MB weight
    // takes seconds on one core).
    constexpr int64_t kBlock = 1 << 20;
    int64_t count = data.size();
    int64_t blocks = (count + kBlock - 1) / kBlock;
    parallelFor(value.getContext(), 0, blocks, [&](size_t block) {
      int64_t begin = int64_t(block) * kBlock;
      quantize(data, begin, std::min(count, begin + kBlock));
    });
  });
}

/// Replaces `q` by its quantized constant; false when it does not apply.
static FailureOr<bool> quantizeWeight(QuantizeOp q) {
  ElementsAttr weight;
  if (!q.getScale() || q.getQuantizer().getBits() != 8 || q->use_empty() ||
      !matchPattern(q.getInput(), m_Constant(&weight)) ||
      !llvm::all_of(q->getUsers(),
                    [](Operation *u) { return isa<DequantizeOp>(u); }))
    return false;
  auto type = cast<ShapedType>(weight.getType());
  // Quantized straight into the new weight's storage.
  AsmResourceBlob blob = HeapAsmResourceBlob::allocate(
      type.hasStaticShape() ? type.getNumElements() : 0, alignof(int8_t));
  if (failed(quantizeConstant(weight, q.getQuantizer(), *q.getScale(),
                              q.getZeroPoint().value_or(ArrayRef<int32_t>()),
                              blob.getMutableData())))
    return q.emitError("cannot quantize this weight to 8 bits: it must be a "
                       "floating-point constant of static shape");
  // The storage is the quantize's own tensor: its name, or the weight's.
  std::string name = getTensorName(q.getOutput()).str();
  if (name.empty()) {
    StringRef base = getLocationName(q.getInput().getDefiningOp()->getLoc());
    name = (base.empty() ? StringRef("weight") : base).str() + "_quantized";
  }
  MLIRContext *context = q.getContext();
  auto attr = DenseResourceElementsAttr::get(q.getType(), name,
                                             std::move(blob));
  OpBuilder builder(q);
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
