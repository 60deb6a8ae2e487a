//===- QuantQDQOps.h - quant_qdq layer and Q/DQ ops -------------*- C++ -*-===//

#ifndef QUANTQDQ_IR_QUANTQDQOPS_H
#define QUANTQDQ_IR_QUANTQDQOPS_H

#include "QuantQDQ/IR/QDQLayerOpInterface.h"
#include "QuantQDQ/IR/QuantQDQAttrs.h"
#include "QuantQDQ/IR/QuantQDQDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "QuantQDQ/IR/QuantQDQOps.h.inc"

namespace mlir::quant_qdq {
/// An uncalibrated quantize/dequantize pair of `quantizer` on `value`,
/// right after its definition so that it dominates every use. Its location
/// is `value`'s fused with `tag` (the pass placing it), not a name: export
/// names its tensors after `value` (x_quantized), not as a node of
/// `value`'s name. Returns the dequantize; no use of `value` changes.
DequantizeOp createQDQPair(OpBuilder &builder, Value value,
                           QuantizerAttr quantizer, StringRef tag);

/// A discardable unit attribute on a layer with a quantized weight that the
/// runtime will run in float all the same (`insert-qdq target=onnxruntime`
/// sets it where ORT forms no integer kernel): `qdq-quantize-weights`
/// stores such a weight as its dequantized float values, the same numbers,
/// so that the runtime does not dequantize it on every run.
inline constexpr llvm::StringLiteral kFloatKernelAttrName =
    "quant_qdq.float_kernel";
} // namespace mlir::quant_qdq

#endif // QUANTQDQ_IR_QUANTQDQOPS_H
