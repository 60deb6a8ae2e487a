//===- NameTensors.cpp - qdq-name-tensors ---------------------------------===//
//
// The pass form of nameTensors (Utils/TensorNames.h): every graph tensor
// of each function gets one unique, stable name.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Transforms/Passes.h"
#include "QuantQDQ/Utils/TensorNames.h"

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_NAMETENSORS
#include "QuantQDQ/Transforms/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
struct NameTensorsPass
    : public quant_qdq::impl::NameTensorsBase<NameTensorsPass> {
  void runOnOperation() override {
    getOperation().walk([](FunctionOpInterface func) { nameTensors(func); });
  }
};
} // namespace
