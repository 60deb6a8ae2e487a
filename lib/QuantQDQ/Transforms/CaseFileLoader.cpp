//===- CaseFileLoader.cpp - user insertion cases read at run time ---------===//
//
// A user case is PDL in MLIR syntax, or PDLL that the `mlir-pdll` tool turns
// into PDL (Debian's MLIR ships the tool but not the PDLL parser library).
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Config.h"
#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/Transforms/InsertionCases.h"
#include "QuantQDQ/Utils/InstallPrefix.h"

#include "mlir/Dialect/PDL/IR/PDL.h"
#include "mlir/Dialect/PDL/IR/PDLOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::quant_qdq;

/// Whether `name` is an op of a dialect this context has or can load.
static bool isKnownOp(StringRef name, MLIRContext *context) {
  return context->getOrLoadDialect(name.split('.').first) &&
         RegisteredOperationName::lookup(name, context);
}

/// The layer ops of the quant_qdq dialect, for a hint.
static std::string getLayerOpNames(MLIRContext *context) {
  SmallVector<StringRef> names;
  for (RegisteredOperationName op : context->getRegisteredOperations())
    if (op.getDialectNamespace() == "quant_qdq" &&
        op.hasInterface<QDQLayerOpInterface>())
      names.push_back(op.getStringRef());
  return llvm::join(names, ", ");
}

namespace {
/// Removes a temporary file when it goes out of scope.
struct TempFile {
  SmallString<128> path;
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};
} // namespace

/// Runs `mlir-pdll -x=mlir` on `path` into `output`. Include paths: the
/// file's folder, QUANTQDQ_PDLL_INCLUDE_PATH (colon-separated), the
/// folders this build was configured with (QuantQDQ and MLIR .td/.pdll) and
/// the include/ installed beside quant-qdq's code (Utils/InstallPrefix).
static LogicalResult compilePDLL(StringRef path, StringRef output,
                                 MLIRContext *context) {
  Location loc = FileLineColLoc::get(context, path, 0, 0);
  SmallVector<StringRef> toolDirs = {QUANTQDQ_LLVM_TOOLS_DIR};
  llvm::ErrorOr<std::string> tool =
      llvm::sys::findProgramByName("mlir-pdll");
  if (!tool)
    tool = llvm::sys::findProgramByName("mlir-pdll", toolDirs);
  if (!tool)
    return emitError(loc) << "reading a .pdll case needs the mlir-pdll tool "
                          << "(Debian package mlir-22-tools); or give the "
                          << "case as PDL: mlir-pdll case.pdll -x=mlir";

  SmallVector<std::string> args = {*tool, path.str(), "-x=mlir", "-o",
                                   output.str()};
  SmallString<128> dir(path);
  llvm::sys::path::remove_filename(dir);
  args.push_back("-I");
  args.push_back(dir.empty() ? "." : dir.str().str());
  SmallVector<StringRef> includes;
  if (const char *env = std::getenv("QUANTQDQ_PDLL_INCLUDE_PATH"))
    StringRef(env).split(includes, ':', -1, /*KeepEmpty=*/false);
  StringRef(QUANTQDQ_PDLL_INCLUDE_DIRS)
      .split(includes, ';', -1, /*KeepEmpty=*/false);
  // A pip install keeps the .td and .pdll files in its prefix's include/.
  std::string installedIncludes;
  if (std::optional<std::string> installed =
          findInstalled("include/QuantQDQ")) {
    installedIncludes = llvm::sys::path::parent_path(*installed).str();
    includes.push_back(installedIncludes);
  }
  for (StringRef include : includes) {
    args.push_back("-I");
    args.push_back(include.str());
  }

  TempFile errors;
  if (llvm::sys::fs::createTemporaryFile("qdq-pdll", "txt", errors.path))
    return emitError(loc) << "cannot create a temporary file";
  SmallVector<StringRef> argRefs(args.begin(), args.end());
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(""),
                                          StringRef(errors.path)};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(*tool, argRefs, std::nullopt,
                                         redirects, /*SecondsToWait=*/60, 0,
                                         &message);
  if (status != 0) {
    auto text = llvm::MemoryBuffer::getFile(errors.path);
    return emitError(loc) << "mlir-pdll could not compile the case:\n"
                          << (text ? (*text)->getBuffer() : StringRef(message));
  }
  return success();
}

FailureOr<OwningOpRef<ModuleOp>>
mlir::quant_qdq::loadInsertionCaseFile(StringRef path, MLIRContext *context) {
  context->loadDialect<pdl::PDLDialect>();
  TempFile compiled;
  StringRef pdlPath = path;
  if (llvm::sys::path::extension(path) == ".pdll") {
    if (!llvm::sys::fs::exists(path))
      return emitError(FileLineColLoc::get(context, path, 0, 0))
             << "cannot read insertion case '" << path << "'";
    if (llvm::sys::fs::createTemporaryFile("qdq-case", "mlir", compiled.path))
      return emitError(UnknownLoc::get(context))
             << "cannot create a temporary file";
    if (failed(compilePDLL(path, compiled.path, context)))
      return failure();
    pdlPath = compiled.path;
  }

  ParserConfig config(context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(pdlPath, config);
  if (!module) {
    if (!llvm::sys::fs::exists(pdlPath))
      emitError(FileLineColLoc::get(context, path, 0, 0))
          << "cannot read insertion case '" << path << "'";
    return failure();
  }

  // Only patterns, and only natives the registry provides: an unknown name
  // would otherwise surface deep inside the PDL bytecode compiler.
  ArrayRef<StringLiteral> natives = getCaseNativeNames();
  bool hasPattern = false;
  WalkResult result = module->walk([&](Operation *op) -> WalkResult {
    StringRef name;
    if (auto constraint = dyn_cast<pdl::ApplyNativeConstraintOp>(op))
      name = constraint.getName();
    else if (auto rewrite = dyn_cast<pdl::ApplyNativeRewriteOp>(op))
      name = rewrite.getName();
    hasPattern |= isa<pdl::PatternOp>(op);
    if (!name.empty() && !llvm::is_contained(natives, name)) {
      op->emitError("unknown native function '")
          << name << "' in insertion case; available: "
          << llvm::join(natives, ", ");
      return WalkResult::interrupt();
    }
    // A misspelt op name would match nothing, silently.
    if (auto operation = dyn_cast<pdl::OperationOp>(op))
      if (std::optional<StringRef> opName = operation.getOpName();
          opName && !isKnownOp(*opName, context)) {
        InFlightDiagnostic diag = op->emitError("unknown op '")
                                  << *opName
                                  << "' in insertion case: it matches nothing";
        if (opName->starts_with("quant_qdq."))
          diag << "; quant_qdq's layers: " << getLayerOpNames(context);
        return WalkResult::interrupt();
      }
    if (op != module->getOperation() && op->getParentOp() == *module &&
        !isa<pdl::PatternOp>(op)) {
      op->emitError("an insertion case file holds only pdl.pattern ops");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  if (!hasPattern)
    return emitError(module->getLoc())
           << "insertion case '" << path << "' holds no pattern";
  return module;
}
