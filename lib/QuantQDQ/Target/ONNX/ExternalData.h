//===- ExternalData.h - tensors kept beside the model file ------*- C++ -*-===//
//
// ONNX lets a TensorProto keep its bytes in another file: `data_location`
// is EXTERNAL and `external_data` says where (`location`, a path relative
// to the model's folder, and `offset`, `length` in bytes). Models over
// protobuf's 2 GiB limit have to; many exporters do it for smaller ones.
//
// Import reads those bytes into `raw_data` before anything else looks at
// the model, so that the checker, shape inference and the tensor readers
// see an ordinary model; each tensor's bytes are read once, into the string
// that becomes its weight blob. Export writes each large tensor's bytes
// straight from its blob into one data file as the model is serialized.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_LIB_TARGET_ONNX_EXTERNALDATA_H
#define QUANTQDQ_LIB_TARGET_ONNX_EXTERNALDATA_H

#include "ONNXCommon.h"

#include "llvm/Support/raw_ostream.h"

namespace mlir::quant_qdq::onnx_io {

/// Whether `tensor` keeps its data outside the model file.
bool hasExternalData(const onnx::TensorProto &tensor);

/// Reads the external data of every tensor of `model` (initializers, node
/// attributes, subgraphs) into its raw_data, from files in `modelDir` ("":
/// the current folder). A location must stay inside `modelDir` (no absolute
/// path, no `..`, no link leading out), name a regular file, and hold the
/// exact byte count the tensor's type and dimensions need. Sets `found` when
/// some tensor had external data. Fails with a diagnostic at `loc`.
LogicalResult loadExternalData(onnx::ModelProto &model,
                               llvm::StringRef modelDir, Location loc,
                               bool &found);

/// Writes tensor bytes to one data file and records where in each tensor.
class ExternalDataWriter {
public:
  /// `os` is the data file; `location` the name the model records for it.
  ExternalDataWriter(llvm::raw_ostream &os, llvm::StringRef location)
      : os(os), location(location.str()) {}

  /// Appends `data` (aligned for mapping) and makes `tensor` point at it.
  void write(llvm::ArrayRef<char> data, onnx::TensorProto &tensor);

  /// Bytes written so far.
  uint64_t size() const { return offset; }

private:
  llvm::raw_ostream &os;
  std::string location;
  uint64_t offset = 0;
};

/// Tensors smaller than this stay in the model file (ONNX's own default
/// `size_threshold`): scales and zero points stay readable there.
inline constexpr uint64_t kExternalDataThreshold = 1024;

} // namespace mlir::quant_qdq::onnx_io

#endif // QUANTQDQ_LIB_TARGET_ONNX_EXTERNALDATA_H
