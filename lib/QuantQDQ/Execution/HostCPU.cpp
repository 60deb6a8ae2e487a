//===- HostCPU.cpp - what the CPU pipeline tunes to -----------------------===//

#include "HostCPU.h"
#include "QuantQDQ/Execution/JITExecutor.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Threading.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace mlir::quant_qdq;

int64_t mlir::quant_qdq::getExecutionThreads() {
  if (const char *env = std::getenv("OMP_NUM_THREADS")) {
    int64_t threads = 0;
    StringRef first = StringRef(env).split(',').first.trim();
    if (!first.getAsInteger(10, threads) && threads > 0)
      return threads;
  }
  return std::max(1u, llvm::hardware_concurrency().compute_thread_count());
}

bool mlir::quant_qdq::hostHasAVX512() {
  static const bool avx512 =
      llvm::sys::getHostCPUFeatures().lookup("avx512f");
  return avx512;
}

int64_t mlir::quant_qdq::getLastLevelCacheBytes() {
  static const int64_t bytes = [] {
    int64_t best = 0, bestLevel = 0;
    for (int index = 0;; ++index) {
      std::string dir =
          "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
      auto level = llvm::MemoryBuffer::getFileAsStream(dir + "/level");
      auto size = llvm::MemoryBuffer::getFileAsStream(dir + "/size");
      if (!level || !size)
        break;
      int64_t levelNumber = 0, sizeNumber = 0;
      StringRef text = (*size)->getBuffer().trim();
      if (StringRef((*level)->getBuffer()).trim().getAsInteger(10,
                                                               levelNumber) ||
          text.consumeInteger(10, sizeNumber))
        continue;
      int64_t unit = text.starts_with("K")   ? 1 << 10
                     : text.starts_with("M") ? 1 << 20
                                             : 1;
      if (levelNumber >= bestLevel) {
        bestLevel = levelNumber;
        best = sizeNumber * unit;
      }
    }
    return best;
  }();
  return bytes;
}
