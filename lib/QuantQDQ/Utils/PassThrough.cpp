//===- PassThrough.cpp - the input a pass-through layer moves -------------===//

#include "QuantQDQ/Utils/PassThrough.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

using namespace mlir;
using namespace mlir::quant_qdq;

OpOperand *mlir::quant_qdq::getPassThroughInput(Operation *op) {
  auto layer = dyn_cast_or_null<QDQLayerOpInterface>(op);
  if (!layer || !layer.isPassThrough() || layer->getNumResults() != 1)
    return nullptr;
  SmallVector<unsigned> inputs = layer.getActivationOperandIndices();
  return inputs.size() == 1 ? &layer->getOpOperand(inputs.front()) : nullptr;
}
