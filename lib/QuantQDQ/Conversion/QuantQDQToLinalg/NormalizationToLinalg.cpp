//===- NormalizationToLinalg.cpp - layer_norm, rms_norm to linalg ---------===//
//
// A layer_norm is two reductions over its normalized dimensions (the mean,
// then the variance of the centered input) and element-wise steps that
// read them back (Reduction.h); an rms_norm is one (the mean square) and
// one element-wise step. Inference-mode batch_norm needs no reduction and
// is lowered with the element-wise layers.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "Reduction.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::quant_qdq;

/// The reduction over the dimensions `op` normalizes (from its axis on).
template <typename NormOp>
static Reducer getNormalizedReducer(PatternRewriter &rewriter, NormOp op) {
  RankedTensorType type = op.getType();
  SmallVector<bool> reduced(type.getRank(), false);
  for (int64_t d = op.getNormalizedAxis(); d < type.getRank(); ++d)
    reduced[d] = true;
  return Reducer{rewriter, op.getLoc(), type, reduced};
}

namespace {
/// (x - mean) * rsqrt(variance + epsilon) [* scale] [+ bias].
struct LayerNormLowering : OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    if (!type.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs a static shape");
    Reducer reducer = getNormalizedReducer(rewriter, op);
    TypedAttr zero = rewriter.getFloatAttr(type.getElementType(), 0.0);
    double count = reducer.count();
    auto meanOf = [&](Value input, Reducer::Combine combine) {
      Value sum = reducer.reduce(input, zero, combine);
      return buildElementwise(
          rewriter, loc, cast<RankedTensorType>(sum.getType()), sum,
          [&](OpBuilder &b, Location l, ValueRange args) {
            return Value(arith::DivFOp::create(
                b, l, args[0],
                floatConstant(b, l, args[0].getType(), count)));
          });
    };
    Value mean = meanOf(op.getInput(), [](OpBuilder &b, Location l, Value x,
                                          Value acc) {
      return Value(arith::AddFOp::create(b, l, x, acc));
    });
    Value centered = reducer.map(
        type, op.getInput(), mean,
        [](OpBuilder &b, Location l, ValueRange args) {
          return Value(arith::SubFOp::create(b, l, args[0], args[1]));
        });
    Value variance = meanOf(centered, [](OpBuilder &b, Location l, Value x,
                                         Value acc) {
      return Value(arith::AddFOp::create(
          b, l, arith::MulFOp::create(b, l, x, x), acc));
    });
    SmallVector<Value, 3> full = {centered};
    Value scale = op.getScale(), bias = op.getBias();
    if (scale)
      full.push_back(scale);
    if (bias)
      full.push_back(bias);
    double epsilon = op.getEpsilon().convertToDouble();
    Value result = reducer.map(
        type, full, variance, [&](OpBuilder &b, Location l, ValueRange args) {
          Value var = args.back();
          Value inverse = math::RsqrtOp::create(
              b, l,
              arith::AddFOp::create(
                  b, l, var, floatConstant(b, l, var.getType(), epsilon)));
          Value y = arith::MulFOp::create(b, l, args[0], inverse);
          unsigned next = 1;
          if (scale)
            y = arith::MulFOp::create(b, l, y, args[next++]);
          if (bias)
            y = arith::AddFOp::create(b, l, y, args[next]);
          return y;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// x * rsqrt(mean(x * x) + epsilon) [* scale].
struct RMSNormLowering : OpRewritePattern<RMSNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RMSNormOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    if (!type.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs a static shape");
    Reducer reducer = getNormalizedReducer(rewriter, op);
    Value sumOfSquares = reducer.reduce(
        op.getInput(), rewriter.getFloatAttr(type.getElementType(), 0.0),
        [](OpBuilder &b, Location l, Value x, Value acc) {
          return Value(arith::AddFOp::create(
              b, l, arith::MulFOp::create(b, l, x, x), acc));
        });
    SmallVector<Value, 2> full = {op.getInput()};
    Value scale = op.getScale();
    if (scale)
      full.push_back(scale);
    double count = reducer.count();
    double epsilon = op.getEpsilon().convertToDouble();
    Value result = reducer.map(
        type, full, sumOfSquares,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value sum = args.back();
          Type element = sum.getType();
          Value meanSquare = arith::DivFOp::create(
              b, l, sum, floatConstant(b, l, element, count));
          Value inverse = math::RsqrtOp::create(
              b, l,
              arith::AddFOp::create(b, l, meanSquare,
                                    floatConstant(b, l, element, epsilon)));
          Value y = arith::MulFOp::create(b, l, args[0], inverse);
          if (scale)
            y = arith::MulFOp::create(b, l, y, args[1]);
          return y;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void mlir::quant_qdq::populateNormalizationToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<LayerNormLowering, RMSNormLowering>(patterns.getContext());
}
