//===- ContiguousBuffers.cpp - buffers a vector loop may walk -------------===//

#include "ContiguousBuffers.h"

using namespace mlir;

bool mlir::quant_qdq::hasUnitInnerStride(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  return type.getRank() > 0 &&
         succeeded(type.getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
}

bool mlir::quant_qdq::isContiguousF32Buffer(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  return type && type.hasStaticShape() && type.getElementType().isF32() &&
         hasUnitInnerStride(type);
}
