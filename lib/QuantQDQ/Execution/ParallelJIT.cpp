//===- ParallelJIT.cpp - LLVM optimization and codegen on every core ------===//
//
// The module is translated once, then cut by function into parts of about
// equal instruction counts (a network's layers are functions of their own:
// qdq-outline-parallel-loops). Locals become external symbols so that a
// part can call a function another part defines, and each part travels as
// bitcode into an LLVM context of its own: ORC optimizes and compiles
// modules of different contexts at once on its thread pool. One lookup of
// every function starts all parts together.
//
// Code generation uses the JIT's default code model, as mlir::ExecutionEngine
// does (on x86-64, the large one): a call or load across parts, or of a
// weight bound in place anywhere in memory, is an absolute address.
//
//===----------------------------------------------------------------------===//

#include "ParallelJIT.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/SectionMemoryManager.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Cloning.h"

using namespace mlir;
using namespace mlir::quant_qdq;
namespace orc = llvm::orc;

/// Adds `void name(ptr args)`, which loads each argument of `entry` through
/// the pointer args[i] holds, calls it, and stores a result through
/// args[n]: the convention of mlir::ExecutionEngine's invokePacked.
static void addPackedWrapper(llvm::Function &entry, StringRef name) {
  llvm::Module &module = *entry.getParent();
  llvm::IRBuilder<> builder(module.getContext());
  llvm::PointerType *pointer = builder.getPtrTy();
  auto *wrapper = llvm::Function::Create(
      llvm::FunctionType::get(builder.getVoidTy(), {pointer}, false),
      llvm::GlobalValue::ExternalLinkage, name, module);
  builder.SetInsertPoint(
      llvm::BasicBlock::Create(module.getContext(), "entry", wrapper));
  llvm::Value *slots = wrapper->getArg(0);
  auto slot = [&](unsigned i) {
    return builder.CreateLoad(pointer,
                              builder.CreateConstGEP1_64(pointer, slots, i));
  };
  SmallVector<llvm::Value *> arguments;
  for (llvm::Argument &argument : entry.args())
    arguments.push_back(
        builder.CreateLoad(argument.getType(), slot(argument.getArgNo())));
  llvm::CallInst *call = builder.CreateCall(&entry, arguments);
  if (!call->getType()->isVoidTy())
    builder.CreateStore(call, slot(entry.arg_size()));
  builder.CreateRetVoid();
}

/// Assigns each function definition to one of at most `parts` parts,
/// largest first to the part with the fewest instructions so far. Global
/// variables stay undecided: part 0 defines them.
static DenseMap<const llvm::GlobalValue *, unsigned>
partitionFunctions(llvm::Module &module, unsigned parts) {
  SmallVector<std::pair<unsigned, llvm::Function *>> bySize;
  for (llvm::Function &function : module)
    if (!function.isDeclaration())
      bySize.emplace_back(function.getInstructionCount(), &function);
  llvm::stable_sort(bySize, [](auto &a, auto &b) { return a.first > b.first; });
  SmallVector<uint64_t> load(parts, 0);
  DenseMap<const llvm::GlobalValue *, unsigned> partOf;
  for (auto [size, function] : bySize) {
    unsigned lightest = llvm::min_element(load) - load.begin();
    partOf[function] = lightest;
    load[lightest] += size;
  }
  return partOf;
}

/// Whether splitting could break the module: appending globals
/// (constructors, llvm.used) and comdats that every part must see; aliases
/// and ifuncs, which must stay with what they point to; definitions that
/// the optimizer may drop or that may be defined twice (linkonce, weak,
/// available_externally), which another part could not then link to.
static bool mustStayWhole(const llvm::Module &module) {
  if (!module.getComdatSymbolTable().empty() || !module.alias_empty() ||
      !module.ifunc_empty())
    return true;
  return llvm::any_of(module.global_values(),
                      [](const llvm::GlobalValue &value) {
                        return !value.isDeclaration() &&
                               !value.hasExternalLinkage() &&
                               !value.hasLocalLinkage();
                      });
}

/// An LLJIT for the host whose ORC compiles on `threads` threads (none of
/// its own for one), linking into this process's memory.
static llvm::Expected<std::unique_ptr<orc::LLJIT>>
createHostJIT(unsigned threads) {
  auto machine = orc::JITTargetMachineBuilder::detectHost();
  if (!machine)
    return machine.takeError();
  return orc::LLJITBuilder()
      .setJITTargetMachineBuilder(*machine)
      .setNumCompileThreads(threads > 1 ? threads : 0)
      .setObjectLinkingLayerCreator([](orc::ExecutionSession &session) {
        return std::make_unique<orc::RTDyldObjectLinkingLayer>(
            session, [](const llvm::MemoryBuffer &) {
              return std::make_unique<llvm::SectionMemoryManager>();
            });
      })
      .create();
}

namespace {
/// The module in LLVM IR, and what compiling it needs to know once it is
/// split.
struct TranslatedModule {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  /// Every function it defines: all are looked up, which compiles them.
  SmallVector<std::string> names;
  /// What it uses and does not define.
  orc::SymbolLookupSet external;
  /// Whether it has constructors or destructors.
  bool hasInitializers = false;
};
} // namespace

/// Makes every global value of `module` a named symbol that another part
/// can link to, and lists its function definitions in `names` and what it
/// uses without defining in `external`.
static void exposeGlobals(llvm::Module &module, orc::LLJIT &lljit,
                          SmallVectorImpl<std::string> &names,
                          orc::SymbolLookupSet &external) {
  for (llvm::GlobalValue &value : module.global_values()) {
    if (!value.hasName())
      value.setName("__qdq_unnamed");
    // A local called from another part must be a symbol the linker sees;
    // one part gets the same treatment, so that the code does not depend
    // on the number of parts, and every function can be looked up.
    if (value.hasLocalLinkage()) {
      value.setLinkage(llvm::GlobalValue::ExternalLinkage);
      value.setDSOLocal(false);
    }
    auto *function = dyn_cast<llvm::Function>(&value);
    if (function && !function->isDeclaration())
      names.push_back(function->getName().str());
    else if (value.isDeclaration() && !value.use_empty() &&
             !(function && function->isIntrinsic()))
      external.add(lljit.mangleAndIntern(value.getName()),
                   value.hasExternalWeakLinkage()
                       ? orc::SymbolLookupFlags::WeaklyReferencedSymbol
                       : orc::SymbolLookupFlags::RequiredSymbol);
  }
}

/// Translates `module` for `lljit`'s target, with `entry`'s packed wrapper
/// `packedName`, its globals exposed.
static llvm::Expected<TranslatedModule> translate(ModuleOp module,
                                                  StringRef entry,
                                                  StringRef packedName,
                                                  orc::LLJIT &lljit) {
  TranslatedModule result;
  result.context = std::make_unique<llvm::LLVMContext>();
  result.module = translateModuleToLLVMIR(module, *result.context,
                                          module.getName().value_or("qdq"));
  if (!result.module)
    return llvm::createStringError("cannot translate the module to LLVM IR");
  llvm::Module &whole = *result.module;
  whole.setDataLayout(lljit.getDataLayout());
  whole.setTargetTriple(lljit.getTargetTriple());
  llvm::Function *entryFunction = whole.getFunction(entry);
  if (!entryFunction || entryFunction->isDeclaration())
    return llvm::createStringError("no function '%s' to compile",
                                   entry.str().c_str());
  addPackedWrapper(*entryFunction, packedName);
  exposeGlobals(whole, lljit, result.names, result.external);
  result.hasInitializers = whole.getNamedGlobal("llvm.global_ctors") ||
                           whole.getNamedGlobal("llvm.global_dtors");
  return result;
}

/// The translated module in at most `threads` parts of about equal size,
/// each in an LLVM context of its own (it travels there as bitcode); whole
/// for one thread or where splitting could break it.
static llvm::Expected<SmallVector<orc::ThreadSafeModule>>
splitModule(TranslatedModule &translated, unsigned threads) {
  SmallVector<orc::ThreadSafeModule> parts;
  llvm::Module &whole = *translated.module;
  if (threads == 1 || mustStayWhole(whole)) {
    parts.emplace_back(std::move(translated.module),
                       std::move(translated.context));
    return parts;
  }
  unsigned count = std::min<unsigned>(threads, translated.names.size());
  auto partOf = partitionFunctions(whole, count);
  for (unsigned i = 0; i < count; ++i) {
    llvm::ValueToValueMapTy mapping;
    std::unique_ptr<llvm::Module> part =
        llvm::CloneModule(whole, mapping, [&](const llvm::GlobalValue *gv) {
          auto found = partOf.find(gv);
          return found == partOf.end() ? i == 0 : found->second == i;
        });
    SmallVector<char, 0> bitcode;
    llvm::raw_svector_ostream stream(bitcode);
    llvm::WriteBitcodeToFile(*part, stream);
    part.reset();
    auto partContext = std::make_unique<llvm::LLVMContext>();
    auto parsed = llvm::parseBitcodeFile(
        llvm::MemoryBufferRef(StringRef(bitcode.data(), bitcode.size()),
                              "part"),
        *partContext);
    if (!parsed)
      return parsed.takeError();
    parts.emplace_back(std::move(*parsed), std::move(partContext));
  }
  return parts;
}

/// Each part is optimized at `optLevel` on the thread that compiles it.
static void setOptimizer(orc::LLJIT &lljit, unsigned optLevel) {
  std::function<llvm::Error(llvm::Module *)> optimize =
      makeOptimizingTransformer(optLevel, 0, nullptr);
  lljit.getIRTransformLayer().setTransform(
      [optimize](orc::ThreadSafeModule part,
                 orc::MaterializationResponsibility &)
          -> llvm::Expected<orc::ThreadSafeModule> {
        if (llvm::Error error = part.withModuleDo(
                [&](llvm::Module &m) { return optimize(&m); }))
          return std::move(error);
        return std::move(part);
      });
}

/// Makes the libraries and symbols the program provides visible to the
/// code.
static llvm::Error addProvided(orc::LLJIT &lljit,
                               const ParallelJITOptions &options) {
  orc::JITDylib &main = lljit.getMainJITDylib();
  for (StringRef library : options.sharedLibraries) {
    auto generator = orc::DynamicLibrarySearchGenerator::Load(
        library.str().c_str(), lljit.getDataLayout().getGlobalPrefix());
    if (!generator)
      return generator.takeError();
    main.addGenerator(std::move(*generator));
  }
  orc::SymbolMap provided;
  for (const auto &[name, address] : options.symbols)
    provided[lljit.mangleAndIntern(name)] = {
        orc::ExecutorAddr::fromPtr(address), llvm::JITSymbolFlags::Exported};
  return main.define(orc::absoluteSymbols(provided));
}

/// Looks up what the code refers to and does not define where the parts
/// will link, before they compile: a missing symbol is then an error that
/// names it, where a part failing to link would name only the part's
/// functions.
static llvm::Error resolveExternal(orc::LLJIT &lljit,
                                   orc::SymbolLookupSet external) {
  if (external.empty())
    return llvm::Error::success();
  orc::JITDylibSearchOrder linkOrder = lljit.getMainJITDylib().withLinkOrderDo(
      [](const orc::JITDylibSearchOrder &order) { return order; });
  auto resolved =
      lljit.getExecutionSession().lookup(linkOrder, std::move(external));
  if (!resolved)
    return resolved.takeError();
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<ParallelJIT>>
ParallelJIT::compile(ModuleOp module, StringRef entry,
                     const ParallelJITOptions &options) {
  TimingScope noTiming;
  TimingScope &timing = options.timing ? *options.timing : noTiming;
  TimingScope translateTimer = timing.nest("LLVM IR: translation and split");

  unsigned threads = std::max(1u, options.threads);
  auto jit = createHostJIT(threads);
  if (!jit)
    return jit.takeError();
  std::unique_ptr<ParallelJIT> result(new ParallelJIT());
  result->jit = std::move(*jit);
  orc::LLJIT &lljit = *result->jit;

  std::string packedName = ("__qdq_packed_" + entry).str();
  auto translated = translate(module, entry, packedName, lljit);
  if (!translated)
    return translated.takeError();
  auto parts = splitModule(*translated, threads);
  if (!parts)
    return parts.takeError();
  translateTimer.stop();

  setOptimizer(lljit, options.optLevel);
  if (llvm::Error error = addProvided(lljit, options))
    return std::move(error);
  if (llvm::Error error =
          resolveExternal(lljit, std::move(translated->external)))
    return std::move(error);
  for (orc::ThreadSafeModule &part : *parts)
    if (llvm::Error error = lljit.addIRModule(std::move(part)))
      return std::move(error);

  // One lookup of every function compiles all parts together.
  TimingScope compileTimer =
      timing.nest("LLVM: optimization and machine code, " +
                  std::to_string(parts->size()) + " part(s)");
  orc::JITDylib &main = lljit.getMainJITDylib();
  orc::SymbolLookupSet lookups;
  for (const std::string &name : translated->names)
    lookups.add(lljit.mangleAndIntern(name));
  auto found = lljit.getExecutionSession().lookup(
      orc::makeJITDylibSearchOrder(&main,
                                   orc::JITDylibLookupFlags::MatchAllSymbols),
      std::move(lookups));
  if (!found)
    return found.takeError();
  compileTimer.stop();
  // Only where there are constructors or destructors: GPU host code, whose
  // constructors load the kernels; CPU code has none. mlir::ExecutionEngine
  // skips initializers on AArch64, where they crashed (llvm-project issue
  // 71963); here they run, which no AArch64 GPU host (GH200) has tried.
  if (translated->hasInitializers) {
    if (llvm::Error error = lljit.initialize(main))
      return std::move(error);
    result->initialized = true;
  }

  for (const std::string &name : translated->names)
    result->functions.emplace_back(
        name, (*found)[lljit.mangleAndIntern(name)].getAddress().getValue());
  result->packedEntry =
      (*found)[lljit.mangleAndIntern(packedName)]
          .getAddress()
          .toPtr<void (*)(void **)>();
  return result;
}

ParallelJIT::~ParallelJIT() {
  if (initialized)
    llvm::consumeError(jit->deinitialize(jit->getMainJITDylib()));
}
