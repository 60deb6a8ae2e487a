//===- ConvolutionsAsMatmuls.cpp - convolutions as register-tiled products
//-===//
//
// A convolution's loops reuse each input element Kh Kw F times but do not
// block for registers, so they run at a few GFLOP/s. As a contraction,
// qdq-vectorize-contractions tiles them for registers (64 -> 64 channels,
// 3x3 at 56x56: 203 ms as loops, 11.8 ms as im2col and a product). In NHWC
// the contraction reads the image in place (a direct convolution, at any
// stride); in NCHW it reads a copy of the input windows as a
// (C Kh Kw) x (Oh Ow) matrix (im2col), one pass over Kh Kw copies of the
// input.
//
//===----------------------------------------------------------------------===//

#include "MappedCopy.h"
#include "MatmulDims.h"
#include "QuantQDQ/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_CONVOLUTIONSASMATMULS
#include "QuantQDQ/Codegen/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;

/// The columns of im2col: a (N, C, Kh, Kw, Oh, Ow) tensor indexed without
/// divisions, collapsed to (N, C Kh Kw, Oh Ow), a view.
static Value buildColumns(PatternRewriter &rewriter, Location loc,
                          Value input, int64_t n, int64_t c, int64_t kh,
                          int64_t kw, int64_t oh, int64_t ow,
                          ArrayRef<int64_t> strides,
                          ArrayRef<int64_t> dilations) {
  MLIRContext *context = rewriter.getContext();
  // columns[n, c, kh, kw, oh, ow] = input[n, c, oh sh + kh dh, ow sw + kw dw]
  AffineExpr dN, dC, dKh, dKw, dOh, dOw;
  bindDims(context, dN, dC, dKh, dKw, dOh, dOw);
  auto windowMap = AffineMap::get(
      6, 0,
      {dN, dC, dOh * strides[0] + dKh * dilations[0],
       dOw * strides[1] + dKw * dilations[1]},
      context);
  Value columns =
      createMappedCopy(rewriter, loc, input, windowMap, {n, c, kh, kw, oh, ow});
  return tensor::CollapseShapeOp::create(
      rewriter, loc, columns,
      ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}, {4, 5}});
}

/// A 2-D convolution's sizes, strides and dilations, in either layout
/// (NCHW with an FCHW filter, NHWC with HWCF).
struct ConvolutionSizes {
  int64_t n, oh, ow, c, kh, kw;
  SmallVector<int64_t> strides, dilations;

  template <typename ConvOp> static ConvolutionSizes get(ConvOp op, bool nhwc) {
    ArrayRef<int64_t> filter =
        cast<RankedTensorType>(op.getDpsInputOperand(1)->get().getType())
            .getShape();
    ArrayRef<int64_t> out =
        cast<RankedTensorType>(op.getDpsInitOperand(0)->get().getType())
            .getShape();
    ConvolutionSizes sizes;
    sizes.n = out[0];
    sizes.oh = out[nhwc ? 1 : 2];
    sizes.ow = out[nhwc ? 2 : 3];
    sizes.c = filter[nhwc ? 2 : 1];
    sizes.kh = filter[nhwc ? 0 : 2];
    sizes.kw = filter[nhwc ? 1 : 3];
    sizes.strides =
        llvm::to_vector(op.getStrides().template getValues<int64_t>());
    sizes.dilations =
        llvm::to_vector(op.getDilations().template getValues<int64_t>());
    return sizes;
  }
};

/// A contraction's body: out + lhs * rhs.
static void buildMultiplyAdd(OpBuilder &b, Location loc, ValueRange args) {
  Value product = arith::MulFOp::create(b, loc, args[0], args[1]);
  linalg::YieldOp::create(
      b, loc, Value(arith::AddFOp::create(b, loc, product, args[2])));
}

namespace {
/// linalg.conv_2d_nchw_fchw as im2col and a contraction. The columns are
/// built as a (N, C, Kh, Kw, Oh, Ow) tensor, whose index map has no division
/// (linalg's own im2col divides and takes remainders per element, which
/// costs more than the copy) and whose inner loop walks an input row; its
/// collapse to (N, C Kh Kw, Oh Ow) is a view. A 1x1 kernel at stride 1
/// needs no copy at all.
struct NchwIm2Col : OpRewritePattern<linalg::Conv2DNchwFchwOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::Conv2DNchwFchwOp op,
                                PatternRewriter &rewriter) const override {
    if (!hasStaticF32Operands(op))
      return rewriter.notifyMatchFailure(op, "not f32 on static shapes");
    Location loc = op.getLoc();
    MLIRContext *context = op.getContext();
    Value input = op.getDpsInputOperand(0)->get();
    Value filter = op.getDpsInputOperand(1)->get();
    Value init = op.getDpsInitOperand(0)->get();
    auto [n, oh, ow, c, kh, kw, strides, dilations] =
        ConvolutionSizes::get(op, /*nhwc=*/false);

    // A 1x1 kernel whose output is as large as its input (stride 1) reads
    // each input element once, in place: its columns are the input itself,
    // seen as (N, C, H W).
    ArrayRef<int64_t> inShape =
        cast<RankedTensorType>(input.getType()).getShape();
    Value columns;
    if (kh == 1 && kw == 1 && inShape[2] == oh && inShape[3] == ow) {
      columns = tensor::CollapseShapeOp::create(
          rewriter, loc, input,
          ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
    } else {
      columns = buildColumns(rewriter, loc, input, n, c, kh, kw, oh, ow,
                             strides, dilations);
    }
    Value weights = tensor::CollapseShapeOp::create(
        rewriter, loc, filter,
        ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}});
    Value acc = tensor::CollapseShapeOp::create(
        rewriter, loc, init, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});

    // out[n, f, p] += weights[f, k] * columns[n, k, p]
    AffineExpr d0, d1, d2, d3;
    bindDims(context, d0, d1, d2, d3);
    auto product = linalg::GenericOp::create(
        rewriter, loc, acc.getType(), ValueRange{weights, columns}, acc,
        ArrayRef<AffineMap>{AffineMap::get(4, 0, {d1, d3}, context),
                            AffineMap::get(4, 0, {d0, d3, d2}, context),
                            AffineMap::get(4, 0, {d0, d1, d2}, context)},
        ArrayRef<utils::IteratorType>{
            utils::IteratorType::parallel, utils::IteratorType::parallel,
            utils::IteratorType::parallel, utils::IteratorType::reduction},
        buildMultiplyAdd);
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        op, init.getType(), product.getResult(0),
        ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
    return success();
  }
};

/// linalg.conv_2d_nhwc_hwcf (Keras's layout, and every NCHW convolution
/// once qdq-convolutions-channels-last has run) as a contraction whose right
/// operand is the filter, packed once at compile time, and whose columns
/// are the output channels, which tiles fill in any common network. The
/// image is read in place, never copied: a window is a direct convolution
/// (its tiles read a row of pixels at each tap, at the window's stride),
/// a 1x1 kernel multiplies each pixel (at a stride, of a strided view).
struct NhwcAsContraction : OpRewritePattern<linalg::Conv2DNhwcHwcfOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::Conv2DNhwcHwcfOp op,
                                PatternRewriter &rewriter) const override {
    if (!hasStaticF32Operands(op))
      return rewriter.notifyMatchFailure(op, "not f32 on static shapes");
    Location loc = op.getLoc();
    MLIRContext *context = op.getContext();
    Value input = op.getDpsInputOperand(0)->get();
    Value filter = op.getDpsInputOperand(1)->get();
    Value init = op.getDpsInitOperand(0)->get();
    auto [n, oh, ow, c, kh, kw, strides, dilations] =
        ConvolutionSizes::get(op, /*nhwc=*/true);
    if (kh != 1 || kw != 1)
      return linalg::generalizeNamedOp(rewriter, op);

    Value weights = tensor::CollapseShapeOp::create(
        rewriter, loc, filter, ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}});
    Value image = input;
    if (strides[0] != 1 || strides[1] != 1) {
      SmallVector<OpFoldResult> offsets(4, rewriter.getIndexAttr(0));
      image = tensor::ExtractSliceOp::create(
          rewriter, loc, input, offsets,
          getAsIndexOpFoldResult(context, {n, oh, ow, c}),
          getAsIndexOpFoldResult(context, {1, strides[0], strides[1], 1}));
    }
    // out[n, oh, ow, f] += image[n, oh, ow, c] * weights[c, f]
    AffineExpr d0, d1, d2, d3, d4;
    bindDims(context, d0, d1, d2, d3, d4);
    rewriter.replaceOpWithNewOp<linalg::GenericOp>(
        op, init.getType(), ValueRange{image, weights}, init,
        ArrayRef<AffineMap>{AffineMap::get(5, 0, {d0, d1, d2, d4}, context),
                            AffineMap::get(5, 0, {d4, d3}, context),
                            AffineMap::get(5, 0, {d0, d1, d2, d3}, context)},
        ArrayRef<utils::IteratorType>{
            utils::IteratorType::parallel, utils::IteratorType::parallel,
            utils::IteratorType::parallel, utils::IteratorType::parallel,
            utils::IteratorType::reduction},
        buildMultiplyAdd);
    return success();
  }
};

struct ConvolutionsAsMatmulsPass
    : public quant_qdq::impl::ConvolutionsAsMatmulsBase<
          ConvolutionsAsMatmulsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<NchwIm2Col, NhwcAsContraction>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
