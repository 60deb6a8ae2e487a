//===- ElementwiseFusion.cpp - fuse element-wise ops where it pays --------===//
//
// linalg's element-wise fusion inlines an all-parallel producer into any
// consumer that reads it through a projected permutation, contractions
// included. Inlined into a matmul, a GELU's erf runs once per output column
// instead of once per element: ViT-B/16 spent a fifth of its time in erf.
// This pass fuses only where the consumer reads each produced element once
// (the operand's indexing map is a permutation of the consumer's loops), so
// fusion never multiplies work.
//
//===----------------------------------------------------------------------===//

#include "MappedCopy.h"
#include "QuantQDQ/Codegen/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Transforms/RegionUtils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_ELEMENTWISEFUSION
#include "QuantQDQ/Codegen/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;

/// Fuse a single-use producer into the consumer of `operand` when the
/// consumer reads every element of it exactly once.
static bool readsEachElementOnce(OpOperand *operand) {
  Operation *producer = operand->get().getDefiningOp();
  if (!producer || !producer->hasOneUse())
    return false;
  auto consumer = dyn_cast<linalg::LinalgOp>(operand->getOwner());
  if (!consumer)
    return true; // a reshape: folding it moves no computation
  return consumer.getMatchingIndexingMap(operand).isPermutation();
}

/// The tensor a padded producer writes into: `fill` of a tensor.empty, read
/// only through one extract_slice that is the init of an element-wise op
/// which does not read it, and written by one insert_slice of that op's
/// result at the same place. Pad fusion builds it; only its border needs
/// the fill.
static std::optional<std::pair<tensor::ExtractSliceOp, tensor::InsertSliceOp>>
matchFilledPadding(linalg::FillOp fill) {
  if (!fill.hasPureTensorSemantics() ||
      !fill.getDpsInitOperand(0)->get().getDefiningOp<tensor::EmptyOp>() ||
      !fill.getResult(0).hasNUses(2))
    return std::nullopt;
  tensor::ExtractSliceOp slice;
  tensor::InsertSliceOp insert;
  for (Operation *user : fill.getResult(0).getUsers()) {
    if (auto s = dyn_cast<tensor::ExtractSliceOp>(user))
      slice = s;
    else if (auto i = dyn_cast<tensor::InsertSliceOp>(user);
             i && i.getDest() == fill.getResult(0))
      insert = i;
  }
  if (!slice || !insert || !slice->hasOneUse() ||
      !slice.hasUnitStride() || !insert.hasUnitStride() ||
      slice.getMixedOffsets() != insert.getMixedOffsets() ||
      slice.getMixedSizes() != insert.getMixedSizes() ||
      slice.getSourceType().getRank() != slice.getResultType().getRank() ||
      !slice.getSourceType().hasStaticShape() ||
      !slice.getResultType().hasStaticShape() ||
      llvm::any_of(slice.getStaticOffsets(), ShapedType::isDynamic))
    return std::nullopt;
  // The producer writes every element of the interior.
  auto producer = dyn_cast<linalg::GenericOp>(*slice->getUsers().begin());
  if (!producer || producer.getNumDpsInits() != 1 ||
      producer.getDpsInitOperand(0)->get() != slice ||
      producer.getNumLoops() != producer.getNumParallelLoops() ||
      !producer.getMatchingIndexingMap(producer.getDpsInitOperand(0))
           .isPermutation() ||
      producer.payloadUsesValueFromOperand(producer.getDpsInitOperand(0)) ||
      insert.getSource() != producer.getResult(0))
    return std::nullopt;
  return std::make_pair(slice, insert);
}

/// Fills only the border of a padded tensor around the interior its
/// producer writes: for each dimension, the slabs before and after the
/// interior (the interior's extent along the dimensions already done, the
/// whole extent along the others). A padded 114x114 plane then fills 452
/// elements, not 12996.
static void fillBorderOnly(RewriterBase &rewriter, linalg::FillOp fill,
                           tensor::ExtractSliceOp slice,
                           tensor::InsertSliceOp insert) {
  Location loc = fill.getLoc();
  ArrayRef<int64_t> shape = slice.getSourceType().getShape();
  ArrayRef<int64_t> interiorSizes = slice.getResultType().getShape();
  ArrayRef<int64_t> interiorOffsets = slice.getStaticOffsets();
  rewriter.setInsertionPoint(fill);
  Value padded = fill.getDpsInitOperand(0)->get();
  Value value = fill.getDpsInputOperand(0)->get();
  SmallVector<int64_t> offsets(shape.size(), 0);
  SmallVector<int64_t> sizes(shape.begin(), shape.end());
  auto fillSlab = [&](int64_t dim, int64_t begin, int64_t size) {
    if (size == 0)
      return;
    offsets[dim] = begin;
    sizes[dim] = size;
    SmallVector<OpFoldResult> o = getAsIndexOpFoldResult(fill.getContext(),
                                                         offsets);
    SmallVector<OpFoldResult> z = getAsIndexOpFoldResult(fill.getContext(),
                                                         sizes);
    SmallVector<OpFoldResult> one(shape.size(), rewriter.getIndexAttr(1));
    Value slab =
        tensor::ExtractSliceOp::create(rewriter, loc, padded, o, z, one);
    Value filled =
        linalg::FillOp::create(rewriter, loc, value, slab).getResult(0);
    padded = tensor::InsertSliceOp::create(rewriter, loc, filled, padded, o,
                                           z, one);
  };
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t low = interiorOffsets[d];
    int64_t high = shape[d] - low - interiorSizes[d];
    fillSlab(d, 0, low);
    fillSlab(d, low + interiorSizes[d], high);
    offsets[d] = low;
    sizes[d] = interiorSizes[d];
  }
  rewriter.modifyOpInPlace(slice,
                           [&] { slice.getSourceMutable().assign(padded); });
  rewriter.modifyOpInPlace(insert,
                           [&] { insert.getDestMutable().assign(padded); });
  rewriter.eraseOp(fill);
}

namespace {
struct ElementwiseFusionPass
    : public quant_qdq::impl::ElementwiseFusionBase<ElementwiseFusionPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(patterns,
                                                 readsEachElementOnce);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns,
                                                      readsEachElementOnce);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns,
                                                 readsEachElementOnce);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    fusePadsIntoProducers();
  }

  /// A pad of anything but an element-wise result (the network's input, a
  /// contraction's result) bufferizes to a fill of the whole padded buffer
  /// and a copy into it. With an element-wise copy as its producer it fuses
  /// like any pad: only the border is filled. (Canonicalization later folds
  /// the identity copy back into an insert of the source; qdq-distribute-
  /// loops makes an argument's insert a copy on every thread again.)
  void copyOtherPadSources() {
    OpBuilder builder(&getContext());
    getOperation()->walk([&](tensor::PadOp pad) {
      auto producer = pad.getSource().getDefiningOp<linalg::GenericOp>();
      auto type = dyn_cast<RankedTensorType>(pad.getSource().getType());
      // Only where pad fusion will take the copy (a constant padding value,
      // static shapes); else the copy would come on top of the pad's.
      if ((producer &&
           producer.getNumLoops() == producer.getNumParallelLoops()) ||
          !type || !type.hasStaticShape() ||
          !pad.getResultType().hasStaticShape() ||
          !pad.getConstantPaddingValue())
        return;
      builder.setInsertionPoint(pad);
      Location loc = pad.getLoc();
      Value copy = quant_qdq::createMappedCopy(
          builder, loc, pad.getSource(),
          builder.getMultiDimIdentityMap(type.getRank()), type.getShape());
      pad.getSourceMutable().assign(copy);
    });
  }

  /// A tensor.pad of an element-wise result (a convolution's input) costs a
  /// copy of the whole tensor into the padded buffer. The producer writes
  /// into the padded buffer's interior instead, and only the border is
  /// filled. Where something else reads the producer too (a residual, or
  /// calibration's range of it), it reads that interior: fusing must not
  /// compute the producer twice.
  void fusePadsIntoProducers() {
    copyOtherPadSources();
    DominanceInfo dominance(getOperation());
    SmallVector<Operation *> pads;
    // Pads of producers that something else reads too, with the producer.
    SmallVector<std::pair<Operation *, linalg::GenericOp>> shared;
    DenseSet<Operation *> sharedProducers;
    getOperation()->walk([&](tensor::PadOp pad) {
      auto producer = pad.getSource().getDefiningOp<linalg::GenericOp>();
      if (!producer || producer.getNumResults() != 1 ||
          producer.getNumLoops() != producer.getNumParallelLoops())
        return;
      if (!producer->hasOneUse()) {
        // The fused producer replaces the original for its other readers,
        // some of which may come before the pad: the pad moves up to just
        // after the producer, where all it reads must be defined already.
        // One pad per producer: a second would fuse a second copy.
        if (sharedProducers.contains(producer))
          return;
        SetVector<Value> read(pad->getOperands().begin(),
                              pad->getOperands().end());
        getUsedValuesDefinedAbove(pad.getRegion(), read);
        if (llvm::any_of(read, [&](Value v) {
              return v != pad.getSource() &&
                     !dominance.properlyDominates(v, producer);
            }))
          return;
        pad->moveAfter(producer);
        sharedProducers.insert(producer);
        shared.emplace_back(pad, producer);
      }
      pads.push_back(pad);
    });
    if (pads.empty())
      return;
    // What replaced each pad: an insert_slice of the fused producer into
    // the padded buffer.
    struct Replacements : RewriterBase::Listener {
      DenseMap<Operation *, tensor::InsertSliceOp> inserts;
      void notifyOperationReplaced(Operation *op,
                                   ValueRange replacement) override {
        if (replacement.size() == 1)
          if (auto insert =
                  replacement[0].getDefiningOp<tensor::InsertSliceOp>())
            inserts[op] = insert;
      }
    } replacements;
    RewritePatternSet patterns(&getContext());
    linalg::populateFuseTensorPadWithProducerLinalgOpPatterns(patterns);
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    config.setListener(&replacements);
    if (failed(applyOpPatternsGreedily(pads, std::move(patterns), config)))
      return signalPassFailure();
    // The other readers read the fused producer's result. The insert_slice
    // into the padded buffer moves down to just before the first reader of
    // the padded tensor: bufferization sees it write the memory they read
    // (with the same values, which it cannot know), and a write between the
    // producer and a reader would make it copy the producer's result out.
    for (auto [pad, producer] : shared) {
      tensor::InsertSliceOp insert = replacements.inserts.lookup(pad);
      if (!insert || insert.getSourceType() != producer.getResult(0).getType())
        continue; // not fused: the pad copies, as before
      producer.getResult(0).replaceAllUsesWith(insert.getSource());
      producer.erase();
      Block *block = insert->getBlock();
      Operation *firstReader = nullptr;
      for (Operation *user : insert->getUsers()) {
        Operation *inBlock = block->findAncestorOpInBlock(*user);
        if (inBlock && (!firstReader || inBlock->isBeforeInBlock(firstReader)))
          firstReader = inBlock;
      }
      if (firstReader)
        insert->moveBefore(firstReader);
    }
    SmallVector<linalg::FillOp> fills;
    getOperation()->walk([&](linalg::FillOp fill) {
      if (matchFilledPadding(fill))
        fills.push_back(fill);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::FillOp fill : fills) {
      auto [slice, insert] = *matchFilledPadding(fill);
      fillBorderOnly(rewriter, fill, slice, insert);
    }
  }
};
} // namespace
