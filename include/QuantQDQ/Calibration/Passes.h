//===- Passes.h - calibration pass ------------------------------*- C++ -*-===//

#ifndef QUANTQDQ_CALIBRATION_PASSES_H
#define QUANTQDQ_CALIBRATION_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::quant_qdq {

#define GEN_PASS_DECL
#include "QuantQDQ/Calibration/Passes.h.inc"

/// Registers the `calibrate` pass and the driver flag
/// `--calibration-method` it falls back to.
void registerCalibrationPasses();

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_CALIBRATION_PASSES_H
