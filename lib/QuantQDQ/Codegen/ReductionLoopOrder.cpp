//===- ReductionLoopOrder.cpp - innermost loops LLVM can vectorize --------===//
//
// linalg's named convolutions iterate (n, f, oh, ow, c, kh, kw): lowered to
// loops, the innermost loop runs over a 3-wide kernel window and nothing
// vectorizes. Reordering to (n, f, oh, c, kh, kw, ow) makes the innermost
// loop an axpy over a contiguous output row. Every output element still
// sums its terms in the same order, so results do not change.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Codegen/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_REDUCTIONLOOPORDER
#include "QuantQDQ/Codegen/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;

/// Parallel dimensions but the last, then the reductions, then the last
/// parallel dimension; empty when that is the order already.
static SmallVector<unsigned> getLoopOrder(linalg::LinalgOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<unsigned> parallel, reduction;
  for (auto [i, iterator] : llvm::enumerate(iterators))
    (iterator == utils::IteratorType::parallel ? parallel : reduction)
        .push_back(i);
  if (parallel.empty() || reduction.empty())
    return {};
  SmallVector<unsigned> order(parallel.begin(), parallel.end() - 1);
  llvm::append_range(order, reduction);
  order.push_back(parallel.back());
  for (auto [i, dim] : llvm::enumerate(order))
    if (dim != i)
      return order;
  return {};
}

namespace {
struct ReductionLoopOrderPass
    : public quant_qdq::impl::ReductionLoopOrderBase<ReductionLoopOrderPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (!getLoopOrder(op).empty())
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      rewriter.setInsertionPoint(op);
      SmallVector<unsigned> order = getLoopOrder(op);
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        FailureOr<linalg::GenericOp> generalized =
            linalg::generalizeNamedOp(rewriter, op);
        if (failed(generalized))
          continue; // an op without a region builder keeps its order
        generic = *generalized;
      }
      (void)linalg::interchangeGenericOp(rewriter, generic, order);
    }
  }
};
} // namespace
