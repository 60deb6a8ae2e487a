//===- ShapeToLinalg.cpp - concat, flatten, reshape, transpose, pad -------===//

#include "LoweringUtils.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
/// An empty result, then one tensor.insert_slice per input.
struct ConcatLowering : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    rewriter.replaceOp(op, buildConcat(rewriter, op.getLoc(), type,
                                       op.getInputs(),
                                       normalizeAxis(op.getAxis(),
                                                     type.getRank())));
    return success();
  }
};

struct FlattenLowering : OpRewritePattern<FlattenOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FlattenOp op,
                                PatternRewriter &rewriter) const override {
    int64_t rank = op.getInput().getType().getRank();
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    // Flatten with axis 0 or rank adds a unit dimension: collapse to 1-D,
    // then expand.
    if (axis == 0 || axis == rank) {
      ReassociationIndices all;
      for (int64_t d = 0; d < rank; ++d)
        all.push_back(d);
      Value flat = rank == 1 ? op.getInput()
                             : Value(tensor::CollapseShapeOp::create(
                                   rewriter, op.getLoc(), op.getInput(),
                                   SmallVector<ReassociationIndices>{all}));
      SmallVector<OpFoldResult> shape = {rewriter.getIndexAttr(1),
                                         tensor::getMixedSize(rewriter,
                                                              op.getLoc(),
                                                              flat, 0)};
      if (axis == rank)
        std::swap(shape[0], shape[1]);
      rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
          op, op.getType(), flat,
          SmallVector<ReassociationIndices>{{0, 1}}, shape);
      return success();
    }
    ReassociationIndices outer, inner;
    for (int64_t d = 0; d < rank; ++d)
      (d < axis ? outer : inner).push_back(d);
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
        op, op.getType(), op.getInput(),
        SmallVector<ReassociationIndices>{outer, inner});
    return success();
  }
};

/// Static shapes: reshapeStatic's views. Otherwise collapse to 1-D, then
/// expand to the result; a -1 entry is the element count divided by the
/// product of the others.
struct ReshapeLowering : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType inputType = op.getInput().getType();
    RankedTensorType type = op.getType();
    if (inputType.hasStaticShape() && type.hasStaticShape()) {
      rewriter.replaceOp(op, reshapeStatic(rewriter, loc, op.getInput(), type));
      return success();
    }
    Value flat = op.getInput();
    if (inputType.getRank() != 1) {
      ReassociationIndices all;
      for (int64_t d = 0; d < inputType.getRank(); ++d)
        all.push_back(d);
      flat = tensor::CollapseShapeOp::create(
          rewriter, loc, op.getInput(),
          SmallVector<ReassociationIndices>{all});
    }
    if (type.getRank() == 1) {
      rewriter.replaceOpWithNewOp<tensor::CastOp>(op, type, flat);
      return success();
    }
    SmallVector<OpFoldResult> shape;
    int64_t known = 1;
    for (int64_t d : op.getShape())
      if (d != -1)
        known *= d;
    for (auto [i, d] : llvm::enumerate(op.getShape())) {
      if (!type.isDynamicDim(i)) {
        shape.push_back(rewriter.getIndexAttr(type.getDimSize(i)));
        continue;
      }
      Value count = tensor::DimOp::create(rewriter, loc, flat, 0);
      Value divisor = arith::ConstantIndexOp::create(rewriter, loc, known);
      shape.push_back(
          arith::DivUIOp::create(rewriter, loc, count, divisor).getResult());
    }
    ReassociationIndices all;
    for (int64_t d = 0; d < type.getRank(); ++d)
      all.push_back(d);
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        op, type, flat, SmallVector<ReassociationIndices>{all}, shape);
    return success();
  }
};

struct TransposeLowering : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Value init = createEmpty(
        rewriter, loc, type,
        getDynamicSizes(rewriter, loc, op.getInput(), type, op.getPerm()));
    rewriter.replaceOp(op, linalg::TransposeOp::create(rewriter, loc,
                                                       op.getInput(), init,
                                                       op.getPerm())
                               .getResult());
    return success();
  }
};

/// Constant padding is tensor.pad; reflect and edge padding read the input
/// at a mirrored or clamped index in a linalg.generic.
struct PadLowering : OpRewritePattern<PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PadOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank();
    ArrayRef<int64_t> pads = op.getPads();
    SmallVector<int64_t> low(pads.take_front(rank)), high(pads.drop_front(rank));
    if (op.getMode() == PadMode::Constant) {
      rewriter.replaceOp(op, padTensor(rewriter, loc, op.getInput(), low, high,
                                       op.getValueAttr()));
      return success();
    }
    bool reflect = op.getMode() == PadMode::Reflect;
    Value input = op.getInput();
    SmallVector<Value> dynSizes;
    for (int64_t d = 0; d < rank; ++d)
      if (type.isDynamicDim(d))
        dynSizes.push_back(arith::AddIOp::create(
            rewriter, loc, tensor::DimOp::create(rewriter, loc, input, d),
            arith::ConstantIndexOp::create(rewriter, loc,
                                           low[d] + high[d])));
    Value init = createEmpty(rewriter, loc, type, dynSizes);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, ValueRange{}, init,
        SmallVector<AffineMap>{rewriter.getMultiDimIdentityMap(rank)},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange) {
          SmallVector<Value> indices;
          for (int64_t d = 0; d < rank; ++d) {
            // i = index - low; reflect: |i| then n-1 - |n-1 - i|;
            // edge: clamp(i, 0, n-1).
            Value n = tensor::DimOp::create(b, l, input, d);
            Value zero = arith::ConstantIndexOp::create(b, l, 0);
            Value last = arith::SubIOp::create(
                b, l, n, arith::ConstantIndexOp::create(b, l, 1));
            Value i = arith::SubIOp::create(
                b, l, linalg::IndexOp::create(b, l, d),
                arith::ConstantIndexOp::create(b, l, low[d]));
            Value index;
            if (reflect) {
              Value abs = arith::MaxSIOp::create(
                  b, l, i, arith::SubIOp::create(b, l, zero, i));
              Value fromEnd = arith::SubIOp::create(b, l, last, abs);
              Value absEnd = arith::MaxSIOp::create(
                  b, l, fromEnd, arith::SubIOp::create(b, l, zero, fromEnd));
              index = arith::SubIOp::create(b, l, last, absEnd);
            } else {
              index = arith::MinSIOp::create(
                  b, l, arith::MaxSIOp::create(b, l, i, zero), last);
            }
            indices.push_back(index);
          }
          linalg::YieldOp::create(
              b, l, Value(tensor::ExtractOp::create(b, l, input, indices)));
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};
} // namespace

void mlir::quant_qdq::populateShapeToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ConcatLowering, FlattenLowering, ReshapeLowering,
               TransposeLowering, PadLowering>(patterns.getContext());
}
