//===- ReleaseBuffersEarly.cpp - free each buffer after its last use ----===//
//
// MLIR's ownership-based deallocation frees a buffer at the end of the
// block that allocates it: in a network's function, every intermediate
// buffer stays allocated until the function returns, so a run needs the sum
// of all of them (ResNet-50 at batch 16: 3.9 GiB) where the largest set
// live at once would do. This pass moves each `memref.dealloc` up to just
// after the last op of its block that reads or writes the buffer, through
// any view of it (subviews, reshapes, casts). A buffer that flows anywhere
// the pass cannot follow (a call, a return, a loop's or branch's operands)
// keeps its dealloc where it is.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Codegen/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_RELEASEBUFFERSEARLY
#include "QuantQDQ/Codegen/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;

/// The last op of `block` that uses `buffer` or a view of it (an ancestor in
/// `block` of a use nested in a region), skipping `dealloc`; null when a use
/// lets the buffer escape what can be followed.
static Operation *findLastUse(Value buffer, Block *block,
                              Operation *dealloc) {
  Operation *last = nullptr;
  SmallVector<Value> worklist = {buffer};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (user == dealloc)
        continue;
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == value) {
        llvm::append_range(worklist, user->getResults());
      } else if (isa<RegionBranchOpInterface, RegionBranchTerminatorOpInterface,
                     CallOpInterface, BranchOpInterface>(user) ||
                 user->hasTrait<OpTrait::ReturnLike>() ||
                 llvm::any_of(user->getResultTypes(),
                              llvm::IsaPred<BaseMemRefType>)) {
        return nullptr; // the buffer may live on in something we do not track
      }
      Operation *inBlock = block->findAncestorOpInBlock(*user);
      if (!inBlock)
        return nullptr;
      if (!last || last->isBeforeInBlock(inBlock))
        last = inBlock;
    }
  }
  return last;
}

namespace {
struct ReleaseBuffersEarlyPass
    : public quant_qdq::impl::ReleaseBuffersEarlyBase<
          ReleaseBuffersEarlyPass> {
  void runOnOperation() override {
    SmallVector<memref::DeallocOp> deallocs;
    getOperation()->walk(
        [&](memref::DeallocOp dealloc) { deallocs.push_back(dealloc); });
    for (memref::DeallocOp dealloc : deallocs) {
      Value buffer = dealloc.getMemref();
      auto alloc = buffer.getDefiningOp<memref::AllocOp>();
      Block *block = dealloc->getBlock();
      if (!alloc || alloc->getBlock() != block)
        continue;
      Operation *last = findLastUse(buffer, block, dealloc);
      if (!last)
        continue;
      if (last->isBeforeInBlock(dealloc))
        dealloc->moveAfter(last);
    }
  }
};
} // namespace
