//===- GPUKernels.h - Q/DQ GPU kernels for other runtimes -------*- C++ -*-===//
//
// `qdq-translate --export-gpu-kernels`: the kernels convert-quant-qdq-to-gpu
// writes for a module's Q/DQ ops, compiled (PTX, cubin or fatbin) and
// described in a JSON manifest, so that a runtime other than this
// project's (a training framework, bench/gpu's runner) can launch them.
// The manifest's format is bench/gpu/README.md's; the argument ABI is
// Conversion/GPUKernelABI.h's.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_TARGET_GPUKERNELS_H
#define QUANTQDQ_TARGET_GPUKERNELS_H

namespace mlir::quant_qdq {

/// Registers `--export-gpu-kernels` and its options `--gpu-chip`,
/// `--gpu-features`, `--gpu-format` with mlir-translate style tools.
void registerGPUKernelsExport();

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_TARGET_GPUKERNELS_H
