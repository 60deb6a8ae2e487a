//===- NpyFuzzer.cpp - bytes as a .npy array ------------------------------===//
//
// The reader behind qdq-run's inputs and calibration data: any bytes as an
// array. Every element of an array that reads is touched, so that a size
// the header overstates shows as an out-of-bounds read.
//
//===----------------------------------------------------------------------===//

#include "FuzzerSupport.h"
#include "QuantQDQ/Execution/Npy.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::quant_qdq;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const DialectRegistry registry;
  fuzz::QuietContext context(registry);
  llvm::Expected<NpyArray> array = parseNpy(
      llvm::MemoryBuffer::getMemBufferCopy(fuzz::asText(data, size),
                                           "fuzz.npy"),
      "fuzz.npy", context.get());
  if (!array) {
    llvm::consumeError(array.takeError());
    return 0;
  }
  volatile uint8_t sum = 0;
  for (size_t i = 0; i < array->getNumBytes(); ++i)
    sum += array->bytes[i];
  // Slices as calibration batches take them (a zero-size array may declare
  // any number of rows: a few are enough).
  for (int64_t row = 0; !array->shape.empty() &&
                        row < std::min<int64_t>(array->shape[0], 16);
       ++row) {
    NpyArray rowView = array->slice(row, 1);
    for (size_t i = 0; i < rowView.getNumBytes(); ++i)
      sum += rowView.bytes[i];
  }
  return 0;
}
