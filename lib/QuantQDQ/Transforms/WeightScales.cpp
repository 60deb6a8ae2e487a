//===- WeightScales.cpp - qdq-weight-scales -------------------------------===//
//
// The pass form of assignDefaultScales (Utils/Scales.h): weights scaled
// from their values, activations given the initial range.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Transforms/Passes.h"
#include "QuantQDQ/Utils/Scales.h"

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_WEIGHTSCALES
#include "QuantQDQ/Transforms/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
struct WeightScalesPass
    : public quant_qdq::impl::WeightScalesBase<WeightScalesPass> {
  using WeightScalesBase::WeightScalesBase;
  void runOnOperation() override {
    std::optional<double> amax;
    if (activationAmax > 0.0)
      amax = activationAmax;
    if (failed(assignDefaultScales(getOperation(), amax)))
      signalPassFailure();
  }
};
} // namespace
