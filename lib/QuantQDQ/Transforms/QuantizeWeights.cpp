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

#include <cmath>

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_QUANTIZEWEIGHTS
#include "QuantQDQ/Transforms/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;

FailureOr<std::string>
mlir::quant_qdq::quantizeConstant(ElementsAttr value, QuantizerAttr q,
                                  ArrayRef<float> scales,
                                  ArrayRef<int32_t> zeroPoints) {
  auto type = cast<ShapedType>(value.getType());
  if (!q || q.getBits() != 8 || !type.hasStaticShape() || scales.empty())
    return failure();
  std::optional<int64_t> axis = q.getAxis();
  int64_t slices = axis ? type.getDimSize(*axis) : 1;
  if (int64_t(scales.size()) != slices)
    return failure();
  int64_t inner = 1;
  if (axis)
    for (int64_t d = *axis + 1; d < type.getRank(); ++d)
      inner *= type.getDimSize(d);
  std::string bytes;
  LogicalResult ok = readFloatConstant(value, [&](ArrayRef<float> data) {
    bytes.resize(data.size());
    for (size_t i = 0; i < data.size(); ++i) {
      int64_t s = slices == 1 ? 0 : (int64_t(i) / inner) % slices;
      int64_t zp = zeroPoints.empty() ? 0 : zeroPoints[s];
      // nearbyint rounds half to even in the default rounding mode.
      float scaled = std::nearbyint(data[i] / scales[s]);
      int64_t v = std::isnan(scaled) ? zp
                  : scaled > 1e9f    ? q.getQMax()
                  : scaled < -1e9f   ? q.getQMin()
                                     : int64_t(scaled) + zp;
      v = std::clamp(v, q.getQMin(), q.getQMax());
      bytes[i] = char(uint8_t(v & 0xff));
    }
  });
  if (failed(ok))
    return failure();
  return bytes;
}

/// Replaces `q` by its quantized constant; false when it does not apply.
static FailureOr<bool> quantizeWeight(QuantizeOp q) {
  ElementsAttr weight;
  if (!q.getScale() || q.getQuantizer().getBits() != 8 || q->use_empty() ||
      !matchPattern(q.getInput(), m_Constant(&weight)) ||
      !llvm::all_of(q->getUsers(),
                    [](Operation *u) { return isa<DequantizeOp>(u); }))
    return false;
  FailureOr<std::string> bytes =
      quantizeConstant(weight, q.getQuantizer(), *q.getScale(),
                       q.getZeroPoint().value_or(ArrayRef<int32_t>()));
  if (failed(bytes))
    return q.emitError("cannot quantize this weight to 8 bits: it must be a "
                       "floating-point constant of static shape");
  // The storage is the quantize's own tensor: its name, or the weight's.
  std::string name = getTensorName(q.getOutput()).str();
  if (name.empty()) {
    StringRef base = getLocationName(q.getInput().getDefiningOp()->getLoc());
    name = (base.empty() ? StringRef("weight") : base).str() + "_quantized";
  }
  MLIRContext *context = q.getContext();
  auto blob = HeapAsmResourceBlob::allocateAndCopyInferAlign(
      ArrayRef<char>(bytes->data(), bytes->size()));
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
