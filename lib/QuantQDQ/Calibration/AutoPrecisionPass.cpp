//===- AutoPrecisionPass.cpp - the cheapest formats that meet a target ----===//

#include "QuantQDQ/Calibration/Calibration.h"
#include "QuantQDQ/Calibration/Comparison.h"
#include "QuantQDQ/Calibration/Passes.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "CalibrationData.h"
#include "DenseWeights.h"
#include "QuantizationSites.h"
#include "SiteChoiceRunner.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_AUTOPRECISION
#include "QuantQDQ/Calibration/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
/// One format a site may take, as the search sees it.
struct Candidate {
  const SiteFormat *format;
  /// The site's choice code: 0 float, k the alternative k - 1.
  int32_t code;
  /// Bits times the multiply-accumulates the site feeds.
  double cost;
  /// The output's noise-to-signal ratio with only this site quantized so.
  double noise = 0;
};

/// The configurations the search walks: the cheapest, then one site raised
/// at a time.
struct UpgradePath {
  std::vector<int32_t> start;
  /// Step k raises `site` to candidate `candidate`.
  SmallVector<std::pair<unsigned, unsigned>> steps;
  /// The summed noise of each configuration 0..steps.size().
  SmallVector<double> predictedNoise;
};

struct AutoPrecisionPass
    : public quant_qdq::impl::AutoPrecisionBase<AutoPrecisionPass> {
  using AutoPrecisionBase::AutoPrecisionBase;
  void runOnOperation() override;
};
} // namespace

/// The index of the candidate a search starts a site at: the cheapest, the
/// least noisy of equally cheap ones.
static unsigned cheapestCandidate(ArrayRef<Candidate> candidates) {
  unsigned best = 0;
  for (unsigned k = 1; k < candidates.size(); ++k)
    if (candidates[k].cost < candidates[best].cost ||
        (candidates[k].cost == candidates[best].cost &&
         candidates[k].noise < candidates[best].noise))
      best = k;
  return best;
}

/// Greedy: from the cheapest candidates, repeatedly raises the site whose
/// dearer candidate removes the most noise per unit of added cost, until no
/// raise removes noise. Ties go to the earlier site, so the path is
/// deterministic.
static UpgradePath
buildUpgradePath(ArrayRef<SmallVector<Candidate>> candidates) {
  UpgradePath path;
  SmallVector<unsigned> current;
  double noise = 0;
  for (ArrayRef<Candidate> site : candidates) {
    current.push_back(cheapestCandidate(site));
    noise += site[current.back()].noise;
  }
  path.predictedNoise.push_back(noise);
  while (true) {
    std::optional<std::pair<unsigned, unsigned>> best;
    double bestGain = 0;
    for (auto [s, site] : llvm::enumerate(candidates)) {
      const Candidate &now = site[current[s]];
      for (auto [k, candidate] : llvm::enumerate(site)) {
        if (candidate.cost <= now.cost || candidate.noise >= now.noise)
          continue;
        double gain =
            (now.noise - candidate.noise) / (candidate.cost - now.cost);
        if (!best || gain > bestGain) {
          best = {unsigned(s), unsigned(k)};
          bestGain = gain;
        }
      }
    }
    if (!best)
      break;
    auto [s, k] = *best;
    noise += candidates[s][k].noise - candidates[s][current[s]].noise;
    current[s] = k;
    path.steps.push_back(*best);
    path.predictedNoise.push_back(std::max(noise, 0.0));
  }
  return path;
}

/// The choice codes of configuration `k` of `path`.
static std::vector<int32_t>
getConfiguration(ArrayRef<SmallVector<Candidate>> candidates,
                 const UpgradePath &path, size_t k) {
  std::vector<int32_t> choice;
  SmallVector<unsigned> current;
  for (ArrayRef<Candidate> site : candidates)
    current.push_back(cheapestCandidate(site));
  for (size_t i = 0; i < k; ++i)
    current[path.steps[i].first] = path.steps[i].second;
  for (auto [s, site] : llvm::enumerate(candidates))
    choice.push_back(site[current[s]].code);
  return choice;
}

/// 10 log10(1 / ratio): the SQNR a noise ratio stands for.
static double toDecibels(double noiseRatio) {
  return noiseRatio > 0 ? -10 * std::log10(noiseRatio)
                        : std::numeric_limits<double>::infinity();
}

void AutoPrecisionPass::runOnOperation() {
  ModuleOp module = getOperation();
  Location loc = module.getLoc();
  bool top1 = metric == "top1";
  if (metric != "sqnr" && !top1) {
    emitError(loc) << "qdq-auto-precision: metric must be sqnr or top1, got '"
                   << metric << "'";
    return signalPassFailure();
  }
  if (data.empty()) {
    emitError(loc) << "qdq-auto-precision needs validation data: data=<.npy "
                      "or .npz files>";
    return signalPassFailure();
  }
  if (top1 ? !(targetTop1 > 0 && targetTop1 <= 100) : !(targetSQNR > 0)) {
    emitError(loc) << "qdq-auto-precision needs a target: "
                   << (top1 ? "target-top1=PERCENT in (0, 100]"
                            : "target-sqnr=DB above 0");
    return signalPassFailure();
  }
  SmallVector<std::string> weightNames(weightFormats.begin(),
                                       weightFormats.end());
  SmallVector<std::string> activationNames(activationFormats.begin(),
                                           activationFormats.end());
  if (weightNames.empty())
    weightNames = {"int8"};
  if (activationNames.empty())
    activationNames = {"int8", "float"};
  auto weightChoices = parseSiteFormats(weightNames, "weight-formats", loc);
  auto activationChoices =
      parseSiteFormats(activationNames, "activation-formats", loc);
  if (failed(weightChoices) || failed(activationChoices))
    return signalPassFailure();
  func::FuncOp function =
      findDataPassEntry(module, "qdq-auto-precision", entry, batchSize);
  if (!function)
    return signalPassFailure();
  std::vector<QuantizationSite> sites = collectQuantizationSites(function);
  if (failed(checkSitesCalibrated(sites, "qdq-auto-precision")))
    return signalPassFailure();
  if (sites.empty()) {
    emitWarning(loc) << "qdq-auto-precision: the network quantizes nothing "
                        "it holds in float";
    return;
  }

  // Each site's candidates, and the quantizers the switchable network
  // computes for them.
  SmallVector<SmallVector<Candidate>> candidates;
  SmallVector<SmallVector<SiteQuantizer>> alternatives;
  for (QuantizationSite &site : sites) {
    ArrayRef<SiteFormat> formats =
        site.isWeight ? *weightChoices : *activationChoices;
    SmallVector<Candidate> &list = candidates.emplace_back();
    SmallVector<SiteQuantizer> &quantizers = alternatives.emplace_back();
    double macs = double(std::max<int64_t>(site.multiplyAccumulates, 1));
    for (const SiteFormat &format : formats) {
      Candidate candidate{&format, 0, format.bits * macs};
      if (!format.isFloat()) {
        FailureOr<SiteQuantizer> quantizer = reformatSite(site, format);
        if (failed(quantizer)) {
          site.ops.front()->emitError()
              << "qdq-auto-precision cannot quantize '" << site.name << "' as "
              << format.name;
          return signalPassFailure();
        }
        quantizers.push_back(*quantizer);
        candidate.code = int32_t(quantizers.size());
      }
      list.push_back(candidate);
    }
  }
  SmallVector<std::string> paths(data.begin(), data.end());
  FailureOr<std::unique_ptr<SiteChoiceRunner>> created =
      SiteChoiceRunner::create(module, function, alternatives, paths, batchSize,
                               loc);
  if (failed(created))
    return signalPassFailure();
  SiteChoiceRunner &runner = **created;
  if (runner.hasNonFiniteReference()) {
    emitError(loc) << "qdq-auto-precision: the float network's outputs on "
                      "the validation data hold NaN or infinite values";
    return signalPassFailure();
  }

  // 1. Each site's noise in each format, the others in float.
  for (auto [s, list] : llvm::enumerate(candidates))
    for (Candidate &candidate : list) {
      if (candidate.code == 0)
        continue;
      std::vector<int32_t> choice(sites.size(), 0);
      choice[s] = candidate.code;
      FailureOr<OutputError> error = runner.measure(choice);
      if (failed(error))
        return signalPassFailure();
      candidate.noise = error->getNoiseRatio();
    }

  // 2. The configurations, cheapest first.
  UpgradePath path = buildUpgradePath(candidates);
  size_t last = path.steps.size();

  // 3. The first configuration that meets the target, measured: galloping
  // from where the summed noise predicts it, then halving.
  DenseMap<size_t, OutputError> verified;
  auto meets = [&](size_t k) -> FailureOr<bool> {
    FailureOr<OutputError> error =
        runner.measure(getConfiguration(candidates, path, k));
    if (failed(error))
      return failure();
    verified[k] = *error;
    if (top1 && error->rows == 0) {
      emitError(loc) << "qdq-auto-precision: metric=top1 needs a "
                        "classifier output, f32 [N, classes]";
      return failure();
    }
    if (top1)
      return error->getTop1Agreement().value_or(100) >= targetTop1;
    // On each half of the data, not only on the whole, so that a
    // configuration does not pass by the luck of which samples it was
    // measured on.
    return error->getWorstHalfSQNR() >= targetSQNR;
  };
  // Top-1 agreement has no prediction to start from: the cheapest.
  size_t start = 0;
  if (!top1) {
    double targetNoise = std::pow(10.0, -targetSQNR / 10);
    while (start < last && path.predictedNoise[start] > targetNoise)
      ++start;
  }
  FailureOr<bool> startMeets = meets(start);
  if (failed(startMeets))
    return signalPassFailure();
  // [low, high]: low fails (or is -1), high meets (or is last + 1).
  int64_t low, high;
  if (*startMeets) {
    high = int64_t(start);
    low = high;
    for (int64_t stride = 1;; stride *= 2) {
      low = std::max<int64_t>(high - stride, -1);
      if (low < 0)
        break;
      FailureOr<bool> ok = meets(size_t(low));
      if (failed(ok))
        return signalPassFailure();
      if (!*ok)
        break;
      high = low;
    }
  } else {
    low = int64_t(start);
    high = low;
    for (int64_t stride = 1;; stride *= 2) {
      high = std::min<int64_t>(low + stride, int64_t(last) + 1);
      if (high > int64_t(last))
        break;
      FailureOr<bool> ok = meets(size_t(high));
      if (failed(ok))
        return signalPassFailure();
      if (*ok)
        break;
      low = high;
    }
  }
  while (high - low > 1) {
    int64_t middle = low + (high - low) / 2;
    FailureOr<bool> ok = meets(size_t(middle));
    if (failed(ok))
      return signalPassFailure();
    (*ok ? high : low) = middle;
  }
  size_t chosen = size_t(std::min<int64_t>(high, int64_t(last)));
  if (high > int64_t(last)) {
    const OutputError &best = verified[last];
    InFlightDiagnostic warning = emitWarning(loc)
                                 << "qdq-auto-precision: even the most "
                                    "precise formats allowed reach ";
    if (top1)
      warning << llvm::formatv("{0:F1}% top-1 agreement",
                               best.getTop1Agreement().value_or(100));
    else
      warning << formatDecibels(best.getWorstHalfSQNR()) << " dB"
              << (best.hasHalves ? " on the worse half of the data" : "");
    warning << ", short of the target; the network keeps them";
  }
  std::vector<int32_t> choice = getConfiguration(candidates, path, chosen);
  const OutputError &result = verified[chosen];

  // The report, then the network quantized as chosen.
  std::string text;
  llvm::raw_string_ostream report(text);
  double cost = 0, cheapest = 0, macs = 0;
  int64_t raised = 0;
  for (auto [s, list] : llvm::enumerate(candidates)) {
    unsigned k =
        llvm::find_if(list,
                      [&](const Candidate &c) { return c.code == choice[s]; }) -
        list.begin();
    cost += list[k].cost;
    cheapest += list[cheapestCandidate(list)].cost;
    macs += double(std::max<int64_t>(sites[s].multiplyAccumulates, 1));
    raised += k != cheapestCandidate(list);
  }
  report << "automatic precision on " << runner.getSamples()
         << " samples: target "
         << (top1 ? llvm::formatv("{0:F1}% top-1 agreement", double(targetTop1))
                        .str()
                  : formatDecibels(targetSQNR) + " dB SQNR")
         << "; chosen: SQNR " << formatDecibels(result.getSQNR()) << " dB";
  // The figure the target was held to.
  if (!top1 && result.hasHalves)
    report << " (worse half " << formatDecibels(result.getWorstHalfSQNR())
           << " dB)";
  if (std::optional<double> agreement = result.getTop1Agreement())
    report << llvm::formatv(", top-1 agreement {0:F1}%", *agreement);
  report << llvm::formatv(
      "; {0:F2} bits per multiply-accumulate on average (cheapest {1:F2}); "
      "{2} of {3} pairs raised; configuration {4} of {5}; {6} runs\n",
      cost / macs, cheapest / macs, raised, sites.size(), chosen, last,
      runner.getRuns());
  report << "tensor kind layers MACs format alone-dB\n";
  for (auto [s, list] : llvm::enumerate(candidates)) {
    const Candidate &c = *llvm::find_if(
        list, [&](const Candidate &c) { return c.code == choice[s]; });
    report << sites[s].name << " " << (sites[s].isWeight ? "weight" : "input")
           << " " << describeSiteLayers(sites[s]) << " "
           << sites[s].multiplyAccumulates << " " << c.format->name << " "
           << formatDecibels(toDecibels(c.noise)) << "\n";
  }
  numRaised = raised;
  numRuns = runner.getRuns();
  for (int64_t s = int64_t(sites.size()) - 1; s >= 0; --s) {
    int32_t code = choice[s];
    const SiteQuantizer *keep = code ? &alternatives[s][code - 1] : nullptr;
    if (keep && keep->quantizer == sites[s].current.quantizer &&
        keep->scale == sites[s].current.scale &&
        keep->zeroPoint == sites[s].current.zeroPoint)
      continue; // As calibrated: the site's ops stay as they are.
    setSiteQuantizer(sites[s], code == 0 ? std::nullopt
                                         : std::optional<SiteQuantizer>(
                                               alternatives[s][code - 1]));
  }
  if (!reportPath.empty() &&
      failed(writeReport(reportPath, text, loc, "automatic precision")))
    return signalPassFailure();
}
