//===- CalibrationTableFuzzer.cpp - bytes as a calibration table ----------===//
//
// `--calibrate=load=...`: any bytes as a JSON table and as a TensorRT
// calibration cache.
//
//===----------------------------------------------------------------------===//

#include "FuzzerSupport.h"
#include "QuantQDQ/Calibration/Calibration.h"

using namespace mlir;
using namespace mlir::quant_qdq;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const DialectRegistry registry;
  fuzz::QuietContext context(registry);
  for (bool isJSON : {true, false})
    (void)parseCalibrationTable(fuzz::asText(data, size), "fuzz.table",
                                isJSON, context.get());
  return 0;
}
