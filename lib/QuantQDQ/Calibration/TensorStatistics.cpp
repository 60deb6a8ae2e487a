//===- TensorStatistics.cpp - ranges of a tensor over calibration ---------===//

#include "QuantQDQ/Calibration/TensorStatistics.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::quant_qdq;

void TensorStatistics::observeRange(ArrayRef<float> values) {
  double batchMin = std::numeric_limits<double>::infinity();
  double batchMax = -batchMin;
  uint64_t batchCount = 0;
  for (float v : values) {
    if (std::isnan(v))
      continue;
    batchMin = std::min<double>(batchMin, v);
    batchMax = std::max<double>(batchMax, v);
    ++batchCount;
  }
  observeRange(batchMin, batchMax, batchCount);
}

void TensorStatistics::observeRange(double batchMin, double batchMax,
                                    uint64_t batchCount) {
  if (!(batchMin <= batchMax))
    return; // Nothing but NaNs, or a NaN range.
  min = count ? std::min(min, batchMin) : batchMin;
  max = count ? std::max(max, batchMax) : batchMax;
  count += batchCount;
  absMax = std::max(std::abs(min), std::abs(max));

  lastMin = batchMin;
  lastMax = batchMax;
  if (batches++ == 0) {
    emaMin = batchMin;
    emaMax = batchMax;
  } else {
    emaMin = emaDecay * emaMin + (1 - emaDecay) * batchMin;
    emaMax = emaDecay * emaMax + (1 - emaDecay) * batchMax;
  }
}

std::pair<double, double>
TensorStatistics::getRange(CalibrationMethod method) const {
  switch (method) {
  case CalibrationMethod::LastValue:
    return {lastMin, lastMax};
  case CalibrationMethod::MovingAverage:
    return {emaMin, emaMax};
  default:
    return {min, max};
  }
}

void TensorStatistics::startHistogram(unsigned bins) {
  if (!histogram.empty())
    return;
  histogram.assign(bins, 0);
  histogramMax = getHistogramEdge();
}

double TensorStatistics::getHistogramScale(unsigned bins) const {
  return double(bins) / getHistogramEdge();
}

void TensorStatistics::addHistogramCounts(ArrayRef<int64_t> counts,
                                          unsigned bins) {
  startHistogram(bins);
  for (size_t i = 0; i < counts.size(); ++i)
    histogram[i % bins] += uint64_t(counts[i]);
}

void TensorStatistics::observeHistogram(ArrayRef<float> values,
                                        unsigned bins) {
  startHistogram(bins);
  double scale = getHistogramScale(bins);
  size_t last = histogram.size() - 1;
  for (float v : values) {
    if (std::isnan(v))
      continue;
    double index = std::abs(double(v)) * scale;
    ++histogram[std::min<size_t>(last, size_t(index))];
  }
}

TensorStatistics::AmaxChoice
TensorStatistics::chooseAmax(CalibrationMethod method, unsigned levels,
                             double percentile) const {
  AmaxChoice choice;
  if (method == CalibrationMethod::LastValue ||
      method == CalibrationMethod::MovingAverage) {
    auto [lo, hi] = getRange(method);
    choice.amax = std::max(std::abs(lo), std::abs(hi));
    return choice;
  }
  choice.amax = absMax;
  if (absMax == 0 || histogram.empty())
    return choice;
  switch (method) {
  case CalibrationMethod::Max:
    break;
  case CalibrationMethod::Percentile:
    choice.amax = amaxFromPercentile(percentile);
    break;
  case CalibrationMethod::Entropy: {
    // TensorRT merges into 2^(bits-1) buckets: 128 for int8.
    choice.amax = amaxFromEntropy(levels + 1);
    double clipped = getClippedFraction(choice.amax);
    if (clipped > kMaxEntropyClipping) {
      double bound = amaxFromPercentile(100.0 * (1.0 - kMaxEntropyClipping));
      if (bound > choice.amax) {
        choice.unboundedAmax = choice.amax;
        choice.unboundedClipping = clipped;
        choice.amax = bound;
      }
    }
    break;
  }
  case CalibrationMethod::MSE:
    choice.amax = amaxFromMSE(levels);
    break;
  case CalibrationMethod::LastValue:
  case CalibrationMethod::MovingAverage:
    break; // Chosen above, without a histogram.
  }
  return choice;
}

double TensorStatistics::getClippedFraction(double amax) const {
  uint64_t total = 0, above = 0;
  // Bins that start at or beyond amax hold clipped values.
  size_t first = size_t(std::ceil(amax / binWidth()));
  for (size_t i = 0; i < histogram.size(); ++i) {
    total += histogram[i];
    if (i >= first)
      above += histogram[i];
  }
  return total ? double(above) / double(total) : 0.0;
}

/// The upper edge of the bin where the cumulative count reaches the
/// percentile of all values.
double TensorStatistics::amaxFromPercentile(double percentile) const {
  uint64_t total = 0;
  for (uint64_t c : histogram)
    total += c;
  double target = total * std::clamp(percentile, 0.0, 100.0) / 100.0;
  uint64_t running = 0;
  for (size_t i = 0; i < histogram.size(); ++i) {
    running += histogram[i];
    if (running >= target)
      return (i + 1) * binWidth();
  }
  return histogramMax;
}

/// TensorRT's entropy calibration: for each candidate threshold (a bin
/// edge from `levels` bins on), the histogram below it with the outliers
/// folded into its last bin is the reference P; Q is the histogram below it
/// merged into `levels` buckets and spread back over the non-empty bins of
/// each bucket. The threshold with the least KL(P || Q) wins; of equal
/// ones, the largest.
///
/// As in TensorRT, the first bin counts as its neighbour does: after a
/// ReLU it holds every zero, a spike that would otherwise dominate the
/// divergence and push the threshold down to where the first bucket is
/// narrowest (test/Calibration/methods-reference.mlir: 2.99 where the
/// algorithm picks 18.5).
double TensorStatistics::amaxFromEntropy(unsigned levels) const {
  size_t bins = histogram.size();
  if (bins <= levels)
    return histogramMax;
  std::vector<double> counts(histogram.begin(), histogram.end());
  counts[0] = counts[1];
  double bestDivergence = std::numeric_limits<double>::infinity();
  size_t bestEnd = bins;
  std::vector<double> p, q, sums;
  std::vector<size_t> nonEmpty;
  double tail = 0; // values at or above the candidate threshold
  for (size_t i = levels; i < bins; ++i)
    tail += counts[i];
  for (size_t end = levels; end <= bins; ++end) {
    if (end > levels)
      tail -= counts[end - 1];
    p.assign(counts.begin(), counts.begin() + end);
    p.back() += tail;

    // Q is what `levels` buckets keep of the values below the threshold
    // (outliers excluded: clipping them is the error being weighed). Bin i
    // falls in bucket floor(i * levels / end), TensorRT's split of [0, end)
    // into `levels` equal parts.
    q.assign(end, 0.0);
    sums.assign(levels, 0.0);
    nonEmpty.assign(levels, 0);
    for (size_t i = 0; i < end; ++i) {
      size_t bucket = i * levels / end;
      sums[bucket] += counts[i];
      nonEmpty[bucket] += counts[i] != 0;
    }
    for (size_t i = 0; i < end; ++i)
      if (counts[i] != 0) {
        size_t bucket = i * levels / end;
        q[i] = sums[bucket] / nonEmpty[bucket];
      }

    double pTotal = 0, qTotal = 0;
    for (size_t i = 0; i < end; ++i) {
      pTotal += p[i];
      qTotal += q[i];
    }
    if (pTotal == 0 || qTotal == 0)
      continue;
    double divergence = 0;
    bool infinite = false;
    for (size_t i = 0; i < end && !infinite; ++i) {
      if (p[i] == 0)
        continue;
      if (q[i] == 0)
        infinite = true;
      else
        divergence +=
            p[i] / pTotal * std::log((p[i] / pTotal) / (q[i] / qTotal));
    }
    if (!infinite && divergence <= bestDivergence) {
      bestDivergence = divergence;
      bestEnd = end;
    }
  }
  return bestEnd * binWidth();
}

/// The threshold (a bin edge) that minimizes the mean squared error of
/// fake-quantizing the histogram's bin centres with scale amax / levels.
double TensorStatistics::amaxFromMSE(unsigned levels) const {
  size_t bins = histogram.size();
  double bestError = std::numeric_limits<double>::infinity();
  double bestAmax = histogramMax;
  double width = binWidth();
  for (size_t end = std::min<size_t>(levels, bins); end <= bins; ++end) {
    double amax = end * width;
    double scale = amax / levels;
    double error = 0;
    for (size_t i = 0; i < bins; ++i) {
      if (!histogram[i])
        continue;
      double centre = (i + 0.5) * width;
      double q = std::min<double>(std::nearbyint(centre / scale), levels);
      double diff = centre - q * scale;
      error += histogram[i] * diff * diff;
    }
    if (error < bestError) {
      bestError = error;
      bestAmax = amax;
    }
  }
  return bestAmax;
}
