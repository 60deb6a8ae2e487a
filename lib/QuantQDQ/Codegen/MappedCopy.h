//===- MappedCopy.h - a tensor read through a map into a new one -*- C++ -*-//
//
// Transposes, broadcasts, im2col's windows and the copies pad fusion takes
// are one op: a linalg.generic that yields its one input, read through an
// indexing map, into a new tensor.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_CODEGEN_MAPPEDCOPY_H
#define QUANTQDQ_CODEGEN_MAPPEDCOPY_H

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"

namespace mlir::quant_qdq {

/// A new tensor of `shape` whose element at index i is `source`'s at
/// `read(i)`: a linalg.generic of parallel loops, one per dimension of
/// `shape`, that yields its input.
Value createMappedCopy(OpBuilder &b, Location loc, Value source, AffineMap read,
                       ArrayRef<int64_t> shape);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_CODEGEN_MAPPEDCOPY_H
