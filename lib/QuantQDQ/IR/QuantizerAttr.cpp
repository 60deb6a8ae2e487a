//===- QuantizerAttr.cpp - #quant_qdq.quantizer ---------------------------===//

#include "QuantQDQ/IR/QuantQDQAttrs.h"

using namespace mlir;
using namespace mlir::quant_qdq;

LogicalResult
QuantizerAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      unsigned bits, bool isSigned, bool narrowRange,
                      bool symmetric, std::optional<int64_t> axis,
                      std::optional<CalibrationMethod> calibration) {
  if (bits < 2 || bits > 16)
    return emitError() << "quantizer bit width must be in [2, 16], got "
                       << bits;
  if (axis && *axis < 0)
    return emitError() << "quantizer axis must be non-negative, got "
                       << *axis;
  return success();
}

int64_t QuantizerAttr::getStorageMin() const {
  return getIsSigned() ? -(int64_t(1) << (getBits() - 1)) : 0;
}

int64_t QuantizerAttr::getStorageMax() const {
  return getIsSigned() ? (int64_t(1) << (getBits() - 1)) - 1
                       : (int64_t(1) << getBits()) - 1;
}

int64_t QuantizerAttr::getQMin() const {
  return getStorageMin() + (getNarrowRange() ? 1 : 0);
}

int64_t QuantizerAttr::getQMax() const { return getStorageMax(); }

QuantizerAttr QuantizerAttr::withAxis(std::optional<int64_t> axis) const {
  return get(getContext(), getBits(), getIsSigned(), getNarrowRange(),
             getSymmetric(), axis, getCalibration());
}
