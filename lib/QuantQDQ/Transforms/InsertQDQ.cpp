//===- InsertQDQ.cpp - place Q/DQ pairs on layers -------------------------===//
//
// Three steps, each linear in the number of ops:
//  1. apply the insertion cases (PDL patterns, one walk per building block),
//     which record decisions on layers;
//  2. decide every layer: user spec, else case record, else (full mode) the
//     default table of QDQLayerOpInterface;
//  3. turn decisions into requests "quantize this use with this quantizer",
//     move requests through pass-through layers, and create one Q/DQ pair
//     per (tensor, quantizer), shared by all the uses that asked for it.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/Transforms/InsertionCases.h"
#include "QuantQDQ/Transforms/KVCache.h"
#include "QuantQDQ/Transforms/ONNXRuntimeTarget.h"
#include "QuantQDQ/Transforms/Passes.h"
#include "QuantQDQ/Transforms/QuantizationSpec.h"
#include "QuantQDQ/Utils/BareOption.h"
#include "QuantQDQ/Utils/PassThrough.h"

#include "mlir/IR/Builders.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ToolOutputFile.h"
#include <set>

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_INSERTQDQ
#include "QuantQDQ/Transforms/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
/// What one layer gets, and why.
struct LayerDecision {
  /// The layer; the onnxruntime target may erase it (a swish it splits),
  /// so the report reads `name` and `layerClass` instead.
  Operation *op;
  /// Positions in the layer's activation operand list.
  SmallVector<unsigned> inputs;
  bool weight = false;
  QuantizerAttr inputQuantizer, weightQuantizer;
  std::string rule;
  std::string name, layerClass;
};

/// What the pass did, for the report and the pass statistics.
struct InsertionCounts {
  unsigned layers = 0, bySpec = 0, byCase = 0, byDefault = 0;
  unsigned withInputs = 0, weights = 0, perChannel = 0, inBlocks = 0;
  unsigned pairs = 0;
  /// Uses a decision asked for that an existing dequantize already fed.
  unsigned alreadyQuantized = 0;
  /// What target=onnxruntime added (its pairs counted in `pairs` too).
  QLinearOutputCounts onnxRuntime;
};

/// "Quantize this use with this quantizer."
struct Request {
  OpOperand *use;
  QuantizerAttr quantizer;
};

class InsertQDQPass : public quant_qdq::impl::InsertQDQBase<InsertQDQPass> {
public:
  using InsertQDQBase::InsertQDQBase;

  /// A bare leading value is the list of cases: `insert-qdq{resnet-v1,bn}`
  /// and `--insert-qdq="resnet-v1 weight-format=int4"` mean `cases=...`.
  LogicalResult
  initializeOptions(StringRef options,
                    function_ref<LogicalResult(const Twine &)> errorHandler)
      override {
    return initializeWithMainOption<InsertQDQPass, InsertQDQBase>(
        *this, options, "cases", errorHandler);
  }

  void runOnOperation() override;

private:
  LogicalResult applyCases(ModuleOp module);
  LogicalResult decide(ModuleOp module, const QuantizationSpec *spec,
                       bool partial, SmallVectorImpl<LayerDecision> &decisions,
                       llvm::SmallPtrSetImpl<const SpecEntry *> &usedEntries,
                       InsertionCounts &counts);
  LogicalResult checkDecision(const LayerDecision &decision,
                              const SpecEntry *entry);
  /// Reads the format and bit-width options into the fields below.
  LogicalResult resolveFormats(ModuleOp module);
  /// The default quantizers the format options describe.
  QuantizerAttr activationDefault, weightDefault;
  /// The key/value cache's quantizer, null when it stays in float.
  QuantizerAttr kvCacheQuantizer;
  bool weightOnly = false;
  /// Whether the pairs are placed for ONNX Runtime (target=onnxruntime),
  /// and whether it has integer kernels for the activation format.
  bool forONNXRuntime = false, placesQLinearGroups = false;
  /// Quantizes every function's key/value cache with kvCacheQuantizer.
  void quantizeKVCaches(ModuleOp module, InsertionCounts &counts);
  /// Quantizes, in every function, the outputs ORT's QLinear kernels need.
  void completeQLinearGroups(ModuleOp module, InsertionCounts &counts);
  /// Places the pairs.
  void insert(ArrayRef<LayerDecision> decisions, InsertionCounts &counts);
  LogicalResult writeReport(StringRef path, ArrayRef<LayerDecision> decisions,
                            const InsertionCounts &counts);
  void recordStatistics(const InsertionCounts &counts);
};
} // namespace

//===----------------------------------------------------------------------===//
// Step 1: cases
//===----------------------------------------------------------------------===//

LogicalResult InsertQDQPass::applyCases(ModuleOp module) {
  SmallVector<std::string> names(cases.begin(), cases.end());
  CaseOptions options;
  options.maxAttentionSequence = attentionMaxSequence;
  return applyInsertionCases(module, names, options);
}

//===----------------------------------------------------------------------===//
// Step 2: decisions
//===----------------------------------------------------------------------===//

static SmallVector<unsigned> allPositions(QDQLayerOpInterface layer) {
  SmallVector<unsigned> positions;
  for (unsigned i = 0, e = layer.getActivationOperandIndices().size(); i < e;
       ++i)
    positions.push_back(i);
  return positions;
}

LogicalResult InsertQDQPass::checkDecision(const LayerDecision &decision,
                                           const SpecEntry *entry) {
  auto layer = cast<QDQLayerOpInterface>(decision.op);
  unsigned numInputs = layer.getActivationOperandIndices().size();
  for (unsigned position : decision.inputs) {
    if (position < numInputs)
      continue;
    InFlightDiagnostic diag = decision.op->emitError("quantization_index ")
                              << position << " is out of range: layer '"
                              << layer.getLayerName() << "' has "
                              << numInputs << " activation inputs";
    if (entry)
      diag.attachNote(entry->loc) << "in this QuantizationSpec entry";
    return failure();
  }
  return success();
}

/// `q`, for a weight, with the scale rule `weight-scale` asks for. `auto`:
/// at 4 bits or fewer, where a level is 6% of the range or more, signed
/// integer weights take the full range, so that the side of the larger
/// magnitude may use -8 (0.2-1.8 dB more output SQNR than -7..7 on the
/// trained models of bench/accuracy and bench/llm); wider ones keep
/// TensorRT's narrow max / qmax. `mse`: every signed integer weight takes
/// the full range and each scale group the clipping of least rounding
/// error. `max`: `q` as it is. What `set` (the spec entry's or case's fields)
/// names stays as given.
static QuantizerAttr
withScaleRule(QuantizerAttr q, const QuantizerOverride &set, StringRef rule) {
  bool search = rule == "mse";
  if (rule == "max" || q.isFloatStorage() || !q.getIsSigned() ||
      !q.getSymmetric() || (!search && q.getBits() > 4))
    return q;
  std::optional<CalibrationMethod> calibration = set.calibration;
  if (search && !calibration)
    calibration = CalibrationMethod::MSE;
  return QuantizerAttr::get(q.getContext(), q.getBits(), /*is_signed=*/true,
                            set.narrowRange.value_or(false),
                            /*symmetric=*/true, q.getAxis(), calibration,
                            q.getBlockSize(), q.getStorage());
}

LogicalResult
InsertQDQPass::decide(ModuleOp module, const QuantizationSpec *spec,
                      bool partial, SmallVectorImpl<LayerDecision> &decisions,
                      llvm::SmallPtrSetImpl<const SpecEntry *> &usedEntries,
                      InsertionCounts &counts) {
  WalkResult walk = module.walk([&](QDQLayerOpInterface layer) {
    Operation *op = layer.getOperation();
    auto record = op->getAttrOfType<CaseRecordAttr>(kCaseAttrName);
    op->removeAttr(kCaseAttrName);

    std::optional<int64_t> channelAxis = layer.getWeightChannelAxis();
    std::optional<int64_t> reductionAxis = layer.getWeightReductionAxis();
    bool hasWeight = layer.getWeightOperandIndex().has_value();
    // A block size the entry or case gives wins over weight-block-size.
    bool blocksChosen = false;
    LayerDecision decision{op, {}, false, activationDefault,
                           weightDefault.withAxis(channelAxis), ""};
    const SpecEntry *entry =
        spec ? spec->lookup(layer.getLayerName(), layer.getLayerClass())
             : nullptr;
    QuantizerOverride weightSet;
    if (entry) {
      usedEntries.insert(entry);
      if (entry->quantizationIndex)
        decision.inputs = *entry->quantizationIndex;
      else if (entry->quantizeInput)
        decision.inputs = allPositions(layer);
      decision.weight = entry->quantizeWeight && hasWeight;
      decision.inputQuantizer =
          entry->inputQuantizer.apply(activationDefault, std::nullopt);
      weightSet = entry->weightQuantizer;
      decision.weightQuantizer =
          weightSet.apply(decision.weightQuantizer, channelAxis, reductionAxis);
      blocksChosen = weightSet.blockSize.has_value();
      decision.rule = "spec '" + entry->pattern + "'";
    } else if (record) {
      llvm::append_range(decision.inputs, record.getInputPositions());
      decision.weight = record.getWeight() && hasWeight;
      decision.inputQuantizer =
          record.getInputOverride().apply(activationDefault, std::nullopt);
      weightSet = record.getWeightOverride();
      decision.weightQuantizer =
          weightSet.apply(decision.weightQuantizer, channelAxis, reductionAxis);
      blocksChosen = weightSet.blockSize.has_value();
      decision.rule = "case " + record.getCaseNames();
    } else if (!partial) {
      if (layer.quantizesInputByDefault())
        decision.inputs = allPositions(layer);
      decision.weight = layer.quantizesWeightByDefault() && hasWeight;
      decision.rule = "default table";
    } else {
      decision.rule = "partial mode: not in spec";
    }
    if (weightOnly && !decision.inputs.empty()) {
      decision.inputs.clear();
      decision.rule += "; weight-only";
    }
    decision.weightQuantizer =
        withScaleRule(decision.weightQuantizer, weightSet, weightScale);
    // Blocks of input channels replace the per-channel scales.
    if (weightBlockSize > 0 && !blocksChosen &&
        decision.weightQuantizer.isPerAxis() && reductionAxis)
      decision.weightQuantizer =
          decision.weightQuantizer.withBlocks(*reductionAxis, weightBlockSize);
    // Calibration reads it from the quantizer; the report says it here.
    if (std::optional<CalibrationMethod> method =
            decision.inputQuantizer.getCalibration();
        method && !decision.inputs.empty())
      decision.rule +=
          ("; calibration " + stringifyCalibrationMethod(*method)).str();
    if (failed(checkDecision(decision, entry)))
      return WalkResult::interrupt();
    decision.name = layer.getLayerName().str();
    decision.layerClass = layer.getLayerClass().str();
    ++counts.layers;
    counts.bySpec += entry != nullptr;
    counts.byCase += !entry && record;
    counts.byDefault += !entry && !record && !partial;
    counts.withInputs += !decision.inputs.empty();
    counts.weights += decision.weight;
    bool blocked = decision.weight && decision.weightQuantizer.isBlocked();
    counts.inBlocks += blocked;
    counts.perChannel +=
        decision.weight && decision.weightQuantizer.isPerAxis() && !blocked;
    decisions.push_back(std::move(decision));
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// A spec entry that matched no layer: a warning that helps fix it, with
/// the model's classes for a class entry and the nearest layer name for a
/// name entry.
static void warnUnmatched(const SpecEntry &entry,
                          ArrayRef<LayerDecision> decisions) {
  InFlightDiagnostic diag = emitWarning(entry.loc);
  switch (entry.match) {
  case SpecEntry::Match::Class: {
    std::set<std::string> classes;
    for (const LayerDecision &d : decisions)
      if (StringRef name =
              cast<QDQLayerOpInterface>(d.op).getLayerClass();
          !name.empty())
        classes.insert(name.str());
    diag << "no layer of class '" << entry.pattern << "' (the model's: "
         << llvm::join(classes, ", ") << ")";
    return;
  }
  case SpecEntry::Match::Name: {
    diag << "no layer named '" << entry.pattern << "'";
    StringRef nearest;
    unsigned best = std::max<unsigned>(2, entry.pattern.size() / 3) + 1;
    for (const LayerDecision &d : decisions) {
      StringRef name = cast<QDQLayerOpInterface>(d.op).getLayerName();
      unsigned distance = StringRef(entry.pattern).edit_distance(
          name, /*AllowReplacements=*/true, best);
      if (!name.empty() && distance < best) {
        best = distance;
        nearest = name;
      }
    }
    if (!nearest.empty())
      diag << "; did you mean '" << nearest << "'?";
    return;
  }
  case SpecEntry::Match::Substring:
    diag << "no layer name contains '" << entry.pattern << "'";
    return;
  }
}

//===----------------------------------------------------------------------===//
// Step 3: requests and insertion
//===----------------------------------------------------------------------===//

/// Whether a use is worth a pair: a float tensor not already dequantized.
static bool isQuantizable(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && isa<FloatType>(type.getElementType()) &&
         !value.getDefiningOp<DequantizeOp>();
}

void InsertQDQPass::insert(ArrayRef<LayerDecision> decisions,
                           InsertionCounts &counts) {
  // Requests grouped by the tensor they quantize, in program order.
  llvm::MapVector<Value, SmallVector<Request>> requests;
  auto request = [&](OpOperand &use, QuantizerAttr quantizer) {
    if (isQuantizable(use.get()))
      requests[use.get()].push_back({&use, quantizer});
    else if (use.get().getDefiningOp<DequantizeOp>())
      ++counts.alreadyQuantized;
  };
  for (const LayerDecision &decision : decisions) {
    auto layer = cast<QDQLayerOpInterface>(decision.op);
    SmallVector<unsigned> operands = layer.getActivationOperandIndices();
    for (unsigned position : decision.inputs)
      request(decision.op->getOpOperand(operands[position]),
              decision.inputQuantizer);
    if (decision.weight)
      request(decision.op->getOpOperand(*layer.getWeightOperandIndex()),
              decision.weightQuantizer);
  }

  // A per-tensor pair that every consumer of a pass-through layer's result
  // asks for moves to the layer's input, so that the layer runs in INT8.
  if (propagate) {
    SmallVector<Value> worklist;
    for (auto &entry : requests)
      worklist.push_back(entry.first);
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      auto it = requests.find(value);
      if (it == requests.end())
        continue;
      OpOperand *source = getPassThroughInput(value.getDefiningOp());
      if (!source)
        continue;
      bool sourceDequantized = source->get().getDefiningOp<DequantizeOp>();
      if (!sourceDequantized && !isQuantizable(source->get()))
        continue;
      QuantizerAttr quantizer = it->second.front().quantizer;
      bool everyUseAlike =
          !quantizer.isPerAxis() &&
          llvm::all_of(it->second,
                       [&](const Request &r) { return r.quantizer == quantizer; }) &&
          size_t(std::distance(value.use_begin(), value.use_end())) ==
              it->second.size();
      if (!everyUseAlike)
        continue;
      size_t uses = it->second.size();
      requests.erase(it);
      // A pair already above the layer (a second run, an imported QDQ
      // model) is the one this request would have moved to.
      if (sourceDequantized) {
        counts.alreadyQuantized += uses;
        continue;
      }
      requests[source->get()].push_back({source, quantizer});
      worklist.push_back(source->get());
    }
  }

  // One pair per (tensor, quantizer), right after the tensor is defined, so
  // it dominates every use.
  OpBuilder builder(&getContext());
  for (auto &[value, uses] : requests) {
    llvm::SmallDenseMap<QuantizerAttr, Value> pairs;
    for (const Request &r : uses) {
      Value &dequantized = pairs[r.quantizer];
      if (!dequantized) {
        dequantized = createQDQPair(builder, value, r.quantizer, "insert-qdq");
        ++counts.pairs;
      }
      r.use->set(dequantized);
    }
  }
}

//===----------------------------------------------------------------------===//
// Report and driver
//===----------------------------------------------------------------------===//

LogicalResult
InsertQDQPass::writeReport(StringRef path, ArrayRef<LayerDecision> decisions,
                           const InsertionCounts &counts) {
  // "-" is stdout, as for every MLIR tool's output and the calibration
  // report.
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &error);
  if (!file)
    return emitError(getOperation().getLoc(), "cannot write the report: ")
           << error;
  llvm::raw_ostream &os = file->os();
  struct Row {
    std::string name, layerClass, inputs;
  };
  SmallVector<Row> rows;
  // Columns as wide as their longest entry, so long names stay aligned.
  size_t nameWidth = 32, classWidth = 24, inputsWidth = 10;
  for (const LayerDecision &d : decisions) {
    Row &row = rows.emplace_back();
    row.name = d.name.empty() ? "<unnamed>" : d.name;
    row.layerClass = d.layerClass;
    row.inputs = "[" +
                 llvm::join(llvm::map_range(d.inputs,
                                            [](unsigned i) {
                                              return std::to_string(i);
                                            }),
                            ",") +
                 "]";
    nameWidth = std::max(nameWidth, row.name.size());
    classWidth = std::max(classWidth, row.layerClass.size());
    inputsWidth = std::max(inputsWidth, row.inputs.size());
  }
  auto line = [&](StringRef name, StringRef layerClass, StringRef inputs,
                  StringRef weight, StringRef rule) {
    os << llvm::left_justify(name, nameWidth) << " "
       << llvm::left_justify(layerClass, classWidth) << " "
       << llvm::left_justify(inputs, inputsWidth) << " "
       << llvm::left_justify(weight, 7) << " " << rule << "\n";
  };
  line("layer", "class", "inputs", "weight", "rule");
  for (auto [row, d] : llvm::zip(rows, decisions))
    line(row.name, row.layerClass, row.inputs, d.weight ? "yes" : "no",
         d.rule);
  os << llvm::formatv("# {0} layers ({1} by spec, {2} by case, {3} by default "
                      "table): {4} with quantized inputs, {5} quantized "
                      "weights ({6} per channel{7}); {8} Q/DQ pairs "
                      "inserted, {9} uses already quantized\n",
                      counts.layers, counts.bySpec, counts.byCase,
                      counts.byDefault, counts.withInputs, counts.weights,
                      counts.perChannel,
                      counts.inBlocks
                          ? llvm::formatv(", {0} in blocks", counts.inBlocks)
                                .str()
                          : std::string(),
                      counts.pairs, counts.alreadyQuantized);
  if (forONNXRuntime)
    os << llvm::formatv(
        "# target onnxruntime, outputs quantized: {0} of "
        "layers with a QLinear kernel, {1} of pass-through "
        "layers; {2} biases exported as an Add (QGemm); {3} "
        "layers left in float by ORT, their weights stored "
        "as float\n",
        counts.onnxRuntime.layerOutputs, counts.onnxRuntime.passThroughOutputs,
        counts.onnxRuntime.separateBiases, counts.onnxRuntime.floatKernels);
  file->keep();
  return success();
}

/// --mlir-pass-statistics. MLIR built without statistics (NDEBUG and no
/// LLVM_FORCE_ENABLE_STATS, as Debian's is) compiles them away for every
/// pass: the report carries the same figures in any build.
void InsertQDQPass::recordStatistics(const InsertionCounts &counts) {
  numLayers = counts.layers;
  numLayersBySpec = counts.bySpec;
  numLayersByCase = counts.byCase;
  numLayersByDefault = counts.byDefault;
  numLayersWithInputs = counts.withInputs;
  numWeights = counts.weights;
  numPairs = counts.pairs;
  numAlreadyQuantized = counts.alreadyQuantized;
}

/// The default quantizer a format names (8-bit, symmetric, per tensor),
/// with the option that gives widths directly: both may be given only
/// when they agree. `accepted` are the format names this side takes;
/// `option` is the format's option (`<what>-format`, unless given).
static FailureOr<QuantizerAttr> resolveFormat(ModuleOp module, StringRef what,
                                              StringRef format,
                                              ArrayRef<StringRef> accepted,
                                              unsigned bits,
                                              StringRef option = {}) {
  std::string formatOption =
      option.empty() ? (what + "-format").str() : option.str();
  MLIRContext *context = module.getContext();
  if (bits < 2 || bits > 16)
    return emitError(module.getLoc(),
                     "quantizer bit width must be in [2, 16], got ")
           << bits;
  if (format.empty())
    return QuantizerAttr::get(context, bits);
  std::optional<QuantizerFormat> known = lookupQuantizerFormat(format);
  if (!known || !llvm::is_contained(accepted, format))
    return emitError(module.getLoc(), "unknown ")
           << formatOption << " '" << format << "': expected one of "
           << llvm::join(accepted, ", ");
  if (bits != 8 && bits != known->bits)
    return emitError(module.getLoc(), "")
           << formatOption << "=" << format << " stores " << known->bits
           << " bits but " << what << "-bits=" << bits << ": give one";
  return QuantizerAttr::get(
      context, known->bits, /*is_signed=*/true, /*narrow_range=*/true,
      /*symmetric=*/true, std::nullopt, std::optional<CalibrationMethod>(),
      std::nullopt, known->storage);
}

LogicalResult InsertQDQPass::resolveFormats(ModuleOp module) {
  weightOnly = activationFormat == "none";
  FailureOr<QuantizerAttr> activation = resolveFormat(
      module, "activation", weightOnly ? StringRef() : activationFormat,
      {"int8", "int16", "fp8", "none"}, activationBits);
  FailureOr<QuantizerAttr> weight = resolveFormat(
      module, "weight", weightFormat, {"int8", "int4", "fp8"}, weightBits);
  if (failed(activation) || failed(weight))
    return failure();
  if (weightScale != "auto" && weightScale != "max" && weightScale != "mse")
    return emitError(module.getLoc(),
                     "weight-scale must be auto, max or mse, got '")
           << weightScale << "'";
  if (weightBlockSize < 0)
    return emitError(module.getLoc(),
                     "weight-block-size must be 0 (per channel) or positive, "
                     "got ")
           << int64_t(weightBlockSize);
  if (target != "tensorrt" && target != "onnxruntime")
    return emitError(module.getLoc(),
                     "target must be tensorrt or onnxruntime, got '")
           << target << "'";
  forONNXRuntime = target == "onnxruntime";
  activationDefault = *activation;
  // ORT's x86 kernels take u8 activations; other widths and FP8 keep their
  // signed symmetric form (ORT has no integer kernels for them).
  placesQLinearGroups =
      forONNXRuntime &&
      isONNXRuntimeIntegerFormat(activationDefault, /*weight=*/false);
  if (placesQLinearGroups)
    activationDefault = getONNXRuntimeActivationQuantizer(module.getContext());
  weightDefault = *weight;
  if (!kvCache.empty()) {
    FailureOr<QuantizerAttr> cache =
        resolveFormat(module, "kv-cache", kvCache, {"int8", "fp8"}, 8,
                      /*option=*/"kv-cache");
    if (failed(cache))
      return failure();
    kvCacheQuantizer = *cache;
  }
  return success();
}

void InsertQDQPass::quantizeKVCaches(ModuleOp module, InsertionCounts &counts) {
  unsigned found = 0, alreadyQuantized = 0;
  module.walk([&](func::FuncOp func) {
    SmallVector<Value> cache = findKVCacheTensors(func, alreadyQuantized);
    quantizeKVCache(cache, kvCacheQuantizer);
    found += cache.size();
  });
  numKVCacheTensors = found;
  counts.pairs += found;
  counts.alreadyQuantized += alreadyQuantized;
  if (!found && !alreadyQuantized)
    emitWarning(module.getLoc())
        << "kv-cache=" << kvCache
        << " found no key/value cache: no float output is named present*, "
           "and none concatenates a past* input";
}

void InsertQDQPass::completeQLinearGroups(ModuleOp module,
                                          InsertionCounts &counts) {
  QLinearOutputCounts &total = counts.onnxRuntime;
  module.walk([&](func::FuncOp func) {
    total += quantizeQLinearOutputs(func, activationDefault);
  });
  numQLinearOutputs = total.layerOutputs;
  numPassThroughOutputs = total.passThroughOutputs;
  counts.pairs += total.pairs;
}

void InsertQDQPass::runOnOperation() {
  ModuleOp module = getOperation();
  std::string specFile = specPath;
  std::string modeName = mode;
  std::string report = reportPath;

  if (modeName != "full" && modeName != "partial") {
    emitError(module.getLoc(),
              "insert-qdq mode must be 'full' or 'partial', got '")
        << modeName << "'";
    return signalPassFailure();
  }
  bool partial = modeName == "partial";
  if (partial && specFile.empty()) {
    emitError(module.getLoc(), "partial mode quantizes only the layers a "
                               "QuantizationSpec names: give one with "
                               "--qdq-spec");
    return signalPassFailure();
  }
  if (failed(resolveFormats(module)))
    return signalPassFailure();
  if (attentionMaxSequence < 1) {
    emitError(module.getLoc(), "attention-max-sequence must be positive, got ")
        << int64_t(attentionMaxSequence);
    return signalPassFailure();
  }

  std::optional<QuantizationSpec> spec;
  if (!specFile.empty()) {
    FailureOr<QuantizationSpec> parsed =
        QuantizationSpec::parseFile(specFile, &getContext());
    if (failed(parsed))
      return signalPassFailure();
    spec = std::move(*parsed);
  }

  if (failed(applyCases(module)))
    return signalPassFailure();

  SmallVector<LayerDecision> decisions;
  llvm::SmallPtrSet<const SpecEntry *, 8> usedEntries;
  InsertionCounts counts;
  if (failed(decide(module, spec ? &*spec : nullptr, partial, decisions,
                    usedEntries, counts)))
    return signalPassFailure();
  if (spec)
    for (const SpecEntry &entry : spec->getEntries())
      if (!usedEntries.contains(&entry))
        warnUnmatched(entry, decisions);

  // The cache first: the layers that read it then find it dequantized.
  if (kvCacheQuantizer)
    quantizeKVCaches(module, counts);
  insert(decisions, counts);
  if (placesQLinearGroups)
    completeQLinearGroups(module, counts);
  recordStatistics(counts);
  if (!report.empty() && failed(writeReport(report, decisions, counts)))
    return signalPassFailure();
}
