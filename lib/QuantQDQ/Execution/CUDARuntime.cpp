//===- CUDARuntime.cpp - the mgpu* runtime over the CUDA driver API -------===//
//
// libQuantQDQCUDARuntime.so: what code lowered by gpu-to-llvm and translated
// from gpu.binary calls (module load in a global constructor, launches,
// streams, events, memory), implemented over the driver API in the primary
// context of one device. It links nothing but libcuda.so.1 (no LLVM, no
// MLIR) and exports only the C ABI.
//
// No entry point can report an error to its caller (generated code), so the
// first failure is kept in a process-wide slot; from then on every entry
// point does nothing, and returns null where it returns a handle, until the
// host takes the error with qdqCudaTakeError(). Nothing here aborts.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Execution/CUDARuntime.h"

#include <cuda.h>

#include <atomic>
#include <climits>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

#define QDQ_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

/// Process-wide state. Allocated once and never destroyed: global
/// destructors of JIT'd code (module unload) may run after this library's
/// static destructors would have.
struct State {
  /// Guards the error slot.
  std::mutex errorMutex;
  /// Set while an error is recorded: the fast check of every entry point.
  std::atomic<bool> failed{false};
  std::string error;
  /// The last error handed out by qdqCudaTakeError (the pointer stays valid
  /// until the next call).
  std::string taken;

  /// Guards the device and context below.
  std::mutex contextMutex;
  bool driverInitialized = false;
  int deviceOrdinal = 0;
  /// The retained primary context and the ordinal it belongs to.
  CUcontext context = nullptr;
  CUdevice device = 0;
  int contextOrdinal = -1;
};

State &getState() {
  static State *state = new State();
  return *state;
}

/// A failed driver call: its name and result.
struct Failure {
  const char *call = nullptr;
  CUresult result = CUDA_SUCCESS;
  explicit operator bool() const { return call != nullptr; }
};

Failure failIf(CUresult result, const char *call) {
  return result == CUDA_SUCCESS ? Failure() : Failure{call, result};
}

/// "CUDA_ERROR_NAME (description)". A stub or broken driver cannot name its
/// own results, so the few that say "no usable driver" are named here.
std::string describe(CUresult result) {
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName(result, &name) == CUDA_SUCCESS && name) {
    std::string out = name;
    if (cuGetErrorString(result, &text) == CUDA_SUCCESS && text)
      out += std::string(" (") + text + ")";
    return out;
  }
  switch (result) {
  case CUDA_ERROR_STUB_LIBRARY:
    return "CUDA_ERROR_STUB_LIBRARY (libcuda.so.1 is a driver stub, "
           "not an NVIDIA driver)";
  case CUDA_ERROR_NO_DEVICE:
    return "CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)";
  default:
    return "CUresult " + std::to_string(int(result));
  }
}

/// Records `message` for `entry` unless an error is already recorded.
void record(const char *entry, const std::string &message) {
  State &state = getState();
  std::lock_guard<std::mutex> lock(state.errorMutex);
  if (state.failed.load())
    return;
  state.error = std::string(entry) + ": " + message;
  state.failed.store(true);
}

void record(const char *entry, Failure failure) {
  record(entry,
         std::string(failure.call) + " failed: " + describe(failure.result));
}

bool hasError() { return getState().failed.load(std::memory_order_relaxed); }

/// Initializes the driver on first use and retains the primary context of
/// the chosen device (once per device: the driver releases it at exit).
Failure acquireContext(CUcontext &context, CUdevice &device) {
  State &state = getState();
  std::lock_guard<std::mutex> lock(state.contextMutex);
  if (!state.driverInitialized) {
    if (Failure failure = failIf(cuInit(0), "cuInit"))
      return failure;
    state.driverInitialized = true;
  }
  if (!state.context || state.contextOrdinal != state.deviceOrdinal) {
    CUdevice dev;
    if (Failure failure =
            failIf(cuDeviceGet(&dev, state.deviceOrdinal), "cuDeviceGet"))
      return failure;
    CUcontext ctx;
    if (Failure failure = failIf(cuDevicePrimaryCtxRetain(&ctx, dev),
                                 "cuDevicePrimaryCtxRetain"))
      return failure;
    state.context = ctx;
    state.device = dev;
    state.contextOrdinal = state.deviceOrdinal;
  }
  context = state.context;
  device = state.device;
  return {};
}

/// One call of an mgpu* entry point: nothing happens (the entry is false)
/// while an error is recorded; otherwise the device's primary context is
/// current until the end of the scope. Driver results are checked through
/// check(), which records the first failure under the entry's name.
class Entry {
public:
  explicit Entry(const char *name) : name(name) {
    if (hasError())
      return;
    CUcontext context;
    CUdevice device;
    if (Failure failure = acquireContext(context, device)) {
      record(name, failure);
      return;
    }
    if (!check(cuCtxPushCurrent(context), "cuCtxPushCurrent"))
      return;
    active = true;
  }
  ~Entry() {
    CUcontext popped;
    if (active)
      cuCtxPopCurrent(&popped);
  }
  Entry(const Entry &) = delete;
  Entry &operator=(const Entry &) = delete;

  explicit operator bool() const { return active; }

  /// Whether `result` is success; records it otherwise.
  bool check(CUresult result, const char *call) {
    if (Failure failure = failIf(result, call)) {
      record(name, failure);
      return false;
    }
    return true;
  }

  /// Whether `handle` is non-null; records that it is not otherwise (a null
  /// handle comes from a creation that failed earlier, its error taken).
  bool checkHandle(const void *handle, const char *what) {
    if (handle)
      return true;
    record(name,
           std::string("null ") + what + " (its creation failed earlier)");
    return false;
  }

private:
  const char *name;
  bool active = false;
};

CUdeviceptr toDevicePtr(const void *ptr) {
  return reinterpret_cast<CUdeviceptr>(ptr);
}

/// Writes `text` into `buffer` of `size` bytes, truncated and terminated.
void copyOut(const std::string &text, char *buffer, size_t size) {
  if (buffer && size)
    std::snprintf(buffer, size, "%s", text.c_str());
}

} // namespace

//===----------------------------------------------------------------------===//
// The project's own entry points.
//===----------------------------------------------------------------------===//

QDQ_EXPORT int qdqCudaProbe(int *major, int *minor, char *name, size_t nameSize,
                            char *error, size_t errorSize) {
  CUcontext context;
  CUdevice device;
  // The context, not just the device: a device that cannot give one (an
  // exclusive one in use, say) is not usable either.
  Failure failure = acquireContext(context, device);
  int ccMajor = 0, ccMinor = 0;
  if (!failure)
    failure = failIf(
        cuDeviceGetAttribute(
            &ccMajor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device),
        "cuDeviceGetAttribute");
  if (!failure)
    failure = failIf(
        cuDeviceGetAttribute(
            &ccMinor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device),
        "cuDeviceGetAttribute");
  char deviceName[256] = {0};
  if (!failure)
    failure = failIf(cuDeviceGetName(deviceName, sizeof(deviceName), device),
                     "cuDeviceGetName");
  if (failure) {
    copyOut(std::string(failure.call) + " failed: " + describe(failure.result),
            error, errorSize);
    return 1;
  }
  if (major)
    *major = ccMajor;
  if (minor)
    *minor = ccMinor;
  copyOut(deviceName, name, nameSize);
  copyOut("", error, errorSize);
  return 0;
}

QDQ_EXPORT const char *qdqCudaTakeError() {
  State &state = getState();
  std::lock_guard<std::mutex> lock(state.errorMutex);
  if (!state.failed.load())
    return nullptr;
  state.taken = std::move(state.error);
  state.error.clear();
  state.failed.store(false);
  return state.taken.c_str();
}

//===----------------------------------------------------------------------===//
// The mgpu* ABI of MLIR 22's gpu-to-llvm lowering and gpu.binary translation.
//===----------------------------------------------------------------------===//

QDQ_EXPORT void mgpuSetDefaultDevice(int32_t ordinal) {
  if (hasError())
    return;
  State &state = getState();
  std::lock_guard<std::mutex> lock(state.contextMutex);
  state.deviceOrdinal = ordinal;
}

QDQ_EXPORT CUmodule mgpuModuleLoad(void *data, size_t /*size*/) {
  // A cubin or fatbin image describes its own size.
  Entry entry("mgpuModuleLoad");
  if (!entry || !entry.checkHandle(data, "module image"))
    return nullptr;
  CUmodule module = nullptr;
  if (!entry.check(cuModuleLoadData(&module, data), "cuModuleLoadData"))
    return nullptr;
  return module;
}

QDQ_EXPORT CUmodule mgpuModuleLoadJIT(void *data, int optLevel) {
  // NUL-terminated PTX, compiled by the driver; its log explains a failure.
  Entry entry("mgpuModuleLoadJIT");
  if (!entry || !entry.checkHandle(data, "PTX image"))
    return nullptr;
  char log[4096] = {0};
  CUjit_option options[] = {CU_JIT_OPTIMIZATION_LEVEL, CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  unsigned level = optLevel < 0 ? 0u : optLevel > 4 ? 4u : unsigned(optLevel);
  void *values[] = {reinterpret_cast<void *>(uintptr_t(level)), log,
                    reinterpret_cast<void *>(uintptr_t(sizeof(log)))};
  CUmodule module = nullptr;
  CUresult result = cuModuleLoadDataEx(&module, data, 3, options, values);
  if (result != CUDA_SUCCESS) {
    std::string message = "cuModuleLoadDataEx failed: " + describe(result);
    log[sizeof(log) - 1] = 0;
    if (log[0])
      message += std::string("; PTX JIT log: ") + log;
    record("mgpuModuleLoadJIT", message);
    return nullptr;
  }
  return module;
}

QDQ_EXPORT void mgpuModuleUnload(CUmodule module) {
  if (!module)
    return;
  Entry entry("mgpuModuleUnload");
  if (entry)
    entry.check(cuModuleUnload(module), "cuModuleUnload");
}

QDQ_EXPORT CUfunction mgpuModuleGetFunction(CUmodule module, const char *name) {
  Entry entry("mgpuModuleGetFunction");
  if (!entry || !entry.checkHandle(module, "module") ||
      !entry.checkHandle(name, "kernel name"))
    return nullptr;
  CUfunction function = nullptr;
  if (!entry.check(cuModuleGetFunction(&function, module, name),
                   "cuModuleGetFunction"))
    return nullptr;
  return function;
}

QDQ_EXPORT void mgpuLaunchKernel(CUfunction function, intptr_t gridX,
                                 intptr_t gridY, intptr_t gridZ,
                                 intptr_t blockX, intptr_t blockY,
                                 intptr_t blockZ, int32_t sharedBytes,
                                 CUstream stream, void **params, void **extra,
                                 size_t /*paramsCount*/) {
  Entry entry("mgpuLaunchKernel");
  if (!entry || !entry.checkHandle(function, "kernel"))
    return;
  intptr_t dims[] = {gridX, gridY, gridZ, blockX, blockY, blockZ};
  for (intptr_t dim : dims) {
    // An empty grid has no work (an empty tensor); the driver would reject
    // it.
    if (dim == 0)
      return;
    if (dim < 0 || uintptr_t(dim) > UINT_MAX) {
      record("mgpuLaunchKernel",
             "launch dimension " + std::to_string(dim) + " out of range");
      return;
    }
  }
  if (sharedBytes < 0) {
    record("mgpuLaunchKernel", "negative dynamic shared memory size " +
                                   std::to_string(sharedBytes));
    return;
  }
  // More than the default 48 KiB of dynamic shared memory is opt-in.
  if (sharedBytes > 48 * 1024 &&
      !entry.check(
          cuFuncSetAttribute(function,
                             CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             sharedBytes),
          "cuFuncSetAttribute"))
    return;
  entry.check(cuLaunchKernel(function, unsigned(gridX), unsigned(gridY),
                             unsigned(gridZ), unsigned(blockX),
                             unsigned(blockY), unsigned(blockZ),
                             unsigned(sharedBytes), stream, params, extra),
              "cuLaunchKernel");
}

QDQ_EXPORT CUstream mgpuStreamCreate() {
  Entry entry("mgpuStreamCreate");
  if (!entry)
    return nullptr;
  CUstream stream = nullptr;
  if (!entry.check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
                   "cuStreamCreate"))
    return nullptr;
  return stream;
}

QDQ_EXPORT void mgpuStreamDestroy(CUstream stream) {
  if (!stream)
    return;
  Entry entry("mgpuStreamDestroy");
  if (entry)
    entry.check(cuStreamDestroy(stream), "cuStreamDestroy");
}

QDQ_EXPORT void mgpuStreamSynchronize(CUstream stream) {
  // Where asynchronous failures (a faulting kernel) surface.
  Entry entry("mgpuStreamSynchronize");
  if (entry)
    entry.check(cuStreamSynchronize(stream), "cuStreamSynchronize");
}

QDQ_EXPORT void mgpuStreamWaitEvent(CUstream stream, CUevent event) {
  Entry entry("mgpuStreamWaitEvent");
  if (entry && entry.checkHandle(event, "event"))
    entry.check(cuStreamWaitEvent(stream, event, 0), "cuStreamWaitEvent");
}

QDQ_EXPORT CUevent mgpuEventCreate() {
  Entry entry("mgpuEventCreate");
  if (!entry)
    return nullptr;
  CUevent event = nullptr;
  if (!entry.check(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING),
                   "cuEventCreate"))
    return nullptr;
  return event;
}

QDQ_EXPORT void mgpuEventDestroy(CUevent event) {
  if (!event)
    return;
  Entry entry("mgpuEventDestroy");
  if (entry)
    entry.check(cuEventDestroy(event), "cuEventDestroy");
}

QDQ_EXPORT void mgpuEventSynchronize(CUevent event) {
  Entry entry("mgpuEventSynchronize");
  if (entry && entry.checkHandle(event, "event"))
    entry.check(cuEventSynchronize(event), "cuEventSynchronize");
}

QDQ_EXPORT void mgpuEventRecord(CUevent event, CUstream stream) {
  Entry entry("mgpuEventRecord");
  if (entry && entry.checkHandle(event, "event"))
    entry.check(cuEventRecord(event, stream), "cuEventRecord");
}

QDQ_EXPORT void *mgpuMemAlloc(uint64_t bytes, CUstream /*stream*/,
                              int8_t isHostShared) {
  // Allocation is immediate (not stream-ordered), so the memory is usable by
  // whatever the stream runs next.
  Entry entry("mgpuMemAlloc");
  if (!entry || bytes == 0)
    return nullptr;
  CUdeviceptr ptr = 0;
  bool ok =
      isHostShared != 0
          ? entry.check(cuMemAllocManaged(&ptr, bytes, CU_MEM_ATTACH_GLOBAL),
                        "cuMemAllocManaged")
          : entry.check(cuMemAlloc(&ptr, bytes), "cuMemAlloc");
  return ok ? reinterpret_cast<void *>(ptr) : nullptr;
}

QDQ_EXPORT void mgpuMemFree(void *ptr, CUstream stream) {
  if (!ptr)
    return;
  // The free is ordered after the work already on `stream`, which may still
  // read or write the buffer (without a stream: after all work).
  Entry entry("mgpuMemFree");
  if (!entry)
    return;
  bool idle =
      stream ? entry.check(cuStreamSynchronize(stream), "cuStreamSynchronize")
             : entry.check(cuCtxSynchronize(), "cuCtxSynchronize");
  if (idle)
    entry.check(cuMemFree(toDevicePtr(ptr)), "cuMemFree");
}

QDQ_EXPORT void mgpuMemcpy(void *dst, void *src, size_t bytes,
                           CUstream stream) {
  // Unified addressing tells host from device pointers, either way.
  Entry entry("mgpuMemcpy");
  if (!entry || bytes == 0)
    return;
  entry.check(cuMemcpyAsync(toDevicePtr(dst), toDevicePtr(src), bytes, stream),
              "cuMemcpyAsync");
}

QDQ_EXPORT void mgpuMemset32(void *dst, uint32_t value, size_t count,
                             CUstream stream) {
  Entry entry("mgpuMemset32");
  if (!entry || count == 0)
    return;
  entry.check(cuMemsetD32Async(toDevicePtr(dst), value, count, stream),
              "cuMemsetD32Async");
}

QDQ_EXPORT void mgpuMemset16(void *dst, uint16_t value, size_t count,
                             CUstream stream) {
  Entry entry("mgpuMemset16");
  if (!entry || count == 0)
    return;
  entry.check(cuMemsetD16Async(toDevicePtr(dst), value, count, stream),
              "cuMemsetD16Async");
}
