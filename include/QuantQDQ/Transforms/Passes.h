//===- Passes.h - quant_qdq quantization passes -----------------*- C++ -*-===//

#ifndef QUANTQDQ_TRANSFORMS_PASSES_H
#define QUANTQDQ_TRANSFORMS_PASSES_H

#include "QuantQDQ/IR/QuantQDQDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/PDL/IR/PDL.h"
#include "mlir/Dialect/PDLInterp/IR/PDLInterp.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::quant_qdq {

#define GEN_PASS_DECL
#include "QuantQDQ/Transforms/Passes.h.inc"

/// Registers every quant_qdq pass, the library insertion cases, and the
/// driver flags `--qdq-spec`, `--qdq-mode` and `--qdq-report` that
/// insert-qdq falls back to.
void registerQuantQDQPasses();

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_TRANSFORMS_PASSES_H
