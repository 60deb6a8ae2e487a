//===- ModelImporter.h - ONNX graph to generic ops --------------*- C++ -*-===//
//
// The state of one translation: the tensors seen so far by name, and the
// initializers that become arith.constant ops on first use. Every node
// becomes a quant_qdq.generic; the ONNX conversion patterns
// (Conversion/ONNXToQuantQDQ) give the nodes their layer ops afterwards.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_LIB_TARGET_ONNX_MODELIMPORTER_H
#define QUANTQDQ_LIB_TARGET_ONNX_MODELIMPORTER_H

#include "ONNXCommon.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <set>

namespace mlir::quant_qdq::onnx_io {

class ModelImporter {
public:
  ModelImporter(MLIRContext *context, StringRef fileName);

  /// Imports `model`, moving its weight data into resource blobs.
  OwningOpRef<ModuleOp> importModel(onnx::ModelProto &model);

  /// Whether ONNX's node-by-node inference may refine the imported types:
  /// whole-model inference ran to the end (its per-node check then ran each
  /// node's inference safely, in a child process, first).
  bool canRefineTypesByNode() const { return refineByNode; }

private:
  Location getNodeLoc(const onnx::NodeProto &node);
  InFlightDiagnostic emitNodeError(const onnx::NodeProto &node);
  int64_t getOpset(StringRef domain) const;
  /// The value of tensor `name`, materializing an initializer on first
  /// use; null for "" (an omitted optional input) and unknown names.
  Value getValue(StringRef name);
  /// The node as a quant_qdq.generic carrying its attributes.
  LogicalResult importGeneric(onnx::NodeProto &node);
  LogicalResult importMetadata(onnx::ModelProto &model, ModuleOp module);
  /// ONNX's shape inference and checker on the model: an error for what
  /// they reject, a warning where inference gives up.
  LogicalResult inferAndCheck(onnx::ModelProto &model);
  LogicalResult collectTypes(onnx::GraphProto &graph);
  FailureOr<SmallVector<int>> sortNodes(onnx::GraphProto &graph);
  LogicalResult checkNodeSchema(const onnx::NodeProto &node);
  FailureOr<Type> convertType(const onnx::TypeProto &type, StringRef what,
                              SmallVectorImpl<Attribute> *dimParams);

  MLIRContext *context;
  std::string fileName;
  OpBuilder builder;
  Location fileLoc;
  llvm::StringMap<int64_t> opsets;
  llvm::StringMap<Value> values;
  /// Initializers by name; each becomes a constant where first read.
  llvm::StringMap<onnx::TensorProto *> initializers;
  bool refineByNode = false;
  llvm::StringMap<Type> declaredTypes;
};

/// Tensor names in first-seen order.
using NameSet = llvm::SetVector<std::string, std::vector<std::string>,
                                std::set<std::string>>;

/// The outer-scope tensor names that `graph` (and its nested graphs) read
/// without defining them.
void collectCapturedNames(const onnx::GraphProto &graph, NameSet &captured);

} // namespace mlir::quant_qdq::onnx_io

#endif // QUANTQDQ_LIB_TARGET_ONNX_MODELIMPORTER_H
