//===- ContractionEpilogue.h - element-wise ops a tile applies -*- C++ -*-===//
//
// A convolution's or dense layer's activation (ReLU, ReLU6's clamp, GELU, a
// residual sum) is an element-wise op that reads the contraction's output
// once, element by element: a full pass over the output after the tiles
// have stored it. qdq-vectorize-contractions tiles such an op with the
// contraction, so that each register tile applies it to its accumulator
// before storing.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_CODEGEN_CONTRACTIONEPILOGUE_H
#define QUANTQDQ_CODEGEN_CONTRACTIONEPILOGUE_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::quant_qdq {

/// Rewrites each element-wise op that reads one of `contractions`' results
/// through a collapse_shape (qdq-pack-contraction-panels' panels folded
/// back) into one over the uncollapsed shape, which reads the result
/// itself, so that getEpilogue finds it.
/// Dead ops go too, contractions among them.
void exposeEpilogues(Operation *root, ArrayRef<linalg::GenericOp> contractions);

/// The element-wise op that is the only reader of `contraction`'s result
/// and reads it as it is laid out (its loops are the output's dimensions),
/// on static f32 tensors with one result; or null.
linalg::GenericOp getEpilogue(linalg::GenericOp contraction);

/// The epilogue's loop that walks the same output dimension as the
/// contraction's parallel loop `loop`.
int64_t getEpilogueLoop(linalg::GenericOp contraction, int64_t loop);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_CODEGEN_CONTRACTIONEPILOGUE_H
