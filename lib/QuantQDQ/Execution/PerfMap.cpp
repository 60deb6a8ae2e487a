//===- PerfMap.cpp - JIT code's names for perf ----------------------------===//

#include "PerfMap.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

void mlir::quant_qdq::writePerfMap(
    ArrayRef<std::pair<std::string, uint64_t>> functions) {
  SmallVector<std::pair<uint64_t, StringRef>> starts;
  for (const auto &[name, address] : functions)
    starts.emplace_back(address, name);
  llvm::sort(starts);
  std::string path =
      "/tmp/perf-" + std::to_string(llvm::sys::Process::getProcessId()) +
      ".map";
  std::error_code error;
  llvm::raw_fd_ostream map(path, error, llvm::sys::fs::OF_Append);
  if (error)
    return;
  for (auto [i, start] : llvm::enumerate(starts)) {
    uint64_t size = i + 1 < starts.size() ? starts[i + 1].first - start.first
                                          : 1 << 16;
    map << llvm::format("%llx %llx ", start.first, size) << start.second
        << "\n";
  }
}
