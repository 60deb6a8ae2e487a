//===- Reduction.h - reductions over a set of dimensions --------*- C++ -*-===//
//
// Private to the linalg lowering: reductions of a tensor over some of its
// dimensions, and element-wise maps that read the reduced results back
// through a map that skips those dimensions. Each is one linalg.generic.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_LIB_CONVERSION_QUANTQDQTOLINALG_REDUCTION_H
#define QUANTQDQ_LIB_CONVERSION_QUANTQDQTOLINALG_REDUCTION_H

#include "LoweringUtils.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::quant_qdq {

/// Reductions of tensors of one shape over the dimensions `reduced`.
struct Reducer {
  using Combine = function_ref<Value(OpBuilder &, Location, Value element,
                                     Value accumulator)>;

  OpBuilder &b;
  Location loc;
  RankedTensorType type;
  SmallVector<bool> reduced;

  int64_t rank() const { return type.getRank(); }
  /// The shape with the reduced dimensions dropped.
  RankedTensorType keptType(Type element) const {
    SmallVector<int64_t> shape;
    for (int64_t d = 0; d < rank(); ++d)
      if (!reduced[d])
        shape.push_back(type.getDimSize(d));
    return RankedTensorType::get(shape, element);
  }
  /// The map from the full index to the kept dimensions.
  AffineMap keptMap() const {
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < rank(); ++d)
      if (!reduced[d])
        exprs.push_back(b.getAffineDimExpr(d));
    return AffineMap::get(rank(), 0, exprs, b.getContext());
  }
  /// The number of elements reduced into each result.
  int64_t count() const {
    int64_t n = 1;
    for (int64_t d = 0; d < rank(); ++d)
      if (reduced[d])
        n *= type.getDimSize(d);
    return n;
  }

  /// combine(element, accumulator) over the reduced dimensions of `input`,
  /// starting from `init`.
  Value reduce(Value input, TypedAttr init, Combine combine) const {
    RankedTensorType kept = keptType(init.getType());
    Value acc = createFilled(b, loc, kept, {}, init);
    SmallVector<utils::IteratorType> iterators;
    for (bool r : reduced)
      iterators.push_back(r ? utils::IteratorType::reduction
                            : utils::IteratorType::parallel);
    return linalg::GenericOp::create(
               b, loc, kept, input, acc,
               SmallVector<AffineMap>{b.getMultiDimIdentityMap(rank()),
                                      keptMap()},
               iterators,
               [&](OpBuilder &nested, Location l, ValueRange args) {
                 linalg::YieldOp::create(nested, l,
                                         combine(nested, l, args[0], args[1]));
               })
        .getResult(0);
  }

  /// body(full elements..., kept elements...) for every full index.
  Value map(RankedTensorType resultType, ValueRange full, ValueRange kept,
            function_ref<Value(OpBuilder &, Location, ValueRange)> body) const {
    SmallVector<AffineMap> maps;
    SmallVector<Value> inputs;
    for (Value v : full) {
      inputs.push_back(v);
      maps.push_back(getBroadcastMap(b.getContext(),
                                     cast<RankedTensorType>(v.getType()),
                                     resultType));
    }
    for (Value v : kept) {
      inputs.push_back(v);
      maps.push_back(keptMap());
    }
    maps.push_back(b.getMultiDimIdentityMap(rank()));
    Value init = createEmpty(b, loc, resultType, {});
    return linalg::GenericOp::create(
               b, loc, resultType, inputs, init, maps,
               SmallVector<utils::IteratorType>(rank(),
                                                utils::IteratorType::parallel),
               [&](OpBuilder &nested, Location l, ValueRange args) {
                 linalg::YieldOp::create(nested, l,
                                         body(nested, l, args.drop_back()));
               })
        .getResult(0);
  }
};

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_LIB_CONVERSION_QUANTQDQTOLINALG_REDUCTION_H
