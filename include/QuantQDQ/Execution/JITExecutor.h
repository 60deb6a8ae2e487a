//===- JITExecutor.h - run a quant_qdq function, CPU or GPU -----*- C++ -*-===//
//
// Compiles one function of a module (quant_qdq layers and Q/DQ ops on
// tensors) with qdq-cpu-pipeline and LLVM on every core (ParallelJIT), or
// qdq-gpu-pipeline for an NVIDIA GPU (host code in one part), for input
// shapes fixed at compile time (a dynamic batch is specialized), and runs it
// on host arrays.
//
// The GPU path loads libQuantQDQCUDARuntime.so (and so the NVIDIA driver) at
// run time, only when asked for: nothing here links against CUDA.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_EXECUTION_JITEXECUTOR_H
#define QUANTQDQ_EXECUTION_JITEXECUTOR_H

#include "QuantQDQ/Execution/Npy.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/Timing.h"
#include <memory>

namespace mlir::quant_qdq {

class ParallelJIT;

/// Where a compiled function runs.
enum class Device { CPU, CUDA };

struct ExecutorOptions {
  Device device = Device::CPU;
  /// LLVM optimization level of host code (and of ptxas / the PTX JIT).
  unsigned optLevel = 3;
  /// Where compilation reports its phases (shape specialization, each pass
  /// of the MLIR pipeline, translation, LLVM's optimization, machine code),
  /// or nothing.
  TimingScope *timing = nullptr;
  /// On the CPU, a batch whose samples are computed apart runs in groups
  /// of samples, growing along the model, whose ops' tensors fit in this many
  /// bytes (qdq-split-batch); 0 runs the whole batch at once. Negative: half of
  /// the host's last-level cache, leaving the other half to the weights.
  int64_t splitBatchBytes = -1;
};

/// The threads compiled CPU code runs on (libomp's count for a parallel
/// region): OMP_NUM_THREADS's first number where set, else the cores this
/// process may run on. Also the threads that compile it.
int64_t getExecutionThreads();

/// An NVIDIA GPU that the CUDA runtime can use.
struct CUDADeviceInfo {
  std::string name;
  int major = 0, minor = 0;
};

/// Loads the CUDA runtime (once per process) and describes its device, or
/// says why there is none usable: no runtime in this build, no libcuda.so.1,
/// no device.
llvm::Expected<CUDADeviceInfo> probeCUDADevice();

/// A function compiled to machine code in this process, for any `Device`.
class JITExecutor {
public:
  /// Compiles `entry` of `module` for inputs of `inputShapes` on the CPU.
  /// Consumes the module. Errors are diagnostics at the location of their
  /// cause.
  static FailureOr<std::unique_ptr<JITExecutor>>
  create(OwningOpRef<ModuleOp> module, StringRef entry,
         ArrayRef<SmallVector<int64_t>> inputShapes, unsigned optLevel = 3);
  /// Same, on `options.device`. For Device::CUDA the GPU kernels are also
  /// loaded here, so that a module the device rejects fails now.
  static FailureOr<std::unique_ptr<JITExecutor>>
  create(OwningOpRef<ModuleOp> module, StringRef entry,
         ArrayRef<SmallVector<int64_t>> inputShapes,
         const ExecutorOptions &options);

  /// Runs once. Inputs must have the element types and shapes compiled for;
  /// outputs are allocated here. On the GPU, a failure of the CUDA runtime
  /// during the run is returned, and the outputs are not to be used.
  llvm::Error run(ArrayRef<NpyArray> inputs,
                  SmallVectorImpl<NpyArray> &outputs);

  Device getDevice() const { return device; }

  ArrayRef<RankedTensorType> getInputTypes() const { return inputTypes; }
  ArrayRef<RankedTensorType> getResultTypes() const { return resultTypes; }

  /// Returns the buffers its runs kept for reuse to the system.
  ~JITExecutor();

private:
  JITExecutor() = default;

  /// The compiled function: CPU code split over threads; GPU host code,
  /// whose global constructors loaded the kernels, in one piece.
  std::unique_ptr<ParallelJIT> code;
  Device device = Device::CPU;
  std::string entry;
  SmallVector<RankedTensorType> inputTypes, resultTypes;
  /// Whether an i8 result holds unsigned values (a uint8 quantizer).
  SmallVector<bool> resultUnsigned;
};

/// Gives `func`'s arguments the static `shapes` (their dynamic dimensions
/// only may change) and recomputes every result type in its body, so that
/// the lowering sees static shapes: layer ops infer theirs, generic ONNX
/// nodes take ONNX's inference, and the ONNX import patterns then fold the
/// shape computations and convert the nodes that static shapes make
/// convertible. Fails with a diagnostic where a type cannot be recomputed.
LogicalResult specializeInputShapes(Operation *func,
                                    ArrayRef<SmallVector<int64_t>> shapes);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_EXECUTION_JITEXECUTOR_H
