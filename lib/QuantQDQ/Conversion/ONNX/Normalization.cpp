//===- Normalization.cpp - Batch, Layer and RMSNormalization --------------===//
//
// Import: inference-mode BatchNormalization -> batch_norm;
// LayerNormalization (opset 17 on) -> layer_norm; RMSNormalization (opset
// 23 on) -> rms_norm; and the formulas that exporters write before those,
//   x / Sqrt(ReduceMean(x^2) + eps) -> rms_norm,
//   (x - ReduceMean(x)) / Sqrt(ReduceMean((x - ReduceMean(x))^2) + eps)
//     -> layer_norm,
// without scale and bias (the Mul and Add of those follow and fold into the
// layer by canonicalization).
//
// Export: BatchNormalization; LayerNormalization from opset 17 and
// RMSNormalization from opset 23, those formulas before.
//
//===----------------------------------------------------------------------===//

#include "PatternUtils.h"

#include <cmath>

using namespace mlir;
using namespace mlir::quant_qdq;
using namespace mlir::quant_qdq::onnx_patterns;

//===----------------------------------------------------------------------===//
// BatchNormalization
//===----------------------------------------------------------------------===//

static LogicalResult convertBatchNorm(ONNXNode node,
                                      PatternRewriter &rewriter) {
  if (node.getNumInputs() != 5)
    return failure();
  SmallVector<Value> operands;
  for (int i = 0; i < 5; ++i) {
    Value v = node.getInput(i);
    RankedTensorType type = getFloatTensor(v);
    if (!type || (i > 0 && type.getRank() != 1) ||
        (i == 0 && type.getRank() < 2))
      return failure();
    operands.push_back(v);
  }
  FailureOr<float> epsilon = node.getFloat("epsilon", 1e-5f);
  FailureOr<int64_t> training = node.getInt("training_mode", 0);
  FailureOr<int64_t> spatial = node.getInt("spatial", 1);
  if (failed(epsilon) || failed(training) || failed(spatial) ||
      *training != 0 || *spatial != 1)
    return failure();
  SmallVector<NamedAttribute> attrs;
  if (*epsilon != 1e-5f)
    attrs.push_back(
        rewriter.getNamedAttr("epsilon", rewriter.getF32FloatAttr(*epsilon)));
  return replaceNode(rewriter, node,
                     node.createLayer(rewriter,
                                      BatchNormOp::getOperationName(),
                                      operands, attrs));
}

static LogicalResult exportBatchNorm(BatchNormOp op, ONNXNodeBuilder &b) {
  if (failed(requireNCHW(b, op.getLayout())))
    return failure();
  return b.replaceWith(
      "BatchNormalization", op->getOperands(),
      {b.getFloatAttr("epsilon", op.getEpsilon().convertToFloat())});
}

//===----------------------------------------------------------------------===//
// LayerNormalization
//===----------------------------------------------------------------------===//

/// A layer_norm of `x` with `axis` and `epsilon`, and `scale` and `bias`
/// when given, replacing `node`.
static LogicalResult replaceByLayerNorm(ONNXNode node,
                                        PatternRewriter &rewriter, Value x,
                                        Value scale, Value bias, int64_t axis,
                                        float epsilon) {
  SmallVector<Value, 3> operands = {x};
  if (scale)
    operands.push_back(scale);
  if (bias)
    operands.push_back(bias);
  SmallVector<NamedAttribute> attrs = {
      rewriter.getNamedAttr("operandSegmentSizes",
                            rewriter.getDenseI32ArrayAttr(
                                {1, scale ? 1 : 0, bias ? 1 : 0})),
      rewriter.getNamedAttr("axis", rewriter.getI64IntegerAttr(axis)),
      rewriter.getNamedAttr("epsilon", rewriter.getF32FloatAttr(epsilon))};
  return replaceNode(rewriter, node,
                     node.createLayer(rewriter,
                                      LayerNormOp::getOperationName(),
                                      operands, attrs, x.getType()));
}

/// The attributes LayerNormalization and RMSNormalization share.
struct NormalizationAttrs {
  int64_t axis;
  float epsilon;
  /// `stash_type` 1: computed in float, as the layers are.
  bool inFloat;
};

/// Reads them off `node`, whose input is of `type`; an axis outside the
/// rank is an error at the node.
static FailureOr<NormalizationAttrs>
getNormalizationAttrs(ONNXNode node, RankedTensorType type) {
  FailureOr<int64_t> axis = node.getInt("axis", -1);
  FailureOr<float> epsilon = node.getFloat("epsilon", 1e-5f);
  FailureOr<int64_t> stash = node.getInt("stash_type", 1);
  if (failed(axis) || failed(epsilon) || failed(stash))
    return failure();
  int64_t rank = type.getRank();
  if (*axis < -rank || *axis >= rank)
    return node.emitError() << "axis " << *axis << " is outside [" << -rank
                            << ", " << rank - 1 << "]";
  return NormalizationAttrs{*axis, *epsilon, *stash == 1};
}

/// LayerNormalization-17 whose mean and inverse deviation outputs nobody
/// reads (ONNXOpPattern checks), in float precision (`stash_type` 1).
static LogicalResult convertLayerNorm(ONNXNode node,
                                      PatternRewriter &rewriter) {
  Value x = node.getInput(0), scale = node.getInput(1),
        bias = node.getInput(2);
  RankedTensorType type = getFloatTensor(x);
  if (!type || !scale || !getFloatTensor(scale) ||
      (bias && !getFloatTensor(bias)))
    return failure();
  FailureOr<NormalizationAttrs> attrs = getNormalizationAttrs(node, type);
  if (failed(attrs) || !attrs->inFloat)
    return failure();
  return replaceByLayerNorm(node, rewriter, x, scale, bias, attrs->axis,
                            attrs->epsilon);
}

//===----------------------------------------------------------------------===//
// RMSNormalization
//===----------------------------------------------------------------------===//

/// An rms_norm of `x` with `axis` and `epsilon`, and `scale` when given,
/// replacing `node`.
static LogicalResult replaceByRMSNorm(ONNXNode node, PatternRewriter &rewriter,
                                      Value x, Value scale, int64_t axis,
                                      float epsilon) {
  SmallVector<Value, 2> operands = {x};
  if (scale)
    operands.push_back(scale);
  SmallVector<NamedAttribute> attrs = {
      rewriter.getNamedAttr("axis", rewriter.getI64IntegerAttr(axis)),
      rewriter.getNamedAttr("epsilon", rewriter.getF32FloatAttr(epsilon))};
  return replaceNode(rewriter, node,
                     node.createLayer(rewriter, RMSNormOp::getOperationName(),
                                      operands, attrs, x.getType()));
}

/// RMSNormalization-23 in float precision (`stash_type` 1) whose scale
/// broadcasts to the normalized dimensions (ONNX lets it span the others
/// too: such a node stays generic).
static LogicalResult convertRMSNorm(ONNXNode node, PatternRewriter &rewriter) {
  Value x = node.getInput(0), scale = node.getInput(1);
  RankedTensorType type = getFloatTensor(x);
  RankedTensorType scaleType = getFloatTensor(scale);
  if (!type || !scaleType)
    return failure();
  FailureOr<NormalizationAttrs> attrs = getNormalizationAttrs(node, type);
  if (failed(attrs) || !attrs->inFloat ||
      !RMSNormOp::fitsNormalizedDims(type, attrs->axis, scaleType))
    return failure();
  return replaceByRMSNorm(node, rewriter, x, scale, attrs->axis,
                          attrs->epsilon);
}

//===----------------------------------------------------------------------===//
// Normalizations written out
//===----------------------------------------------------------------------===//

namespace {
/// v / sqrt(mean(v^2) + epsilon), the mean over trailing axes, as exporters
/// write RMS normalization and the end of layer normalization (there v is
/// the centered input), matched from its last step: a Div by the root, or
/// a product with its Reciprocal or with 1 divided by it (torch's rsqrt).
/// Every step but v is read only by the formula. `formula` collects its
/// ops, users before producers, for erasure.
struct DecomposedNorm {
  Value normalized;
  int64_t axis = 0;
  float epsilon = 0.0f;
  SmallVector<Operation *> formula;

  bool match(ONNXNode root);
  /// x when `normalized` is x - ReduceMean(x) over the same axes and only
  /// the formula reads it: then the whole is a layer normalization of x.
  /// Adds the Sub and the mean to `formula`.
  Value matchCenteredInput(ONNXNode root);

private:
  /// The node producing `v` when it is the default-domain `opType` with one
  /// result that only the formula reads (`uses` times), and inputs.
  GenericOp getStep(Value v, StringRef opType, unsigned uses = 1);
  /// The first axis a keep-dims ReduceMean averages over, when its axes are
  /// the trailing ones from there on.
  std::optional<int64_t> getTrailingMeanAxis(GenericOp mean);
  /// r when `inverse` is Reciprocal(r) or 1 / r.
  Value getInverted(Value inverse);
  /// Whether `v` divided by `root` (into `resultType`) is the formula.
  bool matchQuotient(Value v, Value root, Type resultType);
  /// Whether `root` is Sqrt(ReduceMean(v^2) + epsilon); sets `epsilon` and
  /// `axis`.
  bool matchRootMeanSquare(Value root, Value v);
  bool isSquareOf(Value square, Value v);

  Operation *square = nullptr;
};
} // namespace

GenericOp DecomposedNorm::getStep(Value v, StringRef opType, unsigned uses) {
  auto op = v.getDefiningOp<GenericOp>();
  if (!op || !op.isDefaultDomainNode(opType) || op->getNumResults() != 1 ||
      op.getInputs().empty() || !llvm::hasNItems(v.getUses(), uses))
    return {};
  return op;
}

std::optional<int64_t> DecomposedNorm::getTrailingMeanAxis(GenericOp mean) {
  ONNXNode node(mean);
  RankedTensorType type = getFloatTensor(node.getInput(0));
  FailureOr<int64_t> keepDims = node.getInt("keepdims", 1);
  FailureOr<std::optional<SmallVector<int64_t>>> attrAxes =
      node.getInts("axes");
  if (!type || failed(keepDims) || *keepDims != 1 || failed(attrAxes))
    return std::nullopt;
  // Axes are an attribute before opset 18 and an input from it on.
  std::optional<SmallVector<int64_t>> axes = *attrAxes;
  if (!axes && node.hasInput(1))
    axes = getConstantInts(node.getInput(1));
  int64_t rank = type.getRank();
  if (!axes || axes->empty() || rank == 0)
    return std::nullopt;
  SmallVector<int64_t> sorted;
  for (int64_t a : *axes) {
    if (a < -rank || a >= rank)
      return std::nullopt;
    sorted.push_back(a < 0 ? a + rank : a);
  }
  llvm::sort(sorted);
  for (auto [i, a] : llvm::enumerate(sorted))
    if (a != rank - int64_t(sorted.size()) + int64_t(i))
      return std::nullopt;
  return sorted.front();
}

Value DecomposedNorm::getInverted(Value inverse) {
  if (GenericOp reciprocal = getStep(inverse, "Reciprocal")) {
    formula.push_back(reciprocal);
    return reciprocal.getInputs()[0];
  }
  GenericOp div = getStep(inverse, "Div");
  if (!div || div.getInputs().size() != 2)
    return {};
  std::optional<SmallVector<float>> one = getConstantFloats(div.getInputs()[0]);
  if (!one || one->size() != 1 || one->front() != 1.0f)
    return {};
  formula.push_back(div);
  return div.getInputs()[1];
}

/// Whether `square` is v^2: a Pow by 2 or a product of two copies.
bool DecomposedNorm::isSquareOf(Value square, Value v) {
  Operation *op = square.getDefiningOp();
  if (!op || !square.hasOneUse() || op->getNumOperands() != 2 ||
      op->getOperand(0) != v)
    return false;
  auto generic = dyn_cast<GenericOp>(op);
  if (generic && generic.isDefaultDomainNode("Pow")) {
    std::optional<SmallVector<float>> exponent =
        getConstantFloats(op->getOperand(1));
    if (!exponent || exponent->size() != 1 || exponent->front() != 2.0f)
      return false;
  } else if (!MultiplyOp::isBinaryForm(op) || op->getOperand(1) != v) {
    return false;
  }
  formula.push_back(op);
  this->square = op;
  return true;
}

bool DecomposedNorm::matchRootMeanSquare(Value root, Value v) {
  GenericOp sqrt = getStep(root, "Sqrt");
  if (!sqrt)
    return false;
  formula.push_back(sqrt);
  Value shifted = sqrt.getInputs()[0];
  Operation *sum = shifted.getDefiningOp();
  if (!AddOp::isBinaryForm(sum) || !shifted.hasOneUse())
    return false;
  formula.push_back(sum);
  // Epsilon is a constant scalar on either side.
  for (int i : {0, 1}) {
    std::optional<SmallVector<float>> eps =
        getConstantFloats(sum->getOperand(1 - i));
    if (!eps || eps->size() != 1 || !(eps->front() >= 0.0f) ||
        !std::isfinite(eps->front()))
      continue;
    GenericOp mean = getStep(sum->getOperand(i), "ReduceMean");
    std::optional<int64_t> meanAxis =
        mean ? getTrailingMeanAxis(mean) : std::nullopt;
    if (!meanAxis)
      return false;
    formula.push_back(mean);
    axis = *meanAxis;
    epsilon = eps->front();
    return isSquareOf(mean.getInputs()[0], v);
  }
  return false;
}

bool DecomposedNorm::matchQuotient(Value v, Value root, Type resultType) {
  // No broadcast may widen the result beyond v.
  RankedTensorType type = getFloatTensor(v);
  if (!type || resultType != type || !matchRootMeanSquare(root, v))
    return false;
  normalized = v;
  return true;
}

bool DecomposedNorm::match(ONNXNode root) {
  if (root.getNumInputs() != 2 || !root.hasInput(0) || !root.hasInput(1))
    return false;
  Value lhs = root.getInput(0), rhs = root.getInput(1);
  Type resultType = root.getOp()->getResultTypes()[0];
  if (root.getOpType() == "Div")
    return matchQuotient(lhs, rhs, resultType);
  // A product with the root's inverse, on either side.
  for (auto [v, inverse] : {std::pair(lhs, rhs), std::pair(rhs, lhs)}) {
    formula.clear();
    Value rootValue = getInverted(inverse);
    if (rootValue && matchQuotient(v, rootValue, resultType))
      return true;
  }
  return false;
}

Value DecomposedNorm::matchCenteredInput(ONNXNode root) {
  auto sub = normalized.getDefiningOp<GenericOp>();
  if (!sub || !sub.isDefaultDomainNode("Sub") || sub->getNumResults() != 1 ||
      sub.getInputs().size() != 2)
    return {};
  Value x = sub.getInputs()[0];
  GenericOp mean = getStep(sub.getInputs()[1], "ReduceMean");
  std::optional<int64_t> meanAxis =
      mean ? getTrailingMeanAxis(mean) : std::nullopt;
  if (!meanAxis || *meanAxis != axis || mean.getInputs()[0] != x ||
      x.getType() != normalized.getType())
    return {};
  for (Operation *user : normalized.getUsers())
    if (user != square && user != root.getOp())
      return {};
  formula.push_back(sub);
  formula.push_back(mean);
  return x;
}

/// The formula -> layer_norm when it normalizes a centered input that only
/// it reads, rms_norm otherwise; without scale or bias (the Mul and Add of
/// those follow it and fold in by canonicalization).
static LogicalResult convertDecomposedNorm(ONNXNode node,
                                           PatternRewriter &rewriter) {
  DecomposedNorm norm;
  if (!norm.match(node))
    return failure();
  Value x = norm.matchCenteredInput(node);
  // The layer replaces the root, after which each step's readers are gone.
  SmallVector<Operation *> formula = std::move(norm.formula);
  LogicalResult replaced =
      x ? replaceByLayerNorm(node, rewriter, x, Value(), Value(), norm.axis,
                             norm.epsilon)
        : replaceByRMSNorm(node, rewriter, norm.normalized, Value(), norm.axis,
                           norm.epsilon);
  if (failed(replaced))
    return failure();
  for (Operation *op : formula)
    rewriter.eraseOp(op);
  return success();
}

//===----------------------------------------------------------------------===//
// Export
//===----------------------------------------------------------------------===//

/// A scale of ones over the dimensions of `type` from `axis` on, as ONNX's
/// normalizations require one; null when those are dynamic.
static Value createUnitScale(ONNXNodeBuilder &b, RankedTensorType type,
                             int64_t axis) {
  Type element = type.getElementType();
  auto scaleType =
      RankedTensorType::get(type.getShape().drop_front(axis), element);
  if (!scaleType.hasStaticShape())
    return {};
  return b.createConstant(
      DenseElementsAttr::get(scaleType, FloatAttr::get(element, 1.0)), "scale");
}

/// ReduceMean of `v` over `axes`, keeping them, into `reduced`: the axes an
/// attribute before opset 18 and an input from it on.
static Value createMean(ONNXNodeBuilder &b, Value v, ArrayRef<int64_t> axes,
                        RankedTensorType reduced, StringRef suffix) {
  if (b.getOpset() >= 18)
    return b.create("ReduceMean", {v, b.createInt64s(axes, "axes")}, reduced,
                    {}, suffix);
  return b.create("ReduceMean", v, reduced, {b.getIntsAttr("axes", axes)},
                  suffix);
}

/// LayerNormalization from opset 17; before, the formula that computes it.
static LogicalResult exportLayerNorm(LayerNormOp op, ONNXNodeBuilder &b) {
  Value x = op.getInput();
  RankedTensorType type = op.getInput().getType();
  Type element = type.getElementType();
  int64_t axis = op.getNormalizedAxis();
  float epsilon = op.getEpsilon().convertToFloat();
  Value scale = op.getScale(), bias = op.getBias();
  if (b.getOpset() >= 17) {
    if (!scale && !(scale = createUnitScale(b, type, axis)))
      return b.emitError() << "a layer_norm without scale over dynamic "
                              "dimensions has no ONNX LayerNormalization";
    SmallVector<Value, 3> inputs = {x, scale};
    if (bias)
      inputs.push_back(bias);
    return b.replaceWith("LayerNormalization", inputs,
                         {b.getIntAttr("axis", axis),
                          b.getFloatAttr("epsilon", epsilon)});
  }
  SmallVector<int64_t> axes, reducedShape(type.getShape());
  for (int64_t d = axis; d < type.getRank(); ++d) {
    axes.push_back(d);
    reducedShape[d] = 1;
  }
  auto reduced = RankedTensorType::get(reducedShape, element);
  Value mean = createMean(b, x, axes, reduced, "mean");
  Value centered = b.create("Sub", {x, mean}, type, {}, "centered");
  Value square = b.create("Mul", {centered, centered}, type, {}, "square");
  Value variance = createMean(b, square, axes, reduced, "variance");
  Value shifted = b.create(
      "Add", {variance, b.createScalar(epsilon, element, "epsilon")},
      reduced, {}, "shifted");
  Value deviation = b.create("Sqrt", shifted, reduced, {}, "deviation");
  if (!scale && !bias)
    return b.replaceWith("Div", {centered, deviation});
  Value normalized =
      b.create("Div", {centered, deviation}, type, {}, "normalized");
  if (!bias)
    return b.replaceWith("Mul", {normalized, scale});
  if (scale)
    normalized = b.create("Mul", {normalized, scale}, type, {}, "scaled");
  return b.replaceWith("Add", {normalized, bias});
}

/// x / Sqrt(ReduceMean(x * x) + epsilon) [* scale], ONNX's own definition
/// of RMSNormalization.
static LogicalResult exportRMSNormFormula(RMSNormOp op, ONNXNodeBuilder &b) {
  Value x = op.getInput(), scale = op.getScale();
  RankedTensorType type = op.getInput().getType();
  Type element = type.getElementType();
  SmallVector<int64_t> axes, reducedShape(type.getShape());
  for (int64_t d = op.getNormalizedAxis(); d < type.getRank(); ++d) {
    axes.push_back(d);
    reducedShape[d] = 1;
  }
  auto reduced = RankedTensorType::get(reducedShape, element);
  Value square = b.create("Mul", {x, x}, type, {}, "square");
  Value meanSquare = createMean(b, square, axes, reduced, "mean_square");
  Value epsilon =
      b.createScalar(op.getEpsilon().convertToDouble(), element, "epsilon");
  Value shifted =
      b.create("Add", {meanSquare, epsilon}, reduced, {}, "shifted");
  Value root = b.create("Sqrt", shifted, reduced, {}, "root");
  if (!scale)
    return b.replaceWith("Div", {x, root});
  Value normalized = b.create("Div", {x, root}, type, {}, "normalized");
  return b.replaceWith("Mul", {normalized, scale});
}

/// RMSNormalization from opset 23; before, the formula, which also stands
/// for a layer without scale over dynamic dimensions (ONNX's node needs a
/// scale, and ones of a dynamic shape are no constant).
static LogicalResult exportRMSNorm(RMSNormOp op, ONNXNodeBuilder &b) {
  RankedTensorType type = op.getInput().getType();
  int64_t axis = op.getNormalizedAxis();
  Value scale = op.getScale();
  if (b.getOpset() < 23 ||
      (!scale && !(scale = createUnitScale(b, type, axis))))
    return exportRMSNormFormula(op, b);
  return b.replaceWith(
      "RMSNormalization", {op.getInput(), scale},
      {b.getIntAttr("axis", axis),
       b.getFloatAttr("epsilon", op.getEpsilon().convertToFloat())});
}

void onnx_patterns::populateNormalizationExports(RewritePatternSet &patterns) {
  addExport<BatchNormOp, exportBatchNorm>(patterns);
  addExport<LayerNormOp, exportLayerNorm>(patterns);
  addExport<RMSNormOp, exportRMSNorm>(patterns);
}

void onnx_patterns::populateNormalizationPatterns(
    RewritePatternSet &patterns) {
  addConversion<convertBatchNorm>(patterns, {"BatchNormalization"});
  addConversion<convertLayerNorm>(patterns, {"LayerNormalization"}, 17);
  addConversion<convertRMSNorm>(patterns, {"RMSNormalization"}, 23);
  // Before the Mul's conversion to a multiply.
  patterns.add(std::make_unique<FunctionPattern<convertDecomposedNorm>>(
      patterns.getContext(), ArrayRef<StringRef>{"Div", "Mul"}, 1,
      ONNXOpPattern::kNoUpperBound, /*benefit=*/2));
}
