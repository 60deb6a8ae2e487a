//===- QDQToLinalg.cpp - Q/DQ ops to linalg -------------------------------===//
//
// quantize, dequantize, fake_quant and fake_quant_grad each become one
// element-wise linalg.generic. The arithmetic is QDQArithmetic.h's, in f32
// (f16/bf16 inputs are extended first), following ONNX QuantizeLinear, with
// a division so that results match ONNX Runtime bit for bit.
//
//===----------------------------------------------------------------------===//

#include "../QDQArithmetic.h"
#include "LoweringUtils.h"
#include "QuantQDQ/Conversion/Passes.h"
#include "QuantQDQ/Conversion/QuantQDQToLinalg.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
/// Scales and zero points of a Q/DQ op, as they enter the linalg.generic:
/// constants in the body for a per-tensor quantizer, 1-D tensors read along
/// the axis for a per-channel one, tensors of the data's rank read at the
/// block index for a blocked one.
struct QuantOperands {
  SmallVector<Value> inputs;   // extra generic inputs (scale, zp tensors)
  SmallVector<AffineMap> maps; // their indexing maps
};

} // namespace

template <typename OpT>
static FailureOr<QuantOperands> getQuantOperands(OpT op, OpBuilder &b,
                                                 RankedTensorType floatType) {
  if (!op.getScale())
    return failure();
  QuantizerAttr quantizer = op.getQuantizer();
  ArrayRef<float> scales = *op.getScale();
  SmallVector<float> zps(scales.size(), 0.0f);
  if (auto zpAttr = op.getZeroPoint())
    for (size_t i = 0; i < scales.size(); ++i)
      zps[i] = (*zpAttr)[zpAttr->size() == 1 ? 0 : i];

  QuantOperands result;
  std::optional<int64_t> axis = quantizer.getAxis();
  if (!axis)
    return result;
  Location loc = op.getLoc();
  // Per axis: a vector read at the axis index. Per block: a tensor of the
  // data's rank read at the block's index along the axis.
  SmallVector<int64_t> shape = quantizer.getScaleShape(floatType.getShape());
  if (ShapedType::isDynamicShape(shape) ||
      ShapedType::getNumElements(shape) != int64_t(scales.size()))
    return failure();
  auto scaleType = RankedTensorType::get(shape, b.getF32Type());
  result.inputs.push_back(arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(scaleType, scales)));
  result.inputs.push_back(arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(scaleType, ArrayRef<float>(zps))));
  int64_t rank = floatType.getRank();
  AffineMap map = AffineMap::get(rank, 0, b.getAffineDimExpr(*axis));
  if (std::optional<int64_t> block = quantizer.getBlockSize()) {
    SmallVector<AffineExpr> indices;
    for (int64_t d = 0; d < rank; ++d)
      indices.push_back(d == *axis ? b.getAffineDimExpr(d).floorDiv(*block)
                                   : b.getAffineDimExpr(d));
    map = AffineMap::get(rank, 0, indices, b.getContext());
  }
  result.maps.assign(2, map);
  return result;
}

/// The scale and zero point of the current element, inside the body.
template <typename OpT>
static QuantArith getScalars(OpT op, OpBuilder &b, Location loc,
                             ValueRange channelArgs) {
  QuantizerAttr quantizer = op.getQuantizer();
  QuantArith s;
  s.qmin = quantizer.getQMin();
  s.qmax = quantizer.getQMax();
  s.fp8 = quantizer.isFloatStorage();
  if (!channelArgs.empty()) {
    s.scale = channelArgs[0];
    s.zeroPoint = channelArgs[1];
    return s;
  }
  s.scale = floatConstant(b, loc, b.getF32Type(), (*op.getScale())[0]);
  s.zeroPoint =
      floatConstant(b, loc, b.getF32Type(), double(op.getZeroPointAt(0)));
  return s;
}

namespace {
/// Shared driver: one element-wise generic over `input`, producing
/// `resultType`, with `body` computing the element.
template <typename OpT> struct QuantOpLowering : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    // The pass reports uncalibrated ops before applying patterns.
    if (!op.getScale())
      return failure();
    Location loc = op.getLoc();
    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    RankedTensorType floatType =
        isa<FloatType>(inputType.getElementType()) ? inputType : resultType;
    FailureOr<QuantOperands> operands =
        getQuantOperands(op, rewriter, floatType);
    if (failed(operands))
      return failure();

    int64_t rank = inputType.getRank();
    SmallVector<Value> inputs = getDataOperands(op);
    size_t numData = inputs.size();
    llvm::append_range(inputs, operands->inputs);
    SmallVector<AffineMap> maps(numData, rewriter.getMultiDimIdentityMap(rank));
    llvm::append_range(maps, operands->maps);
    maps.push_back(rewriter.getMultiDimIdentityMap(rank));
    Value init =
        createEmpty(rewriter, loc, resultType,
                    getDynamicSizes(rewriter, loc, op.getInput(), resultType));
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, resultType, inputs, init, maps, iterators,
        [&](OpBuilder &b, Location bodyLoc, ValueRange args) {
          QuantArith s =
              getScalars(op, b, bodyLoc, args.drop_front(numData).drop_back());
          Value out = emitQuantOp(b, bodyLoc, kKind, args.take_front(numData),
                                  s, resultType.getElementType());
          linalg::YieldOp::create(b, bodyLoc, out);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }

  static SmallVector<Value> getDataOperands(OpT op) {
    if constexpr (std::is_same_v<OpT, FakeQuantGradOp>)
      return {op.getInput(), op.getGrad()};
    return {op.getInput()};
  }

  static constexpr QuantOpKind kKind =
      std::is_same_v<OpT, QuantizeOp>     ? QuantOpKind::Quantize
      : std::is_same_v<OpT, DequantizeOp> ? QuantOpKind::Dequantize
      : std::is_same_v<OpT, FakeQuantOp>  ? QuantOpKind::FakeQuant
                                          : QuantOpKind::FakeQuantGrad;
};
} // namespace

void mlir::quant_qdq::populateQDQToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<QuantOpLowering<QuantizeOp>, QuantOpLowering<DequantizeOp>,
               QuantOpLowering<FakeQuantOp>, QuantOpLowering<FakeQuantGradOp>>(
      patterns.getContext());
  populateRoundToFormatToLinalgPatterns(patterns);
}
