//===- CopyRepeatedResults.cpp - one tensor per function result ----------===//
//
// ONNX lets a graph list one tensor as several of its outputs. Bufferized,
// every result of a function becomes an out-parameter that the caller owns;
// MLIR's buffer-results-to-out-params cannot make one buffer two of them
// (it crashes). Each repeat of a returned value is returned as a copy.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Codegen/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_COPYREPEATEDRESULTS
#include "QuantQDQ/Codegen/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;

namespace {
struct CopyRepeatedResults
    : quant_qdq::impl::CopyRepeatedResultsBase<CopyRepeatedResults> {
  void runOnOperation() override {
    getOperation()->walk([](func::ReturnOp ret) {
      llvm::SmallPtrSet<Value, 8> returned;
      OpBuilder builder(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        Value value = operand.get();
        auto type = dyn_cast<RankedTensorType>(value.getType());
        if (!type || returned.insert(value).second)
          continue;
        // With a copy, the allocation takes its dynamic sizes from it.
        operand.set(bufferization::AllocTensorOp::create(
            builder, ret.getLoc(), type, /*dynamicSizes=*/ValueRange(),
            /*copy=*/value));
      }
    });
  }
};
} // namespace
