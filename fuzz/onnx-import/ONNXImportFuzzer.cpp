//===- ONNXImportFuzzer.cpp - ONNX bytes through import and export -------===//
//
// Any bytes as an ONNX file: import (parsing, the graph and tensor checks,
// ONNX's checker and inference, the ONNX patterns), and, for a model that
// imports, insertion with the resnet-v1 case and export back to bytes, the
// path of `qdq-opt --insert-qdq=resnet-v1 model.onnx -o out.onnx`. Graphs
// that import are real ONNX graphs, which the MLIR target's text mutations
// rarely reach, so this is where insertion meets odd structure.
//
//===----------------------------------------------------------------------===//

#include "FuzzerSupport.h"
#include "QuantQDQ/Target/ONNX/ONNX.h"
#include "QuantQDQ/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::quant_qdq;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz::QuietContext context(fuzz::getModuleDialects());
  llvm::MemoryBufferRef buffer(fuzz::asText(data, size), "fuzz.onnx");
  OwningOpRef<ModuleOp> module = importONNX(buffer, context.get());
  if (!module)
    return 0;
  PassManager pm(context.get());
  InsertQDQOptions options;
  options.cases = {"resnet-v1"};
  pm.addPass(createInsertQDQ(options));
  if (failed(pm.run(*module)))
    return 0;
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  (void)exportONNX(*module, os);
  return 0;
}
