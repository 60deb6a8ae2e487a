//===- Activations.cpp - activations, Clip and Softmax --------------------===//
//
// Import: element-wise activations -> activation (Clip by its bounds:
// relu6, relu or clip), Softmax -> softmax. Clip and Softmax changed
// meaning across opsets; each range has its own pattern.
//
// Export: the same nodes back, in the form of the module's opset (Clip's
// bounds as attributes before 11, inputs from it on); activations ONNX has
// no node for at that opset are written as the nodes that compute them:
// swish as x * Sigmoid(x), hard swish before 14 as x * HardSigmoid(x),
// gelu before 20 as x * 0.5 * (1 + Erf(x / sqrt 2)) (its tanh
// approximation with Tanh).
//
//===----------------------------------------------------------------------===//

#include "PatternUtils.h"

#include <cmath>

using namespace mlir;
using namespace mlir::quant_qdq;
using namespace mlir::quant_qdq::onnx_patterns;

/// Replaces the node by `quant_qdq.activation kind` on `x`.
static LogicalResult replaceByActivation(ONNXNode node,
                                         PatternRewriter &rewriter, Value x,
                                         ActivationKind kind,
                                         ArrayRef<NamedAttribute> params = {}) {
  SmallVector<NamedAttribute> attrs(params.begin(), params.end());
  attrs.push_back(rewriter.getNamedAttr(
      "kind", ActivationKindAttr::get(rewriter.getContext(), kind)));
  return replaceNode(rewriter, node,
                     node.createLayer(rewriter,
                                      ActivationOp::getOperationName(), {x},
                                      attrs, x.getType()));
}

static LogicalResult convertActivation(ONNXNode node,
                                       PatternRewriter &rewriter) {
  Value x = node.getInput(0);
  if (!getFloatTensor(x))
    return failure();
  static const llvm::StringMap<ActivationKind> simple = {
      {"Relu", ActivationKind::Relu},
      {"Sigmoid", ActivationKind::Sigmoid},
      {"Tanh", ActivationKind::Tanh},
      {"Softplus", ActivationKind::Softplus},
      {"HardSwish", ActivationKind::HardSwish}};
  StringRef op = node.getOpType();
  if (auto it = simple.find(op); it != simple.end())
    return replaceByActivation(node, rewriter, x, it->second);

  SmallVector<NamedAttribute> params;
  ActivationKind kind;
  float defaultAlpha;
  if (op == "LeakyRelu") {
    kind = ActivationKind::LeakyRelu;
    defaultAlpha = 0.01f;
  } else if (op == "Elu") {
    kind = ActivationKind::Elu;
    defaultAlpha = 1.0f;
  } else { // HardSigmoid
    kind = ActivationKind::HardSigmoid;
    defaultAlpha = 0.2f;
    FailureOr<float> beta = node.getFloat("beta", 0.5f);
    if (failed(beta))
      return failure();
    params.push_back(
        rewriter.getNamedAttr("beta", rewriter.getF32FloatAttr(*beta)));
  }
  FailureOr<float> alpha = node.getFloat("alpha", defaultAlpha);
  if (failed(alpha))
    return failure();
  params.push_back(
      rewriter.getNamedAttr("alpha", rewriter.getF32FloatAttr(*alpha)));
  return replaceByActivation(node, rewriter, x, kind, params);
}

/// Gelu-20: exact, or its tanh approximation.
static LogicalResult convertGelu(ONNXNode node, PatternRewriter &rewriter) {
  Value x = node.getInput(0);
  if (!getFloatTensor(x))
    return failure();
  FailureOr<std::string> approximate = node.getString("approximate", "none");
  if (failed(approximate))
    return failure();
  if (*approximate != "none" && *approximate != "tanh")
    return node.emitError() << "approximate must be 'none' or 'tanh', got '"
                            << *approximate << "'";
  return replaceByActivation(node, rewriter, x,
                             *approximate == "tanh" ? ActivationKind::GeluTanh
                                                    : ActivationKind::Gelu);
}

/// Clip to [lo, hi] as the narrowest activation that says it.
static LogicalResult replaceByClip(ONNXNode node, PatternRewriter &rewriter,
                                   Value x, float lo, float hi) {
  if (std::isnan(lo) || std::isnan(hi) || lo > hi)
    return failure();
  if (lo == 0.0f && hi == 6.0f)
    return replaceByActivation(node, rewriter, x, ActivationKind::Relu6);
  if (lo == 0.0f && std::isinf(hi))
    return replaceByActivation(node, rewriter, x, ActivationKind::Relu);
  return replaceByActivation(
      node, rewriter, x, ActivationKind::Clip,
      {rewriter.getNamedAttr("min", rewriter.getF32FloatAttr(lo)),
       rewriter.getNamedAttr("max", rewriter.getF32FloatAttr(hi))});
}

/// Clip-1 and Clip-6: the bounds are attributes.
static LogicalResult convertClipAttributes(ONNXNode node,
                                           PatternRewriter &rewriter) {
  Value x = node.getInput(0);
  if (!getFloatTensor(x))
    return failure();
  FailureOr<float> min = node.getFloat("min", -INFINITY);
  FailureOr<float> max = node.getFloat("max", INFINITY);
  if (failed(min) || failed(max))
    return failure();
  return replaceByClip(node, rewriter, x, *min, *max);
}

/// Clip-11 on: the bounds are optional constant inputs.
static LogicalResult convertClipInputs(ONNXNode node,
                                       PatternRewriter &rewriter) {
  Value x = node.getInput(0);
  if (!getFloatTensor(x))
    return failure();
  float bounds[2] = {-INFINITY, INFINITY};
  for (int i : {1, 2}) {
    if (!node.hasInput(i))
      continue;
    std::optional<SmallVector<float>> bound =
        getConstantFloats(node.getInput(i));
    if (!bound || bound->size() != 1)
      return failure();
    bounds[i - 1] = bound->front();
  }
  return replaceByClip(node, rewriter, x, bounds[0], bounds[1]);
}

/// Softmax along `axis` (default `defaultAxis`). Before opset 13 the op
/// flattens at `axis` into 2-D, which is a softmax along one axis only when
/// `axis` is the last one (`lastAxisOnly`).
static LogicalResult convertSoftmax(ONNXNode node, PatternRewriter &rewriter,
                                    int64_t defaultAxis, bool lastAxisOnly) {
  Value x = node.getInput(0);
  RankedTensorType type = getFloatTensor(x);
  if (!type)
    return failure();
  FailureOr<int64_t> axis = node.getInt("axis", defaultAxis);
  if (failed(axis))
    return failure();
  int64_t rank = type.getRank();
  if (*axis < -rank || *axis >= rank)
    return node.emitError() << "axis " << *axis << " is outside [" << -rank
                            << ", " << rank - 1 << "]";
  int64_t normalized = *axis < 0 ? *axis + rank : *axis;
  if (lastAxisOnly && normalized != rank - 1)
    return failure();
  SmallVector<NamedAttribute> attrs;
  if (normalized != rank - 1)
    attrs.push_back(
        rewriter.getNamedAttr("axis", rewriter.getI64IntegerAttr(normalized)));
  return replaceNode(rewriter, node,
                     node.createLayer(rewriter, SoftmaxOp::getOperationName(),
                                      {x}, attrs, x.getType()));
}

static LogicalResult convertSoftmaxFlattening(ONNXNode node,
                                              PatternRewriter &rewriter) {
  return convertSoftmax(node, rewriter, /*defaultAxis=*/1,
                        /*lastAxisOnly=*/true);
}

static LogicalResult convertSoftmaxAlongAxis(ONNXNode node,
                                             PatternRewriter &rewriter) {
  return convertSoftmax(node, rewriter, /*defaultAxis=*/-1,
                        /*lastAxisOnly=*/false);
}

//===----------------------------------------------------------------------===//
// Export
//===----------------------------------------------------------------------===//

static LogicalResult exportSoftmax(SoftmaxOp op, ONNXNodeBuilder &b) {
  int64_t rank = op.getInput().getType().getRank();
  // I64Attr accessors return uint64_t: compare as int64_t.
  int64_t axis = op.getAxis();
  if (axis < 0)
    axis += rank;
  if (b.getOpset() < 13 && axis != rank - 1)
    return b.emitError() << "before opset 13 ONNX Softmax works on the last "
                            "axis only";
  return b.replaceWith("Softmax", op.getInput(), {b.getIntAttr("axis", axis)});
}

/// Clip to [lo, hi]: attributes before opset 11, inputs from it on.
static LogicalResult exportClip(ActivationOp op, ONNXNodeBuilder &b, float lo,
                                float hi) {
  if (b.getOpset() < 11)
    return b.replaceWith(
        "Clip", op.getInput(),
        {b.getFloatAttr("min", lo), b.getFloatAttr("max", hi)});
  Type elementType = op.getInput().getType().getElementType();
  return b.replaceWith("Clip",
                       {op.getInput(), b.createScalar(lo, elementType, "min"),
                        b.createScalar(hi, elementType, "max")});
}

/// x * gate(x).
static LogicalResult exportGated(ActivationOp op, ONNXNodeBuilder &b,
                                 StringRef gateType,
                                 ArrayRef<NamedAttribute> gateAttrs = {}) {
  Value x = op.getInput();
  Value gate = b.create(gateType, x, x.getType(), gateAttrs, "gate");
  return b.replaceWith("Mul", {x, gate});
}

/// gelu(x) = x * 0.5 * (1 + erf(x / sqrt(2))), and its tanh approximation
/// x * 0.5 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))): ONNX Gelu
/// from opset 20, the formula before.
static LogicalResult exportGelu(ActivationOp op, ONNXNodeBuilder &b) {
  bool isTanh = op.getKind() == ActivationKind::GeluTanh;
  Value x = op.getInput();
  if (b.getOpset() >= 20)
    return b.replaceWith("Gelu", x,
                         {b.getStringAttr("approximate",
                                          isTanh ? "tanh" : "none")});
  Type type = x.getType();
  Type elementType = op.getInput().getType().getElementType();
  auto scalar = [&](double value, StringRef name) {
    return b.createScalar(value, elementType, name);
  };
  Value gate;
  if (isTanh) {
    Value square = b.create("Mul", {x, x}, type, {}, "square");
    Value cube = b.create("Mul", {x, square}, type, {}, "cube");
    Value cubic = b.create(
        "Mul", {cube, scalar(ActivationOp::kGeluTanhCubic, "coefficient")},
        type, {}, "cubic");
    Value inner = b.create("Add", {x, cubic}, type, {}, "inner");
    Value argument = b.create(
        "Mul",
        {inner, scalar(ActivationOp::kGeluTanhScale, "sqrt_2_over_pi")}, type,
        {}, "argument");
    gate = b.create("Tanh", argument, type, {}, "tanh");
  } else {
    Value scaled =
        b.create("Div", {x, scalar(M_SQRT2, "sqrt2")}, type, {}, "scaled");
    gate = b.create("Erf", scaled, type, {}, "erf");
  }
  Value plusOne =
      b.create("Add", {gate, scalar(1.0, "one")}, type, {}, "plus_one");
  Value halved =
      b.create("Mul", {plusOne, scalar(0.5, "half")}, type, {}, "gate");
  return b.replaceWith("Mul", {x, halved});
}

static LogicalResult exportActivation(ActivationOp op, ONNXNodeBuilder &b) {
  auto param = [](std::optional<APFloat> v, float d) {
    return v ? v->convertToFloat() : d;
  };
  Value x = op.getInput();
  switch (op.getKind()) {
  case ActivationKind::Relu:
    return b.replaceWith("Relu", x);
  case ActivationKind::Sigmoid:
    return b.replaceWith("Sigmoid", x);
  case ActivationKind::Tanh:
    return b.replaceWith("Tanh", x);
  case ActivationKind::Softplus:
    return b.replaceWith("Softplus", x);
  case ActivationKind::Linear:
    return b.forward(x);
  case ActivationKind::Relu6:
    return exportClip(op, b, 0.0f, 6.0f);
  case ActivationKind::Clip:
    return exportClip(op, b, param(op.getMin(), -INFINITY),
                      param(op.getMax(), INFINITY));
  case ActivationKind::LeakyRelu:
    return b.replaceWith(
        "LeakyRelu", x, {b.getFloatAttr("alpha", param(op.getAlpha(), 0.01f))});
  case ActivationKind::Elu:
    return b.replaceWith("Elu", x,
                         {b.getFloatAttr("alpha", param(op.getAlpha(), 1.0f))});
  case ActivationKind::HardSigmoid:
    return b.replaceWith("HardSigmoid", x,
                         {b.getFloatAttr("alpha", param(op.getAlpha(), 0.2f)),
                          b.getFloatAttr("beta", param(op.getBeta(), 0.5f))});
  case ActivationKind::Swish:
    return exportGated(op, b, "Sigmoid");
  case ActivationKind::HardSwish:
    if (b.getOpset() >= 14)
      return b.replaceWith("HardSwish", x);
    return exportGated(op, b, "HardSigmoid",
                       {b.getFloatAttr("alpha", 1.0 / 6.0),
                        b.getFloatAttr("beta", 0.5)});
  case ActivationKind::Gelu:
  case ActivationKind::GeluTanh:
    return exportGelu(op, b);
  }
  return b.emitError() << "activation has no ONNX form";
}

void onnx_patterns::populateActivationExports(RewritePatternSet &patterns) {
  addExport<SoftmaxOp, exportSoftmax>(patterns);
  addExport<ActivationOp, exportActivation>(patterns);
}

//===----------------------------------------------------------------------===//
// Import
//===----------------------------------------------------------------------===//

void onnx_patterns::populateActivationPatterns(RewritePatternSet &patterns) {
  addConversion<convertActivation>(
      patterns, {"Relu", "Sigmoid", "Tanh", "Softplus", "HardSwish",
                 "HardSigmoid", "LeakyRelu", "Elu"});
  addConversion<convertGelu>(patterns, {"Gelu"}, 20);
  addConversion<convertClipAttributes>(patterns, {"Clip"}, 1, 10);
  addConversion<convertClipInputs>(patterns, {"Clip"}, 11);
  addConversion<convertSoftmaxFlattening>(patterns, {"Softmax"}, 1, 12);
  addConversion<convertSoftmaxAlongAxis>(patterns, {"Softmax"}, 13);
}
