//===- LowerHistograms.cpp - calibration's histograms as loops ------------===//
//
// quant_qdq.histogram counts each element of a row in the bin its value
// picks: a store at an index computed from the data, which no linalg op
// expresses. It becomes an scf.forall over the rows and parts of each row,
// every part counting into a histogram of its own (one load, add and store
// an element), and a linalg.reduce that adds the parts of a row. The forall
// is what the CPU pipeline hands to OpenMP, as it does the distributed
// linalg ops.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Conversion/Passes.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_LOWERHISTOGRAMS
#include "QuantQDQ/Conversion/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;

/// `input` as [rows, elements of a row]: the first dimension and the rest,
/// or one row below rank 2.
static Value asRows(OpBuilder &b, Location loc, Value input, int64_t rows) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rowLength =
      type.getRank() >= 2
          ? ShapedType::getNumElements(type.getShape().drop_front())
          : type.getNumElements();
  auto rowsType =
      RankedTensorType::get({rows, rowLength}, type.getElementType());
  if (type.getRank() == 2)
    return input;
  if (type.getRank() < 2) {
    SmallVector<ReassociationIndices> into;
    if (type.getRank() == 1)
      into.push_back({0, 1});
    return tensor::ExpandShapeOp::create(b, loc, rowsType, input, into);
  }
  ReassociationIndices rest =
      llvm::to_vector(llvm::seq<int64_t>(1, type.getRank()));
  return tensor::CollapseShapeOp::create(
      b, loc, rowsType, input, ArrayRef<ReassociationIndices>{{0}, rest});
}

namespace {
struct HistogramToLoops : OpRewritePattern<HistogramOp> {
  HistogramToLoops(MLIRContext *context, int64_t chunks,
                   int64_t minChunkElements)
      : OpRewritePattern(context), chunks(chunks),
        minChunkElements(minChunkElements) {}

  LogicalResult matchAndRewrite(HistogramOp op,
                                PatternRewriter &rewriter) const override {
    PatternRewriter &b = rewriter;
    Location loc = op.getLoc();
    auto countsType = cast<RankedTensorType>(op.getCounts().getType());
    if (!countsType.hasStaticShape() ||
        !cast<RankedTensorType>(op.getInput().getType()).hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    int64_t rows = countsType.getDimSize(0);
    int64_t bins = countsType.getDimSize(1);
    Value input = asRows(b, loc, op.getInput(), rows);
    int64_t rowLength = cast<RankedTensorType>(input.getType()).getDimSize(1);
    // Enough parts that rows times parts reach `chunks`, none too small to
    // be worth a thread's start.
    int64_t rowsOrOne = std::max<int64_t>(rows, 1);
    int64_t parts = std::max<int64_t>(
        1, std::min<int64_t>(llvm::divideCeil(chunks, rowsOrOne),
                             rowLength / minChunkElements));
    int64_t partLength =
        llvm::divideCeil(std::max<int64_t>(rowLength, 1), parts);

    Type i64 = b.getI64Type();
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    auto zeroCounts = [&](ArrayRef<int64_t> shape) -> Value {
      Value empty = tensor::EmptyOp::create(b, loc, shape, i64);
      Value zero = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0));
      return linalg::FillOp::create(b, loc, zero, empty).getResult(0);
    };

    Value partsInit = tensor::EmptyOp::create(b, loc, {rows, parts, bins}, i64);
    auto forall = scf::ForallOp::create(
        b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(rows),
                                       b.getIndexAttr(parts)},
        ValueRange{partsInit}, std::nullopt);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(forall.getTerminator());
      Value row = forall.getInductionVar(0);
      Value part = forall.getInductionVar(1);
      Value start = arith::MulIOp::create(b, loc, part, index(partLength));
      Value end = arith::MinUIOp::create(
          b, loc, arith::AddIOp::create(b, loc, start, index(partLength)),
          index(rowLength));
      Value scale = arith::ConstantOp::create(b, loc, op.getBinScaleAttr());
      Value lastBin = arith::ConstantOp::create(
          b, loc, b.getF64FloatAttr(double(bins - 1)));
      Value zeroF64 = arith::ConstantOp::create(b, loc, b.getF64FloatAttr(0));
      Value zero = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0));
      Value one = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(1));
      auto loop = scf::ForOp::create(
          b, loc, start, end, index(1), ValueRange{zeroCounts({bins})},
          [&](OpBuilder &b, Location loc, Value i, ValueRange counts) {
            Value x = tensor::ExtractOp::create(b, loc, input,
                                                ValueRange{row, i});
            Value isNan = arith::CmpFOp::create(
                b, loc, arith::CmpFPredicate::UNO, x, x);
            // |x| * bin_scale in f64, as the specification says; past the
            // last edge (infinities too) the last bin. A NaN reads bin 0
            // and adds nothing to it.
            Value position = arith::MulFOp::create(
                b, loc,
                arith::ExtFOp::create(b, loc, b.getF64Type(),
                                      math::AbsFOp::create(b, loc, x)
                                          .getResult()),
                scale);
            position = arith::SelectOp::create(
                b, loc, isNan, zeroF64,
                arith::MinimumFOp::create(b, loc, position, lastBin));
            Value bin = arith::IndexCastOp::create(
                b, loc, b.getIndexType(),
                arith::FPToUIOp::create(b, loc, i64, position));
            Value count = tensor::ExtractOp::create(b, loc, counts[0], bin);
            Value added = arith::AddIOp::create(
                b, loc, count,
                arith::SelectOp::create(b, loc, isNan, zero, one));
            scf::YieldOp::create(
                b, loc,
                ValueRange{tensor::InsertOp::create(b, loc, added, counts[0],
                                                    bin)
                               .getResult()});
          });
      b.setInsertionPointToStart(forall.getTerminator().getBody());
      tensor::ParallelInsertSliceOp::create(
          b, loc, loop.getResult(0), forall.getRegionIterArgs()[0],
          ArrayRef<OpFoldResult>{row, part, b.getIndexAttr(0)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1),
                                 b.getIndexAttr(bins)},
          ArrayRef<OpFoldResult>(SmallVector<OpFoldResult>(
              3, b.getIndexAttr(1))));
    }
    auto sum = linalg::ReduceOp::create(
        b, loc, ValueRange{forall.getResult(0)},
        ValueRange{zeroCounts({rows, bins})}, ArrayRef<int64_t>{1},
        [](OpBuilder &b, Location loc, ValueRange args) {
          linalg::YieldOp::create(
              b, loc,
              ValueRange{arith::AddIOp::create(b, loc, args[0], args[1])
                             .getResult()});
        });
    b.replaceOp(op, sum.getResult(0));
    return success();
  }

  int64_t chunks, minChunkElements;
};

struct LowerHistograms
    : quant_qdq::impl::LowerHistogramsBase<LowerHistograms> {
  using LowerHistogramsBase::LowerHistogramsBase;

  void runOnOperation() override {
    if (chunks < 1 || minChunkElements < 1) {
      getOperation()->emitError("qdq-lower-histograms: chunks and "
                                "min-chunk-elements must be positive");
      return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    patterns.add<HistogramToLoops>(&getContext(), chunks, minChunkElements);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
