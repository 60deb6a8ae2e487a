//===- ParallelJIT.h - LLVM optimization and codegen on every core -*- C++ -*-//
//
// mlir::ExecutionEngine hands LLVM one module: its optimizer and code
// generator then run on one core, and for a network that was half of the
// time before the first batch. This JIT splits the translated module into
// one part per thread, by function, and lets ORC optimize and compile the
// parts at once, each in an LLVM context of its own.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_LIB_EXECUTION_PARALLELJIT_H
#define QUANTQDQ_LIB_EXECUTION_PARALLELJIT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/Timing.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"

namespace mlir::quant_qdq {

struct ParallelJITOptions {
  /// LLVM optimization level (the passes; code generation uses the
  /// target's default, as mlir::ExecutionEngine does).
  unsigned optLevel = 3;
  /// Parts the module is split into, compiled by as many threads.
  unsigned threads = 1;
  /// Libraries the code calls into, already loaded into the process.
  ArrayRef<StringRef> sharedLibraries;
  /// Symbols the code reads that the program provides: name, address.
  ArrayRef<std::pair<std::string, const void *>> symbols;
  /// Where translation and compilation report their time, or nothing.
  TimingScope *timing = nullptr;
};

/// An LLVM dialect module compiled to machine code in this process, whose
/// entry is called with MLIR's packed convention: one pointer per argument
/// of the LLVM function (memrefs expanded), results stored after them.
class ParallelJIT {
public:
  /// Translates `module` (in the LLVM dialect) and compiles it. Errors
  /// (translation, a symbol found nowhere) are returned as text.
  static llvm::Expected<std::unique_ptr<ParallelJIT>>
  compile(ModuleOp module, StringRef entry, const ParallelJITOptions &options);

  void invokePacked(void **arguments) const { packedEntry(arguments); }

  /// Every compiled function with its address, in no order: for perf maps.
  ArrayRef<std::pair<std::string, uint64_t>> getFunctions() const {
    return functions;
  }

  /// Runs the module's destructors, if its initializers ran.
  ~ParallelJIT();

private:
  ParallelJIT() = default;

  std::unique_ptr<llvm::orc::LLJIT> jit;
  void (*packedEntry)(void **) = nullptr;
  /// Whether the module's initializers ran, so that its destructors must.
  bool initialized = false;
  SmallVector<std::pair<std::string, uint64_t>> functions;
};

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_LIB_EXECUTION_PARALLELJIT_H
