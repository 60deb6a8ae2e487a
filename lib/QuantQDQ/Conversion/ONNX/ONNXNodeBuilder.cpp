//===- ONNXNodeBuilder.cpp - the ONNX nodes that stand for one op ---------===//

#include "PatternUtils.h"
#include "QuantQDQ/Utils/TensorNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::quant_qdq;
using namespace mlir::quant_qdq::onnx_patterns;

ONNXNodeBuilder::ONNXNodeBuilder(PatternRewriter &rewriter, Operation *source)
    : rewriter(rewriter), source(source) {
  if (auto layer = dyn_cast<QDQLayerOpInterface>(source))
    layerName = layer.getLayerName().str();
  baseName =
      layerName.empty() ? getLocationName(source->getLoc()).str() : layerName;
}

int64_t ONNXNodeBuilder::getOpset() const {
  return getDefaultDomainOpset(source);
}

Location ONNXNodeBuilder::getLocation(StringRef suffix) const {
  if (suffix.empty() || baseName.empty())
    return source->getLoc();
  return NameLoc::get(rewriter.getStringAttr(baseName + "_" + suffix),
                      source->getLoc());
}

Value ONNXNodeBuilder::create(StringRef opType, ValueRange inputs,
                              Type resultType,
                              ArrayRef<NamedAttribute> attributes,
                              StringRef suffix) {
  // Only a layer's own node carries a name attribute (a layer name, which
  // export gives to that node alone); other nodes carry theirs in their
  // location, and export makes it unique.
  StringAttr name = suffix.empty() && !layerName.empty()
                        ? rewriter.getStringAttr(layerName)
                        : StringAttr();
  DictionaryAttr attrs = attributes.empty()
                             ? DictionaryAttr()
                             : rewriter.getDictionaryAttr(attributes);
  auto node = GenericOp::create(rewriter, getLocation(suffix),
                                TypeRange{resultType}, inputs,
                                rewriter.getStringAttr(opType), name,
                                /*domain=*/StringAttr(), attrs);
  return node.getResult(0);
}

LogicalResult
ONNXNodeBuilder::replaceWith(StringRef opType, ValueRange inputs,
                             ArrayRef<NamedAttribute> attributes) {
  return replaceWithValue(create(opType, inputs,
                                 source->getResult(0).getType(), attributes));
}

LogicalResult ONNXNodeBuilder::replaceWithValue(Value value) {
  // The node computing the result takes over its tensor name.
  if (auto names = source->getAttrOfType<ArrayAttr>(kResultNamesAttr))
    value.getDefiningOp()->setAttr(kResultNamesAttr, names);
  rewriter.replaceOp(source, value);
  return success();
}

LogicalResult ONNXNodeBuilder::forward(Value input) {
  rewriter.replaceOp(source, input);
  return success();
}

/// `loc` without the names it carries, which would otherwise name an
/// initializer after a node.
static Location withoutNames(Location loc) {
  if (auto named = dyn_cast<NameLoc>(loc))
    return withoutNames(named.getChildLoc());
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    SmallVector<Location> parts;
    for (Location part : fused.getLocations())
      parts.push_back(withoutNames(part));
    return FusedLoc::get(loc.getContext(), parts, fused.getMetadata());
  }
  return loc;
}

Value ONNXNodeBuilder::createConstant(TypedAttr value, StringRef suffix) {
  if (suffix.empty() || baseName.empty())
    return createNamedConstant(value, {});
  return createNamedConstant(value, baseName + "_" + suffix.str());
}

Value ONNXNodeBuilder::createNamedConstant(TypedAttr value, StringRef name) {
  Location loc = withoutNames(source->getLoc());
  if (!name.empty())
    loc = NameLoc::get(rewriter.getStringAttr(name), loc);
  return arith::ConstantOp::create(rewriter, loc, value);
}

Value ONNXNodeBuilder::createScalar(double value, Type elementType,
                                    StringRef suffix) {
  auto type = RankedTensorType::get({}, elementType);
  return createConstant(
      DenseElementsAttr::get(type, rewriter.getFloatAttr(elementType, value)),
      suffix);
}

Value ONNXNodeBuilder::createInt64s(ArrayRef<int64_t> values,
                                    StringRef suffix) {
  auto type =
      RankedTensorType::get({int64_t(values.size())}, rewriter.getI64Type());
  return createConstant(DenseElementsAttr::get(type, values), suffix);
}

NamedAttribute ONNXNodeBuilder::getIntAttr(StringRef name,
                                           int64_t value) const {
  return rewriter.getNamedAttr(name, rewriter.getI64IntegerAttr(value));
}

NamedAttribute ONNXNodeBuilder::getFloatAttr(StringRef name,
                                             double value) const {
  return rewriter.getNamedAttr(name, rewriter.getF32FloatAttr(value));
}

NamedAttribute ONNXNodeBuilder::getStringAttr(StringRef name,
                                              StringRef value) const {
  return rewriter.getNamedAttr(name, rewriter.getStringAttr(value));
}

NamedAttribute ONNXNodeBuilder::getIntsAttr(StringRef name,
                                            ArrayRef<int64_t> value) const {
  return rewriter.getNamedAttr(name, rewriter.getDenseI64ArrayAttr(value));
}
