//===- CUDARuntimeLoader.cpp - loading the CUDA runtime -------------------===//

#include "CUDARuntimeLoader.h"
#include "QuantQDQ/Config.h"
#include "QuantQDQ/Execution/JITExecutor.h"
#include "QuantQDQ/Utils/InstallPrefix.h"

#include "llvm/Support/DynamicLibrary.h"

using namespace mlir;
using namespace mlir::quant_qdq;

/// The runtime in lib/ beside quant-qdq's code (the build tree's, an
/// install's, a pip environment's: Utils/InstallPrefix), else where this
/// build put it.
static std::string findCUDARuntime() {
  if (std::optional<std::string> installed =
          findInstalled("lib/libQuantQDQCUDARuntime.so"))
    return *installed;
  return QUANTQDQ_CUDA_RUNTIME;
}

const CUDARuntime &mlir::quant_qdq::getCUDARuntime() {
  static const CUDARuntime runtime = [] {
    CUDARuntime rt;
#if QUANTQDQ_HAVE_CUDA_RUNTIME
    rt.path = findCUDARuntime();
    if (rt.path.empty()) {
      rt.loadError = "libQuantQDQCUDARuntime.so is not installed in lib/ "
                     "beside quant-qdq";
      return rt;
    }
    std::string error;
    auto library =
        llvm::sys::DynamicLibrary::getPermanentLibrary(rt.path.c_str(), &error);
    if (!library.isValid()) {
      rt.loadError = "cannot load the CUDA runtime " + rt.path + ": " + error;
      // The runtime is there but the driver it links is not.
      if (StringRef(error).starts_with("libcuda.so.1"))
        rt.loadError += " (libcuda.so.1 comes with the NVIDIA driver: this "
                        "machine has none installed)";
      return rt;
    }
    rt.probe = reinterpret_cast<decltype(rt.probe)>(
        library.getAddressOfSymbol("qdqCudaProbe"));
    rt.takeError = reinterpret_cast<decltype(rt.takeError)>(
        library.getAddressOfSymbol("qdqCudaTakeError"));
    if (!rt.probe || !rt.takeError)
      rt.loadError =
          rt.path + " lacks qdqCudaProbe or qdqCudaTakeError: a stale build?";
#else
    rt.loadError = "this build has no CUDA runtime: the CUDA toolkit was not "
                   "found when it was configured (install it in "
                   "/usr/local/cuda, or set CUDAToolkit_ROOT, and configure "
                   "again)";
#endif
    return rt;
  }();
  return runtime;
}

llvm::Expected<CUDADeviceInfo> mlir::quant_qdq::probeCUDADevice() {
  const CUDARuntime &runtime = getCUDARuntime();
  if (!runtime.loadError.empty())
    return llvm::createStringError(runtime.loadError);
  CUDADeviceInfo info;
  char name[256], error[512];
  if (runtime.probe(&info.major, &info.minor, name, sizeof(name), error,
                    sizeof(error)) != 0)
    return llvm::createStringError("no usable CUDA device: %s", error);
  info.name = name;
  return info;
}

std::mutex &mlir::quant_qdq::getCUDAMutex() {
  static std::mutex mutex;
  return mutex;
}
