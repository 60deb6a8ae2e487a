//===- qdq-run.cpp - run a network on the CPU or an NVIDIA GPU ------------===//
//
//   qdq-run model.{mlir,mlirbc,onnx} --input x.npy [--input ...]
//   qdq-run model.onnx --input feeds.npz   (arrays named after the inputs)
//           [--output y.npy ...] [--device=cpu|cuda]
//   qdq-run --probe-device=cuda
//
// Compiles the model's entry function for the shapes of the given inputs (a
// dynamic batch takes the batch of the arrays) with qdq-cpu-pipeline and
// LLVM on every core (or, for --device=cuda, qdq-gpu-pipeline, whose kernels
// run through the CUDA runtime loaded at run time), runs it, and writes each
// result as .npy (or prints a summary). Nothing is written unless the run
// succeeds.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Calibration/Comparison.h"
#include "QuantQDQ/Execution/JITExecutor.h"
#include "QuantQDQ/InitQuantQDQ.h"
#include "QuantQDQ/Target/Keras/Keras.h"
#include "QuantQDQ/Target/ONNX/ONNX.h"
#include "QuantQDQ/Target/ONNX/ONNXDiagnostics.h"
#include "QuantQDQ/Utils/TensorNames.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>
#include <numeric>

using namespace mlir;
using namespace mlir::quant_qdq;
namespace cl = llvm::cl;

// --help lists these; LLVM's and MLIR's own options (hundreds, from every
// target it links) are not listed, though they still parse.
static cl::OptionCategory runnerCategory("qdq-run options");

// Not cl::Required: --probe-device takes no model.
static cl::opt<std::string> modelPath(cl::Positional,
                                      cl::desc("<model.mlir|.mlirbc|.onnx>"),
                                      cl::cat(runnerCategory));
static cl::list<std::string> inputPaths("input",
                                        cl::desc("Input array (.npy), one "
                                                 "per model input in order; "
                                                 "or one .npz of arrays "
                                                 "named after the inputs"),
                                        cl::value_desc("file"),
                                        cl::cat(runnerCategory));
static cl::list<std::string> outputPaths("output",
                                         cl::desc("Output array (.npy)"),
                                         cl::value_desc("file"),
                                         cl::cat(runnerCategory));
static cl::opt<std::string> entryName(
    "entry", cl::desc("Function to run (default: the only public function)"),
    cl::value_desc("name"), cl::cat(runnerCategory));
static cl::opt<unsigned> repeat(
    "repeat",
    cl::desc("Run this many times and print the median time per run (and "
             "the mean and the fastest)"),
    cl::init(1), cl::cat(runnerCategory));
static cl::opt<unsigned> optLevel("opt-level",
                                  cl::desc("LLVM optimization level"),
                                  cl::init(3), cl::cat(runnerCategory));
static cl::opt<int64_t> splitBatchBytes(
    "split-batch-bytes",
    cl::desc("On the CPU, run a batch whose samples are computed apart in "
             "groups, growing along the model, whose ops' tensors fit in "
             "this many bytes (0: "
             "the whole batch at once; default: half the last-level cache)"),
    cl::init(-1), cl::cat(runnerCategory));
static cl::opt<Device> device(
    "device", cl::desc("Where to run the model"), cl::init(Device::CPU),
    cl::cat(runnerCategory),
    cl::values(clEnumValN(Device::CPU, "cpu", "the host CPU (default)"),
               clEnumValN(Device::CUDA, "cuda",
                          "NVIDIA GPU 0 through the CUDA driver: Q/DQ ops "
                          "run as GPU kernels")));
static cl::opt<Device> probeDevice(
    "probe-device",
    cl::desc("Print whether the device can run models (its name and "
             "architecture, or why not) and exit: 0 if it can, 1 if not"),
    cl::values(clEnumValN(Device::CUDA, "cuda", "NVIDIA GPU 0")),
    cl::cat(runnerCategory));

/// The function to run: --entry, else the only public one with a body.
static cl::opt<std::string> compareWith(
    "compare", cl::ValueOptional,
    cl::desc("Compare the model with a float reference on the inputs: "
             "SQNR, max error and top-1 agreement per output, and the "
             "layers adding the most error. --compare=<model>: that model "
             "(tensors matched by name); --compare alone: this model with "
             "its Q/DQ and number formats removed"),
    cl::value_desc("reference model"), cl::cat(runnerCategory));
static cl::opt<std::string> tokensInput(
    "tokens",
    cl::desc("With --compare: the model input holding token ids [batch, "
             "sequence]; logits [batch, sequence, vocabulary] then report "
             "both models' next-token perplexity on them"),
    cl::value_desc("input name"), cl::cat(runnerCategory));
static cl::opt<unsigned> compareLayers(
    "compare-layers",
    cl::desc("With --compare: how many of the worst layers to list (0: "
             "compare outputs only)"),
    cl::init(10), cl::cat(runnerCategory));

static FailureOr<std::string> pickEntry(ModuleOp module) {
  if (!entryName.empty())
    return entryName.getValue();
  SmallVector<func::FuncOp> candidates;
  module.walk([&](func::FuncOp func) {
    if (!func.isExternal() && func.isPublic())
      candidates.push_back(func);
  });
  if (candidates.size() == 1)
    return candidates.front().getName().str();
  emitError(module.getLoc())
      << (candidates.empty() ? "no public function to run"
                             : "several public functions: choose one with "
                               "--entry");
  return failure();
}

/// Whether `array` (read from `path`) can be an argument of type `type`:
/// the same rank, the static sizes, and the element type or, for a
/// floating-point one, another floating-point type. With `runsOfBatch`
/// (--compare), a first size that is a multiple of a static one passes:
/// the samples run in groups of it.
static llvm::Error checkInput(StringRef path, const NpyArray &array, Type type,
                              bool runsOfBatch) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  auto mismatch = [&](StringRef what) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << path << ": " << what << ": the array is "
       << RankedTensorType::get(array.shape, array.elementType)
       << ", the model's input " << type;
    return llvm::createStringError(text);
  };
  if (!tensor)
    return mismatch("the input is not a ranked tensor");
  if (!holdsElementType(array, tensor.getElementType()) &&
      !isConvertibleElementType(array.elementType, tensor.getElementType()))
    return mismatch("element types differ");
  if (int64_t(array.shape.size()) != tensor.getRank())
    return mismatch("ranks differ");
  for (auto [d, size, expected] :
       llvm::enumerate(array.shape, tensor.getShape())) {
    if (ShapedType::isDynamic(expected) || size == expected)
      continue;
    if (d == 0 && runsOfBatch && expected > 0 && size % expected == 0)
      continue;
    return mismatch("sizes differ");
  }
  return llvm::Error::success();
}

/// A short look at an array: its type and first values.
static void printSummary(llvm::raw_ostream &os, unsigned index,
                         const NpyArray &array) {
  os << "output #" << index << ": "
     << RankedTensorType::get(array.shape, array.elementType) << " [";
  int64_t count = std::min<int64_t>(array.getNumElements(), 8);
  for (int64_t i = 0; i < count; ++i) {
    if (i)
      os << ", ";
    const uint8_t *p = array.bytes + i * array.elementBytes;
    if (array.elementType.isF32())
      os << *reinterpret_cast<const float *>(p);
    else if (array.elementType.isF64())
      os << *reinterpret_cast<const double *>(p);
    else if (array.elementType.isInteger(8))
      os << (array.isUnsigned ? int(*p) : int(int8_t(*p)));
    else if (array.elementType.isInteger(16))
      os << (array.isUnsigned ? int(*reinterpret_cast<const uint16_t *>(p))
                              : int(*reinterpret_cast<const int16_t *>(p)));
    else if (array.elementType.isInteger(32))
      os << *reinterpret_cast<const int32_t *>(p);
    else if (array.elementType.isInteger(64))
      os << *reinterpret_cast<const int64_t *>(p);
    else
      os << "?";
  }
  os << (array.getNumElements() > count ? ", ...]\n" : "]\n");
}

/// An ONNX model (read by the importer, so that its weights are in memory
/// once, and its external data found beside it), a Keras model, or MLIR
/// text or bytecode.
static OwningOpRef<ModuleOp> loadModel(StringRef path,
                                       llvm::SourceMgr &sourceMgr,
                                       MLIRContext &context) {
  if (isONNXFilename(path))
    return importONNXFile(path, &context);
  if (isKerasPath(path))
    return importKerasFile(path, &context, sourceMgr);
  return parseSourceFile<ModuleOp>(path, sourceMgr, ParserConfig(&context));
}

/// Errors read as every other diagnostic of the tools: "error:" first.
static int fail(const Twine &message) {
  llvm::errs() << "qdq-run: error: " << message << "\n";
  return 1;
}

/// --probe-device=cuda: "cuda: <name>, sm_<major><minor>" on stdout, or the
/// reason on stderr.
static int probe() {
  auto info = probeCUDADevice();
  if (!info)
    return fail("cuda: " + llvm::toString(info.takeError()));
  llvm::outs() << "cuda: " << info->name << ", sm_" << info->major
               << info->minor << "\n";
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerDefaultTimingManagerCLOptions();
  // MLIR's --mlir-timing reports the phases of loading and compiling.
  cl::getRegisteredOptions()["mlir-timing"]->addCategory(runnerCategory);
  cl::HideUnrelatedOptions(runnerCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "quant-qdq runner: compiles a model's function for the CPU or an "
      "NVIDIA GPU\n(--device) and runs it on .npy arrays\n");
  if (probeDevice.getNumOccurrences())
    return probe();
  if (modelPath.empty())
    return fail("no model given (see --help)");
  // Before any work: a missing driver or device is reported as such.
  if (device == Device::CUDA)
    if (auto info = probeCUDADevice(); !info)
      return fail("--device=cuda: " + llvm::toString(info.takeError()));

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerQuantQDQDialects(registry);
  registerONNXDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  llvm::SourceMgr sourceMgr;
  ONNXDiagnosticHandler diagnostics(sourceMgr, &context);

  DefaultTimingManager timingManager;
  applyDefaultTimingManagerCLOptions(timingManager);
  TimingScope timing = timingManager.getRootScope();
  TimingScope loadTimer = timing.nest("load the model");
  OwningOpRef<ModuleOp> module = loadModel(modelPath, sourceMgr, context);
  if (!module)
    return 1;
  loadTimer.stop();
  FailureOr<std::string> entry = pickEntry(*module);
  if (failed(entry))
    return 1;

  // The data is checked against the function's inputs before anything
  // compiles (seconds for a network), and errors name the file.
  auto func = module->lookupSymbol<func::FuncOp>(*entry);
  if (!func || func.isExternal())
    return fail("no function '" + *entry + "' with a body to run");
  // One .npz file holds every input, each array named after its input.
  bool npz = inputPaths.size() == 1 &&
             llvm::sys::path::extension(inputPaths[0]) == ".npz";
  if (!npz && func.getNumArguments() != inputPaths.size())
    return fail("'" + *entry + "' takes " + Twine(func.getNumArguments()) +
                " inputs, " + Twine(inputPaths.size()) +
                " --input files were given");
  SmallVector<std::pair<std::string, NpyArray>> given;
  if (npz) {
    SmallVector<std::string> names;
    for (BlockArgument arg : func.getArguments())
      names.push_back(getTensorName(arg).str());
    auto arrays = readNpzInputs(inputPaths[0], names, &context);
    if (!arrays)
      return fail(llvm::toString(arrays.takeError()));
    for (auto [name, array] : llvm::zip(names, *arrays))
      given.emplace_back(inputPaths[0] + ":" + name, std::move(array));
  } else {
    for (const std::string &path : inputPaths) {
      auto array = readNpy(path, &context);
      if (!array)
        return fail(llvm::toString(array.takeError()));
      given.emplace_back(path, std::move(*array));
    }
  }
  std::vector<NpyArray> inputs;
  SmallVector<SmallVector<int64_t>> shapes;
  for (auto [input, argType] : llvm::zip(given, func.getArgumentTypes())) {
    auto &[path, array] = input;
    if (llvm::Error error = checkInput(path, array, argType,
                                       compareWith.getNumOccurrences() > 0))
      return fail(llvm::toString(std::move(error)));
    // Float data of another width (NumPy's float64) is converted.
    shapes.push_back(array.shape);
    inputs.push_back(convertFloatElements(
        array, cast<ShapedType>(argType).getElementType()));
  }

  ExecutorOptions options;
  options.device = device;
  options.optLevel = optLevel;
  if (splitBatchBytes.getNumOccurrences() && splitBatchBytes < 0)
    return fail("--split-batch-bytes must be 0 or more");
  options.splitBatchBytes = splitBatchBytes;
  if (!tokensInput.empty() && !compareWith.getNumOccurrences())
    return fail("--tokens measures perplexity in a comparison: give "
                "--compare");
  if (compareWith.getNumOccurrences()) {
    if (!outputPaths.empty() || repeat.getNumOccurrences())
      return fail("--compare prints a comparison: it takes no --output or "
                  "--repeat");
    OwningOpRef<ModuleOp> reference;
    if (!compareWith.empty() &&
        !(reference = loadModel(compareWith, sourceMgr, context)))
      return 1;
    ComparisonOptions compareOptions;
    compareOptions.entry = *entry;
    if (!tokensInput.empty()) {
      auto names = llvm::map_range(func.getArguments(), [](BlockArgument a) {
        return getTensorName(a);
      });
      auto it = llvm::find(names, StringRef(tokensInput));
      if (it == names.end())
        return fail("--tokens=" + tokensInput + " names no input of '" +
                    *entry + "': its inputs are " + llvm::join(names, ", "));
      const NpyArray &tokens = inputs[std::distance(names.begin(), it)];
      if (!tokens.elementType.isInteger(64) &&
          !tokens.elementType.isInteger(32))
        return fail("--tokens=" + tokensInput +
                    ": token ids must be int64 or int32");
      compareOptions.tokens = &tokens;
    }
    compareOptions.layers = compareLayers != 0;
    compareOptions.executor = options;
    FailureOr<ComparisonResult> result = compareNetworks(
        std::move(module), std::move(reference), inputs, compareOptions);
    if (failed(result))
      return 1;
    llvm::outs() << "compared with "
                 << (compareWith.empty()
                         ? "the model without its Q/DQ and number formats "
                           "(weights stored quantized stay so)"
                         : "'" + compareWith + "'")
                 << "\n";
    printComparison(llvm::outs(), *result, compareLayers);
    return 0;
  }
  options.timing = &timing;
  auto executor =
      JITExecutor::create(std::move(module), *entry, shapes, options);
  if (failed(executor))
    return 1;
  // The report covers compilation, not the runs.
  timing.stop();
  size_t results = (*executor)->getResultTypes().size();
  if (!outputPaths.empty() && outputPaths.size() != results)
    return fail("the model has " + Twine(results) +
                (results == 1 ? " result" : " results") + " but " +
                Twine(outputPaths.size()) + " --output files were given");

  SmallVector<NpyArray> outputs;
  // With --repeat the first run is a warm-up (caches, the buffer pool), and
  // the timed runs follow.
  if (llvm::Error error = (*executor)->run(inputs, outputs))
    return fail(llvm::toString(std::move(error)));
  // --repeat N, 1 included, times N runs after the warm-up, each on its
  // own: the median leads (a neighbour's burst on a shared machine moves
  // the mean, not the median; ONNX Runtime's benchmarks take the median
  // too), then the mean and the fastest run.
  if (repeat.getNumOccurrences() && repeat > 0) {
    SmallVector<double> milliseconds;
    for (unsigned i = 0; i < repeat; ++i) {
      auto start = std::chrono::steady_clock::now();
      if (llvm::Error error = (*executor)->run(inputs, outputs))
        return fail(llvm::toString(std::move(error)));
      milliseconds.push_back(std::chrono::duration<double, std::milli>(
                                 std::chrono::steady_clock::now() - start)
                                 .count());
    }
    double mean = std::accumulate(milliseconds.begin(), milliseconds.end(),
                                  0.0) /
                  milliseconds.size();
    llvm::sort(milliseconds);
    size_t middle = milliseconds.size() / 2;
    double median = milliseconds.size() % 2
                        ? milliseconds[middle]
                        : (milliseconds[middle - 1] + milliseconds[middle]) / 2;
    llvm::errs() << llvm::format(
        "qdq-run: %.3f ms per run, the median of %u runs after a warm-up "
        "run (mean %.3f ms, fastest %.3f ms)\n",
        median, unsigned(repeat), mean, milliseconds.front());
  }

  for (auto [i, output] : llvm::enumerate(outputs)) {
    if (outputPaths.empty()) {
      printSummary(llvm::outs(), i, output);
      continue;
    }
    if (llvm::Error error = writeNpy(outputPaths[i], output))
      return fail(llvm::toString(std::move(error)));
  }
  return 0;
}
