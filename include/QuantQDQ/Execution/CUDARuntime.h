//===- CUDARuntime.h - the project's CUDA runtime, C ABI --------*- C++ -*-===//
//
// libQuantQDQCUDARuntime.so implements, over the CUDA driver API, the mgpu*
// functions that MLIR's gpu-to-llvm lowering and gpu.binary translation call
// (module load, kernel launch, streams, events, memory). Debian ships no MLIR
// CUDA runtime, so this is ours. It is built only when the CUDA toolkit is
// found, links the driver stub at build time, and is loaded into the JIT by
// `qdq-run --device=cuda`.
//
// The mgpu* functions cannot return errors (their callers are generated
// code). The first failure is recorded instead and every later call does
// nothing; the host asks for it with qdqCudaTakeError() after a run.
//
// The mgpu* functions are not declared here: their signatures are MLIR's
// (stream, event, memory, module and launch functions as MLIR 22 declares
// them in the LLVM IR it emits). The host resolves the two functions below
// by name from the loaded library; nothing links against it.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_EXECUTION_CUDARUNTIME_H
#define QUANTQDQ_EXECUTION_CUDARUNTIME_H

#include <cstddef>
#include <cstdint>

extern "C" {
/// Initializes the driver and describes the device that the mgpu* functions
/// use (0 unless mgpuSetDefaultDevice chose another), retaining its primary
/// context. Returns 0 and fills `major`, `minor` (compute capability) and
/// `name` when the device is usable; otherwise returns nonzero and writes the
/// reason (the failed driver call and its result) into `error`. Leaves the
/// error slot of qdqCudaTakeError alone.
int qdqCudaProbe(int *major, int *minor, char *name, size_t nameSize,
                 char *error, size_t errorSize);

/// The first error recorded by an mgpu* function since the last call, as
/// "mgpuFunction: cuCall failed: CUDA_ERROR_NAME (description)", or null.
/// Clears it, so that the mgpu* functions work again. The text stays valid
/// until the next call.
const char *qdqCudaTakeError();
}

#endif // QUANTQDQ_EXECUTION_CUDARUNTIME_H
