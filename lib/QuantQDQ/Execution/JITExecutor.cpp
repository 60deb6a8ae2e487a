//===- JITExecutor.cpp - run a quant_qdq function, CPU or GPU -------------===//

#include "QuantQDQ/Execution/JITExecutor.h"

#include "BufferPool.h"
#include "CUDARuntimeLoader.h"
#include "HostCPU.h"
#include "ParallelJIT.h"
#include "PerfMap.h"
#include "QuantQDQ/Codegen/Pipelines.h"
#include "QuantQDQ/Config.h"
#include "QuantQDQ/Conversion/Passes.h"
#include "QuantQDQ/IR/QuantQDQOps.h"
#include "RuntimeLibraries.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include <mutex>

using namespace mlir;
using namespace mlir::quant_qdq;

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

/// The GPU to compile for where `device` asks for one: none otherwise.
static FailureOr<std::optional<CUDADeviceInfo>> getTargetGPU(Device device,
                                                             Location loc) {
  if (device != Device::CUDA)
    return std::optional<CUDADeviceInfo>();
  auto info = probeCUDADevice();
  if (!info)
    return emitError(loc) << "cannot run on CUDA: "
                          << llvm::toString(info.takeError());
  return std::optional<CUDADeviceInfo>(std::move(*info));
}

/// `entry` of `module`, its inputs given the static `inputShapes`.
static FailureOr<func::FuncOp>
specializeEntry(ModuleOp module, StringRef entry,
                ArrayRef<SmallVector<int64_t>> inputShapes,
                TimingScope &timing) {
  auto func = module.lookupSymbol<func::FuncOp>(entry);
  if (!func || func.isExternal())
    return emitError(module.getLoc())
           << "no function '" << entry << "' with a body to run";
  TimingScope specializeTimer = timing.nest("specialize input shapes");
  if (failed(specializeInputShapes(func, inputShapes)))
    return failure();
  specializeTimer.stop();
  // Inputs may be mapped read-only files: bufferization must not write
  // into them.
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    func.setArgAttr(i, "bufferization.writable",
                    BoolAttr::get(func.getContext(), false));
  return func;
}

/// The types of what `func` returns, which must be tensors of static shape,
/// and whether each holds unsigned values.
static LogicalResult
collectResultTypes(func::FuncOp func, SmallVectorImpl<RankedTensorType> &types,
                   SmallVectorImpl<bool> &isUnsigned) {
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  for (Value result : ret.getOperands()) {
    auto type = dyn_cast<RankedTensorType>(result.getType());
    if (!type || !type.hasStaticShape())
      return func.emitError("results must be tensors of static shape, got ")
             << result.getType();
    types.push_back(type);
    isUnsigned.push_back(isUnsignedResult(result) ||
                         type.getElementType().isUnsignedInteger());
  }
  return success();
}

/// The translations to LLVM IR of what the pipeline leaves.
static void registerTranslations(MLIRContext *context, bool gpu) {
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
}

/// qdq-gpu-pipeline for the chip of `gpu`.
static void addGPUPipeline(OpPassManager &pm, const CUDADeviceInfo &gpu,
                           unsigned optLevel) {
  GPUPipelineOptions gpuOptions;
  gpuOptions.chip =
      "sm_" + std::to_string(gpu.major) + std::to_string(gpu.minor);
  gpuOptions.features = getPTXFeatures(gpu);
  gpuOptions.optLevel = optLevel;
  gpuOptions.toolkit = QUANTQDQ_CUDA_TOOLKIT;
  // A cubin from ptxas where the toolkit has one, else PTX for the
  // driver's JIT.
  bool hasPtxas =
      llvm::sys::fs::can_execute(QUANTQDQ_CUDA_TOOLKIT "/bin/ptxas");
  gpuOptions.format = hasPtxas ? "bin" : "isa";
  buildGPUPipeline(pm, gpuOptions);
}

/// qdq-cpu-pipeline for the host: its threads, registers and cache.
static void addCPUPipeline(OpPassManager &pm, const ExecutorOptions &options) {
  CPUPipelineOptions cpu;
  cpu.bufferPool = true;
  cpu.threads = getExecutionThreads();
  if (hostHasAVX512()) {
    cpu.tileRows = 8;
    cpu.wideColumns = 32;
    cpu.vectorWidth = 16;
  }
  cpu.splitBatchBytes = options.splitBatchBytes >= 0
                            ? options.splitBatchBytes
                            : getLastLevelCacheBytes() / 2;
  buildCPUPipeline(pm, cpu);
}

/// Lowers `module` to the LLVM dialect, for `gpu` where there is one.
static LogicalResult lowerToLLVM(ModuleOp module,
                                 const ExecutorOptions &options,
                                 const std::optional<CUDADeviceInfo> &gpu,
                                 TimingScope &timing) {
  registerTranslations(module.getContext(), gpu.has_value());
  PassManager pm(module.getContext());
  if (gpu)
    addGPUPipeline(pm, *gpu, options.optLevel);
  else
    addCPUPipeline(pm, options);
  TimingScope pipelineTimer = timing.nest("MLIR pipeline");
  if (options.timing)
    pm.enableTiming(pipelineTimer);
  return pm.run(module);
}

/// Compiles the lowered `module` to machine code calling into `libs`, on
/// every core for the CPU. GPU host code has global constructors, which
/// load the kernels onto the device when the JIT initializes the code: a
/// binary the device rejects fails here rather than in the first run.
static FailureOr<std::unique_ptr<ParallelJIT>>
compileLowered(ModuleOp module, StringRef entry, bool gpu,
               ArrayRef<StringRef> libs, unsigned optLevel, TimingScope &timing,
               Location loc) {
  static bool targetInitialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)targetInitialized;

  SmallVector<ProvidedSymbol> symbols = getBufferPoolSymbols();
  if (!gpu)
    bindLargeConstants(module, symbols);
  ParallelJITOptions jitOptions;
  jitOptions.optLevel = optLevel;
  // GPU host code stays whole anyway (its constructors are an appending
  // global): no compile threads for one part.
  jitOptions.threads = gpu ? 1 : getExecutionThreads();
  jitOptions.sharedLibraries = libs;
  jitOptions.symbols = symbols;
  jitOptions.timing = &timing;
  std::unique_lock<std::mutex> cudaLock;
  if (gpu) {
    cudaLock = std::unique_lock<std::mutex>(getCUDAMutex());
    (void)getCUDARuntime().takeError(); // Left by an executor torn down.
  }
  auto compiled = ParallelJIT::compile(module, entry, jitOptions);
  if (!compiled)
    return emitError(loc) << "cannot JIT-compile: "
                          << llvm::toString(compiled.takeError());
  std::unique_ptr<ParallelJIT> code = std::move(*compiled);
  if (gpu)
    if (const char *error = getCUDARuntime().takeError()) {
      code.reset(); // Its destructors unload, under the lock.
      (void)getCUDARuntime().takeError();
      return emitError(loc) << "cannot load the GPU kernels: " << error;
    }
  return code;
}

FailureOr<std::unique_ptr<JITExecutor>>
JITExecutor::create(OwningOpRef<ModuleOp> module, StringRef entry,
                    ArrayRef<SmallVector<int64_t>> inputShapes,
                    const ExecutorOptions &options) {
  // The device first: without one there is nothing to compile for.
  FailureOr<std::optional<CUDADeviceInfo>> gpu =
      getTargetGPU(options.device, module->getLoc());
  if (failed(gpu))
    return failure();
  TimingScope noTiming;
  TimingScope &timing = options.timing ? *options.timing : noTiming;
  FailureOr<func::FuncOp> func =
      specializeEntry(*module, entry, inputShapes, timing);
  if (failed(func))
    return failure();

  // The function is lowered away below; later errors point at it still.
  Location loc = func->getLoc();
  std::unique_ptr<JITExecutor> executor(new JITExecutor());
  executor->device = options.device;
  executor->entry = entry.str();
  for (Type type : func->getArgumentTypes())
    executor->inputTypes.push_back(cast<RankedTensorType>(type));
  if (failed(collectResultTypes(*func, executor->resultTypes,
                                executor->resultUnsigned)))
    return failure();

  if (failed(lowerToLLVM(*module, options, *gpu, timing)))
    return failure();
  SmallVector<StringRef, 3> libs = getLLVMRuntimeLibraries();
  if (*gpu)
    libs.push_back(getCUDARuntime().path);
  if (failed(loadRuntimeLibraries(libs, loc)))
    return failure();
  // Compiled here, not in the first run: a symbol missing from the runtime
  // is an error now, and runs are timed without compilation.
  FailureOr<std::unique_ptr<ParallelJIT>> code = compileLowered(
      *module, entry, gpu->has_value(), libs, options.optLevel, timing, loc);
  if (failed(code))
    return failure();
  executor->code = std::move(*code);
  if (std::getenv("QDQ_PERF_MAP"))
    writePerfMap(executor->code->getFunctions());
  return executor;
}

FailureOr<std::unique_ptr<JITExecutor>>
JITExecutor::create(OwningOpRef<ModuleOp> module, StringRef entry,
                    ArrayRef<SmallVector<int64_t>> inputShapes,
                    unsigned optLevel) {
  ExecutorOptions options;
  options.optLevel = optLevel;
  return create(std::move(module), entry, inputShapes, options);
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

llvm::Error JITExecutor::run(ArrayRef<NpyArray> inputs,
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
    if (!holdsElementType(input, type.getElementType()) ||
        ArrayRef<int64_t>(input.shape) != type.getShape()) {
      std::string expected, got;
      llvm::raw_string_ostream(expected) << type;
      llvm::raw_string_ostream(got)
          << RankedTensorType::get(input.shape, input.elementType);
      return llvm::createStringError("input #%zu: expected %s, got %s", i,
                                     expected.c_str(), got.c_str());
    }
    // Arguments are compiled as not writable, so mapped files are safe.
    memrefs.emplace_back(input.bytes, input.shape);
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
