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

#endif // QUANTQDQ_IR_QUANTQDQOPS_H
