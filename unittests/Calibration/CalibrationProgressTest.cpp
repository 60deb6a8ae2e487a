//===- CalibrationProgressTest.cpp - calibration's progress line ----------===//

#include "CalibrationProgress.h"

#include "gtest/gtest.h"

#include <string>

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
/// A progress line on a terminal, with a clock the test sets.
struct Fixture {
  std::string text;
  llvm::raw_string_ostream os{text};
  double now = 100;

  CalibrationProgress make(bool terminal, int64_t total, int passes) {
    return CalibrationProgress(os, /*enabled=*/true, terminal, total, passes,
                               [this] { return now; });
  }
  /// The last line drawn.
  std::string last() {
    std::string line = text.substr(text.rfind('\r') + 1);
    return line.substr(0, line.find_last_not_of(" \n") + 1);
  }
};
} // namespace

TEST(CalibrationProgressTest, RateStartsAfterTheCompilingBatch) {
  Fixture f;
  CalibrationProgress progress = f.make(/*terminal=*/true, 64, 1);
  progress.compiling("calibration", {8, 3, 224, 224});
  EXPECT_EQ(f.last(), "calibration: compiling the model for input "
                      "8x3x224x224...");
  f.now += 12; // the first batch compiles
  progress.update("calibration", 0, 8);
  EXPECT_EQ(f.last(), "calibration: 8/64 samples, the first batch (with "
                      "compiling) in 12.0 s");
  f.now += 1; // 8 samples/s from here
  progress.update("calibration", 0, 16);
  EXPECT_EQ(f.last(), "calibration: 16/64 samples, 8.0 samples/s, ETA 6 s");
}

// A histogram method reads the data twice: the first ETA covers both
// passes (it covered the first only, so it was off by half at best).
TEST(CalibrationProgressTest, EtaCoversTheRemainingPasses) {
  Fixture f;
  CalibrationProgress progress = f.make(/*terminal=*/true, 64, 2);
  f.now += 12;
  progress.update("calibration (ranges)", 0, 8);
  f.now += 1;
  progress.update("calibration (ranges)", 0, 16);
  EXPECT_EQ(f.last(), "calibration (ranges): 16/64 samples, 8.0 samples/s, "
                      "ETA 14 s");
  f.now += 6;
  progress.update("calibration (ranges)", 0, 64);
  // The second pass starts from the first pass's rate, then measures its
  // own from its first batch on.
  f.now += 2;
  progress.update("calibration (histograms)", 1, 8);
  EXPECT_EQ(f.last(), "calibration (histograms): 8/64 samples, 8.0 "
                      "samples/s, ETA 7 s");
  f.now += 2;
  progress.update("calibration (histograms)", 1, 16);
  EXPECT_EQ(f.last(), "calibration (histograms): 16/64 samples, 4.0 "
                      "samples/s, ETA 12 s");
}

// In a log: a line for each shape compiled, then a line every 10 s, and the
// last one only when earlier lines were written.
TEST(CalibrationProgressTest, LogLinesEveryTenSeconds) {
  Fixture f;
  CalibrationProgress progress = f.make(/*terminal=*/false, 30, 1);
  progress.compiling("calibration", {10, 4});
  f.now += 3;
  progress.update("calibration", 0, 10);
  progress.compiling("calibration", {10, 6});
  f.now += 4;
  progress.update("calibration", 0, 20);
  EXPECT_EQ(f.text, "calibration: compiling the model for input 10x4...\n"
                    "calibration: compiling the model for input 10x6...\n");
  f.now += 4;
  progress.update("calibration", 0, 30);
  EXPECT_EQ(f.text, "calibration: compiling the model for input 10x4...\n"
                    "calibration: compiling the model for input 10x6...\n"
                    "calibration: 30/30 samples, 2.5 samples/s, ETA 0 s\n");
}
