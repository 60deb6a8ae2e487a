//===- ConvertONNXToQuantQDQ.cpp - the import pass and its driver ---------===//
//
// Runs the ONNX patterns in program order, each node once (see
// ProgramOrder.cpp), then the layer ops' canonicalizations. Errors go
// through the context; any error fails the pass.
//
//===----------------------------------------------------------------------===//

#include "PatternUtils.h"
#include "QuantQDQ/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

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
  populateNormalizationPatterns(patterns);
  populateShapeLayerPatterns(patterns);
  populateQuantizeLinearPatterns(patterns);
  populateMatMulNBitsPatterns(patterns);
}

/// The canonicalization patterns of every quant_qdq op: the fusions.
static FrozenRewritePatternSet getLayerCanonicalizations(MLIRContext *context) {
  RewritePatternSet patterns(context);
  for (RegisteredOperationName op : context->getRegisteredOperations())
    if (op.getDialectNamespace() == QuantQDQDialect::getDialectNamespace())
      op.getCanonicalizationPatterns(patterns, context);
  return FrozenRewritePatternSet(std::move(patterns));
}

LogicalResult mlir::quant_qdq::convertONNXToQuantQDQ(
    Operation *root, const FrozenRewritePatternSet &patterns,
    function_ref<void(GenericOp)> refineTypes) {
  MLIRContext *context = root->getContext();
  bool hadError = false;
  ScopedDiagnosticHandler errors(context, [&](Diagnostic &diag) {
    hadError |= diag.getSeverity() == DiagnosticSeverity::Error;
    return failure(); // Passed on to the handlers outside.
  });

  auto stopOnError = [&] { return hadError; };
  auto isUnranked = [](Type type) { return isa<UnrankedTensorType>(type); };
  auto prepareNode = [&](Operation &op) {
    auto generic = dyn_cast<GenericOp>(op);
    if (!generic)
      return false;
    if (refineTypes && llvm::any_of(op.getResultTypes(), isUnranked))
      refineTypes(generic);
    return true;
  };
  applyInProgramOrder(root, patterns, prepareNode, stopOnError);
  if (hadError)
    return failure();
  applyInProgramOrder(
      root, getLayerCanonicalizations(context),
      [](Operation &op) { return isa<QDQLayerOpInterface>(op); }, stopOnError);
  if (hadError)
    return failure();

  // Constants whose readers were all folded or replaced (shape vectors,
  // retyped storage) go; ops the graph computes stay, used or not.
  eraseUnreadConstants(root);
  // Results may now have the layers' inferred types.
  refreshFunctionType(root);
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
