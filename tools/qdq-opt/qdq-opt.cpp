//===- qdq-opt.cpp - the quant-qdq optimizer driver -----------------------===//
//
// mlir-opt with the quant_qdq dialect and its passes, beside every upstream
// dialect and pass a lowering pipeline may need. It also reads and writes
// ONNX: an input ending in `.onnx` is imported on the fly (as is a Keras
// model: .keras, .h5, a SavedModel folder), and an output ending in `.onnx`
// is exported from the pipeline's result, so that
//
//   qdq-opt model.onnx --insert-qdq=resnet-v1 -o model.qdq.onnx
//
// is the whole deployment job. With ONNX on either side the pipeline runs on
// the module in memory (no textual or bytecode detour, so the weights exist
// once), and the output file is kept only on success.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Driver/DriverFlags.h"
#include "QuantQDQ/InitQuantQDQ.h"
#include "QuantQDQ/Target/Keras/Keras.h"
#include "QuantQDQ/Target/ONNX/ONNX.h"
#include "QuantQDQ/Target/ONNX/ONNXDiagnostics.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

/// Whether `path` may be read to its end: stdin ("-"), a regular file, or
/// a path that does not exist (its reader says so). A device or a pipe
/// (/dev/zero) would be read until memory runs out, or block.
static bool isReadableToEnd(StringRef path) {
  llvm::sys::fs::file_status status;
  return path == "-" || llvm::sys::fs::status(path, status) ||
         llvm::sys::fs::is_regular_file(status);
}

/// Whether the input is a model to import: ONNX or Keras.
static bool isModelInput(StringRef inputFilename) {
  return quant_qdq::isONNXFilename(inputFilename) ||
         quant_qdq::isKerasPath(inputFilename);
}

/// Reads the input: an ONNX or Keras model imported, or MLIR (text or
/// bytecode).
static OwningOpRef<ModuleOp>
readInput(StringRef inputFilename,
          const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
          MLIRContext &context) {
  if (quant_qdq::isONNXFilename(inputFilename))
    return quant_qdq::importONNXFile(inputFilename, &context);
  if (quant_qdq::isKerasPath(inputFilename))
    return quant_qdq::importKerasFile(inputFilename, &context, *sourceMgr);
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(inputFilename, &errorMessage);
  if (!file) {
    llvm::errs() << errorMessage << "\n";
    return nullptr;
  }
  sourceMgr->AddNewSourceBuffer(std::move(file), SMLoc());
  // The shared SourceMgr lets bytecode resources (weights) point into the
  // mapped file instead of being copied.
  return parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
}

/// IR dumps of an imported model (--mlir-print-ir-after-all and the like)
/// would print its weights each time: 228 MB for ConvNeXt-T's pipeline.
/// Unless the user says otherwise, they elide resources above 64 bytes,
/// as --mlir-elide-resource-strings-if-larger=64 would. Returns whether it
/// set that default (the output file then overrides it: it keeps every
/// weight).
static bool elideWeightsInDumpsByDefault() {
  StringRef name = "mlir-elide-resource-strings-if-larger";
  auto &options = llvm::cl::getRegisteredOptions();
  auto it = options.find(name);
  if (it == options.end() || it->second->getNumOccurrences())
    return false;
  // addOccurrence returns true on error.
  return !it->second->addOccurrence(0, name, "64");
}

/// The ONNX path of the driver: read, run the pass pipeline, write ONNX or
/// MLIR. mlir-opt's own options (pipeline, printing, bytecode, timing)
/// apply; --mlir-timing times the import and the output beside the passes.
static LogicalResult runWithONNX(StringRef inputFilename,
                                 StringRef outputFilename,
                                 DialectRegistry &registry,
                                 const MlirOptMainConfig &config) {
  MLIRContext context(registry);
  context.allowUnregisteredDialects(config.shouldAllowUnregisteredDialects());
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  quant_qdq::ONNXDiagnosticHandler handler(*sourceMgr, &context);
  DefaultTimingManager timingManager;
  applyDefaultTimingManagerCLOptions(timingManager);
  TimingScope timing = timingManager.getRootScope();

  TimingScope readTiming = timing.nest(
      quant_qdq::isONNXFilename(inputFilename)  ? "Import ONNX"
      : quant_qdq::isKerasPath(inputFilename) ? "Import Keras"
                                              : "Parser");
  OwningOpRef<ModuleOp> module = readInput(inputFilename, sourceMgr, context);
  readTiming.stop();
  if (!module)
    return failure();

  bool elidedInDumps = elideWeightsInDumpsByDefault();
  PassManager pm(&context, module->getOperationName());
  pm.enableVerifier(config.shouldVerifyPasses());
  pm.enableTiming(timing);
  if (failed(applyPassManagerCLOptions(pm)) ||
      failed(config.setupPassPipeline(pm)) || failed(pm.run(*module)))
    return failure();

  TimingScope outputTiming = timing.nest(
      quant_qdq::isONNXFilename(outputFilename) ? "Export ONNX" : "Output");
  // ONNX export writes its files itself: the model, and beside it the
  // external data when there is some.
  if (quant_qdq::isONNXFilename(outputFilename))
    return quant_qdq::exportONNXFile(*module, outputFilename,
                                     quant_qdq::getONNXExportOptionsFromCL());
  std::string errorMessage;
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return failure();
  }
  if (config.shouldEmitBytecode()) {
    BytecodeWriterConfig writerConfig;
    if (std::optional<int64_t> version = config.bytecodeVersionToEmit())
      writerConfig.setDesiredBytecodeVersion(*version);
    if (failed(writeBytecodeToFile(*module, output->os(), writerConfig)))
      return failure();
  } else {
    OpPrintingFlags flags;
    if (elidedInDumps)
      flags.elideLargeResourceString(std::numeric_limits<int64_t>::max());
    module->print(output->os(), flags);
    output->os() << "\n";
  }
  output->keep();
  return success();
}

int main(int argc, char **argv) {
  // --qdq-spec and the other user-level flags become options of the passes
  // they concern before the command line is parsed.
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string error;
  FailureOr<std::vector<std::string>> expanded =
      quant_qdq::expandDriverFlags(args, error);
  if (failed(expanded)) {
    llvm::errs() << argv[0] << ": " << error << "\n";
    return 1;
  }
  std::vector<char *> expandedArgv{argv[0]};
  for (std::string &arg : *expanded)
    expandedArgv.push_back(arg.data());
  expandedArgv.push_back(nullptr);
  argc = int(expandedArgv.size()) - 1;
  argv = expandedArgv.data();

  registerAllPasses();
  quant_qdq::registerAllQuantQDQPasses();
  quant_qdq::registerONNXExportCLOptions();
  quant_qdq::registerDriverFlagsForHelp();

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  quant_qdq::registerQuantQDQDialects(registry);
  quant_qdq::registerONNXDialects(registry);

  auto [inputFilename, outputFilename] = registerAndParseCLIOptions(
      argc, argv, "quant-qdq optimizer driver\n", registry);
  if (!isReadableToEnd(inputFilename) &&
      !quant_qdq::isKerasPath(inputFilename)) {
    llvm::errs() << inputFilename << ": error: not a regular file\n";
    return EXIT_FAILURE;
  }
  if (!isModelInput(inputFilename) &&
      !quant_qdq::isONNXFilename(outputFilename))
    return asMainReturnCode(
        MlirOptMain(argc, argv, inputFilename, outputFilename, registry));

  llvm::InitLLVM initLLVM(argc, argv);
  return asMainReturnCode(
      runWithONNX(inputFilename, outputFilename, registry,
                  MlirOptMainConfig::createFromCLOptions()));
}
