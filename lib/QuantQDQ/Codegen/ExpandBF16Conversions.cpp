//===- ExpandBF16Conversions.cpp - f32 <-> bf16 as bit operations --------===//
//
// Upstream's expansion (arith-expand's include-bf16 patterns) alone: the
// pass's other expansions (maximumf as compare and select) would change
// more than the conversions.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_EXPANDBF16CONVERSIONS
#include "QuantQDQ/Codegen/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;

namespace {
struct ExpandBF16ConversionsPass
    : quant_qdq::impl::ExpandBF16ConversionsBase<ExpandBF16ConversionsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
