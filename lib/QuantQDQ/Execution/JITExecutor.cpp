//===- JITExecutor.cpp - run a quant_qdq function, CPU or GPU -------------===//

#include "QuantQDQ/Execution/JITExecutor.h"

#include "BufferPool.h"
#include "ParallelJIT.h"
#include "QuantQDQ/Codegen/Pipelines.h"
#include "QuantQDQ/Config.h"
#include "QuantQDQ/Conversion/Passes.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/Threading.h"
#include "llvm/TargetParser/Host.h"
#include <dlfcn.h>
#include <mutex>

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
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
} // namespace

/// The runtime beside the running program (bin/../lib, in the build tree as
/// in an install), else where this build put it.
static std::string findCUDARuntime() {
  static int anchor;
  std::string program = llvm::sys::fs::getMainExecutable(nullptr, &anchor);
  SmallString<256> path(
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(program)));
  llvm::sys::path::append(path, "lib", "libQuantQDQCUDARuntime.so");
  if (!program.empty() && llvm::sys::fs::exists(path))
    return std::string(path);
  return QUANTQDQ_CUDA_RUNTIME;
}

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

static const CUDARuntime &getCUDARuntime() {
  static const CUDARuntime runtime = [] {
    CUDARuntime rt;
#if QUANTQDQ_HAVE_CUDA_RUNTIME
    rt.path = findCUDARuntime();
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

/// Serializes GPU compilation and runs: the runtime's error slot is
/// process-wide, so one run's failure must not be read by another.
static std::mutex &getCUDAMutex() {
  static std::mutex mutex;
  return mutex;
}

/// The PTX ISA to emit: the pipeline's 8.0, or the first version that knows
/// the chip.
static std::string getPTXFeatures(const CUDADeviceInfo &info) {
  int sm = info.major * 10 + info.minor;
  int ptx = 80;
  switch (sm) {
  case 88:
  case 110:
    ptx = 90;
    break;
  case 100:
  case 101:
    ptx = 86;
    break;
  case 120:
    ptx = 87;
    break;
  case 103:
  case 121:
    ptx = 88;
    break;
  default:
    if (sm > 90)
      ptx = 90;
  }
  return "+ptx" + std::to_string(ptx);
}

/// Whether a function result is a quantize op with unsigned storage, so
/// that its bytes are written as uint8.
static bool isUnsignedResult(Value value) {
  auto quantize = value.getDefiningOp<QuantizeOp>();
  return quantize && !quantize.getQuantizer().getIsSigned();
}

int64_t mlir::quant_qdq::getExecutionThreads() {
  if (const char *env = std::getenv("OMP_NUM_THREADS")) {
    int64_t threads = 0;
    StringRef first = StringRef(env).split(',').first.trim();
    if (!first.getAsInteger(10, threads) && threads > 0)
      return threads;
  }
  return std::max(1u, llvm::hardware_concurrency().compute_thread_count());
}

/// Whether the host has AVX-512's 32 vector registers: room for register
/// tiles of 8 rows (eight independent FMA chains cover the FMA's latency on
/// two units: ResNet-50 at batch 8, 295 to 270 ms a run) and, where there
/// are enough columns, 32 columns (16 FMAs per 2 loads of the panel:
/// ViT-B/16 at batch 8, 1.15-1.18 to 0.96-0.97 s). AVX2's 16 registers
/// hold a 6 x 16 tile and its operands.
static bool hostHasAVX512() {
  static const bool avx512 =
      llvm::sys::getHostCPUFeatures().lookup("avx512f");
  return avx512;
}

/// The size of the largest cache that the first CPU reports (Linux's
/// sysfs, which a virtual machine fills with its own share), else 0.
static int64_t getLastLevelCacheBytes() {
  static const int64_t bytes = [] {
    int64_t best = 0, bestLevel = 0;
    for (int index = 0;; ++index) {
      std::string dir =
          "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
      auto level = llvm::MemoryBuffer::getFileAsStream(dir + "/level");
      auto size = llvm::MemoryBuffer::getFileAsStream(dir + "/size");
      if (!level || !size)
        break;
      int64_t levelNumber = 0, sizeNumber = 0;
      StringRef text = (*size)->getBuffer().trim();
      if (StringRef((*level)->getBuffer()).trim().getAsInteger(10,
                                                               levelNumber) ||
          text.consumeInteger(10, sizeNumber))
        continue;
      int64_t unit = text.starts_with("K")   ? 1 << 10
                     : text.starts_with("M") ? 1 << 20
                                             : 1;
      if (levelNumber >= bestLevel) {
        bestLevel = levelNumber;
        best = sizeNumber * unit;
      }
    }
    return best;
  }();
  return bytes;
}

/// A symbol the program provides to compiled code: name, address.
using ProvidedSymbol = std::pair<std::string, const void *>;

/// The allocation functions of `buffer-pool` code, served by the pool.
static SmallVector<ProvidedSymbol, 3> getBufferPoolSymbols() {
  return {{"_mlir_memref_to_llvm_alloc",
           reinterpret_cast<const void *>(&buffer_pool::allocate)},
          {"_mlir_memref_to_llvm_aligned_alloc",
           reinterpret_cast<const void *>(&buffer_pool::allocateAligned)},
          {"_mlir_memref_to_llvm_free",
           reinterpret_cast<const void *>(&buffer_pool::release)}};
}

/// The bytes of `value` as the program would load them, in place, or
/// nothing when they are not held contiguously (a splat, packed i1) or not
/// aligned to the element type (which the loads assume).
static std::optional<ArrayRef<char>> getStoredBytes(Attribute value) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements)
    return std::nullopt;
  auto type = cast<ShapedType>(elements.getType());
  unsigned width = type.getElementTypeBitWidth();
  if (width % 8 != 0)
    return std::nullopt;
  size_t elementBytes = width / 8;
  ArrayRef<char> data;
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    data = blob->getData();
  } else if (auto dense = dyn_cast<DenseElementsAttr>(value);
             dense && !dense.isSplat()) {
    data = dense.getRawData();
  } else {
    return std::nullopt;
  }
  if (data.size() != size_t(type.getNumElements()) * elementBytes ||
      reinterpret_cast<uintptr_t>(data.data()) % elementBytes != 0)
    return std::nullopt;
  return data;
}

/// Turns the module's large constant globals (weights) into external
/// declarations and adds to `bound` where their data already lies: in the
/// MLIR context's resource blobs or attribute storage, which outlive the
/// executor. Compiled in, every weight becomes an LLVM constant emitted
/// element by element: 15 of ResNet-18's 16 s of compilation, and a second
/// and third copy of the weights in memory.
static void bindLargeConstants(ModuleOp module,
                               SmallVectorImpl<ProvidedSymbol> &bound) {
  constexpr size_t kMinBytes = 4096;
  module.walk([&](LLVM::GlobalOp global) {
    if (!global.getConstant() || !global.getInitializerRegion().empty())
      return;
    std::optional<ArrayRef<char>> bytes =
        getStoredBytes(global.getValueOrNull());
    if (!bytes || bytes->size() < kMinBytes)
      return;
    global.removeValueAttr();
    global.setLinkage(LLVM::Linkage::External);
    global.removeAlignmentAttr();
    bound.emplace_back(global.getSymName().str(), bytes->data());
  });
}

/// Names the compiled functions (the entry, the functions that hold its
/// parallel loops, and the regions OpenMP outlines from those) in
/// /tmp/perf-<pid>.map, where `perf report` looks for JIT symbols. The JIT
/// does not report code sizes: each function is taken to run up to the
/// next one.
static void
writePerfMap(ArrayRef<std::pair<std::string, uint64_t>> functions) {
  SmallVector<std::pair<uint64_t, StringRef>> starts;
  for (const auto &[name, address] : functions)
    starts.emplace_back(address, name);
  llvm::sort(starts);
  std::string path =
      "/tmp/perf-" + std::to_string(llvm::sys::Process::getProcessId()) +
      ".map";
  std::error_code error;
  llvm::raw_fd_ostream map(path, error, llvm::sys::fs::OF_Append);
  if (error)
    return;
  for (auto [i, start] : llvm::enumerate(starts)) {
    uint64_t size = i + 1 < starts.size() ? starts[i + 1].first - start.first
                                          : 1 << 16;
    map << llvm::format("%llx %llx ", start.first, size) << start.second
        << "\n";
  }
}

FailureOr<std::unique_ptr<JITExecutor>>
JITExecutor::create(OwningOpRef<ModuleOp> module, StringRef entry,
                    ArrayRef<SmallVector<int64_t>> inputShapes,
                    unsigned optLevel) {
  ExecutorOptions options;
  options.optLevel = optLevel;
  return create(std::move(module), entry, inputShapes, options);
}

FailureOr<std::unique_ptr<JITExecutor>>
JITExecutor::create(OwningOpRef<ModuleOp> module, StringRef entry,
                    ArrayRef<SmallVector<int64_t>> inputShapes,
                    const ExecutorOptions &options) {
  MLIRContext *context = module->getContext();
  // The device first: without one there is nothing to compile for.
  std::optional<CUDADeviceInfo> gpu;
  if (options.device == Device::CUDA) {
    auto info = probeCUDADevice();
    if (!info)
      return emitError(module->getLoc())
             << "cannot run on CUDA: " << llvm::toString(info.takeError());
    gpu = std::move(*info);
  }

  auto func = module->lookupSymbol<func::FuncOp>(entry);
  if (!func || func.isExternal())
    return emitError(module->getLoc())
           << "no function '" << entry << "' with a body to run";
  TimingScope noTiming;
  TimingScope &timing = options.timing ? *options.timing : noTiming;
  TimingScope specializeTimer = timing.nest("specialize input shapes");
  if (failed(specializeInputShapes(func, inputShapes)))
    return failure();
  specializeTimer.stop();
  // Inputs may be mapped read-only files: bufferization must not write
  // into them.
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    func.setArgAttr(i, "bufferization.writable",
                    BoolAttr::get(context, false));

  // The function is lowered away below; later errors point at it still.
  Location loc = func.getLoc();
  std::unique_ptr<JITExecutor> executor(new JITExecutor());
  executor->device = options.device;
  executor->entry = entry.str();
  for (Type type : func.getArgumentTypes())
    executor->inputTypes.push_back(cast<RankedTensorType>(type));
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  for (Value result : ret.getOperands()) {
    auto type = dyn_cast<RankedTensorType>(result.getType());
    if (!type || !type.hasStaticShape())
      return func.emitError("results must be tensors of static shape, got ")
             << result.getType();
    executor->resultTypes.push_back(type);
    executor->resultUnsigned.push_back(isUnsignedResult(result));
  }

  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerOpenMPDialectTranslation(registry);
  if (gpu) {
    // Kernels are serialized (NVVM target) in the pipeline, and gpu.binary
    // and launches are translated for the JIT.
    NVVM::registerNVVMTargetInterfaceExternalModels(registry);
    registerGPUDialectTranslation(registry);
    registerNVVMDialectTranslation(registry);
    gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
  }
  context->appendDialectRegistry(registry);

  PassManager pm(context);
  if (gpu) {
    GPUPipelineOptions gpuOptions;
    gpuOptions.chip =
        "sm_" + std::to_string(gpu->major) + std::to_string(gpu->minor);
    gpuOptions.features = getPTXFeatures(*gpu);
    gpuOptions.optLevel = options.optLevel;
    gpuOptions.toolkit = QUANTQDQ_CUDA_TOOLKIT;
    // A cubin from ptxas where the toolkit has one, else PTX for the
    // driver's JIT.
    bool hasPtxas =
        llvm::sys::fs::can_execute(QUANTQDQ_CUDA_TOOLKIT "/bin/ptxas");
    gpuOptions.format = hasPtxas ? "bin" : "isa";
    buildGPUPipeline(pm, gpuOptions);
  } else {
    CPUPipelineOptions cpu;
    cpu.bufferPool = true;
    cpu.threads = getExecutionThreads();
    if (hostHasAVX512()) {
      cpu.tileRows = 8;
      cpu.wideColumns = 32;
    }
    cpu.splitBatchBytes = options.splitBatchBytes >= 0
                              ? options.splitBatchBytes
                              : getLastLevelCacheBytes() / 2;
    buildCPUPipeline(pm, cpu);
  }
  TimingScope pipelineTimer = timing.nest("MLIR pipeline");
  if (options.timing)
    pm.enableTiming(pipelineTimer);
  if (failed(pm.run(*module)))
    return failure();
  pipelineTimer.stop();

  static bool targetInitialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)targetInitialized;

  static const std::string runnerUtils =
      findLLVMRuntimeLibrary("libmlir_c_runner_utils.so");
  static const std::string openMP = findLLVMRuntimeLibrary("libomp.so");
  SmallVector<StringRef, 3> libs = {runnerUtils, openMP};
  if (gpu)
    libs.push_back(getCUDARuntime().path);
  // The JIT only prints why a library did not load and then fails on a
  // missing symbol; the error should name the library.
  for (StringRef lib : libs) {
    std::string error;
    if (!llvm::sys::DynamicLibrary::getPermanentLibrary(lib.str().c_str(),
                                                        &error)
             .isValid())
      return emitError(loc) << "cannot load the runtime library " << lib
                            << ": " << error;
  }
  // Compiled here, not in the first run: a symbol missing from the runtime
  // is an error now, and runs are timed without compilation.
  SmallVector<ProvidedSymbol> symbols = getBufferPoolSymbols();
  if (!gpu)
    bindLargeConstants(*module, symbols);
  ParallelJITOptions jitOptions;
  jitOptions.optLevel = options.optLevel;
  // GPU host code stays whole anyway (its constructors are an appending
  // global): no compile threads for one part.
  jitOptions.threads = gpu ? 1 : getExecutionThreads();
  jitOptions.sharedLibraries = libs;
  jitOptions.symbols = symbols;
  jitOptions.timing = &timing;
  // GPU host code has global constructors, which load the kernels onto the
  // device when the JIT initializes the code: a binary the device rejects
  // fails here rather than in the first run.
  std::unique_lock<std::mutex> cudaLock;
  if (gpu) {
    cudaLock = std::unique_lock<std::mutex>(getCUDAMutex());
    (void)getCUDARuntime().takeError(); // Left by an executor torn down.
  }
  auto compiled = ParallelJIT::compile(*module, entry, jitOptions);
  if (!compiled)
    return emitError(loc) << "cannot JIT-compile: "
                          << llvm::toString(compiled.takeError());
  executor->code = std::move(*compiled);
  if (gpu)
    if (const char *error = getCUDARuntime().takeError()) {
      executor->code.reset(); // Its destructors unload, under the lock.
      (void)getCUDARuntime().takeError();
      return emitError(loc) << "cannot load the GPU kernels: " << error;
    }
  if (std::getenv("QDQ_PERF_MAP"))
    writePerfMap(executor->code->getFunctions());
  return executor;
}

namespace {
/// The expanded form of a memref argument: allocated and aligned pointers,
/// offset, sizes and strides, each addressable for invokePacked.
struct MemRefArgs {
  void *allocated, *aligned;
  int64_t offset = 0;
  SmallVector<int64_t> sizes, strides;

  MemRefArgs(void *data, ArrayRef<int64_t> shape)
      : allocated(data), aligned(data), sizes(shape),
        strides(shape.size(), 1) {
    for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
      strides[d] = strides[d + 1] * shape[d + 1];
  }

  void append(SmallVectorImpl<void *> &args) {
    args.push_back(&allocated);
    args.push_back(&aligned);
    args.push_back(&offset);
    for (int64_t &size : sizes)
      args.push_back(&size);
    for (int64_t &stride : strides)
      args.push_back(&stride);
  }
};
} // namespace

JITExecutor::~JITExecutor() {
  if (device == Device::CUDA && code) {
    // GPU host code's destructors unload the kernels: like every CUDA call
    // here, under the lock, leaving no error for the next run to find.
    std::lock_guard<std::mutex> lock(getCUDAMutex());
    code.reset();
    (void)getCUDARuntime().takeError();
  }
  code.reset();
  buffer_pool::trim();
}

llvm::Error JITExecutor::run(ArrayRef<const NpyArray *> inputs,
                             SmallVectorImpl<NpyArray> &outputs) {
  if (inputs.size() != inputTypes.size())
    return llvm::createStringError("'%s' takes %zu inputs, got %zu",
                                   entry.c_str(), inputTypes.size(),
                                   inputs.size());
  // Descriptors are built before their addresses are taken.
  std::vector<MemRefArgs> memrefs;
  memrefs.reserve(inputs.size() + resultTypes.size());
  for (auto [i, input] : llvm::enumerate(inputs)) {
    RankedTensorType type = inputTypes[i];
    if (input->elementType != type.getElementType() ||
        ArrayRef<int64_t>(input->shape) != type.getShape()) {
      std::string expected, got;
      llvm::raw_string_ostream(expected) << type;
      llvm::raw_string_ostream(got)
          << RankedTensorType::get(input->shape, input->elementType);
      return llvm::createStringError("input #%zu: expected %s, got %s", i,
                                     expected.c_str(), got.c_str());
    }
    // Arguments are compiled as not writable, so mapped files are safe.
    memrefs.emplace_back(input->bytes, input->shape);
  }
  outputs.clear();
  for (auto [type, isUnsigned] : llvm::zip(resultTypes, resultUnsigned))
    outputs.push_back(NpyArray::allocate(type.getElementType(),
                                         type.getShape(), isUnsigned));
  for (NpyArray &out : outputs)
    memrefs.emplace_back(out.bytes, out.shape);
  SmallVector<void *> args;
  for (MemRefArgs &memref : memrefs)
    memref.append(args);
  if (device == Device::CPU) {
    code->invokePacked(args.data());
    return llvm::Error::success();
  }

  const CUDARuntime &runtime = getCUDARuntime();
  std::lock_guard<std::mutex> lock(getCUDAMutex());
  (void)runtime.takeError(); // Left by an executor torn down earlier.
  code->invokePacked(args.data());
  // After an error the runtime did nothing more: the outputs are unfinished.
  if (const char *error = runtime.takeError()) {
    outputs.clear();
    return llvm::createStringError("CUDA: %s", error);
  }
  return llvm::Error::success();
}
