//===- LoweringUtils.cpp - helpers shared by the linalg lowerings ---------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::quant_qdq;

SmallVector<Value> mlir::quant_qdq::getDynamicSizes(OpBuilder &b, Location loc,
                                                    Value value,
                                                    RankedTensorType type,
                                                    ArrayRef<int64_t> sourceDims) {
  SmallVector<Value> sizes;
  for (int64_t d = 0, e = type.getRank(); d < e; ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(tensor::DimOp::create(
          b, loc, value, sourceDims.empty() ? d : sourceDims[d]));
  return sizes;
}

Value mlir::quant_qdq::createEmpty(OpBuilder &b, Location loc,
                                   RankedTensorType type, ValueRange dynSizes) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType(), dynSizes);
}

Value mlir::quant_qdq::createFilled(OpBuilder &b, Location loc,
                                    RankedTensorType type, ValueRange dynSizes,
                                    TypedAttr fill) {
  Value empty = createEmpty(b, loc, type, dynSizes);
  Value scalar = arith::ConstantOp::create(b, loc, fill);
  return linalg::FillOp::create(b, loc, scalar, empty).getResult(0);
}

AffineMap mlir::quant_qdq::getBroadcastMap(MLIRContext *ctx,
                                           RankedTensorType operand,
                                           RankedTensorType result) {
  int64_t offset = result.getRank() - operand.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0, e = operand.getRank(); d < e; ++d) {
    bool broadcast = operand.getDimSize(d) == 1 &&
                     result.getDimSize(d + offset) != 1;
    exprs.push_back(broadcast ? getAffineConstantExpr(0, ctx)
                              : getAffineDimExpr(d + offset, ctx));
  }
  return AffineMap::get(result.getRank(), 0, exprs, ctx);
}

Value mlir::quant_qdq::padTensor(OpBuilder &b, Location loc, Value input,
                                 ArrayRef<int64_t> low, ArrayRef<int64_t> high,
                                 Attribute value) {
  if (llvm::all_of(low, [](int64_t v) { return v == 0; }) &&
      llvm::all_of(high, [](int64_t v) { return v == 0; }))
    return input;
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape(type.getShape());
  for (size_t d = 0; d < shape.size(); ++d)
    if (!ShapedType::isDynamic(shape[d]))
      shape[d] += low[d] + high[d];
  auto padded = RankedTensorType::get(shape, type.getElementType());
  Value padValue = arith::ConstantOp::create(b, loc, cast<TypedAttr>(value));
  SmallVector<OpFoldResult> lowOfr, highOfr;
  for (size_t d = 0; d < low.size(); ++d) {
    lowOfr.push_back(b.getIndexAttr(low[d]));
    highOfr.push_back(b.getIndexAttr(high[d]));
  }
  return tensor::PadOp::create(b, loc, padded, input, lowOfr, highOfr,
                               padValue);
}

Value mlir::quant_qdq::floatConstant(OpBuilder &b, Location loc, Type type,
                                     double value) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
}

FloatAttr mlir::quant_qdq::getNegativeInfinity(OpBuilder &b, Type element) {
  return b.getFloatAttr(
      element, APFloat::getInf(cast<FloatType>(element).getFloatSemantics(),
                               /*Negative=*/true));
}
