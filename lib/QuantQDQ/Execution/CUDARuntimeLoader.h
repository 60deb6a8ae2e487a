//===- CUDARuntimeLoader.h - loading the CUDA runtime -----------*- C++ -*-===//
//
// The GPU path loads libQuantQDQCUDARuntime.so (and so the NVIDIA driver)
// at run time, only when asked for: nothing links against CUDA, so that
// qdq-run starts on machines without libcuda.so.1.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_LIB_EXECUTION_CUDARUNTIMELOADER_H
#define QUANTQDQ_LIB_EXECUTION_CUDARUNTIMELOADER_H

#include <cstddef>
#include <mutex>
#include <string>

namespace mlir::quant_qdq {

/// libQuantQDQCUDARuntime.so, loaded once per process (never unloaded: the
/// JIT resolves the mgpu* functions in it), and the two functions of its C
/// ABI that the host calls (Execution/CUDARuntime.h).
struct CUDARuntime {
  std::string path;
  int (*probe)(int *, int *, char *, size_t, char *, size_t) = nullptr;
  const char *(*takeError)() = nullptr;
  /// Why it is not loaded; empty when it is.
  std::string loadError;
};

/// The runtime, loaded on the first call.
const CUDARuntime &getCUDARuntime();

/// Serializes GPU compilation and runs: the runtime's error slot is
/// process-wide, so one run's failure must not be read by another.
std::mutex &getCUDAMutex();

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_LIB_EXECUTION_CUDARUNTIMELOADER_H
