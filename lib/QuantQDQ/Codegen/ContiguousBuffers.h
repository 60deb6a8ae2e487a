//===- ContiguousBuffers.h - buffers a vector loop may walk ----*- C++ -*-===//
//
// The passes that write their own vector loops on buffers (convolution
// rows, channel windows, element-wise ops and reductions) load and store
// whole vectors along a buffer's last dimension, which must then have unit
// stride.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_CODEGEN_CONTIGUOUSBUFFERS_H
#define QUANTQDQ_CODEGEN_CONTIGUOUSBUFFERS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"

namespace mlir::quant_qdq {

/// Whether `type` has a last dimension, of unit stride: a vector load reads
/// consecutive elements of it.
bool hasUnitInnerStride(MemRefType type);

/// Whether `value` is a static f32 buffer of rank 1 or more whose last
/// dimension has unit stride.
bool isContiguousF32Buffer(Value value);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_CODEGEN_CONTIGUOUSBUFFERS_H
