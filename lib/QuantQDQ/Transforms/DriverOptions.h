//===- DriverOptions.h - qdq-opt flags that passes default to ---*- C++ -*-===//

#ifndef QUANTQDQ_LIB_TRANSFORMS_DRIVEROPTIONS_H
#define QUANTQDQ_LIB_TRANSFORMS_DRIVEROPTIONS_H

#include <string>

namespace mlir::quant_qdq {

/// Values of --qdq-spec, --qdq-mode and --qdq-report (empty when not given
/// or when the flags were never registered, as in a library user's tool).
struct DriverDefaults {
  std::string spec, mode, report;
};
DriverDefaults getDriverDefaults();

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_LIB_TRANSFORMS_DRIVEROPTIONS_H
