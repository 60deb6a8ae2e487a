//===- ElementwiseToLinalg.cpp - element-wise layers to linalg.generic ----===//

#include "LoweringUtils.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::quant_qdq;

/// A float constant of `x`'s type.
static Value cst(OpBuilder &b, Location loc, Value like, double value) {
  return floatConstant(b, loc, like.getType(), value);
}

static Value sigmoid(OpBuilder &b, Location loc, Value x) {
  Value negExp =
      math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  return arith::DivFOp::create(
      b, loc, cst(b, loc, x, 1.0),
      arith::AddFOp::create(b, loc, cst(b, loc, x, 1.0), negExp));
}

static Value clampValue(OpBuilder &b, Location loc, Value x, double lo,
                        double hi) {
  return arith::MinimumFOp::create(
      b, loc, arith::MaximumFOp::create(b, loc, x, cst(b, loc, x, lo)),
      cst(b, loc, x, hi));
}

/// The activation of `op` applied to one element.
static Value applyActivation(OpBuilder &b, Location loc, ActivationOp op,
                             Value x) {
  auto param = [&](FloatAttr attr, double fallback) {
    return attr ? attr.getValueAsDouble() : fallback;
  };
  switch (op.getKind()) {
  case ActivationKind::Relu:
    return arith::MaximumFOp::create(b, loc, x, cst(b, loc, x, 0.0));
  case ActivationKind::Relu6:
    return clampValue(b, loc, x, 0.0, 6.0);
  case ActivationKind::Clip:
    return clampValue(b, loc, x, param(op.getMinAttr(), 0.0),
                      param(op.getMaxAttr(), 0.0));
  case ActivationKind::LeakyRelu: {
    Value scaled = arith::MulFOp::create(
        b, loc, x, cst(b, loc, x, param(op.getAlphaAttr(), 0.01)));
    Value positive = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                           x, cst(b, loc, x, 0.0));
    return arith::SelectOp::create(b, loc, positive, x, scaled);
  }
  case ActivationKind::Sigmoid:
    return sigmoid(b, loc, x);
  case ActivationKind::HardSigmoid: {
    Value linear = arith::AddFOp::create(
        b, loc,
        arith::MulFOp::create(b, loc, x,
                              cst(b, loc, x, param(op.getAlphaAttr(), 0.2))),
        cst(b, loc, x, param(op.getBetaAttr(), 0.5)));
    return clampValue(b, loc, linear, 0.0, 1.0);
  }
  case ActivationKind::Swish:
    return arith::MulFOp::create(b, loc, x, sigmoid(b, loc, x));
  case ActivationKind::HardSwish: {
    Value shifted = arith::AddFOp::create(b, loc, x, cst(b, loc, x, 3.0));
    Value gate = arith::DivFOp::create(b, loc, clampValue(b, loc, shifted, 0.0,
                                                          6.0),
                                       cst(b, loc, x, 6.0));
    return arith::MulFOp::create(b, loc, x, gate);
  }
  case ActivationKind::Tanh:
    return math::TanhOp::create(b, loc, x);
  case ActivationKind::Gelu: {
    // 0.5 * x * (1 + erf(x / sqrt(2))), the exact GELU.
    Value scaled =
        arith::MulFOp::create(b, loc, x, cst(b, loc, x, M_SQRT1_2));
    Value erf = math::ErfOp::create(b, loc, scaled);
    Value onePlus = arith::AddFOp::create(b, loc, erf, cst(b, loc, x, 1.0));
    return arith::MulFOp::create(
        b, loc, arith::MulFOp::create(b, loc, x, cst(b, loc, x, 0.5)),
        onePlus);
  }
  case ActivationKind::GeluTanh: {
    // 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))).
    Value cube = arith::MulFOp::create(
        b, loc, x, arith::MulFOp::create(b, loc, x, x));
    Value inner = arith::AddFOp::create(
        b, loc, x,
        arith::MulFOp::create(b, loc, cube,
                              cst(b, loc, x, ActivationOp::kGeluTanhCubic)));
    Value tanh = math::TanhOp::create(
        b, loc,
        arith::MulFOp::create(b, loc, inner,
                              cst(b, loc, x, ActivationOp::kGeluTanhScale)));
    Value onePlus = arith::AddFOp::create(b, loc, tanh, cst(b, loc, x, 1.0));
    return arith::MulFOp::create(
        b, loc, arith::MulFOp::create(b, loc, x, cst(b, loc, x, 0.5)),
        onePlus);
  }
  case ActivationKind::Elu: {
    Value expm1 = math::ExpM1Op::create(b, loc, x);
    Value negative = arith::MulFOp::create(
        b, loc, expm1, cst(b, loc, x, param(op.getAlphaAttr(), 1.0)));
    Value positive = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                           x, cst(b, loc, x, 0.0));
    return arith::SelectOp::create(b, loc, positive, x, negative);
  }
  case ActivationKind::Softplus: {
    // log(1 + exp(x)) = max(x, 0) + log1p(exp(-|x|)), without overflow.
    Value absX = math::AbsFOp::create(b, loc, x);
    Value tail = math::Log1pOp::create(
        b, loc,
        math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, absX)));
    return arith::AddFOp::create(
        b, loc, arith::MaximumFOp::create(b, loc, x, cst(b, loc, x, 0.0)),
        tail);
  }
  case ActivationKind::Linear:
    return x;
  }
  llvm_unreachable("activation kinds are verified");
}

namespace {
struct ActivationLowering : OpRewritePattern<ActivationOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ActivationOp op,
                                PatternRewriter &rewriter) const override {
    Value result = buildElementwise(
        rewriter, op.getLoc(), op.getType(), op.getInput(),
        [&](OpBuilder &b, Location l, ValueRange args) {
          return applyActivation(b, l, op, args[0]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Add and Multiply: fold the inputs left to right with `Combine`.
template <typename OpT, typename Combine>
struct VariadicLowering : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    Value result = buildElementwise(
        rewriter, op.getLoc(), resultType, op.getInputs(),
        [](OpBuilder &b, Location l, ValueRange args) {
          Value acc = args.front();
          for (Value next : args.drop_front())
            acc = Combine::create(b, l, acc, next);
          return acc;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// (x - mean) * (scale / sqrt(variance + eps)) + bias, per channel.
struct BatchNormLowering : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchNormOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    MLIRContext *ctx = rewriter.getContext();
    int64_t rank = type.getRank();
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    AffineMap channel =
        AffineMap::get(rank, 0, getAffineDimExpr(op.getChannelAxis(), ctx));
    SmallVector<AffineMap> maps = {identity, channel, channel, channel,
                                   channel, identity};
    Value init = createEmpty(rewriter, loc, type,
                             getDynamicSizes(rewriter, loc, op.getInput(),
                                             type));
    double epsilon = op.getEpsilon().convertToDouble();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type,
        ValueRange{op.getInput(), op.getScale(), op.getBias(), op.getMean(),
                   op.getVariance()},
        init, maps,
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = args[0], scale = args[1], bias = args[2], mean = args[3],
                var = args[4];
          Value inv = math::RsqrtOp::create(
              b, l, arith::AddFOp::create(b, l, var, cst(b, l, var, epsilon)));
          Value centered = arith::SubFOp::create(b, l, x, mean);
          Value normalized = arith::MulFOp::create(
              b, l, centered, arith::MulFOp::create(b, l, scale, inv));
          linalg::YieldOp::create(
              b, l, Value(arith::AddFOp::create(b, l, normalized, bias)));
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// exp(x - max) / sum(exp(x - max)) along the axis: two reductions and two
/// element-wise generics.
struct SoftmaxLowering : OpRewritePattern<SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank();
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    Type element = type.getElementType();
    MLIRContext *ctx = rewriter.getContext();

    SmallVector<int64_t> reducedShape;
    SmallVector<int64_t> keptDims;
    SmallVector<AffineExpr> keptExprs;
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis) {
        reducedShape.push_back(type.getDimSize(d));
        keptDims.push_back(d);
        keptExprs.push_back(getAffineDimExpr(d, ctx));
      }
    auto reducedType = RankedTensorType::get(reducedShape, element);
    SmallVector<Value> reducedDyn =
        getDynamicSizes(rewriter, loc, op.getInput(), reducedType, keptDims);
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    AffineMap reducedMap = AffineMap::get(rank, 0, keptExprs, ctx);
    SmallVector<utils::IteratorType> reduction(rank,
                                               utils::IteratorType::parallel);
    reduction[axis] = utils::IteratorType::reduction;
    SmallVector<utils::IteratorType> parallel(rank,
                                              utils::IteratorType::parallel);

    auto reduce = [&](Value source, TypedAttr start, bool isMax) {
      Value init = createFilled(rewriter, loc, reducedType, reducedDyn, start);
      return linalg::GenericOp::create(
                 rewriter, loc, reducedType, source, init,
                 SmallVector<AffineMap>{identity, reducedMap}, reduction,
                 [&](OpBuilder &b, Location l, ValueRange args) {
                   Value v = isMax ? Value(arith::MaximumFOp::create(
                                         b, l, args[0], args[1]))
                                   : Value(arith::AddFOp::create(b, l, args[0],
                                                                 args[1]));
                   linalg::YieldOp::create(b, l, v);
                 })
          .getResult(0);
    };
    auto combine = [&](Value full, Value reduced, bool isExpSub) {
      Value init = createEmpty(
          rewriter, loc, type,
          getDynamicSizes(rewriter, loc, op.getInput(), type));
      return linalg::GenericOp::create(
                 rewriter, loc, type, ValueRange{full, reduced}, init,
                 SmallVector<AffineMap>{identity, reducedMap, identity},
                 parallel,
                 [&](OpBuilder &b, Location l, ValueRange args) {
                   Value v =
                       isExpSub
                           ? Value(math::ExpOp::create(
                                 b, l,
                                 arith::SubFOp::create(b, l, args[0], args[1])))
                           : Value(arith::DivFOp::create(b, l, args[0],
                                                         args[1]));
                   linalg::YieldOp::create(b, l, v);
                 })
          .getResult(0);
    };
    Value max = reduce(op.getInput(), getNegativeInfinity(rewriter, element),
                       /*isMax=*/true);
    Value exps = combine(op.getInput(), max, /*isExpSub=*/true);
    Value sum = reduce(exps, rewriter.getFloatAttr(element, 0.0), false);
    rewriter.replaceOp(op, combine(exps, sum, /*isExpSub=*/false));
    return success();
  }
};

struct DropoutLowering : OpRewritePattern<DropoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DropoutOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, op.getInput());
    return success();
  }
};
} // namespace

void mlir::quant_qdq::populateElementwiseToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ActivationLowering, VariadicLowering<AddOp, arith::AddFOp>,
               VariadicLowering<MultiplyOp, arith::MulFOp>, BatchNormLowering,
               SoftmaxLowering, DropoutLowering>(patterns.getContext());
}
