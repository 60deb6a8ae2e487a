//===- ONNXReductionToLinalg.cpp - ONNX nodes that reduce -----------------===//
//
// ReduceX and Softmax reduce over a set of dimensions (Reduction.h). An
// ONNX LayerNormalization is a layer_norm by then (NormalizationToLinalg).
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "ONNXNodeLowering.h"
#include "Reduction.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::quant_qdq;

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

void mlir::quant_qdq::addONNXReductionLowerings(ONNXNodeLowerings &lowerings) {
  lowerings.add({"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin",
                 "ReduceProd", "ReduceSumSquare", "ReduceL1", "ReduceL2"},
                lowerReduce);
  lowerings.add({"Softmax", "LogSoftmax"}, lowerSoftmax);
}
