//===- ApproximateMath.cpp - tanh, erf, exp as arithmetic on vectors ------===//
//
// LLVM has no vector instruction for tanh, erf or exp, so a vector of them
// becomes one libm call per element: tanhf took 20% of a GPT-2 decoder's
// prefill (its tanh GELU), erff 7% and expf 2.4% of a ViT-B/16 run (its
// GELU and softmaxes). Upstream's polynomial approximations (MLIR's math
// dialect) are arithmetic on the vector as it is.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "QuantQDQ/Codegen/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;

namespace {
/// The functions approximated: those whose upstream approximation stays
/// within a few ulp of libm on f32 (the pass's description has the
/// measurements). The others (log, sin, cos, atan) keep their intrinsics.
bool isApproximated(StringRef opName) {
  return opName == math::TanhOp::getOperationName() ||
         opName == math::ErfOp::getOperationName() ||
         opName == math::ExpOp::getOperationName();
}

/// The types upstream's approximations take: f32 scalars and vectors (a
/// tensor's math has not been bufferized and vectorized yet).
bool isF32ScalarOrVector(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    type = vector.getElementType();
  return type.isF32();
}

struct ApproximateMathPass
    : quant_qdq::impl::ApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    // Only f32 ops: some approximations also match f16, in f16 arithmetic,
    // where the libm call computes in f32 and rounds once.
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (op->getNumResults() == 1 &&
          isApproximated(op->getName().getStringRef()) &&
          isF32ScalarOrVector(op->getResult(0).getType()))
        ops.push_back(op);
    });
    if (ops.empty())
      return;
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns, isApproximated);
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    if (failed(applyOpPatternsGreedily(ops, std::move(patterns), config)))
      signalPassFailure();
  }
};
} // namespace
