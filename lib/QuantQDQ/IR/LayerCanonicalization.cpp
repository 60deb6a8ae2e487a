//===- LayerCanonicalization.cpp - layers written as several ops ----------===//
//
// Exporters spell some layers as a few primitive ops: swish as
// x * sigmoid(x), a fully connected layer with bias as MatMul + Add. These
// canonicalizations give them back their one-layer form, so that insertion
// cases and TensorRT's fusions see one layer. They keep the name and
// location of the op that is the layer (the multiply; the dense).
//
//===----------------------------------------------------------------------===//

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

/// GELU as exporters spell it, x * 0.5 * (1 + erf(x / sqrt 2)) in any
/// association of the products, the 1/sqrt 2 as a Div or a Mul -> one
/// gelu activation. Every op of the formula but x must have no other
/// reader. (The tanh approximation is another function and is not matched.)
class FuseGelu : public OpRewritePattern<MultiplyOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MultiplyOp outer,
                                PatternRewriter &rewriter) const override {
    SmallVector<Operation *> formula;
    Value x = matchGelu(outer, formula);
    if (!x || x.getType() != outer.getType())
      return failure();
    auto gelu = ActivationOp::create(
        rewriter, outer.getLoc(), x.getType(), x,
        ActivationKindAttr::get(getContext(), ActivationKind::Gelu),
        outer.getNameAttr(), FloatAttr(), FloatAttr(), FloatAttr(),
        FloatAttr());
    rewriter.replaceOp(outer, gelu.getResult());
    // Users before producers: each is dead once the one above it is gone.
    for (Operation *op : formula)
      rewriter.eraseOp(op);
    return success();
  }

private:
  /// The one value of a constant holding a single float, if `v` is one.
  static std::optional<double> getScalar(Value v) {
    ElementsAttr attr = getConstantAttr(v);
    if (!attr || attr.getNumElements() != 1 ||
        !isa<FloatType>(attr.getElementType()))
      return std::nullopt;
    auto values = attr.tryGetValues<APFloat>();
    if (!values)
      return std::nullopt;
    return (*values->begin()).convertToDouble();
  }

  static bool isNear(std::optional<double> value, double expected) {
    return value && std::abs(*value - expected) <= 1e-4 * std::abs(expected);
  }

  /// Whether `op` is the ONNX node `type` kept generic.
  static bool isNode(Operation *op, StringRef type) {
    auto generic = dyn_cast_or_null<GenericOp>(op);
    return generic && generic.getOpType() == type &&
           (!generic.getDomain() || generic.getDomain()->empty() ||
            *generic.getDomain() == "ai.onnx");
  }

  /// The operands of a two-input op of `v`'s producer that `v` alone reads
  /// (a formula's inner step), appending the producer to `formula`.
  static std::optional<std::pair<Value, Value>>
  getInnerOperands(Value v, SmallVectorImpl<Operation *> &formula) {
    Operation *op = v.getDefiningOp();
    if (!op || !v.hasOneUse() || op->getNumOperands() != 2 ||
        op->getNumResults() != 1)
      return std::nullopt;
    formula.push_back(op);
    return std::make_pair(op->getOperand(0), op->getOperand(1));
  }

  /// A product of two factors: a multiply, or an ONNX Mul kept generic.
  static bool isProduct(Operation *op) {
    return op && (isa<MultiplyOp>(op) || isNode(op, "Mul")) &&
           op->getNumOperands() == 2;
  }

  /// Whether `v` is x * c or c * x with the scalar c near `constant`, read
  /// by nothing else.
  static bool isScaled(Value v, Value x, double constant,
                       SmallVectorImpl<Operation *> &formula) {
    if (!isProduct(v.getDefiningOp()))
      return false;
    auto operands = getInnerOperands(v, formula);
    return operands &&
           ((operands->first == x && isNear(getScalar(operands->second),
                                            constant)) ||
            (operands->second == x &&
             isNear(getScalar(operands->first), constant)));
  }

  /// Whether `v` is 1 + erf(x / sqrt 2), appending its ops to `formula`.
  static bool isErfGate(Value v, Value x,
                        SmallVectorImpl<Operation *> &formula) {
    Operation *add = v.getDefiningOp();
    if (!isa_and_nonnull<AddOp>(add) && !isNode(add, "Add"))
      return false;
    auto addends = getInnerOperands(v, formula);
    if (!addends)
      return false;
    Value erf = isNear(getScalar(addends->second), 1.0)  ? addends->first
                : isNear(getScalar(addends->first), 1.0) ? addends->second
                                                         : Value();
    Operation *erfOp = erf ? erf.getDefiningOp() : nullptr;
    if (!isNode(erfOp, "Erf") || !erf.hasOneUse())
      return false;
    formula.push_back(erfOp);
    Value scaled = erfOp->getOperand(0);
    Operation *div = scaled.getDefiningOp();
    if (isNode(div, "Div")) {
      auto operands = getInnerOperands(scaled, formula);
      return operands && operands->first == x &&
             isNear(getScalar(operands->second), M_SQRT2);
    }
    return isScaled(scaled, x, M_SQRT1_2, formula);
  }

  /// The factors of the product `v`, looking through inner products that
  /// nothing else reads (appended to `formula`).
  static void collectFactors(Value v, SmallVectorImpl<Value> &factors,
                             SmallVectorImpl<Operation *> &formula) {
    Operation *op = v.getDefiningOp();
    if (!isProduct(op) || !v.hasOneUse()) {
      factors.push_back(v);
      return;
    }
    formula.push_back(op);
    collectFactors(op->getOperand(0), factors, formula);
    collectFactors(op->getOperand(1), factors, formula);
  }

  /// x when `outer` is the last product of a GELU formula on x, filling
  /// `formula` with the formula's other ops, users first. The formula is a
  /// product of three factors, x, 0.5 and the gate, in any association.
  static Value matchGelu(MultiplyOp outer,
                         SmallVectorImpl<Operation *> &formula) {
    if (outer.getInputs().size() != 2)
      return {};
    SmallVector<Value, 3> factors;
    for (Value input : outer.getInputs())
      collectFactors(input, factors, formula);
    if (factors.size() != 3)
      return {};
    auto half = llvm::find_if(
        factors, [](Value v) { return isNear(getScalar(v), 0.5); });
    if (half == factors.end())
      return {};
    factors.erase(half);
    for (auto [x, gate] : {std::make_pair(factors[0], factors[1]),
                           std::make_pair(factors[1], factors[0])}) {
      size_t mark = formula.size();
      if (isErfGate(gate, x, formula))
        return x;
      formula.resize(mark);
    }
    return {};
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

void MultiplyOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                             MLIRContext *context) {
  patterns.add<FuseGatedActivation, FuseGelu>(context);
}

void AddOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                        MLIRContext *context) {
  patterns.add<FuseDenseBias>(context);
}
