//===- ConvertQuantQDQToLinalg.cpp - the lowering pass --------------------===//

#include "LoweringUtils.h"
#include "ONNXNodeLowering.h"
#include "QuantQDQ/Conversion/Passes.h"
#include "QuantQDQ/Conversion/QuantQDQToLinalg.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_CONVERTQUANTQDQTOLINALG
#include "QuantQDQ/Conversion/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;

void mlir::quant_qdq::populateLayerToLinalgPatterns(
    RewritePatternSet &patterns) {
  populateConvPoolToLinalgPatterns(patterns);
  populateElementwiseToLinalgPatterns(patterns);
  populateNormalizationToLinalgPatterns(patterns);
  populateShapeToLinalgPatterns(patterns);
  populateONNXNodeToLinalgPatterns(patterns);
}

namespace {
struct ConvertQuantQDQToLinalgPass
    : public quant_qdq::impl::ConvertQuantQDQToLinalgBase<
          ConvertQuantQDQToLinalgPass> {
  void runOnOperation() override {
    // Say once, at its location, why an op cannot lower.
    bool blocked = false;
    getOperation()->walk([&](Operation *op) {
      if (auto generic = dyn_cast<GenericOp>(op);
          generic && !hasONNXNodeLowering(generic)) {
        generic.emitOpError("cannot be lowered: no lowering for layer type '")
            << generic.getOpType() << "'";
        blocked = true;
        return;
      }
      // Why a Q/DQ op cannot lower, if it cannot.
      auto whyNot = [](auto quantOp) -> const char * {
        if (!quantOp.isCalibrated())
          return "has no scale: calibrate the model, or set scales, before "
                 "lowering";
        QuantizerAttr q = quantOp.getQuantizer();
        auto type = cast<RankedTensorType>(quantOp.getInput().getType());
        if (q.isBlocked() &&
            ShapedType::isDynamicShape(q.getScaleShape(type.getShape())))
          return "quantizes blocks of a tensor of dynamic shape: block "
                 "scales need the sizes of the tensor";
        return nullptr;
      };
      const char *reason =
          TypeSwitch<Operation *, const char *>(op)
              .Case<QuantizeOp, DequantizeOp, FakeQuantOp, FakeQuantGradOp>(
                  whyNot)
              .Default([](Operation *) { return nullptr; });
      if (reason) {
        op->emitOpError(reason);
        blocked = true;
      }
    });
    if (blocked)
      return signalPassFailure();

    RewritePatternSet patterns(&getContext());
    populateLayerToLinalgPatterns(patterns);
    populateQDQToLinalgPatterns(patterns);
    populateTensorRangeToLinalgPatterns(patterns);
    ConversionTarget target(getContext());
    target.addIllegalDialect<QuantQDQDialect>();
    // Counting is no linalg op: qdq-lower-histograms writes it as loops,
    // after qdq-split-batch has seen its rows as samples.
    target.addLegalOp<HistogramOp>();
    // A range of dynamic shape waits for shape specialization.
    target.addDynamicallyLegalOp<TensorRangeOp>([](TensorRangeOp op) {
      return !op.getInput().getType().hasStaticShape();
    });
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    // A lowering that refuses a node says why at the node; the driver's
    // "failed to legalize" after it would only repeat that.
    bool explained = false;
    ScopedDiagnosticHandler quiet(&getContext(), [&](Diagnostic &diag) {
      if (diag.getSeverity() != DiagnosticSeverity::Error)
        return failure();
      if (explained && StringRef(diag.str()).starts_with("failed to legalize"))
        return success();
      explained = true;
      return failure();
    });
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();
    widenNarrowConstants(getOperation());
    eraseIntegerSignedness(getOperation());
  }
};
} // namespace
