//===- CPUExecutor.h - run a quant_qdq function on the CPU ------*- C++ -*-===//
//
// Compiles one function of a module (quant_qdq layers and Q/DQ ops on
// tensors) with qdq-cpu-pipeline and the MLIR ExecutionEngine, for input
// shapes fixed at compile time (a dynamic batch is specialized), and runs it
// on arrays.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_EXECUTION_CPUEXECUTOR_H
#define QUANTQDQ_EXECUTION_CPUEXECUTOR_H

#include "QuantQDQ/Execution/Npy.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include <memory>

namespace mlir::quant_qdq {

class CPUExecutor {
public:
  /// Compiles `entry` of `module` for inputs of `inputShapes`. Consumes the
  /// module. Errors are diagnostics at the location of their cause.
  static FailureOr<std::unique_ptr<CPUExecutor>>
  create(OwningOpRef<ModuleOp> module, StringRef entry,
         ArrayRef<SmallVector<int64_t>> inputShapes, unsigned optLevel = 3);

  /// Runs once. Inputs must have the element types and shapes compiled for;
  /// outputs are allocated here.
  llvm::Error run(ArrayRef<const NpyArray *> inputs,
                  SmallVectorImpl<NpyArray> &outputs);

  ArrayRef<RankedTensorType> getInputTypes() const { return inputTypes; }
  ArrayRef<RankedTensorType> getResultTypes() const { return resultTypes; }

private:
  CPUExecutor() = default;

  std::unique_ptr<ExecutionEngine> engine;
  std::string entry;
  SmallVector<RankedTensorType> inputTypes, resultTypes;
  /// Whether an i8 result holds unsigned values (a uint8 quantizer).
  SmallVector<bool> resultUnsigned;
};

/// Gives `func`'s arguments the static `shapes` (their dynamic dimensions
/// only may change) and recomputes every result type in its body, so that
/// the lowering sees static shapes. Fails with a diagnostic where a type
/// cannot be recomputed.
LogicalResult specializeInputShapes(Operation *func,
                                    ArrayRef<SmallVector<int64_t>> shapes);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_EXECUTION_CPUEXECUTOR_H
