//===- ExternalData.cpp - tensors kept beside the model file --------------===//

#include "ExternalData.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"

#include <limits>
#include <optional>

using namespace mlir;
using namespace mlir::quant_qdq;
using namespace mlir::quant_qdq::onnx_io;
namespace fs = llvm::sys::fs;

bool onnx_io::hasExternalData(const onnx::TensorProto &tensor) {
  return tensor.data_location() == onnx::TensorProto::EXTERNAL ||
         tensor.external_data_size() != 0;
}

namespace {
/// Where one tensor's bytes are, as its `external_data` entries say.
struct ExternalDataRef {
  std::string location;
  std::optional<uint64_t> offset;
  std::optional<uint64_t> length;
};

/// Reads the external tensors of one model; each data file is opened once.
class ExternalDataLoader {
public:
  ExternalDataLoader(StringRef modelDir, Location loc)
      : modelDir(modelDir.empty() ? "." : modelDir), loc(loc) {}
  ~ExternalDataLoader() {
    for (auto &entry : files)
      fs::closeFile(entry.second.file);
  }

  LogicalResult loadGraph(onnx::GraphProto &graph);

  bool foundAny() const { return found; }

private:
  struct DataFile {
    fs::file_t file;
    uint64_t size;
  };

  LogicalResult load(onnx::TensorProto &tensor);
  LogicalResult loadAttributes(onnx::NodeProto &node);
  FailureOr<ExternalDataRef> parseRef(const onnx::TensorProto &tensor);
  FailureOr<DataFile *> open(const onnx::TensorProto &tensor,
                             StringRef location);
  InFlightDiagnostic emitTensorError(const onnx::TensorProto &tensor) {
    return emitError(loc) << "tensor '" << tensor.name() << "': ";
  }

  std::string modelDir;
  Location loc;
  SmallString<256> realModelDir;
  llvm::StringMap<DataFile> files;
  bool found = false;
};
} // namespace

FailureOr<ExternalDataRef>
ExternalDataLoader::parseRef(const onnx::TensorProto &tensor) {
  ExternalDataRef ref;
  for (const onnx::StringStringEntryProto &entry : tensor.external_data()) {
    StringRef key = entry.key(), value = entry.value();
    if (key == "location") {
      ref.location = value.str();
    } else if (key == "offset" || key == "length") {
      uint64_t number;
      // getAsInteger returns true on error (signs, junk, overflow).
      if (value.getAsInteger(10, number))
        return emitTensorError(tensor)
               << "external data " << key << " '" << value
               << "' is not a byte count";
      (key == "offset" ? ref.offset : ref.length) = number;
    } else if (key != "checksum" && key != "basepath") {
      // The keys ONNX defines; checksum is not verified (ONNX Runtime
      // does not either), basepath is the saver's own bookkeeping.
      return emitTensorError(tensor)
             << "unknown external data key '" << key
             << "' (expected location, offset, length, checksum)";
    }
  }
  if (ref.location.empty())
    return emitTensorError(tensor) << "external data without a location";
  return ref;
}

FailureOr<ExternalDataLoader::DataFile *>
ExternalDataLoader::open(const onnx::TensorProto &tensor, StringRef location) {
  auto it = files.find(location);
  if (it != files.end())
    return &it->second;

  // A model may only read files in its own folder: a hostile one must not
  // read /etc/shadow into a weight that the output then carries.
  namespace path = llvm::sys::path;
  if (path::is_absolute(location) || path::has_root_name(location))
    return emitTensorError(tensor)
           << "external data location '" << location
           << "' is an absolute path; it must be relative to the model's "
              "folder";
  for (StringRef part : llvm::make_range(path::begin(location),
                                         path::end(location)))
    if (part == "..")
      return emitTensorError(tensor)
             << "external data location '" << location
             << "' leaves the model's folder";
  SmallString<256> fullPath(modelDir);
  path::append(fullPath, location);
  if (realModelDir.empty() && fs::real_path(modelDir, realModelDir))
    return emitTensorError(tensor)
           << "cannot resolve the model's folder '" << modelDir << "'";
  SmallString<256> realPath;
  if (std::error_code ec = fs::real_path(fullPath, realPath))
    return emitTensorError(tensor) << "cannot open external data file '"
                                   << fullPath << "': " << ec.message();
  if (realPath == realModelDir)
    return emitTensorError(tensor) << "external data file '" << fullPath
                                   << "' is not a regular file";
  // A link inside the folder may still lead out of it.
  SmallString<256> prefix(realModelDir);
  prefix.push_back(path::get_separator().front());
  if (!StringRef(realPath).starts_with(prefix))
    return emitTensorError(tensor) << "external data file '" << fullPath
                                   << "' leads out of the model's folder";

  llvm::Expected<fs::file_t> file = fs::openNativeFileForRead(realPath);
  if (!file)
    return emitTensorError(tensor)
           << "cannot open external data file '" << fullPath
           << "': " << llvm::toString(file.takeError());
  fs::file_status status;
  if (std::error_code ec = fs::status(*file, status);
      ec || !fs::is_regular_file(status)) {
    fs::closeFile(*file);
    return emitTensorError(tensor) << "external data file '" << fullPath
                                   << "' is not a regular file";
  }
  DataFile &entry = files[location];
  entry = {*file, status.getSize()};
  return &entry;
}

LogicalResult ExternalDataLoader::load(onnx::TensorProto &tensor) {
  if (!hasExternalData(tensor))
    return success();
  found = true;
  if (!tensor.raw_data().empty())
    return emitTensorError(tensor)
           << "has both raw_data and external data";
  FailureOr<ExternalDataRef> ref = parseRef(tensor);
  if (failed(ref))
    return failure();

  // The byte count the tensor needs bounds what is read: a hostile length
  // allocates nothing.
  SmallVector<int64_t> dims(tensor.dims().begin(), tensor.dims().end());
  FailureOr<int64_t> count =
      getNumElements(loc, "tensor '" + tensor.name() + "'", dims);
  if (failed(count))
    return failure();
  if (getElementByteSize(tensor.data_type()) == 0)
    return emitTensorError(tensor) << "external data of an unsupported data "
                                      "type ("
                                   << tensor.data_type() << ")";
  std::optional<uint64_t> needed = getRawDataSize(tensor.data_type(), *count);
  if (!needed)
    return emitTensorError(tensor) << "too large";
  uint64_t size = *needed;
  if (ref->length && *ref->length != size)
    return emitTensorError(tensor)
           << "external data length " << *ref->length << " bytes, but "
           << describeElements(tensor.data_type(), *count) << " need "
           << size;

  FailureOr<DataFile *> file = open(tensor, ref->location);
  if (failed(file))
    return failure();
  uint64_t offset = ref->offset.value_or(0);
  if (offset > (*file)->size || size > (*file)->size - offset)
    return emitTensorError(tensor)
           << "external data at offset " << offset << " of " << size
           << " bytes runs past the end of '" << ref->location << "' ("
           << (*file)->size << " bytes)";

  // Read straight into the string that import hands to the weight's blob.
  std::string bytes;
  bytes.resize(size);
  for (uint64_t done = 0; done < size;) {
    llvm::Expected<size_t> got = fs::readNativeFileSlice(
        (*file)->file, MutableArrayRef<char>(bytes.data() + done, size - done),
        offset + done);
    if (!got)
      return emitTensorError(tensor)
             << "cannot read '" << ref->location
             << "': " << llvm::toString(got.takeError());
    if (*got == 0)
      return emitTensorError(tensor)
             << "'" << ref->location << "' ended early";
    done += *got;
  }
  *tensor.mutable_raw_data() = std::move(bytes);
  tensor.clear_external_data();
  tensor.set_data_location(onnx::TensorProto::DEFAULT);
  return success();
}

LogicalResult ExternalDataLoader::loadAttributes(onnx::NodeProto &node) {
  for (onnx::AttributeProto &attr : *node.mutable_attribute()) {
    if (attr.has_t() && failed(load(*attr.mutable_t())))
      return failure();
    for (onnx::TensorProto &t : *attr.mutable_tensors())
      if (failed(load(t)))
        return failure();
    if (attr.has_g() && failed(loadGraph(*attr.mutable_g())))
      return failure();
    for (onnx::GraphProto &g : *attr.mutable_graphs())
      if (failed(loadGraph(g)))
        return failure();
  }
  return success();
}

LogicalResult ExternalDataLoader::loadGraph(onnx::GraphProto &graph) {
  for (onnx::TensorProto &init : *graph.mutable_initializer())
    if (failed(load(init)))
      return failure();
  for (onnx::NodeProto &node : *graph.mutable_node())
    if (failed(loadAttributes(node)))
      return failure();
  return success();
}

LogicalResult onnx_io::loadExternalData(onnx::ModelProto &model,
                                        StringRef modelDir, Location loc,
                                        bool &found) {
  found = false;
  if (!model.has_graph())
    return success();
  ExternalDataLoader loader(modelDir, loc);
  LogicalResult result = loader.loadGraph(*model.mutable_graph());
  found = loader.foundAny();
  return result;
}

void ExternalDataWriter::write(ArrayRef<char> data,
                               onnx::TensorProto &tensor) {
  // Large tensors start on a 64 KiB boundary, so that a runtime may map
  // them in place whatever its page or allocation granularity (ONNX
  // Runtime's own writer does the same); the rest on 64 bytes.
  uint64_t alignment = data.size() >= (1u << 20) ? (1u << 16) : 64;
  uint64_t start = llvm::alignTo(offset, alignment);
  os.write_zeros(start - offset);
  os.write(data.data(), data.size());
  offset = start + data.size();

  tensor.set_data_location(onnx::TensorProto::EXTERNAL);
  auto add = [&](StringRef key, std::string value) {
    onnx::StringStringEntryProto &entry = *tensor.add_external_data();
    entry.set_key(key.str());
    entry.set_value(std::move(value));
  };
  add("location", location);
  add("offset", std::to_string(start));
  add("length", std::to_string(data.size()));
}
