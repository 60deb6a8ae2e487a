//===- PatternUtils.h - what the ONNX layer families share ------*- C++ -*-===//
//
// Private to lib/QuantQDQ/Conversion/ONNXToQuantQDQ: each family file's
// populate function, and small helpers for its patterns.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_LIB_CONVERSION_ONNXTOQUANTQDQ_PATTERNUTILS_H
#define QUANTQDQ_LIB_CONVERSION_ONNXTOQUANTQDQ_PATTERNUTILS_H

#include "QuantQDQ/Conversion/ONNXToQuantQDQ.h"
#include "QuantQDQ/IR/LayerConstants.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::quant_qdq::onnx_patterns {

// One per family file.
void populateConvolutionPatterns(RewritePatternSet &patterns);
void populateDensePatterns(RewritePatternSet &patterns);
void populateActivationPatterns(RewritePatternSet &patterns);
void populateElementwisePatterns(RewritePatternSet &patterns);
void populateShapeLayerPatterns(RewritePatternSet &patterns);
void populateQuantizeLinearPatterns(RewritePatternSet &patterns);
void populateConstantFoldingPatterns(RewritePatternSet &patterns);

/// The ranked floating-point tensor type of `v`, or null.
RankedTensorType getFloatTensor(Value v);

inline bool isAll(ArrayRef<int64_t> values, int64_t x) {
  return llvm::all_of(values, [x](int64_t v) { return v == x; });
}

/// Replaces the node's first result by `value` and erases the node (its
/// other results are unread: ONNXOpPattern checks). Returns success, for
/// the patterns' tails.
inline LogicalResult replaceNode(PatternRewriter &rewriter, ONNXNode node,
                                 Value value) {
  rewriter.replaceAllUsesWith(node.getOp()->getResult(0), value);
  rewriter.eraseOp(node.getOp());
  return success();
}

/// As above, when `value` may be a failure already reported.
inline LogicalResult replaceNode(PatternRewriter &rewriter, ONNXNode node,
                                 FailureOr<Value> value) {
  return failed(value) ? failure() : replaceNode(rewriter, node, *value);
}

/// An ONNXOpPattern whose conversion is the function `Fn`.
template <LogicalResult (*Fn)(ONNXNode, PatternRewriter &)>
struct FunctionPattern : ONNXOpPattern {
  using ONNXOpPattern::ONNXOpPattern;
  LogicalResult convert(ONNXNode node,
                        PatternRewriter &rewriter) const override {
    return Fn(node, rewriter);
  }
};

/// Adds the conversion `Fn` of `opTypes` for opsets in [since, until].
template <LogicalResult (*Fn)(ONNXNode, PatternRewriter &)>
void addConversion(RewritePatternSet &patterns, ArrayRef<StringRef> opTypes,
                   int64_t since = 1,
                   int64_t until = ONNXOpPattern::kNoUpperBound) {
  patterns.add(std::make_unique<FunctionPattern<Fn>>(patterns.getContext(),
                                                     opTypes, since, until));
}

} // namespace mlir::quant_qdq::onnx_patterns

#endif // QUANTQDQ_LIB_CONVERSION_ONNXTOQUANTQDQ_PATTERNUTILS_H
