//===- RangeSelection.h - activation ranges chosen by output error -*- C++
//-*-===//
//
// Calibration's `method=auto`, and the check that keeps a histogram method
// from collapsing a network: each activation's range is the one, among
// what max, percentile, entropy and MSE would choose, that costs the
// network's output least on the data, among the other tensors' choices. The
// network compiles once, its ranges switched by an input (QuantizationSites).
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_LIB_CALIBRATION_RANGESELECTION_H
#define QUANTQDQ_LIB_CALIBRATION_RANGESELECTION_H

#include "QuantQDQ/Calibration/Calibration.h"

#include <optional>

namespace mlir::quant_qdq {

/// The largest output SQNR a histogram method may lose against max before
/// its ranges are replaced.
inline constexpr double kMaxLossAgainstMaxDecibels = 0.5;

/// What a range selection measured, on the data it ran.
struct RangeSelection {
  int64_t samples = 0, runs = 0;
  /// Output SQNR with the requested method's ranges and with max's.
  double requestedSQNR = 0, maxSQNR = 0;
  /// With the per-tensor choice, when it was searched.
  std::optional<double> selectedSQNR;
  /// Whether the table changed.
  bool replaced = false;
  /// Whether nothing could be measured: the float network's outputs on the
  /// data hold NaN or infinite values (the table then stays).
  bool unmeasurable = false;
  /// Tensors now at each method's amax, in CalibrationMethod order (max,
  /// percentile, entropy, mse).
  std::array<int64_t, 4> tensorsByMethod{};
};

/// Measures the ranges `table` holds (from `requested`, with `comparisons`
/// saying what every method would choose per tensor) against max's on
/// `dataPaths` (its first `maxSamples` samples; 0: all). With `search`, or
/// when the requested ranges lose more than kMaxLossAgainstMaxDecibels,
/// chooses each eligible tensor's range by output error, one sweep of
/// coordinate descent from max's ranges (so the choice never measures
/// worse than max's): the table's amaxes and the comparisons' chosen
/// methods are updated. Eligible: activations with a
/// symmetric, signed, per-tensor quantizer whose range came from
/// `requested` (not from their own quantizer's method, not from a layer's
/// bounds).
FailureOr<RangeSelection> selectRangesByOutputError(
    ModuleOp module, func::FuncOp entry, ArrayRef<std::string> dataPaths,
    int64_t batchSize, int64_t maxSamples, CalibrationMethod requested,
    bool search, MutableArrayRef<MethodComparison> comparisons,
    CalibrationTable &table);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_LIB_CALIBRATION_RANGESELECTION_H
