//===- ONNXDiagnostics.cpp - diagnostics that name the ONNX node ----------===//

#include "QuantQDQ/Target/ONNX/ONNXDiagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace mlir::quant_qdq;

StringRef mlir::quant_qdq::getONNXNameInLocation(Location loc) {
  StringRef name;
  // Fused locations (ops merged by a pattern) and call sites hold the name
  // deeper down; the first one found is the op's own.
  loc->walk([&](Location nested) {
    auto named = dyn_cast<NameLoc>(nested);
    auto file = named ? dyn_cast<FileLineColLoc>(named.getChildLoc())
                      : FileLineColLoc();
    if (!file || file.getLine() != 0 || file.getColumn() != 0)
      return WalkResult::advance();
    name = named.getName().strref();
    return WalkResult::interrupt();
  });
  return name;
}

ONNXDiagnosticHandler::ONNXDiagnosticHandler(llvm::SourceMgr &sourceMgr,
                                             MLIRContext *context)
    : SourceMgrDiagnosticHandler(sourceMgr, context) {
  auto &options = llvm::cl::getRegisteredOptions();
  auto printOp = options.find("mlir-print-op-on-diagnostic");
  if (printOp == options.end() || !printOp->second->getNumOccurrences())
    context->printOpOnDiagnostic(false);
  setHandler([this](Diagnostic &diag) {
    StringRef name = getONNXNameInLocation(diag.getLocation());
    std::string message = diag.str();
    if (name.empty() || StringRef(message).contains(("'" + name + "'").str())) {
      emitDiagnostic(diag);
      return success();
    }
    Diagnostic named(diag.getLocation(), diag.getSeverity());
    named << "at '" << name << "': " << message;
    for (Diagnostic &note : diag.getNotes())
      named.attachNote(note.getLocation()) << note.str();
    emitDiagnostic(named);
    return success();
  });
}
