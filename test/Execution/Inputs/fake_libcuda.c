/* A fake libcuda.so.1 for testing the host side of --device=cuda without a
 * GPU: one "sm_90" device whose memory is host memory and whose kernels do
 * nothing. It defines the driver functions libQuantQDQCUDARuntime.so imports
 * (CUDA 13 names: some carry _v2); a function the runtime starts to use must
 * be added here, or the runtime fails to load.
 *
 *   FAKE_CUDA_LOG=1           logs the calls that matter on stderr
 *   FAKE_CUDA_FAIL=name[:n]   makes the n-th call (default: every call) of
 *                             `name` fail with a result typical of it
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef uint64_t CUdeviceptr;

static void note(const char *format, ...) {
  va_list args;
  if (!getenv("FAKE_CUDA_LOG"))
    return;
  fprintf(stderr, "fake: ");
  va_start(args, format);
  vfprintf(stderr, format, args);
  va_end(args);
  fputc('\n', stderr);
}

/* Whether this call of `name` is to fail. */
static int fails(const char *name) {
  static unsigned calls; /* of the one function named */
  const char *spec = getenv("FAKE_CUDA_FAIL");
  size_t length;
  unsigned nth = 0;
  if (!spec)
    return 0;
  length = strcspn(spec, ":");
  if (length != strlen(name) || strncmp(spec, name, length) != 0)
    return 0;
  if (spec[length] == ':')
    nth = (unsigned)atoi(spec + length + 1);
  return nth == 0 || ++calls == nth;
}

#define FAIL_AS(name, result)                                                  \
  do {                                                                         \
    if (fails(name)) {                                                         \
      note("%s fails", name);                                                  \
      return result;                                                           \
    }                                                                          \
  } while (0)

enum {
  OUT_OF_MEMORY = 2,
  INVALID_IMAGE = 200,
  ILLEGAL_ADDRESS = 700,
  LAUNCH_FAILED = 719,
};

CUresult cuGetErrorName(CUresult result, const char **text) {
  switch (result) {
  case OUT_OF_MEMORY:
    *text = "CUDA_ERROR_OUT_OF_MEMORY";
    return 0;
  case INVALID_IMAGE:
    *text = "CUDA_ERROR_INVALID_IMAGE";
    return 0;
  case ILLEGAL_ADDRESS:
    *text = "CUDA_ERROR_ILLEGAL_ADDRESS";
    return 0;
  case LAUNCH_FAILED:
    *text = "CUDA_ERROR_LAUNCH_FAILED";
    return 0;
  }
  return 1;
}

CUresult cuGetErrorString(CUresult result, const char **text) {
  switch (result) {
  case OUT_OF_MEMORY:
    *text = "out of memory";
    return 0;
  case INVALID_IMAGE:
    *text = "device kernel image is invalid";
    return 0;
  case ILLEGAL_ADDRESS:
    *text = "an illegal memory access was encountered";
    return 0;
  case LAUNCH_FAILED:
    *text = "unspecified launch failure";
    return 0;
  }
  return 1;
}

CUresult cuInit(unsigned flags) {
  note("cuInit");
  return 0;
}
CUresult cuDeviceGet(int *device, int ordinal) {
  *device = ordinal;
  return ordinal == 0 ? 0 : 101; /* CUDA_ERROR_INVALID_DEVICE */
}
CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  /* 75, 76: compute capability major, minor. */
  *value = attribute == 75 ? 9 : 0;
  return 0;
}
CUresult cuDeviceGetName(char *name, int length, int device) {
  snprintf(name, (size_t)length, "Fake GPU");
  return 0;
}
CUresult cuDevicePrimaryCtxRetain(void **context, int device) {
  *context = (void *)0x1;
  return 0;
}
CUresult cuCtxPushCurrent_v2(void *context) { return 0; }
CUresult cuCtxPopCurrent_v2(void **context) {
  *context = (void *)0x1;
  return 0;
}
CUresult cuCtxSynchronize(void) { return 0; }

CUresult cuModuleLoadData(void **module, const void *image) {
  FAIL_AS("cuModuleLoadData", INVALID_IMAGE);
  note("cuModuleLoadData %s",
       memcmp(image, "\177ELF", 4) == 0 ? "ELF" : "not ELF");
  *module = malloc(1);
  return 0;
}
CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned count,
                            int *options, void **values) {
  FAIL_AS("cuModuleLoadDataEx", INVALID_IMAGE);
  note("cuModuleLoadDataEx PTX");
  *module = malloc(1);
  return 0;
}
CUresult cuModuleUnload(void *module) {
  note("cuModuleUnload");
  free(module);
  return 0;
}
CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  *function = module;
  return 0;
}
CUresult cuFuncSetAttribute(void *function, int attribute, int value) {
  return 0;
}
CUresult cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned shared,
                        void *stream, void **params, void **extra) {
  FAIL_AS("cuLaunchKernel", LAUNCH_FAILED);
  note("cuLaunchKernel");
  return 0;
}

CUresult cuStreamCreate(void **stream, unsigned flags) {
  note("cuStreamCreate");
  *stream = malloc(1);
  return 0;
}
CUresult cuStreamDestroy_v2(void *stream) {
  note("cuStreamDestroy");
  free(stream);
  return 0;
}
CUresult cuStreamSynchronize(void *stream) {
  FAIL_AS("cuStreamSynchronize", ILLEGAL_ADDRESS);
  note("cuStreamSynchronize");
  return 0;
}
CUresult cuStreamWaitEvent(void *stream, void *event, unsigned flags) {
  return 0;
}
CUresult cuEventCreate(void **event, unsigned flags) {
  *event = malloc(1);
  return 0;
}
CUresult cuEventDestroy_v2(void *event) {
  free(event);
  return 0;
}
CUresult cuEventRecord(void *event, void *stream) { return 0; }
CUresult cuEventSynchronize(void *event) { return 0; }

CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t bytes) {
  FAIL_AS("cuMemAlloc", OUT_OF_MEMORY);
  *ptr = (CUdeviceptr)(uintptr_t)calloc(1, bytes);
  return 0;
}
CUresult cuMemAllocManaged(CUdeviceptr *ptr, size_t bytes, unsigned flags) {
  *ptr = (CUdeviceptr)(uintptr_t)calloc(1, bytes);
  return 0;
}
CUresult cuMemFree_v2(CUdeviceptr ptr) {
  free((void *)(uintptr_t)ptr);
  return 0;
}
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                       void *stream) {
  memcpy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
  return 0;
}
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned value, size_t count,
                          void *stream) {
  for (size_t i = 0; i < count; ++i)
    ((unsigned *)(uintptr_t)dst)[i] = value;
  return 0;
}
CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short value, size_t count,
                          void *stream) {
  for (size_t i = 0; i < count; ++i)
    ((unsigned short *)(uintptr_t)dst)[i] = value;
  return 0;
}
