//===- QuantQDQModule.cpp - the _quant_qdq Python extension ---------------===//
//
// pybind11 bindings over the quant-qdq C++ libraries, and nothing more:
// MLIR modules that own their context, parsing and printing, pass
// pipelines, ONNX import and export, insert-qdq, the layer graph that
// Python cases inspect (Utils/LayerGraph.h), the case records they
// write and read (recordSpecAsCase, previewInsertionCase), and calibration.
// Graph logic lives in the C++ libraries, where C++ users reach it too.
//
// Every entry point captures the context's diagnostics: warnings become
// Python warnings (QuantQDQWarning) and a failure raises QuantQDQError with
// the tool's messages, never a crash. Models cross the boundary as
// serialized bytes. The pure-Python package (quant_qdq/) builds the
// toolkit's API on top of this module.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Calibration/Calibration.h"
#include "QuantQDQ/Calibration/Comparison.h"
#include "QuantQDQ/Driver/QuantizePipeline.h"
#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/InitQuantQDQ.h"
#include "QuantQDQ/Target/ONNX/ONNX.h"
#include "QuantQDQ/Transforms/InsertionCases.h"
#include "QuantQDQ/Utils/LayerGraph.h"
#include "QuantQDQ/Transforms/Passes.h"
#include "QuantQDQ/Transforms/QuantizationSpec.h"
#include "QuantQDQ/Utils/TensorNames.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace py = pybind11;
using namespace mlir;
using namespace mlir::quant_qdq;

/// A Python str of bytes that come from a model (names, messages): invalid
/// UTF-8 is escaped rather than failing the conversion.
static py::str toPyStr(StringRef text) {
  PyObject *str =
      PyUnicode_DecodeUTF8(text.data(), text.size(), "backslashreplace");
  if (!str)
    throw py::error_already_set();
  return py::reinterpret_steal<py::str>(str);
}

static py::list toPyStrList(ArrayRef<std::string> texts) {
  py::list list;
  for (const std::string &text : texts)
    list.append(toPyStr(text));
  return list;
}

//===----------------------------------------------------------------------===//
// Registries
//===----------------------------------------------------------------------===//

/// Every dialect a qdq-opt pipeline may meet, built once and copied into
/// each context.
static const DialectRegistry &getRegistry() {
  static const DialectRegistry *registry = [] {
    auto *r = new DialectRegistry;
    registerAllDialects(*r);
    registerAllExtensions(*r);
    registerQuantQDQDialects(*r);
    registerONNXDialects(*r);
    return r;
  }();
  return *registry;
}

/// The global pass registry, as qdq-opt fills it, so that pipelines given
/// as text may name any pass qdq-opt knows.
static void registerPassesOnce() {
  static bool done = [] {
    registerAllPasses();
    registerAllQuantQDQPasses();
    return true;
  }();
  (void)done;
}

//===----------------------------------------------------------------------===//
// Errors and diagnostics
//===----------------------------------------------------------------------===//

namespace {
/// SourceMgrDiagnosticHandler's formatting, for one diagnostic at a time.
class DiagnosticFormatter : public SourceMgrDiagnosticHandler {
public:
  using SourceMgrDiagnosticHandler::emitDiagnostic;
  using SourceMgrDiagnosticHandler::SourceMgrDiagnosticHandler;
};

/// A failed operation, with every diagnostic it produced.
struct DiagnosticError {
  std::string message;
  std::vector<std::string> diagnostics;
};

/// The Python classes of errors and warnings (created at import; never
/// freed, since they outlive every call).
PyObject *errorType = nullptr;
PyObject *warningType = nullptr;

/// Issues a warning through the package's helper, which attributes it to
/// the user's code; the extension used alone warns from its caller.
void issueWarning(const std::string &message) {
  py::object warn;
  try {
    warn = py::module_::import("quant_qdq._diagnostics").attr("warn");
  } catch (py::error_already_set &) {
    py::module_::import("warnings")
        .attr("warn")(toPyStr(message), py::handle(warningType));
    return;
  }
  warn(toPyStr(message));
}

/// Captures the diagnostics of `context` while alive, formatted as qdq-opt
/// prints them ("file:line:col: error: message", notes included). The
/// caller ends with finish(), which raises or warns.
class DiagnosticCapture {
public:
  explicit DiagnosticCapture(MLIRContext *context)
      : formatter(sourceMgr, context, stream),
        handler(context, [this](Diagnostic &diag) {
          record(diag);
          return success();
        }) {}

  llvm::SourceMgr &getSourceMgr() { return sourceMgr; }

  /// Names the file `path` as `alias` in the messages (a temporary file
  /// the user never saw, e.g. the spec quantize_model wrote).
  void addPathAlias(StringRef path, StringRef alias) {
    aliases.emplace_back(path.str(), alias.str());
  }

  /// Issues the warnings, then throws a DiagnosticError unless `result`
  /// succeeded. Needs the GIL.
  void finish(LogicalResult result, StringRef what) {
    std::vector<std::string> entries;
    std::vector<std::string> errors;
    {
      std::lock_guard<std::mutex> lock(mutex);
      entries = all;
      errors = errorTexts;
    }
    for (const std::string &warning : warningTexts)
      issueWarning(warning);
    if (succeeded(result))
      return;
    std::string message;
    if (errors.empty())
      message = (what + " failed").str();
    else
      message = llvm::join(errors, "\n");
    throw DiagnosticError{message, entries};
  }

private:
  void record(Diagnostic &diag) {
    std::lock_guard<std::mutex> lock(mutex);
    text.clear();
    formatter.emitDiagnostic(diag);
    std::string entry = StringRef(text).rtrim().str();
    for (const auto &[path, alias] : aliases)
      for (size_t at = entry.find(path); at != std::string::npos;
           at = entry.find(path, at + alias.size()))
        entry.replace(at, path.size(), alias);
    all.push_back(entry);
    switch (diag.getSeverity()) {
    case DiagnosticSeverity::Error:
      errorTexts.push_back(entry);
      break;
    case DiagnosticSeverity::Warning:
      warningTexts.push_back(entry);
      break;
    default:
      break;
    }
  }

  std::mutex mutex;
  std::string text;
  llvm::raw_string_ostream stream{text};
  llvm::SourceMgr sourceMgr;
  DiagnosticFormatter formatter;
  // Registered after the formatter, so it is asked first and stops there.
  ScopedDiagnosticHandler handler;
  std::vector<std::string> all, errorTexts, warningTexts;
  std::vector<std::pair<std::string, std::string>> aliases;
};

/// A context of its own for each module tree: resource blobs (weights) live
/// as long as their context, so a context per model frees them with it.
struct ContextHandle {
  ContextHandle() : context(getRegistry()) {
    // An error names its location; the operation it is on (a whole
    // function for some) is printed only on request, QUANTQDQ_VERBOSE set
    // to anything but "" or "0" (as quant_qdq.__main__ reads it).
    const char *verbose = std::getenv("QUANTQDQ_VERBOSE");
    context.printOpOnDiagnostic(verbose && *verbose &&
                                std::string_view(verbose) != "0");
  }
  MLIRContext context;
  /// One operation at a time on a context's IR.
  std::mutex mutex;
};

/// A module and the context that owns it (declared first: destroyed last).
class ModuleHandle {
public:
  ModuleHandle(std::shared_ptr<ContextHandle> context,
               OwningOpRef<ModuleOp> module)
      : context(std::move(context)), module(std::move(module)) {}

  MLIRContext *getContext() { return &context->context; }
  ModuleOp get() { return *module; }
  std::mutex &getMutex() { return context->mutex; }
  std::shared_ptr<ContextHandle> getContextHandle() { return context; }

private:
  std::shared_ptr<ContextHandle> context;
  OwningOpRef<ModuleOp> module;
};
} // namespace

/// Runs `fn` on `module`'s context, without the GIL, with diagnostics
/// captured; raises on failure. `fn` returns a LogicalResult.
template <typename Fn>
static void runCaptured(ModuleHandle &module, StringRef what, Fn &&fn) {
  DiagnosticCapture capture(module.getContext());
  LogicalResult result = failure();
  {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(module.getMutex());
    result = fn(capture);
  }
  capture.finish(result, what);
}

//===----------------------------------------------------------------------===//
// Modules: parse, print, import, export, pipelines
//===----------------------------------------------------------------------===//

/// Gives each `dense_resource<key>` of `module` the bytes `resources` holds
/// for `key` (one copy, into a blob the context owns). Every key must be
/// used, and every used key given, with the size its type asks for. Without
/// resources, nothing is checked: text may elide its weights
/// (`dense_resource<__elided__>`) when only the graph matters.
static LogicalResult
attachResources(ModuleOp module,
                const std::vector<std::pair<std::string, py::buffer_info>>
                    &resources) {
  MLIRContext *ctx = module.getContext();
  auto &blobs = DenseResourceElementsHandle::getManagerInterface(ctx)
                    .getBlobManager();
  for (const auto &[key, info] : resources) {
    if (!blobs.lookup(key))
      return emitError(module.getLoc())
             << "resource '" << key << "' is not used by the module";
    size_t size = static_cast<size_t>(info.size) * info.itemsize;
    blobs.update(key, HeapAsmResourceBlob::allocateAndCopyWithAlign(
                          ArrayRef<char>(static_cast<const char *>(info.ptr),
                                         size),
                          alignof(std::max_align_t)));
  }
  if (resources.empty())
    return success();
  WalkResult walk = module.walk([&](Operation *op) {
    for (NamedAttribute attr : op->getAttrs()) {
      auto value = dyn_cast<DenseResourceElementsAttr>(attr.getValue());
      if (!value)
        continue;
      AsmResourceBlob *blob = value.getRawHandle().getBlob();
      auto type = cast<ShapedType>(value.getType());
      uint64_t want = type.getNumElements() *
                      ((type.getElementTypeBitWidth() + 7) / 8);
      if (!blob || blob->getData().size() != want) {
        op->emitError() << "resource '" << value.getRawHandle().getKey()
                        << "' holds " << (blob ? blob->getData().size() : 0)
                        << " bytes; its type " << type << " needs " << want;
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

static std::unique_ptr<ModuleHandle> parseModule(const std::string &source,
                                                 const std::string &name,
                                                 py::dict resources) {
  registerPassesOnce();
  // Buffers are read under the GIL, before the parse releases it.
  std::vector<std::pair<std::string, py::buffer_info>> buffers;
  for (auto [key, value] : resources)
    buffers.emplace_back(py::cast<std::string>(key),
                         py::cast<py::buffer>(value).request());
  for (auto &[key, info] : buffers) {
    py::ssize_t stride = info.itemsize;
    for (py::ssize_t i = info.ndim - 1; i >= 0; --i) {
      if (info.shape[i] > 1 && info.strides[i] != stride)
        throw py::value_error("resource '" + key +
                              "' is not a contiguous array");
      stride *= info.shape[i];
    }
  }
  auto context = std::make_shared<ContextHandle>();
  ModuleHandle holder(context, {});
  OwningOpRef<ModuleOp> module;
  runCaptured(holder, "parsing", [&](DiagnosticCapture &capture) {
    llvm::SourceMgr &sourceMgr = capture.getSourceMgr();
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(source, name), llvm::SMLoc());
    ParserConfig config(&context->context);
    module = parseSourceFile<ModuleOp>(sourceMgr, config);
    return success(module && succeeded(attachResources(*module, buffers)) &&
                   succeeded(verify(*module)));
  });
  return std::make_unique<ModuleHandle>(context, std::move(module));
}

static std::unique_ptr<ModuleHandle> importModel(py::bytes data,
                                                 const std::string &name) {
  registerPassesOnce();
  auto context = std::make_shared<ContextHandle>();
  ModuleHandle holder(context, {});
  std::string_view view = data;
  OwningOpRef<ModuleOp> module;
  runCaptured(holder, "ONNX import", [&](DiagnosticCapture &) {
    llvm::MemoryBufferRef buffer(StringRef(view.data(), view.size()), name);
    module = importONNX(buffer, &context->context);
    return success(bool(module));
  });
  return std::make_unique<ModuleHandle>(context, std::move(module));
}

static std::unique_ptr<ModuleHandle> importModelFile(const std::string &path) {
  registerPassesOnce();
  auto context = std::make_shared<ContextHandle>();
  ModuleHandle holder(context, {});
  OwningOpRef<ModuleOp> module;
  runCaptured(holder, "ONNX import", [&](DiagnosticCapture &) {
    module = importONNXFile(path, &context->context);
    return success(bool(module));
  });
  return std::make_unique<ModuleHandle>(context, std::move(module));
}

static py::str printModule(ModuleHandle &module, bool debugInfo, bool generic,
                           int64_t largeElementsLimit) {
  std::string text;
  runCaptured(module, "printing", [&](DiagnosticCapture &) {
    OpPrintingFlags flags;
    if (debugInfo)
      flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
    if (generic)
      flags.printGenericOpForm();
    if (largeElementsLimit >= 0) {
      flags.elideLargeElementsAttrs(largeElementsLimit);
      flags.elideLargeResourceString(largeElementsLimit);
    }
    llvm::raw_string_ostream os(text);
    module.get()->print(os, flags);
    return success();
  });
  return toPyStr(text);
}

static py::bytes moduleToBytecode(ModuleHandle &module) {
  std::string bytes;
  runCaptured(module, "writing bytecode", [&](DiagnosticCapture &) {
    llvm::raw_string_ostream os(bytes);
    return writeBytecodeToFile(module.get(), os);
  });
  return py::bytes(bytes);
}

static py::bytes exportModel(ModuleHandle &module, bool integerWeights,
                             double activationAmax, int64_t opset,
                             bool matmulNBits) {
  std::string bytes;
  runCaptured(module, "ONNX export", [&](DiagnosticCapture &) {
    ONNXExportOptions options;
    options.integerWeights = integerWeights;
    options.activationAmax = activationAmax;
    options.opset = opset;
    options.matmulNBits = matmulNBits;
    llvm::raw_string_ostream os(bytes);
    return exportONNX(module.get(), os, options);
  });
  return py::bytes(bytes);
}

static void saveModel(ModuleHandle &module, const std::string &path,
                      bool integerWeights, double activationAmax,
                      const std::string &externalData, int64_t opset,
                      bool matmulNBits) {
  runCaptured(module, "ONNX export", [&](DiagnosticCapture &) {
    ONNXExportOptions options;
    options.integerWeights = integerWeights;
    options.activationAmax = activationAmax;
    options.opset = opset;
    options.matmulNBits = matmulNBits;
    options.externalData =
        llvm::StringSwitch<ONNXExternalData>(externalData)
            .Case("always", ONNXExternalData::Always)
            .Case("never", ONNXExternalData::Never)
            .Default(ONNXExternalData::Auto);
    return exportONNXFile(module.get(), path, options);
  });
}

static std::unique_ptr<ModuleHandle> cloneModule(ModuleHandle &module) {
  OwningOpRef<ModuleOp> copy;
  runCaptured(module, "cloning", [&](DiagnosticCapture &) {
    copy = cast<ModuleOp>(module.get()->clone());
    return success();
  });
  return std::make_unique<ModuleHandle>(module.getContextHandle(),
                                        std::move(copy));
}

/// The pipeline as the passes nested in the module pass manager: an
/// anchored `builtin.module(...)` loses its anchor, a bare list stays.
static std::string stripModuleAnchor(StringRef pipeline) {
  pipeline = pipeline.trim();
  StringRef inner = pipeline;
  if (inner.consume_front("builtin.module") && inner.ltrim().starts_with("(") &&
      inner.rtrim().ends_with(")"))
    return inner.trim().drop_front().drop_back().str();
  return pipeline.str();
}

static void runPipeline(ModuleHandle &module, const std::string &pipeline) {
  registerPassesOnce();
  // A pipeline that does not parse is the caller's mistake, not the
  // module's: reported with the parser's own position, no location.
  auto pm = std::make_unique<PassManager>(module.getContext());
  std::string error;
  llvm::raw_string_ostream errorStream(error);
  if (failed(
          parsePassPipeline(stripModuleAnchor(pipeline), *pm, errorStream))) {
    std::string message = "invalid pass pipeline '" + pipeline +
                          "': " + StringRef(error).trim().str();
    throw DiagnosticError{message, {message}};
  }
  runCaptured(module, "pass pipeline",
              [&](DiagnosticCapture &) { return pm->run(module.get()); });
}

static void verifyModule(ModuleHandle &module) {
  runCaptured(module, "verification",
              [&](DiagnosticCapture &) { return verify(module.get()); });
}

//===----------------------------------------------------------------------===//
// insert-qdq
//===----------------------------------------------------------------------===//

/// The qdq-quantize pipeline (QuantizePipeline.h), as qdq-opt runs it:
/// insert-qdq, [SmoothQuant, AWQ, GPTQ,] then calibration when `data`
/// names arrays.
static void
quantize(ModuleHandle &module, const std::vector<std::string> &cases,
         const std::string &specPath, const std::string &specName,
         const std::string &mode, const std::string &reportPath, bool propagate,
         unsigned activationBits, unsigned weightBits,
         const std::string &weightFormat, const std::string &activationFormat,
         int64_t weightBlockSize, const std::string &weightScale, bool awq,
         bool gptq, const std::string &smoothAlpha, const std::string &kvCache,
         const std::string &target, int64_t attentionMaxSequence,
         const std::vector<std::string> &data, const std::string &method,
         double percentile, unsigned bins, int64_t batchSize, bool checkRanges,
         bool biasCorrection) {
  registerPassesOnce();
  runCaptured(module, "insert-qdq", [&](DiagnosticCapture &capture) {
    if (!specPath.empty() && !specName.empty())
      capture.addPathAlias(specPath, specName);
    QuantizePipelineOptions options;
    options.cases = ArrayRef<std::string>(cases);
    options.spec = specPath;
    options.mode = mode;
    options.report = reportPath;
    options.propagate = propagate;
    options.activationBits = activationBits;
    options.weightBits = weightBits;
    options.weightFormat = weightFormat;
    options.activationFormat = activationFormat;
    options.weightBlockSize = weightBlockSize;
    options.weightScale = weightScale;
    options.awq = awq;
    options.gptq = gptq;
    options.smoothAlpha = smoothAlpha;
    options.kvCache = kvCache;
    options.target = target;
    options.attentionMaxSequence = attentionMaxSequence;
    options.data = ArrayRef<std::string>(data);
    options.method = method;
    options.percentile = percentile;
    options.bins = bins;
    options.batchSize = batchSize;
    options.checkRanges = checkRanges;
    options.biasCorrection = biasCorrection;
    PassManager pm(module.getContext());
    // Python sets no nested pass options: nothing here can fail to parse.
    if (failed(buildQuantizePipeline(pm, options, [&](const Twine &message) {
          return emitError(module.get()->getLoc()) << message;
        })))
      return failure();
    return pm.run(module.get());
  });
}

//===----------------------------------------------------------------------===//
// The layer graph that Python cases read
//===----------------------------------------------------------------------===//

static py::object toPython(const std::optional<SmallVector<int64_t>> &shape) {
  if (!shape)
    return py::list();
  return py::cast(std::vector<int64_t>(shape->begin(), shape->end()));
}

/// One dict per layer (LayerGraph.h), in program order; producers and
/// consumers are positions in that list (None for a graph input or a
/// constant). What Q/DQ placement decided is data here too: the positions
/// of the inputs read quantized, and whether the weight is.
static py::list describeLayers(ModuleHandle &module) {
  std::vector<LayerNode> graph;
  SmallVector<std::string> locations;
  runCaptured(module, "reading the layer graph", [&](DiagnosticCapture &) {
    graph = buildLayerGraph(module.get());
    for (const LayerNode &node : graph)
      llvm::raw_string_ostream(locations.emplace_back()) << node.op->getLoc();
    return success();
  });

  py::list result;
  for (auto [node, location] : llvm::zip(graph, locations)) {
    py::list inputs, inputShapes, producers, quantizedInputs, outputs,
        outputShapes;
    for (auto [position, t] : llvm::enumerate(node.inputs)) {
      inputs.append(toPyStr(t.name));
      inputShapes.append(toPython(t.shape));
      producers.append(py::cast(t.producer));
      if (t.quantized)
        quantizedInputs.append(position);
    }
    for (const LayerTensor &t : node.outputs) {
      outputs.append(toPyStr(t.name));
      outputShapes.append(toPython(t.shape));
    }
    py::dict d;
    d["name"] = toPyStr(node.name);
    d["class_name"] = toPyStr(node.layerClass);
    d["op_name"] = toPyStr(node.op->getName().getStringRef());
    d["location"] = toPyStr(location);
    d["inputs"] = inputs;
    d["input_shapes"] = inputShapes;
    d["outputs"] = outputs;
    d["output_shapes"] = outputShapes;
    d["producers"] = producers;
    d["consumers"] = std::vector<unsigned>(node.consumers.begin(),
                                           node.consumers.end());
    d["weight"] = node.weight ? py::object(toPyStr(node.weight->name))
                              : py::object(py::none());
    d["weight_shape"] =
        node.weight ? toPython(node.weight->shape) : py::object(py::list());
    d["weight_channel_axis"] = node.weightChannelAxis;
    d["quantized_inputs"] = quantizedInputs;
    d["weight_quantized"] = node.weight && node.weight->quantized;
    d["quantize_input_by_default"] = node.quantizesInputByDefault;
    d["quantize_weight_by_default"] = node.quantizesWeightByDefault;
    d["pass_through"] = node.passThrough;
    result.append(std::move(d));
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Insertion cases
//===----------------------------------------------------------------------===//

/// Records the QuantizationSpec a Python case returned (JSON, the format of
/// --qdq-spec) as that case's decisions (recordSpecAsCase).
static void recordCaseSpec(ModuleHandle &module, const std::string &caseName,
                           const std::string &specJSON) {
  runCaptured(module, "custom case '" + caseName + "'",
              [&](DiagnosticCapture &) -> LogicalResult {
                FailureOr<QuantizationSpec> spec = QuantizationSpec::parse(
                    specJSON, "<" + caseName + " spec>", module.getContext());
                if (failed(spec))
                  return failure();
                return recordSpecAsCase(module.get(), caseName, *spec);
              });
}

/// What the registered (or file) case `name` decides, without changing the
/// module: one (layer name, class, inputs, weight) per recorded layer.
static py::list caseRecords(ModuleHandle &module, const std::string &name) {
  registerPassesOnce();
  SmallVector<CaseDecision> decisions;
  runCaptured(module, "insertion case '" + name + "'",
              [&](DiagnosticCapture &) -> LogicalResult {
                FailureOr<SmallVector<CaseDecision>> preview =
                    previewInsertionCase(module.get(), name);
                if (failed(preview))
                  return failure();
                decisions = std::move(*preview);
                return success();
              });
  py::list result;
  for (const CaseDecision &d : decisions) {
    ArrayRef<int64_t> inputs = d.record.getInputPositions();
    result.append(py::make_tuple(
        toPyStr(d.layerName), toPyStr(d.layerClass),
        std::vector<int64_t>(inputs.begin(), inputs.end()),
        d.record.getWeight()));
  }
  return result;
}

static py::list listCases() {
  registerPassesOnce();
  py::list result;
  for (const std::string &name : getInsertionCaseNames()) {
    const InsertionCase *c = lookupInsertionCase(name);
    result.append(py::make_tuple(
        name, c ? c->description : std::string(),
        c ? std::vector<std::string>(c->parts.begin(), c->parts.end())
          : std::vector<std::string>()));
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Calibration
//===----------------------------------------------------------------------===//

using TableEntries =
    std::vector<std::tuple<std::string, double, double, double>>;

static CalibrationTable makeTable(const std::string &method,
                                  const TableEntries &entries) {
  CalibrationTable table;
  table.method = method;
  for (const auto &[name, amax, min, max] : entries) {
    TensorRange range;
    range.amax = amax;
    range.min = min;
    range.max = max;
    table.ranges[name] = range;
  }
  return table;
}

static py::tuple tableToPython(const CalibrationTable &table) {
  py::list entries;
  for (const auto &[name, range] : table.ranges)
    entries.append(
        py::make_tuple(toPyStr(name), range.amax, range.min, range.max));
  return py::make_tuple(toPyStr(table.method), entries);
}

static py::tuple collectTable(ModuleHandle &module,
                              const std::vector<std::string> &paths,
                              const std::string &method, double percentile,
                              unsigned bins, int64_t batchSize,
                              const std::string &entry, bool progress) {
  CalibrationTable table;
  runCaptured(module, "calibration", [&](DiagnosticCapture &) -> LogicalResult {
    CalibrationOptions options;
    std::optional<CalibrationMethod> parsed =
        symbolizeCalibrationMethod(method);
    if (!parsed)
      return emitError(module.get().getLoc())
             << "unknown calibration method '" << method
             << "' (max, percentile, entropy, mse, last-value or "
                "moving-average)";
    options.method = *parsed;
    options.percentile = percentile;
    options.bins = bins;
    options.batchSize = batchSize;
    options.entry = entry;
    options.progress = progress;
    return collectCalibrationTable(module.get(), paths, options, table);
  });
  return tableToPython(table);
}

/// One row of a comparison, for Python.
static py::dict comparisonRow(const TensorComparison &row, bool layer) {
  py::dict d;
  d["name"] = toPyStr(row.name);
  d["layer"] = toPyStr(row.layer);
  d["op"] = toPyStr(row.op);
  d["shape"] = py::tuple(py::cast(std::vector<int64_t>(row.shape.begin(),
                                                       row.shape.end())));
  d["sqnr_db"] = row.sqnr;
  d["own_sqnr_db"] = layer ? py::cast(row.ownSqnr) : py::none();
  d["max_error"] = row.maxError;
  d["reference_range"] = py::make_tuple(row.referenceMin, row.referenceMax);
  d["top1_agreeing"] =
      row.top1Agreeing ? py::cast(*row.top1Agreeing) : py::none();
  d["rows"] = row.rows;
  return d;
}

/// qdq-run --compare: `quantized` against `reference` (or against itself
/// without Q/DQ) on the arrays in `inputPaths`. Returns (outputs, layers,
/// skipped outputs, report text).
static py::tuple compareModules(ModuleHandle &quantized,
                                ModuleHandle *reference,
                                const std::vector<std::string> &inputPaths,
                                unsigned worstLayers,
                                const std::string &entry) {
  ComparisonResult result;
  std::string text;
  runCaptured(quantized, "comparison",
              [&](DiagnosticCapture &) -> LogicalResult {
    MLIRContext *context = quantized.get().getContext();
    Location loc = quantized.get().getLoc();
    OwningOpRef<ModuleOp> ref;
    if (reference) {
      std::unique_lock<std::mutex> lock(reference->getMutex(),
                                        std::defer_lock);
      if (&reference->getMutex() != &quantized.getMutex())
        lock.lock();
      if (reference->get().getContext() == context) {
        ref = cast<ModuleOp>(reference->get()->clone());
      } else {
        // Both networks run on arrays typed in one context: the reference
        // moves into the quantized network's through bytecode.
        std::string bytes;
        llvm::raw_string_ostream os(bytes);
        if (failed(writeBytecodeToFile(reference->get(), os)))
          return emitError(loc) << "cannot copy the reference model";
        ref = parseSourceString<ModuleOp>(bytes, ParserConfig(context));
        if (!ref)
          return failure();
      }
    }
    std::vector<NpyArray> inputs;
    for (const std::string &path : inputPaths) {
      auto array = readNpy(path, context);
      if (!array)
        return emitError(loc) << llvm::toString(array.takeError());
      inputs.push_back(std::move(*array));
    }
    ComparisonOptions options;
    options.entry = entry;
    options.layers = worstLayers != 0;
    FailureOr<ComparisonResult> compared =
        compareNetworks(cast<ModuleOp>(quantized.get()->clone()),
                        std::move(ref), inputs, options);
    if (failed(compared))
      return failure();
    result = std::move(*compared);
    llvm::raw_string_ostream os(text);
    printComparison(os, result, worstLayers);
    return success();
  });
  py::list outputs, layers;
  for (const TensorComparison &row : result.outputs)
    outputs.append(comparisonRow(row, /*layer=*/false));
  for (const TensorComparison &row : result.layers)
    layers.append(comparisonRow(row, /*layer=*/true));
  return py::make_tuple(outputs, layers, toPyStrList(result.skippedOutputs),
                        toPyStr(text));
}

static void applyTable(ModuleHandle &module, const std::string &method,
                       const TableEntries &entries) {
  CalibrationTable table = makeTable(method, entries);
  runCaptured(module, "applying the calibration table",
              [&](DiagnosticCapture &) {
                return applyCalibrationTable(module.get(), table);
              });
}

static void writeTable(const std::string &path, const std::string &method,
                       const TableEntries &entries) {
  CalibrationTable table = makeTable(method, entries);
  ModuleHandle holder(std::make_shared<ContextHandle>(), {});
  runCaptured(
      holder, "writing the calibration table", [&](DiagnosticCapture &) {
        return writeCalibrationTable(
            path, table, FileLineColLoc::get(holder.getContext(), path, 0, 0));
      });
}

static py::tuple readTable(const std::string &path) {
  CalibrationTable table;
  ModuleHandle holder(std::make_shared<ContextHandle>(), {});
  runCaptured(holder, "reading the calibration table",
              [&](DiagnosticCapture &) -> LogicalResult {
                FailureOr<CalibrationTable> read =
                    readCalibrationTable(path, holder.getContext());
                if (failed(read))
                  return failure();
                table = std::move(*read);
                return success();
              });
  return tableToPython(table);
}

//===----------------------------------------------------------------------===//
// The module
//===----------------------------------------------------------------------===//

PYBIND11_MODULE(_quant_qdq, m) {
  m.doc() = "quant-qdq C++ libraries (MLIR, insert-qdq, ONNX, calibration)";

  errorType = PyErr_NewExceptionWithDoc(
      "quant_qdq._quant_qdq.QuantQDQError",
      "A quant-qdq operation failed; `diagnostics` holds every message.",
      PyExc_RuntimeError, nullptr);
  warningType = PyErr_NewExceptionWithDoc(
      "quant_qdq._quant_qdq.QuantQDQWarning",
      "A warning diagnostic of a quant-qdq operation.", PyExc_UserWarning,
      nullptr);
  m.attr("QuantQDQError") = py::handle(errorType);
  m.attr("QuantQDQWarning") = py::handle(warningType);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const DiagnosticError &e) {
      py::object exc =
          py::reinterpret_borrow<py::object>(errorType)(toPyStr(e.message));
      exc.attr("diagnostics") = toPyStrList(e.diagnostics);
      PyErr_SetObject(errorType, exc.ptr());
    }
  });

  py::class_<ModuleHandle>(m, "Module",
                           "An MLIR module with the context that owns it.")
      .def("__str__",
           [](ModuleHandle &self) {
             return printModule(self, false, false, -1);
           })
      .def("print", &printModule, py::arg("debug_info") = false,
           py::arg("generic") = false, py::arg("large_elements_limit") = -1,
           "The module as MLIR text.")
      .def("to_bytecode", &moduleToBytecode, "The module as MLIR bytecode.")
      .def("clone", &cloneModule, "A copy in the same context.")
      .def("verify", &verifyModule)
      .def("run_pipeline", &runPipeline, py::arg("pipeline"),
           "Runs a textual pass pipeline in place.")
      .def("export_onnx", &exportModel, py::arg("integer_weights") = true,
           py::arg("activation_amax") = 6.0, py::arg("opset") = 0,
           py::arg("matmul_nbits") = false, "Serialized QDQ ONNX ModelProto.")
      .def("save_onnx", &saveModel, py::arg("path"),
           py::arg("integer_weights") = true, py::arg("activation_amax") = 6.0,
           py::arg("external_data") = "auto", py::arg("opset") = 0,
           py::arg("matmul_nbits") = false,
           "Writes QDQ ONNX to `path` (and `path`.data, with external data).")
      .def("quantize", &quantize, py::arg("cases"), py::arg("spec_path"),
           py::arg("spec_name"), py::arg("mode"), py::arg("report_path"),
           py::arg("propagate"), py::arg("activation_bits"),
           py::arg("weight_bits"), py::arg("weight_format"),
           py::arg("activation_format"), py::arg("weight_block_size"),
           py::arg("weight_scale"), py::arg("awq"), py::arg("gptq"),
           py::arg("smooth_alpha"), py::arg("kv_cache"), py::arg("target"),
           py::arg("attention_max_sequence"), py::arg("data"),
           py::arg("method"), py::arg("percentile"), py::arg("bins"),
           py::arg("batch_size"), py::arg("check_ranges"),
           py::arg("bias_correction"))
      .def("layers", &describeLayers)
      .def("record_case_spec", &recordCaseSpec, py::arg("case_name"),
           py::arg("spec_json"))
      .def("case_records", &caseRecords, py::arg("case_name"))
      .def("collect_calibration_table", &collectTable, py::arg("paths"),
           py::arg("method"), py::arg("percentile"), py::arg("bins"),
           py::arg("batch_size"), py::arg("entry"), py::arg("progress"))
      .def("compare", &compareModules, py::arg("reference").none(true),
           py::arg("paths"), py::arg("worst_layers"), py::arg("entry"))
      .def("apply_calibration_table", &applyTable, py::arg("method"),
           py::arg("entries"));

  m.def("parse_module", &parseModule, py::arg("source"),
        py::arg("name") = "<string>", py::arg("resources") = py::dict());
  m.def("import_onnx", &importModel, py::arg("data"),
        py::arg("name") = "model.onnx");
  m.def("import_onnx_file", &importModelFile, py::arg("path"));
  m.def("insertion_cases", &listCases);
  m.def("read_calibration_table", &readTable, py::arg("path"));
  m.def("write_calibration_table", &writeTable, py::arg("path"),
        py::arg("method"), py::arg("entries"));
}
