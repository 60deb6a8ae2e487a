//===- TensorStatisticsTest.cpp - calibration methods on known data -------===//

#include "QuantQDQ/Calibration/TensorStatistics.h"

#include "gtest/gtest.h"
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using namespace mlir::quant_qdq;

namespace {
TensorStatistics observe(const std::vector<float> &values) {
  TensorStatistics stats;
  // Two chunks, as calibration streams them.
  size_t half = values.size() / 2;
  stats.observeRange({values.data(), half});
  stats.observeRange({values.data() + half, values.size() - half});
  stats.observeHistogram({values.data(), half}, 2048);
  stats.observeHistogram({values.data() + half, values.size() - half}, 2048);
  return stats;
}

std::vector<float> gaussianWithOutliers() {
  std::mt19937 gen(3);
  std::normal_distribution<float> normal(0, 1);
  std::vector<float> values(200000);
  for (float &v : values)
    v = normal(gen);
  values[17] = 40.0f; // an outlier that max calibration cannot ignore
  return values;
}
} // namespace

TEST(TensorStatistics, RangeIgnoresNaN) {
  TensorStatistics stats;
  std::vector<float> values = {1.0f, NAN, -3.0f, 2.0f};
  stats.observeRange(values);
  EXPECT_EQ(stats.getMin(), -3.0);
  EXPECT_EQ(stats.getMax(), 2.0);
  EXPECT_EQ(stats.getAbsMax(), 3.0);
  EXPECT_EQ(stats.getCount(), 3u);
}

TEST(TensorStatistics, MaxIsTheLargestMagnitude) {
  TensorStatistics stats = observe(gaussianWithOutliers());
  EXPECT_EQ(stats.computeAmax(CalibrationMethod::Max, 127, 99.99), 40.0);
}

TEST(TensorStatistics, PercentileOfUniformData) {
  std::vector<float> values(100000);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = float(i) / values.size() * (i % 2 ? 1 : -1);
  TensorStatistics stats = observe(values);
  EXPECT_NEAR(stats.computeAmax(CalibrationMethod::Percentile, 127, 90.0),
              0.9, 0.002);
  EXPECT_NEAR(stats.computeAmax(CalibrationMethod::Percentile, 127, 100.0),
              1.0, 0.002);
}

// Histograms given as counts of 2048 bins over [0, 2048] (bin i holds
// [i, i + 1)), so that every threshold is an integer and each method's
// choice can be compared exactly with the NumPy reference:
//
//   calibration_reference.py --counts METHOD COUNTS.npy 2048 [BITS]
//
// (test/Calibration/Inputs), COUNTS.npy holding the same counts
// (test/Calibration/counts-reference.test writes them and checks each
// value below).
static TensorStatistics fromCounts(const std::vector<int64_t> &counts) {
  TensorStatistics stats;
  std::vector<float> range = {0.0f, float(counts.size())};
  stats.observeRange(range);
  stats.addHistogramCounts(counts, counts.size());
  return stats;
}

// A bulk decaying by 1/40 a bin (in integers: bin 0 holds 10^6, each bin
// 39/40 of the one before, rounded down, empty from bin 423), 32 bins of
// outliers at [1500, 1532) and the maximum in the last bin.
static std::vector<int64_t> decayWithOutliers() {
  std::vector<int64_t> counts(2048, 0);
  int64_t count = 1000000;
  for (int64_t &c : counts) {
    c = count;
    count = count * 39 / 40;
  }
  for (size_t i = 1500; i < 1532; ++i)
    counts[i] += 50;
  counts[2047] += 1;
  return counts;
}

// Entropy folds the values above each candidate threshold into P's last
// bin (without that, the KL threshold is 129, which clips over 1% of the
// values, and the 99th percentile, 182, bounds it); MSE weighs the
// outliers' clipping error and stays far above the bulk; percentile counts
// them. test/Calibration/counts-reference.test runs the reference on the
// same counts.
TEST(TensorStatistics, HistogramMethodsMatchTheReference) {
  TensorStatistics stats = fromCounts(decayWithOutliers());
  EXPECT_EQ(stats.computeAmax(CalibrationMethod::Entropy, 127, 99.99), 384.0);
  EXPECT_EQ(stats.computeAmax(CalibrationMethod::MSE, 127, 99.99), 1334.0);
  EXPECT_EQ(stats.computeAmax(CalibrationMethod::Percentile, 127, 99.99),
            360.0);
  EXPECT_EQ(stats.computeAmax(CalibrationMethod::Percentile, 127, 90.0),
            91.0);
  // int4: 8 buckets and 7 levels.
  EXPECT_EQ(stats.computeAmax(CalibrationMethod::Entropy, 7, 99.99), 232.0);
  EXPECT_EQ(stats.computeAmax(CalibrationMethod::MSE, 7, 99.99), 196.0);
}

// 100 values in each of the first 128 bins, none above: every threshold
// from 128 on gives Q = P, a divergence of exactly 0, and of equal ones
// the largest wins.
TEST(TensorStatistics, EntropyTieTakesTheLargestThreshold) {
  std::vector<int64_t> counts(2048, 0);
  std::fill(counts.begin(), counts.begin() + 128, 100);
  TensorStatistics stats = fromCounts(counts);
  TensorStatistics::AmaxChoice choice =
      stats.chooseAmax(CalibrationMethod::Entropy, 127, 99.99);
  EXPECT_EQ(choice.amax, 2048.0);
  EXPECT_FALSE(choice.unboundedAmax.has_value());
}

// Uniform data has nothing to clip: entropy keeps (nearly) the full range.
TEST(TensorStatistics, EntropyKeepsUniformRange) {
  std::vector<float> values(100000);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = float(i) / values.size();
  TensorStatistics stats = observe(values);
  EXPECT_GT(stats.computeAmax(CalibrationMethod::Entropy, 127, 99.99), 0.9);
}

// Values in a band far from 0, like the average pool before a classifier:
// the KL criterion alone puts amax at the band's lower edge and clips
// nearly everything; the choice is bounded at the 99th percentile and says
// so.
TEST(TensorStatistics, EntropyNeverCollapsesABand) {
  std::vector<float> values(100000);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = 0.35f + 1.0f * float(i) / values.size();
  TensorStatistics stats = observe(values);
  TensorStatistics::AmaxChoice choice =
      stats.chooseAmax(CalibrationMethod::Entropy, 127, 99.99);
  ASSERT_TRUE(choice.unboundedAmax.has_value());
  EXPECT_LT(*choice.unboundedAmax, 0.5);
  EXPECT_GT(choice.unboundedClipping, 0.5);
  EXPECT_NEAR(choice.amax, 0.35 + 0.99, 0.002);
  EXPECT_LE(stats.getClippedFraction(choice.amax),
            TensorStatistics::kMaxEntropyClipping + 0.001);
}

// The bound leaves a ReLU output alone: its KL threshold clips little.
TEST(TensorStatistics, EntropyBoundLeavesReLUAlone) {
  std::vector<float> values;
  for (float v : gaussianWithOutliers())
    values.push_back(std::max(v, 0.0f));
  TensorStatistics stats = observe(values);
  TensorStatistics::AmaxChoice choice =
      stats.chooseAmax(CalibrationMethod::Entropy, 127, 99.99);
  EXPECT_FALSE(choice.unboundedAmax.has_value());
  EXPECT_LE(stats.getClippedFraction(choice.amax),
            TensorStatistics::kMaxEntropyClipping);
}

TEST(TensorStatistics, AllZerosGiveZeroAmax) {
  TensorStatistics stats = observe(std::vector<float>(1000, 0.0f));
  for (CalibrationMethod method :
       {CalibrationMethod::Max, CalibrationMethod::Entropy,
        CalibrationMethod::MSE, CalibrationMethod::Percentile})
    EXPECT_EQ(stats.computeAmax(method, 127, 99.99), 0.0);
}

// TFMOT's range estimators, worked by hand over three batches with decay
// 0.5: the moving average starts at the first batch's range [1, 2], then
// [0.5*1 + 0.5*-4, 0.5*2 + 0.5*3] = [-1.5, 2.5], then [-0.5, 1.5].
TEST(TensorStatistics, RangeEstimatorsOverBatches) {
  TensorStatistics stats;
  stats.setMovingAverageDecay(0.5);
  std::vector<float> b1{1.0f, 2.0f}, b2{-4.0f, 3.0f}, b3{0.5f, NAN};
  stats.observeRange(b1);
  stats.observeRange(b2);
  stats.observeRange(b3);
  // A batch of nothing but NaNs is no batch.
  std::vector<float> nans{NAN, NAN};
  stats.observeRange(nans);
  EXPECT_EQ(stats.getRange(CalibrationMethod::LastValue),
            std::make_pair(0.5, 0.5));
  EXPECT_EQ(stats.getRange(CalibrationMethod::MovingAverage),
            std::make_pair(-0.5, 1.5));
  EXPECT_EQ(stats.getRange(CalibrationMethod::Max), std::make_pair(-4.0, 3.0));
  EXPECT_EQ(stats.computeAmax(CalibrationMethod::LastValue, 127, 99.99), 0.5);
  EXPECT_EQ(stats.computeAmax(CalibrationMethod::MovingAverage, 127, 99.99),
            1.5);
  EXPECT_EQ(stats.computeAmax(CalibrationMethod::Max, 127, 99.99), 4.0);
  EXPECT_EQ(stats.getCount(), 5u);
  EXPECT_FALSE(TensorStatistics::needsHistogram(CalibrationMethod::LastValue));
  EXPECT_FALSE(
      TensorStatistics::needsHistogram(CalibrationMethod::MovingAverage));
}

// Counts made elsewhere (quant_qdq.histogram in the compiled model, rows of
// bins) at getHistogramScale give the statistics the host's own counting
// gives.
TEST(TensorStatistics, CountsFromTheGraphEqualTheHostsHistogram) {
  std::vector<float> values = gaussianWithOutliers();
  values[5] = NAN;
  TensorStatistics host = observe(values);
  TensorStatistics graph;
  graph.observeRange(values);
  const unsigned bins = 2048;
  double scale = graph.getHistogramScale(bins);
  EXPECT_EQ(scale, bins / 40.0);
  // Two rows, counted as the op specifies.
  std::vector<int64_t> counts(2 * bins, 0);
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::isnan(values[i]))
      continue;
    double position = std::min(std::abs(double(values[i])) * scale,
                               double(bins - 1));
    ++counts[(i < values.size() / 2 ? 0 : bins) + size_t(position)];
  }
  graph.addHistogramCounts(counts, bins);
  for (CalibrationMethod method :
       {CalibrationMethod::Percentile, CalibrationMethod::Entropy,
        CalibrationMethod::MSE})
    EXPECT_EQ(graph.computeAmax(method, 127, 99.9),
              host.computeAmax(method, 127, 99.9));
  EXPECT_EQ(graph.getClippedFraction(3.0), host.getClippedFraction(3.0));
}
