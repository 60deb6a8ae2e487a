//===- HistogramOp.cpp - calibration's histogram of a tensor --------------===//

#include "QuantQDQ/IR/QuantQDQOps.h"

#include <cmath>

using namespace mlir;
using namespace mlir::quant_qdq;

LogicalResult HistogramOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location>, ValueRange operands,
    DictionaryAttr, OpaqueProperties properties, RegionRange,
    SmallVectorImpl<Type> &types) {
  auto input = dyn_cast<RankedTensorType>(operands[0].getType());
  if (!input)
    return failure();
  int64_t rows = input.getRank() >= 2 ? input.getDimSize(0) : 1;
  int64_t bins = properties.as<Properties *>()->bins.getInt();
  types.push_back(
      RankedTensorType::get({rows, bins}, IntegerType::get(context, 64)));
  return success();
}

LogicalResult HistogramOp::verify() {
  double scale = getBinScale().convertToDouble();
  if (!std::isfinite(scale) || scale <= 0)
    return emitOpError("needs a positive, finite bin_scale; got ") << scale;
  return success();
}
