//===- Passes.h - the engine's code-generation passes -----------*- C++ -*-===//
//
// Passes on linalg, tensors and buffers that make the CPU code fast
// (Passes.td); qdq-cpu-pipeline (Pipelines.h) chains them.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_CODEGEN_PASSES_H
#define QUANTQDQ_CODEGEN_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::quant_qdq {

#define GEN_PASS_DECL
#include "QuantQDQ/Codegen/Passes.h.inc"

/// registerQuantQDQCodegenPasses() registers every one of them.
#define GEN_PASS_REGISTRATION
#include "QuantQDQ/Codegen/Passes.h.inc"

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_CODEGEN_PASSES_H
