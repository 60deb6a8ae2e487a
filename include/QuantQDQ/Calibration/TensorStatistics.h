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
#include <optional>
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

  /// The fraction of the values entropy calibration may clip. TensorRT's
  /// KL criterion collapses a tensor whose values sit in a band far from 0
  /// (the average pool before a classifier: amax at the band's lower edge,
  /// nearly every value clipped); its threshold is raised to the
  /// (1 - kMaxEntropyClipping) percentile when it would clip more.
  static constexpr double kMaxEntropyClipping = 0.01;

  /// An amax and how it was chosen.
  struct AmaxChoice {
    double amax = 0;
    /// Entropy's own threshold when it clipped more than
    /// kMaxEntropyClipping and `amax` is the percentile bound instead.
    std::optional<double> unboundedAmax;
    /// The fraction of values the unbounded threshold clips.
    double unboundedClipping = 0;
  };

  /// The amax a symmetric quantizer with `levels` positive levels (127 for
  /// int8) should use. Percentile takes `percentile` (e.g. 99.99).
  AmaxChoice chooseAmax(CalibrationMethod method, unsigned levels,
                        double percentile) const;
  double computeAmax(CalibrationMethod method, unsigned levels,
                     double percentile) const {
    return chooseAmax(method, levels, percentile).amax;
  }

  /// The fraction of the histogram's values above `amax`, to a bin.
  double getClippedFraction(double amax) const;

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
