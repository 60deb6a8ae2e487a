//===- TensorStatistics.h - ranges of a tensor over calibration -*- C++ -*-===//
//
// What calibration learns about one activation tensor, sample after sample,
// in memory that does not grow with the number of samples: its minimum,
// maximum and largest magnitude, and (in a second pass, once that magnitude
// is known) a histogram of |x|. The calibration methods turn these into the
// amax of a symmetric quantizer.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_CALIBRATION_TENSORSTATISTICS_H
#define QUANTQDQ_CALIBRATION_TENSORSTATISTICS_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include <cstdint>
#include <vector>

namespace mlir::quant_qdq {

enum class CalibrationMethod { Max, Percentile, Entropy, MSE };

class TensorStatistics {
public:
  /// First pass: minimum, maximum and largest magnitude. NaNs are skipped.
  void observeRange(ArrayRef<float> values);
  /// Whether a histogram pass is needed, i.e. the method is not Max.
  static bool needsHistogram(CalibrationMethod method) {
    return method != CalibrationMethod::Max;
  }
  /// Second pass: histogram of |x| over [0, absMax] in `bins` bins, set up
  /// on the first call.
  void observeHistogram(ArrayRef<float> values, unsigned bins);

  /// The amax a symmetric quantizer with `levels` positive levels (127 for
  /// int8) should use. Percentile takes `percentile` (e.g. 99.99).
  double computeAmax(CalibrationMethod method, unsigned levels,
                     double percentile) const;

  double getMin() const { return min; }
  double getMax() const { return max; }
  double getAbsMax() const { return absMax; }
  uint64_t getCount() const { return count; }

private:
  double amaxFromPercentile(double percentile) const;
  double amaxFromEntropy(unsigned levels) const;
  double amaxFromMSE(unsigned levels) const;
  double binWidth() const { return histogramMax / histogram.size(); }

  double min = 0, max = 0, absMax = 0;
  uint64_t count = 0;
  double histogramMax = 0;
  std::vector<uint64_t> histogram;
};

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_CALIBRATION_TENSORSTATISTICS_H
