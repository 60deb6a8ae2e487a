//===- PatternUtils.h - what the ONNX layer families share ------*- C++ -*-===//
//
// Private to lib/QuantQDQ/Conversion/ONNX: each family file's populate
// functions (import and export), small helpers for its patterns, and the
// program-order driver both directions use.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_LIB_CONVERSION_ONNXTOQUANTQDQ_PATTERNUTILS_H
#define QUANTQDQ_LIB_CONVERSION_ONNXTOQUANTQDQ_PATTERNUTILS_H

#include "QuantQDQ/Conversion/ONNXToQuantQDQ.h"
#include "QuantQDQ/Conversion/QuantQDQToONNX.h"
#include "QuantQDQ/IR/LayerConstants.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::quant_qdq::onnx_patterns {

// One per family file.
void populateConvolutionPatterns(RewritePatternSet &patterns);
void populateDensePatterns(RewritePatternSet &patterns);
void populateActivationPatterns(RewritePatternSet &patterns);
void populateElementwisePatterns(RewritePatternSet &patterns);
void populateNormalizationPatterns(RewritePatternSet &patterns);
void populateShapeLayerPatterns(RewritePatternSet &patterns);
void populateQuantizeLinearPatterns(RewritePatternSet &patterns);
void populateMatMulNBitsPatterns(RewritePatternSet &patterns);
void populateConstantFoldingPatterns(RewritePatternSet &patterns);

void populateConvolutionExports(RewritePatternSet &patterns);
void populateDenseExports(RewritePatternSet &patterns);
void populateActivationExports(RewritePatternSet &patterns);
void populateElementwiseExports(RewritePatternSet &patterns);
void populateNormalizationExports(RewritePatternSet &patterns);
void populateShapeLayerExports(RewritePatternSet &patterns);
void populateQuantizeLinearExports(RewritePatternSet &patterns);

/// Rewrites each dense layer of `module` whose weight is signed int4,
/// stored quantized in power-of-two blocks (16 and up) along its input
/// channels, into ONNX Runtime's com.microsoft MatMulNBits (MatMulNBits.cpp),
/// and adds that domain to the module's opsets. Warns when there is none.
LogicalResult writeDenseAsMatMulNBits(ModuleOp module);

/// The default-domain opset the module of `op` (or `op`, a module) imports;
/// kDefaultOpsetVersion when it says none.
int64_t getDefaultDomainOpset(Operation *op);

//===----------------------------------------------------------------------===//
// The driver
//===----------------------------------------------------------------------===//

/// Offers each op of `root`'s blocks that `filter` accepts to `patterns`
/// once, in program order. Patterns create ops before the root and may
/// erase ops before it (its producers), never after it. Stops when
/// `stop()` turns true.
void applyInProgramOrder(Operation *root,
                         const FrozenRewritePatternSet &patterns,
                         function_ref<bool(Operation &)> filter,
                         function_ref<bool()> stop);

/// Erases the constants of `root`'s blocks that nothing reads.
void eraseUnreadConstants(Operation *root);

/// Sets the result types of `root`, a function, to those it returns.
void refreshFunctionType(Operation *root);

//===----------------------------------------------------------------------===//
// Import
//===----------------------------------------------------------------------===//

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

//===----------------------------------------------------------------------===//
// Export
//===----------------------------------------------------------------------===//

/// ONNX has no layout attribute: only NCHW layers export.
inline LogicalResult requireNCHW(ONNXNodeBuilder &b, Layout layout) {
  if (layout != Layout::NCHW)
    return b.emitError() << "ONNX is NCHW: cannot export a layer in nhwc "
                            "layout";
  return success();
}

/// An export pattern whose conversion is the function `Fn`.
template <typename OpT, LogicalResult (*Fn)(OpT, ONNXNodeBuilder &)>
struct ExportPattern : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    ONNXNodeBuilder builder(rewriter, op);
    return Fn(op, builder);
  }
};

/// Adds the export `Fn` of `OpT`.
template <typename OpT, LogicalResult (*Fn)(OpT, ONNXNodeBuilder &)>
void addExport(RewritePatternSet &patterns) {
  patterns.add<ExportPattern<OpT, Fn>>(patterns.getContext());
}

} // namespace mlir::quant_qdq::onnx_patterns

#endif // QUANTQDQ_LIB_CONVERSION_ONNXTOQUANTQDQ_PATTERNUTILS_H
