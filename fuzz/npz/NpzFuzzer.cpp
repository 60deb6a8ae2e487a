//===- NpzFuzzer.cpp - bytes as a .npz archive ----------------------------===//
//
// The reader behind `--calibrate=feeds.npz` and qdq-run's `--input=x.npz`:
// any bytes as a zip archive of .npy arrays, stored or deflated. Every
// element of every array that reads is touched, so that an entry whose
// sizes overstate its data shows as an out-of-bounds read.
//
//===----------------------------------------------------------------------===//

#include "FuzzerSupport.h"
#include "QuantQDQ/Execution/Npy.h"

using namespace mlir;
using namespace mlir::quant_qdq;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const DialectRegistry registry;
  fuzz::QuietContext context(registry);
  auto arrays = parseNpz(llvm::MemoryBuffer::getMemBufferCopy(
                             fuzz::asText(data, size), "fuzz.npz"),
                         "fuzz.npz", context.get());
  if (!arrays) {
    llvm::consumeError(arrays.takeError());
    return 0;
  }
  volatile uint8_t sum = 0;
  for (const auto &[name, array] : *arrays) {
    sum += name.empty() ? 0 : uint8_t(name[0]);
    for (size_t i = 0; i < array.getNumBytes(); ++i)
      sum += array.bytes[i];
  }
  return 0;
}
