//===- RuntimeLibraries.h - libraries compiled code calls into --*- C++ -*-===//
//
// Compiled code calls into MLIR's C runner utilities and LLVM's OpenMP
// runtime (libomp.so, which runs its parallel loops); the JIT resolves
// those calls in libraries loaded into the process for good.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_LIB_EXECUTION_RUNTIMELIBRARIES_H
#define QUANTQDQ_LIB_EXECUTION_RUNTIMELIBRARIES_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::quant_qdq {

/// The paths of libmlir_c_runner_utils.so and libomp.so, found once per
/// process.
SmallVector<StringRef, 3> getLLVMRuntimeLibraries();

/// Loads each library of `paths` into the process for good; fails with an
/// error at `loc` naming the first that does not load.
LogicalResult loadRuntimeLibraries(ArrayRef<StringRef> paths, Location loc);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_LIB_EXECUTION_RUNTIMELIBRARIES_H
