//===- VectorBody.h - a linalg op's body cloned on vectors -----*- C++ -*-===//
//
// The passes that write their own vector loops on buffers (element-wise
// ops and reductions, and the epilogues that channel-window tiles apply
// to their accumulators) emit a linalg op's body at one loop position on
// a vector of consecutive elements along one loop: each operand loaded as
// a vector where it walks that loop, as a broadcast scalar where it does
// not, and the body's scalar ops cloned with vector types.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_CODEGEN_VECTORBODY_H
#define QUANTQDQ_CODEGEN_VECTORBODY_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::quant_qdq {

/// Whether `type` is a buffer element type that vector loads read as they
/// lie in memory (not i1, which a vector packs into bits).
bool isByteAddressable(Type type);

/// Whether `op` is an element-wise op on scalars, one a vector loop may
/// clone on vectors: no regions, scalar results, element-wise mappable or
/// a constant.
bool isScalarElementwise(Operation &op);

/// How an operand's indices move with loop `inner`: not at all (a
/// broadcast), or its last index by one per iteration, the others not
/// (contiguous). A window's input (an im2col's `oh + kh`, `ow + kw`) is
/// contiguous along `ow` when its stride is 1.
enum class InnerWalk { None, Contiguous, Other };
InnerWalk getInnerWalk(AffineMap map, unsigned inner);

/// Whether VectorBody may clone `op`'s body on vectors along loop `inner`:
/// every buffer operand of a byte-addressable type, walking that loop
/// contiguously with unit stride or (an input) not at all; outputs indexed
/// by the loops themselves; every other operand a scalar; a body of
/// element-wise ops only.
bool hasVectorBody(linalg::LinalgOp op, unsigned inner);

/// The indices `map` gives at loop position `ivs`: the loops' own values
/// where a result is one loop, else an affine.apply.
SmallVector<Value> getIndices(OpBuilder &builder, Location loc, AffineMap map,
                              ArrayRef<Value> ivs);

/// `op`'s body cloned at one loop position on `width` elements of loop
/// `vectorLoop` (scalars for width 1): operands read as vectors along that
/// loop or as scalars, the body's ops with vector types, and a scalar
/// (broadcast input, constant, value from outside) broadcast once, at its
/// first use where a vector is due.
class VectorBody {
public:
  VectorBody(OpBuilder &builder, Location loc, int64_t width)
      : builder(builder), loc(loc), width(width) {}

  Type vectorOf(Type type) const {
    return width == 1 ? type : VectorType::get({width}, type);
  }

  /// Gives the body's block argument `argument` the value `value` (a
  /// vector the caller already holds) instead of reading its operand.
  void bind(BlockArgument argument, Value value) {
    mapping.map(argument, value);
  }

  /// `value`'s clone, broadcast to a vector where it is a scalar.
  Value lookup(Value value);

  /// Reads the operands whose block arguments the body uses and that are
  /// not bound, at `ivs`, all of them or only the inputs.
  void readOperands(linalg::GenericOp op, ArrayRef<Value> ivs,
                    unsigned vectorLoop, bool inputsOnly);

  /// Clones the body's ops but `skipped`, on vectors.
  void cloneOps(linalg::GenericOp op, ArrayRef<Operation *> skipped = {});

private:
  OpBuilder &builder;
  Location loc;
  int64_t width;
  IRMapping mapping;
};

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_CODEGEN_VECTORBODY_H
