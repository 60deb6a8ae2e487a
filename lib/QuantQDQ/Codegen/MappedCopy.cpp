//===- MappedCopy.cpp - a tensor read through a map into a new one --------===//

#include "MappedCopy.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

Value mlir::quant_qdq::createMappedCopy(OpBuilder &b, Location loc,
                                        Value source, AffineMap read,
                                        ArrayRef<int64_t> shape) {
  Type element = cast<ShapedType>(source.getType()).getElementType();
  Value init = tensor::EmptyOp::create(b, loc, shape, element);
  return linalg::GenericOp::create(
             b, loc, init.getType(), source, init,
             ArrayRef<AffineMap>{read, b.getMultiDimIdentityMap(shape.size())},
             SmallVector<utils::IteratorType>(shape.size(),
                                              utils::IteratorType::parallel),
             [](OpBuilder &nested, Location l, ValueRange args) {
               linalg::YieldOp::create(nested, l, args[0]);
             })
      .getResult(0);
}
