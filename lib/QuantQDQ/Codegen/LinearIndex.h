//===- LinearIndex.h - affine indices that are linear ----------*- C++ -*-===//
//
// The CPU passes that write loops themselves (convolution rows, channel
// windows, bias accumulators) move an index by a loop's coefficient, which
// only holds for a linear index: a sum of loops times constants plus a
// constant. `mod` and `floordiv` are affine but not linear.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_CODEGEN_LINEARINDEX_H
#define QUANTQDQ_CODEGEN_LINEARINDEX_H

#include "mlir/IR/AffineExpr.h"

#include <optional>

namespace mlir::quant_qdq {

/// Whether `e` is a sum of dimensions times constants plus a constant.
bool isLinear(AffineExpr e);

/// The coefficient of dimension `dim` in `e`, of `numDims` dimensions, when
/// `e` is linear.
std::optional<int64_t> getLinearCoefficient(AffineExpr e, unsigned dim,
                                            unsigned numDims);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_CODEGEN_LINEARINDEX_H
