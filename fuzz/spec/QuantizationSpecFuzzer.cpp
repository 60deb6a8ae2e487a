//===- QuantizationSpecFuzzer.cpp - bytes as a quantization spec ----------===//
//
// `insert-qdq{spec=...}`: any bytes as a QuantizationSpec (JSON or YAML).
//
//===----------------------------------------------------------------------===//

#include "FuzzerSupport.h"
#include "QuantQDQ/Transforms/QuantizationSpec.h"

using namespace mlir;
using namespace mlir::quant_qdq;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const DialectRegistry registry;
  fuzz::QuietContext context(registry);
  (void)QuantizationSpec::parse(fuzz::asText(data, size), "fuzz.json",
                                context.get());
  return 0;
}
