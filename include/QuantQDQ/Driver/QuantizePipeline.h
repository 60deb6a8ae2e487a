//===- QuantizePipeline.h - the deployment job as one pipeline --*- C++ -*-===//
//
// What a user means by "quantize this model" (the seed toolkit's
// quantize_model): optionally fold batch normalization, place Q/DQ,
// optionally smooth W8A8 layers' inputs (SmoothQuant), scale weight-only
// layers by their activations (AWQ) and round weights to compensate their
// error (GPTQ), and
// calibrate when data or a table is given. qdq-opt registers it as the
// pipeline `qdq-quantize`; Python's quantize_model builds the same
// pipeline through buildQuantizePipeline, so both run the same passes with
// the same options.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_DRIVER_QUANTIZEPIPELINE_H
#define QUANTQDQ_DRIVER_QUANTIZEPIPELINE_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir::quant_qdq {

struct QuantizePipelineOptions
    : public PassPipelineOptions<QuantizePipelineOptions> {
  Option<bool> foldBatchNorm{
      *this, "fold-batch-norm",
      llvm::cl::desc("Fold batch normalization into the convolution before "
                     "it first (qdq-fold-batch-norm)"),
      llvm::cl::init(false)};
  Option<bool> equalize{
      *this, "equalize",
      llvm::cl::desc("Cross-layer equalization (qdq-equalize) after folding "
                     "batch normalization, before insertion"),
      llvm::cl::init(false)};
  // insert-qdq's options.
  ListOption<std::string> cases{
      *this, "cases",
      llvm::cl::desc("Insertion cases: library names or case files")};
  Option<std::string> spec{*this, "spec",
                           llvm::cl::desc("QuantizationSpec JSON file")};
  Option<std::string> mode{*this, "mode",
                           llvm::cl::desc("full or partial"),
                           llvm::cl::init("full")};
  Option<std::string> report{
      *this, "report",
      llvm::cl::desc("Write the per-layer decisions to this file")};
  Option<bool> propagate{
      *this, "propagate",
      llvm::cl::desc("Move Q/DQ pairs through pass-through layers"),
      llvm::cl::init(true)};
  Option<unsigned> activationBits{*this, "activation-bits",
                                  llvm::cl::desc("Activation bit width"),
                                  llvm::cl::init(8)};
  Option<unsigned> weightBits{*this, "weight-bits",
                              llvm::cl::desc("Weight bit width"),
                              llvm::cl::init(8)};
  Option<std::string> weightFormat{
      *this, "weight-format", llvm::cl::desc("Weight format: int8 or int4")};
  Option<std::string> activationFormat{
      *this, "activation-format",
      llvm::cl::desc("Activation format: int8, int16 or none")};
  Option<std::string> kvCache{
      *this, "kv-cache",
      llvm::cl::desc("Quantize a decoder's key/value cache: int8 or fp8")};
  Option<std::string> target{
      *this, "target",
      llvm::cl::desc("The runtime the pairs are placed for: tensorrt or "
                     "onnxruntime (insert-qdq's target=)"),
      llvm::cl::init("tensorrt")};
  Option<bool> awq{
      *this, "awq",
      llvm::cl::desc("Activation-aware weight scales (qdq-awq) on `data` "
                     "for weight-only dense layers"),
      llvm::cl::init(false)};
  Option<std::string> smoothAlpha{
      *this, "smooth-alpha",
      llvm::cl::desc("SmoothQuant (qdq-smooth) on `data` for W8A8 dense "
                     "layers with this migration strength, or auto "
                     "(empty: none)")};
  Option<bool> gptq{
      *this, "gptq",
      llvm::cl::desc("Weights that compensate their rounding error on `data` "
                     "(qdq-gptq), after AWQ's scales"),
      llvm::cl::init(false)};
  Option<bool> biasCorrection{
      *this, "bias-correction",
      llvm::cl::desc("Fold weight rounding's mean output shift into the "
                     "biases on `data` (qdq-bias-correction), before "
                     "calibration"),
      llvm::cl::init(false)};
  Option<int64_t> weightBlockSize{
      *this, "weight-block-size",
      llvm::cl::desc("Input channels per weight block (0: per channel)"),
      llvm::cl::init(0)};
  Option<std::string> weightScale{
      *this, "weight-scale",
      llvm::cl::desc("Weight scales: max, mse, or auto (mse at 4 bits or "
                     "fewer)"),
      llvm::cl::init("auto")};
  Option<int64_t> attentionMaxSequence{
      *this, "attention-max-sequence",
      llvm::cl::desc("Longest attention sequence whose matmuls the "
                     "attention-matmul case quantizes"),
      llvm::cl::init(512)};
  // calibrate's options; calibration runs when `data` or `load` is given.
  ListOption<std::string> data{
      *this, "data",
      llvm::cl::desc("Calibration .npy files or folders")};
  Option<std::string> method{
      *this, "method",
      llvm::cl::desc("Calibration method: max, percentile, entropy, mse, "
                     "last-value, moving-average, auto"),
      llvm::cl::init("max")};
  Option<double> percentile{*this, "percentile",
                            llvm::cl::desc("Percentile of |x|"),
                            llvm::cl::init(99.99)};
  Option<double> decay{*this, "decay",
                       llvm::cl::desc("Decay of the moving-average method"),
                       llvm::cl::init(0.999)};
  Option<unsigned> bins{*this, "bins", llvm::cl::desc("Histogram bins"),
                        llvm::cl::init(2048)};
  Option<int64_t> batchSize{
      *this, "batch-size",
      llvm::cl::desc("Samples per run (0: 32 for last-value, "
                     "moving-average and report=, else one per thread, "
                     "4 to 32)"),
      llvm::cl::init(0)};
  Option<std::string> save{
      *this, "save", llvm::cl::desc("Write the calibration table here")};
  Option<std::string> load{
      *this, "load",
      llvm::cl::desc("Apply this calibration table instead of running")};
  Option<bool> checkRanges{
      *this, "check-ranges",
      llvm::cl::desc("Replace a histogram method's ranges by method=auto's "
                     "when they cost over 0.5 dB against max's"),
      llvm::cl::init(true)};
  Option<int64_t> searchSamples{
      *this, "search-samples",
      llvm::cl::desc("Samples method=auto and the check run (0: all)"),
      llvm::cl::init(32)};
  Option<std::string> calibrationReport{
      *this, "calibration-report",
      llvm::cl::desc("Write what every calibration method would choose")};
  // After calibration: accuracy to a budget, each given qdq-auto-precision's
  // and qdq-sensitivity's own options in braces.
  Option<std::string> autoPrecision{
      *this, "auto-precision",
      llvm::cl::desc("Choose formats per Q/DQ pair after calibration: "
                     "qdq-auto-precision's options, e.g. {target-sqnr=35 "
                     "data=val.npy}")};
  Option<std::string> sensitivity{
      *this, "sensitivity",
      llvm::cl::desc("Write the per-layer sensitivity after calibration (and "
                     "auto-precision): qdq-sensitivity's options, e.g. "
                     "{table.txt data=val.npy}")};
};

/// Adds [qdq-fold-batch-norm,] [qdq-equalize,] insert-qdq{...} [,
/// calibrate{...}]
/// [, qdq-auto-precision{...}] [, qdq-sensitivity{...}] to `pm` (a pass
/// manager on builtin.module). Fails, through `errorHandler`, when the
/// nested pass options do not parse.
LogicalResult
buildQuantizePipeline(OpPassManager &pm, const QuantizePipelineOptions &options,
                      function_ref<LogicalResult(const Twine &)> errorHandler);

/// Registers `qdq-quantize`.
void registerQuantizePipeline();

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_DRIVER_QUANTIZEPIPELINE_H
