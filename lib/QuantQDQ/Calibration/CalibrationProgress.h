//===- CalibrationProgress.h - progress and ETA of calibration --*- C++ -*-===//
//
// What a long calibration shows while it runs. On a terminal, one line
// redrawn after every batch; in a log or a pipe, a line whenever the model
// compiles for a shape (seconds in which nothing else would show), then a
// line every kLogInterval seconds, so a long calibration shows it is alive
// and a short one adds one line. The rate is measured from the end of the first
// batch of the current pass (the first batch also compiles the model; a
// later pass starts from the previous one's rate), and the ETA covers the
// passes still to come: histogram methods read the data twice.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_LIB_CALIBRATION_CALIBRATIONPROGRESS_H
#define QUANTQDQ_LIB_CALIBRATION_CALIBRATIONPROGRESS_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>

namespace mlir::quant_qdq {

class CalibrationProgress {
public:
  static constexpr double kLogInterval = 10;

  /// Seconds on a monotonic clock.
  using Clock = std::function<double()>;
  static double steadySeconds();

  /// Reports on `os` when `enabled`, redrawing one line when `terminal`;
  /// `total` samples per pass, `passes` passes.
  CalibrationProgress(llvm::raw_ostream &os, bool enabled, bool terminal,
                      int64_t total, int passes, Clock clock = steadySeconds);

  /// Before the first batch of a shape: compiling takes seconds.
  void compiling(StringRef what, ArrayRef<int64_t> shape);

  /// `done` samples of pass `pass` (from 0) are through.
  void update(StringRef what, int pass, int64_t done);

private:
  llvm::raw_ostream &os;
  bool enabled, terminal;
  int64_t total;
  int passes, currentPass = 0;
  Clock clock;
  double start, lastLine, firstTime = 0, lastRate = 0;
  int64_t firstDone = 0;
  bool logged = false;
};

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_LIB_CALIBRATION_CALIBRATIONPROGRESS_H
