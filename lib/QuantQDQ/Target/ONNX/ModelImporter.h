//===- ModelImporter.h - ONNX graph to a function of layer ops --*- C++ -*-===//
//
// The state of one import: the tensors seen so far by name, the constants
// (initializers, Constant nodes and folded shape computations) that become
// arith.constant ops on first use, and the helpers that node handlers use to
// read attributes and build layer ops with diagnostics naming the node.
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

class ModelImporter;

/// Maps one ONNX node to quant_qdq ops. Returns true when it defined the
/// node's outputs, false when the node should become a quant_qdq.generic
/// (an attribute or shape the layer op cannot express), failure after a
/// diagnostic.
using NodeHandler = FailureOr<bool> (*)(ModelImporter &, onnx::NodeProto &);

/// The handlers of the ONNX ops that map to layer ops (ImportLayers.cpp).
const llvm::StringMap<NodeHandler> &getLayerHandlers();

/// Evaluates `node` when it computes a small integer tensor (a shape) from
/// constants, so that Reshape sees a constant target shape. Returns the
/// values of its outputs, or nothing when the node is not foldable
/// (ShapeFolding.cpp). Fails after a diagnostic on a malformed Constant.
FailureOr<std::optional<SmallVector<ElementsAttr>>>
foldShapeNode(ModelImporter &importer, onnx::NodeProto &node);

class ModelImporter {
public:
  ModelImporter(MLIRContext *context, StringRef fileName);

  /// Imports `model`, moving its weight data into resource blobs.
  OwningOpRef<ModuleOp> importModel(onnx::ModelProto &model);

  //===--------------------------------------------------------------------===//
  // For node handlers
  //===--------------------------------------------------------------------===//

  MLIRContext *getContext() { return context; }
  OpBuilder &getBuilder() { return builder; }

  /// `name("file":0:0)`: the node's name (or its op type) on the model file.
  Location getNodeLoc(const onnx::NodeProto &node);
  /// An error at the node, its text starting with "node 'name' (OpType): ".
  InFlightDiagnostic emitNodeError(const onnx::NodeProto &node);

  /// The opset version imported for `domain` ("" is the default domain).
  int64_t getOpset(StringRef domain) const;

  /// The value of tensor `name`, materializing a constant on first use;
  /// null for "" (an omitted optional input).
  Value getValue(StringRef name);
  /// The node's `index`th input, or null when it is absent or "".
  Value getInput(const onnx::NodeProto &node, int index);
  /// Records that tensor `name` holds `value`.
  void setValue(StringRef name, Value value) { values[name] = value; }

  /// The constant value of tensor `name` (initializer, Constant node or a
  /// folded computation), or null. Emits a diagnostic and returns failure
  /// when the constant's data is malformed.
  FailureOr<ElementsAttr> getConstant(StringRef name);
  /// Records that tensor `name` is the constant `value`.
  void setConstant(StringRef name, ElementsAttr value);
  /// The constant's values as int64 / float; nothing when `name` is not a
  /// constant of integer / floating-point type.
  std::optional<SmallVector<int64_t>> getConstantInts(StringRef name);
  std::optional<SmallVector<float>> getConstantFloats(StringRef name);

  /// The type ONNX declares or infers for tensor `name`, or null.
  Type getDeclaredType(StringRef name);
  /// How many node inputs and graph outputs read tensor `name`.
  unsigned getNumUses(StringRef name) const;
  /// Whether tensor `name` is a graph output.
  bool isGraphOutput(StringRef name) const { return graphOutputs.count(name); }

  /// The node's attribute `name`, or null.
  static const onnx::AttributeProto *findAttr(const onnx::NodeProto &node,
                                              StringRef name);
  /// Typed attribute readers: the default when absent, a diagnostic naming
  /// the node when present with another type.
  FailureOr<int64_t> getIntAttr(const onnx::NodeProto &node, StringRef name,
                                int64_t defaultValue);
  FailureOr<float> getFloatAttr(const onnx::NodeProto &node, StringRef name,
                                float defaultValue);
  FailureOr<std::string> getStringAttr(const onnx::NodeProto &node,
                                       StringRef name, StringRef defaultValue);
  /// Absent: an empty optional.
  FailureOr<std::optional<SmallVector<int64_t>>>
  getIntsAttr(const onnx::NodeProto &node, StringRef name);

  /// The `name` attribute a layer op carries for this node (null when the
  /// node is unnamed).
  StringAttr getLayerName(const onnx::NodeProto &node);

  /// Creates `opName` with `operands` and `attrs`. Without `resultType`, the
  /// op's InferTypeOpInterface computes it. Inference and verifier errors
  /// come back as diagnostics naming the node.
  FailureOr<Value> createLayer(onnx::NodeProto &node, StringRef opName,
                               ValueRange operands,
                               ArrayRef<NamedAttribute> attrs,
                               Type resultType = {});

  /// Turns the node into a quant_qdq.generic carrying its attributes.
  LogicalResult importGeneric(onnx::NodeProto &node);

private:
  LogicalResult importMetadata(onnx::ModelProto &model, ModuleOp module);
  LogicalResult collectTypes(onnx::GraphProto &graph);
  FailureOr<SmallVector<int>> sortNodes(onnx::GraphProto &graph);
  LogicalResult importNode(onnx::NodeProto &node);
  LogicalResult checkNodeSchema(const onnx::NodeProto &node);
  FailureOr<Type> convertType(const onnx::TypeProto &type, StringRef what,
                              SmallVectorImpl<Attribute> *dimParams);

  struct ConstantInfo {
    onnx::TensorProto *proto = nullptr;
    ElementsAttr value;
  };

  MLIRContext *context;
  std::string fileName;
  OpBuilder builder;
  Location fileLoc;
  llvm::StringMap<int64_t> opsets;
  llvm::StringMap<Value> values;
  llvm::StringMap<ConstantInfo> constants;
  llvm::StringMap<Type> declaredTypes;
  llvm::StringMap<unsigned> useCounts;
  llvm::StringSet<> graphOutputs;
};

/// Tensor names in first-seen order.
using NameSet = llvm::SetVector<std::string, std::vector<std::string>,
                                std::set<std::string>>;

/// The outer-scope tensor names that `graph` (and its nested graphs) read
/// without defining them.
void collectCapturedNames(const onnx::GraphProto &graph, NameSet &captured);

} // namespace mlir::quant_qdq::onnx_io

#endif // QUANTQDQ_LIB_TARGET_ONNX_MODELIMPORTER_H
