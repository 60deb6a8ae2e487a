//===- Passes.cpp - registration of the quant_qdq passes ------------------===//

#include "QuantQDQ/Transforms/Passes.h"
#include "DriverOptions.h"
#include "QuantQDQ/Transforms/InsertionCases.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ManagedStatic.h"

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
/// The driver-level flags named after the seed toolkit's arguments; the
/// insert-qdq pass falls back to them when its own options are not set.
struct DriverFlags {
  llvm::cl::opt<std::string> spec{
      "qdq-spec", llvm::cl::desc("QuantizationSpec JSON file for insert-qdq"),
      llvm::cl::value_desc("file")};
  llvm::cl::opt<std::string> mode{
      "qdq-mode",
      llvm::cl::desc("insert-qdq mode: full (default table, then cases and "
                     "spec) or partial (only what the spec names)"),
      llvm::cl::value_desc("full|partial")};
  llvm::cl::opt<std::string> report{
      "qdq-report",
      llvm::cl::desc("Write insert-qdq's per-layer decisions to this file "
                     "('-' for stderr)"),
      llvm::cl::value_desc("file")};
};
} // namespace

static llvm::ManagedStatic<DriverFlags> driverFlags;

DriverDefaults mlir::quant_qdq::getDriverDefaults() {
  if (!driverFlags.isConstructed())
    return {};
  return {driverFlags->spec, driverFlags->mode, driverFlags->report};
}

namespace mlir::quant_qdq {
#define GEN_PASS_REGISTRATION
#include "QuantQDQ/Transforms/Passes.h.inc"
} // namespace mlir::quant_qdq

void mlir::quant_qdq::registerQuantQDQPasses() {
  (void)*driverFlags;
  registerLibraryInsertionCases();
  registerQuantQDQTransformsPasses();
}
