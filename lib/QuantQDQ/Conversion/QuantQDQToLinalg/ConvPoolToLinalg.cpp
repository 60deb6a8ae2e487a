//===- ConvPoolToLinalg.cpp - conv2d, dense and pools to linalg -----------===//

#include "LoweringUtils.h"
#include "QuantQDQ/Conversion/Passes.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <optional>

using namespace mlir;
using namespace mlir::quant_qdq;

/// Padding amounts per dimension of a 4-D image, from [top, left, bottom,
/// right] pads.
static void getImagePads(Layout layout, ArrayRef<int64_t> pads,
                         SmallVectorImpl<int64_t> &low,
                         SmallVectorImpl<int64_t> &high) {
  low.assign(4, 0);
  high.assign(4, 0);
  int64_t h = layout == Layout::NHWC ? 1 : 2;
  low[h] = pads[0];
  low[h + 1] = pads[1];
  high[h] = pads[2];
  high[h + 1] = pads[3];
}

/// The accumulator of a convolution: zeros, or the bias broadcast along the
/// channel axis.
static Value createAccumulator(OpBuilder &b, Location loc,
                               RankedTensorType type, ValueRange dynSizes,
                               Value bias, int64_t channelAxis) {
  if (!bias)
    return createFilled(b, loc, type, dynSizes,
                        b.getFloatAttr(type.getElementType(), 0.0));
  Value empty = createEmpty(b, loc, type, dynSizes);
  SmallVector<int64_t> broadcastDims;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (d != channelAxis)
      broadcastDims.push_back(d);
  return linalg::BroadcastOp::create(b, loc, bias, empty, broadcastDims)
      .getResult()[0];
}

/// `padded` cut to the rows and columns the convolution's windows read: a
/// stride that does not divide the padded size leaves trailing ones that no
/// window reaches. linalg allows them, but IREE's llvm-cpu rewrite of a
/// convolution with a 1x1 output takes the input to be the window
/// (iree-compile 3.13 fails on ResNet-18's last stride-2 convolutions at
/// 32x32). A dimension cut must be static; a dynamic one is kept whole.
/// The slice is a view, which bufferizes to no copy.
static Value sliceToWindowExtent(OpBuilder &b, Location loc, Value padded,
                                 Conv2DOp op, RankedTensorType resultType) {
  auto type = cast<RankedTensorType>(padded.getType());
  bool nhwc = op.getLayout() == Layout::NHWC;
  int64_t spatial = nhwc ? 1 : 2;
  int64_t kernelDim = nhwc ? 0 : 2;
  // The size each spatial dimension is cut to, where it is.
  std::optional<int64_t> cut[2];
  for (int64_t d = 0; d < 2; ++d) {
    int64_t in = type.getDimSize(spatial + d);
    int64_t out = resultType.getDimSize(spatial + d);
    int64_t kernel = op.getWeight().getType().getDimSize(kernelDim + d);
    if (ShapedType::isDynamic(in) || ShapedType::isDynamic(out) ||
        ShapedType::isDynamic(kernel))
      continue;
    int64_t read = (out - 1) * op.getStrides()[d] +
                   (kernel - 1) * op.getDilations()[d] + 1;
    if (read < in)
      cut[d] = read;
  }
  if (!cut[0] && !cut[1])
    return padded;
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, padded);
  for (int64_t d = 0; d < 2; ++d)
    if (cut[d])
      sizes[spatial + d] = b.getIndexAttr(*cut[d]);
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, padded, offsets, sizes,
                                        strides);
}

namespace {
struct Conv2DLowering : OpRewritePattern<Conv2DOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(Conv2DOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    Type element = resultType.getElementType();
    bool nhwc = op.getLayout() == Layout::NHWC;
    SmallVector<int64_t> low, high;
    getImagePads(op.getLayout(), op.getPads(), low, high);
    Value input = padTensor(rewriter, loc, op.getInput(), low, high,
                            rewriter.getFloatAttr(element, 0.0));
    input = sliceToWindowExtent(rewriter, loc, input, op, resultType);
    SmallVector<Value> dynSizes =
        getDynamicSizes(rewriter, loc, op.getInput(), resultType);
    Value acc = createAccumulator(rewriter, loc, resultType, dynSizes,
                                  op.getBias(), nhwc ? 3 : 1);
    Attribute strides = rewriter.getI64TensorAttr(op.getStrides());
    Attribute dilations = rewriter.getI64TensorAttr(op.getDilations());
    int64_t groups = op.getGroups();
    Value weight = op.getWeight();

    if (groups == 1) {
      Value conv =
          nhwc ? linalg::Conv2DNhwcHwcfOp::create(
                     rewriter, loc, resultType, ValueRange{input, weight},
                     acc, strides, dilations)
                     .getResult(0)
               : linalg::Conv2DNchwFchwOp::create(
                     rewriter, loc, resultType, ValueRange{input, weight},
                     acc, strides, dilations)
                     .getResult(0);
      rewriter.replaceOp(op, conv);
      return success();
    }

    if (nhwc) {
      // Depthwise with multiplier M: the HWIO weight [kh, kw, 1, C*M] is
      // the HWCM weight [kh, kw, C, M] of linalg.
      if (!op.isDepthwise())
        return rewriter.notifyMatchFailure(op, "grouped NHWC convolution");
      auto weightType = op.getWeight().getType();
      int64_t channels = op.getInputChannels();
      int64_t out = weightType.getDimSize(3);
      auto hwcm = RankedTensorType::get(
          {weightType.getDimSize(0), weightType.getDimSize(1), channels,
           out / channels},
          element);
      Value w = tensor::ExpandShapeOp::create(
          rewriter, loc, hwcm,
          tensor::CollapseShapeOp::create(
              rewriter, loc, weight,
              SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}}),
          SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
      auto accType = RankedTensorType::get(
          {resultType.getDimSize(0), resultType.getDimSize(1),
           resultType.getDimSize(2), channels, out / channels},
          element);
      SmallVector<ReassociationIndices> split = {{0}, {1}, {2}, {3, 4}};
      SmallVector<OpFoldResult> accShape =
          tensor::getMixedSizes(rewriter, loc, acc);
      SmallVector<OpFoldResult> expandedShape = {
          accShape[0], accShape[1], accShape[2],
          rewriter.getIndexAttr(channels),
          rewriter.getIndexAttr(out / channels)};
      Value acc5 = tensor::ExpandShapeOp::create(rewriter, loc, accType, acc,
                                                 split, expandedShape);
      Value conv = linalg::DepthwiseConv2DNhwcHwcmOp::create(
                       rewriter, loc, accType, ValueRange{input, w}, acc5,
                       strides, dilations)
                       .getResult(0);
      rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, resultType,
                                                           conv, split);
      return success();
    }

    // Grouped NCHW (depthwise included): split channels into groups,
    // [N, G, C/G, H, W] x [G, F/G, C/G, kh, kw] -> [N, G, F/G, Ho, Wo].
    auto inputType = cast<RankedTensorType>(input.getType());
    auto weightType = op.getWeight().getType();
    int64_t c = inputType.getDimSize(1), f = weightType.getDimSize(0);
    SmallVector<OpFoldResult> inShape =
        tensor::getMixedSizes(rewriter, loc, input);
    auto in5Type = RankedTensorType::get(
        {inputType.getDimSize(0), groups, c / groups, inputType.getDimSize(2),
         inputType.getDimSize(3)},
        element);
    SmallVector<ReassociationIndices> split = {{0}, {1, 2}, {3}, {4}};
    Value in5 = tensor::ExpandShapeOp::create(
        rewriter, loc, in5Type, input, split,
        {inShape[0], rewriter.getIndexAttr(groups),
         rewriter.getIndexAttr(c / groups), inShape[2], inShape[3]});
    auto w5Type = RankedTensorType::get(
        {groups, f / groups, weightType.getDimSize(1),
         weightType.getDimSize(2), weightType.getDimSize(3)},
        element);
    Value w5 = tensor::ExpandShapeOp::create(
        rewriter, loc, w5Type, weight,
        SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}, {4}});
    auto acc5Type = RankedTensorType::get(
        {resultType.getDimSize(0), groups, f / groups,
         resultType.getDimSize(2), resultType.getDimSize(3)},
        element);
    SmallVector<OpFoldResult> accShape =
        tensor::getMixedSizes(rewriter, loc, acc);
    Value acc5 = tensor::ExpandShapeOp::create(
        rewriter, loc, acc5Type, acc, split,
        {accShape[0], rewriter.getIndexAttr(groups),
         rewriter.getIndexAttr(f / groups), accShape[2], accShape[3]});
    Value conv = linalg::Conv2DNgchwGfchwOp::create(
                     rewriter, loc, acc5Type, ValueRange{in5, w5}, acc5,
                     strides, dilations)
                     .getResult(0);
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, resultType, conv,
                                                         split);
    return success();
  }
};

/// out[..., n] = bias[n] + sum_k in[..., k] * w[k, n] (w[n, k] transposed).
struct DenseLowering : OpRewritePattern<DenseOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(DenseOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    int64_t rank = resultType.getRank();
    SmallVector<Value> dynSizes =
        getDynamicSizes(rewriter, loc, op.getInput(), resultType);
    Value acc = createAccumulator(rewriter, loc, resultType, dynSizes,
                                  op.getBias(), rank - 1);
    // Iteration space: the result dimensions, then k.
    MLIRContext *ctx = rewriter.getContext();
    AffineExpr k = getAffineDimExpr(rank, ctx);
    AffineExpr n = getAffineDimExpr(rank - 1, ctx);
    SmallVector<AffineExpr> inExprs;
    for (int64_t d = 0; d < rank - 1; ++d)
      inExprs.push_back(getAffineDimExpr(d, ctx));
    inExprs.push_back(k);
    SmallVector<AffineExpr> wExprs =
        op.getTransposeWeight() ? SmallVector<AffineExpr>{n, k}
                                : SmallVector<AffineExpr>{k, n};
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank + 1, 0, inExprs, ctx),
        AffineMap::get(rank + 1, 0, wExprs, ctx),
        AffineMap::getMultiDimIdentityMap(rank + 1, ctx).getMajorSubMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, resultType, ValueRange{op.getInput(), op.getWeight()},
        acc, maps, iterators,
        [](OpBuilder &b, Location l, ValueRange args) {
          Value product = arith::MulFOp::create(b, l, args[0], args[1]);
          linalg::YieldOp::create(b, l,
                                  Value(arith::AddFOp::create(b, l, args[2],
                                                              product)));
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// Extra high padding so that every ceil-mode window has an input row.
static int64_t getCeilExtra(int64_t size, int64_t kernel, int64_t stride,
                            int64_t dilation, int64_t padBegin,
                            int64_t padEnd, int64_t out) {
  if (ShapedType::isDynamic(size) || ShapedType::isDynamic(out))
    return 0;
  int64_t needed = (out - 1) * stride + dilation * (kernel - 1) + 1;
  return std::max<int64_t>(0, needed - (size + padBegin + padEnd));
}

struct MaxPool2DLowering : OpRewritePattern<MaxPool2DOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MaxPool2DOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    auto inputType = op.getInput().getType();
    Type element = resultType.getElementType();
    bool nhwc = op.getLayout() == Layout::NHWC;
    int64_t h = nhwc ? 1 : 2;
    SmallVector<int64_t> low, high;
    getImagePads(op.getLayout(), op.getPads(), low, high);
    ArrayRef<int64_t> kernel = op.getKernelShape(), strides = op.getStrides(),
                      dilations = op.getDilations();
    for (int i = 0; i < 2; ++i)
      high[h + i] += getCeilExtra(inputType.getDimSize(h + i), kernel[i],
                                  strides[i], dilations[i], low[h + i],
                                  high[h + i],
                                  resultType.getDimSize(h + i));
    FloatAttr lowest = getNegativeInfinity(rewriter, element);
    Value input = padTensor(rewriter, loc, op.getInput(), low, high, lowest);
    SmallVector<Value> dynSizes =
        getDynamicSizes(rewriter, loc, op.getInput(), resultType);
    Value init = createFilled(rewriter, loc, resultType, dynSizes, lowest);
    Value window = tensor::EmptyOp::create(rewriter, loc, kernel, element);
    Attribute stridesAttr = rewriter.getI64TensorAttr(strides);
    Attribute dilationsAttr = rewriter.getI64TensorAttr(dilations);
    Value pooled =
        nhwc ? linalg::PoolingNhwcMaxOp::create(
                   rewriter, loc, resultType, ValueRange{input, window}, init,
                   stridesAttr, dilationsAttr)
                   .getResult(0)
             : linalg::PoolingNchwMaxOp::create(
                   rewriter, loc, resultType, ValueRange{input, window}, init,
                   stridesAttr, dilationsAttr)
                   .getResult(0);
    rewriter.replaceOp(op, pooled);
    return success();
  }
};

/// Sum pooling divided by the number of elements each window counts:
/// computed by pooling a mask that is 1 over the input (and over explicit
/// padding with count_include_pad) and 0 over the rest.
struct AvgPool2DLowering : OpRewritePattern<AvgPool2DOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AvgPool2DOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    auto inputType = op.getInput().getType();
    Type element = resultType.getElementType();
    bool nhwc = op.getLayout() == Layout::NHWC;
    int64_t h = nhwc ? 1 : 2;
    SmallVector<int64_t> low, high, ceilHigh(4, 0);
    getImagePads(op.getLayout(), op.getPads(), low, high);
    ArrayRef<int64_t> kernel = op.getKernelShape(), strides = op.getStrides();
    for (int i = 0; i < 2; ++i)
      ceilHigh[h + i] = getCeilExtra(inputType.getDimSize(h + i), kernel[i],
                                     strides[i], 1, low[h + i], high[h + i],
                                     resultType.getDimSize(h + i));
    SmallVector<int64_t> allHigh(4);
    for (int d = 0; d < 4; ++d)
      allHigh[d] = high[d] + ceilHigh[d];
    TypedAttr zero = rewriter.getFloatAttr(element, 0.0);
    TypedAttr one = rewriter.getFloatAttr(element, 1.0);
    Value input = padTensor(rewriter, loc, op.getInput(), low, allHigh, zero);

    // The mask only varies along H and W: pool a [1, 1, H, W] (or
    // [1, H, W, 1]) tensor and broadcast the counts.
    SmallVector<int64_t> maskShape(4, 1);
    maskShape[h] = inputType.getDimSize(h);
    maskShape[h + 1] = inputType.getDimSize(h + 1);
    if (ShapedType::isDynamic(maskShape[h]) ||
        ShapedType::isDynamic(maskShape[h + 1]))
      return rewriter.notifyMatchFailure(op, "dynamic spatial size");
    auto maskType = RankedTensorType::get(maskShape, element);
    Value mask = createFilled(rewriter, loc, maskType, {}, one);
    mask = padTensor(rewriter, loc, mask, low, high,
                     op.getCountIncludePad() ? one : zero);
    mask = padTensor(rewriter, loc, mask, SmallVector<int64_t>(4, 0), ceilHigh,
                     zero);

    Value window = tensor::EmptyOp::create(rewriter, loc, kernel, element);
    Attribute stridesAttr = rewriter.getI64TensorAttr(strides);
    Attribute dilationsAttr = rewriter.getI64TensorAttr({1, 1});
    auto sumPool = [&](Value source, RankedTensorType type,
                       ValueRange dynSizes) -> Value {
      Value init = createFilled(rewriter, loc, type, dynSizes, zero);
      if (nhwc)
        return linalg::PoolingNhwcSumOp::create(
                   rewriter, loc, type, ValueRange{source, window}, init,
                   stridesAttr, dilationsAttr)
            .getResult(0);
      return linalg::PoolingNchwSumOp::create(rewriter, loc, type,
                                              ValueRange{source, window}, init,
                                              stridesAttr, dilationsAttr)
          .getResult(0);
    };
    SmallVector<Value> dynSizes =
        getDynamicSizes(rewriter, loc, op.getInput(), resultType);
    Value sums = sumPool(input, resultType, dynSizes);
    SmallVector<int64_t> countShape(4, 1);
    countShape[h] = resultType.getDimSize(h);
    countShape[h + 1] = resultType.getDimSize(h + 1);
    auto countType = RankedTensorType::get(countShape, element);
    Value counts = sumPool(mask, countType, {});

    Value init = createEmpty(rewriter, loc, resultType, dynSizes);
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineMap> maps = {
        rewriter.getMultiDimIdentityMap(4),
        getBroadcastMap(ctx, countType, resultType),
        rewriter.getMultiDimIdentityMap(4)};
    auto divide = linalg::GenericOp::create(
        rewriter, loc, resultType, ValueRange{sums, counts}, init, maps,
        SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
        [](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(
              b, l, Value(arith::DivFOp::create(b, l, args[0], args[1])));
        });
    rewriter.replaceOp(op, divide.getResults());
    return success();
  }
};

/// Reduction over H and W, then the mean or the maximum.
template <typename OpT, bool IsMax>
struct GlobalPoolLowering : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Type element = resultType.getElementType();
    bool nhwc = op.getLayout() == Layout::NHWC;
    int64_t h = nhwc ? 1 : 2, c = nhwc ? 3 : 1;
    MLIRContext *ctx = rewriter.getContext();

    // Reduce into [N, C], then reshape to the result.
    auto reducedType = RankedTensorType::get(
        {inputType.getDimSize(0), inputType.getDimSize(c)}, element);
    SmallVector<Value> dynSizes = getDynamicSizes(
        rewriter, loc, op.getInput(), reducedType, {0, c});
    TypedAttr start = IsMax ? getNegativeInfinity(rewriter, element)
                            : rewriter.getFloatAttr(element, 0.0);
    Value init = createFilled(rewriter, loc, reducedType, dynSizes, start);
    SmallVector<AffineMap> maps = {
        AffineMap::getMultiDimIdentityMap(4, ctx),
        AffineMap::get(4, 0,
                       {getAffineDimExpr(0, ctx), getAffineDimExpr(c, ctx)},
                       ctx)};
    SmallVector<utils::IteratorType> iterators(4,
                                               utils::IteratorType::parallel);
    iterators[h] = iterators[h + 1] = utils::IteratorType::reduction;
    Value reduced =
        linalg::GenericOp::create(
            rewriter, loc, reducedType, op.getInput(), init, maps, iterators,
            [](OpBuilder &b, Location l, ValueRange args) {
              Value v =
                  IsMax ? Value(arith::MaximumFOp::create(b, l, args[0],
                                                          args[1]))
                        : Value(arith::AddFOp::create(b, l, args[0], args[1]));
              linalg::YieldOp::create(b, l, v);
            })
            .getResult(0);
    if (!IsMax) {
      int64_t count = inputType.getDimSize(h) * inputType.getDimSize(h + 1);
      if (ShapedType::isDynamic(inputType.getDimSize(h)) ||
          ShapedType::isDynamic(inputType.getDimSize(h + 1)))
        return rewriter.notifyMatchFailure(op, "dynamic spatial size");
      Value divisor = floatConstant(rewriter, loc, element, double(count));
      Value out = createEmpty(rewriter, loc, reducedType, dynSizes);
      reduced =
          linalg::GenericOp::create(
              rewriter, loc, reducedType, reduced, out,
              SmallVector<AffineMap>(2, rewriter.getMultiDimIdentityMap(2)),
              SmallVector<utils::IteratorType>(2,
                                               utils::IteratorType::parallel),
              [&](OpBuilder &b, Location l, ValueRange args) {
                linalg::YieldOp::create(
                    b, l, Value(arith::DivFOp::create(b, l, args[0], divisor)));
              })
              .getResult(0);
    }
    if (resultType.getRank() == 2) {
      rewriter.replaceOp(op, reduced);
      return success();
    }
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, reduced);
    OpFoldResult unit = rewriter.getIndexAttr(1);
    SmallVector<OpFoldResult> shape =
        nhwc ? SmallVector<OpFoldResult>{sizes[0], unit, unit, sizes[1]}
             : SmallVector<OpFoldResult>{sizes[0], sizes[1], unit, unit};
    SmallVector<ReassociationIndices> groups =
        nhwc ? SmallVector<ReassociationIndices>{{0, 1, 2}, {3}}
             : SmallVector<ReassociationIndices>{{0}, {1, 2, 3}};
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, resultType, reduced,
                                                       groups, shape);
    return success();
  }
};
} // namespace

void mlir::quant_qdq::populateConvPoolToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<Conv2DLowering, DenseLowering, MaxPool2DLowering,
               AvgPool2DLowering,
               GlobalPoolLowering<GlobalAvgPool2DOp, /*IsMax=*/false>,
               GlobalPoolLowering<GlobalMaxPool2DOp, /*IsMax=*/true>>(
      patterns.getContext());
}
