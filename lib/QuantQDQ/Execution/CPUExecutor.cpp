//===- CPUExecutor.cpp - run a quant_qdq function on the CPU --------------===//

#include "QuantQDQ/Execution/CPUExecutor.h"
#include "QuantQDQ/Config.h"
#include "QuantQDQ/Conversion/Passes.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/TargetSelect.h"

using namespace mlir;
using namespace mlir::quant_qdq;

/// Whether a function result is a quantize op with unsigned storage, so
/// that its bytes are written as uint8.
static bool isUnsignedResult(Value value) {
  auto quantize = value.getDefiningOp<QuantizeOp>();
  return quantize && !quantize.getQuantizer().getIsSigned();
}

FailureOr<std::unique_ptr<CPUExecutor>>
CPUExecutor::create(OwningOpRef<ModuleOp> module, StringRef entry,
                    ArrayRef<SmallVector<int64_t>> inputShapes,
                    unsigned optLevel) {
  MLIRContext *context = module->getContext();
  auto func = module->lookupSymbol<func::FuncOp>(entry);
  if (!func || func.isExternal())
    return emitError(module->getLoc())
           << "no function '" << entry << "' with a body to run";
  if (failed(specializeInputShapes(func, inputShapes)))
    return failure();
  // Inputs may be mapped read-only files: bufferization must not write
  // into them.
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    func.setArgAttr(i, "bufferization.writable",
                    BoolAttr::get(context, false));

  std::unique_ptr<CPUExecutor> executor(new CPUExecutor());
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

  PassManager pm(context);
  buildCPUPipeline(pm);
  if (failed(pm.run(*module)))
    return failure();

  static bool targetInitialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)targetInitialized;
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  context->appendDialectRegistry(registry);

  ExecutionEngineOptions options;
  options.transformer = makeOptimizingTransformer(optLevel, 0, nullptr);
  StringRef libs[] = {QUANTQDQ_C_RUNNER_UTILS};
  options.sharedLibPaths = libs;
  auto engine = ExecutionEngine::create(*module, options);
  if (!engine)
    return emitError(module->getLoc())
           << "cannot JIT-compile: " << llvm::toString(engine.takeError());
  executor->engine = std::move(*engine);
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

llvm::Error CPUExecutor::run(ArrayRef<const NpyArray *> inputs,
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
  return engine->invokePacked(entry, args);
}
