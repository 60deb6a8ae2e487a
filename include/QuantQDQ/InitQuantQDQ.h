//===- InitQuantQDQ.h - register the project's dialects and passes -*- C++ -*-//
//
// One place for tools and downstream projects to make everything quant-qdq
// provides known to a DialectRegistry and to the global pass registry.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_INITQUANTQDQ_H
#define QUANTQDQ_INITQUANTQDQ_H

#include "QuantQDQ/Calibration/Passes.h"
#include "QuantQDQ/Conversion/Passes.h"
#include "QuantQDQ/IR/QuantQDQDialect.h"
#include "QuantQDQ/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"

namespace mlir::quant_qdq {

/// Adds the quant_qdq dialect to `registry`.
inline void registerQuantQDQDialects(DialectRegistry &registry) {
  registry.insert<QuantQDQDialect>();
}

/// Registers every pass and pipeline: the transformations with the library
/// insertion cases and driver flags (registerQuantQDQPasses), calibration,
/// the lowering passes, and qdq-cpu-pipeline.
inline void registerAllQuantQDQPasses() {
  registerQuantQDQPasses();
  registerCalibrationPasses();
  registerQuantQDQConversionPasses();
  registerCPUPipeline();
}

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_INITQUANTQDQ_H
