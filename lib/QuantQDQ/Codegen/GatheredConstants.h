//===- GatheredConstants.h - constants rearranged at compile time -*- C++ -*-//
//
// Weights the CPU's kernels want in another order (a filter in HWCF, a right
// operand in column panels) are rearranged once, at compile time, by
// gathering the constant's values along strides.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_CODEGEN_GATHEREDCONSTANTS_H
#define QUANTQDQ_CODEGEN_GATHEREDCONSTANTS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::quant_qdq {

/// A new f32 constant of `type` whose element at index i is the one of
/// `source`'s row-major data at `origin + sum(i[d] * strides[d])`: a
/// transposition, a slice, a split of a dimension, or a mix of them. A
/// dense source gives a dense constant (small, printed), a resource a blob
/// named `blobName`. Null when `source` is no f32 data this can read.
Value createGatheredConstant(OpBuilder &b, Location loc, ElementsAttr source,
                             RankedTensorType type, int64_t origin,
                             ArrayRef<int64_t> strides, StringRef blobName);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_CODEGEN_GATHEREDCONSTANTS_H
