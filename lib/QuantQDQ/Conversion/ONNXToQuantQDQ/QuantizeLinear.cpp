//===- QuantizeLinear.cpp - QuantizeLinear and DequantizeLinear -----------===//
//
// QuantizeLinear -> quantize, DequantizeLinear -> dequantize, with constant
// f32 scales and 8-bit zero points; a vector scale is per axis. The zero
// point's type is the storage type (uint8 without one, as ONNX says): uint8
// storage is an unsigned quantizer, a nonzero zero point an asymmetric one.
// ONNX quantizes over the full storage range, so quantizers are not narrow.
// Storage is signless i8 in MLIR whatever the sign.
//
//===----------------------------------------------------------------------===//

#include "PatternUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>

using namespace mlir;
using namespace mlir::quant_qdq;
using namespace mlir::quant_qdq::onnx_patterns;

static LogicalResult convertQDQ(ONNXNode node, PatternRewriter &rewriter) {
  bool isQuantize = node.getOpType() == "QuantizeLinear";
  MLIRContext *context = rewriter.getContext();
  if (!node.hasInput(0) || !node.hasInput(1))
    return failure();
  Value scaleValue = node.getInput(1);
  ElementsAttr scaleAttr = getConstantAttr(scaleValue);
  std::optional<SmallVector<float>> scales = getConstantFloats(scaleValue);
  if (!scaleAttr || !scales || scales->empty() ||
      !cast<ShapedType>(scaleAttr.getType()).getElementType().isF32() ||
      llvm::any_of(*scales,
                   [](float s) { return !std::isfinite(s) || s <= 0.0f; }))
    return failure();

  bool isSigned = false;
  SmallVector<int64_t> zeroPoints(scales->size(), 0);
  if (Value zp = node.getInput(2)) {
    ElementsAttr zpAttr = getConstantAttr(zp);
    std::optional<SmallVector<int64_t>> zps = getConstantInts(zp);
    if (!zpAttr || !zps || zps->size() != scales->size())
      return failure();
    auto zpType = dyn_cast<IntegerType>(
        cast<ShapedType>(zpAttr.getType()).getElementType());
    if (!zpType || zpType.getWidth() != 8)
      return failure();
    isSigned = !zpType.isUnsigned();
    zeroPoints = *zps;
  }

  // The float side and the storage side.
  Value input = node.getInput(0);
  RankedTensorType floatType, storageType;
  auto i8 = IntegerType::get(context, 8);
  if (isQuantize) {
    floatType = getFloatTensor(input);
    if (!floatType || !floatType.getElementType().isF32())
      return failure();
    storageType = RankedTensorType::get(floatType.getShape(), i8);
  } else if (ElementsAttr constant = getConstantAttr(input)) {
    // Storage read from an initializer is reinterpreted as signless i8, the
    // dialect's storage type; the quantizer remembers the signedness.
    auto type = cast<RankedTensorType>(constant.getType());
    auto intType = dyn_cast<IntegerType>(type.getElementType());
    if (!intType || intType.getWidth() != 8 ||
        intType.isUnsigned() == isSigned)
      return failure();
    storageType = RankedTensorType::get(type.getShape(), i8);
    if (!intType.isSignless())
      input = arith::ConstantOp::create(
          rewriter, input.getLoc(),
          cast<TypedAttr>(retypeConstant(constant, storageType)));
    floatType = RankedTensorType::get(storageType.getShape(),
                                      Float32Type::get(context));
  } else {
    storageType = dyn_cast<RankedTensorType>(input.getType());
    if (!storageType || !storageType.getElementType().isSignlessInteger(8))
      return failure();
    floatType = RankedTensorType::get(storageType.getShape(),
                                      Float32Type::get(context));
  }

  std::optional<int64_t> axis;
  auto scaleType = cast<ShapedType>(scaleAttr.getType());
  if (scaleType.getRank() == 1 &&
      !(scales->size() == 1 && floatType.getRank() == 0)) {
    FailureOr<int64_t> a = node.getInt("axis", 1);
    if (failed(a))
      return failure();
    int64_t rank = floatType.getRank();
    if (*a < -rank || *a >= rank)
      return failure();
    axis = *a < 0 ? *a + rank : *a;
    // A one-element scale along an axis of another size is per tensor.
    if (scales->size() == 1 && floatType.getDimSize(*axis) != 1)
      axis.reset();
  } else if (scaleType.getRank() > 1) {
    return failure();
  }

  bool symmetric =
      isSigned && llvm::all_of(zeroPoints, [](int64_t z) { return z == 0; });
  auto quantizer = QuantizerAttr::get(context, 8, isSigned,
                                      /*narrow_range=*/false, symmetric, axis);
  SmallVector<NamedAttribute> attrs{
      rewriter.getNamedAttr("quantizer", quantizer),
      rewriter.getNamedAttr("scale", rewriter.getDenseF32ArrayAttr(*scales))};
  if (!llvm::all_of(zeroPoints, [](int64_t z) { return z == 0; })) {
    SmallVector<int32_t> zp(zeroPoints.begin(), zeroPoints.end());
    attrs.push_back(
        rewriter.getNamedAttr("zero_point", rewriter.getDenseI32ArrayAttr(zp)));
  }
  StringRef opName = isQuantize ? QuantizeOp::getOperationName()
                                : DequantizeOp::getOperationName();
  return replaceNode(rewriter, node,
                     node.createLayer(rewriter, opName, {input}, attrs,
                                      isQuantize ? storageType : floatType));
}

void onnx_patterns::populateQuantizeLinearPatterns(
    RewritePatternSet &patterns) {
  addConversion<convertQDQ>(patterns, {"QuantizeLinear", "DequantizeLinear"});
}
