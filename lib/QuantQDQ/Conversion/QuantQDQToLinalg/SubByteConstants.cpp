//===- SubByteConstants.cpp - i4 constants as bytes -----------------------===//
//
// Int4 weights are constants of i4 elements, a byte each (as MLIR's dense
// constants and this project's resource blobs store them). LLVM IR
// translation has no form for such a constant, so after lowering each one
// becomes an i8 constant over the same bytes (a resource is shared, not
// copied) and an element-wise truncation back to i4, which elementwise
// fusion folds into the dequantize that reads it.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "QuantQDQ/Conversion/QuantQDQToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;
using namespace mlir::quant_qdq;

/// The constant `value` of sub-byte integers as i8 (sign-extended), or null
/// when it is neither dense nor a resource.
static ElementsAttr widenToBytes(ElementsAttr value, RankedTensorType i8Type) {
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value))
    return DenseResourceElementsAttr::get(i8Type, resource.getRawHandle());
  if (auto dense = dyn_cast<DenseIntElementsAttr>(value))
    return dense.mapValues(i8Type.getElementType(),
                           [](const APInt &v) { return v.sext(8); });
  return {};
}

void mlir::quant_qdq::widenSubByteConstants(Operation *root) {
  SmallVector<arith::ConstantOp> constants;
  root->walk([&](arith::ConstantOp constant) {
    auto type = dyn_cast<RankedTensorType>(constant.getType());
    auto element = type ? dyn_cast<IntegerType>(type.getElementType())
                        : IntegerType();
    if (element && element.getWidth() > 1 && element.getWidth() < 8 &&
        type.hasStaticShape())
      constants.push_back(constant);
  });
  for (arith::ConstantOp constant : constants) {
    auto type = cast<RankedTensorType>(constant.getType());
    auto i8Type = type.clone(IntegerType::get(constant.getContext(), 8));
    ElementsAttr bytes =
        widenToBytes(cast<ElementsAttr>(constant.getValue()), i8Type);
    if (!bytes)
      continue;
    OpBuilder b(constant);
    Location loc = constant.getLoc();
    auto wide = arith::ConstantOp::create(b, loc, cast<TypedAttr>(bytes));
    Value narrow = buildElementwise(
        b, loc, type, wide.getResult(),
        [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
          return arith::TruncIOp::create(nested, nestedLoc,
                                         type.getElementType(), args[0])
              .getResult();
        });
    constant.getResult().replaceAllUsesWith(narrow);
    constant.erase();
  }
}
