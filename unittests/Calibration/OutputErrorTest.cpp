//===- OutputErrorTest.cpp - an output error and its two halves -----------===//

#include "SiteChoiceRunner.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace mlir::quant_qdq;

namespace {
/// An error whose even batches have noise `even` and odd ones `odd`, each
/// over a signal of 100.
OutputError makeError(double even, double odd) {
  OutputError error;
  error.halfSignal = {100, 100};
  error.halfNoise = {even, odd};
  error.signal = 200;
  error.noise = even + odd;
  error.hasHalves = true;
  return error;
}
} // namespace

TEST(OutputError, WorstHalfIsTheNoisierOne) {
  // 30 dB on the whole (noise 0.2 over 200), 26.99 on the odd half alone.
  OutputError error = makeError(0.0, 0.2);
  EXPECT_NEAR(error.getSQNR(), 30.0, 1e-9);
  EXPECT_NEAR(error.getWorstHalfSQNR(), 10 * std::log10(100 / 0.2), 1e-9);
  EXPECT_LT(error.getWorstHalfSQNR(), 30.0);
}

TEST(OutputError, WithoutHalvesTheWholeCounts) {
  OutputError error = makeError(0.1, 0.1);
  error.hasHalves = false;
  EXPECT_DOUBLE_EQ(error.getWorstHalfSQNR(), error.getSQNR());
  OutputError exact = makeError(0, 0);
  EXPECT_TRUE(std::isinf(exact.getWorstHalfSQNR()));
}
