/* A link-time stand-in for the NVIDIA driver (libcuda.so.1), for machines
 * whose CUDA toolkit ships headers and ptxas but no lib64/stubs.
 *
 * libQuantQDQCUDARuntime.so links against it to record a DT_NEEDED on
 * libcuda.so.1; at run time the dynamic loader finds the real driver
 * instead (the runtime has no run path here). Loaded in place of a driver,
 * as the error-path tests do, every call answers CUDA_ERROR_STUB_LIBRARY,
 * as the toolkit's own stub does. It defines exactly the driver entry points
 * CUDARuntime.cpp calls: a new call there is a link error until it is added
 * here. cuda.h renames versioned entry points (cuMemAlloc -> cuMemAlloc_v2),
 * so the definitions below get the names the runtime links against. */
#include <cuda.h>

#define STUB return CUDA_ERROR_STUB_LIBRARY

CUresult cuInit(unsigned flags) { STUB; }
CUresult cuGetErrorName(CUresult e, const char **s) { STUB; }
CUresult cuGetErrorString(CUresult e, const char **s) { STUB; }
CUresult cuDeviceGet(CUdevice *d, int ordinal) { STUB; }
CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d) { STUB; }
CUresult cuDeviceGetName(char *name, int length, CUdevice d) { STUB; }
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) { STUB; }
CUresult cuCtxPushCurrent(CUcontext c) { STUB; }
CUresult cuCtxPopCurrent(CUcontext *c) { STUB; }
CUresult cuCtxSynchronize(void) { STUB; }
CUresult cuStreamCreate(CUstream *s, unsigned flags) { STUB; }
CUresult cuStreamDestroy(CUstream s) { STUB; }
CUresult cuStreamSynchronize(CUstream s) { STUB; }
CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned flags) { STUB; }
CUresult cuEventCreate(CUevent *e, unsigned flags) { STUB; }
CUresult cuEventDestroy(CUevent e) { STUB; }
CUresult cuEventRecord(CUevent e, CUstream s) { STUB; }
CUresult cuEventSynchronize(CUevent e) { STUB; }
CUresult cuMemAlloc(CUdeviceptr *p, size_t bytes) { STUB; }
CUresult cuMemAllocManaged(CUdeviceptr *p, size_t bytes, unsigned flags) { STUB; }
CUresult cuMemFree(CUdeviceptr p) { STUB; }
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                       CUstream s) { STUB; }
CUresult cuMemsetD16Async(CUdeviceptr p, unsigned short v, size_t n,
                          CUstream s) { STUB; }
CUresult cuMemsetD32Async(CUdeviceptr p, unsigned v, size_t n, CUstream s) {
  STUB;
}
CUresult cuModuleLoadData(CUmodule *m, const void *image) { STUB; }
CUresult cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned n,
                            CUjit_option *options, void **values) { STUB; }
CUresult cuModuleUnload(CUmodule m) { STUB; }
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
  STUB;
}
CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v) {
  STUB;
}
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned shared,
                        CUstream s, void **params, void **extra) { STUB; }
