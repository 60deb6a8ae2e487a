//===- RuntimeLibraries.cpp - libraries compiled code calls into ----------===//

#include "RuntimeLibraries.h"
#include "QuantQDQ/Config.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <dlfcn.h>

using namespace mlir;
using namespace mlir::quant_qdq;

/// An LLVM runtime library (MLIR's C runner utilities, LLVM's OpenMP)
/// beside the libMLIR this process loaded, which is the LLVM the program
/// runs with wherever it was installed; else in the folder of the LLVM this
/// build used (also where a statically linked MLIR leaves us).
static std::string findLLVMRuntimeLibrary(StringRef name) {
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&ExecutionEngine::create), &info) &&
      info.dli_fname) {
    SmallString<256> path(llvm::sys::path::parent_path(info.dli_fname));
    llvm::sys::path::append(path, name);
    if (llvm::sys::fs::exists(path))
      return std::string(path);
  }
  SmallString<256> path(QUANTQDQ_LLVM_LIBRARY_DIR);
  llvm::sys::path::append(path, name);
  return std::string(path);
}

SmallVector<StringRef, 3> mlir::quant_qdq::getLLVMRuntimeLibraries() {
  static const std::string runnerUtils =
      findLLVMRuntimeLibrary("libmlir_c_runner_utils.so");
  static const std::string openMP = findLLVMRuntimeLibrary("libomp.so");
  return {runnerUtils, openMP};
}

LogicalResult mlir::quant_qdq::loadRuntimeLibraries(ArrayRef<StringRef> paths,
                                                    Location loc) {
  // The JIT only prints why a library did not load and then fails on a
  // missing symbol; the error should name the library.
  for (StringRef lib : paths) {
    std::string error;
    if (!llvm::sys::DynamicLibrary::getPermanentLibrary(lib.str().c_str(),
                                                        &error)
             .isValid())
      return emitError(loc) << "cannot load the runtime library " << lib
                            << ": " << error;
  }
  return success();
}
