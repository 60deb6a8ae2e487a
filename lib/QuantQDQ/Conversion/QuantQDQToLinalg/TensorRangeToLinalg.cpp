//===- TensorRangeToLinalg.cpp - calibration's ranges as reductions -------===//
//
// quant_qdq.tensor_range becomes what ONNX ReduceMin and ReduceMax over all
// but the first dimension lower to (ONNXReductionToLinalg.cpp): one
// linalg.generic each, from +inf and -inf, combining with arith.minimumf
// and arith.maximumf, so that a NaN makes its row's result NaN. The two
// read one tensor the same way, which qdq-fuse-sibling-reductions makes one
// read; their rows are a parallel loop the CPU pipeline shares among
// threads. The count is a constant.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "QuantQDQ/IR/QuantQDQOps.h"
#include "Reduction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
struct TensorRangeLowering : OpRewritePattern<TensorRangeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TensorRangeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getInput().getType());
    SmallVector<bool> reduced(type.getRank(), true);
    if (type.getRank() >= 2)
      reduced[0] = false;
    Reducer reducer{rewriter, loc, type, reduced};
    auto reduce = [&](bool isMax) {
      TypedAttr init = rewriter.getFloatAttr(
          type.getElementType(),
          APFloat::getInf(APFloat::IEEEsingle(), /*Negative=*/isMax));
      return reducer.reduce(
          op.getInput(), init,
          [&](OpBuilder &b, Location l, Value x, Value acc) -> Value {
            if (isMax)
              return arith::MaximumFOp::create(b, l, x, acc);
            return arith::MinimumFOp::create(b, l, x, acc);
          });
    };
    Value min = reduce(/*isMax=*/false);
    Value max = reduce(/*isMax=*/true);
    int64_t elements = type.getNumElements();
    Value count = arith::ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(RankedTensorType::get({}, rewriter.getI64Type()),
                               ArrayRef(elements)));
    rewriter.replaceOp(op, {min, max, count});
    return success();
  }
};
} // namespace

void mlir::quant_qdq::populateTensorRangeToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<TensorRangeLowering>(patterns.getContext());
}
