//===- MLIRFuzzer.cpp - text as a quant_qdq module ------------------------===//
//
// Any text as MLIR with the dialects a quant_qdq module holds: parsing,
// the verifiers of every op, and, for a module that verifies, insertion
// with the resnet-v1 case (which reads every layer's facts) and printing.
//
//===----------------------------------------------------------------------===//

#include "FuzzerSupport.h"
#include "QuantQDQ/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::quant_qdq;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz::QuietContext context(fuzz::getModuleDialects());
  ParserConfig config(context.get());
  // MLIR's lexer reads up to a terminating NUL, as every file it is given
  // (a MemoryBuffer) has: libFuzzer's input has none.
  std::string text(fuzz::asText(data, size));
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(text, config, "fuzz.mlir");
  if (!module)
    return 0;
  PassManager pm(context.get());
  InsertQDQOptions options;
  options.cases = {"resnet-v1"};
  pm.addPass(createInsertQDQ(options));
  (void)pm.run(*module);
  std::string printed;
  llvm::raw_string_ostream os(printed);
  module->print(os);
  return 0;
}
