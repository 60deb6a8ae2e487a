//===- KerasImport.cpp - Keras models through the Python importer ---------===//

#include "QuantQDQ/Target/Keras/Keras.h"
#include "QuantQDQ/Utils/InstallPrefix.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"

#include <optional>
#include <string>
#include <vector>

#include <unistd.h> // environ

using namespace mlir;

bool quant_qdq::isKerasPath(StringRef path) {
  StringRef extension = llvm::sys::path::extension(path);
  if (extension == ".keras" || extension == ".h5" || extension == ".hdf5")
    return true;
  SmallString<256> savedModel(path);
  llvm::sys::path::append(savedModel, "saved_model.pb");
  return llvm::sys::fs::is_directory(path) &&
         llvm::sys::fs::exists(savedModel);
}

/// `name` from the environment, or `fallback`.
static std::string fromEnvironment(const char *name, StringRef fallback) {
  if (std::optional<std::string> value = llvm::sys::Process::GetEnv(name))
    if (!value->empty())
      return *value;
  return fallback.str();
}

/// The interpreter the importer runs in: $QUANTQDQ_PYTHON, else this
/// build's. A pip install is built with none (the wheel may be installed
/// into another environment than the one that built it): it runs the
/// python3 of its own environment (Utils/InstallPrefix), else the one on
/// PATH.
static std::string importerPython() {
  std::string python =
      fromEnvironment("QUANTQDQ_PYTHON", QUANTQDQ_DEFAULT_PYTHON);
  if (!python.empty())
    return python;
  if (std::optional<std::string> beside =
          quant_qdq::findInstalled("bin/python3"))
    return *beside;
  if (llvm::ErrorOr<std::string> onPath =
          llvm::sys::findProgramByName("python3"))
    return *onPath;
  return "python3";
}

/// The environment of the importer: ours, with the package (when it is not
/// in the interpreter's own site-packages) first on PYTHONPATH and
/// TensorFlow's start-up chatter off.
static std::vector<std::string> importerEnvironment(StringRef packages) {
  std::vector<std::string> env;
  SmallVector<std::string> pythonPath;
  if (!packages.empty())
    pythonPath.push_back(packages.str());
  for (char **entry = environ; *entry; ++entry) {
    StringRef pair(*entry);
    if (pair.consume_front("PYTHONPATH=")) {
      if (!pair.empty())
        pythonPath.push_back(pair.str());
      continue;
    }
    if (pair.starts_with("TF_CPP_MIN_LOG_LEVEL="))
      continue;
    env.push_back(*entry);
  }
  if (!pythonPath.empty())
    env.push_back("PYTHONPATH=" + llvm::join(pythonPath, ":"));
  env.push_back("TF_CPP_MIN_LOG_LEVEL=3");
  return env;
}

OwningOpRef<ModuleOp> quant_qdq::importKerasFile(StringRef path,
                                                 MLIRContext *context,
                                                 llvm::SourceMgr &sourceMgr) {
  Location loc = FileLineColLoc::get(context, path, 0, 0);
  if (!llvm::sys::fs::exists(path)) {
    emitError(loc) << "no such file or directory";
    return nullptr;
  }
  std::string python = importerPython();
  std::string packages = fromEnvironment("QUANTQDQ_PYTHONPATH",
                                         QUANTQDQ_DEFAULT_PYTHONPATH);
  SmallString<128> bytecode;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
          "qdq-keras", "mlirbc", bytecode)) {
    emitError(loc) << "cannot create a temporary file: " << ec.message();
    return nullptr;
  }
  llvm::FileRemover removeBytecode(bytecode);

  std::vector<StringRef> args = {python, "-m", "quant_qdq", "import-keras",
                                 path,   "-o", bytecode};
  std::vector<std::string> env = importerEnvironment(packages);
  std::vector<StringRef> envRefs(env.begin(), env.end());
  // A damaged file can hang a library reading it (h5py on a corrupted
  // HDF5 attribute): the importer gets a bound, QUANTQDQ_KERAS_TIMEOUT
  // seconds (600 by default; 0: none).
  unsigned seconds = 600;
  if (StringRef(fromEnvironment("QUANTQDQ_KERAS_TIMEOUT", "600"))
          .getAsInteger(10, seconds)) {
    emitError(loc) << "QUANTQDQ_KERAS_TIMEOUT must be a number of seconds";
    return nullptr;
  }
  std::string message;
  bool failedToRun = false;
  int status = llvm::sys::ExecuteAndWait(python, args, envRefs, {}, seconds, 0,
                                         &message, &failedToRun);
  if (status == -2 && StringRef(message).contains("timed out")) {
    emitError(loc) << "the Keras importer did not finish in " << seconds
                   << " s, and was stopped (a damaged file can hang the "
                      "libraries that read it; QUANTQDQ_KERAS_TIMEOUT sets "
                      "the bound)";
    return nullptr;
  }
  if (failedToRun) {
    emitError(loc) << "cannot run the Keras importer '" << python
                   << "': " << message
                   << " (QUANTQDQ_PYTHON names the interpreter)";
    return nullptr;
  }
  if (status != 0) {
    // The importer printed its diagnostic; say where it came from.
    emitError(loc) << "Keras import failed ('" << python
                   << " -m quant_qdq import-keras' exited with " << status
                   << ")";
    return nullptr;
  }
  auto buffer = llvm::MemoryBuffer::getFile(bytecode);
  if (!buffer) {
    emitError(loc) << "the Keras importer wrote no module: "
                   << buffer.getError().message();
    return nullptr;
  }
  // Parsed from the buffer: the temporary file goes when this returns.
  sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  return parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(context));
}
