//===- MatmulDims.h - a contraction as a CPU matmul kernel sees it -*- C++ -*-//
//
// Shared by the passes that shape f32 contractions for the CPU's register
// tiles (qdq-pack-contraction-panels, qdq-vectorize-contractions): which
// loop is a tile's rows, which its columns, which the sum, and which input
// is the right operand.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_TRANSFORMS_MATMULDIMS_H
#define QUANTQDQ_TRANSFORMS_MATMULDIMS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>

namespace mlir::quant_qdq {

/// The loops of a contraction as a matmul: `m` the rows (the m dimension
/// with the most rows, the nearest the output's end among equals; none for
/// a matrix-vector product), `n` the
/// output's contiguous dimension, `k` the last reduction, `rhs` the input
/// indexed by n.
struct MatmulDims {
  std::optional<unsigned> m;
  unsigned n, k;
  unsigned rhs;
};

/// Whether every operand of `op` is a static f32 tensor.
bool hasStaticF32Operands(linalg::LinalgOp op);

/// The matmul view of `op`, or nothing when it is not an f32 contraction
/// of two static inputs whose output is contiguous along an n dimension.
/// A direct convolution counts: an image read through window indices
/// (oh + kh) and a filter holding n, with the image's input channel as k.
std::optional<MatmulDims> getMatmulDims(linalg::GenericOp op);

/// The loop an affine expression reads, when it is a plain dimension.
std::optional<unsigned> getDimPosition(AffineExpr e);

/// Whether `n` columns are one panel of their own rather than a panel of
/// `columns` and a remainder: more than one panel, fewer than two, and a
/// whole number of half panels (24 for 16, a MobileNet's projection to 24
/// channels). Its register tiles, one of `columns` and a narrower one, then
/// share one loop, the bias and the epilogue, where a panel and a split-off
/// remainder were two contractions, each a parallel region of its own, and
/// kept the bias broadcast and the epilogue apart. (Tiles as wide as 24
/// lower to shuffles of a vector LLVM cannot load in one piece.)
bool isOneOddPanel(int64_t n, int64_t columns);

/// The f32 contractions under `root` that getMatmulDims sees as matmuls,
/// none over an empty dimension, with their view, in program order; named ones
/// (linalg.matmul, batch_matmul, ...) are generalized first, the form the CPU
/// passes shape.
SmallVector<std::pair<linalg::GenericOp, MatmulDims>>
getStaticF32Matmuls(RewriterBase &rewriter, Operation *root);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_TRANSFORMS_MATMULDIMS_H
