//===- Elementwise.cpp - Add, Sum, Mul and Concat -------------------------===//
//
// Import: Add/Sum -> add, Mul -> multiply, Concat -> concat, on float
// inputs of one element type. Integer arithmetic (shape computations) stays
// generic or is evaluated by the constant folding patterns. x * Sigmoid(x)
// and MatMul + Add become one layer afterwards, by the multiply's and add's
// canonicalizations.
//
// Export: add of two inputs is Add, of more Sum; multiply is Mul, of more
// than two a chain of Muls (ONNX has no n-ary product).
//
//===----------------------------------------------------------------------===//

#include "PatternUtils.h"

#include "mlir/Dialect/Traits.h"

using namespace mlir;
using namespace mlir::quant_qdq;
using namespace mlir::quant_qdq::onnx_patterns;

/// The node's inputs when all are float tensors of one element type.
static std::optional<SmallVector<Value>> getFloatInputs(ONNXNode node) {
  SmallVector<Value> inputs;
  Type elementType;
  for (unsigned i = 0, e = node.getNumInputs(); i < e; ++i) {
    RankedTensorType type = getFloatTensor(node.getInput(i));
    if (!type || (elementType && type.getElementType() != elementType))
      return std::nullopt;
    elementType = type.getElementType();
    inputs.push_back(node.getInput(i));
  }
  return inputs;
}

static LogicalResult convertElementwise(ONNXNode node,
                                        PatternRewriter &rewriter) {
  std::optional<SmallVector<Value>> inputs = getFloatInputs(node);
  if (!inputs)
    return failure();
  if (inputs->size() == 1 && node.getOpType() == "Sum")
    return replaceNode(rewriter, node, inputs->front());
  if (inputs->size() < 2)
    return failure();
  StringRef opName = node.getOpType() == "Mul"
                         ? MultiplyOp::getOperationName()
                         : AddOp::getOperationName();
  return replaceNode(rewriter, node,
                     node.createLayer(rewriter, opName, *inputs, {}));
}

static LogicalResult convertConcat(ONNXNode node, PatternRewriter &rewriter) {
  SmallVector<Value> inputs;
  for (unsigned i = 0, e = node.getNumInputs(); i < e; ++i) {
    if (!getFloatTensor(node.getInput(i)))
      return failure();
    inputs.push_back(node.getInput(i));
  }
  FailureOr<int64_t> axis = node.getInt("axis", 0);
  if (failed(axis) || inputs.empty())
    return failure();
  return replaceNode(
      rewriter, node,
      node.createLayer(
          rewriter, ConcatOp::getOperationName(), inputs,
          {rewriter.getNamedAttr("axis", rewriter.getI64IntegerAttr(*axis))}));
}

//===----------------------------------------------------------------------===//
// Export
//===----------------------------------------------------------------------===//

static LogicalResult exportAdd(AddOp op, ONNXNodeBuilder &b) {
  return b.replaceWith(op.getInputs().size() == 2 ? "Add" : "Sum",
                       op.getInputs());
}

static LogicalResult exportMultiply(MultiplyOp op, ONNXNodeBuilder &b) {
  ValueRange inputs = op.getInputs();
  Value product = inputs.front();
  for (Value input : inputs.drop_front().drop_back()) {
    Type type = OpTrait::util::getBroadcastedType(product.getType(),
                                                  input.getType());
    product = b.create("Mul", {product, input}, type ? type : op.getType(),
                       {}, "partial");
  }
  return b.replaceWith("Mul", {product, inputs.back()});
}

static LogicalResult exportConcat(ConcatOp op, ONNXNodeBuilder &b) {
  return b.replaceWith("Concat", op.getInputs(),
                       {b.getIntAttr("axis", op.getAxis())});
}

void onnx_patterns::populateElementwiseExports(RewritePatternSet &patterns) {
  addExport<AddOp, exportAdd>(patterns);
  addExport<MultiplyOp, exportMultiply>(patterns);
  addExport<ConcatOp, exportConcat>(patterns);
}

//===----------------------------------------------------------------------===//
// Import
//===----------------------------------------------------------------------===//

void onnx_patterns::populateElementwisePatterns(RewritePatternSet &patterns) {
  addConversion<convertElementwise>(patterns, {"Add", "Sum", "Mul"});
  addConversion<convertConcat>(patterns, {"Concat"});
}
