//===- LinearIndex.cpp - affine indices that are linear -------------------===//

#include "LinearIndex.h"

#include "mlir/IR/AffineMap.h"

using namespace mlir;

bool mlir::quant_qdq::isLinear(AffineExpr e) {
  if (isa<AffineDimExpr, AffineConstantExpr>(e))
    return true;
  auto binary = dyn_cast<AffineBinaryOpExpr>(e);
  if (!binary)
    return false;
  if (binary.getKind() == AffineExprKind::Add)
    return isLinear(binary.getLHS()) && isLinear(binary.getRHS());
  // Simplified affine expressions put a constant factor on the right.
  return binary.getKind() == AffineExprKind::Mul && isLinear(binary.getLHS()) &&
         isa<AffineConstantExpr>(binary.getRHS());
}

std::optional<int64_t> mlir::quant_qdq::getLinearCoefficient(AffineExpr e,
                                                             unsigned dim,
                                                             unsigned numDims) {
  if (!isLinear(e))
    return std::nullopt;
  AffineMap map = AffineMap::get(numDims, 0, e);
  SmallVector<int64_t> at(numDims, 0);
  int64_t zero = map.compose(at)[0];
  at[dim] = 1;
  return map.compose(at)[0] - zero;
}
