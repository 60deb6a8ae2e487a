//===- NumberFormatArithmetic.cpp - what round_to_format computes ---------===//

#include "NumberFormatArithmetic.h"
#include "QDQArithmetic.h"

#include "QuantQDQToLinalg/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::quant_qdq;

static constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;

uint64_t mlir::quant_qdq::mixSeed(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static Value isNaN(OpBuilder &b, Location loc, Value x) {
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
}

static Value compare(OpBuilder &b, Location loc, arith::CmpFPredicate pred,
                     Value lhs, Value rhs) {
  return arith::CmpFOp::create(b, loc, pred, lhs, rhs);
}

/// A uniform value in [0, 1) on the 2^-24 grid for each position.
static Value emitUniform(OpBuilder &b, Location loc, Value position,
                         uint64_t seed, Type floatType) {
  Type type = position.getType();
  auto c = [&](uint64_t v) { return intSplat(b, loc, type, int64_t(v)); };
  auto mix = [&](Value z, int64_t shift, uint64_t factor) {
    Value shifted = arith::ShRUIOp::create(b, loc, z, c(shift));
    Value x = arith::XOrIOp::create(b, loc, z, shifted);
    return factor ? arith::MulIOp::create(b, loc, x, c(factor)).getResult()
                  : x;
  };
  Value counter = arith::AddIOp::create(b, loc, position, c(1));
  Value step = arith::MulIOp::create(b, loc, counter, c(kGolden));
  Value z = arith::AddIOp::create(b, loc, c(mixSeed(seed)), step);
  z = mix(z, 30, 0xBF58476D1CE4E5B9ull);
  z = mix(z, 27, 0x94D049BB133111EBull);
  z = mix(z, 31, 0);
  Value top = arith::ShRUIOp::create(b, loc, z, c(40));
  Value asFloat = arith::UIToFPOp::create(b, loc, floatType, top);
  return arith::MulFOp::create(b, loc, asFloat,
                               f32Splat(b, loc, floatType, 0x1p-24));
}

static Value emitFixedPoint(OpBuilder &b, Location loc, Value x,
                            NumberFormatAttr format,
                            const NumberFormatInputs &inputs) {
  Type type = x.getType();
  int64_t fraction = *format.getFractionBits();
  int64_t half = int64_t(1) << (*format.getBits() - 1);
  Value scaled = arith::MulFOp::create(
      b, loc, x, f32Splat(b, loc, type, std::ldexp(1.0, fraction)));
  // x * 2^f is exact unless it underflows to zero (|x * 2^f| < 2^-150,
  // only when f < 0): then a negative x still floors to -1.
  auto floorOfScaled = [&] {
    Value down = math::FloorOp::create(b, loc, scaled);
    Value lost = arith::AndIOp::create(
        b, loc,
        compare(b, loc, arith::CmpFPredicate::OLT, x,
                f32Splat(b, loc, type, 0)),
        compare(b, loc, arith::CmpFPredicate::OEQ, scaled,
                f32Splat(b, loc, type, 0)));
    return arith::SelectOp::create(b, loc, lost, f32Splat(b, loc, type, -1),
                                   down)
        .getResult();
  };
  Value rounded;
  switch (format.getRoundingOrDefault()) {
  case FixedPointRounding::Nearest:
    rounded = math::RoundOp::create(b, loc, scaled);
    break;
  case FixedPointRounding::Zero:
    rounded = math::TruncOp::create(b, loc, scaled);
    break;
  case FixedPointRounding::Down:
    rounded = fraction < 0 ? floorOfScaled()
                           : math::FloorOp::create(b, loc, scaled).getResult();
    break;
  case FixedPointRounding::Stochastic: {
    // scaled - floor(scaled) is exact: the fraction bits of scaled.
    Value down = fraction < 0
                     ? floorOfScaled()
                     : math::FloorOp::create(b, loc, scaled).getResult();
    Value fraction = arith::SubFOp::create(b, loc, scaled, down);
    Value u = emitUniform(b, loc, inputs.position,
                          uint64_t(format.getSeed().value_or(0)), type);
    Value up = compare(b, loc, arith::CmpFPredicate::OLT, u, fraction);
    Value step = arith::SelectOp::create(b, loc, up, f32Splat(b, loc, type, 1),
                                         f32Splat(b, loc, type, 0));
    rounded = arith::AddFOp::create(b, loc, down, step);
    break;
  }
  }
  // minimumf/maximumf propagate NaN.
  Value clamped = arith::MinimumFOp::create(
      b, loc,
      arith::MaximumFOp::create(b, loc, rounded,
                                f32Splat(b, loc, type, -double(half))),
      f32Splat(b, loc, type, double(half - 1)));
  return arith::MulFOp::create(
      b, loc, clamped, f32Splat(b, loc, type, std::ldexp(1.0, -fraction)));
}

/// sign(x) * 2^floor(log2 |x|): the f32 bits with the mantissa cleared.
/// Subnormals have no implicit bit: they are scaled into the normal range
/// first (exactly), and the power of two scaled back (exactly).
static Value emitLogarithmic(OpBuilder &b, Location loc, Value x) {
  Type type = x.getType(), intType = withElementType(type, b.getI32Type());
  auto c = [&](int64_t v) { return intSplat(b, loc, intType, int32_t(v)); };
  auto clearMantissa = [&](Value value) {
    Value bits = arith::BitcastOp::create(b, loc, intType, value);
    Value kept = arith::AndIOp::create(b, loc, bits, c(int32_t(0xFF800000u)));
    return arith::BitcastOp::create(b, loc, type, kept).getResult();
  };
  Value normal = clearMantissa(x);
  Value scaledUp =
      arith::MulFOp::create(b, loc, x, f32Splat(b, loc, type, 0x1p64));
  Value small = arith::MulFOp::create(b, loc, clearMantissa(scaledUp),
                                      f32Splat(b, loc, type, 0x1p-64));
  Value magnitude = math::AbsFOp::create(b, loc, x);
  Value isSmall = compare(b, loc, arith::CmpFPredicate::OLT, magnitude,
                          f32Splat(b, loc, type, 0x1p-126));
  Value result = arith::SelectOp::create(b, loc, isSmall, small, normal);
  // Clearing a NaN's mantissa would make it infinite.
  return arith::SelectOp::create(b, loc, isNaN(b, loc, x), x, result);
}

/// The number of elements of `value` as f64.
static Value emitElementCount(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.hasStaticShape())
    return arith::ConstantOp::create(
        b, loc, b.getF64FloatAttr(double(type.getNumElements())));
  Value count = arith::ConstantIndexOp::create(b, loc, 1);
  for (Value size : getValueOrCreateConstantIndexOp(
           b, loc, tensor::getMixedSizes(b, loc, value)))
    count = arith::MulIOp::create(b, loc, count, size);
  Value asInt =
      arith::IndexCastOp::create(b, loc, b.getI64Type(), count).getResult();
  return arith::UIToFPOp::create(b, loc, b.getF64Type(), asInt);
}

// Accumulated in f64, so that the threshold does not drift with the
// tensor's size through rounding.
Value mlir::quant_qdq::emitMeanMagnitudeThreshold(OpBuilder &b, Location loc,
                                                  Value input) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  auto sumType = RankedTensorType::get({}, b.getF64Type());
  Value init = createFilled(b, loc, sumType, {}, b.getF64FloatAttr(0.0));
  SmallVector<AffineMap> maps = {
      b.getMultiDimIdentityMap(rank),
      AffineMap::get(rank, 0, {}, b.getContext())};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::reduction);
  auto sum = linalg::GenericOp::create(
      b, loc, sumType, input, init, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value magnitude = math::AbsFOp::create(nb, nloc, args[0]);
        Value wide = arith::ExtFOp::create(nb, nloc, nb.getF64Type(),
                                           toF32(nb, nloc, magnitude));
        Value sum = arith::AddFOp::create(nb, nloc, args[1], wide);
        linalg::YieldOp::create(nb, nloc, sum);
      });
  Value total = tensor::ExtractOp::create(b, loc, sum.getResult(0));
  Value mean =
      arith::DivFOp::create(b, loc, total, emitElementCount(b, loc, input));
  Value scaled = arith::MulFOp::create(
      b, loc, mean,
      arith::ConstantOp::create(b, loc, b.getF64FloatAttr(0.7)));
  return arith::TruncFOp::create(b, loc, b.getF32Type(), scaled);
}

Value mlir::quant_qdq::emitRoundToFormat(OpBuilder &b, Location loc, Value x,
                                         NumberFormatAttr format,
                                         const NumberFormatInputs &inputs) {
  Type type = x.getType();
  auto splat = [&](double v) { return f32Splat(b, loc, type, v); };
  auto threshold = [&]() -> Value {
    if (std::optional<float> given = format.getThresholdValue())
      return splat(*given);
    return inputs.threshold;
  };
  auto keepNaN = [&](Value result) {
    return arith::SelectOp::create(b, loc, isNaN(b, loc, x), x, result)
        .getResult();
  };
  float marginal = format.getMarginalValue();
  switch (format.getKind()) {
  case NumberFormatKind::FixedPoint:
    return emitFixedPoint(b, loc, x, format, inputs);
  case NumberFormatKind::Binary: {
    Value nonNegative = compare(b, loc, arith::CmpFPredicate::OGE, x, splat(0));
    return keepNaN(arith::SelectOp::create(b, loc, nonNegative,
                                           splat(marginal), splat(-marginal)));
  }
  case NumberFormatKind::Ternary: {
    Value th = threshold();
    Value above = compare(b, loc, arith::CmpFPredicate::OGT, x, th);
    Value below = compare(b, loc, arith::CmpFPredicate::OLT, x,
                          arith::NegFOp::create(b, loc, th));
    Value low = arith::SelectOp::create(b, loc, below, splat(-marginal),
                                        splat(0));
    return keepNaN(
        arith::SelectOp::create(b, loc, above, splat(marginal), low));
  }
  case NumberFormatKind::Logarithmic:
    return emitLogarithmic(b, loc, x);
  case NumberFormatKind::Sparse: {
    Value magnitude = math::AbsFOp::create(b, loc, x);
    Value small =
        compare(b, loc, arith::CmpFPredicate::OLT, magnitude, threshold());
    Value signedZero = math::CopySignOp::create(b, loc, splat(0), x);
    return arith::SelectOp::create(b, loc, small, signedZero, x);
  }
  case NumberFormatKind::Half: {
    Value half = arith::TruncFOp::create(
        b, loc, withElementType(type, b.getF16Type()), x);
    return arith::ExtFOp::create(b, loc, type, half);
  }
  }
  llvm_unreachable("unknown number format");
}
