//===- QDQArithmetic.cpp - the element arithmetic of Q/DQ ops -------------===//

#include "QDQArithmetic.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::quant_qdq;

Value mlir::quant_qdq::floatSplat(OpBuilder &b, Location loc, Type type,
                                  double value) {
  auto attr = b.getFloatAttr(getElementTypeOrSelf(type), value);
  if (auto shaped = dyn_cast<ShapedType>(type))
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(shaped, cast<Attribute>(attr)));
  return arith::ConstantOp::create(b, loc, attr);
}

Value mlir::quant_qdq::f32Splat(OpBuilder &b, Location loc, Type type,
                                double value) {
  return floatSplat(b, loc, type, double(float(value)));
}

Value mlir::quant_qdq::emitQuotient(OpBuilder &b, Location loc, Value x,
                                    const QuantArith &p) {
  if (!p.reciprocal)
    return arith::DivFOp::create(b, loc, x, p.scale);
  Value y = arith::MulFOp::create(b, loc, x, p.reciprocal);
  // Past 2^30 every quantizer saturates; bounding y keeps an overflowing
  // x * r from turning into inf - inf = NaN in the correction.
  Type type = x.getType();
  y = arith::MinimumFOp::create(
      b, loc,
      arith::MaximumFOp::create(b, loc, y, f32Splat(b, loc, type, -0x1p30)),
      f32Splat(b, loc, type, 0x1p30));
  // The correction is computed as -(y * s - x), not x - y * s: the same
  // value rounded once, but a zero correction is then -0, so a zero quotient
  // keeps y's sign, which is x's, as the division's does (-0.0 is FP8's byte
  // 0x80). Integers add the zero point, which makes any zero +0.
  Value negResidual = math::FmaOp::create(b, loc, y, p.scale,
                                          arith::NegFOp::create(b, loc, x));
  return math::FmaOp::create(b, loc,
                             arith::NegFOp::create(b, loc, negResidual),
                             p.reciprocal, y);
}

/// roundeven(x / scale) + zero_point, before saturation.
static Value emitUnclamped(OpBuilder &b, Location loc, Value x,
                           const QuantArith &p) {
  Value rounded = math::RoundEvenOp::create(b, loc, emitQuotient(b, loc, x, p));
  return arith::AddFOp::create(b, loc, rounded, p.zeroPoint);
}

//===----------------------------------------------------------------------===//
// FP8 E4M3FN on f32 bits
//===----------------------------------------------------------------------===//

Type mlir::quant_qdq::withElementType(Type like, Type element) {
  if (auto vector = dyn_cast<VectorType>(like))
    return vector.clone(element);
  return element;
}

Value mlir::quant_qdq::intSplat(OpBuilder &b, Location loc, Type type,
                                int64_t value) {
  auto attr = b.getIntegerAttr(getElementTypeOrSelf(type), value);
  if (auto shaped = dyn_cast<ShapedType>(type))
    return arith::ConstantOp::create(b, loc,
                                     DenseElementsAttr::get(shaped, attr));
  return arith::ConstantOp::create(b, loc, attr);
}

/// The biased f32 exponent of each element of the f32 value `x`.
static Value emitExponent(OpBuilder &b, Location loc, Value bits) {
  Type type = bits.getType();
  Value shifted =
      arith::ShRUIOp::create(b, loc, bits, intSplat(b, loc, type, 23));
  return arith::AndIOp::create(b, loc, shifted, intSplat(b, loc, type, 0xff));
}

/// `y` (|y| <= 448 or NaN) rounded to the nearest E4M3FN value, ties to
/// even: to a multiple of its binade's step, 2^(e - 3) for an exponent e of
/// at least -6 (normal E4M3FN), else the subnormal step 2^-9. Steps and
/// their inverses are powers of two built from exponent bits, so the
/// products are exact.
static Value emitRoundToE4M3FN(OpBuilder &b, Location loc, Value y) {
  Type type = y.getType(), intType = withElementType(type, b.getI32Type());
  Value bits = arith::BitcastOp::create(b, loc, intType, y);
  // 121 is the biased f32 exponent of 2^-6, E4M3FN's smallest normal.
  Value exponent = arith::MaxUIOp::create(b, loc, emitExponent(b, loc, bits),
                                          intSplat(b, loc, intType, 121));
  Value stepExponent =
      arith::SubIOp::create(b, loc, exponent, intSplat(b, loc, intType, 3));
  Value inverseExponent = arith::SubIOp::create(
      b, loc, intSplat(b, loc, intType, 254), stepExponent);
  auto power = [&](Value biased) {
    Value shifted =
        arith::ShLIOp::create(b, loc, biased, intSplat(b, loc, intType, 23));
    return arith::BitcastOp::create(b, loc, type, shifted).getResult();
  };
  Value scaled = arith::MulFOp::create(b, loc, y, power(inverseExponent));
  Value rounded = math::RoundEvenOp::create(b, loc, scaled);
  return arith::MulFOp::create(b, loc, rounded, power(stepExponent));
}

/// The E4M3FN byte (as i32) of `r`, an E4M3FN value held in f32 (or NaN).
static Value emitEncodeE4M3FN(OpBuilder &b, Location loc, Value r) {
  Type type = r.getType(), intType = withElementType(type, b.getI32Type());
  auto c = [&](int64_t v) { return intSplat(b, loc, intType, v); };
  Value bits = arith::BitcastOp::create(b, loc, intType, r);
  Value sign = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, bits, c(24)), c(0x80));
  Value exponent = emitExponent(b, loc, bits);
  // Normal: exponent rebiased from 127 to 7, the top 3 mantissa bits.
  Value mantissa = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, bits, c(20)), c(7));
  Value normal = arith::OrIOp::create(
      b, loc,
      arith::ShLIOp::create(
          b, loc, arith::SubIOp::create(b, loc, exponent, c(120)), c(3)),
      mantissa);
  // Subnormal (and zero): |r| / 2^-9, an integer in [0, 7].
  Value magnitude = math::AbsFOp::create(b, loc, r);
  Value subnormal = arith::FPToSIOp::create(
      b, loc, intType,
      arith::MulFOp::create(b, loc, magnitude, f32Splat(b, loc, type, 512.0)));
  Value isNormal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                         exponent, c(121));
  Value code = arith::SelectOp::create(b, loc, isNormal, normal, subnormal);
  Value isNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, r, r);
  code = arith::SelectOp::create(b, loc, isNan, c(0x7f), code);
  return arith::OrIOp::create(b, loc, code, sign);
}

/// The f32 value of E4M3FN bytes held in i32.
static Value emitDecodeE4M3FN(OpBuilder &b, Location loc, Value code) {
  Type intType = code.getType();
  Type type = withElementType(intType, b.getF32Type());
  auto c = [&](int64_t v) { return intSplat(b, loc, intType, v); };
  Value sign = arith::ShLIOp::create(
      b, loc, arith::AndIOp::create(b, loc, code, c(0x80)), c(24));
  Value exponent = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, code, c(3)), c(0xf));
  Value mantissa = arith::AndIOp::create(b, loc, code, c(7));
  Value normalBits = arith::OrIOp::create(
      b, loc,
      arith::OrIOp::create(
          b, loc, sign,
          arith::ShLIOp::create(
              b, loc, arith::AddIOp::create(b, loc, exponent, c(120)), c(23))),
      arith::ShLIOp::create(b, loc, mantissa, c(20)));
  Value normal = arith::BitcastOp::create(b, loc, type, normalBits);
  Value subnormal = arith::MulFOp::create(
      b, loc, arith::SIToFPOp::create(b, loc, type, mantissa),
      f32Splat(b, loc, type, 0x1p-9));
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, sign, c(0));
  subnormal = arith::SelectOp::create(
      b, loc, negative, arith::NegFOp::create(b, loc, subnormal), subnormal);
  Value isSubnormal =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, exponent, c(0));
  Value value = arith::SelectOp::create(b, loc, isSubnormal, subnormal, normal);
  Value isNan = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      arith::AndIOp::create(b, loc, code, c(0x7f)), c(0x7f));
  return arith::SelectOp::create(
      b, loc, isNan, f32Splat(b, loc, type, std::nan("")), value);
}

//===----------------------------------------------------------------------===//
// Quantize, dequantize, gradient
//===----------------------------------------------------------------------===//

Value mlir::quant_qdq::emitQuantize(OpBuilder &b, Location loc, Value x,
                                    const QuantArith &p) {
  Type type = x.getType();
  if (p.fp8) {
    // minimumf/maximumf propagate NaN: it stays NaN.
    Value quotient = emitQuotient(b, loc, x, p);
    Value saturated = arith::MinimumFOp::create(
        b, loc,
        arith::MaximumFOp::create(b, loc, quotient,
                                  f32Splat(b, loc, type, p.qmin)),
        f32Splat(b, loc, type, p.qmax));
    return emitRoundToE4M3FN(b, loc, saturated);
  }
  Value shifted = emitUnclamped(b, loc, x, p);
  Value lo = f32Splat(b, loc, type, p.qmin);
  Value hi = f32Splat(b, loc, type, p.qmax);
  Value clamped = arith::MinimumFOp::create(
      b, loc, arith::MaximumFOp::create(b, loc, shifted, lo), hi);
  Value isNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
  return arith::SelectOp::create(b, loc, isNan, p.zeroPoint, clamped);
}

Value mlir::quant_qdq::emitDequantize(OpBuilder &b, Location loc, Value q,
                                      const QuantArith &p) {
  Value centered = arith::SubFOp::create(b, loc, q, p.zeroPoint);
  return arith::MulFOp::create(b, loc, centered, p.scale);
}

Value mlir::quant_qdq::emitInRange(OpBuilder &b, Location loc, Value x,
                                   const QuantArith &p) {
  Type type = x.getType();
  // FP8 saturates |x / scale| above 448; rounding never leaves the range.
  Value shifted = p.fp8 ? emitQuotient(b, loc, x, p)
                        : emitUnclamped(b, loc, x, p);
  // Ordered comparisons: false for NaN, so NaN gets no gradient.
  Value aboveMin =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, shifted,
                            f32Splat(b, loc, type, p.qmin));
  Value belowMax =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, shifted,
                            f32Splat(b, loc, type, p.qmax));
  return arith::AndIOp::create(b, loc, aboveMin, belowMax);
}

Value mlir::quant_qdq::toF32(OpBuilder &b, Location loc, Value x) {
  Type element = getElementTypeOrSelf(x.getType());
  if (element.isF32())
    return x;
  Type f32 = withElementType(x.getType(), b.getF32Type());
  // f64 (and wider) is rounded to f32, narrower floats extended exactly.
  if (element.getIntOrFloatBitWidth() > 32)
    return arith::TruncFOp::create(b, loc, f32, x);
  return arith::ExtFOp::create(b, loc, f32, x);
}

Value mlir::quant_qdq::fromF32(OpBuilder &b, Location loc, Value x,
                               Type type) {
  Type element = getElementTypeOrSelf(type);
  if (element.isF32())
    return x;
  if (element.getIntOrFloatBitWidth() > 32)
    return arith::ExtFOp::create(b, loc, type, x);
  return arith::TruncFOp::create(b, loc, type, x);
}

Value mlir::quant_qdq::emitCanonicalNaN(OpBuilder &b, Location loc,
                                        Value value) {
  Value canonical = floatSplat(b, loc, value.getType(),
                               std::numeric_limits<double>::quiet_NaN());
  Value isNan =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, value, value);
  return arith::SelectOp::create(b, loc, isNan, canonical, value);
}

Value mlir::quant_qdq::emitFP8Dequantize(OpBuilder &b, Location loc,
                                         Value value, const QuantArith &p,
                                         Type resultType) {
  return emitCanonicalNaN(
      b, loc, fromF32(b, loc, emitDequantize(b, loc, value, p), resultType));
}

Value mlir::quant_qdq::emitQuantOp(OpBuilder &b, Location loc, QuantOpKind kind,
                                   ValueRange data, const QuantArith &p,
                                   Type resultType) {
  // Storage is signless: an unsigned quantizer's values are unsigned.
  bool isUnsigned = p.qmin >= 0 && !p.fp8;
  switch (kind) {
  case QuantOpKind::Quantize: {
    Value q = emitQuantize(b, loc, toF32(b, loc, data[0]), p);
    if (p.fp8) {
      Value byte = arith::TruncIOp::create(
          b, loc, withElementType(resultType, b.getIntegerType(8)),
          emitEncodeE4M3FN(b, loc, q));
      return arith::BitcastOp::create(b, loc, resultType, byte);
    }
    if (isUnsigned)
      return arith::FPToUIOp::create(b, loc, resultType, q);
    return arith::FPToSIOp::create(b, loc, resultType, q);
  }
  case QuantOpKind::Dequantize: {
    Type storage = data[0].getType();
    Type f32 = withElementType(storage, b.getF32Type());
    if (p.fp8) {
      Value byte = arith::BitcastOp::create(
          b, loc, withElementType(storage, b.getIntegerType(8)), data[0]);
      Value code = arith::ExtUIOp::create(
          b, loc, withElementType(storage, b.getI32Type()), byte);
      return emitFP8Dequantize(b, loc, emitDecodeE4M3FN(b, loc, code), p,
                               resultType);
    }
    Value q = isUnsigned
                  ? arith::UIToFPOp::create(b, loc, f32, data[0]).getResult()
                  : arith::SIToFPOp::create(b, loc, f32, data[0]).getResult();
    return fromF32(b, loc, emitDequantize(b, loc, q, p), resultType);
  }
  case QuantOpKind::FakeQuant: {
    Value q = emitQuantize(b, loc, toF32(b, loc, data[0]), p);
    if (p.fp8)
      return emitFP8Dequantize(b, loc, q, p, resultType);
    return fromF32(b, loc, emitDequantize(b, loc, q, p), resultType);
  }
  case QuantOpKind::FakeQuantGrad: {
    Value inRange = emitInRange(b, loc, toF32(b, loc, data[0]), p);
    return arith::SelectOp::create(b, loc, inRange, data[1],
                                   floatSplat(b, loc, resultType, 0.0));
  }
  }
  llvm_unreachable("unknown Q/DQ op kind");
}
