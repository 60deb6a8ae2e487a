//===- Passes.h - lowering passes of quant_qdq ------------------*- C++ -*-===//

#ifndef QUANTQDQ_CONVERSION_PASSES_H
#define QUANTQDQ_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::quant_qdq {

#define GEN_PASS_DECL
#include "QuantQDQ/Conversion/Passes.h.inc"

/// Patterns lowering layer ops to linalg/tensor/arith/math.
void populateLayerToLinalgPatterns(RewritePatternSet &patterns);
/// Patterns lowering quantize, dequantize and fake_quant to linalg.
void populateQDQToLinalgPatterns(RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "QuantQDQ/Conversion/Passes.h.inc"

/// The passes of `qdq-cpu-pipeline`: quant_qdq on tensors down to the LLVM
/// dialect, with function results turned into out-parameters, ready for the
/// JIT (qdq-run).
void buildCPUPipeline(OpPassManager &pm);
/// Registers `qdq-cpu-pipeline`.
void registerCPUPipeline();

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_CONVERSION_PASSES_H
