//===- RangeSelection.cpp - activation ranges chosen by output error ------===//

#include "RangeSelection.h"

#include "QuantizationSites.h"
#include "SiteChoiceRunner.h"

#include "QuantQDQ/Utils/Scales.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::quant_qdq;

/// The methods a range is chosen among, in CalibrationMethod order.
static constexpr unsigned kCandidateMethods = 4;

/// Whether `site` takes its range from `row`'s methods: an activation whose
/// symmetric, signed, per-tensor quantizer was calibrated by `requested`,
/// not bounded by its layer.
static bool isEligible(const QuantizationSite &site,
                       const MethodComparison *row,
                       CalibrationMethod requested) {
  QuantizerAttr q = site.current.quantizer;
  return row && !site.isWeight && !row->layerBoundAmax && !row->ownMethod &&
         row->chosen == requested && q.getSymmetric() && q.getIsSigned() &&
         !q.isPerAxis();
}

/// `site` quantizing with amax `amax`.
static SiteQuantizer withAmax(const QuantizationSite &site, double amax) {
  QuantizerAttr q = site.current.quantizer;
  QuantParams params = computeActivationParams(q, -amax, amax, amax);
  return {q, DenseF32ArrayAttr::get(q.getContext(), {params.scale}), nullptr};
}

FailureOr<RangeSelection> mlir::quant_qdq::selectRangesByOutputError(
    ModuleOp module, func::FuncOp entry, ArrayRef<std::string> dataPaths,
    int64_t batchSize, int64_t maxSamples, CalibrationMethod requested,
    bool search, MutableArrayRef<MethodComparison> comparisons,
    CalibrationTable &table) {
  Location loc = module.getLoc();
  OwningOpRef<ModuleOp> calibrated = cast<ModuleOp>(module->clone());
  if (failed(applyCalibrationTable(*calibrated, table)))
    return failure();
  auto calibratedEntry =
      calibrated->lookupSymbol<func::FuncOp>(entry.getSymName());
  std::vector<QuantizationSite> sites =
      collectQuantizationSites(calibratedEntry);
  llvm::StringMap<MethodComparison *> rows;
  for (MethodComparison &row : comparisons)
    rows[row.tensor] = &row;

  // Eligible sites switch between the four methods' amaxes (codes 1 to 4);
  // the others keep their calibrated quantizer (code 1).
  SmallVector<SmallVector<SiteQuantizer>> alternatives;
  SmallVector<MethodComparison *> eligible;
  for (const QuantizationSite &site : sites) {
    MethodComparison *row = rows.lookup(site.name);
    if (!isEligible(site, row, requested)) {
      alternatives.push_back({site.current});
      eligible.push_back(nullptr);
      continue;
    }
    SmallVector<SiteQuantizer> &list = alternatives.emplace_back();
    for (unsigned m = 0; m < kCandidateMethods; ++m)
      list.push_back(withAmax(site, row->amax[m]));
    eligible.push_back(row);
  }
  FailureOr<std::unique_ptr<SiteChoiceRunner>> created =
      SiteChoiceRunner::create(*calibrated, calibratedEntry, alternatives,
                               dataPaths, batchSize, loc, maxSamples);
  if (failed(created))
    return failure();
  SiteChoiceRunner &runner = **created;
  RangeSelection result;
  if (runner.hasNonFiniteReference()) {
    result.unmeasurable = true;
    result.samples = runner.getSamples();
    return result;
  }

  // Every eligible site at method `m` (and the rest as calibrated).
  auto uniform = [&](unsigned m) {
    std::vector<int32_t> choice;
    for (MethodComparison *row : eligible)
      choice.push_back(row ? int32_t(m) + 1 : 1);
    return choice;
  };
  unsigned requestedIndex = unsigned(requested);
  FailureOr<OutputError> requestedError =
      runner.measure(uniform(std::min(requestedIndex, kCandidateMethods - 1)));
  FailureOr<OutputError> maxError =
      runner.measure(uniform(unsigned(CalibrationMethod::Max)));
  if (failed(requestedError) || failed(maxError))
    return failure();
  result.requestedSQNR = requestedError->getSQNR();
  result.maxSQNR = maxError->getSQNR();
  result.samples = runner.getSamples();
  auto finish = [&]() {
    result.runs = runner.getRuns();
    return result;
  };
  if (!search &&
      !(result.requestedSQNR < result.maxSQNR - kMaxLossAgainstMaxDecibels))
    return finish();

  // A tensor several quantize ops read changes as one: its sites, by row,
  // in program order of their first site.
  llvm::MapVector<MethodComparison *, SmallVector<unsigned>> sitesOf;
  for (auto [s, row] : llvm::enumerate(eligible))
    if (row)
      sitesOf[row].push_back(s);

  // One sweep of coordinate descent from max's ranges: each eligible
  // tensor in program order tries the other methods' amaxes, the rest of
  // the network quantized as chosen so far, and keeps the one of least
  // output noise. Errors of several tensors interact (a tensor alone, the
  // rest in float, misjudges by tenths of a dB what it does among the
  // others), so each is measured among them; the result never measures
  // worse than max.
  std::vector<int32_t> selected = uniform(unsigned(CalibrationMethod::Max));
  OutputError selectedError = *maxError;
  DenseMap<MethodComparison *, unsigned> chosen;
  for (auto &[row, members] : sitesOf) {
    chosen[row] = unsigned(CalibrationMethod::Max);
    for (unsigned m = 1; m < kCandidateMethods; ++m) {
      // Equal amaxes quantize alike: measured once.
      if (llvm::is_contained(ArrayRef<double>(row->amax).take_front(m),
                             row->amax[m]))
        continue;
      std::vector<int32_t> choice = selected;
      for (unsigned s : members)
        choice[s] = int32_t(m) + 1;
      FailureOr<OutputError> error = runner.measure(choice);
      if (failed(error))
        return failure();
      // Kept only where it lowers the noise of both halves of the data:
      // a change that helps some samples and hurts others fits noise.
      if (error->isBelowOnBothHalves(selectedError)) {
        selectedError = *error;
        selected = std::move(choice);
        chosen[row] = m;
      }
    }
  }
  result.selectedSQNR = selectedError.getSQNR();
  for (auto &[row, members] : sitesOf) {
    unsigned m = chosen[row];
    ++result.tensorsByMethod[m];
    row->chosenByOutputError = true;
    if (row->chosen == CalibrationMethod(m))
      continue;
    table.ranges[row->tensor].amax = row->amax[m];
    row->chosen = CalibrationMethod(m);
    result.replaced = true;
  }
  return finish();
}
