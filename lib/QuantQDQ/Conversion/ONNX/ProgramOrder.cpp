//===- ProgramOrder.cpp - the driver both ONNX conversions share ----------===//
//
// Import and export rewrite each op once, in program order: a pattern then
// sees its operands in their final form (a Reshape sees the constant its
// shape subgraph folded to; a layer sees its producer's inferred type),
// which a worklist driver that revisits users would not guarantee.
//
//===----------------------------------------------------------------------===//

#include "PatternUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Rewrite/PatternApplicator.h"

using namespace mlir;
using namespace mlir::quant_qdq;

void onnx_patterns::applyInProgramOrder(
    Operation *root, const FrozenRewritePatternSet &patterns,
    function_ref<bool(Operation &)> filter, function_ref<bool()> stop) {
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

void onnx_patterns::eraseUnreadConstants(Operation *root) {
  for (Region &region : root->getRegions())
    for (Block &block : region)
      for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
        if (op.hasTrait<OpTrait::ConstantLike>() && op.use_empty())
          op.erase();
}

void onnx_patterns::refreshFunctionType(Operation *root) {
  auto func = dyn_cast<func::FuncOp>(root);
  if (!func || func.isExternal())
    return;
  if (auto ret =
          dyn_cast<func::ReturnOp>(func.getBody().back().getTerminator()))
    func.setFunctionType(FunctionType::get(
        func.getContext(), func.getArgumentTypes(), ret.getOperandTypes()));
}
