//===- ApproximateTanh.cpp - tanh as arithmetic, so vectors stay vectors --===//
//
// LLVM has no intrinsic for tanh, so a vector tanh becomes one libm call
// per element: tanhf (and the expm1f it calls) took 20% of a GPT-2
// decoder's prefill, its tanh GELU. Upstream's polynomial approximation
// (MLIR's math dialect) is arithmetic on the vector as it is.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_APPROXIMATETANH
#include "QuantQDQ/Codegen/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;

namespace {
struct ApproximateTanhPass
    : quant_qdq::impl::ApproximateTanhBase<ApproximateTanhPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populatePolynomialApproximateTanhPattern(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
