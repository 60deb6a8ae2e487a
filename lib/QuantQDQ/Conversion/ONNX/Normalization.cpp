//===- Normalization.cpp - BatchNormalization and LayerNormalization ------===//
//
// Import: inference-mode BatchNormalization -> batch_norm;
// LayerNormalization (opset 17 on) -> layer_norm, and the formula that
// exporters write before opset 17,
//   (x - ReduceMean(x)) / Sqrt(ReduceMean((x - ReduceMean(x))^2) + eps),
// -> layer_norm without scale and bias (the Mul and Add of those follow it
// and fold into it by canonicalization).
//
// Export: BatchNormalization; LayerNormalization from opset 17, that
// formula before.
//
//===----------------------------------------------------------------------===//

#include "PatternUtils.h"

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
  FailureOr<int64_t> axis = node.getInt("axis", -1);
  FailureOr<float> epsilon = node.getFloat("epsilon", 1e-5f);
  FailureOr<int64_t> stash = node.getInt("stash_type", 1);
  if (failed(axis) || failed(epsilon) || failed(stash))
    return failure();
  int64_t rank = type.getRank();
  if (*axis < -rank || *axis >= rank)
    return node.emitError() << "axis " << *axis << " is outside ["
                            << -rank << ", " << rank - 1 << "]";
  if (*stash != 1)
    return failure();
  return replaceByLayerNorm(node, rewriter, x, scale, bias, *axis,
                            *epsilon);
}

namespace {
/// The decomposed formula, matched from its last step (the division of the
/// centered input by the deviation). `formula` collects the ops it consists
/// of, users before producers, for erasure.
struct DecomposedLayerNorm {
  Value x;
  int64_t axis = 0;
  float epsilon = 0.0f;
  SmallVector<Operation *> formula;

  bool match(ONNXNode root);

private:
  /// The node producing `v` when it is the default-domain `opType` with one
  /// result that only the formula reads (`uses` times).
  GenericOp getStep(Value v, StringRef opType, unsigned uses = 1);
  /// The first axis a keep-dims ReduceMean averages over, when its axes are
  /// the trailing ones from there on.
  std::optional<int64_t> getTrailingMeanAxis(GenericOp mean);
  bool matchDeviation(Value deviation, Value centered);
  bool isSquareOf(Value square, Value centered);
};
} // namespace

GenericOp DecomposedLayerNorm::getStep(Value v, StringRef opType,
                                       unsigned uses) {
  auto op = v.getDefiningOp<GenericOp>();
  if (!op || !op.isDefaultDomainNode(opType) || op->getNumResults() != 1 ||
      !llvm::hasNItems(v.getUses(), uses))
    return {};
  return op;
}

std::optional<int64_t>
DecomposedLayerNorm::getTrailingMeanAxis(GenericOp mean) {
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

/// Whether `square` is centered^2: a Pow by 2 or a product of two copies.
bool DecomposedLayerNorm::isSquareOf(Value square, Value centered) {
  Operation *op = square.getDefiningOp();
  if (!op || !square.hasOneUse() || op->getNumOperands() != 2)
    return false;
  auto generic = dyn_cast<GenericOp>(op);
  if (generic && generic.isDefaultDomainNode("Pow")) {
    std::optional<SmallVector<float>> exponent =
        getConstantFloats(op->getOperand(1));
    if (op->getOperand(0) != centered || !exponent ||
        exponent->size() != 1 || exponent->front() != 2.0f)
      return false;
    formula.push_back(op);
    return true;
  }
  if (!MultiplyOp::isBinaryForm(op) || op->getOperand(0) != centered ||
      op->getOperand(1) != centered)
    return false;
  formula.push_back(op);
  return true;
}

/// Whether `deviation` is Sqrt(ReduceMean(centered^2) + epsilon) with the
/// axes of the mean that `centered` subtracts; sets `epsilon` and `axis`.
bool DecomposedLayerNorm::matchDeviation(Value deviation, Value centered) {
  GenericOp sqrt = getStep(deviation, "Sqrt");
  if (!sqrt)
    return false;
  formula.push_back(sqrt);
  Value shifted = sqrt.getInputs()[0];
  Operation *sum = shifted.getDefiningOp();
  if (!AddOp::isBinaryForm(sum) || !shifted.hasOneUse())
    return false;
  formula.push_back(sum);
  for (int i : {0, 1}) {
    std::optional<SmallVector<float>> eps =
        getConstantFloats(sum->getOperand(1 - i));
    if (!eps || eps->size() != 1 || !(eps->front() >= 0.0f))
      continue;
    GenericOp variance = getStep(sum->getOperand(i), "ReduceMean");
    std::optional<int64_t> varianceAxis =
        variance ? getTrailingMeanAxis(variance) : std::nullopt;
    if (!varianceAxis || *varianceAxis != axis)
      return false;
    formula.push_back(variance);
    epsilon = eps->front();
    return isSquareOf(variance.getInputs()[0], centered);
  }
  return false;
}

bool DecomposedLayerNorm::match(ONNXNode root) {
  if (root.getNumInputs() != 2)
    return false;
  // The root divides the centered input by the deviation, or multiplies
  // it by the deviation's Reciprocal.
  Value centered = root.getInput(0), deviation = root.getInput(1);
  if (root.getOpType() == "Mul") {
    GenericOp reciprocal = getStep(deviation, "Reciprocal");
    if (!reciprocal) {
      std::swap(centered, deviation);
      reciprocal = getStep(deviation, "Reciprocal");
    }
    if (!reciprocal)
      return false;
    formula.push_back(reciprocal);
    deviation = reciprocal.getInputs()[0];
  }
  // The centered input feeds the square and the root; its mean is the
  // ReduceMean that only the subtraction reads.
  auto sub = centered.getDefiningOp<GenericOp>();
  if (!sub || !sub.isDefaultDomainNode("Sub") || sub->getNumResults() != 1 ||
      sub.getInputs().size() != 2)
    return false;
  x = sub.getInputs()[0];
  GenericOp mean = getStep(sub.getInputs()[1], "ReduceMean");
  std::optional<int64_t> meanAxis =
      mean ? getTrailingMeanAxis(mean) : std::nullopt;
  RankedTensorType type = getFloatTensor(x);
  if (!meanAxis || mean.getInputs()[0] != x || !type ||
      centered.getType() != type || root.getOp()->getResultTypes()[0] != type)
    return false;
  axis = *meanAxis;
  if (!matchDeviation(deviation, centered))
    return false;
  // Nothing outside the formula reads the centered input.
  Operation *square = formula.back();
  for (Operation *user : centered.getUsers())
    if (user != square && user != root.getOp())
      return false;
  formula.push_back(sub);
  formula.push_back(mean);
  return true;
}

static LogicalResult convertDecomposedLayerNorm(ONNXNode node,
                                                PatternRewriter &rewriter) {
  DecomposedLayerNorm layerNorm;
  if (!layerNorm.match(node))
    return failure();
  // The layer replaces the root, after which each step's readers are gone.
  SmallVector<Operation *> formula = std::move(layerNorm.formula);
  if (failed(replaceByLayerNorm(node, rewriter, layerNorm.x, Value(),
                                Value(), layerNorm.axis, layerNorm.epsilon)))
    return failure();
  for (Operation *op : formula)
    rewriter.eraseOp(op);
  return success();
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
    if (!scale) {
      // ONNX requires a scale: ones over the normalized dimensions.
      auto scaleType = RankedTensorType::get(
          type.getShape().drop_front(axis), element);
      if (!scaleType.hasStaticShape())
        return b.emitError() << "a layer_norm without scale over dynamic "
                                "dimensions has no ONNX LayerNormalization";
      scale = b.createConstant(
          DenseElementsAttr::get(scaleType, FloatAttr::get(element, 1.0)),
          "scale");
    }
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
  NamedAttribute axesAttr = b.getIntsAttr("axes", axes);
  Value mean = b.create("ReduceMean", x, reduced, {axesAttr}, "mean");
  Value centered = b.create("Sub", {x, mean}, type, {}, "centered");
  Value square = b.create("Mul", {centered, centered}, type, {}, "square");
  Value variance =
      b.create("ReduceMean", square, reduced, {axesAttr}, "variance");
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

void onnx_patterns::populateNormalizationExports(RewritePatternSet &patterns) {
  addExport<BatchNormOp, exportBatchNorm>(patterns);
  addExport<LayerNormOp, exportLayerNorm>(patterns);
}

void onnx_patterns::populateNormalizationPatterns(
    RewritePatternSet &patterns) {
  addConversion<convertBatchNorm>(patterns, {"BatchNormalization"});
  addConversion<convertLayerNorm>(patterns, {"LayerNormalization"}, 17);
  // Before the Mul's conversion to a multiply.
  patterns.add(std::make_unique<FunctionPattern<convertDecomposedLayerNorm>>(
      patterns.getContext(), ArrayRef<StringRef>{"Div", "Mul"}, 1,
      ONNXOpPattern::kNoUpperBound, /*benefit=*/2));
}
