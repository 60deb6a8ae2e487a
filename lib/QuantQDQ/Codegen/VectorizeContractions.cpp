//===- VectorizeContractions.cpp - register-blocked f32 contractions ------===//
//
// A matmul lowered to plain loops runs at a few GFLOP/s: every product
// reloads its accumulator. This pass gives each f32 contraction on static
// shapes the structure of a BLAS microkernel: the output is cut into
// register tiles of MR rows (the last m dimension) by NR columns (the
// output's contiguous n dimension), walked n-outer, m-inner so that a
// column panel of the right operand stays in cache; each tile is a loop
// over k of MR x NR x 1 vector.contracts whose accumulator, hoisted out of
// the loop, stays in registers. Tiles that do not divide a dimension are
// peeled into static remainder tiles, so no masks are needed. A right
// operand not contiguous along n (a Gemm with transB) is transposed once.
//
//===----------------------------------------------------------------------===//

#include "BroadcastAccumulators.h"
#include "ContractionEpilogue.h"
#include "MatmulDims.h"
#include "QuantQDQ/Codegen/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_VECTORIZECONTRACTIONS
#include "QuantQDQ/Codegen/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;

static constexpr StringLiteral kRegisterTile = "quant_qdq.register_tile";
static constexpr StringLiteral kEpilogueTile = "quant_qdq.epilogue_tile";

/// Makes the right operand contiguous along n: transposes it so that n's
/// dimension comes last, and rewrites its indexing map to match.
static void makeRhsContiguous(RewriterBase &rewriter, linalg::GenericOp op,
                              const MatmulDims &blocking) {
  OpOperand *rhs = op.getDpsInputOperand(blocking.rhs);
  AffineMap map = op.getMatchingIndexingMap(rhs);
  ArrayRef<AffineExpr> results = map.getResults();
  if (getDimPosition(results.back()) == blocking.n)
    return;
  SmallVector<int64_t> perm;
  int64_t nPos = -1;
  for (auto [i, e] : llvm::enumerate(results)) {
    if (getDimPosition(e) == blocking.n)
      nPos = i;
    else
      perm.push_back(i);
  }
  perm.push_back(nPos);
  auto type = cast<RankedTensorType>(rhs->get().getType());
  SmallVector<int64_t> shape;
  SmallVector<AffineExpr> exprs;
  for (int64_t p : perm) {
    shape.push_back(type.getDimSize(p));
    exprs.push_back(results[p]);
  }
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  Value init =
      tensor::EmptyOp::create(rewriter, loc, shape, type.getElementType());
  Value transposed =
      linalg::TransposeOp::create(rewriter, loc, rhs->get(), init, perm)
          .getResult()[0];
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  maps[blocking.rhs] =
      AffineMap::get(map.getNumDims(), 0, exprs, op.getContext());
  rewriter.modifyOpInPlace(op, [&] {
    rhs->set(transposed);
    op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
  });
}

/// The register tiles' loops, outermost first: the other parallel
/// dimensions, n, m, the other reductions, k.
static SmallVector<int64_t> getTileLoopOrder(linalg::GenericOp op,
                                             const MatmulDims &blocking) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<int64_t> order;
  for (unsigned d = 0; d < iterators.size(); ++d)
    if (iterators[d] == utils::IteratorType::parallel && d != blocking.n &&
        d != blocking.m)
      order.push_back(d);
  order.push_back(blocking.n);
  if (blocking.m)
    order.push_back(*blocking.m);
  for (unsigned d = 0; d < iterators.size(); ++d)
    if (iterators[d] == utils::IteratorType::reduction && d != blocking.k)
      order.push_back(d);
  order.push_back(blocking.k);
  return order;
}

/// The rows of `op`'s register tiles: `rows`, or down to three quarters
/// of it where that divides m and `rows` does not. A remainder tile of
/// fewer rows reuses each loaded column less: a 7x7 map (49 pixels) runs as
/// 7 tiles of 7 rows rather than 6 of 8 and one of 1.
static int64_t getTileRows(linalg::GenericOp op, const MatmulDims &blocking,
                           int64_t rows) {
  if (!blocking.m)
    return rows;
  int64_t extent = op.getStaticLoopRanges()[*blocking.m];
  if (extent % rows == 0)
    return rows;
  for (int64_t r = rows - 1; 4 * r >= 3 * rows; --r)
    if (extent % r == 0)
      return r;
  return rows;
}

/// How much longer than an even share of `extent` iterations the busiest
/// of `threads` threads takes when they share whole grains of `grain` and
/// the remainder then runs on one of them.
static double getSlowdown(int64_t extent, int64_t grain, int64_t threads) {
  int64_t grains = extent / grain;
  int64_t busiest = llvm::divideCeil(grains, threads) * grain +
                    (extent - grains * grain);
  return double(busiest) * double(threads) / double(extent);
}

/// A contraction, and the element-wise op its tiles apply before storing
/// (null where there is none): tiled together.
struct ContractionPart {
  linalg::GenericOp contraction, epilogue;
};

/// Computes, where `epilogue` reads it, the slice of its contraction it
/// reads as operand `operand`; returns the contraction's slice, whose
/// operands are slices of the contraction's. The contraction itself goes
/// once nothing else reads it.
static FailureOr<linalg::GenericOp> fuseContraction(RewriterBase &rewriter,
                                                    linalg::GenericOp epilogue,
                                                    unsigned operand) {
  auto slice =
      epilogue->getOperand(operand).getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice)
    return failure();
  auto producer = dyn_cast<OpResult>(slice.getSource());
  if (!producer)
    return failure();
  rewriter.setInsertionPoint(slice);
  FailureOr<TilingResult> tiled =
      tensor::replaceExtractSliceWithTiledProducer(rewriter, slice, producer);
  if (failed(tiled) || tiled->tiledOps.size() != 1)
    return failure();
  rewriter.replaceOp(slice, tiled->tiledValues[0]);
  if (producer.getOwner()->use_empty())
    rewriter.eraseOp(producer.getOwner());
  return cast<linalg::GenericOp>(tiled->tiledOps[0]);
}

/// The operand of `epilogue` that is `contraction`'s result.
static unsigned getContractionOperand(ContractionPart part) {
  return part.contraction->getResult(0).use_begin()->getOperandNumber();
}

/// Distributes `op` over `threads` threads: an scf.forall over the parallel
/// dimension that holds at least two grains (a grain being one register
/// tile along it) and that the threads share most evenly, the remainder
/// that is not a whole grain counted as sequential; ties go to the first in
/// the register tiles' loop order. Where a second dimension of whole
/// grains shares the chunks more evenly, the forall runs over both. Each
/// iteration then owns whole tiles, the column panel of the right operand they
/// read included. The rest is split off first and stays sequential, so that
/// every part keeps static shapes. An epilogue is split and distributed along
/// the same dimension, each of its parts computing the contraction's part it
/// reads. Returns the parts left to tile for registers.
static FailureOr<SmallVector<ContractionPart>>
distributeOverThreads(RewriterBase &rewriter, ContractionPart whole,
                      const MatmulDims &blocking, int64_t rows, int64_t columns,
                      int64_t threads) {
  linalg::GenericOp op = whole.contraction;
  SmallVector<int64_t> bounds = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  auto grainOf = [&](int64_t d) -> int64_t {
    return d == blocking.n ? columns : d == blocking.m ? rows : 1;
  };
  // Whether threads that share dimension `d` read parts of the right
  // operand of their own: n does, and a batch dimension of the right
  // operand (attention's heads); a batch of samples multiplied by one weight
  // does not, and each thread would stream all of that weight.
  AffineMap rhsMap =
      op.getMatchingIndexingMap(op.getDpsInputOperand(blocking.rhs));
  auto splitsRhs = [&](int64_t d) { return rhsMap.isFunctionOfDim(d); };
  // The parallel loops lead the tiles' loop order.
  std::optional<int64_t> chosen;
  double chosenSlowdown = 0;
  for (int64_t d : getTileLoopOrder(op, blocking)) {
    if (iterators[d] != utils::IteratorType::parallel)
      break;
    if (bounds[d] < 2 * grainOf(d))
      continue;
    double slowdown = getSlowdown(bounds[d], grainOf(d), threads);
    if (!chosen || slowdown < chosenSlowdown ||
        (slowdown == chosenSlowdown && splitsRhs(d) && !splitsRhs(*chosen))) {
      chosen = d;
      chosenSlowdown = slowdown;
    }
  }
  if (!chosen)
    return SmallVector<ContractionPart>{whole};
  int64_t dim = *chosen, grain = grainOf(dim);
  // A dimension that the threads share unevenly (the 7 rows of a 7x7 map:
  // 4 against 3) is shared with a second one, where both are whole grains,
  // as chunks of both (7 rows by 5 panels: 18 chunks against 17).
  std::optional<int64_t> second;
  if (bounds[dim] % grain == 0) {
    for (int64_t d : getTileLoopOrder(op, blocking)) {
      if (iterators[d] != utils::IteratorType::parallel)
        break;
      if (d == dim || bounds[d] < 2 * grainOf(d) || bounds[d] % grainOf(d) != 0)
        continue;
      double slowdown = getSlowdown(
          bounds[dim] / grain * (bounds[d] / grainOf(d)), 1, threads);
      if (slowdown < chosenSlowdown) {
        second = d;
        chosenSlowdown = slowdown;
      }
    }
  }

  // With an epilogue, the epilogue is what is split and tiled; its loops
  // are the contraction's parallel ones, in the output's order.
  linalg::GenericOp root = whole.epilogue ? whole.epilogue : op;
  int64_t rootDim = whole.epilogue ? getEpilogueLoop(op, dim) : dim;
  std::optional<unsigned> operand;
  if (whole.epilogue)
    operand = getContractionOperand(whole);
  // The contraction's part that an epilogue's part reads.
  auto partOf = [&](linalg::GenericOp part) -> FailureOr<ContractionPart> {
    if (!operand)
      return ContractionPart{part, nullptr};
    FailureOr<linalg::GenericOp> contraction =
        fuseContraction(rewriter, part, *operand);
    if (failed(contraction))
      return failure();
    return ContractionPart{*contraction, part};
  };

  SmallVector<ContractionPart> parts;
  int64_t wholeGrains = bounds[dim] / grain * grain;
  rewriter.setInsertionPoint(root);
  std::optional<linalg::GenericOp> rest;
  // The part of the whole that the threads share, as it is before that.
  ContractionPart shared = whole;
  if (wholeGrains < bounds[dim]) {
    auto [head, tail] =
        linalg::splitOp(rewriter, cast<TilingInterface>(root.getOperation()),
                        rootDim, rewriter.getIndexAttr(wholeGrains));
    root = cast<linalg::GenericOp>(head.getOperation());
    rest = cast<linalg::GenericOp>(tail.getOperation());
    shared = {root, nullptr};
    // The head is tiled below: it reads its own part of the contraction.
    if (operand) {
      FailureOr<linalg::GenericOp> contraction =
          fuseContraction(rewriter, root, *operand);
      if (failed(contraction))
        return failure();
      shared = {*contraction, root};
    }
    rewriter.setInsertionPoint(root);
  }
  SmallVector<int64_t> sizes(root.getNumLoops(), 0);
  sizes[rootDim] = grain;
  if (second)
    sizes[whole.epilogue ? getEpilogueLoop(op, *second) : *second] =
        grainOf(*second);
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(op.getContext(), sizes));
  options.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(root.getOperation()), options);
  if (failed(tiled)) {
    parts.push_back(shared); // stays on one thread
  } else {
    Operation *oldRoot = root;
    rewriter.replaceOp(oldRoot, tiled->replacements);
    FailureOr<ContractionPart> head =
        partOf(cast<linalg::GenericOp>(tiled->tiledOps.back()));
    if (failed(head))
      return failure();
    parts.push_back(*head);
  }
  if (rest) {
    FailureOr<ContractionPart> tail = partOf(*rest);
    if (failed(tail))
      return failure();
    parts.push_back(*tail);
  }
  return parts;
}

/// Tiles `part` into register tiles, its loops in getTileLoopOrder, and
/// peels the loops of m, n and k where a tile does not divide them. With an
/// epilogue, the epilogue is tiled along the parallel loops, each of its
/// tiles computing the contraction's tile it reads, whose reductions are
/// then tiled inside.
static LogicalResult tileIntoRegisters(RewriterBase &rewriter,
                                       ContractionPart part,
                                       const MatmulDims &blocking, int64_t rows,
                                       int64_t columns, int64_t depth) {
  linalg::GenericOp op = part.contraction;
  SmallVector<int64_t> bounds = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<int64_t> sizes(bounds.size(), 1);
  sizes[blocking.n] = std::min(columns, bounds[blocking.n]);
  if (blocking.m)
    sizes[*blocking.m] = std::min(rows, bounds[*blocking.m]);
  sizes[blocking.k] = std::min(depth, bounds[blocking.k]);
  SmallVector<int64_t> order = getTileLoopOrder(op, blocking);

  // The loop of each of the contraction's dimensions, once tiled.
  DenseMap<int64_t, scf::ForOp> loops;
  auto tile = [&](linalg::GenericOp target, ArrayRef<int64_t> tileSizes,
                  ArrayRef<int64_t> interchange,
                  ArrayRef<int64_t> dims) -> FailureOr<Operation *> {
    scf::SCFTilingOptions options;
    options.setTileSizes(getAsIndexOpFoldResult(op.getContext(), tileSizes));
    options.setInterchange(interchange);
    rewriter.setInsertionPoint(target);
    FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
        rewriter, cast<TilingInterface>(target.getOperation()), options);
    if (failed(tiled))
      return failure();
    rewriter.replaceOp(target, tiled->replacements);
    // Loops come outermost first, one per dimension tiled, in `dims`.
    for (auto [loop, d] : llvm::zip_equal(tiled->loops, dims))
      loops[d] = cast<scf::ForOp>(loop.getOperation());
    return tiled->tiledOps.back();
  };

  Operation *registerTile;
  if (!part.epilogue) {
    FailureOr<Operation *> tiled = tile(op, sizes, order, order);
    if (failed(tiled))
      return failure();
    registerTile = *tiled;
  } else {
    unsigned operand = getContractionOperand(part);
    SmallVector<int64_t> outerSizes(part.epilogue.getNumLoops(), 0), outerOrder,
        parallelDims, innerSizes(bounds.size(), 0), reductionDims;
    for (int64_t d : order) {
      if (iterators[d] == utils::IteratorType::parallel) {
        int64_t e = getEpilogueLoop(op, d);
        outerSizes[e] = sizes[d];
        outerOrder.push_back(e);
        parallelDims.push_back(d);
      } else {
        innerSizes[d] = sizes[d];
        reductionDims.push_back(d);
      }
    }
    FailureOr<Operation *> epilogueTile =
        tile(part.epilogue, outerSizes, outerOrder, parallelDims);
    if (failed(epilogueTile))
      return failure();
    (*epilogueTile)->setAttr(kEpilogueTile, rewriter.getUnitAttr());
    FailureOr<linalg::GenericOp> contractionTile = fuseContraction(
        rewriter, cast<linalg::GenericOp>(*epilogueTile), operand);
    if (failed(contractionTile))
      return failure();
    FailureOr<Operation *> tiled =
        tile(*contractionTile, innerSizes, order, reductionDims);
    if (failed(tiled))
      return failure();
    registerTile = *tiled;
  }
  registerTile->setAttr(kRegisterTile, rewriter.getUnitAttr());

  // An accumulator read inside a reduction's loop is a partial sum.
  for (unsigned d : order)
    if (iterators[d] == utils::IteratorType::reduction && bounds[d] > sizes[d])
      markReductionLoop(loops.at(d));
  // Peel the inner (m) loop first: peeling n then copies both of its tiles.
  SmallVector<scf::ForOp> toPeel;
  if (blocking.m && bounds[*blocking.m] % sizes[*blocking.m] != 0)
    toPeel.push_back(loops.at(*blocking.m));
  if (bounds[blocking.n] % sizes[blocking.n] != 0)
    toPeel.push_back(loops.at(blocking.n));
  if (bounds[blocking.k] % sizes[blocking.k] != 0)
    toPeel.insert(toPeel.begin(), loops.at(blocking.k));
  for (scf::ForOp loop : toPeel) {
    scf::ForOp partial;
    (void)scf::peelForLoopAndSimplifyBounds(rewriter, loop, partial);
  }
  return success();
}

/// A direct convolution's tile reads its image at window indices
/// (ow sw + kw) whose window loops each run once: their slice of the image
/// starts at the window's position already, so the loops read as 0 there.
/// A window at a stride then reads every sw-th pixel of its slice (ow sw),
/// which a strided slice of that slice reads at ow. That leaves indexing
/// maps that are projected permutations, as vectorization requires; a
/// tile's row of pixels is then read a pixel at a time (each one a
/// broadcast), at any stride.
static void readWindowsInPlace(RewriterBase &rewriter, linalg::GenericOp tile) {
  SmallVector<AffineMap> maps = tile.getIndexingMapsArray();
  if (llvm::all_of(maps,
                   [](AffineMap m) { return m.isProjectedPermutation(); }))
    return;
  SmallVector<int64_t> bounds = tile.getStaticLoopRanges();
  MLIRContext *context = tile.getContext();
  SmallVector<AffineExpr> replacements;
  for (auto [d, bound] : llvm::enumerate(bounds))
    replacements.push_back(bound == 1 && tile.getIteratorTypesArray()[d] ==
                                             utils::IteratorType::reduction
                               ? getAffineConstantExpr(0, context)
                               : getAffineDimExpr(d, context));
  rewriter.setInsertionPoint(tile);
  SmallVector<std::pair<unsigned, Value>> strided;
  for (auto [operand, map] : llvm::enumerate(maps)) {
    if (map.isProjectedPermutation())
      continue;
    map = map.replaceDimsAndSymbols(replacements, {}, map.getNumDims(), 0);
    // Each index sd of a stride s > 1 reads d of a slice at stride s.
    Value source = tile->getOperand(operand);
    auto type = cast<RankedTensorType>(source.getType());
    SmallVector<AffineExpr> results(map.getResults());
    SmallVector<int64_t> sizes(type.getShape()), strides(type.getRank(), 1);
    for (auto [i, e] : llvm::enumerate(results)) {
      auto product = dyn_cast<AffineBinaryOpExpr>(e);
      if (!product || product.getKind() != AffineExprKind::Mul)
        continue;
      auto d = dyn_cast<AffineDimExpr>(product.getLHS());
      auto stride = dyn_cast<AffineConstantExpr>(product.getRHS());
      if (!d || !stride || stride.getValue() <= 1)
        continue;
      results[i] = d;
      sizes[i] = bounds[d.getPosition()];
      strides[i] = stride.getValue();
    }
    map = AffineMap::get(map.getNumDims(), 0, results, context);
    if (sizes != type.getShape())
      strided.emplace_back(
          operand, tensor::ExtractSliceOp::create(
                       rewriter, tile.getLoc(), source,
                       getAsIndexOpFoldResult(
                           context, SmallVector<int64_t>(sizes.size(), 0)),
                       getAsIndexOpFoldResult(context, sizes),
                       getAsIndexOpFoldResult(context, strides)));
  }
  rewriter.modifyOpInPlace(tile, [&] {
    tile.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    for (auto [operand, slice] : strided)
      tile->setOperand(operand, slice);
  });
}

/// The linalg.generic ops under `root` marked `mark`, in program order,
/// their mark removed.
static SmallVector<linalg::GenericOp> takeMarked(Operation *root,
                                                 StringRef mark) {
  SmallVector<linalg::GenericOp> marked;
  root->walk([&](linalg::GenericOp op) {
    if (op->removeAttr(mark))
      marked.push_back(op);
  });
  return marked;
}

/// The canonicalizer's patterns, applied to `root`: folds the peeled tiles'
/// sizes into static shapes.
static LogicalResult canonicalize(Operation *root) {
  MLIRContext *context = root->getContext();
  RewritePatternSet patterns(context);
  for (Dialect *dialect : context->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName name : context->getRegisteredOperations())
    name.getCanonicalizationPatterns(patterns, context);
  return applyPatternsGreedily(root, std::move(patterns));
}

namespace {
struct VectorizeContractionsPass
    : public quant_qdq::impl::VectorizeContractionsBase<
          VectorizeContractionsPass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    if (rows < 1 || columns < 1 || depth < 1 || wideColumns < 0) {
      emitError(root->getLoc(),
                "qdq-vectorize-contractions: rows, columns and depth must be "
                "positive and wide-columns 0 or more, got ")
          << int64_t(rows) << ", " << int64_t(columns) << ", "
          << int64_t(depth) << " and " << int64_t(wideColumns);
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    SmallVector<std::pair<linalg::GenericOp, MatmulDims>> contractions =
        getStaticF32Matmuls(rewriter, root);
    if (contractions.empty())
      return;
    // Exposing epilogues rewrites their readers and drops dead ops, dead
    // contractions among them: the contractions are listed again.
    exposeEpilogues(root,
                    llvm::to_vector(llvm::make_first_range(contractions)));
    contractions = getStaticF32Matmuls(rewriter, root);
    // Contractions whose output starts as a broadcast (a bias) or a fill:
    // their tiles start from the broadcast's source instead. Each is found just
    // before its contraction is tiled, once the ones before it, whose
    // results or epilogues the broadcast may read, are loops.
    SmallVector<BroadcastInit> broadcastInits;
    SmallVector<Value> broadcastRoots;
    for (auto &[op, blocking] : contractions) {
      if (std::optional<BroadcastInit> init = getBroadcastInit(rewriter, op)) {
        broadcastInits.push_back(*init);
        broadcastRoots.push_back(init->init);
      }
      makeRhsContiguous(rewriter, op, blocking);
      // A wide panel (qdq-pack-contraction-panels) is read by tiles as wide.
      int64_t width =
          wideColumns > 0 && op.getStaticLoopRanges()[blocking.n] == wideColumns
              ? int64_t(wideColumns)
              : int64_t(columns);
      int64_t height = getTileRows(op, blocking, rows);
      Location loc = op.getLoc();
      SmallVector<ContractionPart> parts = {{op, getEpilogue(op)}};
      if (parallel) {
        FailureOr<SmallVector<ContractionPart>> distributed =
            distributeOverThreads(rewriter, parts.front(), blocking, height,
                                  width, std::max<int64_t>(threads, 1));
        if (failed(distributed)) {
          emitError(loc, "cannot distribute this contraction over threads");
          return signalPassFailure();
        }
        parts = std::move(*distributed);
      }
      for (ContractionPart part : parts)
        if (failed(tileIntoRegisters(rewriter, part, blocking, height, width,
                                     depth))) {
          emitError(loc, "cannot tile this contraction into register tiles");
          return signalPassFailure();
        }
    }
    SmallVector<int64_t> broadcastTiles(broadcastInits.size(), 0);
    if (failed(canonicalize(root)))
      return signalPassFailure();

    // Vectorize each static tile; the k loop around it then carries its
    // accumulator as a vector.
    for (linalg::GenericOp tile : takeMarked(root, kRegisterTile)) {
      // Count each broadcast's tiles; one that stays a linalg op reads the
      // broadcast's values, which must then stay.
      rewriter.setInsertionPoint(tile);
      SmallVector<Value> offsets;
      Value broadcastRoot = traceSliceRoot(
          rewriter, tile.getDpsInitOperand(0)->get(), broadcastRoots, offsets,
          /*throughPartialSums=*/true);
      int64_t *count =
          broadcastRoot
              ? &broadcastTiles[llvm::find(broadcastRoots, broadcastRoot) -
                                broadcastRoots.begin()]
              : nullptr;
      if (count && *count >= 0)
        ++*count;
      // A tile whose slice cannot be followed may read a broadcast's
      // values all the same: that broadcast stays.
      if (!broadcastRoot)
        if (Value reached = getDestinationRoot(tile.getDpsInitOperand(0)->get(),
                                               broadcastRoots))
          broadcastTiles[llvm::find(broadcastRoots, reached) -
                         broadcastRoots.begin()] = -1;
      if (!hasStaticF32Operands(tile)) {
        if (count)
          *count = -1;
        continue; // a dynamic tile stays a linalg op and becomes loops
      }
      readWindowsInPlace(rewriter, tile);
      markInitialAccumulator(tile);
      rewriter.setInsertionPoint(tile);
      FailureOr<linalg::VectorizationResult> vectorized = linalg::vectorize(
          rewriter, tile, /*inputVectorSizes=*/{}, /*scalableDims=*/{},
          /*vectorizeNDExtract=*/false, /*flatten1DDepthwiseConv=*/false,
          /*assumeDynamicDimsMatchVecSizes=*/false,
          /*createNamedContraction=*/true);
      if (failed(vectorized)) {
        if (count)
          *count = -1;
        continue;
      }
      rewriter.replaceOp(tile, vectorized->replacements);
    }
    // An epilogue's tiles read the register tiles' results: vectors, once
    // the read of each stored tile folds away.
    for (linalg::GenericOp tile : takeMarked(root, kEpilogueTile)) {
      if (!hasStaticF32Operands(tile))
        continue;
      rewriter.setInsertionPoint(tile);
      FailureOr<linalg::VectorizationResult> vectorized =
          linalg::vectorize(rewriter, tile);
      if (succeeded(vectorized))
        rewriter.replaceOp(tile, vectorized->replacements);
    }
    // mulf + multi_reduction over k is a vector.contract (lowered to one
    // broadcast FMA per row and k); the tiles' unit dimensions go.
    {
      RewritePatternSet patterns(&getContext());
      vector::populateVectorReductionToContractPatterns(patterns);
      vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
      if (failed(applyPatternsGreedily(root, std::move(patterns))))
        return signalPassFailure();
    }
    {
      RewritePatternSet patterns(&getContext());
      vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
      if (failed(applyPatternsGreedily(root, std::move(patterns))))
        return signalPassFailure();
    }
    // Innermost loops first, so that a hoisted accumulator is invariant in
    // the next loop out as well.
    if (failed(canonicalize(root)))
      return signalPassFailure();
    SmallVector<scf::ForOp> loops;
    root->walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      (void)hoistLoopInvariantSubsets(rewriter, loop);
    readAccumulatorsFromBroadcasts(rewriter, root, broadcastInits,
                                   broadcastTiles);
    if (failed(canonicalize(root)))
      signalPassFailure();
  }
};
} // namespace
