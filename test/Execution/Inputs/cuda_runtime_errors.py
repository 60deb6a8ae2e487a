# Drives libQuantQDQCUDARuntime.so over a driver whose every call fails (the
# driver stub the runtime links against, loaded first so that it stands for
# libcuda.so.1):
# every mgpu* function returns without crashing, the first failure is kept
# and later calls do nothing, qdqCudaTakeError hands it out once, and calls
# work (here: fail afresh) after it is taken.
#
#   cuda_runtime_errors.py RUNTIME STUB
import ctypes
import sys

runtime_path, stub_path = sys.argv[1:3]
ctypes.CDLL(stub_path, mode=ctypes.RTLD_GLOBAL)
rt = ctypes.CDLL(runtime_path)

P, I8, I16, I32, I64 = (ctypes.c_void_p, ctypes.c_int8, ctypes.c_int16,
                        ctypes.c_int32, ctypes.c_int64)
# The signatures gpu-to-llvm and the gpu.binary translation call.
signatures = {
    "mgpuStreamCreate": (P, []),
    "mgpuStreamDestroy": (None, [P]),
    "mgpuStreamSynchronize": (None, [P]),
    "mgpuStreamWaitEvent": (None, [P, P]),
    "mgpuEventCreate": (P, []),
    "mgpuEventDestroy": (None, [P]),
    "mgpuEventSynchronize": (None, [P]),
    "mgpuEventRecord": (None, [P, P]),
    "mgpuMemAlloc": (P, [I64, P, I8]),
    "mgpuMemFree": (None, [P, P]),
    "mgpuMemcpy": (None, [P, P, I64, P]),
    "mgpuMemset32": (None, [P, I32, I64, P]),
    "mgpuMemset16": (None, [P, I16, I64, P]),
    "mgpuModuleLoad": (P, [P, I64]),
    "mgpuModuleLoadJIT": (P, [P, I32]),
    "mgpuModuleUnload": (None, [P]),
    "mgpuModuleGetFunction": (P, [P, P]),
    "mgpuLaunchKernel": (None, [P, I64, I64, I64, I64, I64, I64, I32, P, P, P,
                                I64]),
    "mgpuSetDefaultDevice": (None, [I32]),
}
for name, (result, args) in signatures.items():
    function = getattr(rt, name)
    function.restype, function.argtypes = result, args
rt.qdqCudaTakeError.restype = ctypes.c_char_p
rt.qdqCudaProbe.restype = ctypes.c_int


def take():
    error = rt.qdqCudaTakeError()
    return error.decode() if error is not None else None


print("initially:", take())

major, minor = ctypes.c_int(-1), ctypes.c_int(-1)
name, error = ctypes.create_string_buffer(64), ctypes.create_string_buffer(256)
status = rt.qdqCudaProbe(ctypes.byref(major), ctypes.byref(minor), name, 64,
                         error, 256)
print("probe:", status, error.value.decode())
print("after probe:", take())

print("stream:", rt.mgpuStreamCreate())
# Handles that a real driver would never accept: nothing may reach it now.
bogus = ctypes.c_void_p(0x10)
buffer = ctypes.create_string_buffer(b"\0" * 64)
print("event:", rt.mgpuEventCreate())
print("alloc:", rt.mgpuMemAlloc(64, bogus, 0))
print("module:", rt.mgpuModuleLoad(buffer, 64))
print("jit module:", rt.mgpuModuleLoadJIT(buffer, 2))
print("function:", rt.mgpuModuleGetFunction(bogus, b"kernel"))
rt.mgpuLaunchKernel(bogus, 1, 1, 1, 32, 1, 1, 0, bogus, None, None, 0)
rt.mgpuMemcpy(bogus, bogus, 64, bogus)
rt.mgpuMemset32(bogus, 7, 16, bogus)
rt.mgpuMemset16(bogus, 7, 32, bogus)
rt.mgpuEventRecord(bogus, bogus)
rt.mgpuStreamWaitEvent(bogus, bogus)
rt.mgpuEventSynchronize(bogus)
rt.mgpuStreamSynchronize(bogus)
rt.mgpuMemFree(bogus, bogus)
rt.mgpuEventDestroy(bogus)
rt.mgpuStreamDestroy(bogus)
rt.mgpuModuleUnload(bogus)
rt.mgpuSetDefaultDevice(1)
print("first error:", take())
print("then:", take())

# Releasing what was never made records nothing.
rt.mgpuMemFree(None, None)
rt.mgpuStreamDestroy(None)
rt.mgpuEventDestroy(None)
rt.mgpuModuleUnload(None)
print("null releases:", take())

# Taken, the error no longer blocks: the next call tries the driver again.
print("alloc again:", rt.mgpuMemAlloc(64, None, 0))
print("next error:", take())
print("jit module again:", rt.mgpuModuleLoadJIT(buffer, 9))
print("jit error:", take())
