//===- BroadcastAccumulators.cpp - tiles that start from a bias -----------===//

#include "BroadcastAccumulators.h"
#include "LinearIndex.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

using namespace mlir;
using namespace mlir::quant_qdq;

static constexpr StringLiteral kPartialSums = "quant_qdq.partial_sums";
static constexpr StringLiteral kInitialAccumulator =
    "quant_qdq.initial_accumulator";

void mlir::quant_qdq::markReductionLoop(scf::ForOp loop) {
  loop->setAttr(kPartialSums, UnitAttr::get(loop.getContext()));
}

void mlir::quant_qdq::markInitialAccumulator(linalg::GenericOp tile) {
  Value init = tile.getDpsInitOperand(0)->get();
  while (auto arg = dyn_cast<BlockArgument>(init)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!loop || !loop->hasAttr(kPartialSums) ||
        arg.getArgNumber() < loop.getNumInductionVars())
      return;
    init = loop.getTiedLoopInit(arg)->get();
  }
  if (auto slice = init.getDefiningOp<tensor::ExtractSliceOp>())
    slice->setAttr(kInitialAccumulator, UnitAttr::get(tile.getContext()));
}

/// Whether `op` broadcasts its one input into a new tensor: a
/// linalg.broadcast, or a linalg.generic whose loops are all parallel,
/// whose output is written in order and whose body yields the input.
static bool isBroadcast(linalg::LinalgOp op) {
  if (!isa<linalg::GenericOp, linalg::BroadcastOp>(op) ||
      op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      !op.hasPureTensorSemantics() ||
      op.getNumParallelLoops() != op.getNumLoops() ||
      !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity() ||
      !op.getDpsInitOperand(0)->get().getDefiningOp<tensor::EmptyOp>())
    return false;
  if (isa<linalg::BroadcastOp>(op))
    return true;
  auto yield = cast<linalg::YieldOp>(op.getBlock()->getTerminator());
  return yield.getNumOperands() == 1 &&
         yield.getOperand(0) == op.getBlock()->getArgument(0);
}

/// The one value `op` fills a new tensor (a tensor.empty, or a reshape of
/// one) with, or null: a linalg.fill, or a linalg.generic with no input
/// whose body yields a value from above (a zero bias folded away).
static Value getFilledValue(linalg::LinalgOp op) {
  if (!op || !op.hasPureTensorSemantics() || op.getNumDpsInits() != 1)
    return nullptr;
  Value dest = op.getDpsInitOperand(0)->get();
  while (isa_and_present<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
      dest.getDefiningOp()))
    dest = dest.getDefiningOp()->getOperand(0);
  if (!dest.getDefiningOp<tensor::EmptyOp>())
    return nullptr;
  if (auto fill = dyn_cast<linalg::FillOp>(*op))
    return fill.getDpsInputOperand(0)->get();
  if (!isa<linalg::GenericOp>(op) || op.getNumDpsInputs() != 0 ||
      op.getNumParallelLoops() != op.getNumLoops() ||
      !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity())
    return nullptr;
  auto yield = cast<linalg::YieldOp>(op.getBlock()->getTerminator());
  // The body is its own ancestor: a value it computes varies.
  if (yield.getNumOperands() != 1 ||
      op->getRegion(0).isAncestor(yield.getOperand(0).getParentRegion()))
    return nullptr;
  return yield.getOperand(0);
}

/// Where `contraction`'s init is a reshape of a fill of a new tensor that
/// only it reads, makes it a fill of the reshaped tensor: the fill is then
/// what the tiles' slices trace back to (the canonicalizer would make the
/// same swap, after the reshape had been recorded).
static void fillAfterReshape(RewriterBase &rewriter,
                             linalg::GenericOp contraction) {
  OpOperand *initOperand = contraction.getDpsInitOperand(0);
  auto expand = initOperand->get().getDefiningOp<tensor::ExpandShapeOp>();
  if (!expand || !expand->hasOneUse())
    return;
  auto fill = expand.getSrc().getDefiningOp<linalg::LinalgOp>();
  Value value = getFilledValue(fill);
  if (!value || !expand.getSrc().hasOneUse())
    return;
  rewriter.setInsertionPoint(expand);
  Location loc = expand.getLoc();
  Value dest = tensor::ExpandShapeOp::create(
      rewriter, loc, expand.getResultType(), fill.getDpsInitOperand(0)->get(),
      expand.getReassociationIndices(), expand.getMixedOutputShape());
  Value filled =
      linalg::FillOp::create(rewriter, loc, value, dest).getResult(0);
  rewriter.modifyOpInPlace(contraction, [&] { initOperand->set(filled); });
  rewriter.eraseOp(expand);
  rewriter.eraseOp(fill);
}

Value BroadcastInit::getSource() const {
  linalg::LinalgOp op = broadcast; // the op's interface methods are not const
  if (Value value = getFilledValue(op))
    return value;
  return op.getDpsInputOperand(0)->get();
}

std::optional<BroadcastInit>
mlir::quant_qdq::getBroadcastInit(RewriterBase &rewriter,
                                  linalg::GenericOp contraction) {
  fillAfterReshape(rewriter, contraction);
  Value init = contraction.getDpsInitOperand(0)->get();
  auto initType = dyn_cast<RankedTensorType>(init.getType());
  if (!initType || !initType.hasStaticShape() || !init.hasOneUse())
    return std::nullopt;
  MLIRContext *context = contraction.getContext();
  // The broadcast's index of each element of `init`.
  Value produced = init;
  AffineMap broadcastOfInit =
      AffineMap::getMultiDimIdentityMap(initType.getRank(), context);
  if (auto expand = init.getDefiningOp<tensor::ExpandShapeOp>()) {
    produced = expand.getSrc();
    SmallVector<AffineExpr> exprs;
    for (ReassociationIndices group : expand.getReassociationIndices()) {
      AffineExpr linear = getAffineConstantExpr(0, context);
      for (int64_t d : group)
        linear = linear * initType.getDimSize(d) + getAffineDimExpr(d, context);
      exprs.push_back(linear);
    }
    broadcastOfInit = AffineMap::get(initType.getRank(), 0, exprs, context);
  }
  if (!produced.hasOneUse())
    return std::nullopt;
  auto broadcast = produced.getDefiningOp<linalg::LinalgOp>();
  if (getFilledValue(broadcast))
    return BroadcastInit{init, broadcast,
                         AffineMap::get(initType.getRank(), 0, {}, context)};
  if (!broadcast || !isBroadcast(broadcast))
    return std::nullopt;
  OpOperand *source = broadcast.getDpsInputOperand(0);
  auto sourceType = dyn_cast<RankedTensorType>(source->get().getType());
  if (!sourceType || !sourceType.hasStaticShape())
    return std::nullopt;
  AffineMap sourceOfInit =
      broadcast.getMatchingIndexingMap(source).compose(broadcastOfInit);
  return BroadcastInit{init, broadcast, sourceOfInit};
}

Value mlir::quant_qdq::traceSliceRoot(RewriterBase &rewriter, Value slice,
                                      ArrayRef<Value> roots,
                                      SmallVectorImpl<Value> &offsets,
                                      bool throughPartialSums) {
  auto first = slice.getDefiningOp<tensor::ExtractSliceOp>();
  if (!first)
    return nullptr;
  MLIRContext *context = rewriter.getContext();
  int64_t rank = first.getSourceType().getRank();
  Location loc = first.getLoc();
  SmallVector<OpFoldResult> sum(rank, rewriter.getIndexAttr(0));
  auto add = [&](ArrayRef<OpFoldResult> more) {
    AffineExpr a, b;
    bindDims(context, a, b);
    for (auto [s, m] : llvm::zip(sum, more))
      s = affine::makeComposedFoldedAffineApply(
          rewriter, loc, AffineMap::get(2, 0, a + b, context), {s, m});
  };
  // The static region of the last slice hopped through, which an insert
  // it reads past must not overlap.
  SmallVector<int64_t> lastOffsets, lastSizes;
  Value v = slice;
  while (!llvm::is_contained(roots, v)) {
    if (auto extract = v.getDefiningOp<tensor::ExtractSliceOp>()) {
      if (!extract.hasUnitStride() ||
          extract.getSourceType().getRank() != rank ||
          extract.getResultType().getRank() != rank)
        return nullptr;
      add(extract.getMixedOffsets());
      lastOffsets = llvm::to_vector(extract.getStaticOffsets());
      lastSizes = llvm::to_vector(extract.getStaticSizes());
      v = extract.getSource();
      continue;
    }
    if (auto insert = v.getDefiningOp<tensor::InsertSliceOp>()) {
      // The read region must lie outside the inserted one: along some
      // dimension both static and apart.
      bool apart = false;
      for (int64_t d = 0; d < rank && !lastOffsets.empty(); ++d) {
        int64_t ro = lastOffsets[d], rs = lastSizes[d];
        int64_t io = insert.getStaticOffsets()[d],
                is = insert.getStaticSizes()[d];
        if (!ShapedType::isDynamic(ro) && !ShapedType::isDynamic(rs) &&
            !ShapedType::isDynamic(io) && !ShapedType::isDynamic(is) &&
            (ro + rs <= io || io + is <= ro))
          apart = true;
      }
      if (!apart || insert.getDestType().getRank() != rank)
        return nullptr;
      v = insert.getDest();
      lastOffsets.clear();
      continue;
    }
    // A loop's destination: the tile's region of it is not written before
    // the tile reads it, unless the loop carries partial sums.
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (auto loop = dyn_cast<scf::ForOp>(owner);
          loop && (throughPartialSums || !loop->hasAttr(kPartialSums)) &&
          arg.getArgNumber() >= loop.getNumInductionVars()) {
        v = loop.getTiedLoopInit(arg)->get();
        lastOffsets.clear();
        continue;
      }
      if (auto forall = dyn_cast<scf::ForallOp>(owner)) {
        if (OpOperand *out = forall.getTiedOpOperand(arg)) {
          v = out->get();
          lastOffsets.clear();
          continue;
        }
      }
      return nullptr;
    }
    // A peeled tile loop's result: it wrote tiles apart from the ones
    // after it.
    if (auto loop = v.getDefiningOp<scf::ForOp>();
        loop && (throughPartialSums || !loop->hasAttr(kPartialSums))) {
      v = loop.getInits()[cast<OpResult>(v).getResultNumber()];
      lastOffsets.clear();
      continue;
    }
    return nullptr;
  }
  offsets.clear();
  for (OpFoldResult s : sum)
    offsets.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, s));
  return v;
}

Value mlir::quant_qdq::getDestinationRoot(Value value, ArrayRef<Value> roots) {
  Value v = value;
  while (v && !llvm::is_contained(roots, v)) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (auto loop = dyn_cast<scf::ForOp>(owner);
          loop && arg.getArgNumber() >= loop.getNumInductionVars())
        v = loop.getTiedLoopInit(arg)->get();
      else if (auto forall = dyn_cast<scf::ForallOp>(owner);
               forall && forall.getTiedOpOperand(arg))
        v = forall.getTiedOpOperand(arg)->get();
      else
        return nullptr;
      continue;
    }
    Operation *op = v.getDefiningOp();
    unsigned result = cast<OpResult>(v).getResultNumber();
    if (auto extract = dyn_cast<tensor::ExtractSliceOp>(op))
      v = extract.getSource();
    else if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op))
      v = op->getOperand(0);
    else if (auto insert = dyn_cast<tensor::InsertSliceOp>(op))
      v = insert.getDest();
    else if (auto write = dyn_cast<vector::TransferWriteOp>(op))
      v = write.getBase();
    else if (auto loop = dyn_cast<scf::ForOp>(op))
      v = loop.getInits()[result];
    else if (auto forall = dyn_cast<scf::ForallOp>(op))
      v = forall.getOutputs()[result];
    else if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
      v = dps.getDpsInitOperand(result)->get();
    else
      return nullptr;
  }
  return v;
}

/// `read` (of a slice whose origin is at `offsets` in `init`'s tensor) as a
/// read of the broadcast's source, or null when its vector does not run
/// along the source's dimensions one to one.
static Value readFromSource(RewriterBase &rewriter, vector::TransferReadOp read,
                            const BroadcastInit &init,
                            ArrayRef<Value> offsets) {
  Value source = init.getSource();
  // A fill's value: the same in every element of the tile.
  if (!isa<ShapedType>(source.getType()))
    return vector::BroadcastOp::create(rewriter, read.getLoc(),
                                       read.getVectorType(), source);
  AffineMap sourceOfInit = init.sourceOfInit;
  unsigned dims = sourceOfInit.getNumDims();
  if (!llvm::all_of(sourceOfInit.getResults(), isLinear) ||
      llvm::any_of(read.getIndices(),
                   [](Value i) { return !isConstantIntValue(i, 0); }))
    return nullptr;
  AffineMap permutation = read.getPermutationMap();
  VectorType type = read.getVectorType();
  MLIRContext *context = rewriter.getContext();
  SmallVector<AffineExpr> results;
  SmallVector<bool> taken(sourceOfInit.getNumResults(), false);
  for (auto [v, e] : llvm::enumerate(permutation.getResults())) {
    auto sliceDim = dyn_cast<AffineDimExpr>(e);
    if (!sliceDim)
      return nullptr;
    unsigned d = sliceDim.getPosition();
    // One element along it: the offsets hold its position.
    if (type.getDimSize(v) == 1) {
      results.push_back(getAffineConstantExpr(0, context));
      continue;
    }
    // The source dimension this vector dimension walks, by one.
    std::optional<unsigned> walked;
    for (auto [j, expr] : llvm::enumerate(sourceOfInit.getResults())) {
      int64_t c = *getLinearCoefficient(expr, d, dims);
      if (c == 0)
        continue;
      if (c != 1 || walked || taken[j])
        return nullptr;
      walked = j;
    }
    if (walked) {
      taken[*walked] = true;
      results.push_back(getAffineDimExpr(*walked, context));
    } else {
      results.push_back(getAffineConstantExpr(0, context));
    }
  }
  Location loc = read.getLoc();
  SmallVector<Value> indices;
  for (AffineExpr expr : sourceOfInit.getResults())
    indices.push_back(affine::makeComposedAffineApply(
        rewriter, loc, AffineMap::get(dims, 0, expr, context),
        getAsOpFoldResult(offsets)));
  auto map = AffineMap::get(sourceOfInit.getNumResults(), 0, results, context);
  SmallVector<bool> inBounds(type.getRank(), true);
  return vector::TransferReadOp::create(rewriter, loc, type, source, indices,
                                        read.getPadding(), map, inBounds);
}

void mlir::quant_qdq::readAccumulatorsFromBroadcasts(
    RewriterBase &rewriter, Operation *root, ArrayRef<BroadcastInit> inits,
    ArrayRef<int64_t> tiles) {
  SmallVector<Value> roots;
  for (const BroadcastInit &init : inits)
    roots.push_back(init.init);
  SmallVector<int64_t> replaced(inits.size(), 0);
  SmallVector<vector::TransferReadOp> reads;
  root->walk([&](vector::TransferReadOp read) { reads.push_back(read); });
  for (vector::TransferReadOp read : reads) {
    // Inside a loop of partial sums, the accumulator is not the initial
    // value.
    bool inPartialSums = false;
    for (Operation *p = read->getParentOp(); p && p != root;
         p = p->getParentOp())
      inPartialSums |= p->hasAttr(kPartialSums);
    auto slice = read.getBase().getDefiningOp<tensor::ExtractSliceOp>();
    if (inPartialSums || !slice || !slice->hasAttr(kInitialAccumulator))
      continue;
    rewriter.setInsertionPoint(read);
    SmallVector<Value> offsets;
    Value found = traceSliceRoot(rewriter, read.getBase(), roots, offsets,
                                 /*throughPartialSums=*/false);
    if (!found)
      continue;
    size_t i = llvm::find(roots, found) - roots.begin();
    if (Value fromSource = readFromSource(rewriter, read, inits[i], offsets)) {
      rewriter.replaceOp(read, fromSource);
      ++replaced[i];
    }
  }
  root->walk([](scf::ForOp loop) { loop->removeAttr(kPartialSums); });
  root->walk([](tensor::ExtractSliceOp slice) {
    slice->removeAttr(kInitialAccumulator);
  });
  for (auto [init, count, done] : llvm::zip(inits, tiles, replaced)) {
    linalg::LinalgOp broadcast = init.broadcast;
    if (count > 0 && count == done)
      rewriter.replaceOp(broadcast, broadcast.getDpsInitOperand(0)->get());
  }
}
