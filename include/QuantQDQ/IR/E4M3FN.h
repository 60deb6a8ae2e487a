//===- E4M3FN.h - FP8 E4M3FN rounding and encoding on the host --*- C++ -*-===//
//
// What an e4m3fn quantizer computes per element, for code that quantizes
// constants on the host (stored FP8 weights). The lowering emits the same
// steps (lib/QuantQDQ/Conversion/QDQArithmetic.cpp), so a stored weight
// equals the weight quantized at run time.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_IR_E4M3FN_H
#define QUANTQDQ_IR_E4M3FN_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace mlir::quant_qdq {

/// The largest finite E4M3FN value.
constexpr float kE4M3FNMax = 448.0f;

/// `v` saturated to [-448, 448] and rounded to the nearest E4M3FN value,
/// ties to even; NaN stays NaN.
inline float roundToE4M3FN(float v) {
  if (std::isnan(v))
    return v;
  v = std::clamp(v, -kE4M3FNMax, kE4M3FNMax);
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  // The step of v's binade: 2^(e - 3), at least the subnormal step 2^-9
  // (121 is the biased f32 exponent of 2^-6).
  int exponent = std::max<int>((bits >> 23) & 0xff, 121) - 127;
  float step = std::ldexp(1.0f, exponent - 3);
  // nearbyint rounds half to even in the default rounding mode.
  return std::nearbyint(v / step) * step;
}

/// The E4M3FN byte of `r`, a value roundToE4M3FN returned.
inline uint8_t encodeE4M3FN(float r) {
  uint32_t bits;
  std::memcpy(&bits, &r, sizeof(bits));
  uint8_t sign = uint8_t((bits >> 24) & 0x80);
  if (std::isnan(r))
    return sign | 0x7f;
  uint32_t exponent = (bits >> 23) & 0xff;
  if (exponent >= 121)
    return sign | uint8_t(((exponent - 120) << 3) | ((bits >> 20) & 7));
  return sign | uint8_t(std::fabs(r) * 512.0f);
}

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_IR_E4M3FN_H
