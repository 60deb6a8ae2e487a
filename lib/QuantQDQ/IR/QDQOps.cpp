//===- QDQOps.cpp - quantize, dequantize and fake_quant -------------------===//

#include "QuantQDQ/IR/QuantQDQOps.h"

#include "llvm/ADT/STLExtras.h"
#include <cmath>

using namespace mlir;
using namespace mlir::quant_qdq;

/// Checks what quantize, dequantize and fake_quant share: the quantizer fits
/// the float tensor, and the scales and zero points fit the quantizer.
static LogicalResult verifyQuantParams(Operation *op, QuantizerAttr quantizer,
                                       std::optional<ArrayRef<float>> scales,
                                       std::optional<ArrayRef<int32_t>> zps,
                                       RankedTensorType floatType,
                                       RankedTensorType storageType) {
  if (storageType) {
    unsigned width = storageType.getElementType().getIntOrFloatBitWidth();
    if (width != quantizer.getBits())
      return op->emitOpError("storage element type ")
             << storageType.getElementType() << " does not match the "
             << quantizer.getBits() << "-bit quantizer";
  }

  std::optional<int64_t> axis = quantizer.getAxis();
  int64_t expectedCount = 1;
  if (axis) {
    if (*axis >= floatType.getRank())
      return op->emitOpError("quantizer axis ")
             << *axis << " is out of range for a tensor of rank "
             << floatType.getRank();
    expectedCount = floatType.getDimSize(*axis);
  }

  if (scales) {
    if (scales->empty())
      return op->emitOpError("scale must hold at least one value");
    if (!ShapedType::isDynamic(expectedCount) &&
        int64_t(scales->size()) != expectedCount)
      return op->emitOpError("expects ")
             << expectedCount << (axis ? " scales (one per slice along axis "
                                       : " scale (per tensor")
             << (axis ? std::to_string(*axis) : std::string()) << "), got "
             << scales->size();
    for (auto [i, scale] : llvm::enumerate(*scales))
      if (!std::isfinite(scale) || scale <= 0.0f)
        return op->emitOpError("scale #")
               << i << " must be positive and finite, got " << scale;
  }

  if (zps) {
    if (!scales)
      return op->emitOpError("a zero point needs a scale");
    if (zps->size() != scales->size())
      return op->emitOpError("expects as many zero points as scales (")
             << scales->size() << "), got " << zps->size();
    for (auto [i, zp] : llvm::enumerate(*zps)) {
      if (zp < quantizer.getStorageMin() || zp > quantizer.getStorageMax())
        return op->emitOpError("zero point #")
               << i << " = " << zp << " is outside the storage range ["
               << quantizer.getStorageMin() << ", "
               << quantizer.getStorageMax() << "]";
      if (quantizer.getSymmetric() && quantizer.getIsSigned() && zp != 0)
        return op->emitOpError("zero point #")
               << i << " = " << zp
               << " must be 0 for a symmetric signed quantizer";
    }
  }
  return success();
}

LogicalResult QuantizeOp::verify() {
  return verifyQuantParams(*this, getQuantizer(), getScale(), getZeroPoint(),
                           getInput().getType(), getOutput().getType());
}

LogicalResult DequantizeOp::verify() {
  return verifyQuantParams(*this, getQuantizer(), getScale(), getZeroPoint(),
                           getOutput().getType(), getInput().getType());
}

LogicalResult FakeQuantOp::verify() {
  return verifyQuantParams(*this, getQuantizer(), getScale(), getZeroPoint(),
                           getInput().getType(), /*storageType=*/nullptr);
}

/// Whether two Q/DQ ops quantize alike: same quantizer, and the same scales
/// and zero points, which must be known (two uncalibrated ops may well get
/// different scales later).
template <typename A, typename B>
static bool haveSameKnownParams(A a, B b) {
  return a.getQuantizer() == b.getQuantizer() && a.getScale() &&
         a.getScaleAttr() == b.getScaleAttr() &&
         a.getZeroPointAttr() == b.getZeroPointAttr();
}

// quantize(dequantize(q)) with the same parameters gives q back exactly:
// q * s / s rounds to q for every storage value.
OpFoldResult QuantizeOp::fold(FoldAdaptor) {
  auto dequantize = getInput().getDefiningOp<DequantizeOp>();
  if (!dequantize || !haveSameKnownParams(*this, dequantize) ||
      dequantize.getInput().getType() != getType())
    return {};
  return dequantize.getInput();
}

// Fake quantization is idempotent: its output already lies on the grid.
OpFoldResult FakeQuantOp::fold(FoldAdaptor) {
  auto inner = getInput().getDefiningOp<FakeQuantOp>();
  if (!inner || !haveSameKnownParams(*this, inner))
    return {};
  return getInput();
}
