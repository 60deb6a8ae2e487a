//===- VectorBody.cpp - a linalg op's body cloned on vectors --------------===//

#include "VectorBody.h"
#include "ContiguousBuffers.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::quant_qdq;

bool mlir::quant_qdq::isByteAddressable(Type type) {
  return type.isIntOrIndexOrFloat() && type.getIntOrFloatBitWidth() % 8 == 0;
}

bool mlir::quant_qdq::isScalarElementwise(Operation &op) {
  return op.getNumRegions() == 0 &&
         (OpTrait::hasElementwiseMappableTraits(&op) ||
          op.hasTrait<OpTrait::ConstantLike>()) &&
         llvm::all_of(op.getResultTypes(),
                      [](Type type) { return type.isIntOrIndexOrFloat(); });
}

InnerWalk mlir::quant_qdq::getInnerWalk(AffineMap map, unsigned inner) {
  if (!map.isFunctionOfDim(inner))
    return InnerWalk::None;
  ArrayRef<AffineExpr> results = map.getResults();
  if (llvm::any_of(results.drop_back(),
                   [&](AffineExpr e) { return e.isFunctionOfDim(inner); }))
    return InnerWalk::Other;
  AffineExpr rest = simplifyAffineExpr(
      results.back() - getAffineDimExpr(inner, map.getContext()),
      map.getNumDims(), map.getNumSymbols());
  return rest.isFunctionOfDim(inner) ? InnerWalk::Other : InnerWalk::Contiguous;
}

bool mlir::quant_qdq::hasVectorBody(linalg::LinalgOp op, unsigned inner) {
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    bool output = op.isDpsInit(&operand);
    if (output && !map.isProjectedPermutation(/*allowZeroInResults=*/false))
      return false;
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type) {
      if (!operand.get().getType().isIntOrIndexOrFloat())
        return false;
      continue;
    }
    if (!isByteAddressable(type.getElementType()))
      return false;
    switch (getInnerWalk(map, inner)) {
    case InnerWalk::None:
      // Broadcast along the inner loop: an output must be written anew at
      // every element.
      if (output)
        return false;
      continue;
    case InnerWalk::Contiguous:
      if (!hasUnitInnerStride(type))
        return false;
      continue;
    case InnerWalk::Other:
      return false;
    }
  }
  return llvm::all_of(op.getBlock()->without_terminator(), isScalarElementwise);
}

SmallVector<Value> mlir::quant_qdq::getIndices(OpBuilder &builder, Location loc,
                                               AffineMap map,
                                               ArrayRef<Value> ivs) {
  SmallVector<Value> indices;
  for (AffineExpr e : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(e)) {
      indices.push_back(ivs[dim.getPosition()]);
      continue;
    }
    indices.push_back(affine::AffineApplyOp::create(
        builder, loc, AffineMap::get(map.getNumDims(), 0, e), ivs));
  }
  return indices;
}

Value VectorBody::lookup(Value value) {
  Value mapped = mapping.lookupOrDefault(value);
  if (width == 1 || isa<VectorType>(mapped.getType()))
    return mapped;
  Value broadcast = vector::BroadcastOp::create(
      builder, loc, vectorOf(mapped.getType()), mapped);
  mapping.map(value, broadcast);
  return broadcast;
}

void VectorBody::readOperands(linalg::GenericOp op, ArrayRef<Value> ivs,
                              unsigned vectorLoop, bool inputsOnly) {
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument argument = op.getMatchingBlockArgument(&operand);
    if (argument.use_empty() || mapping.contains(argument) ||
        (inputsOnly && op.isDpsInit(&operand)))
      continue;
    Value source = operand.get();
    if (!isa<MemRefType>(source.getType())) {
      mapping.map(argument, source);
      continue;
    }
    AffineMap map = op.getMatchingIndexingMap(&operand);
    SmallVector<Value> indices = getIndices(builder, loc, map, ivs);
    if (width > 1 && map.isFunctionOfDim(vectorLoop))
      mapping.map(argument, vector::LoadOp::create(
                                builder, loc,
                                cast<VectorType>(vectorOf(argument.getType())),
                                source, indices));
    else
      mapping.map(argument,
                  memref::LoadOp::create(builder, loc, source, indices));
  }
}

void VectorBody::cloneOps(linalg::GenericOp op, ArrayRef<Operation *> skipped) {
  for (Operation &bodyOp : op.getBody()->without_terminator()) {
    if (llvm::is_contained(skipped, &bodyOp))
      continue;
    // Constants stay scalars, broadcast where they are used.
    if (width == 1 || bodyOp.hasTrait<OpTrait::ConstantLike>()) {
      builder.clone(bodyOp, mapping);
      continue;
    }
    for (Value operand : bodyOp.getOperands())
      lookup(operand);
    Operation *clone = builder.clone(bodyOp, mapping);
    for (Value result : clone->getResults())
      result.setType(vectorOf(result.getType()));
  }
}
