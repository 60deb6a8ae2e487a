//===- LayerConstants.cpp - constants as layers read them -----------------===//

#include "QuantQDQ/IR/LayerConstants.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::quant_qdq;

ElementsAttr mlir::quant_qdq::getConstantAttr(Value v) {
  ElementsAttr attr;
  if (v && matchPattern(v, m_Constant(&attr)))
    return attr;
  return {};
}

ElementsAttr mlir::quant_qdq::retypeConstant(ElementsAttr value,
                                             ShapedType type) {
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (dense.getElementType() != type.getElementType())
      dense = dense.bitcast(type.getElementType());
    return cast<ElementsAttr>(dense.reshape(type));
  }
  auto resource = cast<DenseResourceElementsAttr>(value);
  return cast<ElementsAttr>(
      DenseResourceElementsAttr::get(type, resource.getRawHandle()));
}

Value mlir::quant_qdq::getBiasVector(OpBuilder &builder, Value value,
                                     int64_t units, Type elementType) {
  ElementsAttr attr = getConstantAttr(value);
  if (!attr || !isa<DenseElementsAttr, DenseResourceElementsAttr>(attr))
    return {};
  auto type = cast<ShapedType>(attr.getType());
  if (type.getElementType() != elementType || !type.hasStaticShape() ||
      units == ShapedType::kDynamic || type.getNumElements() != units ||
      type.getRank() < 1 || type.getShape().back() != units)
    return {};
  if (type.getRank() == 1)
    return value;
  auto vectorType = RankedTensorType::get({units}, elementType);
  return arith::ConstantOp::create(
      builder, value.getLoc(),
      cast<TypedAttr>(retypeConstant(attr, vectorType)));
}
