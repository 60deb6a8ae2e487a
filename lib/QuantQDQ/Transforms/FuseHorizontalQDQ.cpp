//===- FuseHorizontalQDQ.cpp - one Q/DQ pair per tensor -------------------===//

#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/Transforms/Passes.h"

#include "llvm/ADT/DenseMap.h"

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_FUSEHORIZONTALQDQ
#include "QuantQDQ/Transforms/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
/// What makes two quantize (or two dequantize) ops interchangeable.
using QuantKey = std::tuple<Value, Attribute, Attribute, Attribute, Type>;

template <typename OpT>
static QuantKey getKey(OpT op) {
  return {op.getInput(), op.getQuantizerAttr(), op.getScaleAttr(),
          op.getZeroPointAttr(), op.getType()};
}

struct FuseHorizontalQDQPass
    : public quant_qdq::impl::FuseHorizontalQDQBase<FuseHorizontalQDQPass> {
  void runOnOperation() override {
    // Quantize ops first: equal ones read the same tensor. Then dequantize
    // ops, which are equal once their quantize inputs have been merged.
    // Only ops of one block merge, into the first of them, which precedes
    // every use of the others.
    mergeDuplicates<QuantizeOp>();
    mergeDuplicates<DequantizeOp>();
  }

  template <typename OpT>
  void mergeDuplicates() {
    llvm::DenseMap<std::pair<Block *, QuantKey>, OpT> first;
    SmallVector<OpT> dead;
    getOperation()->walk([&](OpT op) {
      auto [it, inserted] =
          first.try_emplace({op->getBlock(), getKey(op)}, op);
      if (inserted)
        return;
      op.getResult().replaceAllUsesWith(it->second.getResult());
      dead.push_back(op);
    });
    for (OpT op : dead)
      op->erase();
  }
};
} // namespace
