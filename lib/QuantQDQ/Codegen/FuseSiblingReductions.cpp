//===- FuseSiblingReductions.cpp - one read for reductions of one tensor --===//
//
// Max calibration observes each activation through a minimum and a maximum
// (quant_qdq.tensor_range's two reductions): two loop nests, each reading the whole tensor, after the layer
// that wrote it has already left it in the cache. Reading is all these
// reductions do, so one pass over the tensor with both accumulators costs
// about half as much. This pass fuses such siblings: generics that read one
// tensor the same way over the same iteration space become one generic
// whose body computes both results.
//
//===----------------------------------------------------------------------===//

#include "MatmulDims.h"
#include "QuantQDQ/Codegen/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_FUSESIBLINGREDUCTIONS
#include "QuantQDQ/Codegen/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;

/// A reduction on tensors of static shape, in a block of its own function,
/// unless it is an f32 matrix product (getMatmulDims): products sharing an
/// input (a decoder's gate and up projections, q/k/v) each get register
/// tiles of their own (qdq-vectorize-contractions), which takes
/// contractions of one result; fused, they ran as scalar loops.
static bool isCandidate(linalg::GenericOp op) {
  return op.hasPureTensorSemantics() && op.getNumReductionLoops() > 0 &&
         !llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic) &&
         !quant_qdq::getMatmulDims(op);
}

/// Whether `later`, after `earlier` in the same block, can be fused with it
/// into one op at `later`'s place: the same loops, `input` read through the
/// same map by both, nothing reading `earlier`'s results before `later`
/// (`later` included).
static bool canFuse(linalg::GenericOp earlier, linalg::GenericOp later,
                    Value input) {
  if (earlier->getBlock() != later->getBlock() ||
      earlier.getStaticLoopRanges() != later.getStaticLoopRanges() ||
      earlier.getIteratorTypesArray() != later.getIteratorTypesArray())
    return false;
  auto mapOf = [&](linalg::GenericOp op) -> std::optional<AffineMap> {
    for (OpOperand *operand : op.getDpsInputOperands())
      if (operand->get() == input)
        return op.getMatchingIndexingMap(operand);
    return std::nullopt;
  };
  std::optional<AffineMap> map = mapOf(earlier);
  if (!map || map != mapOf(later))
    return false;
  Block *block = later->getBlock();
  for (Operation *user : earlier->getUsers()) {
    Operation *inBlock = block->findAncestorOpInBlock(*user);
    if (!inBlock || inBlock == later.getOperation() ||
        inBlock->isBeforeInBlock(later))
      return false;
  }
  return true;
}

/// One generic at `later`'s place doing the work of both: the inputs of
/// `earlier`, then those of `later` it does not read already (the same
/// value through the same map), then the inits of both; the bodies one
/// after the other, yielding `earlier`'s results, then `later`'s.
static linalg::GenericOp fuse(RewriterBase &rewriter, linalg::GenericOp earlier,
                              linalg::GenericOp later) {
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  // Block argument of each op's inputs in the fused op.
  auto addInputs = [&](linalg::GenericOp op) {
    SmallVector<unsigned> positions;
    for (OpOperand *operand : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(operand);
      unsigned position = inputs.size();
      for (auto [i, value] : llvm::enumerate(inputs))
        if (value == operand->get() && maps[i] == map)
          position = i;
      if (position == inputs.size()) {
        inputs.push_back(operand->get());
        maps.push_back(map);
      }
      positions.push_back(position);
    }
    return positions;
  };
  SmallVector<unsigned> earlierInputs = addInputs(earlier);
  SmallVector<unsigned> laterInputs = addInputs(later);
  SmallVector<Value> inits;
  for (linalg::GenericOp op : {earlier, later})
    for (OpOperand &init : op.getDpsInitsMutable()) {
      inits.push_back(init.get());
      maps.push_back(op.getMatchingIndexingMap(&init));
    }
  SmallVector<Type> resultTypes(earlier->getResultTypes());
  llvm::append_range(resultTypes, later->getResultTypes());

  rewriter.setInsertionPoint(later);
  auto fused = linalg::GenericOp::create(
      rewriter, later.getLoc(), resultTypes, inputs, inits, maps,
      earlier.getIteratorTypesArray());
  SmallVector<Type> argTypes;
  SmallVector<Location> argLocs;
  for (Value operand : fused->getOperands()) {
    argTypes.push_back(getElementTypeOrSelf(operand.getType()));
    argLocs.push_back(operand.getLoc());
  }
  Block *body = rewriter.createBlock(&fused.getRegion(), {}, argTypes, argLocs);
  SmallVector<Value> yielded;
  unsigned initArg = inputs.size();
  for (auto [op, positions] :
       {std::make_pair(earlier, earlierInputs),
        std::make_pair(later, laterInputs)}) {
    IRMapping mapping;
    Block *old = op.getBody();
    for (auto [i, position] : llvm::enumerate(positions))
      mapping.map(old->getArgument(i), body->getArgument(position));
    for (unsigned i = 0; i < op.getNumDpsInits(); ++i)
      mapping.map(old->getArgument(positions.size() + i),
                  body->getArgument(initArg++));
    for (Operation &inner : old->without_terminator())
      rewriter.clone(inner, mapping);
    for (Value value : old->getTerminator()->getOperands())
      yielded.push_back(mapping.lookupOrDefault(value));
  }
  linalg::YieldOp::create(rewriter, later.getLoc(), yielded);

  unsigned split = earlier->getNumResults();
  rewriter.replaceOp(earlier, fused->getResults().take_front(split));
  rewriter.replaceOp(later, fused->getResults().drop_front(split));
  return fused;
}

namespace {
struct FuseSiblingReductionsPass
    : quant_qdq::impl::FuseSiblingReductionsBase<FuseSiblingReductionsPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> candidates;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (isCandidate(op))
        candidates.push_back(op);
    });
    // In program order, each candidate meets the latest earlier candidate
    // (or fused op) that reads each of its inputs: linear in their number.
    IRRewriter rewriter(&getContext());
    DenseMap<Value, linalg::GenericOp> latestReader;
    for (linalg::GenericOp op : candidates) {
      linalg::GenericOp current = op;
      for (OpOperand *operand : op.getDpsInputOperands()) {
        Value input = operand->get();
        linalg::GenericOp earlier = latestReader.lookup(input);
        if (earlier && earlier != current &&
            canFuse(earlier, current, input)) {
          current = fuse(rewriter, earlier, current);
          break;
        }
      }
      for (OpOperand *operand : current.getDpsInputOperands())
        latestReader[operand->get()] = current;
    }
  }
};
} // namespace
