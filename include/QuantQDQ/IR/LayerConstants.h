//===- LayerConstants.h - constants as layers read them ---------*- C++ -*-===//
//
// Helpers for constants feeding layer ops (weights, biases), dense or
// resource-backed alike, shared by the layer canonicalizations and the ONNX
// conversions. Resource data is never copied.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_IR_LAYERCONSTANTS_H
#define QUANTQDQ_IR_LAYERCONSTANTS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::quant_qdq {

/// The constant attribute behind `v` (an op with the ConstantLike trait),
/// or null.
ElementsAttr getConstantAttr(Value v);

/// `value` with the same data seen as `type` (same element count): a
/// reshape or a reinterpretation of integer storage.
ElementsAttr retypeConstant(ElementsAttr value, ShapedType type);

/// A constant bias of `units` values of `elementType` as a 1-D value:
/// `value` itself when it is one, a reshaped arith.constant (at the
/// builder's insertion point) when it is [1, ..., units]; null otherwise.
Value getBiasVector(OpBuilder &builder, Value value, int64_t units,
                    Type elementType);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_IR_LAYERCONSTANTS_H
