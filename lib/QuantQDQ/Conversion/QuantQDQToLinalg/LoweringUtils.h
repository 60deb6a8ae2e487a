//===- LoweringUtils.h - helpers shared by the linalg lowerings -*- C++ -*-===//

#ifndef QUANTQDQ_LIB_CONVERSION_LOWERINGUTILS_H
#define QUANTQDQ_LIB_CONVERSION_LOWERINGUTILS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::quant_qdq {

/// A `tensor.empty` of `type`, taking dynamic sizes from `like` where
/// `type` is dynamic (the two must have the same rank), or from `dynSizes`.
Value createEmpty(OpBuilder &b, Location loc, RankedTensorType type,
                  ValueRange dynSizes);
/// The dynamic sizes of `value`, for the dynamic dimensions of `type`.
SmallVector<Value> getDynamicSizes(OpBuilder &b, Location loc, Value value,
                                   RankedTensorType type,
                                   ArrayRef<int64_t> sourceDims = {});
/// A tensor of `type` filled with `fill`.
Value createFilled(OpBuilder &b, Location loc, RankedTensorType type,
                   ValueRange dynSizes, TypedAttr fill);
/// The indexing map that reads `operand` broadcast NumPy-style into an
/// iteration space of `resultRank` dimensions: trailing dimensions align,
/// size-1 dimensions of the operand read index 0.
AffineMap getBroadcastMap(MLIRContext *ctx, RankedTensorType operand,
                          RankedTensorType result);
/// `tensor.pad` of `input` with `value`, by `low`/`high` per dimension; the
/// input itself when every amount is 0.
Value padTensor(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> low,
                ArrayRef<int64_t> high, Attribute value);
/// -inf of the float type `element`: the identity of a maximum.
FloatAttr getNegativeInfinity(OpBuilder &b, Type element);
/// The float constant `value` of `type`.
Value floatConstant(OpBuilder &b, Location loc, Type type, double value);

/// One parallel linalg.generic producing `resultType` from `inputs`, each
/// read with NumPy broadcasting; `body` maps input elements to the result.
/// A dynamic result dimension takes its size from an input whose aligned
/// dimension is dynamic too (a static one is 1, broadcast, or the size).
Value buildElementwise(
    OpBuilder &b, Location loc, RankedTensorType resultType, ValueRange inputs,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body);
/// `inputs` concatenated along `axis` into `type`: an empty tensor, then
/// one tensor.insert_slice per input not empty along the axis.
Value buildConcat(OpBuilder &b, Location loc, RankedTensorType type,
                  ValueRange inputs, int64_t axis);
/// `value` with the static shape of `type` (the element counts must be
/// equal): expanded to the finest shape both are groups of and collapsed
/// from it, or, where the factors do not nest, each run of dimensions whose
/// product changes collapsed to one dimension and expanded again. Either
/// bufferizes to a view, of a strided buffer too where the collapsed
/// dimensions are contiguous.
Value reshapeStatic(OpBuilder &b, Location loc, Value value,
                    RankedTensorType type);

/// `axis` counted from the front. ODS returns I64Attr values as uint64_t, so
/// the value is reinterpreted as signed here, once.
inline int64_t normalizeAxis(uint64_t axis, int64_t rank) {
  int64_t signedAxis = static_cast<int64_t>(axis);
  return signedAxis < 0 ? signedAxis + rank : signedAxis;
}

/// The pattern groups that populateLayerToLinalgPatterns gathers.
void populateConvPoolToLinalgPatterns(RewritePatternSet &patterns);
void populateElementwiseToLinalgPatterns(RewritePatternSet &patterns);
void populateNormalizationToLinalgPatterns(RewritePatternSet &patterns);
void populateShapeToLinalgPatterns(RewritePatternSet &patterns);
/// The lowerings of generic ONNX nodes (static shapes), by op type.
void populateONNXNodeToLinalgPatterns(RewritePatternSet &patterns);
/// The pattern populateQDQToLinalgPatterns adds for round_to_format.
void populateRoundToFormatToLinalgPatterns(RewritePatternSet &patterns);
/// The pattern convert-quant-qdq-to-linalg adds for calibration's
/// tensor_range (static shapes).
void populateTensorRangeToLinalgPatterns(RewritePatternSet &patterns);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_LIB_CONVERSION_LOWERINGUTILS_H
