//===- PassThrough.h - the input a pass-through layer moves -----*- C++ -*-===//
//
// Reshape, flatten, transpose, max pooling, zero padding and dropout only
// move or select their input's values (QDQLayerOpInterface::isPassThrough):
// insertion moves pairs across them, calibration gives their output their
// input's range, and the onnxruntime target quantizes both sides.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_UTILS_PASSTHROUGH_H
#define QUANTQDQ_UTILS_PASSTHROUGH_H

#include "mlir/IR/Operation.h"

namespace mlir::quant_qdq {

/// The one activation operand of a pass-through layer with one result,
/// whose values flow to that result; null for any other op (or null `op`).
OpOperand *getPassThroughInput(Operation *op);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_UTILS_PASSTHROUGH_H
