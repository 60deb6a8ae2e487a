//===- DistributeLoops.cpp - share loop nests among threads ---------------===//
//
// qdq-vectorize-contractions threads the contractions; everything else
// (element-wise chains, softmax and normalization reductions, im2col,
// depthwise convolutions) would still run on one core. Each of those ops
// whose iteration space is large enough gets its outermost parallel loop
// cut into chunks by an scf.forall, which the CPU pipeline runs as an
// OpenMP loop. Cutting a parallel loop changes no element's arithmetic.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Codegen/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Transforms/CSE.h"

#include <numeric>

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_DISTRIBUTELOOPS
#include "QuantQDQ/Codegen/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;

/// The multiple of which a tile of loop `dim` of `op` must be for the tiled
/// op to stay correct. Tiling keeps the indexing maps and offsets each
/// operand by the map of the tile's offset, which is only right where the
/// map is affine in the offset: an operand read at `d floordiv c` (a
/// blocked scale, `c` rows per block) or `d mod c` needs tiles starting at
/// multiples of `c`.
static int64_t getTileAlignment(linalg::LinalgOp op, unsigned dim) {
  int64_t alignment = 1;
  for (AffineMap map : op.getIndexingMapsArray())
    for (AffineExpr result : map.getResults())
      result.walk([&](AffineExpr expr) {
        auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
        if (!binary || !binary.getLHS().isFunctionOfDim(dim))
          return;
        auto divisor = dyn_cast<AffineConstantExpr>(binary.getRHS());
        if (!divisor || divisor.getValue() <= 0)
          return;
        switch (binary.getKind()) {
        case AffineExprKind::FloorDiv:
        case AffineExprKind::CeilDiv:
        case AffineExprKind::Mod:
          alignment = std::lcm(alignment, divisor.getValue());
          break;
        default:
          break;
        }
      });
  return alignment;
}

/// Whether bufferization gives `value`, inserted into a slice of another
/// tensor, a buffer of its own and then copies it there: a value no op
/// computes (an argument, a slice of another tensor), or one a linalg op
/// computes into a new tensor (a `tensor.empty` destination).
static bool isCopiedByBufferization(Value value) {
  auto result = dyn_cast<OpResult>(value);
  if (!result)
    return true;
  Operation *owner = result.getOwner();
  if (isa<tensor::ExtractSliceOp>(owner))
    return true;
  // Loops write into their destinations; only a linalg op's new tensor
  // counts.
  auto computing = dyn_cast<linalg::LinalgOp>(owner);
  return computing && computing.getDpsInitOperand(result.getResultNumber())
                          ->get()
                          .getDefiningOp<tensor::EmptyOp>();
}

/// Whether every loop of `op` may be tiled at any offset (no operand read
/// through div or mod): a producer's tiles start where its consumer's do.
static bool hasAnyTileAlignment(linalg::LinalgOp op) {
  for (unsigned d = 0; d < op.getNumLoops(); ++d)
    if (getTileAlignment(op, d) != 1)
      return false;
  return true;
}

/// Whether a chunk of `consumer` can compute its slice of `op`: `op` in the
/// same block, with one result that linalg can tile (written through a
/// projected permutation), static and with no tile alignment.
static bool isSliceable(linalg::LinalgOp op, linalg::LinalgOp consumer) {
  return op->getBlock() == consumer->getBlock() && op->getNumResults() == 1 &&
         isa<TilingInterface>(*op) && op.hasPureTensorSemantics() &&
         op.getIndexingMapMatchingResult(op->getResult(0))
             .isProjectedPermutation() &&
         llvm::none_of(op.getStaticLoopRanges(), ShapedType::isDynamic) &&
         hasAnyTileAlignment(op);
}

/// Whether `map`'s first results are its loops 0 to `dim`, in order.
static bool leadsWithLoops(AffineMap map, unsigned dim) {
  if (map.getNumResults() <= dim)
    return false;
  for (unsigned d = 0; d <= dim; ++d)
    if (map.getResult(d) != getAffineDimExpr(d, map.getContext()))
      return false;
  return true;
}

/// Whether `op` is cut into chunks along its loops 0 to `dim` as `consumer`
/// is: those loops parallel, with `consumer`'s bounds, and its result's
/// leading dimensions.
static bool sharesLeadingLoops(linalg::LinalgOp op, linalg::LinalgOp consumer,
                               unsigned dim) {
  SmallVector<int64_t> bounds = op.getStaticLoopRanges();
  SmallVector<int64_t> consumerBounds = consumer.getStaticLoopRanges();
  if (bounds.size() <= dim ||
      !leadsWithLoops(op.getIndexingMapMatchingResult(op->getResult(0)), dim))
    return false;
  for (unsigned d = 0; d <= dim; ++d)
    if (bounds[d] != consumerBounds[d] ||
        op.getIteratorTypesArray()[d] != utils::IteratorType::parallel)
      return false;
  return true;
}

/// The element-wise op that makes `op`'s destination (a fill, a bias
/// broadcast), where nothing else reads that and a chunk of `consumer` can
/// compute its slice; or null.
static linalg::LinalgOp getDestinationMaker(linalg::LinalgOp op,
                                            linalg::LinalgOp consumer) {
  if (op.getNumDpsInits() != 1)
    return nullptr;
  Value init = op.getDpsInitOperand(0)->get();
  auto maker = init.getDefiningOp<linalg::LinalgOp>();
  if (!maker || !init.hasOneUse() || !isSliceable(maker, consumer) ||
      maker.getNumParallelLoops() != maker.getNumLoops())
    return nullptr;
  return maker;
}

/// The ops that are computed with `consumer`, cut along its loop `dim`, in
/// the same parallel loop; each thread then computes its rows of all of
/// them while they are in its cache, in one parallel region rather than
/// one each. They are the producers, transitively, of what the group reads
///  - that nothing else reads, read element by element (an identity map),
///    such as a depthwise convolution before its activation, and that
///    producer's destination when a linalg op that nothing else reads
///    makes it (the convolution's bias broadcast);
///  - or that only the group reads, each member reading its rows (loops 0
///    to `dim` leading both its result and each read of it): the maximum,
///    exponentials and sum of a softmax, a normalization's sum of squares,
///    the fills the reductions start from.
/// A reduction (a pooling) takes only the element-wise op that makes the
/// destination it starts from (a fill, a bias broadcast), where nothing
/// else reads that: each thread fills its own rows just before it computes
/// them, and qdq-vectorize-channel-windows' tiles start from the fill's
/// value instead.
static SmallVector<Operation *> getFusedProducers(linalg::LinalgOp consumer,
                                                  unsigned dim) {
  // Chunks aligned to a block of the consumer's would share its producer
  // out among fewer threads than the producer's own chunks.
  if (!hasAnyTileAlignment(consumer))
    return {};
  if (consumer.getNumParallelLoops() != consumer.getNumLoops()) {
    if (linalg::LinalgOp start = getDestinationMaker(consumer, consumer))
      return {start.getOperation()};
    return {};
  }
  SetVector<Operation *> group;
  group.insert(consumer);
  // Whether every read of `producer` is a group member's read of its rows:
  // the member is cut along the same leading loops (not one that writes its
  // result transposed, whose chunk would need all of `producer`).
  auto readByRows = [&](linalg::LinalgOp producer) {
    if (!sharesLeadingLoops(producer, consumer, dim))
      return false;
    for (OpOperand &use : producer->getResult(0).getUses()) {
      auto user = dyn_cast<linalg::LinalgOp>(use.getOwner());
      if (!user || !group.contains(user) ||
          !sharesLeadingLoops(user, consumer, dim) ||
          !leadsWithLoops(user.getMatchingIndexingMap(&use), dim))
        return false;
    }
    return true;
  };
  // Whether `input`, read by a member, is its one element-wise read.
  auto readOnceInPlace = [&](linalg::LinalgOp member, OpOperand &input) {
    return input.get().hasOneUse() &&
           member.getMatchingIndexingMap(&input).isIdentity();
  };
  // Grows the group until no producer joins: a producer read by two
  // members joins once both are in.
  for (bool grown = true; grown;) {
    grown = false;
    for (size_t i = 0; i < group.size(); ++i) {
      auto member = cast<linalg::LinalgOp>(group[i]);
      for (OpOperand &input : member->getOpOperands()) {
        auto producer = input.get().getDefiningOp<linalg::LinalgOp>();
        if (!producer || group.contains(producer) ||
            !isSliceable(producer, consumer))
          continue;
        bool inPlace =
            !member.isDpsInit(&input) && readOnceInPlace(member, input);
        if (!inPlace && !readByRows(producer))
          continue;
        group.insert(producer);
        grown = true;
        // Its destination, made by an op that nothing else reads.
        if (linalg::LinalgOp destination =
                getDestinationMaker(producer, consumer))
          group.insert(destination);
      }
    }
  }
  return llvm::to_vector(llvm::drop_begin(group));
}

namespace {
struct DistributeLoopsPass
    : public quant_qdq::impl::DistributeLoopsBase<DistributeLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    shareOutCopiesIntoSlices();
    // Ops directly in a function body: those inside loops are tiles
    // already.
    SmallVector<linalg::LinalgOp> ops;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (isa<FunctionOpInterface>(op->getParentOp()) &&
          op.hasPureTensorSemantics() && isa<TilingInterface>(*op))
        ops.push_back(op);
    });
    // Producers computed in their consumer's loop are not distributed on
    // their own.
    DenseMap<Operation *, SmallVector<Operation *>> fusedInto;
    DenseSet<Operation *> fused;
    for (linalg::LinalgOp op : llvm::reverse(ops)) {
      // A producer whose consumer stays whole is shared out on its own.
      if (fused.contains(op))
        continue;
      std::optional<SmallVector<int64_t>> sizes = getChunkSizes(op);
      if (!sizes)
        continue;
      unsigned dim = llvm::find_if(*sizes, [](int64_t s) { return s != 0; }) -
                     sizes->begin();
      SmallVector<Operation *> producers = getFusedProducers(op, dim);
      fused.insert_range(producers);
      if (!producers.empty())
        fusedInto[op] = std::move(producers);
    }
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      if (fused.contains(op))
        continue;
      std::optional<SmallVector<int64_t>> sizes = getChunkSizes(op);
      if (!sizes)
        continue;
      if (auto it = fusedInto.find(op); it != fusedInto.end())
        distributeWithProducers(rewriter, op, *sizes, it->second);
      else
        distributeAlone(rewriter, op, *sizes);
    }
  }

  /// Tiles `op` by `sizes` in an scf.forall, or leaves it one sequential
  /// nest where it cannot be tiled.
  static void distributeAlone(RewriterBase &rewriter, linalg::LinalgOp op,
                              ArrayRef<int64_t> sizes) {
    rewriter.setInsertionPoint(op);
    FailureOr<scf::SCFTilingResult> tiled =
        scf::tileUsingSCF(rewriter, cast<TilingInterface>(op.getOperation()),
                          getChunkOptions(op, sizes));
    if (succeeded(tiled))
      rewriter.replaceOp(op, tiled->replacements);
  }

  static scf::SCFTilingOptions getChunkOptions(linalg::LinalgOp op,
                                               ArrayRef<int64_t> sizes) {
    scf::SCFTilingOptions options;
    options.setTileSizes(getAsIndexOpFoldResult(op.getContext(), sizes));
    options.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
    return options;
  }

  /// The tile sizes that cut `op`'s outermost parallel loop of two or more
  /// iterations into at most `chunks` chunks, or none where `op` stays
  /// whole: dynamic, smaller than `minIterations`, or one chunk.
  std::optional<SmallVector<int64_t>> getChunkSizes(linalg::LinalgOp op) {
    SmallVector<int64_t> bounds = op.getStaticLoopRanges();
    if (llvm::any_of(bounds, ShapedType::isDynamic))
      return std::nullopt;
    int64_t iterations = 1;
    for (int64_t bound : bounds)
      iterations *= bound;
    if (iterations < minIterations)
      return std::nullopt;
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    std::optional<unsigned> dim;
    for (unsigned d = 0; d < bounds.size() && !dim; ++d)
      if (iterators[d] == utils::IteratorType::parallel && bounds[d] >= 2)
        dim = d;
    if (!dim)
      return std::nullopt;
    SmallVector<int64_t> sizes(bounds.size(), 0);
    sizes[*dim] = llvm::alignTo(
        llvm::divideCeil(bounds[*dim], std::min<int64_t>(chunks, bounds[*dim])),
        getTileAlignment(op, *dim));
    if (sizes[*dim] >= bounds[*dim])
      return std::nullopt; // one tile: nothing to share
    return sizes;
  }

  /// Tiles `op` by `sizes`, computing in each tile the slices of
  /// `producers` it reads. Where that fails, or leaves a producer computed
  /// whole, each is shared out on its own.
  void distributeWithProducers(RewriterBase &rewriter, linalg::LinalgOp op,
                               ArrayRef<int64_t> sizes,
                               ArrayRef<Operation *> producers) {
    scf::SCFTileAndFuseOptions fuse;
    fuse.setTilingOptions(getChunkOptions(op, sizes));
    fuse.setFusionControlFn(
        [&](tensor::ExtractSliceOp, OpResult producer, bool)
            -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
          if (llvm::is_contained(producers, producer.getOwner()))
            return scf::SCFTileAndFuseOptions::ControlFnResult{};
          return std::nullopt;
        });
    rewriter.setInsertionPoint(op);
    FailureOr<scf::SCFTileAndFuseResult> tiled =
        scf::tileConsumerAndFuseProducersUsingSCF(
            rewriter, cast<TilingInterface>(op.getOperation()), fuse);
    if (failed(tiled)) {
      distributeAlone(rewriter, op, sizes);
    } else {
      for (OpResult result : op->getResults())
        rewriter.replaceAllUsesWith(result, tiled->replacements.lookup(result));
      rewriter.eraseOp(op);
      // A producer two members read is fused for each read: the same op on
      // the same slices, computed once.
      for (LoopLikeOpInterface loop : tiled->loops) {
        DominanceInfo dominance(loop);
        eliminateCommonSubExpressions(rewriter, dominance, loop);
      }
    }
    // Fusion leaves the producers' slices it read unused; consumers first:
    // the destination's one reader is the producer.
    for (Operation *producer : producers) {
      for (Operation *user : llvm::make_early_inc_range(producer->getUsers()))
        if (isa<tensor::ExtractSliceOp>(user) && user->use_empty())
          rewriter.eraseOp(user);
      if (producer->use_empty()) {
        rewriter.eraseOp(producer);
        continue;
      }
      auto left = cast<linalg::LinalgOp>(producer);
      if (std::optional<SmallVector<int64_t>> own = getChunkSizes(left))
        distributeAlone(rewriter, left, *own);
    }
  }

  /// A tensor inserted into a larger one that bufferization copies there
  /// becomes a memref.copy, a strided copy on one thread while the others
  /// wait: an argument (the network's input into the padded buffer of its
  /// first convolution, which canonicalization makes of the element-wise
  /// copy that pad fusion wrote), or the halves of a query that rotary
  /// embeddings' rotate_half concatenates (a slice of it, and the other
  /// half negated): 9% of a Llama prefill. As a linalg.copy into the
  /// destination's slice, it is shared out like the rest. (Upstream's
  /// empty-tensor elimination would compute the negated half in place, but
  /// applied to every insert it made bufferization copy the contractions'
  /// tiles of MobileNet-v2: 3.9 to 6.8 ms a run.)
  void shareOutCopiesIntoSlices() {
    getOperation()->walk([&](tensor::InsertSliceOp insert) {
      RankedTensorType type = insert.getSourceType();
      if (!isa<FunctionOpInterface>(insert->getParentOp()) ||
          !isCopiedByBufferization(insert.getSource()) ||
          !type.hasStaticShape() || type.getNumElements() < minIterations)
        return;
      OpBuilder builder(insert);
      Location loc = insert.getLoc();
      auto slice = tensor::ExtractSliceOp::create(
          builder, loc, type, insert.getDest(), insert.getMixedOffsets(),
          insert.getMixedSizes(), insert.getMixedStrides());
      auto copy = linalg::CopyOp::create(builder, loc, insert.getSource(),
                                         slice.getResult());
      insert.getSourceMutable().assign(copy.getResult(0));
    });
  }
};
} // namespace
