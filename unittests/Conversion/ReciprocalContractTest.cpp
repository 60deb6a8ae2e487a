//===- ReciprocalContractTest.cpp - x * (1/s) with a correction is x / s --===//
//
// The GPU kernels compute x / scale without a division (QDQArithmetic.h):
//   y = clamp(RN(x * r), -2^30, 2^30), r = RN(1/s);  q = fma(fma(-y, s, x), r, y)
// and must quantize exactly as the CPU path's division does. This replays
// that sequence of IEEE operations (the PTX is mul.rn, fma.rn, cvt.rni, see
// test/Conversion/QuantQDQToGPU/ptx.mlir) against the division, on the
// inputs where rounding is decided: every float x near a tie, for many
// scales, every x of a wide band for one scale, and random pairs.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

namespace {
float bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// NaN-propagating min/max, as arith.minimumf/maximumf.
float maximum(float a, float b) { return std::isnan(a) ? a : (a > b ? a : b); }
float minimum(float a, float b) { return std::isnan(a) ? a : (a < b ? a : b); }

float quotientByReciprocal(float x, float s, float r) {
  volatile float product = x * r; // no contraction into an fma
  float y = minimum(maximum(product, -0x1p30f), 0x1p30f);
  float e = std::fma(-y, s, x);
  return std::fma(e, r, y);
}

/// fake_quant of x (narrow int8, zero point 0) with quotient `q`.
float fakeQuant(float x, float quotient, float s) {
  float shifted = std::nearbyint(quotient) + 0.0f;
  float clamped = minimum(maximum(shifted, -127.0f), 127.0f);
  if (std::isnan(x))
    clamped = 0.0f;
  volatile float centered = clamped - 0.0f;
  return centered * s;
}

/// Whether x quantizes identically both ways; on a mismatch, says where.
::testing::AssertionResult agrees(float x, float s) {
  float r = 1.0f / s;
  volatile float division = x / s;
  float reciprocal = quotientByReciprocal(x, s, r);
  float a = fakeQuant(x, division, s), b = fakeQuant(x, reciprocal, s);
  bool sameQ = bitsOf(a) == bitsOf(b) || (std::isnan(a) && std::isnan(b));
  // Where the rounding is decided, the quotient itself is correctly rounded.
  float mag = std::fabs(division);
  bool exactBand = mag <= 0x1p30f && std::fabs(x) >= 0x1p-100f;
  bool sameQuotient = !exactBand || bitsOf(division) == bitsOf(reciprocal);
  if (sameQ && sameQuotient)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "x=" << x << " s=" << s << " x/s=" << division
         << " reciprocal form=" << reciprocal;
}

float randomScale(std::mt19937 &rng) {
  std::uniform_real_distribution<float> exponent(-100.0f, 100.0f);
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  return std::ldexp(mantissa(rng), int(exponent(rng)));
}
} // namespace

TEST(ReciprocalContract, TiesForManyScales) {
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    float s = i < 4 ? (float[]){0.0472f, 1.0f / 3.0f, 0x1p-100f, 0x1p100f}[i]
                    : randomScale(rng);
    for (int k = -300; k <= 300; ++k) {
      float tie = float((k + 0.5) * double(s));
      uint32_t u = bitsOf(tie);
      for (int d = -4; d <= 4; ++d)
        ASSERT_TRUE(agrees(bits(u + d), s));
    }
  }
}

TEST(ReciprocalContract, EveryFloatOfABand) {
  // All x with |x / s| in [2^-2, 2^9), both signs: every rounding decision
  // of an 8-bit quantizer, and the saturation edge.
  const float s = 0.0472f;
  uint32_t lo = bitsOf(0x1p-2f * s), hi = bitsOf(0x1p9f * s);
  for (uint32_t u = lo; u < hi; ++u) {
    float x = bits(u);
    if (!agrees(x, s) || !agrees(-x, s))
      FAIL() << agrees(x, s) << agrees(-x, s);
  }
}

TEST(ReciprocalContract, RandomPairsAndSpecials) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<uint32_t> anyBits;
  for (int i = 0; i < 2000000; ++i) {
    float x = bits(anyBits(rng));
    ASSERT_TRUE(agrees(x, randomScale(rng)));
  }
  for (float x : {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 3.4e38f, -3.4e38f,
                  1e-45f, -1e-45f})
    for (float s : {0x1p-100f, 1e-30f, 0.0472f, 1.0f, 1e30f, 0x1p100f})
      EXPECT_TRUE(agrees(x, s));
}
