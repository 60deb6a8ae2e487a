//===- Dot.h - draw a layer graph with its Q/DQ nodes -----------*- C++ -*-===//

#ifndef QUANTQDQ_TARGET_DOT_H
#define QUANTQDQ_TARGET_DOT_H

#include "mlir/IR/Operation.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::quant_qdq {

/// Writes every function in `op` as a Graphviz digraph: layers as boxes
/// labelled with their name and class, quantize/dequantize as small coloured
/// nodes, constants left out unless a Q/DQ pair quantizes them (weights).
LogicalResult exportToDot(Operation *op, llvm::raw_ostream &os);

/// Registers `--qdq-to-dot` with mlir-translate style tools.
void registerToDotTranslation();

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_TARGET_DOT_H
