//===- ConvolutionsChannelsLast.cpp - NHWC for the CPU's convolutions -----===//
//
// An NCHW convolution as a contraction (qdq-convolutions-as-matmuls) has the
// output image as its contiguous columns: the input had to be transposed
// into panels on every run, and a 7x7 or 14x14 map leaves one or four
// columns that fill no vector. In NHWC the columns are the output channels
// (multiples of 16 in every common network), the right operand is the
// filter, packed once at compile time, and the rows are pixels, which need
// no packing. This pass runs each ungrouped convolution and pooling on
// static f32 NCHW tensors in NHWC, between transposes, then moves the
// transposes until they meet and cancel: up through pads, slices, fills
// and broadcasts, down through element-wise ops. What is left is a copy of
// the network's input into NHWC and one back where the image ends (a
// global pool, a flatten), which qdq-elementwise-fusion folds into their
// readers where it can.
//
//===----------------------------------------------------------------------===//

#include "GatheredConstants.h"
#include "MappedCopy.h"
#include "MatmulDims.h"
#include "QuantQDQ/Codegen/Passes.h"
#include "QuantQDQ/IR/LayerConstants.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_CONVOLUTIONSCHANNELSLAST
#include "QuantQDQ/Codegen/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;

/// Result dimension i of a transpose is source dimension perm[i].
static constexpr int64_t kToNHWC[] = {0, 2, 3, 1};
static constexpr int64_t kToNCHW[] = {0, 3, 1, 2};
static constexpr int64_t kFCHWToHWCF[] = {2, 3, 1, 0};

/// `source` transposed by `perm`, as a linalg.generic that reads it
/// through a permutation and yields it: the form element-wise fusion folds
/// into its readers, and that the patterns below recognize.
static Value createTranspose(OpBuilder &b, Location loc, Value source,
                             ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(source.getType());
  AffineMap read = inversePermutation(AffineMap::getPermutationMap(
      SmallVector<unsigned>(perm.begin(), perm.end()), b.getContext()));
  return createMappedCopy(b, loc, source, read,
                          applyPermutation(type.getShape(), perm));
}

/// Whether `value` is a tensor of static shape: the transposes this pass
/// builds take their shapes from their operands'.
static bool hasStaticShape(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape();
}

/// The permutation of a transpose as createTranspose builds it (result
/// dimension i is source dimension perm[i]), or nothing.
static std::optional<SmallVector<int64_t>> getTransposition(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      !generic.hasPureTensorSemantics() ||
      !hasStaticShape(generic.getDpsInputOperand(0)->get()) ||
      !hasStaticShape(generic.getResult(0)))
    return std::nullopt;
  AffineMap read =
      generic.getMatchingIndexingMap(generic.getDpsInputOperand(0));
  AffineMap write =
      generic.getMatchingIndexingMap(generic.getDpsInitOperand(0));
  if (!write.isIdentity() || !read.isPermutation() || read.isIdentity())
    return std::nullopt;
  auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
  if (yield.getNumOperands() != 1 ||
      yield.getOperand(0) != generic.getBody()->getArgument(0))
    return std::nullopt;
  // read(d)[j] = d[perm^-1[j]]: the inverse map's results are perm.
  SmallVector<int64_t> perm;
  for (AffineExpr e : inversePermutation(read).getResults())
    perm.push_back(cast<AffineDimExpr>(e).getPosition());
  return perm;
}

/// The constant behind `value`, seen through reshapes with `value`'s
/// shape, or null.
static ElementsAttr getReshapedConstant(Value value) {
  Operation *producer = value.getDefiningOp();
  if (!isa_and_present<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
          producer))
    return getConstantAttr(value);
  ElementsAttr source = getReshapedConstant(producer->getOperand(0));
  if (!source || !isa<DenseElementsAttr, DenseF32ResourceElementsAttr>(source))
    return nullptr;
  return retypeConstant(source, cast<ShapedType>(value.getType()));
}

/// A constant's values transposed by `perm`, made here; null when `value`
/// is not an f32 constant this can read.
static Value transposeConstant(OpBuilder &b, Location loc, Value value,
                               ArrayRef<int64_t> perm) {
  ElementsAttr attr = getReshapedConstant(value);
  if (!attr)
    return nullptr;
  auto type = cast<RankedTensorType>(value.getType());
  auto resultType = RankedTensorType::get(
      applyPermutation(type.getShape(), perm), type.getElementType());
  return createGatheredConstant(
      b, loc, attr, resultType, /*origin=*/0,
      applyPermutation(computeStrides(type.getShape()), perm), "weights");
}

namespace {
/// conv_2d_nchw_fchw as conv_2d_nhwc_hwcf between transposes, its filter
/// transposed at compile time when it is a constant.
struct ConvolutionChannelsLast : OpRewritePattern<linalg::Conv2DNchwFchwOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::Conv2DNchwFchwOp op,
                                PatternRewriter &rewriter) const override {
    if (!hasStaticF32Operands(op))
      return rewriter.notifyMatchFailure(op, "not f32 on static shapes");
    Location loc = op.getLoc();
    Value filter = op.getDpsInputOperand(1)->get();
    Value hwcf = transposeConstant(rewriter, loc, filter, kFCHWToHWCF);
    if (!hwcf)
      hwcf = createTranspose(rewriter, loc, filter, kFCHWToHWCF);
    Value input = createTranspose(rewriter, loc,
                                  op.getDpsInputOperand(0)->get(), kToNHWC);
    Value init =
        createTranspose(rewriter, loc, op.getDpsInitOperand(0)->get(), kToNHWC);
    Value conv = linalg::Conv2DNhwcHwcfOp::create(
                     rewriter, loc, init.getType(), ValueRange{input, hwcf},
                     init, op.getStrides(), op.getDilations())
                     .getResult(0);
    rewriter.replaceOp(op, createTranspose(rewriter, loc, conv, kToNCHW));
    return success();
  }
};

/// `value`, an [N, G, 1, H, W] tensor (a grouped convolution's operand of
/// one channel a group), as [N, G, H, W]: the source of the expand_shape
/// that made it, or a collapse.
static Value dropGroupChannels(OpBuilder &b, Location loc, Value value) {
  SmallVector<ReassociationIndices> groups = {{0}, {1, 2}, {3}, {4}};
  if (auto expand = value.getDefiningOp<tensor::ExpandShapeOp>();
      expand && expand.getReassociationIndices() == groups)
    return expand.getSrc();
  return tensor::CollapseShapeOp::create(b, loc, value, groups);
}

/// A depthwise conv_2d_ngchw_gfchw (a channel a group and a filter a
/// group) as depthwise_conv_2d_nhwc_hwc between transposes, its filter
/// transposed at compile time when it is a constant.
struct DepthwiseChannelsLast : OpRewritePattern<linalg::Conv2DNgchwGfchwOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::Conv2DNgchwGfchwOp op,
                                PatternRewriter &rewriter) const override {
    if (!hasStaticF32Operands(op))
      return rewriter.notifyMatchFailure(op, "not f32 on static shapes");
    Value filter = op.getDpsInputOperand(1)->get();
    ArrayRef<int64_t> filterShape =
        cast<RankedTensorType>(filter.getType()).getShape();
    if (filterShape[1] != 1 || filterShape[2] != 1)
      return rewriter.notifyMatchFailure(op, "not depthwise");
    Location loc = op.getLoc();
    // [G, 1, 1, Kh, Kw] -> [G, Kh, Kw] -> [Kh, Kw, G]
    Value gkk = tensor::CollapseShapeOp::create(
        rewriter, loc, filter,
        ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}, {4}});
    static constexpr int64_t kToHWC[] = {1, 2, 0};
    Value hwc = transposeConstant(rewriter, loc, gkk, kToHWC);
    if (!hwc)
      hwc = createTranspose(rewriter, loc, gkk, kToHWC);
    Value input = createTranspose(
        rewriter, loc,
        dropGroupChannels(rewriter, loc, op.getDpsInputOperand(0)->get()),
        kToNHWC);
    Value init = createTranspose(
        rewriter, loc,
        dropGroupChannels(rewriter, loc, op.getDpsInitOperand(0)->get()),
        kToNHWC);
    Value conv = linalg::DepthwiseConv2DNhwcHwcOp::create(
                     rewriter, loc, init.getType(), ValueRange{input, hwc},
                     init, op.getStrides(), op.getDilations())
                     .getResult(0);
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        op, op.getResult(0).getType(),
        createTranspose(rewriter, loc, conv, kToNCHW),
        ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
    return success();
  }
};

/// An NCHW pooling as its NHWC twin between transposes.
template <typename NchwOp, typename NhwcOp>
struct PoolingChannelsLast : OpRewritePattern<NchwOp> {
  using OpRewritePattern<NchwOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(NchwOp op,
                                PatternRewriter &rewriter) const override {
    auto linalgOp = cast<linalg::LinalgOp>(op.getOperation());
    Value input = linalgOp.getDpsInputOperand(0)->get();
    Value init = linalgOp.getDpsInitOperand(0)->get();
    auto type = cast<RankedTensorType>(input.getType());
    if (!type.hasStaticShape() || !type.getElementType().isF32() ||
        !cast<RankedTensorType>(init.getType()).hasStaticShape())
      return rewriter.notifyMatchFailure(op, "not f32 on static shapes");
    Location loc = op.getLoc();
    Value nhwcInput = createTranspose(rewriter, loc, input, kToNHWC);
    Value nhwcInit = createTranspose(rewriter, loc, init, kToNHWC);
    Value pooled =
        NhwcOp::create(
            rewriter, loc, nhwcInit.getType(),
            ValueRange{nhwcInput, linalgOp.getDpsInputOperand(1)->get()},
            nhwcInit, op.getStrides(), op.getDilations())
            .getResult(0);
    rewriter.replaceOp(op, createTranspose(rewriter, loc, pooled, kToNCHW));
    return success();
  }
};

/// A transpose of a transpose: one transpose, none when they cancel.
struct FoldTransposePair : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<SmallVector<int64_t>> outer = getTransposition(op);
    if (!outer)
      return failure();
    Value middle = op.getDpsInputOperand(0)->get();
    std::optional<SmallVector<int64_t>> inner =
        getTransposition(middle.getDefiningOp());
    if (!inner)
      return failure();
    Value source =
        middle.getDefiningOp<linalg::GenericOp>().getDpsInputOperand(0)->get();
    // outer[i] names a dimension of the middle tensor, which is source
    // dimension inner[outer[i]].
    SmallVector<int64_t> perm = applyPermutation(*inner, *outer);
    if (isIdentityPermutation(perm))
      rewriter.replaceOp(op, source);
    else
      rewriter.replaceOp(op,
                         createTranspose(rewriter, op.getLoc(), source, perm));
    return success();
  }
};

/// A transpose of a pad, a slice, a fill or a broadcast that only it
/// reads: that op on the transposed tensor, so that the transpose moves
/// up to meet another.
struct HoistTranspose : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<SmallVector<int64_t>> perm = getTransposition(op);
    if (!perm)
      return failure();
    Value source = op.getDpsInputOperand(0)->get();
    Operation *producer = source.getDefiningOp();
    if (!producer || !source.hasOneUse() ||
        !llvm::all_of(producer->getOperands(), [](Value operand) {
          return !isa<TensorType>(operand.getType()) || hasStaticShape(operand);
        }))
      return failure();
    Location loc = op.getLoc();
    auto permute = [&](auto values) {
      return applyPermutation(SmallVector<OpFoldResult>(values), *perm);
    };
    if (auto pad = dyn_cast<tensor::PadOp>(producer)) {
      Value value = pad.getConstantPaddingValue();
      if (!value || !pad.getResultType().hasStaticShape())
        return failure();
      Value inner = createTranspose(rewriter, loc, pad.getSource(), *perm);
      auto padded = tensor::PadOp::create(
          rewriter, loc, op.getResult(0).getType(), inner,
          permute(pad.getMixedLowPad()), permute(pad.getMixedHighPad()), value,
          pad.getNofold());
      rewriter.replaceOp(op, padded.getResult());
      return success();
    }
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(producer)) {
      if (slice.getSourceType().getRank() != slice.getResultType().getRank())
        return failure();
      Value inner = createTranspose(rewriter, loc, slice.getSource(), *perm);
      rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
          op, cast<RankedTensorType>(op.getResult(0).getType()), inner,
          permute(slice.getMixedOffsets()), permute(slice.getMixedSizes()),
          permute(slice.getMixedStrides()));
      return success();
    }
    if (auto fill = dyn_cast<linalg::FillOp>(producer)) {
      if (!fill.getDpsInitOperand(0)->get().getDefiningOp<tensor::EmptyOp>())
        return failure();
      auto type = cast<RankedTensorType>(op.getResult(0).getType());
      Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                            type.getElementType());
      rewriter.replaceOpWithNewOp<linalg::FillOp>(
          op, fill.getDpsInputOperand(0)->get(), empty);
      return success();
    }
    if (auto broadcast = dyn_cast<linalg::BroadcastOp>(producer)) {
      // The broadcast reads its input at map(d) of its own loops; the
      // transpose's element d is the broadcast's element read(d).
      AffineMap read = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
      AffineMap map =
          broadcast.getMatchingIndexingMap(broadcast.getDpsInputOperand(0))
              .compose(read);
      auto type = cast<RankedTensorType>(op.getResult(0).getType());
      rewriter.replaceOp(op,
                         createMappedCopy(rewriter, loc, broadcast.getInput(),
                                          map, type.getShape()));
      return success();
    }
    return failure();
  }
};

/// An element-wise op whose every input read in full is one transposed
/// the same way: the op on the untransposed tensors, then the transpose,
/// which moves down to meet another. Inputs read in part (a per-channel
/// scale, a bias) are read through the permutation.
struct SinkTranspose : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    // Its loops change order: an op that reads their indices stays.
    if (getTransposition(op) || !op.hasPureTensorSemantics() ||
        op.hasIndexSemantics() || op.getNumDpsInits() != 1 ||
        op.getNumParallelLoops() != op.getNumLoops() ||
        !hasStaticShape(op.getResult(0)) ||
        !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity() ||
        op.payloadUsesValueFromOperand(op.getDpsInitOperand(0)))
      return failure();
    std::optional<SmallVector<int64_t>> perm;
    for (OpOperand *input : op.getDpsInputOperands()) {
      if (!op.getMatchingIndexingMap(input).isPermutation())
        continue;
      std::optional<SmallVector<int64_t>> p =
          getTransposition(input->get().getDefiningOp());
      if (!p || !op.getMatchingIndexingMap(input).isIdentity() ||
          (perm && *p != *perm))
        return failure();
      perm = p;
    }
    if (!perm)
      return failure();
    // The op's loops become the source's dimensions: the source's
    // dimension perm[i] is the old loop i.
    MLIRContext *context = op.getContext();
    unsigned rank = perm->size();
    SmallVector<AffineExpr> oldOfNew;
    for (int64_t p : *perm)
      oldOfNew.push_back(getAffineDimExpr(p, context));
    AffineMap substitute = AffineMap::get(rank, 0, oldOfNew, context);
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      if (map.isPermutation()) {
        inputs.push_back(input->get()
                             .getDefiningOp<linalg::GenericOp>()
                             .getDpsInputOperand(0)
                             ->get());
        maps.push_back(rewriter.getMultiDimIdentityMap(rank));
      } else {
        inputs.push_back(input->get());
        maps.push_back(map.compose(substitute));
      }
    }
    maps.push_back(rewriter.getMultiDimIdentityMap(rank));
    auto type = cast<RankedTensorType>(op.getResult(0).getType());
    Location loc = op.getLoc();
    Value init = tensor::EmptyOp::create(
        rewriter, loc,
        applyPermutation(type.getShape(), invertPermutationVector(*perm)),
        type.getElementType());
    auto sunk =
        linalg::GenericOp::create(rewriter, loc, init.getType(), inputs, init,
                                  maps, op.getIteratorTypesArray());
    rewriter.inlineRegionBefore(op.getRegion(), sunk.getRegion(),
                                sunk.getRegion().end());
    rewriter.replaceOp(
        op, createTranspose(rewriter, loc, sunk.getResult(0), *perm));
    return success();
  }
};

struct ConvolutionsChannelsLastPass
    : public quant_qdq::impl::ConvolutionsChannelsLastBase<
          ConvolutionsChannelsLastPass> {
  void runOnOperation() override {
    // Grouped convolutions of more than one channel a group have no NHWC
    // kernel: a transpose before and after each would cost more than the
    // others gain (MobileNet-v2, before its depthwise convolutions had
    // one, ran 1.29x longer), so their functions stay NCHW.
    WalkResult grouped = getOperation()->walk([](linalg::LinalgOp op) {
      if (auto conv = dyn_cast<linalg::Conv2DNgchwGfchwOp>(op.getOperation())) {
        // One this pass does not convert (not static f32) would sit
        // between transposes too.
        auto filter =
            cast<ShapedType>(conv.getDpsInputOperand(1)->get().getType());
        if (!hasStaticF32Operands(conv) || filter.getDimSize(1) != 1 ||
            filter.getDimSize(2) != 1)
          return WalkResult::interrupt();
      }
      return isa<linalg::Conv2DNgchwFgchwOp, linalg::DepthwiseConv2DNchwChwOp>(
                 op.getOperation())
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    if (grouped.wasInterrupted())
      return;
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    patterns.add<
        ConvolutionChannelsLast, DepthwiseChannelsLast,
        PoolingChannelsLast<linalg::PoolingNchwMaxOp, linalg::PoolingNhwcMaxOp>,
        PoolingChannelsLast<linalg::PoolingNchwSumOp, linalg::PoolingNhwcSumOp>,
        FoldTransposePair, HoistTranspose, SinkTranspose>(context);
    tensor::EmptyOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
