//===- ExternalDataFuzzer.cpp - a model and its external data file --------===//
//
// Any bytes as a model file and the data file beside it: the first four
// bytes (little endian) give the model's length, the model follows, and the
// rest is `weights.data`, which the model's tensors may name as their
// location with any offset and length. Both are written into a folder of
// their own and imported from there, as `qdq-opt model.onnx` reads a model
// over 2 GiB: the location checks (no absolute path, no `..`, no link out),
// offsets and lengths against the file, and the tensors built from it.
//
//===----------------------------------------------------------------------===//

#include "FuzzerSupport.h"
#include "QuantQDQ/Target/ONNX/ONNX.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mlir;
using namespace mlir::quant_qdq;

/// A folder of this process's, made once, where each input's two files go.
static const std::string &getFolder() {
  static const std::string folder = [] {
    SmallString<128> path;
    if (llvm::sys::fs::createUniqueDirectory("qdq-external-data-fuzz", path))
      abort();
    return std::string(path);
  }();
  return folder;
}

static bool writeFile(StringRef path, StringRef bytes) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return false;
  os << bytes;
  return !os.has_error();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 4)
    return 0;
  uint32_t modelSize;
  std::memcpy(&modelSize, data, 4);
  StringRef rest = fuzz::asText(data + 4, size - 4);
  StringRef model = rest.take_front(modelSize);
  StringRef weights = rest.drop_front(model.size());
  SmallString<128> modelPath(getFolder()), dataPath(getFolder());
  llvm::sys::path::append(modelPath, "model.onnx");
  llvm::sys::path::append(dataPath, "weights.data");
  if (!writeFile(modelPath, model) || !writeFile(dataPath, weights))
    abort();
  fuzz::QuietContext context(fuzz::getModuleDialects());
  (void)importONNXFile(modelPath, context.get());
  return 0;
}
