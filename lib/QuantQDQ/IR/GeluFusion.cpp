//===- GeluFusion.cpp - GELU written out becomes one activation -----------===//
//
// Exporters spell GELU as products and sums around an Erf or a Tanh:
//   exact: x * 0.5 * (1 + erf(x / sqrt 2))
//   tanh:  x * 0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
// in any association of the products, x^3 as a Pow or as products of x.
// Matching the formula as a product of factors makes the association
// irrelevant: the outer product's factors are x, 0.5 and the gate. Every
// op of the formula but x must have no other reader.
//
//===----------------------------------------------------------------------===//

#include "LayerFusions.h"
#include "QuantQDQ/IR/LayerConstants.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/IR/PatternMatch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::quant_qdq;

/// The ops of one formula, users before producers.
using Formula = SmallVector<Operation *>;

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
  return generic && generic.isDefaultDomainNode(type);
}

/// The op producing `v` when `v` is its only result and `v` has one
/// reader: a formula's inner step, appended to `formula`.
static Operation *takeStep(Value v, Formula &formula) {
  Operation *op = v.getDefiningOp();
  if (!op || !v.hasOneUse() || op->getNumResults() != 1)
    return nullptr;
  formula.push_back(op);
  return op;
}

/// The factors of the product `v`, looking through inner products that
/// nothing else reads (appended to `formula`).
static void collectFactors(Value v, SmallVectorImpl<Value> &factors,
                           Formula &formula) {
  Operation *op = v.getDefiningOp();
  if (!MultiplyOp::isBinaryForm(op) || !v.hasOneUse()) {
    factors.push_back(v);
    return;
  }
  formula.push_back(op);
  collectFactors(op->getOperand(0), factors, formula);
  collectFactors(op->getOperand(1), factors, formula);
}

/// Removes from `factors` one scalar constant near `constant`; whether
/// there was one.
static bool takeConstantFactor(SmallVectorImpl<Value> &factors,
                               double constant) {
  auto it = llvm::find_if(
      factors, [&](Value v) { return isNear(getScalar(v), constant); });
  if (it == factors.end())
    return false;
  factors.erase(it);
  return true;
}

/// Whether `factors` are exactly x, c and nothing else, in any order.
static bool isScaledBy(SmallVectorImpl<Value> &factors, Value x, double c) {
  return takeConstantFactor(factors, c) && factors.size() == 1 &&
         factors.front() == x;
}

/// Whether `v` is x^3: Pow(x, 3), or a product of three x.
static bool isCube(Value v, Value x, Formula &formula) {
  if (isNode(v.getDefiningOp(), "Pow")) {
    Operation *pow = takeStep(v, formula);
    return pow && pow->getOperand(0) == x &&
           isNear(getScalar(pow->getOperand(1)), 3.0);
  }
  SmallVector<Value, 3> factors;
  collectFactors(v, factors, formula);
  return factors.size() == 3 && llvm::all_equal(factors) &&
         factors.front() == x;
}

/// Whether `v` is 1 + g(argument) with g the Erf node or the tanh
/// activation; the argument then.
static Value getOnePlus(Value v, bool isErf, Formula &formula) {
  if (!AddOp::isBinaryForm(v.getDefiningOp()))
    return {};
  Operation *sum = takeStep(v, formula);
  if (!sum)
    return {};
  Value g = isNear(getScalar(sum->getOperand(1)), 1.0)   ? sum->getOperand(0)
            : isNear(getScalar(sum->getOperand(0)), 1.0) ? sum->getOperand(1)
                                                         : Value();
  Operation *gate = g ? g.getDefiningOp() : nullptr;
  auto tanh = dyn_cast_or_null<ActivationOp>(gate);
  bool matches = isErf ? isNode(gate, "Erf")
                       : tanh && tanh.getKind() == ActivationKind::Tanh;
  if (!matches || !takeStep(g, formula))
    return {};
  return gate->getOperand(0);
}

/// Whether `gate` is 1 + erf(x / sqrt 2), the 1/sqrt 2 as a Div or a Mul.
static bool isErfGate(Value gate, Value x, Formula &formula) {
  Value scaled = getOnePlus(gate, /*isErf=*/true, formula);
  if (!scaled)
    return false;
  if (isNode(scaled.getDefiningOp(), "Div")) {
    Operation *div = takeStep(scaled, formula);
    return div && div->getOperand(0) == x &&
           isNear(getScalar(div->getOperand(1)), M_SQRT2);
  }
  if (!MultiplyOp::isBinaryForm(scaled.getDefiningOp()) ||
      !scaled.hasOneUse())
    return false;
  SmallVector<Value, 2> factors;
  collectFactors(scaled, factors, formula);
  return isScaledBy(factors, x, M_SQRT1_2);
}

/// Whether `gate` is 1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)).
static bool isTanhGate(Value gate, Value x, Formula &formula) {
  Value argument = getOnePlus(gate, /*isErf=*/false, formula);
  if (!argument || !MultiplyOp::isBinaryForm(argument.getDefiningOp()) ||
      !argument.hasOneUse())
    return false;
  SmallVector<Value, 2> factors;
  collectFactors(argument, factors, formula);
  if (!takeConstantFactor(factors, ActivationOp::kGeluTanhScale) ||
      factors.size() != 1 ||
      !AddOp::isBinaryForm(factors.front().getDefiningOp()))
    return false;
  Operation *inner = takeStep(factors.front(), formula);
  if (!inner)
    return false;
  for (int i : {0, 1}) {
    Value cubic = inner->getOperand(1 - i);
    if (inner->getOperand(i) != x ||
        !MultiplyOp::isBinaryForm(cubic.getDefiningOp()) ||
        !cubic.hasOneUse())
      continue;
    // 0.044715 * x^3: the constant and x^3, or the constant and three x.
    SmallVector<Value, 4> terms;
    collectFactors(cubic, terms, formula);
    if (!takeConstantFactor(terms, ActivationOp::kGeluTanhCubic))
      return false;
    if (terms.size() == 3)
      return llvm::all_equal(terms) && terms.front() == x;
    return terms.size() == 1 && isCube(terms.front(), x, formula);
  }
  return false;
}

namespace {
/// The product of x, 0.5 and a GELU gate on x -> activation gelu or
/// gelu_tanh.
class FuseGelu : public OpRewritePattern<MultiplyOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MultiplyOp outer,
                                PatternRewriter &rewriter) const override {
    if (outer.getInputs().size() != 2)
      return failure();
    Formula formula;
    SmallVector<Value, 3> factors;
    for (Value input : outer.getInputs())
      collectFactors(input, factors, formula);
    if (factors.size() != 3 || !takeConstantFactor(factors, 0.5))
      return failure();
    for (auto [x, gate] : {std::make_pair(factors[0], factors[1]),
                           std::make_pair(factors[1], factors[0])}) {
      if (x.getType() != outer.getType())
        continue;
      for (ActivationKind kind :
           {ActivationKind::Gelu, ActivationKind::GeluTanh}) {
        size_t mark = formula.size();
        bool matched = kind == ActivationKind::Gelu
                           ? isErfGate(gate, x, formula)
                           : isTanhGate(gate, x, formula);
        if (matched)
          return replace(outer, x, kind, formula, rewriter);
        formula.resize(mark);
      }
    }
    return failure();
  }

private:
  LogicalResult replace(MultiplyOp outer, Value x, ActivationKind kind,
                        Formula &formula, PatternRewriter &rewriter) const {
    auto gelu = ActivationOp::create(
        rewriter, outer.getLoc(), x.getType(), x,
        ActivationKindAttr::get(getContext(), kind), outer.getNameAttr(),
        FloatAttr(), FloatAttr(), FloatAttr(), FloatAttr());
    rewriter.replaceOp(outer, gelu.getResult());
    // Users before producers: each is dead once the one above it is gone.
    for (Operation *op : formula)
      rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void mlir::quant_qdq::populateGeluFusionPatterns(RewritePatternSet &patterns) {
  patterns.add<FuseGelu>(patterns.getContext());
}
