//===- Pipelines.cpp - registration and the CPU pipeline ------------------===//

#include "QuantQDQ/Conversion/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace mlir::quant_qdq;

/// quant_qdq on tensors down to the LLVM dialect. Results become out
/// parameters, so that a caller (qdq-run) owns every buffer it reads back.
static constexpr llvm::StringLiteral kCPUPipeline =
    "convert-quant-qdq-to-linalg,"
    "canonicalize,"
    "func.func(linalg-fuse-elementwise-ops),"
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map},"
    "buffer-results-to-out-params{hoist-static-allocs "
    "modify-public-functions},"
    "buffer-deallocation-pipeline,"
    "canonicalize,"
    "func.func(convert-linalg-to-loops),"
    "lower-affine,"
    "convert-scf-to-cf,"
    "expand-strided-metadata,"
    "lower-affine,"
    "convert-math-to-llvm,"
    "convert-math-to-libm,"
    "finalize-memref-to-llvm,"
    "convert-arith-to-llvm,"
    "convert-func-to-llvm,"
    "convert-cf-to-llvm,"
    "reconcile-unrealized-casts";

void mlir::quant_qdq::buildCPUPipeline(OpPassManager &pm) {
  // The pipeline text names only registered upstream passes; it cannot fail
  // to parse unless this file is wrong, which the lit tests would show.
  if (failed(parsePassPipeline(kCPUPipeline, pm)))
    llvm::report_fatal_error("qdq-cpu-pipeline does not parse");
}

void mlir::quant_qdq::registerCPUPipeline() {
  PassPipelineRegistration<>(
      "qdq-cpu-pipeline",
      "Lower quant_qdq on tensors to the LLVM dialect for the CPU JIT",
      buildCPUPipeline);
}
