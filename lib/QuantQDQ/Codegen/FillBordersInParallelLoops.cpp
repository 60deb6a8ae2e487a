//===- FillBordersInParallelLoops.cpp - border fills on every thread ------===//
//
// A padded buffer's border strips are filled just before the parallel loop
// that writes its interior; the fills move into that loop, each on an
// iteration of its own, where the loop touches none of their elements.
//
//===----------------------------------------------------------------------===//

#include "BufferAliasing.h"
#include "QuantQDQ/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_FILLBORDERSINPARALLELLOOPS
#include "QuantQDQ/Codegen/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;

/// The fills just before `loop`, nearest first, with nothing but ops
/// without memory effects between, whose buffers share no element with any
/// buffer `loop` uses.
static SmallVector<linalg::FillOp> findFillsApart(scf::ParallelOp loop) {
  // The buffers it reaches: values from outside, and globals it names; a
  // call may reach anything.
  SetVector<Value> used;
  getUsedValuesDefinedAbove(loop.getRegion(), used);
  bool calls = false;
  loop.getBody()->walk([&](Operation *op) {
    if (isa<CallOpInterface>(op))
      calls = true;
    if (auto global = dyn_cast<memref::GetGlobalOp>(op))
      used.insert(global.getResult());
  });
  if (calls)
    return {};
  SmallVector<BufferBox> boxes;
  for (Value value : used) {
    if (!isa<MemRefType>(value.getType()))
      continue;
    std::optional<BufferBox> box = getBufferBox(value);
    if (!box)
      return {}; // a buffer the loop uses that no box describes
    boxes.push_back(*box);
  }
  SmallVector<linalg::FillOp> fills;
  for (Operation *op = loop->getPrevNode(); op; op = op->getPrevNode()) {
    if (isMemoryEffectFree(op))
      continue;
    auto fill = dyn_cast<linalg::FillOp>(op);
    if (!fill || !fill.hasPureBufferSemantics())
      break;
    std::optional<BufferBox> box = getBufferBox(fill.getOutputs()[0]);
    if (box && llvm::all_of(boxes, [&](const BufferBox &other) {
          return areBoxesApart(*box, other);
        }))
      fills.push_back(fill);
  }
  return fills;
}

/// A parallel loop's static iteration space: per dimension, its first
/// value, its step and how many iterations it has.
struct IterationSpace {
  SmallVector<int64_t> lower, step, count;
};

/// `loop`'s iteration space, where its bounds and steps are constants.
static std::optional<IterationSpace> getIterationSpace(scf::ParallelOp loop) {
  IterationSpace space;
  for (auto [lower, upper, step] : llvm::zip_equal(
           loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    std::optional<int64_t> l = getConstantIntValue(lower),
                           u = getConstantIntValue(upper),
                           s = getConstantIntValue(step);
    if (!l || !u || !s || *s <= 0 || *u <= *l)
      return std::nullopt;
    space.lower.push_back(*l);
    space.step.push_back(*s);
    space.count.push_back(llvm::divideCeil(*u - *l, *s));
  }
  return space;
}

/// Moves `fills` into `loop`, fill i on the iteration at i / fills of its
/// iteration space (in row-major order of its dimensions).
static void moveIntoLoop(scf::ParallelOp loop, ArrayRef<linalg::FillOp> fills,
                         const IterationSpace &space) {
  int64_t iterations = 1;
  for (int64_t count : space.count)
    iterations *= count;
  OpBuilder builder = OpBuilder::atBlockBegin(loop.getBody());
  Location loc = loop.getLoc();
  for (auto [i, fill] : llvm::enumerate(fills)) {
    int64_t linear = int64_t(i) * iterations / int64_t(fills.size());
    // The iteration's induction variables, last dimension fastest.
    Value chosen;
    for (int64_t d = space.count.size() - 1; d >= 0; --d) {
      int64_t index = linear % space.count[d];
      linear /= space.count[d];
      int64_t value = space.lower[d] + index * space.step[d];
      Value equal = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::eq, loop.getInductionVars()[d],
          arith::ConstantIndexOp::create(builder, loc, value));
      chosen =
          chosen
              ? arith::AndIOp::create(builder, loc, chosen, equal).getResult()
              : equal;
    }
    auto branch = scf::IfOp::create(builder, loc, chosen);
    OpBuilder inside = OpBuilder::atBlockBegin(branch.thenBlock());
    inside.clone(*fill);
    fill->erase();
  }
}

namespace {
struct FillBordersInParallelLoopsPass
    : quant_qdq::impl::FillBordersInParallelLoopsBase<
          FillBordersInParallelLoopsPass> {
  void runOnOperation() override {
    SmallVector<scf::ParallelOp> loops;
    getOperation()->walk([&](scf::ParallelOp loop) {
      // Loops at the top of a function, whose iterations share out the
      // threads; nested ones run within one.
      if (isa<FunctionOpInterface>(loop->getParentOp()))
        loops.push_back(loop);
    });
    for (scf::ParallelOp loop : loops) {
      std::optional<IterationSpace> space = getIterationSpace(loop);
      if (!space)
        continue;
      SmallVector<linalg::FillOp> fills = findFillsApart(loop);
      if (fills.empty())
        continue;
      // In program order, so that the first fill takes the first iteration.
      std::reverse(fills.begin(), fills.end());
      moveIntoLoop(loop, fills, *space);
    }
  }
};
} // namespace
