//===- SiteChoiceRunner.cpp - a network's error per choice of formats -----===//

#include "SiteChoiceRunner.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;
using namespace mlir::quant_qdq;

double OutputError::getSQNR() const {
  if (noise == 0)
    return std::numeric_limits<double>::infinity();
  return 10 * std::log10(signal / noise);
}

double OutputError::getWorstHalfSQNR() const {
  double worst = getSQNR();
  if (!hasHalves)
    return worst;
  for (unsigned h = 0; h < 2; ++h)
    if (halfNoise[h] > 0)
      worst = std::min(worst, 10 * std::log10(halfSignal[h] / halfNoise[h]));
  return worst;
}

bool OutputError::isBelowOnBothHalves(const OutputError &other) const {
  if (!(getNoiseRatio() < other.getNoiseRatio()))
    return false;
  if (!hasHalves || !other.hasHalves)
    return true;
  for (unsigned h = 0; h < 2; ++h)
    if (!(halfNoise[h] * other.halfSignal[h] <
          other.halfNoise[h] * halfSignal[h]))
      return false;
  return true;
}

std::optional<double> OutputError::getTop1Agreement() const {
  if (rows == 0)
    return std::nullopt;
  return 100.0 * double(top1Agreeing) / double(rows);
}

SiteChoiceRunner::SiteChoiceRunner(OwningOpRef<ModuleOp> switchable,
                                   std::string entry, CalibrationData data,
                                   int64_t batchSize, unsigned sites,
                                   Location loc)
    : module(std::move(switchable)), entry(std::move(entry)),
      data(std::move(data)), batchSize(batchSize), numSites(sites), loc(loc),
      executors([](ModuleOp) {}) {}

FailureOr<std::unique_ptr<SiteChoiceRunner>>
SiteChoiceRunner::create(ModuleOp module, func::FuncOp entry,
                         ArrayRef<SmallVector<SiteQuantizer>> alternatives,
                         ArrayRef<std::string> dataPaths, int64_t batchSize,
                         Location loc, int64_t maxSamples) {
  FailureOr<CalibrationData> data =
      CalibrationData::load(dataPaths, entry, loc);
  if (failed(data))
    return failure();
  if (maxSamples > 0)
    data->keepFirstSamples(maxSamples);
  OwningOpRef<ModuleOp> switchable = cast<ModuleOp>(module->clone());
  auto switchableEntry =
      switchable->lookupSymbol<func::FuncOp>(entry.getSymName());
  std::vector<QuantizationSite> sites =
      collectQuantizationSites(switchableEntry);
  assert(sites.size() == alternatives.size() && "one list per site");
  makeSwitchable(switchableEntry, sites, alternatives);
  std::unique_ptr<SiteChoiceRunner> runner(new SiteChoiceRunner(
      std::move(switchable), entry.getSymName().str(), std::move(*data),
      batchSize, unsigned(sites.size()), loc));
  std::vector<int32_t> floatChoice(runner->numSites, 0);
  if (failed(runner->runChoice(floatChoice, [&](size_t batch,
                                                ArrayRef<NpyArray> outputs) {
        std::vector<NpyArray> &kept = runner->reference.emplace_back();
        Type f32 = Float32Type::get(loc.getContext());
        for (const NpyArray &output : outputs) {
          // Copied (the executor reuses its buffers from run to run), and
          // kept in f32, as every run is compared.
          NpyArray copy = NpyArray::allocate(output.elementType, output.shape,
                                             output.isUnsigned);
          std::memcpy(copy.bytes, output.bytes, output.getNumBytes());
          copy = convertFloatElements(copy, f32);
          if (copy.elementType.isF32()) {
            const float *begin = reinterpret_cast<const float *>(copy.bytes);
            runner->nonFiniteReference |=
                !std::all_of(begin, begin + copy.getNumElements(),
                             [](float v) { return std::isfinite(v); });
          }
          kept.push_back(std::move(copy));
        }
      })))
    return failure();
  runner->measured[floatChoice] = OutputError();
  return runner;
}

LogicalResult
SiteChoiceRunner::runChoice(ArrayRef<int32_t> choice,
                            function_ref<void(size_t, ArrayRef<NpyArray>)> fn) {
  NpyArray choiceArray = NpyArray::allocate(
      IntegerType::get(loc.getContext(), 32), {int64_t(numSites)});
  std::memcpy(choiceArray.bytes, choice.data(), choice.size() * 4);
  size_t batch = 0;
  ++runs;
  return data.forEachBatch(
      batchSize, loc,
      [&](MutableArrayRef<NpyArray> inputs, int64_t) -> LogicalResult {
        SmallVector<NpyArray> arguments(inputs.begin(), inputs.end());
        arguments.push_back(choiceArray);
        JITExecutor *executor = executors.get(*module, entry, arguments);
        if (!executor)
          return failure();
        SmallVector<NpyArray> outputs;
        if (llvm::Error error = executor->run(arguments, outputs))
          return emitError(loc) << llvm::toString(std::move(error));
        fn(batch++, outputs);
        return success();
      },
      // Copies of a short batch's samples fill it up rather than compiling
      // its shape: they count twice, in every choice alike.
      [](int64_t, int64_t) { return true; });
}

/// Adds what `actual` differs from `reference` by to `error`.
static void accumulateError(const NpyArray &reference,
                            const NpyArray &actualArray, OutputError &error) {
  if (!reference.elementType.isF32() || reference.shape != actualArray.shape)
    return;
  // f16 and bf16 outputs are compared as f32, as the reference is kept.
  NpyArray actual = convertFloatElements(actualArray, reference.elementType);
  ArrayRef<float> ref(reinterpret_cast<const float *>(reference.bytes),
                      reference.getNumElements());
  ArrayRef<float> got(reinterpret_cast<const float *>(actual.bytes),
                      actual.getNumElements());
  for (auto [r, q] : llvm::zip(ref, got)) {
    double difference = double(r) - double(q);
    error.signal += double(r) * r;
    error.noise += difference * difference;
  }
  ArrayRef<int64_t> shape = reference.shape;
  if (shape.size() != 2 || shape[1] < 2)
    return;
  int64_t classes = shape[1];
  for (int64_t row = 0; row < shape[0]; ++row) {
    auto argmax = [&](ArrayRef<float> values) {
      ArrayRef<float> r = values.slice(row * classes, classes);
      return std::max_element(r.begin(), r.end()) - r.begin();
    };
    error.top1Agreeing += argmax(ref) == argmax(got);
    ++error.rows;
  }
}

FailureOr<OutputError> SiteChoiceRunner::measure(ArrayRef<int32_t> choice) {
  std::vector<int32_t> key(choice.begin(), choice.end());
  if (auto it = measured.find(key); it != measured.end())
    return it->second;
  OutputError error;
  if (failed(runChoice(choice, [&](size_t batch, ArrayRef<NpyArray> outputs) {
        double signal = error.signal, noise = error.noise;
        for (auto [reference, actual] : llvm::zip(reference[batch], outputs))
          accumulateError(reference, actual, error);
        error.halfSignal[batch % 2] += error.signal - signal;
        error.halfNoise[batch % 2] += error.noise - noise;
        error.hasHalves |= batch > 0;
      })))
    return failure();
  measured[key] = error;
  return error;
}
