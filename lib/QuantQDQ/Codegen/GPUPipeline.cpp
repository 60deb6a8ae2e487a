//===- GPUPipeline.cpp - qdq-gpu-pipeline ---------------------------------===//
//
// Q/DQ ops to NVVM kernels in a gpu.binary; everything else takes the CPU
// path. The host code calls the mgpu* ABI (Execution/CUDARuntime.h).
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Codegen/Pipelines.h"
#include "QuantQDQ/Config.h"
#include "QuantQDQ/Conversion/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::quant_qdq;

bool mlir::quant_qdq::hasFP8Conversions(StringRef chip) {
  unsigned version = 0;
  if (!chip.consume_front("sm_"))
    return false;
  chip = chip.take_while([](char c) { return llvm::isDigit(c); });
  return !chip.getAsInteger(10, version) && version >= 89;
}

void mlir::quant_qdq::buildGPUPipeline(OpPassManager &pm,
                                       const GPUPipelineOptions &options) {
  ConvertQuantQDQToGPUOptions kernels;
  kernels.hardwareFP8 = hasFP8Conversions(options.chip);
  pm.addPass(createConvertQuantQDQToGPU(kernels));
  buildGPULoweringPipeline(pm, options);
}

void mlir::quant_qdq::buildGPULoweringPipeline(
    OpPassManager &pm, const GPUPipelineOptions &options) {
  buildCPUTensorPipeline(pm);
  buildCPUBufferPipeline(pm);
  pm.addPass(createGPULaunchers());

  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  buildCPULoweringPipeline(pm, [&](OpPassManager &nested) {
    ConvertGpuOpsToNVVMOpsOptions nvvm;
    nvvm.useBarePtrCallConv = true;
    nested.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps(nvvm));
    nested.addNestedPass<gpu::GPUModuleOp>(createCanonicalizerPass());
    nested.addNestedPass<gpu::GPUModuleOp>(createCSEPass());
    nested.addNestedPass<gpu::GPUModuleOp>(
        createReconcileUnrealizedCastsPass());
  }, [&](OpPassManager &nested) {
    GpuToLLVMConversionPassOptions host;
    host.kernelBarePtrCallConv = true;
    nested.addPass(createGpuToLLVMConversionPass(host));
  });

  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.format;
  // The toolkit holds ptxas and libdevice (fma and roundeven become
  // libdevice calls, inlined once linked); default to the configured one.
  binary.toolkitPath =
      options.toolkit.empty() ? std::string(QUANTQDQ_CUDA_TOOLKIT)
                              : std::string(options.toolkit);
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

void mlir::quant_qdq::registerGPUPipeline() {
  PassPipelineRegistration<GPUPipelineOptions>(
      "qdq-gpu-pipeline",
      "Lower Q/DQ ops to NVIDIA GPU kernels (NVVM, PTX or cubin) and the rest "
      "of quant_qdq to the LLVM dialect, for the JIT with the CUDA runtime",
      buildGPUPipeline);
}
