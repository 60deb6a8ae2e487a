//===- QuantizePipeline.cpp - the deployment job as one pipeline ----------===//

#include "QuantQDQ/Driver/QuantizePipeline.h"
#include "QuantQDQ/Calibration/Passes.h"
#include "QuantQDQ/Transforms/Passes.h"
#include "QuantQDQ/Utils/BareOption.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::quant_qdq;

/// Adds `pass` configured by `options` (its own option syntax) to `pm`.
static LogicalResult
addConfiguredPass(OpPassManager &pm, std::unique_ptr<Pass> pass,
                  StringRef options,
                  function_ref<LogicalResult(const Twine &)> errorHandler) {
  if (failed(pass->initializeOptions(options, errorHandler)))
    return failure();
  pm.addPass(std::move(pass));
  return success();
}

LogicalResult mlir::quant_qdq::buildQuantizePipeline(
    OpPassManager &pm, const QuantizePipelineOptions &options,
    function_ref<LogicalResult(const Twine &)> errorHandler) {
  if (options.equalize && !options.load.empty())
    return errorHandler("equalize=true rescales the activations that a "
                        "loaded calibration table (load=) describes: "
                        "calibrate on data instead");
  // Equalization pairs layers that batch normalization no longer separates.
  if (options.foldBatchNorm || options.equalize)
    pm.addNestedPass<func::FuncOp>(createFoldBatchNorm());
  if (options.equalize)
    pm.addPass(createCrossLayerEqualization());

  InsertQDQOptions insert;
  insert.cases.assign(options.cases.begin(), options.cases.end());
  insert.specPath = options.spec;
  insert.mode = options.mode;
  insert.reportPath = options.report;
  insert.propagate = options.propagate;
  insert.activationBits = options.activationBits;
  insert.weightBits = options.weightBits;
  insert.weightFormat = options.weightFormat;
  insert.activationFormat = options.activationFormat;
  insert.weightBlockSize = options.weightBlockSize;
  insert.weightScale = options.weightScale;
  insert.attentionMaxSequence = options.attentionMaxSequence;
  insert.kvCache = options.kvCache;
  insert.target = options.target;
  pm.addPass(createInsertQDQ(std::move(insert)));

  // SmoothQuant changes the ranges of W8A8 layers' inputs: before their
  // calibration.
  if (!options.smoothAlpha.empty()) {
    SmoothActivationsOptions smooth;
    smooth.data.assign(options.data.begin(), options.data.end());
    smooth.alpha = options.smoothAlpha;
    smooth.batchSize = options.batchSize;
    pm.addPass(createSmoothActivations(std::move(smooth)));
  }
  // Activation-aware weight scales need the data, and come before the
  // activation ranges (which they do not change: they scale weight-only
  // layers).
  if (options.awq) {
    ActivationAwareScalesOptions awq;
    awq.data.assign(options.data.begin(), options.data.end());
    awq.batchSize = options.batchSize;
    pm.addPass(createActivationAwareScales(std::move(awq)));
  }
  // GPTQ rounds the weights as AWQ left them, on the inputs AWQ scaled.
  if (options.gptq) {
    GPTQWeightsOptions gptq;
    gptq.data.assign(options.data.begin(), options.data.end());
    gptq.batchSize = options.batchSize;
    pm.addPass(createGPTQWeights(std::move(gptq)));
  }

  // On the weights as AWQ and GPTQ left them; the activation ranges then
  // see the corrected outputs.
  if (options.biasCorrection) {
    BiasCorrectionOptions correction;
    correction.data.assign(options.data.begin(), options.data.end());
    correction.batchSize = options.batchSize;
    pm.addPass(createBiasCorrection(std::move(correction)));
  }
  if (!options.data.empty() || !options.load.empty()) {
    CalibrateOptions calibrate;
    calibrate.data.assign(options.data.begin(), options.data.end());
    calibrate.method = options.method;
    calibrate.percentile = options.percentile;
    calibrate.movingAverageDecay = options.decay;
    calibrate.bins = options.bins;
    calibrate.batchSize = options.batchSize;
    calibrate.savePath = options.save;
    calibrate.loadPath = options.load;
    calibrate.reportPath = options.calibrationReport;
    calibrate.checkRanges = options.checkRanges;
    calibrate.searchSamples = options.searchSamples;
    pm.addPass(createCalibrate(std::move(calibrate)));
  }
  if (!options.autoPrecision.empty() &&
      failed(addConfiguredPass(pm, createAutoPrecision(), options.autoPrecision,
                               errorHandler)))
    return failure();
  if (!options.sensitivity.empty() &&
      failed(addConfiguredPass(pm, createSensitivity(), options.sensitivity,
                               errorHandler)))
    return failure();
  return success();
}

void mlir::quant_qdq::registerQuantizePipeline() {
  registerPassPipeline(
      "qdq-quantize",
      "The deployment job: [fold batch norm,] [equalize,] insert Q/DQ, "
      "[calibrate] "
      "(insert-qdq's and calibrate's options)",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        // As for insert-qdq, a bare leading value is the case list:
        // --qdq-quantize="resnet-v1 weight-format=int4".
        std::string options =
            nameBareLeadingEntry(text, "cases", [](StringRef entry) {
              QuantizePipelineOptions probe;
              return succeeded(probe.parseFromString(entry, llvm::nulls()));
            });
        QuantizePipelineOptions parsed;
        if (failed(parsed.parseFromString(options)))
          return failure();
        return buildQuantizePipeline(pm, parsed, errorHandler);
      },
      [](function_ref<void(const detail::PassOptions &)> printOptions) {
        printOptions(QuantizePipelineOptions());
      });
}
