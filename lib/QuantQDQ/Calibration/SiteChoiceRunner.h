//===- SiteChoiceRunner.h - a network's error per choice of formats -*- C++
//-*-===//
//
// Runs a network made switchable (makeSwitchable) on validation data, once
// in float for the reference outputs, then once per choice of what each
// site computes, and measures what the choice does to the outputs: their
// SQNR over every f32 output together, and, for classifier outputs
// [N, classes], how often the top-1 class agrees with float's. The network
// compiles once per batch shape, whatever the number of choices.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_LIB_CALIBRATION_SITECHOICERUNNER_H
#define QUANTQDQ_LIB_CALIBRATION_SITECHOICERUNNER_H

#include "CalibrationData.h"
#include "QuantizationSites.h"

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace mlir::quant_qdq {

/// What a choice does to the network's outputs against float.
struct OutputError {
  /// Sums of ref^2 and (ref - out)^2 over every float output element.
  double signal = 0, noise = 0;
  /// Rows of [N, C > 1] outputs, and those whose top-1 class agrees.
  int64_t rows = 0, top1Agreeing = 0;
  /// The noise ratio of the even and of the odd batches apart: a choice
  /// that lowers both generalizes beyond the samples it was measured on.
  std::array<double, 2> halfSignal{}, halfNoise{};
  bool hasHalves = false;

  /// Whether this error is below `other`'s on the whole, and on each half
  /// of the batches when there are two.
  bool isBelowOnBothHalves(const OutputError &other) const;

  /// noise / signal (0 without signal).
  double getNoiseRatio() const { return signal > 0 ? noise / signal : 0; }
  /// 10 log10(signal / noise) dB; +inf without noise.
  double getSQNR() const;
  /// The lower SQNR of the two halves (the whole's without halves): a
  /// configuration that meets a target on both halves did not meet it by
  /// the luck of which samples it was measured on.
  double getWorstHalfSQNR() const;
  /// The share of agreeing rows in percent, when there are rows.
  std::optional<double> getTop1Agreement() const;
};

class SiteChoiceRunner {
public:
  /// Loads `dataPaths` for the inputs of `entry`, compiles a copy of
  /// `module` whose entry is made switchable (makeSwitchable) between float
  /// and `alternatives`, one list per site of collectQuantizationSites
  /// (entry), and runs it in float for the reference. `maxSamples` > 0
  /// keeps the data's first samples only. Errors are diagnostics at `loc`.
  static FailureOr<std::unique_ptr<SiteChoiceRunner>>
  create(ModuleOp module, func::FuncOp entry,
         ArrayRef<SmallVector<SiteQuantizer>> alternatives,
         ArrayRef<std::string> dataPaths, int64_t batchSize, Location loc,
         int64_t maxSamples = 0);

  /// The error of running site i with choice[i] (0: float, k: alternative
  /// k - 1). A choice measured before is not run again.
  FailureOr<OutputError> measure(ArrayRef<int32_t> choice);

  /// The runs over the data so far (the reference's included).
  int64_t getRuns() const { return runs; }
  int64_t getSamples() const { return data.totalSamples; }
  /// Whether the float network's outputs on the data hold NaN or infinite
  /// values (then no error can be measured).
  bool hasNonFiniteReference() const { return nonFiniteReference; }

private:
  SiteChoiceRunner(OwningOpRef<ModuleOp> switchable, std::string entry,
                   CalibrationData data, int64_t batchSize, unsigned sites,
                   Location loc);

  /// Runs `choice` over the data, calling `fn` with each batch's index and
  /// outputs.
  LogicalResult runChoice(ArrayRef<int32_t> choice,
                          function_ref<void(size_t, ArrayRef<NpyArray>)> fn);

  OwningOpRef<ModuleOp> module;
  std::string entry;
  CalibrationData data;
  int64_t batchSize;
  unsigned numSites;
  Location loc;
  ExecutorsByShape executors;
  /// The float outputs of each batch, in order (float ones in f32).
  std::vector<std::vector<NpyArray>> reference;
  std::map<std::vector<int32_t>, OutputError> measured;
  int64_t runs = 0;
  bool nonFiniteReference = false;
};

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_LIB_CALIBRATION_SITECHOICERUNNER_H
