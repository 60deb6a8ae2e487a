//===- BroadcastAccumulators.h - tiles that start from a bias --*- C++ -*-===//
//
// A convolution's or dense layer's output starts as its bias broadcast over
// the output (a linalg.broadcast, or a linalg.generic that yields its
// input), or as a fill (a MatMul's zeros): a full pass over the output
// before the contraction's tiles read it back. These helpers let
// qdq-vectorize-contractions start each register tile's accumulator from
// the bias, or the fill's value, itself and drop the broadcast.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_CODEGEN_BROADCASTACCUMULATORS_H
#define QUANTQDQ_CODEGEN_BROADCASTACCUMULATORS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::quant_qdq {

/// A contraction's initial value that is a broadcast: `init` (the
/// contraction's init operand) holds `source[sourceOfInit(i)]` at index i,
/// or `source` itself where that is a scalar (a fill's value).
struct BroadcastInit {
  Value init;
  linalg::LinalgOp broadcast; // a broadcast (generic or named) or a fill
  AffineMap sourceOfInit;

  /// What tiles read instead of the init: the fill's value or the
  /// broadcast's input, as the IR has it now. Not kept as a value: the
  /// canonicalizer may replace it (a one-iteration loop that computed it).
  Value getSource() const;
};

/// The broadcast or fill behind `contraction`'s init operand (its result,
/// or an expand_shape of it), when that is all that reads it. A reshaped
/// fill is first made a fill of the reshape.
std::optional<BroadcastInit> getBroadcastInit(RewriterBase &rewriter,
                                              linalg::GenericOp contraction);

/// Marks `loop` as one whose iterations carry partial sums: an accumulator
/// read inside it is not the initial value.
void markReductionLoop(scf::ForOp loop);

/// Marks the slice of its output that register tile `tile` starts its
/// accumulator from (through the loops of its partial sums): the only
/// slices whose reads readAccumulatorsFromBroadcasts replaces. Other reads
/// of a contraction's result (an epilogue's, a product's reading another)
/// see its sums, not its initial values.
void markInitialAccumulator(linalg::GenericOp tile);

/// Replaces each tile's read of its initial accumulator (a
/// vector.transfer_read of a marked slice of `inits`' init, outside every
/// marked loop) with a read of the broadcast's source, and drops the marks.
/// Where every one of `tiles[i]` register tiles of `inits[i]` was replaced, the
/// broadcast's values are never read: it is replaced by its own init.
void readAccumulatorsFromBroadcasts(RewriterBase &rewriter, Operation *root,
                                    ArrayRef<BroadcastInit> inits,
                                    ArrayRef<int64_t> tiles);

/// The value `slice` is a slice of, through loop-carried destinations,
/// slices and inserts that do not cover it, when it is one of `roots`;
/// `offsets` receives the slice's offsets in it (built at the rewriter's
/// insertion point). Without `throughPartialSums`, a path through a loop
/// that carries partial sums fails: the slice's values would not be the
/// root's.
Value traceSliceRoot(RewriterBase &rewriter, Value slice, ArrayRef<Value> roots,
                     SmallVectorImpl<Value> &offsets, bool throughPartialSums);

/// The one of `roots` that `value` is written into, followed back through
/// destinations only (slices, inserts, destination-style ops, loops'
/// destinations, reshapes), or null: a tile whose slice traceSliceRoot
/// cannot follow but that reaches a broadcast this way may read it.
Value getDestinationRoot(Value value, ArrayRef<Value> roots);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_CODEGEN_BROADCASTACCUMULATORS_H
