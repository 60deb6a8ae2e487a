//===- TensorRangeOp.cpp - calibration's range of a tensor ----------------===//

#include "QuantQDQ/IR/QuantQDQOps.h"

using namespace mlir;
using namespace mlir::quant_qdq;

LogicalResult TensorRangeOp::inferReturnTypes(MLIRContext *context,
                                              std::optional<Location>,
                                              ValueRange operands,
                                              DictionaryAttr, OpaqueProperties,
                                              RegionRange,
                                              SmallVectorImpl<Type> &types) {
  auto input = dyn_cast<RankedTensorType>(operands[0].getType());
  if (!input)
    return failure();
  // One minimum and one maximum a row: a scalar below rank 2.
  auto perRow = input.getRank() >= 2
                    ? RankedTensorType::get({input.getDimSize(0)},
                                            Float32Type::get(context))
                    : RankedTensorType::get({}, Float32Type::get(context));
  types.assign({perRow, perRow,
                RankedTensorType::get({}, IntegerType::get(context, 64))});
  return success();
}
