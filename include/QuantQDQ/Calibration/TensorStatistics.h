//===- TensorStatistics.h - ranges of a tensor over calibration -*- C++ -*-===//
//
// What calibration learns about one activation tensor, sample after sample,
// in memory that does not grow with the number of samples: its minimum,
// maximum and largest magnitude, the range of the last batch and a moving
// average of the batches' ranges (TFMOT's range estimators), and (in a
// second pass, once the magnitude is known) a histogram of |x|. The
// calibration methods turn these into the amax of a symmetric quantizer.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_CALIBRATION_TENSORSTATISTICS_H
#define QUANTQDQ_CALIBRATION_TENSORSTATISTICS_H

#include "QuantQDQ/IR/QuantQDQAttrs.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace mlir::quant_qdq {

// CalibrationMethod is the dialect's enum (a quantizer may name its own).
// Max is TFMOT's "all values" estimator; LastValue and MovingAverage are its
// other two (the range of the last batch; an exponential moving average of
// the batches' ranges).

class TensorStatistics {
public:
  /// First pass: one batch's values, for the minimum, maximum and largest
  /// magnitude, the last batch's range and the moving average. NaNs are
  /// skipped; a batch of nothing but NaNs is no batch. (Calibration takes
  /// both passes' statistics from the compiled model, below; these two
  /// read values on the host, for other callers and the unit tests.)
  void observeRange(ArrayRef<float> values);
  /// Same, from the batch's minimum and maximum and how many values it
  /// held, computed elsewhere (in the compiled model). A NaN range, which
  /// a NaN among the values gives there, is no batch.
  void observeRange(double batchMin, double batchMax, uint64_t batchCount);
  /// The moving average's decay (TFMOT's default 0.999). Unlike TFMOT,
  /// whose averages start at [-6, 6] and need thousands of training steps
  /// to forget it, the average starts at the first batch's range.
  void setMovingAverageDecay(double decay) { emaDecay = decay; }
  /// Whether a histogram pass is needed: the methods that choose a
  /// threshold inside the range.
  static bool needsHistogram(CalibrationMethod method) {
    return method == CalibrationMethod::Percentile ||
           method == CalibrationMethod::Entropy ||
           method == CalibrationMethod::MSE;
  }
  /// Whether `method`'s range depends on how the data is cut into batches
  /// (TFMOT's per-batch quantizers).
  static bool dependsOnBatches(CalibrationMethod method) {
    return method == CalibrationMethod::LastValue ||
           method == CalibrationMethod::MovingAverage;
  }
  /// The [min, max] range an asymmetric quantizer uses under `method`: the
  /// last batch's, the moving average, or the whole data's.
  std::pair<double, double> getRange(CalibrationMethod method) const;
  /// Second pass: histogram of |x| over [0, absMax] in `bins` bins, set up
  /// on the first call.
  void observeHistogram(ArrayRef<float> values, unsigned bins);
  /// What the second pass multiplies |x| by to find its bin: `bins` over
  /// absMax (over 1 when the first pass saw nothing but zeros).
  double getHistogramScale(unsigned bins) const;
  /// Second pass, from counts made elsewhere (quant_qdq.histogram in the
  /// compiled model, at getHistogramScale(bins)): rows of `bins` counts.
  void addHistogramCounts(ArrayRef<int64_t> counts, unsigned bins);

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
  /// The second pass's histogram, empty, on its first call.
  void startHistogram(unsigned bins);
  /// The histogram's upper edge: absMax, or 1 where the first pass saw
  /// nothing but zeros.
  double getHistogramEdge() const { return absMax > 0 ? absMax : 1.0; }
  double amaxFromPercentile(double percentile) const;
  double amaxFromEntropy(unsigned levels) const;
  double amaxFromMSE(unsigned levels) const;
  double binWidth() const { return histogramMax / histogram.size(); }

  double min = 0, max = 0, absMax = 0;
  uint64_t count = 0;
  double lastMin = 0, lastMax = 0, emaMin = 0, emaMax = 0;
  double emaDecay = 0.999;
  uint64_t batches = 0;
  double histogramMax = 0;
  std::vector<uint64_t> histogram;
};

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_CALIBRATION_TENSORSTATISTICS_H
