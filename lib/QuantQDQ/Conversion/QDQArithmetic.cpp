//===- QDQArithmetic.cpp - the element arithmetic of Q/DQ ops -------------===//

#include "QDQArithmetic.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::quant_qdq;

Value mlir::quant_qdq::f32Splat(OpBuilder &b, Location loc, Type type,
                                double value) {
  auto attr = b.getF32FloatAttr(float(value));
  if (auto shaped = dyn_cast<ShapedType>(type))
    return arith::ConstantOp::create(b, loc,
                                     DenseElementsAttr::get(shaped, attr));
  return arith::ConstantOp::create(b, loc, attr);
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
  Value negY = arith::NegFOp::create(b, loc, y);
  Value residual = math::FmaOp::create(b, loc, negY, p.scale, x);
  return math::FmaOp::create(b, loc, residual, p.reciprocal, y);
}

/// roundeven(x / scale) + zero_point, before saturation.
static Value emitUnclamped(OpBuilder &b, Location loc, Value x,
                           const QuantArith &p) {
  Value rounded = math::RoundEvenOp::create(b, loc, emitQuotient(b, loc, x, p));
  return arith::AddFOp::create(b, loc, rounded, p.zeroPoint);
}

Value mlir::quant_qdq::emitQuantize(OpBuilder &b, Location loc, Value x,
                                    const QuantArith &p) {
  Type type = x.getType();
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
  Value shifted = emitUnclamped(b, loc, x, p);
  // Ordered comparisons: false for NaN, so NaN gets no gradient.
  Value aboveMin =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, shifted,
                            f32Splat(b, loc, type, p.qmin));
  Value belowMax =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, shifted,
                            f32Splat(b, loc, type, p.qmax));
  return arith::AndIOp::create(b, loc, aboveMin, belowMax);
}

/// f32 of `type`'s shape.
static Type f32Like(OpBuilder &b, Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.clone(b.getF32Type());
  return b.getF32Type();
}

static Value toF32(OpBuilder &b, Location loc, Value x) {
  if (getElementTypeOrSelf(x.getType()).isF32())
    return x;
  return arith::ExtFOp::create(b, loc, f32Like(b, x.getType()), x);
}

static Value fromF32(OpBuilder &b, Location loc, Value x, Type type) {
  if (getElementTypeOrSelf(type).isF32())
    return x;
  return arith::TruncFOp::create(b, loc, type, x);
}

Value mlir::quant_qdq::emitQuantOp(OpBuilder &b, Location loc, QuantOpKind kind,
                                   ValueRange data, const QuantArith &p,
                                   Type resultType) {
  // Storage is signless: an unsigned quantizer's values are unsigned.
  bool isUnsigned = p.qmin >= 0;
  switch (kind) {
  case QuantOpKind::Quantize: {
    Value q = emitQuantize(b, loc, toF32(b, loc, data[0]), p);
    if (isUnsigned)
      return arith::FPToUIOp::create(b, loc, resultType, q);
    return arith::FPToSIOp::create(b, loc, resultType, q);
  }
  case QuantOpKind::Dequantize: {
    Type f32 = f32Like(b, data[0].getType());
    Value q = isUnsigned
                  ? arith::UIToFPOp::create(b, loc, f32, data[0]).getResult()
                  : arith::SIToFPOp::create(b, loc, f32, data[0]).getResult();
    return fromF32(b, loc, emitDequantize(b, loc, q, p), resultType);
  }
  case QuantOpKind::FakeQuant: {
    Value q = emitQuantize(b, loc, toF32(b, loc, data[0]), p);
    return fromF32(b, loc, emitDequantize(b, loc, q, p), resultType);
  }
  case QuantOpKind::FakeQuantGrad: {
    Value inRange = emitInRange(b, loc, toF32(b, loc, data[0]), p);
    auto zeroAttr = b.getFloatAttr(getElementTypeOrSelf(resultType), 0.0);
    Value zero = isa<ShapedType>(resultType)
                     ? arith::ConstantOp::create(
                           b, loc,
                           DenseElementsAttr::get(cast<ShapedType>(resultType),
                                                  cast<Attribute>(zeroAttr)))
                           .getResult()
                     : arith::ConstantOp::create(b, loc, zeroAttr).getResult();
    return arith::SelectOp::create(b, loc, inRange, data[1], zero);
  }
  }
  llvm_unreachable("unknown Q/DQ op kind");
}
