//===- LayerCanonicalization.cpp - layers written as several ops ----------===//
//
// Exporters spell some layers as a few primitive ops: swish as
// x * sigmoid(x), a fully connected layer with bias as MatMul + Add, a
// layer or RMS normalization's scale and bias as a Mul and an Add after it,
// GELU as its formula (GeluFusion.cpp). These canonicalizations give them
// back their one-layer form, so that insertion cases and TensorRT's fusions
// see one layer. They keep the name and location of the op that is the
// layer (the multiply; the dense; the normalization).
//
//===----------------------------------------------------------------------===//

#include "LayerFusions.h"
#include "QuantQDQ/IR/LayerConstants.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/IR/PatternMatch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
/// x * sigmoid(x) -> swish(x); x * hard_sigmoid(x) with the hard-swish
/// constants (alpha 1/6, beta 1/2) -> hard_swish(x).
struct FuseGatedActivation : OpRewritePattern<MultiplyOp> {
  using OpRewritePattern::OpRewritePattern;

  static bool isHardSwishGate(ActivationOp gate) {
    return gate.getKind() == ActivationKind::HardSigmoid && gate.getAlpha() &&
           gate.getBeta() &&
           std::abs(gate.getAlpha()->convertToFloat() - 1.0f / 6.0f) < 1e-6f &&
           std::abs(gate.getBeta()->convertToFloat() - 0.5f) < 1e-6f;
  }

  LogicalResult matchAndRewrite(MultiplyOp mul,
                                PatternRewriter &rewriter) const override {
    if (mul.getInputs().size() != 2)
      return failure();
    for (int i : {0, 1}) {
      Value x = mul.getInputs()[i], gateValue = mul.getInputs()[1 - i];
      auto gate = gateValue.getDefiningOp<ActivationOp>();
      if (!gate || gate.getInput() != x || !gateValue.hasOneUse() ||
          x.getType() != mul.getType())
        continue;
      ActivationKind kind;
      if (gate.getKind() == ActivationKind::Sigmoid)
        kind = ActivationKind::Swish;
      else if (isHardSwishGate(gate))
        kind = ActivationKind::HardSwish;
      else
        continue;
      auto fused = ActivationOp::create(
          rewriter, mul.getLoc(), x.getType(), x,
          ActivationKindAttr::get(getContext(), kind), mul.getNameAttr(),
          /*alpha=*/FloatAttr(), /*beta=*/FloatAttr(), /*min=*/FloatAttr(),
          /*max=*/FloatAttr());
      rewriter.replaceOp(mul, fused.getResult());
      rewriter.eraseOp(gate);
      return success();
    }
    return failure();
  }
};

/// add(dense(x, W), b) with a constant vector b of the dense's width, the
/// dense read by nothing else -> dense(x, W, b).
struct FuseDenseBias : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AddOp add,
                                PatternRewriter &rewriter) const override {
    if (add.getInputs().size() != 2)
      return failure();
    for (int i : {0, 1}) {
      auto dense = add.getInputs()[i].getDefiningOp<DenseOp>();
      if (!dense || dense.getBias() || !dense->hasOneUse() ||
          dense.getType() != add.getType())
        continue;
      RankedTensorType outType = dense.getOutput().getType();
      Value bias = getBiasVector(rewriter, add.getInputs()[1 - i],
                                 outType.getShape().back(),
                                 outType.getElementType());
      if (!bias)
        continue;
      auto fused = DenseOp::create(
          rewriter, dense.getLoc(), outType, dense.getInput(),
          dense.getWeight(), bias, dense.getNameAttr(),
          dense.getTransposeWeightAttr());
      rewriter.replaceOp(add, fused.getResult());
      rewriter.eraseOp(dense);
      return success();
    }
    return failure();
  }
};
} // namespace

/// Whether `norm` can take a scale (`isScale`) or a bias: layer_norm one
/// that it lacks, unless it has a bias (the scale comes first); rms_norm
/// only a scale that it lacks.
static bool canTake(LayerNormOp norm, bool isScale) {
  return !norm.getBias() && !(isScale && norm.getScale());
}
static bool canTake(RMSNormOp norm, bool isScale) {
  return isScale && !norm.getScale();
}

/// `norm` with `parameter` as its scale or its bias.
static Value createWith(PatternRewriter &rewriter, LayerNormOp norm,
                        Value parameter, bool isScale) {
  return LayerNormOp::create(rewriter, norm.getLoc(), norm.getType(),
                             norm.getInput(),
                             isScale ? parameter : norm.getScale(),
                             isScale ? Value() : parameter, norm.getNameAttr(),
                             norm.getAxisAttr(), norm.getEpsilonAttr())
      .getResult();
}
static Value createWith(PatternRewriter &rewriter, RMSNormOp norm,
                        Value parameter, bool) {
  return RMSNormOp::create(rewriter, norm.getLoc(), norm.getType(),
                           norm.getInput(), parameter, norm.getNameAttr(),
                           norm.getAxisAttr(), norm.getEpsilonAttr())
      .getResult();
}

namespace {
/// multiply(norm(x), scale) and add(norm(x), bias) with a constant that
/// fits the normalized dimensions, the norm (layer_norm, or rms_norm for a
/// scale) read by nothing else and able to take that parameter -> one norm.
template <typename OpT, typename NormOpT, bool IsScale>
struct FuseNormParameter : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    if (op.getInputs().size() != 2)
      return failure();
    for (int i : {0, 1}) {
      auto norm = op.getInputs()[i].template getDefiningOp<NormOpT>();
      Value parameter = op.getInputs()[1 - i];
      auto type = dyn_cast<RankedTensorType>(parameter.getType());
      if (!norm || !norm->hasOneUse() || norm.getType() != op.getType() ||
          !canTake(norm, IsScale) || !type || !getConstantAttr(parameter) ||
          !norm.fitsNormalizedDims(type))
        continue;
      rewriter.replaceOp(op, createWith(rewriter, norm, parameter, IsScale));
      rewriter.eraseOp(norm);
      return success();
    }
    return failure();
  }
};
} // namespace

void MultiplyOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                             MLIRContext *context) {
  patterns.add<FuseGatedActivation,
               FuseNormParameter<MultiplyOp, LayerNormOp, true>,
               FuseNormParameter<MultiplyOp, RMSNormOp, true>>(context);
  populateGeluFusionPatterns(patterns);
}

void AddOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                        MLIRContext *context) {
  patterns.add<FuseDenseBias, FuseNormParameter<AddOp, LayerNormOp, false>>(
      context);
}
