//===- NarrowConstants.cpp - i4 and FP8 constants as bytes ----------------===//
//
// Int4 and FP8 weights are constants of i4 or f8E4M3FN elements, a byte
// each (as MLIR's dense constants and this project's resource blobs store
// them). LLVM IR translation has no form for such constants, so after
// lowering each one becomes an i8 constant over the same bytes (a resource
// is shared, not copied) and an element-wise truncation (i4) or bitcast
// (FP8) back, which elementwise fusion folds into the dequantize that
// reads it.
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

/// Whether LLVM IR translation cannot hold a constant of `element`s.
static bool isNarrow(Type element) {
  if (auto integer = dyn_cast<IntegerType>(element))
    return integer.getWidth() > 1 && integer.getWidth() < 8;
  return isa<Float8E4M3FNType>(element);
}

/// The constant `value` as i8 bytes (sub-byte integers sign-extended), or
/// null when it is neither dense nor a resource.
static ElementsAttr toBytes(ElementsAttr value, RankedTensorType i8Type) {
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value))
    return DenseResourceElementsAttr::get(i8Type, resource.getRawHandle());
  if (auto dense = dyn_cast<DenseIntElementsAttr>(value))
    return dense.mapValues(i8Type.getElementType(),
                           [](const APInt &v) { return v.sext(8); });
  if (auto dense = dyn_cast<DenseFPElementsAttr>(value))
    return dense.mapValues(i8Type.getElementType(), [](const APFloat &v) {
      return v.bitcastToAPInt();
    });
  return {};
}

void mlir::quant_qdq::widenNarrowConstants(Operation *root) {
  SmallVector<arith::ConstantOp> constants;
  root->walk([&](arith::ConstantOp constant) {
    auto type = dyn_cast<RankedTensorType>(constant.getType());
    if (type && type.hasStaticShape() && isNarrow(type.getElementType()))
      constants.push_back(constant);
  });
  for (arith::ConstantOp constant : constants) {
    auto type = cast<RankedTensorType>(constant.getType());
    auto i8Type = type.clone(IntegerType::get(constant.getContext(), 8));
    ElementsAttr bytes =
        toBytes(cast<ElementsAttr>(constant.getValue()), i8Type);
    if (!bytes)
      continue;
    OpBuilder b(constant);
    Location loc = constant.getLoc();
    auto wide = arith::ConstantOp::create(b, loc, cast<TypedAttr>(bytes));
    Type element = type.getElementType();
    Value narrow = buildElementwise(
        b, loc, type, wide.getResult(),
        [&](OpBuilder &nested, Location nestedLoc, ValueRange args) -> Value {
          if (isa<FloatType>(element))
            return arith::BitcastOp::create(nested, nestedLoc, element,
                                            args[0]);
          return arith::TruncIOp::create(nested, nestedLoc, element, args[0]);
        });
    constant.getResult().replaceAllUsesWith(narrow);
    constant.erase();
  }
}
