//===- RoundToFormatToLinalg.cpp - round_to_format to linalg --------------===//
//
// One element-wise linalg.generic computing NumberFormatArithmetic.h's
// rounding. Two formats read more than the element: stochastic rounding its
// position in the tensor taken flat (from linalg.index), and ternary
// without a threshold 0.7 * mean|x|, a reduction over the whole tensor
// first.
//
//===----------------------------------------------------------------------===//

#include "../NumberFormatArithmetic.h"
#include "../QDQArithmetic.h"
#include "LoweringUtils.h"
#include "QuantQDQ/Conversion/QuantQDQToLinalg.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::quant_qdq;

/// The flat row-major position of the current element, as i64, from
/// linalg.index inside a generic over `input`'s shape.
static Value emitFlatPosition(OpBuilder &b, Location loc,
                              ArrayRef<Value> sizes) {
  Value position = arith::ConstantIndexOp::create(b, loc, 0);
  for (auto [d, size] : llvm::enumerate(sizes)) {
    Value index = linalg::IndexOp::create(b, loc, d);
    position = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, position, size), index);
  }
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), position);
}

namespace {
struct RoundToFormatLowering : OpRewritePattern<RoundToFormatOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(RoundToFormatOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    NumberFormatAttr format = op.getFormat();
    Value input = op.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    int64_t rank = type.getRank();

    NumberFormatInputs extra;
    if (format.needsMeanMagnitude())
      extra.threshold = emitMeanMagnitudeThreshold(rewriter, loc, input);
    SmallVector<Value> sizes;
    if (format.isStochastic())
      sizes = getValueOrCreateConstantIndexOp(
          rewriter, loc, tensor::getMixedSizes(rewriter, loc, input));

    Value init = createEmpty(rewriter, loc, type,
                             getDynamicSizes(rewriter, loc, input, type));
    SmallVector<AffineMap> maps(2, rewriter.getMultiDimIdentityMap(rank));
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, input, init, maps, iterators,
        [&](OpBuilder &b, Location bodyLoc, ValueRange args) {
          NumberFormatInputs inputs = extra;
          if (format.isStochastic())
            inputs.position = emitFlatPosition(b, bodyLoc, sizes);
          Value rounded = emitRoundToFormat(
              b, bodyLoc, toF32(b, bodyLoc, args[0]), format, inputs);
          linalg::YieldOp::create(
              b, bodyLoc,
              fromF32(b, bodyLoc, rounded, type.getElementType()));
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};
} // namespace

void mlir::quant_qdq::populateRoundToFormatToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<RoundToFormatLowering>(patterns.getContext());
}
