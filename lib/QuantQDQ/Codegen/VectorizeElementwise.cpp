//===- VectorizeElementwise.cpp - element-wise linalg ops as vector loops -===//
//
// The JIT's LLVM optimizer runs without a target machine (given one, it
// tripled compile time), so LLVM's loop vectorizer leaves element-wise loops
// scalar. This pass writes them as vector loops itself: every element-wise
// linalg op on buffers whose innermost dimension is contiguous in each
// operand it walks becomes loops over the outer dimensions around a loop of
// `width`-wide vector loads, the op's body on vectors, and vector stores,
// then a scalar loop for the elements past the last whole vector.
//
//===----------------------------------------------------------------------===//

#include "ContiguousBuffers.h"
#include "QuantQDQ/Codegen/Passes.h"
#include "VectorBody.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_VECTORIZEELEMENTWISE
#include "QuantQDQ/Codegen/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;

/// The buffer dimension that gives loop `loop`'s size: the first operand
/// dimension indexed by that loop alone.
static std::optional<std::pair<Value, unsigned>>
findLoopSizeSource(linalg::LinalgOp op, unsigned loop) {
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (auto [position, result] : llvm::enumerate(map.getResults()))
      if (auto dim = dyn_cast<AffineDimExpr>(result);
          dim && dim.getPosition() == loop)
        return std::make_pair(operand.get(), unsigned(position));
  }
  return std::nullopt;
}

/// Whether `op` is an element-wise op on buffers whose innermost loop
/// every operand either walks contiguously or does not walk at all, with a
/// body of element-wise ops only. Outputs are indexed by the loops
/// themselves (projected permutations); inputs may be read through any
/// affine map, a window's included.
static bool isVectorizable(linalg::LinalgOp op, int64_t width) {
  if (!op.hasPureBufferSemantics() ||
      op.getNumParallelLoops() != op.getNumLoops() || op.getNumLoops() == 0)
    return false;
  // Sizes may be dynamic (a thread's chunk of rows that the thread count
  // does not divide: ViT's 197 tokens), read from the buffers at run time.
  SmallVector<int64_t> bounds = op.getStaticLoopRanges();
  if (!ShapedType::isDynamic(bounds.back()) && bounds.back() < width)
    return false;
  for (auto [loop, bound] : llvm::enumerate(bounds))
    if (ShapedType::isDynamic(bound) && !findLoopSizeSource(op, loop))
      return false;
  return hasVectorBody(op, op.getNumLoops() - 1);
}

/// Emits `op`'s body at loop position `ivs` on `width` elements of the
/// innermost loop (a scalar body for width 1): operands are loaded as
/// vectors along that loop or broadcast, the body's ops are cloned with
/// vector types, and the yielded values are stored.
static void emitBody(OpBuilder &builder, Location loc, linalg::GenericOp op,
                     ArrayRef<Value> ivs, int64_t width) {
  VectorBody body(builder, loc, width);
  body.readOperands(op, ivs, op.getNumLoops() - 1, /*inputsOnly=*/false);
  body.cloneOps(op);
  auto yield = cast<linalg::YieldOp>(op.getBody()->getTerminator());
  for (auto [init, yielded] :
       llvm::zip(op.getDpsInitsMutable(), yield.getValues())) {
    Value value = body.lookup(yielded);
    SmallVector<Value> indices =
        getIndices(builder, loc, op.getMatchingIndexingMap(&init), ivs);
    if (width > 1)
      vector::StoreOp::create(builder, loc, value, init.get(), indices);
    else
      memref::StoreOp::create(builder, loc, value, init.get(), indices);
  }
}

/// Index constants created where `builder` stands when first asked for,
/// each value once.
class IndexConstants {
public:
  IndexConstants(OpBuilder builder, Location loc)
      : builder(builder), loc(loc) {}
  Value operator()(int64_t value) {
    Value &c = constants[value];
    if (!c)
      c = arith::ConstantIndexOp::create(builder, loc, value);
    return c;
  }

private:
  OpBuilder builder;
  Location loc;
  llvm::SmallDenseMap<int64_t, Value> constants;
};

/// Replaces `op` by loops over its outer dimensions around a vector loop and
/// a scalar remainder loop over its innermost one.
static void vectorize(linalg::GenericOp op, int64_t width) {
  OpBuilder builder(op);
  Location loc = op.getLoc();
  IndexConstants constant(builder, loc);
  // Bounds first, outside the loops: constants, or the buffers' sizes.
  SmallVector<Value> ends;
  for (auto [loop, bound] : llvm::enumerate(op.getStaticLoopRanges())) {
    if (!ShapedType::isDynamic(bound)) {
      ends.push_back(constant(bound));
      continue;
    }
    auto [buffer, dim] = *findLoopSizeSource(op, loop);
    ends.push_back(memref::DimOp::create(builder, loc, buffer, constant(dim)));
  }
  Value zero = constant(0), one = constant(1), step = constant(width);
  // The end of the last whole vector, and of the remainder where one may be.
  Value wholeEnd, innerEnd;
  if (std::optional<int64_t> inner = getConstantIntValue(ends.back())) {
    int64_t whole = *inner / width * width;
    wholeEnd = constant(whole);
    if (whole < *inner)
      innerEnd = ends.back();
  } else {
    AffineExpr size = builder.getAffineDimExpr(0);
    wholeEnd = affine::AffineApplyOp::create(
        builder, loc, AffineMap::get(1, 0, size.floorDiv(width) * width),
        ends.back());
    innerEnd = ends.back();
  }
  ArrayRef<Value> outerEnds = ArrayRef<Value>(ends).drop_back();

  SmallVector<Value> ivs;
  for (Value end : outerEnds) {
    auto loop = scf::ForOp::create(builder, loc, zero, end, one);
    builder.setInsertionPointToStart(loop.getBody());
    ivs.push_back(loop.getInductionVar());
  }
  auto vectorLoop = scf::ForOp::create(builder, loc, zero, wholeEnd, step);
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(vectorLoop.getBody());
    ivs.push_back(vectorLoop.getInductionVar());
    emitBody(builder, loc, op, ivs, width);
    ivs.pop_back();
  }
  if (innerEnd) {
    auto scalarLoop = scf::ForOp::create(builder, loc, wholeEnd, innerEnd, one);
    builder.setInsertionPointToStart(scalarLoop.getBody());
    ivs.push_back(scalarLoop.getInductionVar());
    emitBody(builder, loc, op, ivs, 1);
  }
  op.erase();
}

/// How each output of a reduction takes in its body's term, in output
/// order: `op` (arith.minimumf, arith.maximumf or arith.addf) of the
/// output's running value and `term`. A minimum or maximum takes the one
/// input as it is; a sum takes any element-wise function of the inputs (a
/// variance's squared difference from the mean). Empty where the body is
/// anything else: a running value read elsewhere, a combiner's result used
/// by more than the yield, ops with regions or of non-scalars.
struct Combiner {
  Operation *op;
  vector::CombiningKind kind;
  Value term;
};

/// The kind of reduction `combiner` (arith.minimumf, maximumf or addf)
/// makes.
static vector::CombiningKind getCombiningKind(Operation *combiner) {
  if (isa<arith::MinimumFOp>(combiner))
    return vector::CombiningKind::MINIMUMF;
  if (isa<arith::MaximumFOp>(combiner))
    return vector::CombiningKind::MAXIMUMF;
  return vector::CombiningKind::ADD;
}
static SmallVector<Combiner> getCombiners(linalg::GenericOp op) {
  Block *body = op.getBody();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  unsigned inputs = op.getNumDpsInputs();
  SmallVector<Combiner> combiners;
  for (auto [i, value] : llvm::enumerate(yield.getValues())) {
    Operation *combiner = value.getDefiningOp();
    BlockArgument running = body->getArgument(inputs + i);
    if (!isa_and_present<arith::MinimumFOp, arith::MaximumFOp, arith::AddFOp>(
            combiner) ||
        combiner->getBlock() != body || !combiner->hasOneUse() ||
        !running.hasOneUse() ||
        running.getUses().begin()->getOwner() != combiner)
      return {};
    Value a = combiner->getOperand(0), b = combiner->getOperand(1);
    Value term = a == running ? b : a;
    if (!isa<arith::AddFOp>(combiner) &&
        (inputs != 1 || term != body->getArgument(0)))
      return {};
    combiners.push_back({combiner, getCombiningKind(combiner), term});
  }
  if (!llvm::all_of(body->without_terminator(), isScalarElementwise))
    return {};
  return combiners;
}

/// A reduction whose outputs each take in a term of the inputs by minimum,
/// maximum or sum (ONNX ReduceMin/ReduceMax, calibration's ranges and
/// qdq-fuse-sibling-reductions' pairs of them; a softmax's or a
/// normalization's sums): static buffers, outputs indexed by the parallel
/// loops (all the same way). Returns the reduction loop to read in vectors:
/// one with `width` iterations or more along which every input is
/// contiguous or constant, at least one contiguous.
static std::optional<unsigned> getVectorReductionLoop(linalg::GenericOp op,
                                                      int64_t width) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() == 0 ||
      op.getNumDpsInits() == 0 || op.getNumReductionLoops() == 0 ||
      getCombiners(op).empty())
    return std::nullopt;
  SmallVector<int64_t> bounds = op.getStaticLoopRanges();
  if (llvm::any_of(bounds, ShapedType::isDynamic))
    return std::nullopt;
  // The outputs are indexed by the parallel loops, each once.
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!out.isProjectedPermutation(/*allowZeroInResults=*/false) ||
      out.getNumResults() != op.getNumParallelLoops() ||
      llvm::any_of(out.getResults(), [&](AffineExpr e) {
        return !linalg::isParallelIterator(
            iterators[cast<AffineDimExpr>(e).getPosition()]);
      }))
    return std::nullopt;
  for (OpOperand &init : op.getDpsInitsMutable())
    if (!isa<MemRefType>(init.get().getType()) ||
        op.getMatchingIndexingMap(&init) != out)
      return std::nullopt;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto type = dyn_cast<MemRefType>(input->get().getType());
    if (!type || !isByteAddressable(type.getElementType()))
      return std::nullopt;
  }
  for (unsigned loop = 0; loop < op.getNumLoops(); ++loop) {
    if (!linalg::isReductionIterator(iterators[loop]) || bounds[loop] < width)
      continue;
    bool contiguous = false, readable = true;
    for (OpOperand *input : op.getDpsInputOperands()) {
      auto type = cast<MemRefType>(input->get().getType());
      switch (getInnerWalk(op.getMatchingIndexingMap(input), loop)) {
      case InnerWalk::None:
        break;
      case InnerWalk::Contiguous:
        contiguous = true;
        readable &= hasUnitInnerStride(type);
        break;
      case InnerWalk::Other:
        readable = false;
        break;
      }
    }
    if (contiguous && readable)
      return loop;
  }
  return std::nullopt;
}

/// Replaces the reduction `op` by loops: the parallel ones outermost, then
/// the other reductions, then `vectorLoop` in vectors of `width` and a
/// scalar remainder. Each output has a vector and a scalar accumulator,
/// carried through all the reduction loops and combined once per output
/// element; the inputs are read once a step for all of them, and the body
/// computes the terms on vectors. Minimum and maximum are exact and
/// associative (NaN wins, -0 is below +0): their accumulators start from
/// the output's value and every order gives the same bits. A sum's start
/// from zero and add the output's value last: `width` running sums added
/// at the end, which rounds differently from one running sum (as ONNX
/// Runtime's vectorized sums do), in exchange for not waiting on one add
/// per element.
static void vectorizeReduction(linalg::GenericOp op, unsigned vectorLoop,
                               int64_t width) {
  OpBuilder builder(op);
  Location loc = op.getLoc();
  SmallVector<Combiner> combiners = getCombiners(op);
  unsigned outputs = combiners.size();
  auto combine = [&](unsigned output, Value a, Value b) -> Value {
    return vector::makeArithReduction(builder, loc, combiners[output].kind, a,
                                      b);
  };
  SmallVector<Operation *> combinerOps =
      llvm::map_to_vector(combiners, [](const Combiner &c) { return c.op; });
  SmallVector<int64_t> bounds = op.getStaticLoopRanges();
  // Bounds and steps, each once, before the loops.
  IndexConstants constant(OpBuilder(op), loc);
  int64_t inner = bounds[vectorLoop], whole = inner / width * width;
  for (int64_t value : {int64_t(0), int64_t(1), width, whole})
    constant(value);
  for (int64_t bound : bounds)
    constant(bound);
  Value zero = constant(0), one = constant(1);
  SmallVector<Value> ivs(op.getNumLoops());
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned loop = 0; loop < op.getNumLoops(); ++loop) {
    if (!linalg::isParallelIterator(iterators[loop]))
      continue;
    auto parallel = scf::ForOp::create(builder, loc, zero,
                                       constant(bounds[loop]), one);
    builder.setInsertionPointToStart(parallel.getBody());
    ivs[loop] = parallel.getInductionVar();
  }
  SmallVector<Value> outIndices = getIndices(
      builder, loc, op.getMatchingIndexingMap(op.getDpsInitOperand(0)), ivs);
  // The accumulators: the outputs' vectors, then their scalars.
  SmallVector<Value> starts, accumulators(2 * outputs);
  for (unsigned i = 0; i < outputs; ++i) {
    Value start = memref::LoadOp::create(
        builder, loc, op.getDpsInitOperand(i)->get(), outIndices);
    starts.push_back(start);
    if (combiners[i].kind == vector::CombiningKind::ADD)
      start = arith::ConstantOp::create(builder, loc,
                                        builder.getZeroAttr(start.getType()));
    accumulators[i] = vector::BroadcastOp::create(
        builder, loc, VectorType::get({width}, start.getType()), start);
    accumulators[outputs + i] = start;
  }
  MutableArrayRef<Value> vectors =
      MutableArrayRef<Value>(accumulators).take_front(outputs);
  MutableArrayRef<Value> scalars =
      MutableArrayRef<Value>(accumulators).drop_front(outputs);
  // Yields each output's running value combined with its term at `ivs`,
  // on `lanes` elements of the vector loop.
  auto yieldCombined = [&](ValueRange running, int64_t lanes) {
    VectorBody body(builder, loc, lanes);
    body.readOperands(op, ivs, vectorLoop, /*inputsOnly=*/true);
    body.cloneOps(op, combinerOps);
    SmallVector<Value> combined;
    for (unsigned i = 0; i < outputs; ++i)
      combined.push_back(
          combine(i, running[i], body.lookup(combiners[i].term)));
    scf::YieldOp::create(builder, loc, combined);
  };

  // The other reduction loops, carrying all accumulators.
  SmallVector<scf::ForOp> reductions;
  for (unsigned loop = 0; loop < op.getNumLoops(); ++loop) {
    if (linalg::isParallelIterator(iterators[loop]) || loop == vectorLoop)
      continue;
    auto reduction = scf::ForOp::create(
        builder, loc, zero, constant(bounds[loop]), one, accumulators);
    builder.setInsertionPointToStart(reduction.getBody());
    ivs[loop] = reduction.getInductionVar();
    llvm::copy(reduction.getRegionIterArgs(), accumulators.begin());
    reductions.push_back(reduction);
  }
  auto vectorSteps = scf::ForOp::create(builder, loc, zero, constant(whole),
                                        constant(width), vectors);
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(vectorSteps.getBody());
    ivs[vectorLoop] = vectorSteps.getInductionVar();
    yieldCombined(vectorSteps.getRegionIterArgs(), width);
  }
  llvm::copy(vectorSteps.getResults(), vectors.begin());
  if (whole < inner) {
    auto scalarSteps = scf::ForOp::create(builder, loc, constant(whole),
                                          constant(inner), one, scalars);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(scalarSteps.getBody());
    ivs[vectorLoop] = scalarSteps.getInductionVar();
    yieldCombined(scalarSteps.getRegionIterArgs(), 1);
    builder.setInsertionPointAfter(scalarSteps);
    llvm::copy(scalarSteps.getResults(), scalars.begin());
  }
  // Close the reduction loops from the innermost out.
  for (scf::ForOp reduction : llvm::reverse(reductions)) {
    scf::YieldOp::create(builder, loc, accumulators);
    builder.setInsertionPointAfter(reduction);
    llvm::copy(reduction.getResults(), accumulators.begin());
  }
  for (unsigned i = 0; i < outputs; ++i) {
    vector::CombiningKind kind = combiners[i].kind;
    Value lanes =
        vector::ReductionOp::create(builder, loc, kind, accumulators[i]);
    Value result = combine(i, lanes, accumulators[outputs + i]);
    // A sum's lanes and remainder started from zero: the output's value
    // joins last.
    if (kind == vector::CombiningKind::ADD)
      result = combine(i, starts[i], result);
    memref::StoreOp::create(builder, loc, result,
                            op.getDpsInitOperand(i)->get(), outIndices);
  }
  op.erase();
}

namespace {
struct VectorizeElementwisePass
    : quant_qdq::impl::VectorizeElementwiseBase<VectorizeElementwisePass> {
  using Base::Base;
  void runOnOperation() override {
    if (width < 2) {
      getOperation()->emitError("qdq-vectorize-elementwise: width must be "
                                "2 or more, got ")
          << int64_t(width);
      return signalPassFailure();
    }
    SmallVector<linalg::LinalgOp> ops;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (isVectorizable(op, width))
        ops.push_back(op);
    });
    // Named ops (transposes that pack panels, broadcasts, copies) as
    // generics first.
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        rewriter.setInsertionPoint(op);
        generic = *linalg::generalizeNamedOp(rewriter, op);
      }
      vectorize(generic, width);
    }
    SmallVector<std::pair<linalg::GenericOp, unsigned>> reductions;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (std::optional<unsigned> loop = getVectorReductionLoop(op, width))
        reductions.emplace_back(op, *loop);
    });
    for (auto [op, loop] : reductions)
      vectorizeReduction(op, loop, width);
  }
};
} // namespace
