//===- ShapeLayers.cpp - Flatten, Reshape, Transpose, Pad, Identity -------===//
//
// Layers that move data without computing. Import: Flatten -> flatten,
// Reshape with a constant target -> reshape (ONNX's 0 and -1 resolved
// where the input shape allows), Transpose -> transpose, Pad with constant
// pads -> pad, and Identity / inference-mode Dropout dropped (the output is
// the input).
//
// Export: the same nodes back (Pad in its opset's form: attributes before
// 11, inputs from it on); a dropout is dropped.
//
//===----------------------------------------------------------------------===//

#include "PatternUtils.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::quant_qdq;
using namespace mlir::quant_qdq::onnx_patterns;

static LogicalResult convertFlatten(ONNXNode node, PatternRewriter &rewriter) {
  Value x = node.getInput(0);
  RankedTensorType type = getFloatTensor(x);
  FailureOr<int64_t> axis = node.getInt("axis", 1);
  if (failed(axis) || !type)
    return failure();
  int64_t rank = type.getRank();
  if (*axis < -rank || *axis > rank)
    return node.emitError() << "axis " << *axis << " is outside [" << -rank
                            << ", " << rank << "]";
  int64_t normalized = *axis < 0 ? *axis + rank : *axis;
  SmallVector<NamedAttribute> attrs;
  if (normalized != 1)
    attrs.push_back(
        rewriter.getNamedAttr("axis", rewriter.getI64IntegerAttr(normalized)));
  return replaceNode(rewriter, node,
                     node.createLayer(rewriter, FlattenOp::getOperationName(),
                                      {x}, attrs));
}

static LogicalResult convertReshape(ONNXNode node, PatternRewriter &rewriter) {
  Value x = node.getInput(0);
  RankedTensorType type = getFloatTensor(x);
  FailureOr<int64_t> allowZero = node.getInt("allowzero", 0);
  if (failed(allowZero) || !type || !node.hasInput(1))
    return failure();
  std::optional<SmallVector<int64_t>> shape = getConstantInts(node.getInput(1));
  if (!shape)
    return failure();
  // Resolve ONNX's 0 ("copy this input dimension"); a copied dynamic
  // dimension becomes the one -1 when there is none yet.
  bool hasMinusOne = llvm::is_contained(*shape, -1);
  for (auto [i, d] : llvm::enumerate(*shape)) {
    if (d != 0 || *allowZero)
      continue;
    if (int64_t(i) >= type.getRank())
      return failure();
    d = type.getDimSize(i);
    if (ShapedType::isDynamic(d)) {
      if (hasMinusOne)
        return failure();
      d = -1;
      hasMinusOne = true;
    }
  }
  if (llvm::any_of(*shape, [](int64_t d) { return d == 0 || d < -1; }))
    return failure();
  // With a static input the -1 is known too.
  if (hasMinusOne && type.hasStaticShape()) {
    int64_t known = 1;
    for (int64_t d : *shape)
      if (d != -1)
        known *= d;
    if (known != 0 && type.getNumElements() % known == 0)
      for (int64_t &d : *shape)
        if (d == -1)
          d = type.getNumElements() / known;
  }
  return replaceNode(
      rewriter, node,
      node.createLayer(rewriter, ReshapeOp::getOperationName(), {x},
                       {rewriter.getNamedAttr(
                           "shape", rewriter.getDenseI64ArrayAttr(*shape))}));
}

static LogicalResult convertTranspose(ONNXNode node,
                                      PatternRewriter &rewriter) {
  Value x = node.getInput(0);
  RankedTensorType type = getFloatTensor(x);
  FailureOr<std::optional<SmallVector<int64_t>>> perm = node.getInts("perm");
  if (failed(perm) || !type)
    return failure();
  SmallVector<int64_t> p;
  if (*perm)
    p = **perm;
  else
    for (int64_t d = type.getRank() - 1; d >= 0; --d)
      p.push_back(d);
  return replaceNode(
      rewriter, node,
      node.createLayer(
          rewriter, TransposeOp::getOperationName(), {x},
          {rewriter.getNamedAttr("perm", rewriter.getDenseI64ArrayAttr(p))}));
}

/// Replaces the node by a pad of `x` when `pads` and `mode` can be said.
static LogicalResult replaceByPad(ONNXNode node, PatternRewriter &rewriter,
                                  Value x,
                                  std::optional<SmallVector<int64_t>> pads,
                                  float value) {
  FailureOr<std::string> mode = node.getString("mode", "constant");
  if (failed(mode))
    return failure();
  std::optional<PadMode> padMode = symbolizePadMode(*mode);
  if (!pads || !padMode || llvm::any_of(*pads, [](int64_t p) { return p < 0; }))
    return failure();
  SmallVector<NamedAttribute> attrs{
      rewriter.getNamedAttr("pads", rewriter.getDenseI64ArrayAttr(*pads))};
  if (*padMode != PadMode::Constant)
    attrs.push_back(rewriter.getNamedAttr(
        "mode", PadModeAttr::get(rewriter.getContext(), *padMode)));
  if (value != 0.0f)
    attrs.push_back(
        rewriter.getNamedAttr("value", rewriter.getF32FloatAttr(value)));
  return replaceNode(rewriter, node,
                     node.createLayer(rewriter, PadOp::getOperationName(), {x},
                                      attrs));
}

/// Pad-2: pads and value are attributes.
static LogicalResult convertPadAttributes(ONNXNode node,
                                          PatternRewriter &rewriter) {
  Value x = node.getInput(0);
  FailureOr<std::optional<SmallVector<int64_t>>> pads = node.getInts("pads");
  FailureOr<float> value = node.getFloat("value", 0.0f);
  if (!getFloatTensor(x) || failed(pads) || failed(value))
    return failure();
  return replaceByPad(node, rewriter, x, *pads, *value);
}

/// Pad-11 on: pads and value are constant inputs; the axes input (18 on)
/// is not mapped.
static LogicalResult convertPadInputs(ONNXNode node,
                                      PatternRewriter &rewriter) {
  Value x = node.getInput(0);
  if (!getFloatTensor(x) || node.hasInput(3) || !node.hasInput(1))
    return failure();
  float value = 0.0f;
  if (node.hasInput(2)) {
    std::optional<SmallVector<float>> v = getConstantFloats(node.getInput(2));
    if (!v || v->size() != 1)
      return failure();
    value = v->front();
  }
  return replaceByPad(node, rewriter, x, getConstantInts(node.getInput(1)),
                      value);
}

/// Identity and inference-mode Dropout: the output is the input.
static LogicalResult convertIdentity(ONNXNode node,
                                     PatternRewriter &rewriter) {
  Value x = node.getInput(0);
  if (!x)
    return failure();
  if (node.getOpType() == "Dropout" && node.hasInput(2)) {
    std::optional<SmallVector<int64_t>> training =
        getConstantInts(node.getInput(2));
    if (!training || training->size() != 1 || training->front() != 0)
      return failure();
  }
  return replaceNode(rewriter, node, x);
}

/// A Cast of a float tensor to its own element type (transformers'
/// `hidden.to(input_dtype)` in float32, between an RMSNorm and its weight's
/// Mul, which then did not fold into the norm): the output is the input.
/// Integer casts stay: type refinement treats integers of one width as one
/// type (signless i8 storage for both int8 and uint8).
static LogicalResult convertSameTypeCast(ONNXNode node,
                                         PatternRewriter &rewriter) {
  Value x = node.getInput(0);
  if (!x || node.getOp()->getNumResults() != 1)
    return failure();
  Type from = getElementTypeOrSelf(x.getType());
  Type to = getElementTypeOrSelf(node.getOp()->getResult(0).getType());
  if (!isa<FloatType>(from) || from != to)
    return failure();
  return replaceNode(rewriter, node, x);
}

//===----------------------------------------------------------------------===//
// Export
//===----------------------------------------------------------------------===//

static LogicalResult exportFlatten(FlattenOp op, ONNXNodeBuilder &b) {
  return b.replaceWith("Flatten", op.getInput(),
                       {b.getIntAttr("axis", op.getAxis())});
}

static LogicalResult exportReshape(ReshapeOp op, ONNXNodeBuilder &b) {
  return b.replaceWith("Reshape",
                       {op.getInput(), b.createInt64s(op.getShape(), "shape")});
}

static LogicalResult exportTranspose(TransposeOp op, ONNXNodeBuilder &b) {
  return b.replaceWith("Transpose", op.getInput(),
                       {b.getIntsAttr("perm", op.getPerm())});
}

static LogicalResult exportPad(PadOp op, ONNXNodeBuilder &b) {
  NamedAttribute mode = b.getStringAttr("mode", stringifyPadMode(op.getMode()));
  float value = op.getValue().convertToFloat();
  if (b.getOpset() < 11) {
    SmallVector<NamedAttribute> attrs{mode,
                                      b.getIntsAttr("pads", op.getPads())};
    if (value != 0.0f)
      attrs.push_back(b.getFloatAttr("value", value));
    return b.replaceWith("Pad", op.getInput(), attrs);
  }
  SmallVector<Value> inputs{op.getInput(),
                            b.createInt64s(op.getPads(), "pads")};
  if (value != 0.0f)
    inputs.push_back(b.createScalar(
        value, op.getInput().getType().getElementType(), "value"));
  return b.replaceWith("Pad", inputs, {mode});
}

static LogicalResult exportDropout(DropoutOp op, ONNXNodeBuilder &b) {
  return b.forward(op.getInput());
}

void onnx_patterns::populateShapeLayerExports(RewritePatternSet &patterns) {
  addExport<FlattenOp, exportFlatten>(patterns);
  addExport<ReshapeOp, exportReshape>(patterns);
  addExport<TransposeOp, exportTranspose>(patterns);
  addExport<PadOp, exportPad>(patterns);
  addExport<DropoutOp, exportDropout>(patterns);
}

//===----------------------------------------------------------------------===//
// Import
//===----------------------------------------------------------------------===//

void onnx_patterns::populateShapeLayerPatterns(RewritePatternSet &patterns) {
  addConversion<convertFlatten>(patterns, {"Flatten"});
  addConversion<convertReshape>(patterns, {"Reshape"});
  addConversion<convertTranspose>(patterns, {"Transpose"});
  addConversion<convertPadAttributes>(patterns, {"Pad"}, 1, 10);
  addConversion<convertPadInputs>(patterns, {"Pad"}, 11);
  addConversion<convertIdentity>(patterns, {"Identity", "Dropout"});
  addConversion<convertSameTypeCast>(patterns, {"Cast"});
}
