//===- CollapseLoopDims.cpp - merge loops that walk memory contiguously ---===//
//
// An element-wise op over a [16, 14, 14] slice of a buffer lowers to three
// nested loops, of which LLVM fully unrolls the inner two (196 stores in one
// block) and then spends 80 ms per op in the loop vectorizer's dependence
// analysis of the outer one: 1.5 of ResNet-50's 2.6 s of LLVM optimization.
// Seen as one loop of 3136 iterations, the same op is a plain vectorizable
// loop. This pass merges every run of adjacent iteration dimensions of a
// linalg op on buffers that all its operands walk contiguously (the run's
// dims appear in order in each indexing map, and each buffer's strides make
// them one dimension) into one dimension, through memref.collapse_shape
// views.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Codegen/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_COLLAPSELOOPDIMS
#include "QuantQDQ/Codegen/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;

/// How `map`'s results group when the iteration dims are grouped as `runs`:
/// the results of one run's dims form one group (the caller checked that
/// they are adjacent and in order), every other result its own.
static SmallVector<ReassociationIndices>
getOperandReassociation(AffineMap map, ArrayRef<ReassociationIndices> runs) {
  SmallVector<int64_t> runOfDim(map.getNumDims(), -1);
  for (auto [index, run] : llvm::enumerate(runs))
    for (int64_t dim : run)
      runOfDim[dim] = index;
  SmallVector<ReassociationIndices> groups;
  int64_t lastRun = -1;
  for (unsigned result = 0; result < map.getNumResults(); ++result) {
    int64_t run = runOfDim[map.getDimPosition(result)];
    if (run >= 0 && run == lastRun)
      groups.back().push_back(result);
    else
      groups.push_back({int64_t(result)});
    lastRun = run;
  }
  return groups;
}

/// Whether `op`'s operands can all be viewed with the dims of `runs` merged.
static bool isCollapsible(linalg::LinalgOp op,
                          ArrayRef<ReassociationIndices> runs) {
  if (!linalg::areDimSequencesPreserved(op.getIndexingMapsArray(), runs))
    return false;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type)
      continue;
    if (!memref::CollapseShapeOp::isGuaranteedCollapsible(
            type, getOperandReassociation(op.getMatchingIndexingMap(&operand),
                                          runs)))
      return false;
  }
  return true;
}

/// The longest runs of adjacent iteration dims of one iterator type that
/// every operand walks contiguously, grown greedily from the outermost dim;
/// empty when no two dims merge.
static SmallVector<ReassociationIndices>
findCollapsibleRuns(linalg::LinalgOp op) {
  // A body that reads its indices would recover them from the merged one
  // by divisions, at every element.
  if (!op.getBlock()->getOps<linalg::IndexOp>().empty())
    return {};
  if (!op.hasPureBufferSemantics() ||
      !llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
        return map.isProjectedPermutation(/*allowZeroInResults=*/false);
      }))
    return {};
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<ReassociationIndices> runs;
  for (int64_t dim = 0, e = op.getNumLoops(); dim < e; ++dim) {
    if (!runs.empty() && iterators[runs.back().back()] == iterators[dim]) {
      SmallVector<ReassociationIndices> candidate = {runs.back()};
      candidate.front().push_back(dim);
      if (isCollapsible(op, candidate)) {
        runs.back().push_back(dim);
        continue;
      }
    }
    runs.push_back({dim});
  }
  if (runs.size() == size_t(op.getNumLoops()))
    return {};
  // Each run was checked alone; the views must hold for all of them at once.
  if (!isCollapsible(op, runs))
    return {};
  return runs;
}

namespace {
struct CollapseLoopDimsPass
    : quant_qdq::impl::CollapseLoopDimsBase<CollapseLoopDimsPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (isa<linalg::GenericOp, linalg::CopyOp, linalg::FillOp,
              linalg::TransposeOp, linalg::BroadcastOp>(op.getOperation()))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      SmallVector<ReassociationIndices> runs = findCollapsibleRuns(op);
      if (runs.empty())
        continue;
      rewriter.setInsertionPoint(op);
      // Only generics (and copies) collapse; the other named ops are
      // generics with a name.
      if (!isa<linalg::GenericOp, linalg::CopyOp>(op.getOperation())) {
        FailureOr<linalg::GenericOp> generic =
            linalg::generalizeNamedOp(rewriter, op);
        if (failed(generic))
          continue;
        op = *generic;
      }
      FailureOr<linalg::CollapseResult> collapsed =
          linalg::collapseOpIterationDims(op, runs, rewriter);
      if (failed(collapsed))
        continue;
      rewriter.replaceOp(op, collapsed->results);
    }
  }
};
} // namespace
