//===- QDQLayerOpInterface.h - what a layer exposes to Q/DQ -----*- C++ -*-===//

#ifndef QUANTQDQ_IR_QDQLAYEROPINTERFACE_H
#define QUANTQDQ_IR_QDQLAYEROPINTERFACE_H

#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/SmallVector.h"

#include "QuantQDQ/IR/QDQLayerOpInterface.h.inc"

#endif // QUANTQDQ_IR_QDQLAYEROPINTERFACE_H
