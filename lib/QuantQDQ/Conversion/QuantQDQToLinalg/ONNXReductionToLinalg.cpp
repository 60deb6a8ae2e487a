//===- ONNXReductionToLinalg.cpp - ONNX nodes that reduce -----------------===//
//
// ReduceX, Softmax and LayerNormalization reduce over a set of dimensions.
// Each is a few linalg.generic ops: the reductions keep the non-reduced
// dimensions, and the element-wise steps read them back through a map that
// skips the reduced ones.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "ONNXNodeLowering.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
using Combine = function_ref<Value(OpBuilder &, Location, Value element,
                                   Value accumulator)>;

/// Reductions of tensors of one shape over the dimensions `reduced`.
struct Reducer {
  OpBuilder &b;
  Location loc;
  RankedTensorType type;
  SmallVector<bool> reduced;

  int64_t rank() const { return type.getRank(); }
  /// The shape with the reduced dimensions dropped.
  RankedTensorType keptType(Type element) const {
    SmallVector<int64_t> shape;
    for (int64_t d = 0; d < rank(); ++d)
      if (!reduced[d])
        shape.push_back(type.getDimSize(d));
    return RankedTensorType::get(shape, element);
  }
  /// The map from the full index to the kept dimensions.
  AffineMap keptMap() const {
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < rank(); ++d)
      if (!reduced[d])
        exprs.push_back(b.getAffineDimExpr(d));
    return AffineMap::get(rank(), 0, exprs, b.getContext());
  }
  /// The number of elements reduced into each result.
  int64_t count() const {
    int64_t n = 1;
    for (int64_t d = 0; d < rank(); ++d)
      if (reduced[d])
        n *= type.getDimSize(d);
    return n;
  }

  /// combine(element, accumulator) over the reduced dimensions of `input`,
  /// starting from `init`.
  Value reduce(Value input, TypedAttr init, Combine combine) const {
    RankedTensorType kept = keptType(init.getType());
    Value acc = createFilled(b, loc, kept, {}, init);
    SmallVector<utils::IteratorType> iterators;
    for (bool r : reduced)
      iterators.push_back(r ? utils::IteratorType::reduction
                            : utils::IteratorType::parallel);
    return linalg::GenericOp::create(
               b, loc, kept, input, acc,
               SmallVector<AffineMap>{b.getMultiDimIdentityMap(rank()),
                                      keptMap()},
               iterators,
               [&](OpBuilder &nested, Location l, ValueRange args) {
                 linalg::YieldOp::create(nested, l,
                                         combine(nested, l, args[0], args[1]));
               })
        .getResult(0);
  }

  /// body(full elements..., kept elements...) for every full index.
  Value map(RankedTensorType resultType, ValueRange full, ValueRange kept,
            function_ref<Value(OpBuilder &, Location, ValueRange)> body) const {
    SmallVector<AffineMap> maps;
    SmallVector<Value> inputs;
    for (Value v : full) {
      inputs.push_back(v);
      maps.push_back(getBroadcastMap(b.getContext(),
                                     cast<RankedTensorType>(v.getType()),
                                     resultType));
    }
    for (Value v : kept) {
      inputs.push_back(v);
      maps.push_back(keptMap());
    }
    maps.push_back(b.getMultiDimIdentityMap(rank()));
    Value init = createEmpty(b, loc, resultType, {});
    return linalg::GenericOp::create(
               b, loc, resultType, inputs, init, maps,
               SmallVector<utils::IteratorType>(rank(),
                                                utils::IteratorType::parallel),
               [&](OpBuilder &nested, Location l, ValueRange args) {
                 linalg::YieldOp::create(nested, l,
                                         body(nested, l, args.drop_back()));
               })
        .getResult(0);
  }
};
} // namespace

static Value addF(OpBuilder &b, Location l, Value x, Value acc) {
  return arith::AddFOp::create(b, l, x, acc);
}

//===----------------------------------------------------------------------===//
// ReduceX
//===----------------------------------------------------------------------===//

static LogicalResult lowerReduce(ONNXNode node, PatternRewriter &rewriter) {
  StringRef kind = node.getOpType();
  Location loc = node.getOp().getLoc();
  Value input = node.getInput(0);
  auto type = cast<RankedTensorType>(input.getType());
  RankedTensorType resultType = getStaticResultType(node);
  Type element = type.getElementType();
  if (!isa<FloatType>(element))
    return node.emitError() << "only float reductions can be executed";
  int64_t rank = type.getRank();

  // Axes: an attribute up to ReduceSum-11 and the others' opset 17, an
  // input after.
  std::optional<SmallVector<int64_t>> axes;
  if (node.getNumInputs() >= 2 && node.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> a = getConstantIntInput(node, 1, "axes");
    if (failed(a))
      return failure();
    axes = *a;
  } else {
    FailureOr<std::optional<SmallVector<int64_t>>> a = node.getInts("axes");
    if (failed(a))
      return failure();
    axes = *a;
  }
  FailureOr<int64_t> noop = node.getInt("noop_with_empty_axes", 0);
  if (failed(noop))
    return failure();
  SmallVector<bool> reduced(rank, !axes || axes->empty());
  if ((!axes || axes->empty()) && *noop) {
    rewriter.replaceOp(node.getOp(), input);
    return success();
  }
  if (axes)
    for (int64_t a : *axes) {
      if (a < -rank || a >= rank)
        return node.emitError() << "axis " << a << " out of range";
      reduced[a < 0 ? a + rank : a] = true;
    }

  Reducer reducer{rewriter, loc, type, reduced};
  Value result;
  if (kind == "ReduceMax" || kind == "ReduceMin") {
    bool isMax = kind == "ReduceMax";
    TypedAttr init = rewriter.getFloatAttr(
        element, APFloat::getInf(cast<FloatType>(element).getFloatSemantics(),
                                 /*Negative=*/isMax));
    result = reducer.reduce(input, init,
                            [&](OpBuilder &b, Location l, Value x, Value acc) {
                              return isMax ? Value(arith::MaximumFOp::create(
                                                 b, l, x, acc))
                                           : Value(arith::MinimumFOp::create(
                                                 b, l, x, acc));
                            });
  } else if (kind == "ReduceProd") {
    result = reducer.reduce(input, rewriter.getFloatAttr(element, 1.0),
                            [](OpBuilder &b, Location l, Value x, Value acc) {
                              return Value(arith::MulFOp::create(b, l, x, acc));
                            });
  } else {
    bool squares = kind == "ReduceSumSquare" || kind == "ReduceL2";
    bool absolute = kind == "ReduceL1";
    result = reducer.reduce(
        input, rewriter.getFloatAttr(element, 0.0),
        [&](OpBuilder &b, Location l, Value x, Value acc) {
          if (squares)
            x = arith::MulFOp::create(b, l, x, x);
          if (absolute)
            x = math::AbsFOp::create(b, l, x);
          return addF(b, l, x, acc);
        });
    if (kind == "ReduceMean" || kind == "ReduceL2") {
      double n = reducer.count();
      result = buildElementwise(
          rewriter, loc, cast<RankedTensorType>(result.getType()), result,
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            if (kind == "ReduceL2")
              return math::SqrtOp::create(b, l, args[0]);
            return arith::DivFOp::create(
                b, l, args[0], floatConstant(b, l, args[0].getType(), n));
          });
    }
  }
  rewriter.replaceOp(node.getOp(),
                     reshapeStatic(rewriter, loc, result, resultType));
  return success();
}

//===----------------------------------------------------------------------===//
// Softmax, LogSoftmax
//===----------------------------------------------------------------------===//

static LogicalResult lowerSoftmax(ONNXNode node, PatternRewriter &rewriter) {
  Location loc = node.getOp().getLoc();
  Value input = node.getInput(0);
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  // Opset 13 normalizes along one axis (default -1); before, over every
  // dimension from the axis on (default 1).
  bool single = node.getOpset() >= 13;
  FailureOr<int64_t> axisAttr = node.getInt("axis", single ? -1 : 1);
  if (failed(axisAttr))
    return failure();
  if (*axisAttr < -rank || *axisAttr >= rank)
    return node.emitError() << "axis " << *axisAttr << " out of range";
  int64_t axis = normalizeAxis(*axisAttr, rank);
  SmallVector<bool> reduced(rank, false);
  for (int64_t d = axis; d < (single ? axis + 1 : rank); ++d)
    reduced[d] = true;
  Type element = type.getElementType();
  Reducer reducer{rewriter, loc, type, reduced};
  Value max = reducer.reduce(
      input, getNegativeInfinity(rewriter, element),
      [](OpBuilder &b, Location l, Value x, Value acc) {
        return Value(arith::MaximumFOp::create(b, l, x, acc));
      });
  Value shifted = reducer.map(
      type, input, max, [](OpBuilder &b, Location l, ValueRange args) {
        return Value(arith::SubFOp::create(b, l, args[0], args[1]));
      });
  Value exps = reducer.map(type, shifted, {},
                           [](OpBuilder &b, Location l, ValueRange args) {
                             return Value(math::ExpOp::create(b, l, args[0]));
                           });
  Value sum = reducer.reduce(exps, rewriter.getFloatAttr(element, 0.0), addF);
  bool isLog = node.getOpType() == "LogSoftmax";
  Value result = reducer.map(
      type, isLog ? shifted : exps, sum,
      [&](OpBuilder &b, Location l, ValueRange args) -> Value {
        if (isLog)
          return arith::SubFOp::create(b, l, args[0],
                                       math::LogOp::create(b, l, args[1]));
        return arith::DivFOp::create(b, l, args[0], args[1]);
      });
  rewriter.replaceOp(node.getOp(), result);
  return success();
}

//===----------------------------------------------------------------------===//
// LayerNormalization
//===----------------------------------------------------------------------===//

/// (x - mean) / sqrt(var + epsilon) * scale + bias over the dimensions from
/// `axis` on.
static LogicalResult lowerLayerNorm(ONNXNode node, PatternRewriter &rewriter) {
  if (!node.onlyFirstOutputUsed())
    return node.emitError() << "its mean and inverse standard deviation "
                               "outputs cannot be executed";
  Location loc = node.getOp().getLoc();
  Value input = node.getInput(0), scale = node.getInput(1),
        bias = node.getInput(2);
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  FailureOr<int64_t> axisAttr = node.getInt("axis", -1);
  FailureOr<float> epsilon = node.getFloat("epsilon", 1e-5f);
  if (failed(axisAttr) || failed(epsilon))
    return failure();
  if (*axisAttr < -rank || *axisAttr >= rank)
    return node.emitError() << "axis " << *axisAttr << " out of range";
  int64_t axis = normalizeAxis(*axisAttr, rank);
  SmallVector<bool> reduced(rank, false);
  for (int64_t d = axis; d < rank; ++d)
    reduced[d] = true;
  Type element = type.getElementType();
  Reducer reducer{rewriter, loc, type, reduced};
  double n = reducer.count();
  auto divideByCount = [&](Value sum) {
    return buildElementwise(
        rewriter, loc, cast<RankedTensorType>(sum.getType()), sum,
        [&](OpBuilder &b, Location l, ValueRange args) {
          return Value(arith::DivFOp::create(
              b, l, args[0], floatConstant(b, l, args[0].getType(), n)));
        });
  };
  TypedAttr zero = rewriter.getFloatAttr(element, 0.0);
  Value mean = divideByCount(reducer.reduce(input, zero, addF));
  Value centered = reducer.map(
      type, input, mean, [](OpBuilder &b, Location l, ValueRange args) {
        return Value(arith::SubFOp::create(b, l, args[0], args[1]));
      });
  Value variance = divideByCount(reducer.reduce(
      centered, zero, [](OpBuilder &b, Location l, Value x, Value acc) {
        return addF(b, l, arith::MulFOp::create(b, l, x, x), acc);
      }));
  SmallVector<Value> full = {centered, scale};
  if (bias)
    full.push_back(bias);
  double eps = *epsilon;
  Value result = reducer.map(
      type, full, variance, [&](OpBuilder &b, Location l, ValueRange args) {
        Value c = args[0], s = args[1];
        Value var = args.back();
        Value inv = math::RsqrtOp::create(
            b, l,
            arith::AddFOp::create(b, l, var,
                                  floatConstant(b, l, var.getType(), eps)));
        Value y = arith::MulFOp::create(
            b, l, arith::MulFOp::create(b, l, c, inv), s);
        if (bias)
          y = arith::AddFOp::create(b, l, y, args[2]);
        return y;
      });
  SmallVector<Value> results = {result};
  for (unsigned i = 1, e = node.getOp()->getNumResults(); i < e; ++i)
    results.push_back(
        createEmpty(rewriter, loc, getStaticResultType(node, i), {}));
  rewriter.replaceOp(node.getOp(), results);
  return success();
}

void mlir::quant_qdq::addONNXReductionLowerings(ONNXNodeLowerings &lowerings) {
  lowerings.add({"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin",
                 "ReduceProd", "ReduceSumSquare", "ReduceL1", "ReduceL2"},
                lowerReduce);
  lowerings.add({"Softmax", "LogSoftmax"}, lowerSoftmax);
  lowerings.add({"LayerNormalization"}, lowerLayerNorm);
}
