//===- CalibratePass.cpp - the calibrate pass -----------------------------===//

#include "CalibrationData.h"
#include "QuantQDQ/Calibration/Calibration.h"
#include "QuantQDQ/Calibration/Passes.h"
#include "QuantQDQ/Utils/BareOption.h"
#include "RangeSelection.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_CALIBRATE
#include "QuantQDQ/Calibration/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
struct CalibratePass
    : public quant_qdq::impl::CalibrateBase<CalibratePass> {
  using CalibrateBase::CalibrateBase;

  /// `--calibrate=data.npy` names the data.
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    return initializeWithMainOption<CalibratePass, CalibrateBase>(
        *this, options, "data", errorHandler);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Location loc = module.getLoc();
    std::string methodName = method;
    // auto chooses among the methods' amaxes, over max's statistics.
    bool automatic = methodName == "auto";
    std::optional<CalibrationMethod> parsed =
        automatic ? CalibrationMethod::Max
                  : symbolizeCalibrationMethod(methodName);
    if (!parsed) {
      emitError(loc) << "unknown calibration method '" << methodName
                     << "' (expected max, percentile, entropy, mse, "
                        "last-value, moving-average or auto)";
      return signalPassFailure();
    }
    if (searchSamples < 0) {
      emitError(loc) << "search-samples must be 0 (all) or positive, got "
                     << int64_t(searchSamples);
      return signalPassFailure();
    }
    if (bins < 256 || bins > (1u << 16)) {
      emitError(loc) << "bins must be in [256, 65536], got "
                     << bins.getValue();
      return signalPassFailure();
    }
    if (!(movingAverageDecay >= 0 && movingAverageDecay < 1)) {
      emitError(loc) << "moving-average decay must be in [0, 1), got "
                     << movingAverageDecay.getValue();
      return signalPassFailure();
    }
    if (!(percentile > 0 && percentile <= 100)) {
      emitError(loc) << "percentile must be in (0, 100], got "
                     << percentile.getValue();
      return signalPassFailure();
    }

    CalibrationTable table;
    if (!loadPath.empty()) {
      if (!reportPath.empty()) {
        emitError(loc) << "a calibration report compares the methods on "
                          "data; a loaded table has none";
        return signalPassFailure();
      }
      FailureOr<CalibrationTable> loaded =
          readCalibrationTable(loadPath, &getContext());
      if (failed(loaded))
        return signalPassFailure();
      table = std::move(*loaded);
    } else {
      if (data.empty()) {
        emitError(loc) << "calibrate needs data (--calibrate=<file.npy, "
                          "file.npz or folder>) or a table to load "
                          "(load=<file>)";
        return signalPassFailure();
      }
      CalibrationOptions options;
      options.method = *parsed;
      options.percentile = percentile;
      options.bins = bins;
      options.batchSize = batchSize;
      options.entry = entry;
      options.movingAverageDecay = movingAverageDecay;
      bool check = automatic ||
                   (checkRanges && TensorStatistics::needsHistogram(*parsed));
      options.compareMethods = !reportPath.empty() || check;
      options.warnFarMoreClipping = !reportPath.empty();
      SmallVector<MethodComparison> comparisons;
      if (failed(collectCalibrationTable(module, data, options, table,
                                         &comparisons)))
        return signalPassFailure();
      if (check && failed(selectRanges(*parsed, automatic, comparisons, table)))
        return signalPassFailure();
      if (!reportPath.empty() &&
          failed(writeCalibrationReport(reportPath, *parsed, comparisons, loc)))
        return signalPassFailure();
    }
    if (!savePath.empty() && failed(writeCalibrationTable(savePath, table, loc)))
      return signalPassFailure();
    if (failed(applyCalibrationTable(module, table)))
      return signalPassFailure();
  }

  /// method=auto's choice, or the check of a histogram method's ranges
  /// (selectRangesByOutputError), with a warning where the check replaced
  /// them.
  LogicalResult selectRanges(CalibrationMethod requested, bool automatic,
                             MutableArrayRef<MethodComparison> comparisons,
                             CalibrationTable &table) {
    ModuleOp module = getOperation();
    func::FuncOp function = findEntryFunction(module, entry);
    if (!function || table.ranges.empty())
      return success();
    FailureOr<RangeSelection> selection = selectRangesByOutputError(
        module, function, SmallVector<std::string>(data.begin(), data.end()),
        batchSize, searchSamples, requested, /*search=*/automatic, comparisons,
        table);
    if (failed(selection))
      return failure();
    if (selection->unmeasurable) {
      emitWarning(module.getLoc())
          << "calibration: the float network's outputs on the first "
          << selection->samples
          << " calibration samples hold NaN or infinite values; "
          << (automatic ? "method=auto keeps max's ranges"
                        : "the ranges are not checked against max's");
      return success();
    }
    if (automatic) {
      table.method = "auto";
      return success();
    }
    if (!selection->selectedSQNR)
      return success();
    emitWarning(module.getLoc()) << llvm::formatv(
        "calibration: {0}'s ranges give an output SQNR of {1:F2} dB on {2} "
        "calibration samples, {3:F2} dB below max's ({4:F2} dB); using "
        "method=auto's ranges instead, {5:F2} dB (check-ranges=false keeps "
        "them)",
        stringifyCalibrationMethod(requested), selection->requestedSQNR,
        selection->samples, selection->maxSQNR - selection->requestedSQNR,
        selection->maxSQNR, *selection->selectedSQNR);
    return success();
  }
};
} // namespace

void mlir::quant_qdq::registerCalibrationPasses() {
  registerPass([] { return createCalibrate(); });
  registerPass([] { return createActivationAwareScales(); });
  registerPass([] { return createGPTQWeights(); });
  registerPass([] { return createSmoothActivations(); });
  registerPass([] { return createSpecializeInputShapes(); });
  registerPass([] { return createSensitivity(); });
  registerPass([] { return createAutoPrecision(); });
  registerPass([] { return createBiasCorrection(); });
}
