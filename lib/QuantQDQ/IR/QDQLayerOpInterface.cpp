//===- QDQLayerOpInterface.cpp - what a layer exposes to Q/DQ -------------===//

#include "QuantQDQ/IR/QuantQDQOps.h"

using namespace mlir;
using namespace mlir::quant_qdq;

#include "QuantQDQ/IR/QDQLayerOpInterface.cpp.inc"
