//===- Dense.cpp - Gemm and MatMul ----------------------------------------===//
//
// Import: Gemm -> dense (transB as transpose_weight, a [N] or [1, N]
// bias), and MatMul by a constant 2-D weight -> dense without bias; the
// bias Add that usually follows joins it by AddOp's canonicalization.
//
// Export: a dense on a 2-D input is a Gemm (its bias a separate Add when
// the layer carries DenseOp::kSeparateBiasAttrName); on more dimensions,
// MatMul (which broadcasts over the leading ones, Gemm does not) and an Add
// for the bias, the weight transposed by a Transpose node when it is stored
// [N, K].
//
//===----------------------------------------------------------------------===//

#include "PatternUtils.h"

using namespace mlir;
using namespace mlir::quant_qdq;
using namespace mlir::quant_qdq::onnx_patterns;

static LogicalResult convertGemm(ONNXNode node, PatternRewriter &rewriter) {
  Value a = node.getInput(0), b = node.getInput(1);
  RankedTensorType aType = getFloatTensor(a), bType = getFloatTensor(b);
  if (!aType || !bType || aType.getRank() != 2 || bType.getRank() != 2)
    return failure();
  FailureOr<int64_t> transA = node.getInt("transA", 0);
  FailureOr<int64_t> transB = node.getInt("transB", 0);
  FailureOr<float> alpha = node.getFloat("alpha", 1.0f);
  FailureOr<float> beta = node.getFloat("beta", 1.0f);
  if (failed(transA) || failed(transB) || failed(alpha) || failed(beta))
    return failure();
  if (*transA != 0 || *alpha != 1.0f || (node.hasInput(2) && *beta != 1.0f))
    return failure();
  SmallVector<Value> operands{a, b};
  if (Value c = node.getInput(2)) {
    int64_t units = bType.getDimSize(*transB ? 0 : 1);
    Value bias = getBiasVector(rewriter, c, units, aType.getElementType());
    if (!bias) {
      // A non-constant 1-D bias works as it is.
      RankedTensorType biasType = getFloatTensor(c);
      if (!biasType || biasType.getRank() != 1)
        return failure();
      bias = c;
    }
    operands.push_back(bias);
  }
  SmallVector<NamedAttribute> attrs;
  if (*transB)
    attrs.push_back(
        rewriter.getNamedAttr("transpose_weight", rewriter.getUnitAttr()));
  return replaceNode(rewriter, node,
                     node.createLayer(rewriter, DenseOp::getOperationName(),
                                      operands, attrs));
}

static LogicalResult convertMatMul(ONNXNode node, PatternRewriter &rewriter) {
  Value a = node.getInput(0), weight = node.getInput(1);
  ElementsAttr weightAttr = getConstantAttr(weight);
  if (!getFloatTensor(a) || !weightAttr ||
      cast<ShapedType>(weightAttr.getType()).getRank() != 2)
    return failure();
  return replaceNode(rewriter, node,
                     node.createLayer(rewriter, DenseOp::getOperationName(),
                                      {a, weight}, {}));
}

static LogicalResult exportDense(DenseOp op, ONNXNodeBuilder &b) {
  if (op.getInput().getType().getRank() == 2) {
    SmallVector<NamedAttribute> attrs;
    if (op.getTransposeWeight())
      attrs.push_back(b.getIntAttr("transB", 1));
    if (!op.getBias() || !op->hasAttr(DenseOp::kSeparateBiasAttrName))
      return b.replaceWith("Gemm", op->getOperands(), attrs);
    Value product =
        b.create("Gemm", {op.getInput(), op.getWeight()}, op.getType(), attrs);
    return b.replaceWithValue(
        b.create("Add", {product, op.getBias()}, op.getType(), {}, "bias"));
  }
  Value weight = op.getWeight();
  if (op.getTransposeWeight()) {
    auto wType = op.getWeight().getType();
    auto transposed = RankedTensorType::get(
        {wType.getDimSize(1), wType.getDimSize(0)}, wType.getElementType());
    weight = b.create("Transpose", weight, transposed,
                      {b.getIntsAttr("perm", {1, 0})}, "transpose");
  }
  if (!op.getBias())
    return b.replaceWith("MatMul", {op.getInput(), weight});
  Value product = b.create("MatMul", {op.getInput(), weight}, op.getType());
  return b.replaceWithValue(
      b.create("Add", {product, op.getBias()}, op.getType(), {}, "bias"));
}

void onnx_patterns::populateDenseExports(RewritePatternSet &patterns) {
  addExport<DenseOp, exportDense>(patterns);
}

void onnx_patterns::populateDensePatterns(RewritePatternSet &patterns) {
  addConversion<convertGemm>(patterns, {"Gemm"});
  addConversion<convertMatMul>(patterns, {"MatMul"});
}
