//===- Pipelines.h - quant_qdq down to CPU and GPU code ---------*- C++ -*-===//
//
// The pass pipelines that take a quant_qdq module to the LLVM dialect for
// the JIT (qdq-cpu-pipeline) and, with Q/DQ ops as NVVM kernels, for the
// GPU (qdq-gpu-pipeline).
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_CODEGEN_PIPELINES_H
#define QUANTQDQ_CODEGEN_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::quant_qdq {

/// Options of `qdq-cpu-pipeline`.
struct CPUPipelineOptions : public PassPipelineOptions<CPUPipelineOptions> {
  Option<bool> bufferPool{
      *this, "buffer-pool",
      llvm::cl::desc("Allocate buffers with _mlir_memref_to_llvm_alloc, "
                     "_aligned_alloc and _free, which the runner provides "
                     "(qdq-run's pool keeps them from one run to the next), "
                     "rather than malloc and free"),
      llvm::cl::init(false)};
  Option<int64_t> threads{
      *this, "threads",
      llvm::cl::desc("Threads the compiled code will run on: contractions "
                     "are shared out along the dimension they divide most "
                     "evenly among them"),
      llvm::cl::init(8)};
  Option<int64_t> tileRows{
      *this, "tile-rows",
      llvm::cl::desc("Rows of the contractions' register tiles: 6 keeps a "
                     "6 x 16 tile's accumulators and operands within AVX2's "
                     "16 vector registers; 8 gives AVX-512's two FMA units "
                     "enough independent chains"),
      llvm::cl::init(6)};
  Option<int64_t> wideColumns{
      *this, "wide-columns",
      llvm::cl::desc("Columns of the panels and register tiles of "
                     "contractions with 8 times as many columns or more (0: "
                     "16 everywhere; 32 suits AVX-512, where an 8 x 32 "
                     "tile's 16 accumulators fit)"),
      llvm::cl::init(0)};
  Option<int64_t> vectorWidth{
      *this, "vector-width",
      llvm::cl::desc("f32 elements per vector of element-wise loops and of "
                     "the register tiles of NHWC depthwise convolutions and "
                     "poolings (8 fill an AVX register, 16 an AVX-512 one)"),
      llvm::cl::init(8)};
  Option<int64_t> splitBatchBytes{
      *this, "split-batch-bytes",
      llvm::cl::desc("Run a batch whose samples are computed apart in "
                     "groups, growing along the model, whose ops' tensors "
                     "fit in this many "
                     "bytes (qdq-split-batch's cache-bytes; 0: the whole "
                     "batch at once)"),
      llvm::cl::init(0)};
};

/// The passes of `qdq-cpu-pipeline`: quant_qdq on tensors down to the LLVM
/// dialect, with function results turned into out-parameters, ready for the
/// JIT (qdq-run).
void buildCPUPipeline(OpPassManager &pm,
                      const CPUPipelineOptions &options = {});
/// Its three stages, for pipelines that extend it: quant_qdq to linalg on
/// tensors; bufferization with out-parameters and deallocation; loops down
/// to the LLVM dialect, with hooks before the conversions to LLVM and before
/// the final cast reconciliation.
void buildCPUTensorPipeline(OpPassManager &pm,
                            const CPUPipelineOptions &options = {});
void buildCPUBufferPipeline(OpPassManager &pm);
void buildCPULoweringPipeline(
    OpPassManager &pm, function_ref<void(OpPassManager &)> beforeLLVM = {},
    function_ref<void(OpPassManager &)> beforeReconcile = {},
    bool bufferPool = false, int64_t vectorWidth = 8);
/// Registers `qdq-cpu-pipeline`.
void registerCPUPipeline();

/// Options of `qdq-gpu-pipeline`.
struct GPUPipelineOptions : public PassPipelineOptions<GPUPipelineOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("NVIDIA target, e.g. sm_80, sm_90"),
                           llvm::cl::init("sm_90")};
  Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features; sm_90 needs PTX 7.8 or later"),
      llvm::cl::init("+ptx80")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("What the kernels become: isa (PTX text), bin (cubin, "
                     "runs ptxas), fatbin (cubin and PTX), llvm (NVVM IR)"),
      llvm::cl::init("fatbin")};
  Option<unsigned> optLevel{*this, "opt-level",
                            llvm::cl::desc("LLVM and ptxas optimization level"),
                            llvm::cl::init(3)};
  Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit root holding bin/ptxas and bin/fatbinary"),
      llvm::cl::init("")};
};

/// Whether `chip` (`sm_89`, `sm_90a`) has the FP8 conversions (sm_89 and
/// later).
bool hasFP8Conversions(StringRef chip);

/// The passes of `qdq-gpu-pipeline`: Q/DQ ops become GPU kernels
/// (convert-quant-qdq-to-gpu) launched from host code; layers take the CPU
/// path; kernels are compiled to `options.format` in a `gpu.binary`, and the
/// host code calls the mgpu* runtime ABI (see Execution/CUDARuntime.h).
void buildGPUPipeline(OpPassManager &pm, const GPUPipelineOptions &options);
/// The same after convert-quant-qdq-to-gpu: for a module whose kernels are
/// to be read before they are compiled (qdq-translate --export-gpu-kernels).
void buildGPULoweringPipeline(OpPassManager &pm,
                              const GPUPipelineOptions &options);
/// Registers `qdq-gpu-pipeline`.
void registerGPUPipeline();

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_CODEGEN_PIPELINES_H
