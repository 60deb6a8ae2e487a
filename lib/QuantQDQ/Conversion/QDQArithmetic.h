//===- QDQArithmetic.h - the element arithmetic of Q/DQ ops -----*- C++ -*-===//
//
// One definition of what quantize, dequantize, fake_quant and its gradient
// compute per element, shared by the CPU (linalg) and GPU lowerings so that
// the two agree bit for bit. Values are f32 scalars or vectors of f32; the
// scale and zero point must have the same type as the data.
//
//   q  = clamp(roundeven(x / scale) + zero_point, qmin, qmax)   (NaN -> zp)
//   y  = (q - zero_point) * scale
//   dx = dy where qmin <= roundeven(x / scale) + zero_point <= qmax, else 0
//
// FP8 (e4m3fn) storage instead saturates x / scale to [-448, 448] and rounds
// it to the nearest E4M3FN value, ties to even (NaN stays NaN), and stores
// that value's byte; the gradient passes where |x / scale| <= 448. LLVM has
// no FP8 arithmetic, so the rounding and the byte encoding are integer and
// f32 operations on the bits.
//
// x / scale is either an IEEE division or, where a reciprocal is given, the
// division-free form (see emitQuotient), which is bit-exact for the range
// kernels accept.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_LIB_CONVERSION_QDQARITHMETIC_H
#define QUANTQDQ_LIB_CONVERSION_QDQARITHMETIC_H

#include "mlir/IR/Builders.h"

namespace mlir::quant_qdq {

struct QuantArith {
  Value scale, zeroPoint;
  /// RN(1 / scale). When null, x / scale is an arith.divf.
  Value reciprocal;
  double qmin = 0, qmax = 0;
  /// Storage is FP8 E4M3FN (qmin/qmax are then -448 and 448).
  bool fp8 = false;
};

/// x / scale. With a reciprocal r = RN(1/s) it is
///   y = clamp(RN(x * r), -2^30, 2^30);  e = fma(-y, s, x);  fma(e, r, y)
/// which is RN(x / s) whenever the residual e is exact (Markstein's
/// theorem): for |x| >= 2^-100 and |x / s| <= 2^30 when s is in
/// [2^-100, 2^100]. Elsewhere the quotient may differ in its last bit but
/// quantizes the same (to 0, or saturated), so quantized results always
/// equal the division's. Kernels take
/// this form only for scales in that range;
/// unittests/Conversion/ReciprocalContractTest.cpp checks it against the
/// division.
Value emitQuotient(OpBuilder &b, Location loc, Value x, const QuantArith &p);
/// The quantized value of `x` as f32 (an integer in [qmin, qmax], or an
/// E4M3FN value for FP8 storage).
Value emitQuantize(OpBuilder &b, Location loc, Value x, const QuantArith &p);
/// (q - zero_point) * scale.
Value emitDequantize(OpBuilder &b, Location loc, Value q, const QuantArith &p);
/// Whether x quantizes without saturating (i1, false for NaN): where the
/// straight-through gradient of fake_quant passes.
Value emitInRange(OpBuilder &b, Location loc, Value x, const QuantArith &p);

/// The four Q/DQ ops, for code that treats them alike.
enum class QuantOpKind { Quantize, Dequantize, FakeQuant, FakeQuantGrad };

/// The result of a Q/DQ op from its data operands (input; and the upstream
/// gradient for FakeQuantGrad), as `resultType`: a scalar or a vector.
/// Floats other than f32 are widened and rounded back; integer storage is
/// read and written unsigned when qmin >= 0. `p` holds f32 values of the
/// data's shape.
Value emitQuantOp(OpBuilder &b, Location loc, QuantOpKind kind, ValueRange data,
                  const QuantArith &p, Type resultType);

/// (value - zero_point) * scale for an E4M3FN `value` held in f32, as
/// `resultType`, NaN canonical (below): FP8 dequantization and the end of
/// FP8 fake quantization, on both devices.
Value emitFP8Dequantize(OpBuilder &b, Location loc, Value value,
                        const QuantArith &p, Type resultType);
/// `value` (a float scalar or vector), with every NaN replaced by the
/// type's canonical quiet NaN: FP8 results are NaN where the input is, and
/// CPUs keep a NaN's sign and payload where GPUs write their own.
Value emitCanonicalNaN(OpBuilder &b, Location loc, Value value);

/// A constant of the float or vector-of-float type `type`, splat if a
/// vector; f32Splat for f32 types, with `value` rounded to f32 first.
Value floatSplat(OpBuilder &b, Location loc, Type type, double value);
Value f32Splat(OpBuilder &b, Location loc, Type type, double value);
/// The same for an integer or vector-of-integer type.
Value intSplat(OpBuilder &b, Location loc, Type type, int64_t value);
/// `element`, or a vector of it of `like`'s shape when `like` is a vector:
/// the scalar and vector forms of a value in another element type.
Type withElementType(Type like, Type element);
/// `x` (any float scalar or vector) as f32, and an f32 value back as `type`.
Value toF32(OpBuilder &b, Location loc, Value x);
Value fromF32(OpBuilder &b, Location loc, Value x, Type type);

/// The smallest and largest scale for which kernels use the reciprocal.
constexpr float kMinReciprocalScale = 0x1p-100f;
constexpr float kMaxReciprocalScale = 0x1p100f;

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_LIB_CONVERSION_QDQARITHMETIC_H
