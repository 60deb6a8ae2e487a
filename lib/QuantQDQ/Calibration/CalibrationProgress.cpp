//===- CalibrationProgress.cpp - progress and ETA of calibration ----------===//

#include "CalibrationProgress.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <chrono>
#include <string>

using namespace mlir;
using namespace mlir::quant_qdq;

double CalibrationProgress::steadySeconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

CalibrationProgress::CalibrationProgress(llvm::raw_ostream &os, bool enabled,
                                         bool terminal, int64_t total,
                                         int passes, Clock clock)
    : os(os), enabled(enabled), terminal(terminal), total(total),
      passes(passes), clock(std::move(clock)) {
  start = lastLine = this->clock();
}

void CalibrationProgress::compiling(StringRef what, ArrayRef<int64_t> shape) {
  if (!enabled)
    return;
  os << (terminal ? "\r" : "") << what << ": compiling the model for input "
     << llvm::join(llvm::map_range(
                       shape, [](int64_t d) { return std::to_string(d); }),
                   "x")
     << (terminal ? "...   " : "...\n");
  os.flush();
}

void CalibrationProgress::update(StringRef what, int pass, int64_t done) {
  if (!enabled)
    return;
  double now = clock();
  if (pass != currentPass) {
    currentPass = pass;
    firstDone = 0;
  }
  if (!firstDone) {
    firstDone = done;
    firstTime = now;
  }
  double seconds = now - firstTime;
  // Until a later pass has its own rate, the previous pass's stands in.
  double rate = seconds > 0 ? (done - firstDone) / seconds : lastRate;
  lastRate = rate;
  int64_t left = (total - done) + int64_t(passes - 1 - pass) * total;
  std::string text =
      rate > 0 ? llvm::formatv("{0}: {1}/{2} samples, {3:F1} samples/s, ETA "
                               "{4:F0} s",
                               what, done, total, rate, left / rate)
                     .str()
               : llvm::formatv("{0}: {1}/{2} samples, the first batch "
                               "(with compiling) in {3:F1} s",
                               what, done, total, now - start)
                     .str();
  if (terminal) {
    os << "\r" << text << "   ";
    if (done == total)
      os << "\n";
    os.flush();
    return;
  }
  // The last line only where earlier ones said the run was long.
  if (now - lastLine >= kLogInterval || (done == total && logged)) {
    os << text << "\n";
    os.flush();
    lastLine = now;
    logged = true;
  }
}
