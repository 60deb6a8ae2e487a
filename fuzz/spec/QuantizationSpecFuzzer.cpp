//===- QuantizationSpecFuzzer.cpp - bytes as the JSON files passes read ---===//
//
// `insert-qdq{spec=...}` and `insert-number-formats{weights=...}`: any bytes
// as a QuantizationSpec (JSON or YAML) and as a TensorQuant map.
//
//===----------------------------------------------------------------------===//

#include "FuzzerSupport.h"
#include "QuantQDQ/Transforms/NumberFormatMap.h"
#include "QuantQDQ/Transforms/QuantizationSpec.h"

using namespace mlir;
using namespace mlir::quant_qdq;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const DialectRegistry registry;
  fuzz::QuietContext context(registry);
  StringRef text = fuzz::asText(data, size);
  (void)QuantizationSpec::parse(text, "fuzz.json", context.get());
  (void)NumberFormatMap::parseMap(text, "fuzz.json", context.get());
  return 0;
}
