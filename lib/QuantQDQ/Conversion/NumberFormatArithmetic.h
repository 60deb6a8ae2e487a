//===- NumberFormatArithmetic.h - what round_to_format computes -*- C++ -*-===//
//
// One definition of round_to_format's element arithmetic, shared by the CPU
// (linalg) and GPU lowerings so that the two agree bit for bit. Values are
// f32 scalars or vectors of f32; other float types are widened by the
// caller and rounded back.
//
//   fixed point <t, f>: clamp(R(x * 2^f), -2^(t-1), 2^(t-1) - 1) * 2^-f,
//       R = round half away from zero, trunc, floor, or stochastic;
//   binary:      x >= 0 ? m : -m
//   ternary:     x > th ? m : x < -th ? -m : 0
//   logarithmic: sign(x) * 2^floor(log2 |x|), on the f32 bits
//   sparse:      |x| < th ? 0 : x
//   half:        f32(f16(x))
//
// NaN stays NaN. Multiplying by 2^f is exact, so only R rounds, except
// where x * 2^f underflows to zero (f < 0, |x * 2^f| < 2^-150): a negative
// x then still floors to -1.
//
// Stochastic rounding rounds up when u < frac(x * 2^f), with u in [0, 1)
// from the element's position p and the format's seed s (SplitMix64's
// finalizer, a counter-based generator, so that CPU and GPU threads agree
// without sharing state):
//   z = mix(s) + (p + 1) * 0x9E3779B97F4A7C15;  u = (mix(z) >> 40) * 2^-24
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_LIB_CONVERSION_NUMBERFORMATARITHMETIC_H
#define QUANTQDQ_LIB_CONVERSION_NUMBERFORMATARITHMETIC_H

#include "QuantQDQ/IR/QuantQDQAttrs.h"
#include "mlir/IR/Builders.h"

namespace mlir::quant_qdq {

/// What a format reads besides the element.
struct NumberFormatInputs {
  /// Ternary without a threshold: 0.7 * mean|x| of the whole tensor, an f32
  /// scalar or a splat of the data's shape.
  Value threshold;
  /// Stochastic rounding: the element's position in the tensor taken flat
  /// (i64, scalar or vector like the data).
  Value position;
};

/// `x` (f32 scalar or vector) rounded onto `format`.
Value emitRoundToFormat(OpBuilder &b, Location loc, Value x,
                        NumberFormatAttr format,
                        const NumberFormatInputs &inputs);

/// 0.7 * mean|x| over all of the float tensor `input`, as an f32 scalar:
/// the threshold of a ternary format that gives none. Emits a linalg
/// reduction on tensors, for the CPU and for the host side of a GPU launch.
Value emitMeanMagnitudeThreshold(OpBuilder &b, Location loc, Value input);

/// SplitMix64's finalizer, on the host: what the generated code applies to
/// the seed.
uint64_t mixSeed(uint64_t seed);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_LIB_CONVERSION_NUMBERFORMATARITHMETIC_H
