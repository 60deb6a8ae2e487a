//===- SpecializeInputShapesPass.cpp - static shapes ahead of lowering ----===//
//
// What qdq-run and the data passes do before they run a model, as a pass
// of its own, for other compilers that lower the module.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Calibration/Calibration.h"
#include "QuantQDQ/Calibration/Passes.h"
#include "QuantQDQ/Execution/JITExecutor.h"
#include "QuantQDQ/Utils/BareOption.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_SPECIALIZEINPUTSHAPES
#include "QuantQDQ/Calibration/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
struct SpecializeInputShapesPass
    : public quant_qdq::impl::SpecializeInputShapesBase<
          SpecializeInputShapesPass> {
  using SpecializeInputShapesBase::SpecializeInputShapesBase;

  /// `--qdq-specialize-input-shapes=1x3x224x224` names the shapes.
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    return initializeWithMainOption<SpecializeInputShapesPass,
                                    SpecializeInputShapesBase>(
        *this, options, "shapes", errorHandler);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp func = findEntryFunction(module, entry);
    if (!func) {
      emitError(module.getLoc())
          << "qdq-specialize-input-shapes needs one public function with a "
             "body, or entry=";
      return signalPassFailure();
    }
    SmallVector<SmallVector<int64_t>> inputShapes;
    for (const std::string &text : shapes) {
      SmallVector<int64_t> &shape = inputShapes.emplace_back();
      SmallVector<StringRef> sizes;
      if (!text.empty())
        StringRef(text).split(sizes, 'x');
      for (StringRef size : sizes) {
        int64_t value;
        if (size.getAsInteger(10, value) || value < 0) {
          emitError(module.getLoc())
              << "qdq-specialize-input-shapes: '" << text
              << "' is not a shape (sizes joined by 'x', as 1x3x224x224)";
          return signalPassFailure();
        }
        shape.push_back(value);
      }
    }
    if (failed(specializeInputShapes(func, inputShapes)))
      return signalPassFailure();
  }
};
} // namespace
