//===- QuantQDQModule.cpp - the _quant_qdq Python extension ---------------===//
//
// pybind11 bindings over the quant-qdq C++ libraries: MLIR modules that own
// their context, parsing and printing, pass pipelines, ONNX import and
// export, insert-qdq, insertion-case records (the glue that lets a case
// written in Python record decisions like a library case), the read-only
// layer graph that Python cases inspect, and calibration.
//
// Every entry point captures the context's diagnostics: warnings become
// Python warnings (QuantQDQWarning) and a failure raises QuantQDQError with
// the tool's messages, never a crash. Models cross the boundary as
// serialized bytes. The pure-Python package (quant_qdq/) builds the
// toolkit's API on top of this module.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Calibration/Calibration.h"
#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/InitQuantQDQ.h"
#include "QuantQDQ/Target/ONNX/ONNX.h"
#include "QuantQDQ/Transforms/InsertionCases.h"
#include "QuantQDQ/Transforms/Passes.h"
#include "QuantQDQ/Transforms/QuantizationSpec.h"
#include "QuantQDQ/Transforms/TensorNames.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/Diagnostics.h"
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
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
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
  ContextHandle() : context(getRegistry()) {}
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

static std::unique_ptr<ModuleHandle> parseModule(const std::string &source,
                                                 const std::string &name) {
  registerPassesOnce();
  auto context = std::make_shared<ContextHandle>();
  ModuleHandle holder(context, {});
  OwningOpRef<ModuleOp> module;
  runCaptured(holder, "parsing", [&](DiagnosticCapture &capture) {
    llvm::SourceMgr &sourceMgr = capture.getSourceMgr();
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(source, name), llvm::SMLoc());
    ParserConfig config(&context->context);
    module = parseSourceFile<ModuleOp>(sourceMgr, config);
    return success(module && succeeded(verify(*module)));
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
                             double activationAmax) {
  std::string bytes;
  runCaptured(module, "ONNX export", [&](DiagnosticCapture &) {
    ONNXExportOptions options;
    options.integerWeights = integerWeights;
    options.activationAmax = activationAmax;
    llvm::raw_string_ostream os(bytes);
    return exportONNX(module.get(), os, options);
  });
  return py::bytes(bytes);
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

static void insertQDQ(ModuleHandle &module,
                      const std::vector<std::string> &cases,
                      const std::string &specPath, const std::string &specName,
                      const std::string &mode, const std::string &reportPath,
                      bool propagate, unsigned activationBits,
                      unsigned weightBits) {
  registerPassesOnce();
  runCaptured(module, "insert-qdq", [&](DiagnosticCapture &capture) {
    if (!specPath.empty() && !specName.empty())
      capture.addPathAlias(specPath, specName);
    InsertQDQOptions options;
    options.cases.assign(cases.begin(), cases.end());
    options.specPath = specPath;
    options.mode = mode;
    options.reportPath = reportPath;
    options.propagate = propagate;
    options.activationBits = activationBits;
    options.weightBits = weightBits;
    PassManager pm(module.getContext());
    pm.addPass(createInsertQDQ(std::move(options)));
    return pm.run(module.get());
  });
}

//===----------------------------------------------------------------------===//
// The layer graph that Python cases read
//===----------------------------------------------------------------------===//

/// The value a Q/DQ chain carries: quantize, dequantize and fake_quant ops
/// are looked through, so that a case sees the same graph before and after
/// insertion.
static Value skipQDQ(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (!isa<QuantizeOp, DequantizeOp, FakeQuantOp>(def))
      break;
    value = def->getOperand(0);
  }
  return value;
}

/// Layers that read `value`, through Q/DQ ops, in use order.
static void collectConsumers(Value value,
                             SmallVectorImpl<Operation *> &consumers) {
  for (Operation *user : value.getUsers()) {
    if (isa<QuantizeOp, DequantizeOp, FakeQuantOp>(user)) {
      for (Value result : user->getResults())
        collectConsumers(result, consumers);
      continue;
    }
    if (isa<QDQLayerOpInterface>(user) && !llvm::is_contained(consumers, user))
      consumers.push_back(user);
  }
}

/// The ONNX initializer name of a weight (its location), else the name
/// calibration gives the tensor.
static std::string getWeightName(Value value) {
  if (Operation *def = value.getDefiningOp())
    if (auto loc = dyn_cast<NameLoc>(def->getLoc()))
      return loc.getName().str();
  return getTensorName(value).str();
}

static std::vector<int64_t> shapeOf(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasRank())
    return {};
  return std::vector<int64_t>(shaped.getShape().begin(),
                              shaped.getShape().end());
}

/// One dict per layer, in program order; producers and consumers are
/// positions in that list (None for a graph input or a constant).
static py::list describeLayers(ModuleHandle &module) {
  struct LayerInfo {
    std::string name, layerClass, opName, weight, location;
    std::vector<std::string> inputs, outputs;
    std::vector<std::optional<int64_t>> producers;
    std::vector<int64_t> consumers;
    std::vector<int64_t> weightShape;
    std::optional<int64_t> weightAxis;
    bool hasWeight = false, inputByDefault = false, weightByDefault = false,
         passThrough = false;
    std::vector<std::vector<int64_t>> inputShapes, outputShapes;
  };
  std::vector<LayerInfo> infos;
  runCaptured(module, "reading the layer graph", [&](DiagnosticCapture &) {
    // The names calibration tables and export use.
    module.get().walk([](FunctionOpInterface func) { nameTensors(func); });
    llvm::DenseMap<Operation *, int64_t> index;
    SmallVector<QDQLayerOpInterface> layers;
    module.get().walk([&](QDQLayerOpInterface layer) {
      index[layer.getOperation()] = layers.size();
      layers.push_back(layer);
    });
    for (QDQLayerOpInterface layer : layers) {
      Operation *op = layer.getOperation();
      LayerInfo info;
      info.name = layer.getLayerName().str();
      info.layerClass = layer.getLayerClass().str();
      info.opName = op->getName().getStringRef().str();
      llvm::raw_string_ostream(info.location) << op->getLoc();
      for (unsigned operand : layer.getActivationOperandIndices()) {
        Value value = skipQDQ(op->getOperand(operand));
        info.inputs.push_back(getTensorName(value).str());
        info.inputShapes.push_back(shapeOf(value.getType()));
        Operation *def = value.getDefiningOp();
        auto it = def ? index.find(def) : index.end();
        info.producers.push_back(it == index.end()
                                     ? std::nullopt
                                     : std::optional<int64_t>(it->second));
      }
      if (std::optional<unsigned> weight = layer.getWeightOperandIndex()) {
        Value value = skipQDQ(op->getOperand(*weight));
        info.hasWeight = true;
        info.weight = getWeightName(value);
        info.weightShape = shapeOf(value.getType());
        info.weightAxis = layer.getWeightChannelAxis();
      }
      SmallVector<Operation *> consumers;
      for (Value result : op->getResults()) {
        info.outputs.push_back(getTensorName(result).str());
        info.outputShapes.push_back(shapeOf(result.getType()));
        collectConsumers(result, consumers);
      }
      for (Operation *consumer : consumers)
        info.consumers.push_back(index.lookup(consumer));
      info.inputByDefault = layer.quantizesInputByDefault();
      info.weightByDefault = layer.quantizesWeightByDefault();
      info.passThrough = layer.isPassThrough();
      infos.push_back(std::move(info));
    }
    return success();
  });

  py::list result;
  for (LayerInfo &info : infos) {
    py::dict d;
    d["name"] = toPyStr(info.name);
    d["class_name"] = toPyStr(info.layerClass);
    d["op_name"] = toPyStr(info.opName);
    d["location"] = toPyStr(info.location);
    d["inputs"] = toPyStrList(info.inputs);
    d["input_shapes"] = info.inputShapes;
    d["outputs"] = toPyStrList(info.outputs);
    d["output_shapes"] = info.outputShapes;
    d["producers"] = info.producers;
    d["consumers"] = info.consumers;
    d["weight"] = info.hasWeight ? py::object(toPyStr(info.weight))
                                 : py::object(py::none());
    d["weight_shape"] = info.weightShape;
    d["weight_channel_axis"] = info.weightAxis;
    d["quantize_input_by_default"] = info.inputByDefault;
    d["quantize_weight_by_default"] = info.weightByDefault;
    d["pass_through"] = info.passThrough;
    result.append(std::move(d));
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Insertion cases
//===----------------------------------------------------------------------===//

static bool hasQuantizerOverride(const QuantizerOverride &q) {
  return q.bits || q.isSigned || q.narrowRange || q.symmetric || q.perChannel;
}

/// Turns the QuantizationSpec a Python case returned (JSON, the format of
/// --qdq-spec) into case records on the layers it matches, exactly as a
/// library case records: insert-qdq then ranks them below the user's spec.
static void recordCaseSpec(ModuleHandle &module, const std::string &caseName,
                           const std::string &specJSON) {
  runCaptured(
      module, "custom case '" + caseName + "'",
      [&](DiagnosticCapture &) -> LogicalResult {
        MLIRContext *context = module.getContext();
        FailureOr<QuantizationSpec> spec = QuantizationSpec::parse(
            specJSON, "<" + caseName + " spec>", context);
        if (failed(spec))
          return failure();
        for (const SpecEntry &entry : spec->getEntries())
          if (hasQuantizerOverride(entry.inputQuantizer) ||
              hasQuantizerOverride(entry.weightQuantizer))
            emitWarning(entry.loc)
                << "case '" << caseName << "': quantizer settings of "
                << "a case's spec are ignored (a case chooses only "
                << "what to quantize); put them in the "
                << "QuantizationSpec given to quantize_model";

        bool recordFailed = false;
        ScopedDiagnosticHandler watch(context, [&](Diagnostic &diag) {
          recordFailed |= diag.getSeverity() == DiagnosticSeverity::Error;
          return failure(); // Pass it on to the capture.
        });
        IRRewriter rewriter(context);
        llvm::SmallPtrSet<const SpecEntry *, 8> used;
        module.get().walk([&](QDQLayerOpInterface layer) {
          const SpecEntry *entry =
              spec->lookup(layer.getLayerName(), layer.getLayerClass());
          if (!entry)
            return;
          used.insert(entry);
          SmallVector<int64_t> positions;
          if (entry->quantizationIndex)
            llvm::append_range(positions, *entry->quantizationIndex);
          else if (entry->quantizeInput)
            for (unsigned i = 0, e = layer.getActivationOperandIndices().size();
                 i < e; ++i)
              positions.push_back(i);
          bool weight = entry->quantizeWeight &&
                        layer.getWeightOperandIndex().has_value();
          // The toolkit leaves such a layer alone.
          bool keepInFloat = !entry->quantizationIndex &&
                             !entry->quantizeInput && !entry->quantizeWeight;
          recordCaseDecision(rewriter, layer, caseName, positions, weight,
                             keepInFloat);
        });
        // As for the user's spec: a name that matches nothing is a warning.
        for (const SpecEntry &entry : spec->getEntries())
          if (!used.contains(&entry))
            emitWarning(entry.loc)
                << "case '" << caseName << "': no layer "
                << (entry.match == SpecEntry::Match::Class  ? "of class '"
                    : entry.match == SpecEntry::Match::Name ? "named '"
                                                            : "name contains '")
                << entry.pattern << "'";
        return failure(recordFailed);
      });
}

/// What the registered (or file) case `name` records on a copy of the
/// module: one (layer name, class, inputs, weight) per recorded layer.
static py::list caseRecords(ModuleHandle &module, const std::string &name) {
  registerPassesOnce();
  struct Record {
    std::string name, layerClass;
    std::vector<int64_t> inputs;
    bool weight;
  };
  std::vector<Record> records;
  runCaptured(
      module, "insertion case '" + name + "'",
      [&](DiagnosticCapture &) -> LogicalResult {
        OwningOpRef<ModuleOp> copy = cast<ModuleOp>(module.get()->clone());
        // Records already there are not this case's.
        copy->walk([](Operation *op) { op->removeAttr(kCaseAttrName); });
        if (failed(applyInsertionCases(*copy, {name})))
          return failure();
        copy->walk([&](QDQLayerOpInterface layer) {
          auto record = layer->getAttrOfType<CaseRecordAttr>(kCaseAttrName);
          if (!record)
            return;
          records.push_back(Record{
              layer.getLayerName().str(), layer.getLayerClass().str(),
              std::vector<int64_t>(record.getInputPositions().begin(),
                                   record.getInputPositions().end()),
              record.getWeight()});
        });
        return success();
      });
  py::list result;
  for (Record &r : records)
    result.append(py::make_tuple(toPyStr(r.name), toPyStr(r.layerClass),
                                 r.inputs, r.weight));
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
    std::optional<CalibrationMethod> parsed = parseCalibrationMethod(method);
    if (!parsed)
      return emitError(module.get().getLoc())
             << "unknown calibration method '" << method
             << "' (max, percentile, entropy or mse)";
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
      .def("export_onnx", &exportModel, py::arg("integer_weights") = false,
           py::arg("activation_amax") = 6.0, "Serialized QDQ ONNX ModelProto.")
      .def("insert_qdq", &insertQDQ, py::arg("cases"), py::arg("spec_path"),
           py::arg("spec_name"), py::arg("mode"), py::arg("report_path"),
           py::arg("propagate"), py::arg("activation_bits"),
           py::arg("weight_bits"))
      .def("layers", &describeLayers)
      .def("record_case_spec", &recordCaseSpec, py::arg("case_name"),
           py::arg("spec_json"))
      .def("case_records", &caseRecords, py::arg("case_name"))
      .def("collect_calibration_table", &collectTable, py::arg("paths"),
           py::arg("method"), py::arg("percentile"), py::arg("bins"),
           py::arg("batch_size"), py::arg("entry"), py::arg("progress"))
      .def("apply_calibration_table", &applyTable, py::arg("method"),
           py::arg("entries"));

  m.def("parse_module", &parseModule, py::arg("source"),
        py::arg("name") = "<string>");
  m.def("import_onnx", &importModel, py::arg("data"),
        py::arg("name") = "model.onnx");
  m.def("insertion_cases", &listCases);
  m.def("read_calibration_table", &readTable, py::arg("path"));
  m.def("write_calibration_table", &writeTable, py::arg("path"),
        py::arg("method"), py::arg("entries"));
}
