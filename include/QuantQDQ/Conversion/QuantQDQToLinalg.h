//===- QuantQDQToLinalg.h - layer and Q/DQ ops to linalg --------*- C++ -*-===//
//
// The patterns of convert-quant-qdq-to-linalg, for pipelines that lower
// quant_qdq together with other dialects.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_CONVERSION_QUANTQDQTOLINALG_H
#define QUANTQDQ_CONVERSION_QUANTQDQTOLINALG_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::quant_qdq {

/// Patterns lowering layer ops to linalg/tensor/arith/math.
void populateLayerToLinalgPatterns(RewritePatternSet &patterns);
/// Patterns lowering quantize, dequantize, fake_quant (and its gradient)
/// and round_to_format to linalg.
void populateQDQToLinalgPatterns(RewritePatternSet &patterns);

/// Replaces each constant of sub-byte integers or FP8 (int4 and FP8
/// weights) under `root` by an i8 constant of the same bytes and an
/// element-wise truncation or bitcast, since LLVM IR translation has no
/// form for such constants.
void widenNarrowConstants(Operation *root);

/// Replaces every signed and unsigned integer type under `root` (values,
/// block arguments, attributes, function types) by the signless type of its
/// width, once the lowering has chosen each operation by signedness, and
/// drops the tensor.bitcasts that become identities.
void eraseIntegerSignedness(Operation *root);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_CONVERSION_QUANTQDQTOLINALG_H
