//===- Passes.cpp - registration of the quant_qdq passes ------------------===//

#include "QuantQDQ/Transforms/Passes.h"
#include "QuantQDQ/Transforms/InsertionCases.h"

using namespace mlir;
using namespace mlir::quant_qdq;

namespace mlir::quant_qdq {
#define GEN_PASS_REGISTRATION
#include "QuantQDQ/Transforms/Passes.h.inc"
} // namespace mlir::quant_qdq

void mlir::quant_qdq::registerQuantQDQPasses() {
  registerLibraryInsertionCases();
  registerQuantQDQTransformsPasses();
}
