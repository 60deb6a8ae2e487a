//===- ConvertONNXToQuantQDQ.cpp - the pass and its driver ----------------===//
//
// Runs the ONNX patterns in program order, each node once: a node's
// pattern then sees its inputs in their final form (a Reshape sees the
// constant its shape subgraph folded to; a layer sees its producer's
// inferred type), which a worklist driver that revisits users would not
// guarantee. Errors go through the context; any error fails the pass.
//
//===----------------------------------------------------------------------===//

#include "PatternUtils.h"
#include "QuantQDQ/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Rewrite/PatternApplicator.h"

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_CONVERTONNXTOQUANTQDQ
#include "QuantQDQ/Conversion/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;
using namespace mlir::quant_qdq::onnx_patterns;

void mlir::quant_qdq::populateONNXToQuantQDQPatterns(
    RewritePatternSet &patterns) {
  populateConstantFoldingPatterns(patterns);
  populateConvolutionPatterns(patterns);
  populateDensePatterns(patterns);
  populateActivationPatterns(patterns);
  populateElementwisePatterns(patterns);
  populateShapeLayerPatterns(patterns);
  populateQuantizeLinearPatterns(patterns);
}

/// The canonicalization patterns of every quant_qdq op: the fusions.
static FrozenRewritePatternSet getLayerCanonicalizations(MLIRContext *context) {
  RewritePatternSet patterns(context);
  for (RegisteredOperationName op : context->getRegisteredOperations())
    if (op.getDialectNamespace() == QuantQDQDialect::getDialectNamespace())
      op.getCanonicalizationPatterns(patterns, context);
  return FrozenRewritePatternSet(std::move(patterns));
}

/// Offers each op of `root`'s blocks that `filter` accepts to `patterns`
/// once, in program order. Patterns create ops before the root and may
/// erase ops before it (its producers), never after it. Stops when
/// `stop()` turns true.
static void applyInProgramOrder(Operation *root,
                                const FrozenRewritePatternSet &patterns,
                                function_ref<bool(Operation &)> filter,
                                function_ref<bool()> stop) {
  PatternApplicator applicator(patterns);
  applicator.applyDefaultCostModel();
  PatternRewriter rewriter(root->getContext());
  for (Region &region : root->getRegions())
    for (Block &block : region)
      for (Operation &op : llvm::make_early_inc_range(block)) {
        if (!filter(op))
          continue;
        rewriter.setInsertionPoint(&op);
        (void)applicator.matchAndRewrite(&op, rewriter);
        if (stop())
          return;
      }
}

LogicalResult mlir::quant_qdq::convertONNXToQuantQDQ(
    Operation *root, const FrozenRewritePatternSet &patterns) {
  MLIRContext *context = root->getContext();
  bool hadError = false;
  ScopedDiagnosticHandler errors(context, [&](Diagnostic &diag) {
    hadError |= diag.getSeverity() == DiagnosticSeverity::Error;
    return failure(); // Passed on to the handlers outside.
  });

  auto stopOnError = [&] { return hadError; };
  applyInProgramOrder(
      root, patterns, [](Operation &op) { return isa<GenericOp>(op); },
      stopOnError);
  if (hadError)
    return failure();
  applyInProgramOrder(
      root, getLayerCanonicalizations(context),
      [](Operation &op) { return isa<QDQLayerOpInterface>(op); }, stopOnError);
  if (hadError)
    return failure();

  // Constants whose readers were all folded or replaced (shape vectors,
  // retyped storage) go; ops the graph computes stay, used or not.
  for (Region &region : root->getRegions())
    for (Block &block : region)
      for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
        if (op.hasTrait<OpTrait::ConstantLike>() && op.use_empty())
          op.erase();

  // Results may now have the layers' inferred types.
  if (auto func = dyn_cast<func::FuncOp>(root))
    if (!func.isExternal())
      if (auto ret = dyn_cast<func::ReturnOp>(
              func.getBody().back().getTerminator()))
        func.setFunctionType(FunctionType::get(
            context, func.getArgumentTypes(), ret.getOperandTypes()));
  return success();
}

namespace {
struct ConvertONNXToQuantQDQPass
    : quant_qdq::impl::ConvertONNXToQuantQDQBase<ConvertONNXToQuantQDQPass> {
  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet set(context);
    populateONNXToQuantQDQPatterns(set);
    patterns = FrozenRewritePatternSet(std::move(set));
    return success();
  }

  void runOnOperation() override {
    if (failed(convertONNXToQuantQDQ(getOperation(), patterns)))
      signalPassFailure();
  }

  FrozenRewritePatternSet patterns;
};
} // namespace
