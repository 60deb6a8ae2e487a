//===- LoweringUtils.cpp - helpers shared by the linalg lowerings ---------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

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

Value mlir::quant_qdq::buildElementwise(
    OpBuilder &b, Location loc, RankedTensorType resultType, ValueRange inputs,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value input : inputs)
    maps.push_back(getBroadcastMap(
        ctx, cast<RankedTensorType>(input.getType()), resultType));
  maps.push_back(b.getMultiDimIdentityMap(resultType.getRank()));
  SmallVector<Value> dynSizes;
  for (int64_t d = 0, rank = resultType.getRank(); d < rank; ++d) {
    if (!resultType.isDynamicDim(d))
      continue;
    for (Value input : inputs) {
      auto type = cast<RankedTensorType>(input.getType());
      int64_t aligned = d - (rank - type.getRank());
      if (aligned >= 0 && type.isDynamicDim(aligned)) {
        dynSizes.push_back(tensor::DimOp::create(b, loc, input, aligned));
        break;
      }
    }
  }
  Value init = createEmpty(b, loc, resultType, dynSizes);
  return linalg::GenericOp::create(
             b, loc, resultType, inputs, init, maps,
             SmallVector<utils::IteratorType>(resultType.getRank(),
                                              utils::IteratorType::parallel),
             [&](OpBuilder &nested, Location l, ValueRange args) {
               linalg::YieldOp::create(nested, l,
                                       body(nested, l, args.drop_back()));
             })
      .getResult(0);
}


static OpFoldResult addSizes(OpBuilder &b, Location loc, OpFoldResult x,
                             OpFoldResult y) {
  std::optional<int64_t> cx = getConstantIntValue(x), cy = getConstantIntValue(y);
  if (cx && cy)
    return b.getIndexAttr(*cx + *cy);
  return arith::AddIOp::create(b, loc,
                               getValueOrCreateConstantIndexOp(b, loc, x),
                               getValueOrCreateConstantIndexOp(b, loc, y))
      .getResult();
}

Value mlir::quant_qdq::buildConcat(OpBuilder &b, Location loc,
                                   RankedTensorType type, ValueRange inputs,
                                   int64_t axis) {
  int64_t rank = type.getRank();
  // Result sizes: the first input's, with the axis summed over inputs.
  SmallVector<OpFoldResult> sizes =
      tensor::getMixedSizes(b, loc, inputs.front());
  OpFoldResult total = b.getIndexAttr(0);
  for (Value input : inputs)
    total = addSizes(b, loc, total, tensor::getMixedSize(b, loc, input, axis));
  sizes[axis] = total;
  SmallVector<Value> dynSizes;
  for (int64_t d = 0; d < rank; ++d)
    if (type.isDynamicDim(d))
      dynSizes.push_back(getValueOrCreateConstantIndexOp(b, loc, sizes[d]));
  Value result = createEmpty(b, loc, type, dynSizes);

  OpFoldResult offset = b.getIndexAttr(0);
  for (Value input : inputs) {
    // An input empty along the axis (ONNX allows one) writes nothing.
    if (cast<RankedTensorType>(input.getType()).getDimSize(axis) == 0)
      continue;
    SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
    offsets[axis] = offset;
    SmallVector<OpFoldResult> inputSizes = tensor::getMixedSizes(b, loc, input);
    SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
    result = tensor::InsertSliceOp::create(b, loc, input, result, offsets,
                                           inputSizes, strides);
    offset = addSizes(b, loc, offset, inputSizes[axis]);
  }
  return result;
}

Value mlir::quant_qdq::reshapeStatic(OpBuilder &b, Location loc, Value value,
                                     RankedTensorType type) {
  auto source = cast<RankedTensorType>(value.getType());
  if (source.getShape() == type.getShape())
    return value;
  auto flatType = RankedTensorType::get({source.getNumElements()},
                                        source.getElementType());
  auto all = [](int64_t rank) {
    ReassociationIndices dims;
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(d);
    return SmallVector<ReassociationIndices>{dims};
  };
  // Through one dimension: a rank-0 tensor expands to it and collapses from
  // it with no reassociation groups at all.
  Value flat = value;
  if (source.getRank() == 0)
    flat = tensor::ExpandShapeOp::create(b, loc, flatType, value,
                                         SmallVector<ReassociationIndices>{});
  else if (source.getRank() > 1)
    flat = tensor::CollapseShapeOp::create(b, loc, value, all(source.getRank()));
  if (type.getRank() == 0)
    return tensor::CollapseShapeOp::create(
        b, loc, type, flat, SmallVector<ReassociationIndices>{});
  if (type.getRank() == 1)
    return flat;
  return tensor::ExpandShapeOp::create(b, loc, type, flat, all(type.getRank()));
}
