//===- QuantQDQDialect.h - quant_qdq dialect --------------------*- C++ -*-===//

#ifndef QUANTQDQ_IR_QUANTQDQDIALECT_H
#define QUANTQDQ_IR_QUANTQDQDIALECT_H

#include "mlir/IR/Dialect.h"

#include "QuantQDQ/IR/QuantQDQDialect.h.inc"

#endif // QUANTQDQ_IR_QUANTQDQDIALECT_H
