//===- LayerFusions.h - fusions kept in files of their own ------*- C++ -*-===//
//
// Private to lib/QuantQDQ/IR: canonicalization patterns that
// LayerCanonicalization.cpp registers but that are large enough to live
// apart.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_LIB_IR_LAYERFUSIONS_H
#define QUANTQDQ_LIB_IR_LAYERFUSIONS_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::quant_qdq {

/// GELU written out, exact or tanh-approximated, rooted at its last
/// product (GeluFusion.cpp).
void populateGeluFusionPatterns(RewritePatternSet &patterns);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_LIB_IR_LAYERFUSIONS_H
