//===- Dense.cpp - Gemm and MatMul ----------------------------------------===//
//
// Gemm -> dense (transB as transpose_weight, a [N] or [1, N] bias), and
// MatMul by a constant 2-D weight -> dense without bias; the bias Add that
// usually follows joins it by AddOp's canonicalization.
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

void onnx_patterns::populateDensePatterns(RewritePatternSet &patterns) {
  addConversion<convertGemm>(patterns, {"Gemm"});
  addConversion<convertMatMul>(patterns, {"MatMul"});
}
