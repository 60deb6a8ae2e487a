//===- InsertionCaseRegistry.cpp - cases found by name --------------------===//

#include "QuantQDQ/Transforms/InsertionCases.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/ManagedStatic.h"
#include "llvm/Support/Mutex.h"
#include "llvm/Support/Path.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
struct Registry {
  llvm::sys::SmartMutex<true> mutex;
  llvm::StringMap<InsertionCase> cases;
};
} // namespace

static llvm::ManagedStatic<Registry> registry;

void mlir::quant_qdq::registerInsertionCase(StringRef name,
                                            StringRef description,
                                            InsertionCasePopulateFn populate) {
  llvm::sys::SmartScopedLock<true> lock(registry->mutex);
  registry->cases[name] =
      InsertionCase{name.str(), description.str(), std::move(populate), {}};
}

void mlir::quant_qdq::registerCompositeInsertionCase(
    StringRef name, StringRef description, ArrayRef<StringRef> parts) {
  llvm::sys::SmartScopedLock<true> lock(registry->mutex);
  InsertionCase entry{name.str(), description.str(), nullptr, {}};
  for (StringRef part : parts)
    entry.parts.push_back(part.str());
  registry->cases[name] = std::move(entry);
}

const InsertionCase *mlir::quant_qdq::lookupInsertionCase(StringRef name) {
  llvm::sys::SmartScopedLock<true> lock(registry->mutex);
  auto it = registry->cases.find(name);
  return it == registry->cases.end() ? nullptr : &it->second;
}

SmallVector<std::string> mlir::quant_qdq::getInsertionCaseNames() {
  llvm::sys::SmartScopedLock<true> lock(registry->mutex);
  SmallVector<std::string> names;
  for (const auto &entry : registry->cases)
    names.push_back(entry.getKey().str());
  llvm::sort(names);
  return names;
}

bool mlir::quant_qdq::isInsertionCaseFile(StringRef name) {
  StringRef ext = llvm::sys::path::extension(name);
  return ext == ".pdll" || ext == ".mlir";
}

/// Expands composites depth first; `active` catches a composite that
/// contains itself.
static LogicalResult expand(StringRef name, Location loc,
                            SmallVectorImpl<std::string> &blocks,
                            SmallVectorImpl<std::string> &active) {
  if (isInsertionCaseFile(name)) {
    blocks.push_back(name.str());
    return success();
  }
  const InsertionCase *entry = lookupInsertionCase(name);
  if (!entry)
    return emitError(loc) << "unknown insertion case '" << name
                          << "'; known cases: "
                          << llvm::join(getInsertionCaseNames(), ", ")
                          << " (or a .pdll/.mlir file)";
  if (llvm::is_contained(active, name))
    return emitError(loc) << "insertion case '" << name
                          << "' is made of itself";
  if (entry->populate) {
    if (!llvm::is_contained(blocks, name))
      blocks.push_back(name.str());
    return success();
  }
  active.push_back(name.str());
  for (const std::string &part : entry->parts)
    if (failed(expand(part, loc, blocks, active)))
      return failure();
  active.pop_back();
  return success();
}

LogicalResult
mlir::quant_qdq::expandInsertionCase(StringRef name, Location loc,
                                     SmallVectorImpl<std::string> &blocks) {
  SmallVector<std::string> active;
  return expand(name, loc, blocks, active);
}

LogicalResult
mlir::quant_qdq::applyInsertionCases(ModuleOp module,
                                     ArrayRef<std::string> names,
                                     const CaseOptions &options) {
  MLIRContext *context = module.getContext();
  SmallVector<std::string> blocks;
  for (const std::string &name : names)
    if (failed(expandInsertionCase(name, module.getLoc(), blocks)))
      return failure();

  // A case reports misuse of a native (a record on a non-layer...) as an
  // error diagnostic; the walk itself does not fail.
  bool caseFailed = false;
  ScopedDiagnosticHandler watch(context, [&](Diagnostic &diag) {
    caseFailed |= diag.getSeverity() == DiagnosticSeverity::Error;
    return failure();
  });
  for (const std::string &block : blocks) {
    RewritePatternSet patterns(context);
    if (isInsertionCaseFile(block)) {
      FailureOr<OwningOpRef<ModuleOp>> pdl =
          loadInsertionCaseFile(block, context);
      if (failed(pdl))
        return failure();
      PDLPatternModule pdlModule(std::move(*pdl));
      registerCaseNatives(pdlModule, llvm::sys::path::filename(block),
                          options);
      patterns.add(std::move(pdlModule));
    } else {
      lookupInsertionCase(block)->populate(patterns, block, options);
    }
    walkAndApplyPatterns(module, FrozenRewritePatternSet(std::move(patterns)));
    if (caseFailed)
      return failure();
  }
  return success();
}
