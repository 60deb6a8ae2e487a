//===- Passes.h - conversion passes of quant_qdq ----------------*- C++ -*-===//
//
// The passes' declarations and registration. Their patterns and pipelines
// have headers of their own: ONNXToQuantQDQ.h, QuantQDQToLinalg.h,
// Pipelines.h.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_CONVERSION_PASSES_H
#define QUANTQDQ_CONVERSION_PASSES_H

#include "QuantQDQ/IR/QuantQDQDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::quant_qdq {

#define GEN_PASS_DECL
#include "QuantQDQ/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "QuantQDQ/Conversion/Passes.h.inc"

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_CONVERSION_PASSES_H
