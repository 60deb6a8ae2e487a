//===- Comparison.cpp - what quantization does to a network's numbers -----===//

#include "QuantQDQ/Calibration/Comparison.h"
#include "QuantQDQ/Calibration/Calibration.h"
#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/Utils/LayerGraph.h"
#include "QuantQDQ/Utils/TensorNames.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;
using namespace mlir::quant_qdq;

/// The entry function (findEntryFunction), or an error.
static func::FuncOp findEntry(ModuleOp module, StringRef name) {
  func::FuncOp entry = findEntryFunction(module, name);
  if (!entry) {
    emitError(module.getLoc())
        << (name.empty() ? "comparison needs one public function with a "
                           "body, or an entry name"
                         : "no function '" + name.str() + "' with a body");
    return {};
  }
  return entry;
}

static bool isQuantizationOp(Operation *op) {
  return isa<QuantizeOp, DequantizeOp, FakeQuantOp, RoundToFormatOp>(op);
}

/// `func` without its number formats: the float network a TensorQuant
/// study compares against.
static void removeNumberFormats(func::FuncOp func) {
  SmallVector<RoundToFormatOp> rounds(func.getOps<RoundToFormatOp>());
  for (RoundToFormatOp round : rounds) {
    round.getResult().replaceAllUsesWith(round.getInput());
    round.erase();
  }
}

namespace {
/// A layer output both networks compute.
struct ObservedLayer {
  std::string name, layer, op;
  /// Observed layers feeding it (through Q/DQ), by index.
  SmallVector<unsigned> inputs;
};
} // namespace

/// The f32 layer outputs of `func` with tensor names, in program order.
static SmallVector<std::pair<Value, Operation *>>
collectLayerOutputs(func::FuncOp func) {
  SmallVector<std::pair<Value, Operation *>> outputs;
  func.walk([&](Operation *op) {
    if (op->hasTrait<OpTrait::ConstantLike>() || isQuantizationOp(op) ||
        isa<func::ReturnOp, func::FuncOp>(op))
      return;
    for (Value result : op->getResults()) {
      auto type = dyn_cast<RankedTensorType>(result.getType());
      if (type && type.getElementType().isF32() &&
          !getTensorName(result).empty())
        outputs.push_back({result, op});
    }
  });
  return outputs;
}

/// Makes `func` also return the values named `names` (all present).
static void returnNamed(func::FuncOp func, ArrayRef<std::string> names) {
  llvm::StringMap<Value> byName;
  func.walk([&](Operation *op) {
    for (Value result : op->getResults())
      if (StringRef name = getTensorName(result); !name.empty())
        byName.try_emplace(name, result);
  });
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  SmallVector<Value> results(ret.getOperands());
  for (const std::string &name : names)
    results.push_back(byName.lookup(name));
  ret->setOperands(results);
  func.setType(FunctionType::get(func.getContext(), func.getArgumentTypes(),
                                 ret.getOperandTypes()));
}

/// `shape` as 2x3x4.
static std::string formatShape(ArrayRef<int64_t> shape) {
  return llvm::join(
      llvm::map_range(shape, [](int64_t d) { return std::to_string(d); }), "x");
}

/// The token id at `i` of `tokens` (int64 or int32).
static int64_t getToken(const NpyArray &tokens, int64_t i) {
  if (tokens.elementBytes == 8)
    return reinterpret_cast<const int64_t *>(tokens.bytes)[i];
  return reinterpret_cast<const int32_t *>(tokens.bytes)[i];
}

/// Whether `shape` is that of logits [B, S, V] for the token ids `tokens`
/// [B, S]: a vocabulary above every id, and sequences of two or more.
static bool isLogitsFor(ArrayRef<int64_t> shape, const NpyArray &tokens) {
  if (shape.size() != 3 || tokens.shape.size() != 2 ||
      tokens.shape[0] != shape[0] || tokens.shape[1] != shape[1] ||
      shape[1] < 2)
    return false;
  for (int64_t i = 0, e = tokens.getNumElements(); i < e; ++i) {
    int64_t id = getToken(tokens, i);
    if (id < 0 || id >= shape[2])
      return false;
  }
  return true;
}

/// exp of the mean next-token cross-entropy of `logits` [B, S, V] on
/// `tokens` [B, S] (isLogitsFor): position t predicts token t + 1.
static double getPerplexity(ArrayRef<float> logits, ArrayRef<int64_t> shape,
                            const NpyArray &tokens) {
  int64_t batch = shape[0], length = shape[1], vocabulary = shape[2];
  double loss = 0;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t t = 0; t + 1 < length; ++t) {
      int64_t next = getToken(tokens, b * length + t + 1);
      ArrayRef<float> row =
          logits.slice((b * length + t) * vocabulary, vocabulary);
      double top = *std::max_element(row.begin(), row.end()), sum = 0;
      for (float v : row)
        sum += std::exp(double(v) - top);
      loss += top + std::log(sum) - double(row[next]);
    }
  return std::exp(loss / double(batch * (length - 1)));
}

/// Compares two f32 arrays of the same shape into `row`, named already;
/// `tokens`, when given, are the ids logits of shape [B, S, V] predict.
static void compareArrays(const NpyArray &reference, const NpyArray &actual,
                          TensorComparison &row,
                          const NpyArray *tokens = nullptr) {
  ArrayRef<float> ref(reinterpret_cast<const float *>(reference.bytes),
                      reference.getNumElements());
  ArrayRef<float> got(reinterpret_cast<const float *>(actual.bytes),
                      actual.getNumElements());
  row.shape = reference.shape;
  double signal = 0, noise = 0;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (auto [r, q] : llvm::zip(ref, got)) {
    double error = double(r) - double(q);
    signal += double(r) * r;
    noise += error * error;
    row.maxError = std::max(row.maxError, std::abs(error));
    lo = std::min<double>(lo, r);
    hi = std::max<double>(hi, r);
  }
  row.referenceMin = ref.empty() ? 0 : lo;
  row.referenceMax = ref.empty() ? 0 : hi;
  row.sqnr = noise == 0 ? std::numeric_limits<double>::infinity()
                        : 10 * std::log10(signal / noise);
  ArrayRef<int64_t> shape = reference.shape;
  // Logits over a sequence: scored on the ids, or known by their name (a
  // hidden state [B, S, H] has no top-1 to agree on).
  bool logits = tokens ? isLogitsFor(shape, *tokens)
                       : shape.size() == 3 && row.name == "logits";
  if ((shape.size() == 2 || logits) && shape.back() > 1) {
    int64_t classes = shape.back();
    row.rows = reference.getNumElements() / classes;
    int64_t agreeing = 0;
    for (int64_t i = 0; i < row.rows; ++i) {
      auto argmax = [&](ArrayRef<float> values) {
        ArrayRef<float> r = values.slice(i * classes, classes);
        return std::max_element(r.begin(), r.end()) - r.begin();
      };
      agreeing += argmax(ref) == argmax(got);
    }
    row.top1Agreeing = agreeing;
  }
  if (tokens && logits) {
    row.referencePerplexity = getPerplexity(ref, shape, *tokens);
    row.perplexity = getPerplexity(got, shape, *tokens);
  }
}

/// The samples one run of `func` takes when its inputs fix a first
/// dimension that the arrays hold a multiple of (a model exported at batch
/// 1, given 8 samples): the arrays then run in groups of that many. 0: one
/// run takes them all.
static int64_t getSamplesPerRun(func::FuncOp func, ArrayRef<NpyArray> inputs) {
  int64_t perRun = 0, samples = 0;
  for (auto [type, input] : llvm::zip(func.getArgumentTypes(), inputs)) {
    auto ranked = dyn_cast<RankedTensorType>(type);
    if (!ranked || ranked.getRank() == 0 || input.shape.empty())
      return 0;
    int64_t size = ranked.getDimSize(0);
    if (ShapedType::isDynamic(size) || size == 0 || input.shape[0] <= size ||
        input.shape[0] % size != 0 || (perRun && perRun != size) ||
        (samples && samples != input.shape[0]))
      return 0;
    perRun = size;
    samples = input.shape[0];
  }
  return perRun;
}

/// Runs `executor` on `inputs` in groups of `perRun` samples, joining each
/// output along its first dimension. An output without one that grows with
/// the samples is an error at `loc`.
static LogicalResult runInGroups(JITExecutor &executor,
                                 ArrayRef<NpyArray> inputs, int64_t perRun,
                                 SmallVectorImpl<NpyArray> &outputs,
                                 Location loc) {
  int64_t groups = inputs.front().shape[0] / perRun;
  for (int64_t g = 0; g < groups; ++g) {
    SmallVector<NpyArray> slices, results;
    for (const NpyArray &input : inputs)
      slices.push_back(input.slice(g * perRun, perRun));
    if (llvm::Error error = executor.run(slices, results))
      return emitError(loc) << llvm::toString(std::move(error));
    if (g == 0) {
      for (const NpyArray &result : results) {
        if (result.shape.empty())
          return emitError(loc)
                 << "the network takes " << perRun
                 << " samples a run and returns a scalar, which cannot be "
                    "joined over "
                 << groups << " runs: give it " << perRun << " samples";
        SmallVector<int64_t> shape(result.shape);
        shape[0] *= groups;
        outputs.push_back(
            NpyArray::allocate(result.elementType, shape, result.isUnsigned));
      }
    }
    // Copied now: the executor reuses its buffers from run to run.
    for (auto [joined, result] : llvm::zip(outputs, results))
      std::memcpy(joined.bytes + g * result.getNumBytes(), result.bytes,
                  result.getNumBytes());
  }
  return success();
}

/// The noise-to-signal ratio an SQNR stands for.
static double toNoiseRatio(double sqnr) { return std::pow(10, -sqnr / 10); }

FailureOr<ComparisonResult>
mlir::quant_qdq::compareNetworks(OwningOpRef<ModuleOp> quantized,
                                 OwningOpRef<ModuleOp> reference,
                                 ArrayRef<NpyArray> inputs,
                                 const ComparisonOptions &options) {
  func::FuncOp qFunc = findEntry(*quantized, options.entry);
  if (!qFunc)
    return failure();
  nameTensors(qFunc);
  if (!reference) {
    reference = cast<ModuleOp>(quantized->clone());
    func::FuncOp float32 = findEntry(*reference, options.entry);
    removeQuantization(float32);
    removeNumberFormats(float32);
  }
  func::FuncOp rFunc = findEntry(*reference, options.entry);
  if (!rFunc)
    return failure();
  nameTensors(rFunc);
  if (rFunc.getNumArguments() != qFunc.getNumArguments() ||
      rFunc.getNumResults() != qFunc.getNumResults())
    return emitError(reference->getLoc())
           << "the reference takes " << rFunc.getNumArguments()
           << " inputs and gives " << rFunc.getNumResults()
           << " outputs; the quantized network " << qFunc.getNumArguments()
           << " and " << qFunc.getNumResults();
  unsigned numResults = qFunc.getNumResults();
  SmallVector<std::string> outputNames;
  for (unsigned i = 0; i < numResults; ++i) {
    auto name = qFunc.getResultAttrOfType<StringAttr>(i, kTensorNameAttr);
    outputNames.push_back(name ? name.str() : "#" + std::to_string(i));
  }

  // The layers both compute, by tensor name, and what feeds each.
  SmallVector<ObservedLayer> layers;
  if (options.layers) {
    llvm::StringSet<> inReference;
    for (auto [value, op] : collectLayerOutputs(rFunc))
      inReference.insert(getTensorName(value));
    llvm::DenseMap<Value, unsigned> index;
    for (auto [value, op] : collectLayerOutputs(qFunc)) {
      StringRef name = getTensorName(value);
      if (!inReference.contains(name))
        continue;
      ObservedLayer &layer = layers.emplace_back();
      layer.name = name.str();
      if (auto iface = dyn_cast<QDQLayerOpInterface>(op)) {
        layer.layer = iface.getLayerName().str();
        layer.op = iface.getLayerClass().str();
      } else {
        layer.op = op->getName().getStringRef().str();
      }
      for (Value operand : op->getOperands()) {
        auto it = index.find(lookThroughQDQ(operand));
        if (it != index.end())
          layer.inputs.push_back(it->second);
      }
      index[value] = layers.size() - 1;
    }
  }
  SmallVector<std::string> observedNames;
  for (const ObservedLayer &layer : layers)
    observedNames.push_back(layer.name);
  returnNamed(qFunc, observedNames);
  returnNamed(rFunc, observedNames);

  int64_t perRun = getSamplesPerRun(qFunc, inputs);
  SmallVector<SmallVector<int64_t>> shapes;
  for (const NpyArray &input : inputs) {
    shapes.push_back(input.shape);
    if (perRun)
      shapes.back()[0] = perRun;
  }
  auto run = [&](OwningOpRef<ModuleOp> module, StringRef entry,
                 SmallVectorImpl<NpyArray> &outputs) -> LogicalResult {
    Location loc = module->getLoc();
    auto executor = JITExecutor::create(std::move(module), entry, shapes,
                                        options.executor);
    if (failed(executor))
      return failure();
    if (perRun)
      return runInGroups(**executor, inputs, perRun, outputs, loc);
    if (llvm::Error error = (*executor)->run(inputs, outputs))
      return emitError(loc) << llvm::toString(std::move(error));
    return success();
  };
  std::string entryName = qFunc.getName().str();
  std::string referenceEntry = rFunc.getName().str();
  SmallVector<NpyArray> qOut, rOut;
  if (failed(run(std::move(quantized), entryName, qOut)) ||
      failed(run(std::move(reference), referenceEntry, rOut)))
    return failure();

  ComparisonResult result;
  auto comparable = [&](unsigned i) {
    return qOut[i].elementType.isF32() && rOut[i].elementType.isF32() &&
           qOut[i].shape == rOut[i].shape;
  };
  for (unsigned i = 0; i < numResults; ++i) {
    if (!comparable(i)) {
      result.skippedOutputs.push_back(outputNames[i]);
      continue;
    }
    TensorComparison &row = result.outputs.emplace_back();
    row.name = outputNames[i];
    compareArrays(rOut[i], qOut[i], row, options.tokens);
  }
  if (options.tokens &&
      llvm::none_of(result.outputs, [](const TensorComparison &row) {
        return row.perplexity.has_value();
      }))
    result.perplexityNote =
        "no output is logits [B, S, V] for the token ids [" +
        formatShape(options.tokens->shape) +
        "] (sequences of 2 or more, every id below V)";
  // A layer's own noise: what its output carries beyond its noisiest input.
  SmallVector<double> noise;
  for (auto [k, layer] : llvm::enumerate(layers)) {
    unsigned i = numResults + k;
    TensorComparison row;
    row.name = layer.name;
    row.layer = layer.layer;
    row.op = layer.op;
    if (!comparable(i)) {
      noise.push_back(0);
      continue;
    }
    compareArrays(rOut[i], qOut[i], row);
    double own = toNoiseRatio(row.sqnr);
    double inherited = 0;
    for (unsigned input : layer.inputs)
      inherited = std::max(inherited, noise[input]);
    noise.push_back(own);
    double added = std::max(0.0, own - inherited);
    row.ownSqnr = added == 0 ? std::numeric_limits<double>::infinity()
                             : -10 * std::log10(added);
    result.layers.push_back(std::move(row));
  }
  return result;
}

std::string mlir::quant_qdq::formatDecibels(double db) {
  if (std::isinf(db))
    return db > 0 ? "inf" : "-inf";
  if (std::isnan(db))
    return "nan";
  return llvm::formatv("{0:F2}", db).str();
}

void mlir::quant_qdq::printComparison(llvm::raw_ostream &os,
                                      const ComparisonResult &result,
                                      unsigned worstLayers) {
  for (const TensorComparison &out : result.outputs) {
    double range = out.referenceMax - out.referenceMin;
    os << "output '" << out.name << "' (" << formatShape(out.shape)
       << "): SQNR " << formatDecibels(out.sqnr) << " dB, max |error| "
       << llvm::format("%.4g", out.maxError);
    if (range > 0)
      os << llvm::formatv(" ({0:F2}% of the reference's range)",
                          100 * out.maxError / range);
    if (out.top1Agreeing)
      os << llvm::formatv(", top-1 agreement {0}/{1} ({2:F1}%)",
                          *out.top1Agreeing, out.rows,
                          100.0 * *out.top1Agreeing / out.rows);
    if (out.perplexity && out.referencePerplexity) {
      double change =
          100.0 * (*out.perplexity / *out.referencePerplexity - 1.0);
      os << llvm::formatv(", perplexity {0:F4} (reference {1:F4}, {2}{3:F2}%)",
                          *out.perplexity, *out.referencePerplexity,
                          change >= 0 ? "+" : "", change);
    }
    os << "\n";
  }
  for (const std::string &name : result.skippedOutputs)
    os << "output '" << name << "': not compared (not f32, or shapes "
       << "differ)\n";
  if (!result.perplexityNote.empty())
    os << "perplexity: " << result.perplexityNote << "\n";
  if (result.layers.empty() || worstLayers == 0)
    return;

  SmallVector<const TensorComparison *> rows;
  for (const TensorComparison &row : result.layers)
    rows.push_back(&row);
  llvm::stable_sort(rows, [](const TensorComparison *a,
                             const TensorComparison *b) {
    return a->ownSqnr < b->ownSqnr;
  });
  rows.resize(std::min<size_t>(rows.size(), worstLayers));
  os << "layers adding the most error (" << rows.size() << " of "
     << result.layers.size()
     << "; SQNR at the output, and of the error the layer adds itself):\n";
  auto label = [](const TensorComparison *row) {
    return row->layer.empty() ? row->name : row->layer;
  };
  size_t nameWidth = 5, opWidth = 2;
  for (const TensorComparison *row : rows) {
    nameWidth = std::max(nameWidth, label(row).size());
    opWidth = std::max(opWidth, row->op.size());
  }
  os << "  " << llvm::left_justify("layer", nameWidth) << "  "
     << llvm::left_justify("op", opWidth) << "  "
     << llvm::right_justify("SQNR dB", 9) << "  "
     << llvm::right_justify("own dB", 9) << "  max |error|\n";
  for (const TensorComparison *row : rows)
    os << "  " << llvm::left_justify(label(row), nameWidth) << "  "
       << llvm::left_justify(row->op, opWidth) << "  "
       << llvm::right_justify(formatDecibels(row->sqnr), 9) << "  "
       << llvm::right_justify(formatDecibels(row->ownSqnr), 9) << "  "
       << llvm::format("%.4g", row->maxError) << "\n";
}
