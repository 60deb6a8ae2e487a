//===- ONNXDataMovementToLinalg.cpp - ONNX nodes that move data -----------===//
//
// Reshapes become views (tensor.collapse_shape / expand_shape), slices
// tensor.extract_slice, concatenation insert_slices, and the index-driven
// nodes (Gather, Tile, Range, Resize, negative-step Slice) linalg.generic
// bodies that compute their source index. Indices read from data are clamped into
// range: a bad index gives a wrong element, never a wild read.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "ONNXNodeLowering.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::quant_qdq;

static SmallVector<utils::IteratorType> parallel(int64_t rank) {
  return SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel);
}

/// `index` (any integer type) as an index into a dimension of `size`:
/// negative values count from the end, and the result is clamped to
/// [0, size - 1].
static Value toDimIndex(OpBuilder &b, Location loc, Value index,
                        int64_t size) {
  Value i = arith::IndexCastOp::create(b, loc, b.getIndexType(), index);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value n = arith::ConstantIndexOp::create(b, loc, size);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, zero);
  i = arith::SelectOp::create(b, loc, negative,
                              arith::AddIOp::create(b, loc, i, n), i);
  i = arith::MaxSIOp::create(b, loc, i, zero);
  return arith::MinSIOp::create(
      b, loc, i, arith::ConstantIndexOp::create(b, loc, size - 1));
}

/// A linalg.generic with no inputs that yields, for each result index,
/// `body(indices)`.
static Value buildIndexed(
    OpBuilder &b, Location loc, RankedTensorType type,
    function_ref<Value(OpBuilder &, Location, ArrayRef<Value>)> body) {
  int64_t rank = type.getRank();
  Value init = createEmpty(b, loc, type, {});
  return linalg::GenericOp::create(
             b, loc, type, ValueRange{}, init,
             SmallVector<AffineMap>{b.getMultiDimIdentityMap(rank)},
             parallel(rank),
             [&](OpBuilder &nested, Location l, ValueRange) {
               SmallVector<Value> indices;
               for (int64_t d = 0; d < rank; ++d)
                 indices.push_back(linalg::IndexOp::create(nested, l, d));
               linalg::YieldOp::create(nested, l, body(nested, l, indices));
             })
      .getResult(0);
}

static LogicalResult lowerForward(ONNXNode node, PatternRewriter &rewriter) {
  // Identity, and Dropout at inference (its mask output unread).
  GenericOp op = node.getOp();
  if (!node.onlyFirstOutputUsed())
    return node.emitError() << "its mask output cannot be executed";
  SmallVector<Value> results(op->getNumResults(), op.getInputs().front());
  for (unsigned i = 1; i < results.size(); ++i)
    results[i] = createEmpty(rewriter, op.getLoc(),
                             getStaticResultType(node, i), {});
  rewriter.replaceOp(op, results);
  return success();
}

static LogicalResult lowerReshape(ONNXNode node, PatternRewriter &rewriter) {
  // Reshape, Flatten, Squeeze, Unsqueeze: the inferred static result type
  // says it all.
  GenericOp op = node.getOp();
  Value input = op.getInputs().front();
  RankedTensorType type = getStaticResultType(node);
  auto inputType = cast<RankedTensorType>(input.getType());
  if (!inputType.hasStaticShape() ||
      inputType.getNumElements() != type.getNumElements())
    return node.emitError() << "cannot reshape " << inputType << " to "
                            << type;
  rewriter.replaceOp(op, reshapeStatic(rewriter, op.getLoc(), input, type));
  return success();
}

static LogicalResult lowerTranspose(ONNXNode node,
                                    PatternRewriter &rewriter) {
  GenericOp op = node.getOp();
  Value input = op.getInputs().front();
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  FailureOr<std::optional<SmallVector<int64_t>>> perm = node.getInts("perm");
  if (failed(perm))
    return failure();
  SmallVector<int64_t> permutation;
  if (*perm)
    permutation = **perm;
  else
    for (int64_t d = rank - 1; d >= 0; --d)
      permutation.push_back(d);
  RankedTensorType type = getStaticResultType(node);
  Value init = createEmpty(rewriter, op.getLoc(), type, {});
  rewriter.replaceOp(op, linalg::TransposeOp::create(rewriter, op.getLoc(),
                                                     input, init, permutation)
                             .getResult());
  return success();
}

static LogicalResult lowerConcat(ONNXNode node, PatternRewriter &rewriter) {
  GenericOp op = node.getOp();
  RankedTensorType type = getStaticResultType(node);
  FailureOr<int64_t> axis = node.getInt("axis", 0);
  if (failed(axis))
    return failure();
  rewriter.replaceOp(op, buildConcat(rewriter, op.getLoc(), type,
                                     op.getInputs(),
                                     normalizeAxis(*axis, type.getRank())));
  return success();
}

namespace {
/// Per input dimension, the first index read, the step and the count.
struct SliceBounds {
  SmallVector<int64_t> first, step, count;
};
} // namespace

static FailureOr<SliceBounds> getSliceBounds(ONNXNode node,
                                             RankedTensorType type) {
  int64_t rank = type.getRank();
  SmallVector<int64_t> starts, ends, axes, steps;
  if (node.getNumInputs() >= 3) {
    FailureOr<SmallVector<int64_t>> s = getConstantIntInput(node, 1, "starts");
    FailureOr<SmallVector<int64_t>> e = getConstantIntInput(node, 2, "ends");
    if (failed(s) || failed(e))
      return failure();
    starts = *s;
    ends = *e;
    if (node.hasInput(3)) {
      FailureOr<SmallVector<int64_t>> a = getConstantIntInput(node, 3, "axes");
      if (failed(a))
        return failure();
      axes = *a;
    }
    if (node.hasInput(4)) {
      FailureOr<SmallVector<int64_t>> st =
          getConstantIntInput(node, 4, "steps");
      if (failed(st))
        return failure();
      steps = *st;
    }
  } else {
    FailureOr<std::optional<SmallVector<int64_t>>> s = node.getInts("starts"),
                                                   e = node.getInts("ends"),
                                                   a = node.getInts("axes");
    if (failed(s) || failed(e) || failed(a) || !*s || !*e)
      return node.emitError() << "expects 'starts' and 'ends'";
    starts = **s;
    ends = **e;
    if (*a)
      axes = **a;
  }
  if (axes.empty())
    for (int64_t d = 0; d < int64_t(starts.size()); ++d)
      axes.push_back(d);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    return node.emitError() << "starts, ends, axes and steps differ in length";

  SliceBounds bounds{SmallVector<int64_t>(rank, 0),
                     SmallVector<int64_t>(rank, 1),
                     SmallVector<int64_t>(type.getShape())};
  for (auto [start, end, axis, step] : llvm::zip(starts, ends, axes, steps)) {
    if (axis < -rank || axis >= rank || step == 0)
      return node.emitError() << "axis " << axis << " or step " << step
                              << " out of range";
    int64_t d = axis < 0 ? axis + rank : axis;
    int64_t n = type.getDimSize(d);
    auto clampIndex = [&](int64_t i, int64_t lo, int64_t hi) {
      if (i < 0)
        i = i < -n ? lo : i + n;
      return std::clamp<int64_t>(i, lo, hi);
    };
    int64_t b = step > 0 ? clampIndex(start, 0, n) : clampIndex(start, -1, n - 1);
    int64_t e = step > 0 ? clampIndex(end, 0, n) : clampIndex(end, -1, n - 1);
    bounds.first[d] = b;
    bounds.step[d] = step;
    bounds.count[d] = step > 0 ? std::max<int64_t>(0, (e - b + step - 1) / step)
                               : std::max<int64_t>(0, (b - e - step - 1) / -step);
  }
  return bounds;
}

static LogicalResult lowerSlice(ONNXNode node, PatternRewriter &rewriter) {
  GenericOp op = node.getOp();
  Location loc = op.getLoc();
  Value input = op.getInputs().front();
  auto inputType = cast<RankedTensorType>(input.getType());
  RankedTensorType type = getStaticResultType(node);
  FailureOr<SliceBounds> bounds = getSliceBounds(node, inputType);
  if (failed(bounds))
    return failure();
  if (ArrayRef<int64_t>(bounds->count) != type.getShape())
    return node.emitError() << "the slice has shape ("
                            << llvm::make_range(bounds->count.begin(),
                                                bounds->count.end())
                            << ") but its result type is " << type;
  if (type.getNumElements() == 0) {
    rewriter.replaceOp(op, createEmpty(rewriter, loc, type, {}));
    return success();
  }
  if (llvm::all_of(bounds->step, [](int64_t s) { return s > 0; })) {
    MLIRContext *ctx = rewriter.getContext();
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, type, input, getAsIndexOpFoldResult(ctx, bounds->first),
        getAsIndexOpFoldResult(ctx, bounds->count),
        getAsIndexOpFoldResult(ctx, bounds->step));
    return success();
  }
  // A negative step: read first + i * step, an affine map of the result
  // index.
  MLIRContext *ctx = rewriter.getContext();
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < type.getRank(); ++d)
    exprs.push_back(getAffineDimExpr(d, ctx) * bounds->step[d] +
                    bounds->first[d]);
  Value init = createEmpty(rewriter, loc, type, {});
  auto generic = linalg::GenericOp::create(
      rewriter, loc, type, input, init,
      SmallVector<AffineMap>{AffineMap::get(type.getRank(), 0, exprs, ctx),
                             rewriter.getMultiDimIdentityMap(type.getRank())},
      parallel(type.getRank()),
      [](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(b, l, args[0]);
      });
  rewriter.replaceOp(op, generic.getResults());
  return success();
}

/// out[a..., i..., b...] = data[a..., indices[i...], b...].
static LogicalResult lowerGather(ONNXNode node, PatternRewriter &rewriter) {
  GenericOp op = node.getOp();
  Value data = node.getInput(0), indices = node.getInput(1);
  auto dataType = cast<RankedTensorType>(data.getType());
  auto indicesType = cast<RankedTensorType>(indices.getType());
  RankedTensorType type = getStaticResultType(node);
  FailureOr<int64_t> axisAttr = node.getInt("axis", 0);
  if (failed(axisAttr))
    return failure();
  int64_t axis = normalizeAxis(*axisAttr, dataType.getRank());
  int64_t indexRank = indicesType.getRank();
  int64_t rank = type.getRank();
  MLIRContext *ctx = rewriter.getContext();
  SmallVector<AffineExpr> indexExprs;
  for (int64_t d = 0; d < indexRank; ++d)
    indexExprs.push_back(getAffineDimExpr(axis + d, ctx));
  Value init = createEmpty(rewriter, op.getLoc(), type, {});
  auto generic = linalg::GenericOp::create(
      rewriter, op.getLoc(), type, indices, init,
      SmallVector<AffineMap>{AffineMap::get(rank, 0, indexExprs, ctx),
                             rewriter.getMultiDimIdentityMap(rank)},
      parallel(rank), [&](OpBuilder &b, Location l, ValueRange args) {
        SmallVector<Value> at;
        for (int64_t d = 0; d < axis; ++d)
          at.push_back(linalg::IndexOp::create(b, l, d));
        at.push_back(toDimIndex(b, l, args[0], dataType.getDimSize(axis)));
        for (int64_t d = axis + indexRank; d < rank; ++d)
          at.push_back(linalg::IndexOp::create(b, l, d));
        linalg::YieldOp::create(
            b, l, Value(tensor::ExtractOp::create(b, l, data, at)));
      });
  rewriter.replaceOp(op, generic.getResults());
  return success();
}

/// out[i...] = data[i... with the axis index replaced by indices[i...]]:
/// position builders and top-k selections gather this way.
static LogicalResult lowerGatherElements(ONNXNode node,
                                         PatternRewriter &rewriter) {
  GenericOp op = node.getOp();
  Value data = node.getInput(0), indices = node.getInput(1);
  auto dataType = cast<RankedTensorType>(data.getType());
  RankedTensorType type = getStaticResultType(node);
  FailureOr<int64_t> axisAttr = node.getInt("axis", 0);
  if (failed(axisAttr))
    return failure();
  int64_t axis = normalizeAxis(*axisAttr, dataType.getRank());
  int64_t rank = type.getRank();
  AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
  auto generic = linalg::GenericOp::create(
      rewriter, op.getLoc(), type, indices,
      createEmpty(rewriter, op.getLoc(), type, {}),
      SmallVector<AffineMap>{identity, identity}, parallel(rank),
      [&](OpBuilder &b, Location l, ValueRange args) {
        SmallVector<Value> at;
        for (int64_t d = 0; d < rank; ++d)
          at.push_back(d == axis ? toDimIndex(b, l, args[0],
                                              dataType.getDimSize(axis))
                                 : Value(linalg::IndexOp::create(b, l, d)));
        linalg::YieldOp::create(
            b, l, Value(tensor::ExtractOp::create(b, l, data, at)));
      });
  rewriter.replaceOp(op, generic.getResults());
  return success();
}

/// CumSum as a loop along the axis carrying the running sum of one slice:
/// each step adds the next slice and writes the sum (exclusive: writes the
/// sum before adding; reverse: walks from the end). Attention masks become
/// position ids this way.
static LogicalResult lowerCumSum(ONNXNode node, PatternRewriter &rewriter) {
  GenericOp op = node.getOp();
  Location loc = op.getLoc();
  Value x = node.getInput(0);
  RankedTensorType type = getStaticResultType(node);
  FailureOr<SmallVector<int64_t>> axes = getConstantIntInput(node, 1, "axis");
  FailureOr<int64_t> exclusive = node.getInt("exclusive", 0);
  FailureOr<int64_t> reverse = node.getInt("reverse", 0);
  if (failed(axes) || failed(exclusive) || failed(reverse))
    return failure();
  int64_t rank = type.getRank();
  if (axes->size() != 1 || (*axes)[0] < -rank || (*axes)[0] >= rank)
    return node.emitError() << "its axis must be one value in [" << -rank
                            << ", " << rank - 1 << "]";
  int64_t axis = normalizeAxis((*axes)[0], rank);
  Type element = type.getElementType();
  SmallVector<int64_t> sliceShape(type.getShape());
  sliceShape[axis] = 1;
  auto sliceType = RankedTensorType::get(sliceShape, element);
  SmallVector<OpFoldResult> sizes, strides(rank, rewriter.getIndexAttr(1));
  for (int64_t d : sliceShape)
    sizes.push_back(rewriter.getIndexAttr(d));
  auto offsetsAt = [&](Value position) {
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    offsets[axis] = position;
    return offsets;
  };

  Value zero = createFilled(rewriter, loc, sliceType, {},
                            cast<TypedAttr>(rewriter.getZeroAttr(element)));
  Value out = createEmpty(rewriter, loc, type, {});
  int64_t n = type.getDimSize(axis);
  Value lower = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value upper = arith::ConstantIndexOp::create(rewriter, loc, n);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  auto loop = scf::ForOp::create(
      rewriter, loc, lower, upper, one, ValueRange{zero, out},
      [&](OpBuilder &b, Location l, Value k, ValueRange carried) {
        Value position =
            *reverse ? Value(arith::SubIOp::create(
                           b, l, arith::ConstantIndexOp::create(b, l, n - 1),
                           k))
                     : k;
        Value slice = tensor::ExtractSliceOp::create(
            b, l, sliceType, x, offsetsAt(position), sizes, strides);
        Value out = carried[1];
        if (*exclusive)
          out = tensor::InsertSliceOp::create(b, l, carried[0], out,
                                              offsetsAt(position), sizes,
                                              strides);
        // The sum is accumulated in place, into the carried one (a loop
        // yields what bufferizes onto its own iteration argument).
        Value sum =
            linalg::GenericOp::create(
                b, l, sliceType, ValueRange{slice}, ValueRange{carried[0]},
                SmallVector<AffineMap>(2, b.getMultiDimIdentityMap(rank)),
                parallel(rank),
                [&](OpBuilder &nb, Location nl, ValueRange v) {
                  Value added =
                      isa<FloatType>(element)
                          ? Value(arith::AddFOp::create(nb, nl, v[1], v[0]))
                          : Value(arith::AddIOp::create(nb, nl, v[1], v[0]));
                  linalg::YieldOp::create(nb, nl, added);
                })
                .getResult(0);
        if (!*exclusive)
          out = tensor::InsertSliceOp::create(b, l, sum, out,
                                              offsetsAt(position), sizes,
                                              strides);
        scf::YieldOp::create(b, l, ValueRange{sum, out});
      });
  rewriter.replaceOp(op, loop.getResult(1));
  return success();
}

static LogicalResult lowerExpand(ONNXNode node, PatternRewriter &rewriter) {
  GenericOp op = node.getOp();
  rewriter.replaceOp(
      op, buildElementwise(rewriter, op.getLoc(), getStaticResultType(node),
                           node.getInput(0),
                           [](OpBuilder &, Location, ValueRange args) {
                             return args[0];
                           }));
  return success();
}

static LogicalResult lowerConstantOfShape(ONNXNode node,
                                          PatternRewriter &rewriter) {
  RankedTensorType type = getStaticResultType(node);
  TypedAttr fill = rewriter.getZeroAttr(type.getElementType());
  if (auto value = dyn_cast_or_null<DenseElementsAttr>(node.getAttr("value"))) {
    if (value.getNumElements() != 1 ||
        value.getElementType() != type.getElementType())
      return node.emitError() << "'value' must be one element of the "
                                 "result's type";
    fill = cast<TypedAttr>(*value.getValues<Attribute>().begin());
  }
  rewriter.replaceOp(node.getOp(), createFilled(rewriter, node.getOp().getLoc(),
                                                type, {}, fill));
  return success();
}

/// start + i * delta.
static LogicalResult lowerRange(ONNXNode node, PatternRewriter &rewriter) {
  RankedTensorType type = getStaticResultType(node);
  Value start = node.getInput(0), delta = node.getInput(2);
  Value result = buildIndexed(
      rewriter, node.getOp().getLoc(), type,
      [&](OpBuilder &b, Location l, ArrayRef<Value> at) {
        Value s = tensor::ExtractOp::create(b, l, start, ValueRange{});
        Value d = tensor::ExtractOp::create(b, l, delta, ValueRange{});
        Value i = arith::IndexCastOp::create(b, l, b.getI64Type(), at[0]);
        Value step = castScalar(b, l, i, s.getType());
        Value offset = isa<FloatType>(s.getType())
                           ? Value(arith::MulFOp::create(b, l, step, d))
                           : Value(arith::MulIOp::create(b, l, step, d));
        return isa<FloatType>(s.getType())
                   ? Value(arith::AddFOp::create(b, l, s, offset))
                   : Value(arith::AddIOp::create(b, l, s, offset));
      });
  rewriter.replaceOp(node.getOp(), result);
  return success();
}

/// Trilu keeps the elements whose column minus row (over the last two
/// dimensions) is at least k (upper) or at most k (lower), and zeroes the
/// rest: exporters build causal masks with it.
static LogicalResult lowerTrilu(ONNXNode node, PatternRewriter &rewriter) {
  GenericOp op = node.getOp();
  Location loc = op.getLoc();
  RankedTensorType type = getStaticResultType(node);
  int64_t rank = type.getRank();
  if (rank < 2)
    return node.emitError() << "its input must have rank 2 or more";
  FailureOr<int64_t> upper = node.getInt("upper", 1);
  if (failed(upper))
    return failure();
  Value k = arith::ConstantIntOp::create(rewriter, loc, 0, 64);
  if (Value given = node.getInput(1)) {
    // A scalar, or (as ONNX Runtime also takes it) one element.
    auto type = dyn_cast<RankedTensorType>(given.getType());
    if (!type || !type.getElementType().isInteger(64) || type.getRank() > 1 ||
        (type.getRank() == 1 && type.getDimSize(0) != 1))
      return node.emitError() << "its k must be one int64";
    SmallVector<Value> at(type.getRank(),
                          arith::ConstantIndexOp::create(rewriter, loc, 0));
    k = tensor::ExtractOp::create(rewriter, loc, given, at);
  }
  auto keep = *upper ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sle;
  AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
  Value result =
      linalg::GenericOp::create(
          rewriter, loc, type, ValueRange{node.getInput(0)},
          createEmpty(rewriter, loc, type, {}),
          SmallVector<AffineMap>{identity, identity}, parallel(rank),
          [&](OpBuilder &b, Location l, ValueRange args) {
            Value row = linalg::IndexOp::create(b, l, rank - 2);
            Value column = linalg::IndexOp::create(b, l, rank - 1);
            Value offset = arith::IndexCastOp::create(
                b, l, b.getI64Type(),
                arith::SubIOp::create(b, l, column, row));
            Value kept = arith::CmpIOp::create(b, l, keep, offset, k);
            Value zero = arith::ConstantOp::create(
                b, l, cast<TypedAttr>(b.getZeroAttr(type.getElementType())));
            Value selected =
                arith::SelectOp::create(b, l, kept, args[0], zero);
            linalg::YieldOp::create(b, l, selected);
          })
          .getResult(0);
  rewriter.replaceOp(op, result);
  return success();
}

static LogicalResult lowerPad(ONNXNode node, PatternRewriter &rewriter) {
  FailureOr<std::string> mode = node.getString("mode", "constant");
  if (failed(mode))
    return failure();
  if (*mode != "constant")
    return node.emitError() << "mode '" << *mode
                            << "' cannot be executed (constant only)";
  Value input = node.getInput(0);
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t rank = inputType.getRank();
  SmallVector<int64_t> pads;
  if (node.getNumInputs() >= 2 && node.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> p = getConstantIntInput(node, 1, "pads");
    if (failed(p))
      return failure();
    pads = *p;
  } else {
    FailureOr<std::optional<SmallVector<int64_t>>> p = node.getInts("pads");
    if (failed(p) || !*p)
      return node.emitError() << "expects pads";
    pads = **p;
  }
  SmallVector<int64_t> axes;
  if (node.hasInput(3)) {
    FailureOr<SmallVector<int64_t>> a = getConstantIntInput(node, 3, "axes");
    if (failed(a))
      return failure();
    axes = *a;
  } else {
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  if (pads.size() != 2 * axes.size())
    return node.emitError() << "expects two pads per axis";
  SmallVector<int64_t> low(rank, 0), high(rank, 0);
  for (auto [i, axis] : llvm::enumerate(axes)) {
    int64_t d = normalizeAxis(axis, rank);
    low[d] = pads[i];
    high[d] = pads[i + axes.size()];
  }
  if (llvm::any_of(llvm::concat<int64_t>(low, high),
                   [](int64_t p) { return p < 0; }))
    return node.emitError() << "negative pads cannot be executed";
  Type element = inputType.getElementType();
  Attribute value = rewriter.getZeroAttr(element);
  if (node.hasInput(2)) {
    ElementsAttr constant;
    if (!matchPattern(node.getInput(2), m_Constant(&constant)) ||
        constant.getNumElements() != 1)
      return node.emitError() << "its constant_value must be constant";
    value = *constant.getValues<Attribute>().begin();
  }
  rewriter.replaceOp(node.getOp(), padTensor(rewriter, node.getOp().getLoc(),
                                             input, low, high, value));
  return success();
}

static LogicalResult lowerSplit(ONNXNode node, PatternRewriter &rewriter) {
  GenericOp op = node.getOp();
  Value input = node.getInput(0);
  auto inputType = cast<RankedTensorType>(input.getType());
  FailureOr<int64_t> axisAttr = node.getInt("axis", 0);
  if (failed(axisAttr))
    return failure();
  int64_t axis = normalizeAxis(*axisAttr, inputType.getRank());
  SmallVector<Value> results;
  int64_t offset = 0;
  for (OpResult result : op->getResults()) {
    auto type = cast<RankedTensorType>(result.getType());
    SmallVector<int64_t> offsets(inputType.getRank(), 0);
    offsets[axis] = offset;
    SmallVector<int64_t> strides(inputType.getRank(), 1);
    MLIRContext *ctx = rewriter.getContext();
    // An empty piece (RotaryEmbedding's pass-through part when the whole
    // head rotates) may start at the end, where a slice may not.
    if (type.getNumElements() == 0)
      results.push_back(tensor::EmptyOp::create(
          rewriter, op.getLoc(), type.getShape(), type.getElementType()));
    else
      results.push_back(tensor::ExtractSliceOp::create(
          rewriter, op.getLoc(), type, input,
          getAsIndexOpFoldResult(ctx, offsets),
          getAsIndexOpFoldResult(ctx, type.getShape()),
          getAsIndexOpFoldResult(ctx, strides)));
    offset += type.getDimSize(axis);
  }
  if (offset != inputType.getDimSize(axis))
    return node.emitError() << "its outputs do not cover the input";
  rewriter.replaceOp(op, results);
  return success();
}

/// out[i...] = in[i mod n...].
static LogicalResult lowerTile(ONNXNode node, PatternRewriter &rewriter) {
  Value input = node.getInput(0);
  auto inputType = cast<RankedTensorType>(input.getType());
  RankedTensorType type = getStaticResultType(node);
  Value result = buildIndexed(
      rewriter, node.getOp().getLoc(), type,
      [&](OpBuilder &b, Location l, ArrayRef<Value> at) {
        SmallVector<Value> source;
        for (auto [d, i] : llvm::enumerate(at))
          source.push_back(arith::RemUIOp::create(
              b, l, i,
              arith::ConstantIndexOp::create(b, l, inputType.getDimSize(d))));
        return Value(tensor::ExtractOp::create(b, l, input, source));
      });
  rewriter.replaceOp(node.getOp(), result);
  return success();
}

/// Copies `data`, then writes each update slice at its index tuple, in
/// order (a later duplicate index wins, as in ONNX Runtime).
static LogicalResult lowerScatterND(ONNXNode node, PatternRewriter &rewriter) {
  FailureOr<std::string> reduction = node.getString("reduction", "none");
  if (failed(reduction))
    return failure();
  if (*reduction != "none")
    return node.emitError() << "reduction '" << *reduction
                            << "' cannot be executed";
  Location loc = node.getOp().getLoc();
  Value data = node.getInput(0), indices = node.getInput(1),
        updates = node.getInput(2);
  auto dataType = cast<RankedTensorType>(data.getType());
  auto indicesType = cast<RankedTensorType>(indices.getType());
  int64_t q = indicesType.getShape().back();
  int64_t count = indicesType.getNumElements() / std::max<int64_t>(q, 1);
  if (q > dataType.getRank())
    return node.emitError() << "index tuples longer than the data's rank";
  Type indexElement = indicesType.getElementType();
  Type element = dataType.getElementType();
  // indices as [count, q], updates as [count, slice...].
  SmallVector<int64_t> sliceShape(dataType.getShape().drop_front(q));
  SmallVector<int64_t> updatesShape{count};
  llvm::append_range(updatesShape, sliceShape);
  Value flatIndices = reshapeStatic(
      rewriter, loc, indices, RankedTensorType::get({count, q}, indexElement));
  Value flatUpdates = reshapeStatic(
      rewriter, loc, updates, RankedTensorType::get(updatesShape, element));

  Value lb = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value ub = arith::ConstantIndexOp::create(rewriter, loc, count);
  Value stepOne = arith::ConstantIndexOp::create(rewriter, loc, 1);
  auto loop = scf::ForOp::create(
      rewriter, loc, lb, ub, stepOne, ValueRange{data},
      [&](OpBuilder &b, Location l, Value n, ValueRange iterArgs) {
        int64_t rank = dataType.getRank();
        SmallVector<OpFoldResult> offsets, sizes, strides;
        for (int64_t k = 0; k < q; ++k) {
          Value raw = tensor::ExtractOp::create(
              b, l, flatIndices,
              ValueRange{n, arith::ConstantIndexOp::create(b, l, k)});
          offsets.push_back(toDimIndex(b, l, raw, dataType.getDimSize(k)));
          sizes.push_back(b.getIndexAttr(1));
        }
        for (int64_t d = q; d < rank; ++d) {
          offsets.push_back(b.getIndexAttr(0));
          sizes.push_back(b.getIndexAttr(dataType.getDimSize(d)));
        }
        strides.assign(rank, b.getIndexAttr(1));
        // The update row, rank-reduced to the slice's shape.
        SmallVector<OpFoldResult> rowOffsets{n}, rowSizes{b.getIndexAttr(1)},
            rowStrides(updatesShape.size(), b.getIndexAttr(1));
        for (int64_t s : sliceShape) {
          rowOffsets.push_back(b.getIndexAttr(0));
          rowSizes.push_back(b.getIndexAttr(s));
        }
        auto rowType = RankedTensorType::get(sliceShape, element);
        Value row = tensor::ExtractSliceOp::create(
            b, l, rowType, flatUpdates, rowOffsets, rowSizes, rowStrides);
        Value written = tensor::InsertSliceOp::create(
            b, l, row, iterArgs[0], offsets, sizes, strides);
        scf::YieldOp::create(b, l, written);
      });
  rewriter.replaceOp(node.getOp(), loop.getResults());
  return success();
}

/// Resize, nearest or linear: each output index maps back to a source
/// coordinate (the coordinate transformation mode, in f32 as ONNX Runtime
/// computes it); nearest rounds it as nearest_mode says, linear blends the
/// two neighbours along every resized axis.
static LogicalResult lowerResize(ONNXNode node, PatternRewriter &rewriter) {
  Value input = node.getInput(0);
  auto inputType = cast<RankedTensorType>(input.getType());
  RankedTensorType type = getStaticResultType(node);
  Type element = type.getElementType();
  int64_t rank = type.getRank();
  bool opset10 = node.getOpset() < 11;
  FailureOr<std::string> mode = node.getString("mode", "nearest");
  FailureOr<std::string> transform = node.getString(
      "coordinate_transformation_mode", opset10 ? "asymmetric" : "half_pixel");
  FailureOr<std::string> rounding = node.getString(
      "nearest_mode", opset10 ? "floor" : "round_prefer_floor");
  if (failed(mode) || failed(transform) || failed(rounding))
    return failure();
  if ((*mode != "nearest" && *mode != "linear") || !isa<FloatType>(element))
    return node.emitError() << "mode '" << *mode
                            << "' cannot be executed (nearest, linear on "
                               "floats)";
  static constexpr StringLiteral kTransforms[] = {
      "half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel"};
  static constexpr StringLiteral kRoundings[] = {
      "round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  if (!llvm::is_contained(kTransforms, *transform))
    return node.emitError() << "coordinate_transformation_mode '"
                            << *transform << "' cannot be executed";
  if (!llvm::is_contained(kRoundings, *rounding))
    return node.emitError() << "nearest_mode '" << *rounding
                            << "' is not one ONNX defines";
  if (node.getAttr("axes") || node.getAttr("keep_aspect_ratio_policy"))
    return node.emitError() << "'axes' and 'keep_aspect_ratio_policy' "
                               "cannot be executed";
  // Scales as given (they enter the coordinate formula), else out / in.
  SmallVector<double> scales;
  unsigned scalesIndex = opset10 ? 1 : 2;
  if (node.hasInput(scalesIndex)) {
    auto values = getConstantFloats(node.getInput(scalesIndex));
    if (!values)
      return node.emitError() << "its scales must be constant for execution";
    if (!values->empty())
      scales.assign(values->begin(), values->end());
  }
  if (scales.empty())
    for (int64_t d = 0; d < rank; ++d)
      scales.push_back(double(type.getDimSize(d)) / inputType.getDimSize(d));
  if (int64_t(scales.size()) != rank)
    return node.emitError() << "expects one scale per dimension";

  bool linear = *mode == "linear";
  Value result = buildIndexed(
      rewriter, node.getOp().getLoc(), type,
      [&](OpBuilder &b, Location l, ArrayRef<Value> at) {
        Type f32 = b.getF32Type();
        auto f = [&](double v) { return floatConstant(b, l, f32, v); };
        auto toIndex = [&](Value x, int64_t size) {
          Value i = arith::FPToSIOp::create(b, l, b.getI64Type(), x);
          return toDimIndex(b, l, i, size);
        };
        // Per dimension: {low index, high index, weight of high} (linear)
        // or {index} (nearest, and dimensions that keep their size).
        SmallVector<SmallVector<Value, 3>> taps;
        for (int64_t d = 0; d < rank; ++d) {
          int64_t in = inputType.getDimSize(d), out = type.getDimSize(d);
          if (in == out && scales[d] == 1.0) {
            taps.push_back({at[d]});
            continue;
          }
          Value i = arith::UIToFPOp::create(
              b, l, f32, arith::IndexCastUIOp::create(b, l, b.getI64Type(),
                                                      at[d]));
          Value x;
          if (*transform == "asymmetric") {
            x = arith::DivFOp::create(b, l, i, f(scales[d]));
          } else if (*transform == "align_corners") {
            x = out == 1 ? f(0.0)
                         : Value(arith::DivFOp::create(
                               b, l, arith::MulFOp::create(b, l, i, f(in - 1)),
                               f(out - 1)));
          } else if (*transform == "pytorch_half_pixel" && out == 1) {
            x = f(0.0);
          } else {
            x = arith::SubFOp::create(
                b, l,
                arith::DivFOp::create(
                    b, l, arith::AddFOp::create(b, l, i, f(0.5)),
                    f(scales[d])),
                f(0.5));
          }
          if (!linear) {
            Value r;
            if (*rounding == "floor")
              r = math::FloorOp::create(b, l, x);
            else if (*rounding == "ceil")
              r = math::CeilOp::create(b, l, x);
            else if (*rounding == "round_prefer_ceil")
              r = math::FloorOp::create(
                  b, l, arith::AddFOp::create(b, l, x, f(0.5)));
            else
              r = math::CeilOp::create(
                  b, l, arith::SubFOp::create(b, l, x, f(0.5)));
            taps.push_back({toIndex(r, in)});
            continue;
          }
          x = arith::MinimumFOp::create(
              b, l, arith::MaximumFOp::create(b, l, x, f(0.0)), f(in - 1));
          Value lowF = math::FloorOp::create(b, l, x);
          Value weight = arith::SubFOp::create(b, l, x, lowF);
          Value low = toIndex(lowF, in);
          Value high = toIndex(arith::AddFOp::create(b, l, lowF, f(1.0)), in);
          taps.push_back({low, high, weight});
        }
        // Sum over the corners of the blended dimensions.
        Value sum;
        SmallVector<int64_t> blended;
        for (int64_t d = 0; d < rank; ++d)
          if (taps[d].size() == 3)
            blended.push_back(d);
        for (int64_t corner = 0; corner < (int64_t(1) << blended.size());
             ++corner) {
          SmallVector<Value> source;
          Value weight;
          for (int64_t d = 0; d < rank; ++d) {
            auto it = llvm::find(blended, d);
            if (it == blended.end()) {
              source.push_back(taps[d][0]);
              continue;
            }
            bool high = (corner >> (it - blended.begin())) & 1;
            source.push_back(taps[d][high ? 1 : 0]);
            Value w = taps[d][2];
            if (!high)
              w = arith::SubFOp::create(b, l, f(1.0), w);
            weight = weight ? Value(arith::MulFOp::create(b, l, weight, w)) : w;
          }
          Value v = tensor::ExtractOp::create(b, l, input, source);
          if (weight)
            v = arith::MulFOp::create(b, l, v,
                                      castScalar(b, l, weight, element));
          sum = sum ? Value(arith::AddFOp::create(b, l, sum, v)) : v;
        }
        return sum;
      });
  rewriter.replaceOp(node.getOp(), result);
  return success();
}

static LogicalResult lowerShape(ONNXNode node, PatternRewriter &rewriter) {
  // Static shapes: Shape and Size are constants (the import's folding
  // handles the usual forms; this is the rest, start/end included).
  RankedTensorType type = getStaticResultType(node);
  auto inputType = cast<RankedTensorType>(node.getInput(0).getType());
  SmallVector<int64_t> values;
  if (node.getOpType() == "Size") {
    values.push_back(inputType.getNumElements());
  } else {
    int64_t rank = inputType.getRank();
    FailureOr<int64_t> start = node.getInt("start", 0),
                       end = node.getInt("end", rank);
    if (failed(start) || failed(end))
      return failure();
    int64_t s = std::clamp<int64_t>(*start < 0 ? *start + rank : *start, 0,
                                    rank);
    int64_t e = std::clamp<int64_t>(*end < 0 ? *end + rank : *end, 0, rank);
    for (int64_t d = s; d < e; ++d)
      values.push_back(inputType.getDimSize(d));
  }
  if (int64_t(values.size()) != type.getNumElements())
    return node.emitError() << "its result type " << type
                            << " does not hold the shape";
  auto value = DenseElementsAttr::get(type, ArrayRef<int64_t>(values));
  rewriter.replaceOpWithNewOp<arith::ConstantOp>(node.getOp(), value);
  return success();
}

void mlir::quant_qdq::addONNXDataMovementLowerings(
    ONNXNodeLowerings &lowerings) {
  lowerings.add({"Identity", "Dropout"}, lowerForward);
  lowerings.add({"Reshape", "Flatten", "Squeeze", "Unsqueeze"}, lowerReshape);
  lowerings.add({"Transpose"}, lowerTranspose);
  lowerings.add({"Concat"}, lowerConcat);
  lowerings.add({"Slice"}, lowerSlice);
  lowerings.add({"Gather"}, lowerGather);
  lowerings.add({"GatherElements"}, lowerGatherElements);
  lowerings.add({"CumSum"}, lowerCumSum);
  lowerings.add({"Expand"}, lowerExpand);
  lowerings.add({"ConstantOfShape"}, lowerConstantOfShape);
  lowerings.add({"Range"}, lowerRange);
  lowerings.add({"Pad"}, lowerPad);
  lowerings.add({"Trilu"}, lowerTrilu);
  lowerings.add({"Split"}, lowerSplit);
  lowerings.add({"Tile"}, lowerTile);
  lowerings.add({"ScatterND"}, lowerScatterND);
  lowerings.add({"Resize"}, lowerResize);
  lowerings.add({"Shape", "Size"}, lowerShape);
}
