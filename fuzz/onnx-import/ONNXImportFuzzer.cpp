//===- ONNXImportFuzzer.cpp - ONNX bytes through import and export -------===//
//
// Any bytes as an ONNX file: import (parsing, the graph and tensor checks,
// ONNX's checker and inference, the ONNX patterns), and, for a model that
// imports, export back to bytes.
//
//===----------------------------------------------------------------------===//

#include "FuzzerSupport.h"
#include "QuantQDQ/Target/ONNX/ONNX.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::quant_qdq;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz::QuietContext context(fuzz::getModuleDialects());
  llvm::MemoryBufferRef buffer(fuzz::asText(data, size), "fuzz.onnx");
  OwningOpRef<ModuleOp> module = importONNX(buffer, context.get());
  if (!module)
    return 0;
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  (void)exportONNX(*module, os);
  return 0;
}
