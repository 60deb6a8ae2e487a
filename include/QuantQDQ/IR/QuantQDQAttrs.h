//===- QuantQDQAttrs.h - quant_qdq attributes and enums ---------*- C++ -*-===//

#ifndef QUANTQDQ_IR_QUANTQDQATTRS_H
#define QUANTQDQ_IR_QUANTQDQATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "QuantQDQ/IR/QuantQDQEnums.h.inc"

namespace mlir::quant_qdq {
struct QuantizerOverride;

/// Reads a float parameter of an attribute (`marginal = 0.5`) as an f32
/// FloatAttr.
FailureOr<FloatAttr> parseF32Parameter(AsmParser &parser);
} // namespace mlir::quant_qdq

#define GET_ATTRDEF_CLASSES
#include "QuantQDQ/IR/QuantQDQAttrs.h.inc"

#endif // QUANTQDQ_IR_QUANTQDQATTRS_H
