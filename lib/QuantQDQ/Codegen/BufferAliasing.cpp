//===- BufferAliasing.cpp - which buffers may share memory ----------------===//

#include "BufferAliasing.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::quant_qdq;

Value mlir::quant_qdq::getBaseBuffer(Value buffer) {
  while (auto view = buffer.getDefiningOp<ViewLikeOpInterface>())
    buffer = view.getViewSource();
  return buffer;
}

/// Whether `buffer` is allocated where it is defined.
static bool isAllocated(Value buffer) {
  return buffer.getDefiningOp<memref::AllocOp>() ||
         buffer.getDefiningOp<memref::AllocaOp>();
}

BlockArgument mlir::quant_qdq::getFunctionArgument(Value buffer) {
  auto argument = dyn_cast<BlockArgument>(buffer);
  if (!argument)
    return nullptr;
  auto func = dyn_cast<func::FuncOp>(argument.getOwner()->getParentOp());
  return func && argument.getOwner() == &func.getBody().front() ? argument
                                                                : nullptr;
}

bool mlir::quant_qdq::areAllocatedApart(Value a, Value b) {
  auto isKnown = [](Value buffer) {
    return isAllocated(buffer) || getFunctionArgument(buffer) ||
           buffer.getDefiningOp<memref::GetGlobalOp>();
  };
  return a != b &&
         ((isAllocated(a) && isKnown(b)) || (isAllocated(b) && isKnown(a)));
}

/// The box of `buffer` in its base's own indices: through casts and
/// subviews only, whose indices are the base's shifted.
static std::optional<BufferBox> getIndexedBox(Value buffer) {
  if (auto cast = buffer.getDefiningOp<memref::CastOp>())
    return getIndexedBox(cast.getSource());
  if (auto subview = buffer.getDefiningOp<memref::SubViewOp>()) {
    std::optional<BufferBox> box = getIndexedBox(subview.getSource());
    ArrayRef<int64_t> offsets = subview.getStaticOffsets(),
                      sizes = subview.getStaticSizes(),
                      strides = subview.getStaticStrides();
    if (!box ||
        subview.getType().getRank() != subview.getSourceType().getRank() ||
        llvm::any_of(offsets, ShapedType::isDynamic) ||
        llvm::any_of(sizes, ShapedType::isDynamic) ||
        llvm::any_of(strides, [](int64_t s) { return s != 1; }))
      return std::nullopt;
    for (auto [i, offset] : llvm::enumerate(offsets)) {
      box->begin[i] += offset;
      box->end[i] = box->begin[i] + sizes[i];
    }
    return box;
  }
  if (buffer.getDefiningOp<ViewLikeOpInterface>())
    return std::nullopt;
  auto type = dyn_cast<MemRefType>(buffer.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  return BufferBox{buffer, SmallVector<int64_t>(type.getRank(), 0),
                   llvm::to_vector(type.getShape())};
}

std::optional<BufferBox> mlir::quant_qdq::getBufferBox(Value buffer) {
  // A reshape covers its source's elements, in indices of its own.
  while (isa_and_nonnull<memref::ExpandShapeOp, memref::CollapseShapeOp>(
      buffer.getDefiningOp()))
    buffer = buffer.getDefiningOp()->getOperand(0);
  return getIndexedBox(buffer);
}

bool mlir::quant_qdq::areBoxesApart(const BufferBox &a, const BufferBox &b) {
  if (a.base != b.base)
    return areAllocatedApart(a.base, b.base);
  for (auto [beginA, endA, beginB, endB] :
       llvm::zip_equal(a.begin, a.end, b.begin, b.end))
    if (endA <= beginB || endB <= beginA)
      return true;
  return false;
}
