//===- ContractionEpilogue.cpp - element-wise ops a tile applies ----------===//

#include "ContractionEpilogue.h"
#include "MatmulDims.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
using namespace mlir::quant_qdq;

/// Whether `epilogue` may be a contraction's epilogue, reading it as
/// operand `operand`, but for who else reads the contraction.
static bool isEpilogueShaped(linalg::GenericOp epilogue, OpOperand &operand) {
  return epilogue.getNumDpsInits() == 1 && epilogue.isDpsInput(&operand) &&
         hasStaticF32Operands(epilogue) &&
         epilogue.getNumParallelLoops() == epilogue.getNumLoops() &&
         !epilogue.hasIndexSemantics() &&
         epilogue.getMatchingIndexingMap(&operand).isIdentity() &&
         epilogue.getMatchingIndexingMap(epilogue.getDpsInitOperand(0))
             .isIdentity() &&
         // Its init is only a destination: a tile computes each element
         // once.
         !epilogue.payloadUsesValueFromOperand(epilogue.getDpsInitOperand(0));
}

void mlir::quant_qdq::exposeEpilogues(
    Operation *root, ArrayRef<linalg::GenericOp> contractions) {
  DenseSet<Operation *> sources(
      llvm::from_range, llvm::map_range(contractions, [](linalg::GenericOp op) {
        return op.getOperation();
      }));
  // linalg's expansion of a consumer through its producer's collapse, only
  // for an op that then is a contraction's epilogue.
  auto control = [&](OpOperand *operand) {
    auto consumer = dyn_cast<linalg::GenericOp>(operand->getOwner());
    auto collapse = operand->get().getDefiningOp<tensor::CollapseShapeOp>();
    return consumer && collapse && isEpilogueShaped(consumer, *operand) &&
           collapse->hasOneUse() && collapse.getSrc().hasOneUse() &&
           sources.contains(collapse.getSrc().getDefiningOp());
  };
  RewritePatternSet patterns(root->getContext());
  linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, control);
  // Not converging leaves valid IR with fewer epilogues exposed.
  (void)applyPatternsGreedily(root, std::move(patterns));
}

linalg::GenericOp mlir::quant_qdq::getEpilogue(linalg::GenericOp contraction) {
  if (contraction->getNumResults() != 1)
    return nullptr;
  Value result = contraction->getResult(0);
  if (!result.hasOneUse())
    return nullptr;
  OpOperand &use = *result.use_begin();
  auto epilogue = dyn_cast<linalg::GenericOp>(use.getOwner());
  if (!epilogue || !isEpilogueShaped(epilogue, use))
    return nullptr;
  return epilogue;
}

int64_t mlir::quant_qdq::getEpilogueLoop(linalg::GenericOp contraction,
                                         int64_t loop) {
  AffineMap output =
      contraction.getMatchingIndexingMap(contraction.getDpsInitOperand(0));
  return *output.getResultPosition(
      getAffineDimExpr(loop, contraction.getContext()));
}
