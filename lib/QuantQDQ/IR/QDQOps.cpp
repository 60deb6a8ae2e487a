//===- QDQOps.cpp - quantize, dequantize, fake_quant and its gradient -----===//

#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/APFloat.h"
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
  if (storageType &&
      storageType.getElementType() != quantizer.getStorageType()) {
    InFlightDiagnostic diag = op->emitOpError("storage element type ")
                              << storageType.getElementType()
                              << " does not match the ";
    if (quantizer.isFloatStorage())
      return diag << stringifyStorageFormat(quantizer.getStorage())
                  << " quantizer (" << quantizer.getStorageType()
                  << " expected)";
    return diag << quantizer.getBits() << "-bit quantizer";
  }

  std::optional<int64_t> axis = quantizer.getAxis();
  if (axis && *axis >= floatType.getRank())
    return op->emitOpError("quantizer axis ")
           << *axis << " is out of range for a tensor of rank "
           << floatType.getRank();
  // The storage side may know sizes the float side does not.
  SmallVector<int64_t> shape(floatType.getShape());
  if (storageType)
    for (auto [size, known] : llvm::zip(shape, storageType.getShape()))
      if (ShapedType::isDynamic(size))
        size = known;
  SmallVector<int64_t> scaleShape = quantizer.getScaleShape(shape);
  int64_t expectedCount = 1;
  for (int64_t size : scaleShape)
    expectedCount = ShapedType::isDynamic(size) || ShapedType::isDynamic(
                                                       expectedCount)
                        ? ShapedType::kDynamic
                        : expectedCount * size;

  if (scales) {
    if (scales->empty())
      return op->emitOpError("scale must hold at least one value");
    if (!ShapedType::isDynamic(expectedCount) &&
        int64_t(scales->size()) != expectedCount)
      return op->emitOpError("expects ")
             << expectedCount
             << (quantizer.isBlocked()
                     ? " scales (one per block of " +
                           std::to_string(*quantizer.getBlockSize()) +
                           " along axis " + std::to_string(*axis)
                 : axis ? " scales (one per slice along axis " +
                              std::to_string(*axis)
                        : std::string(" scale (per tensor"))
             << "), got " << scales->size();
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

LogicalResult FakeQuantGradOp::verify() {
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

/// Whether `floatType` holds every dequantized value (q - zero_point) * scale
/// closely enough for quantization to give q back. |q - zero_point| is below
/// 2^bits, so a significand of bits + 1 bits keeps the rounding error below
/// half a step, provided that no product overflows or falls below the normal
/// range. A bf16 tensor, for one, cannot carry 8-bit unsigned values.
static bool isRoundTripExact(QuantizerAttr quantizer, ArrayRef<float> scales,
                             Type floatType) {
  // FP8 values times a scale are not in general exact in the float type.
  if (quantizer.isFloatStorage())
    return false;
  const llvm::fltSemantics &semantics =
      cast<FloatType>(getElementTypeOrSelf(floatType)).getFloatSemantics();
  if (quantizer.getBits() + 1 > llvm::APFloat::semanticsPrecision(semantics))
    return false;
  // Rounded toward zero, so that types wider than double saturate.
  auto toDouble = [](llvm::APFloat value) {
    bool losesInfo;
    value.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmTowardZero,
                  &losesInfo);
    return value.convertToDouble();
  };
  double largest = toDouble(llvm::APFloat::getLargest(semantics));
  double smallest = toDouble(llvm::APFloat::getSmallestNormalized(semantics));
  double span =
      double(quantizer.getStorageMax()) - double(quantizer.getStorageMin());
  return llvm::all_of(scales, [&](float scale) {
    return scale >= smallest && double(scale) * span <= largest;
  });
}

// quantize(dequantize(q)) with the same parameters gives q back exactly when
// the float between them represents every dequantized value well enough and
// q lies in the quantizer's range: with narrow_range, a q of -128 comes back
// as -127, so q must come from a quantizer that never produces it.
OpFoldResult QuantizeOp::fold(FoldAdaptor) {
  auto dequantize = getInput().getDefiningOp<DequantizeOp>();
  if (!dequantize || !haveSameKnownParams(*this, dequantize) ||
      dequantize.getInput().getType() != getType() ||
      !isRoundTripExact(getQuantizer(), *getScale(), getInput().getType()))
    return {};
  if (getQuantizer().getNarrowRange()) {
    auto source = dequantize.getInput().getDefiningOp<QuantizeOp>();
    if (!source || source.getQuantizer().getQMin() < getQuantizer().getQMin())
      return {};
  }
  return dequantize.getInput();
}

// Fake quantization is idempotent: its output already lies on the grid, if
// the float type represents that grid well enough.
OpFoldResult FakeQuantOp::fold(FoldAdaptor) {
  auto inner = getInput().getDefiningOp<FakeQuantOp>();
  if (!inner || !haveSameKnownParams(*this, inner) ||
      !isRoundTripExact(getQuantizer(), *getScale(), getType()))
    return {};
  return getInput();
}

DequantizeOp mlir::quant_qdq::createQDQPair(OpBuilder &builder, Value value,
                                            QuantizerAttr quantizer,
                                            StringRef tag) {
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointAfterValue(value);
  auto type = cast<RankedTensorType>(value.getType());
  Location loc = FusedLoc::get(builder.getContext(), {value.getLoc()},
                               builder.getStringAttr(tag));
  auto quantize =
      QuantizeOp::create(builder, loc, type.clone(quantizer.getStorageType()),
                         value, quantizer, nullptr, nullptr);
  return DequantizeOp::create(builder, loc, type, quantize, quantizer, nullptr,
                              nullptr);
}
