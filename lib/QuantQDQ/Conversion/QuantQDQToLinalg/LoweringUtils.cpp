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

/// Splits a reshape of `source` into `target` (the same element count, both
/// of rank 1 or more) into groups of consecutive dimensions with equal
/// products, as fine as they come: [197, 6, 4] to [197, 4, 6] is
/// {197 | 197} and {6, 4 | 4, 6}. Unit dimensions past the last group join
/// it; a dynamic or zero size makes one group of all dimensions. Returns
/// the source's groups and the target's.
static std::pair<SmallVector<ReassociationIndices>,
                 SmallVector<ReassociationIndices>>
getReshapeGroups(ArrayRef<int64_t> source, ArrayRef<int64_t> target) {
  SmallVector<ReassociationIndices> from, to;
  int64_t i = 0, j = 0;
  int64_t n = source.size(), m = target.size();
  // An empty tensor (products of 0 match anywhere), or a size known only at
  // run time: one group of all dimensions.
  auto unsplittable = [](ArrayRef<int64_t> shape) {
    return llvm::any_of(
        shape, [](int64_t d) { return d == 0 || ShapedType::isDynamic(d); });
  };
  if (unsplittable(source) || unsplittable(target)) {
    from.emplace_back(llvm::to_vector(llvm::seq<int64_t>(0, n)));
    to.emplace_back(llvm::to_vector(llvm::seq<int64_t>(0, m)));
    return {from, to};
  }
  while (i < n && j < m) {
    ReassociationIndices sourceGroup = {i}, targetGroup = {j};
    int64_t sourceProduct = source[i++], targetProduct = target[j++];
    while (sourceProduct != targetProduct && (i < n || j < m)) {
      if (j == m || (sourceProduct < targetProduct && i < n)) {
        sourceGroup.push_back(i);
        sourceProduct *= source[i++];
      } else {
        targetGroup.push_back(j);
        targetProduct *= target[j++];
      }
    }
    from.push_back(sourceGroup);
    to.push_back(targetGroup);
  }
  for (; i < n; ++i)
    from.back().push_back(i);
  for (; j < m; ++j)
    to.back().push_back(j);
  return {from, to};
}

/// The finest shape both `source` and `target` (static, positive, the same
/// element count) are groups of: [2, 768] and [24, 64] are both groups of
/// [2, 12, 64]. Fills, per dimension of each, the dimensions of that shape
/// it is made of. None where the factors do not nest ([6, 4] and [4, 6]).
static std::optional<SmallVector<int64_t>>
getCommonRefinement(ArrayRef<int64_t> source, ArrayRef<int64_t> target,
                    SmallVector<ReassociationIndices> &sourceGroups,
                    SmallVector<ReassociationIndices> &targetGroups) {
  SmallVector<int64_t> refined;
  sourceGroups.assign(source.size(), {});
  targetGroups.assign(target.size(), {});
  size_t i = 0, j = 0;
  int64_t restOfSource = source[0], restOfTarget = target[0];
  while (i < source.size() && j < target.size()) {
    int64_t piece;
    if (restOfSource % restOfTarget == 0)
      piece = restOfTarget;
    else if (restOfTarget % restOfSource == 0)
      piece = restOfSource;
    else
      return std::nullopt;
    sourceGroups[i].push_back(refined.size());
    targetGroups[j].push_back(refined.size());
    refined.push_back(piece);
    restOfSource /= piece;
    restOfTarget /= piece;
    if (restOfSource == 1 && ++i < source.size())
      restOfSource = source[i];
    if (restOfTarget == 1 && ++j < target.size())
      restOfTarget = target[j];
  }
  // Unit dimensions left at the end of one shape: a unit piece each, which
  // the other shape's last dimension takes in too.
  for (; i < source.size(); ++i) {
    sourceGroups[i].push_back(refined.size());
    targetGroups.back().push_back(refined.size());
    refined.push_back(1);
  }
  for (; j < target.size(); ++j) {
    targetGroups[j].push_back(refined.size());
    sourceGroups.back().push_back(refined.size());
    refined.push_back(1);
  }
  // Every dimension took a piece: the walk leaves one only once it is
  // used up, and the loops above take the ones it did not reach.
  return refined;
}

Value mlir::quant_qdq::reshapeStatic(OpBuilder &b, Location loc, Value value,
                                     RankedTensorType type) {
  auto source = cast<RankedTensorType>(value.getType());
  if (source.getShape() == type.getShape())
    return value;
  // To or from rank 0: through one dimension, which a rank-0 tensor
  // expands to and collapses from with no reassociation groups at all.
  if (source.getRank() == 0 || type.getRank() == 0) {
    auto oneType = RankedTensorType::get({1}, source.getElementType());
    Value one =
        source.getRank() == 0
            ? Value(tensor::ExpandShapeOp::create(
                  b, loc, oneType, value, SmallVector<ReassociationIndices>{}))
            : reshapeStatic(b, loc, value, oneType);
    return type.getRank() == 0
               ? Value(tensor::CollapseShapeOp::create(
                     b, loc, type, one, SmallVector<ReassociationIndices>{}))
               : reshapeStatic(b, loc, one, type);
  }
  // Where both shapes are groups of a finer one, expand to it and collapse
  // from it: a head split of a strided slice ([197, 2, 768] of a fused
  // Q/K/V projection, to [197, 24, 64]) is a view expanded to
  // [197, 2, 12, 64], and the collapse that cannot be a view of it then
  // folds into its consumer (a transpose) instead of forcing a copy.
  if (source.hasStaticShape() && type.hasStaticShape() &&
      source.getNumElements() > 0) {
    SmallVector<ReassociationIndices> expandGroups, collapseGroups;
    if (std::optional<SmallVector<int64_t>> refined = getCommonRefinement(
            source.getShape(), type.getShape(), expandGroups, collapseGroups)) {
      Value expanded = value;
      if (refined->size() != size_t(source.getRank()))
        expanded = tensor::ExpandShapeOp::create(
            b, loc, RankedTensorType::get(*refined, source.getElementType()),
            value, expandGroups);
      if (refined->size() == size_t(type.getRank()))
        return expanded;
      return tensor::CollapseShapeOp::create(b, loc, type, expanded,
                                             collapseGroups);
    }
  }
  // Otherwise (factors that do not nest, a dynamic or zero size) each group
  // collapses to one dimension and expands to its target: only the
  // dimensions that change are merged, so that the others of a strided
  // buffer's view stay apart rather than flattened whole with a copy.
  auto [from, to] = getReshapeGroups(source.getShape(), type.getShape());
  SmallVector<int64_t> middle;
  for (const ReassociationIndices &group : from) {
    int64_t product = 1;
    for (int64_t d : group)
      product = source.isDynamicDim(d) || ShapedType::isDynamic(product)
                    ? ShapedType::kDynamic
                    : product * source.getDimSize(d);
    middle.push_back(product);
  }
  Value merged = value;
  if (from.size() != size_t(source.getRank()))
    merged = tensor::CollapseShapeOp::create(
        b, loc, RankedTensorType::get(middle, source.getElementType()), value,
        from);
  if (to.size() == size_t(type.getRank()))
    return merged;
  return tensor::ExpandShapeOp::create(b, loc, type, merged, to);
}
