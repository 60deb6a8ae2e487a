//===- QuantizerAttr.cpp - #quant_qdq.quantizer ---------------------------===//

#include "QuantQDQ/IR/QuantQDQAttrs.h"

#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::quant_qdq;

LogicalResult
QuantizerAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      unsigned bits, bool isSigned, bool narrowRange,
                      bool symmetric, std::optional<int64_t> axis,
                      std::optional<CalibrationMethod> calibration,
                      std::optional<int64_t> blockSize,
                      StorageFormat storage) {
  if (bits < 2 || bits > 16)
    return emitError() << "quantizer bit width must be in [2, 16], got "
                       << bits;
  if (axis && *axis < 0)
    return emitError() << "quantizer axis must be non-negative, got "
                       << *axis;
  if (blockSize && *blockSize <= 0)
    return emitError() << "quantizer block size must be positive, got "
                       << *blockSize;
  if (blockSize && !axis)
    return emitError() << "a quantizer with a block size needs an axis";
  if (storage == StorageFormat::E4M3FN &&
      (bits != 8 || !symmetric || !isSigned))
    return emitError() << "an e4m3fn quantizer is 8-bit, signed and "
                          "symmetric";
  return success();
}

/// The largest finite FP8 E4M3FN value: 1.75 * 2^8.
static constexpr int64_t kE4M3FNMax = 448;

int64_t QuantizerAttr::getStorageMin() const {
  if (isFloatStorage())
    return -kE4M3FNMax;
  return getIsSigned() ? -(int64_t(1) << (getBits() - 1)) : 0;
}

int64_t QuantizerAttr::getStorageMax() const {
  if (isFloatStorage())
    return kE4M3FNMax;
  return getIsSigned() ? (int64_t(1) << (getBits() - 1)) - 1
                       : (int64_t(1) << getBits()) - 1;
}

int64_t QuantizerAttr::getQMin() const {
  if (isFloatStorage())
    return -kE4M3FNMax;
  return getStorageMin() + (getNarrowRange() ? 1 : 0);
}

Type QuantizerAttr::getStorageType() const {
  if (isFloatStorage())
    return Float8E4M3FNType::get(getContext());
  return IntegerType::get(getContext(), getBits());
}

int64_t QuantizerAttr::getQMax() const { return getStorageMax(); }

QuantizerAttr QuantizerAttr::withAxis(std::optional<int64_t> axis) const {
  return get(getContext(), getBits(), getIsSigned(), getNarrowRange(),
             getSymmetric(), axis, getCalibration(), std::nullopt,
             getStorage());
}

QuantizerAttr QuantizerAttr::withBlocks(int64_t axis,
                                        int64_t blockSize) const {
  return get(getContext(), getBits(), getIsSigned(), getNarrowRange(),
             getSymmetric(), axis, getCalibration(), blockSize, getStorage());
}

SmallVector<int64_t>
QuantizerAttr::getScaleShape(ArrayRef<int64_t> shape) const {
  std::optional<int64_t> axis = getAxis();
  if (!axis)
    return {};
  int64_t size = shape[*axis];
  if (!isBlocked())
    return {size};
  SmallVector<int64_t> scaleShape(shape);
  if (!ShapedType::isDynamic(size))
    scaleShape[*axis] = llvm::divideCeil(size, *getBlockSize());
  return scaleShape;
}
