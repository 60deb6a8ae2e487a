//===- QuantQDQDialect.cpp - quant_qdq dialect ----------------------------===//

#include "QuantQDQ/IR/QuantQDQDialect.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::quant_qdq;

#include "QuantQDQ/IR/QuantQDQDialect.cpp.inc"
#include "QuantQDQ/IR/QuantQDQEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "QuantQDQ/IR/QuantQDQAttrs.cpp.inc"

void QuantQDQDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "QuantQDQ/IR/QuantQDQAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "QuantQDQ/IR/QuantQDQOps.cpp.inc"
      >();
}
