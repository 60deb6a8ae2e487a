//===- InitQuantQDQ.h - register the project's dialects and passes -*- C++ -*-//
//
// One place for tools and downstream projects to make everything quant-qdq
// provides known to a DialectRegistry and to the global pass registry.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_INITQUANTQDQ_H
#define QUANTQDQ_INITQUANTQDQ_H

#include "QuantQDQ/Calibration/Passes.h"
#include "QuantQDQ/Codegen/Passes.h"
#include "QuantQDQ/Codegen/Pipelines.h"
#include "QuantQDQ/Conversion/Passes.h"
#include "QuantQDQ/Driver/QuantizePipeline.h"
#include "QuantQDQ/IR/QuantQDQDialect.h"
#include "QuantQDQ/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

namespace mlir::quant_qdq {

/// Adds the quant_qdq dialect to `registry`, with the NVVM target and the
/// LLVM IR translations that qdq-gpu-pipeline's gpu-module-to-binary and the
/// JIT need.
inline void registerQuantQDQDialects(DialectRegistry &registry) {
  registry.insert<QuantQDQDialect>();
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
}

/// Registers every pass and pipeline: the transformations with the library
/// insertion cases and driver flags (registerQuantQDQPasses), calibration,
/// qdq-quantize, the lowering passes, the code-generation passes,
/// qdq-cpu-pipeline and qdq-gpu-pipeline.
inline void registerAllQuantQDQPasses() {
  registerQuantQDQPasses();
  registerQuantQDQCodegenPasses();
  registerCalibrationPasses();
  registerQuantizePipeline();
  registerQuantQDQConversionPasses();
  registerCPUPipeline();
  registerGPUPipeline();
}

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_INITQUANTQDQ_H
