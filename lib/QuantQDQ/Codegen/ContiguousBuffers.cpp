//===- ContiguousBuffers.cpp - buffers a vector loop may walk -------------===//

#include "ContiguousBuffers.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

bool mlir::quant_qdq::isContiguousF32Buffer(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isF32() ||
      type.getRank() == 0)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(type.getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
}
