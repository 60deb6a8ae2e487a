//===- LayerCanonicalization.cpp - layers written as several ops ----------===//
//
// Exporters spell some layers as a few primitive ops: swish as
// x * sigmoid(x), a fully connected layer with bias as MatMul + Add, a
// layer normalization's scale and bias as a Mul and an Add after it, GELU
// as its formula (GeluFusion.cpp). These canonicalizations give them back
// their one-layer form, so that insertion cases and TensorRT's fusions see
// one layer. They keep the name and location of the op that is the layer
// (the multiply; the dense; the layer_norm).
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

/// multiply(layer_norm(x), scale) and add(layer_norm(x), bias) with a
/// constant that fits the normalized dimensions, the layer_norm read by
/// nothing else and without that parameter (nor, for a scale, a bias:
/// the scale comes first) -> one layer_norm.
template <typename OpT, bool IsScale>
struct FuseLayerNormParameter : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    if (op.getInputs().size() != 2)
      return failure();
    for (int i : {0, 1}) {
      auto norm = op.getInputs()[i].template getDefiningOp<LayerNormOp>();
      Value parameter = op.getInputs()[1 - i];
      auto type = dyn_cast<RankedTensorType>(parameter.getType());
      if (!norm || !norm->hasOneUse() || norm.getType() != op.getType() ||
          norm.getBias() || (IsScale && norm.getScale()) || !type ||
          !getConstantAttr(parameter) || !norm.fitsNormalizedDims(type))
        continue;
      Value scale = IsScale ? parameter : norm.getScale();
      Value bias = IsScale ? Value() : parameter;
      auto fused = LayerNormOp::create(
          rewriter, norm.getLoc(), norm.getType(), norm.getInput(), scale,
          bias, norm.getNameAttr(), norm.getAxisAttr(),
          norm.getEpsilonAttr());
      rewriter.replaceOp(op, fused.getResult());
      rewriter.eraseOp(norm);
      return success();
    }
    return failure();
  }
};
} // namespace

void MultiplyOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                             MLIRContext *context) {
  patterns.add<FuseGatedActivation, FuseLayerNormParameter<MultiplyOp, true>>(
      context);
  populateGeluFusionPatterns(patterns);
}

void AddOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                        MLIRContext *context) {
  patterns.add<FuseDenseBias, FuseLayerNormParameter<AddOp, false>>(context);
}
