//===- CPUPipeline.cpp - qdq-cpu-pipeline ---------------------------------===//

#include "QuantQDQ/Codegen/Passes.h"
#include "QuantQDQ/Codegen/Pipelines.h"
#include "QuantQDQ/Conversion/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::quant_qdq;

void mlir::quant_qdq::buildCPUTensorPipeline(
    OpPassManager &pm, const CPUPipelineOptions &options) {
  pm.addPass(createConvertQuantQDQToLinalg());
  pm.addPass(createCanonicalizerPass());
  // Convolutions in NHWC: their contractions' columns are output channels.
  pm.addNestedPass<func::FuncOp>(createConvolutionsChannelsLast());
  // Groups of samples cut once the layout is NHWC, so that the tensors
  // passed between stages of different groups are too.
  SplitBatchOptions split;
  split.cacheBytes = options.splitBatchBytes;
  pm.addPass(createSplitBatch(split));
  // Calibration's histograms, once the groups are cut: a few parts a
  // thread, each counted into a histogram of its own.
  LowerHistogramsOptions histograms;
  histograms.chunks = 4 * std::max<int64_t>(options.threads, 1);
  pm.addNestedPass<func::FuncOp>(createLowerHistograms(histograms));
  pm.addNestedPass<func::FuncOp>(createElementwiseFusion());
  // Calibration's minimum and maximum of a tensor read it once.
  pm.addNestedPass<func::FuncOp>(createFuseSiblingReductions());
  pm.addNestedPass<func::FuncOp>(createConvolutionsAsMatmuls());
  PackContractionPanelsOptions panels;
  panels.wideColumns = options.wideColumns;
  pm.addNestedPass<func::FuncOp>(createPackContractionPanels(panels));
  VectorizeContractionsOptions contractions;
  contractions.threads = options.threads;
  contractions.rows = options.tileRows;
  contractions.wideColumns = options.wideColumns;
  pm.addNestedPass<func::FuncOp>(createVectorizeContractions(contractions));
  pm.addNestedPass<func::FuncOp>(createReductionLoopOrder());
  pm.addNestedPass<func::FuncOp>(createDistributeLoops());
}

void mlir::quant_qdq::buildCPUBufferPipeline(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createCopyRepeatedResults());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Loops that only thread a buffer through their iterations return it
  // directly, so that a result computed by tiles is written straight into
  // the caller's out-parameter rather than copied there.
  pm.addPass(createCanonicalizerPass());
  // Results become out-parameters: the caller (qdq-run) owns every buffer it
  // reads back, and intermediate buffers are freed inside.
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  bufferization::buildBufferDeallocationPipeline(pm);
  // Deallocation frees buffers at the end of their block; a run needs only
  // the buffers live at once when each is freed after its last use.
  pm.addNestedPass<func::FuncOp>(createReleaseBuffersEarly());
  // A tile written in place bufferizes to a copy between two equal
  // subviews; once CSE makes them one value, the canonicalizer drops it.
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  // Tiles distributed over threads (qdq-vectorize-contractions) become
  // parallel loops, which the lowering hands to OpenMP.
  pm.addPass(createForallToParallelLoopPass());
}

void mlir::quant_qdq::buildCPULoweringPipeline(
    OpPassManager &pm, function_ref<void(OpPassManager &)> beforeLLVM,
    function_ref<void(OpPassManager &)> beforeReconcile, bool bufferPool,
    int64_t vectorWidth) {
  // A padded buffer's border, filled on one thread while the others wait,
  // is filled by the loop that writes its interior, on every thread.
  pm.addNestedPass<func::FuncOp>(createFillBordersInParallelLoops());
  // One function per layer's parallel loop: OpenMP's outlining of each loop
  // then scans that function, not the whole network.
  pm.addPass(createOutlineParallelLoops());
  // Repeated layers become one function each, lowered and compiled once.
  pm.addPass(createMergeIdenticalFunctions());
  // NHWC depthwise convolutions and poolings as register tiles of channel
  // vectors; NCHW depthwise and grouped convolutions as tiles of output
  // rows.
  VectorizeChannelWindowsOptions windows;
  windows.width = vectorWidth;
  // On the module: an outlined loop's calls tell which of its arguments
  // may alias, which folding a window's epilogue into its tiles asks.
  pm.addPass(createVectorizeChannelWindows(windows));
  pm.addNestedPass<func::FuncOp>(createVectorizeConvolutionRows());
  // Element-wise ops walk contiguous memory as one loop, in vectors as wide
  // as the host's (a softmax's exponentials, a GELU: their polynomials on
  // 16 lanes where AVX-512 has them).
  pm.addNestedPass<func::FuncOp>(createCollapseLoopDims());
  VectorizeElementwiseOptions elementwise;
  elementwise.width = vectorWidth;
  pm.addNestedPass<func::FuncOp>(createVectorizeElementwise(elementwise));
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  // Register tiles' transfers become one load or store per row.
  VectorTransferToSCFOptions transfers;
  transfers.enableFullUnroll();
  pm.addNestedPass<func::FuncOp>(createConvertVectorToSCFPass(transfers));
  pm.addPass(createConvertSCFToOpenMPPass());
  // The alloca scopes around parallel bodies hold no allocas: inline them
  // before their loops become blocks, which a scope cannot hold.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // bf16 conversions that give the same bits on every host.
  pm.addNestedPass<func::FuncOp>(createExpandBF16Conversions());
  if (beforeLLVM)
    beforeLLVM(pm);
  // tanh, erf and exp as arithmetic on the vector; the other math with no
  // LLVM intrinsic becomes one libm call per element, through
  // vector.extract and insert ops that the vector conversion then lowers.
  pm.addNestedPass<func::FuncOp>(createApproximateMath());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  // A register tile's contraction: one broadcast FMA per row and k.
  ConvertVectorToLLVMPassOptions vectors;
  vectors.vectorContractLowering = vector::VectorContractLowering::OuterProduct;
  pm.addPass(createConvertVectorToLLVMPass(vectors));
  pm.addPass(createUBToLLVMConversionPass());
  FinalizeMemRefToLLVMConversionPassOptions memrefs;
  memrefs.useGenericFunctions = bufferPool;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefs));
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertOpenMPToLLVMPass());
  if (beforeReconcile)
    beforeReconcile(pm);
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::quant_qdq::buildCPUPipeline(OpPassManager &pm,
                                       const CPUPipelineOptions &options) {
  buildCPUTensorPipeline(pm, options);
  buildCPUBufferPipeline(pm);
  buildCPULoweringPipeline(pm, {}, {}, options.bufferPool, options.vectorWidth);
}

void mlir::quant_qdq::registerCPUPipeline() {
  PassPipelineRegistration<CPUPipelineOptions>(
      "qdq-cpu-pipeline",
      "Lower quant_qdq on tensors to the LLVM dialect for the CPU JIT",
      buildCPUPipeline);
}
