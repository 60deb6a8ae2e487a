//===- ONNXCommon.h - what ONNX import and export share ---------*- C++ -*-===//
//
// Names of the attributes that carry ONNX facts through MLIR, and the
// conversions of element types, tensors and node attributes in both
// directions. Private to lib/QuantQDQ/Target/ONNX.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_LIB_TARGET_ONNX_ONNXCOMMON_H
#define QUANTQDQ_LIB_TARGET_ONNX_ONNXCOMMON_H

#include "QuantQDQ/Target/ONNX/ONNX.h"
#include "QuantQDQ/Target/ONNX/ONNXAttrNames.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include "onnx/onnx_pb.h"

// The ONNX library is built in a namespace of its own (ONNX_NAMESPACE,
// scripts/build-onnx.sh), so that its protobuf messages and schema
// registry cannot meet another ONNX in the process (Debian's, which
// Debian's torch loads); `onnx::` names it here.
namespace onnx = ::ONNX_NAMESPACE;

#include <string>
#include <unordered_map>
#include <vector>

namespace mlir::quant_qdq::onnx_io {

/// Whether a NodeProto's or OperatorSetIdProto's domain is ONNX's own ("" or
/// "ai.onnx").
inline bool isDefaultDomain(llvm::StringRef domain) {
  return domain.empty() || domain == kDefaultDomain;
}

/// The opset `model` imports of ONNX's own domain (0: none).
inline int64_t getDefaultDomainOpset(const onnx::ModelProto &model) {
  for (const onnx::OperatorSetIdProto &id : model.opset_import())
    if (isDefaultDomain(id.domain()))
      return id.version();
  return 0;
}

/// The newest ONNX IR version: that of the ONNX library the build links,
/// the version of the pinned onnx Python package (requirements.txt). Files
/// of newer versions are refused, as ONNX Runtime refuses versions it does
/// not know.
inline constexpr int64_t kNewestIRVersion = onnx::IR_VERSION;

/// The first line of an ONNX library message (they end with the node
/// printed in full).
inline llvm::StringRef getFirstLine(llvm::StringRef message) {
  return message.split('\n').first.trim();
}

//===----------------------------------------------------------------------===//
// Element types and tensors
//===----------------------------------------------------------------------===//

/// The MLIR element type of an ONNX TensorProto::DataType, or null when
/// MLIR has none (STRING, complex, unknown codes).
Type getElementType(MLIRContext *context, int32_t onnxType);

/// The ONNX data type of an MLIR element type; 0 (UNDEFINED) when none.
int32_t getONNXElementType(Type type);

/// Whether raw_data packs two elements of `onnxType` per byte, low nibble
/// first (INT4, UINT4).
inline bool isNibblePacked(int32_t onnxType) {
  return onnxType == onnx::TensorProto::INT4 ||
         onnxType == onnx::TensorProto::UINT4;
}

/// Size in bytes of one element of `onnxType` in memory (a 4-bit element
/// takes a byte there, as in MLIR's dense constants); 0 when the type has
/// no fixed-size raw form.
unsigned getElementByteSize(int32_t onnxType);

/// Size in bytes of `count` elements of `onnxType` in raw_data, or nothing
/// when the type has no raw form or the size overflows.
std::optional<uint64_t> getRawDataSize(int32_t onnxType, int64_t count);

/// "12 elements of 4 bytes" (or "of 4 bits"), for messages about sizes.
std::string describeElements(int32_t onnxType, int64_t count);

/// Number of elements of `dims`, failing (with a diagnostic naming `what`)
/// on negative or overflowing dimensions.
FailureOr<int64_t> getNumElements(Location loc, llvm::StringRef what,
                                  llvm::ArrayRef<int64_t> dims);

/// Checks that `tensor` can be read: a supported type, data inside the file,
/// and a data size that matches the dimensions. Returns the element count.
FailureOr<int64_t> checkTensor(const onnx::TensorProto &tensor, Location loc);

/// Turns `tensor` into an attribute of type `tensor<dims x elementType>`.
/// Large raw data moves into a resource blob named `resourceName` without a
/// copy (`tensor`'s raw_data is left empty); small tensors become a
/// DenseElementsAttr. `elementType` overrides the type the proto declares
/// (used to read uint8 Q/DQ storage as signless i8). Checks that the data
/// size matches the dimensions before allocating anything.
FailureOr<ElementsAttr> importTensor(onnx::TensorProto &tensor, Location loc,
                                     llvm::StringRef resourceName,
                                     Type elementType = {});

/// Writes `value` into `tensor` (dims, data type and raw_data).
LogicalResult exportTensor(ElementsAttr value, onnx::TensorProto &tensor,
                           Location loc);

/// The raw little-endian bytes of `value`, splats expanded; i1 as one byte
/// per element.
FailureOr<std::string> getRawBytes(ElementsAttr value, Location loc);

//===----------------------------------------------------------------------===//
// Node attributes
//===----------------------------------------------------------------------===//

/// Converts one node attribute losslessly (see docs/ONNX.md for the forms).
FailureOr<Attribute> importAttribute(onnx::AttributeProto &attr, Location loc,
                                     llvm::StringRef resourcePrefix);

/// Inverse of importAttribute. `schemaType` (an AttributeProto type) says
/// what an empty list is; 0 when unknown.
LogicalResult exportAttribute(llvm::StringRef name, Attribute value,
                              onnx::AttributeProto &attr, Location loc,
                              int schemaType = 0);

//===----------------------------------------------------------------------===//
// ONNX library calls that throw
//===----------------------------------------------------------------------===//

/// What ONNX's shape inference says of a model.
struct ShapeInferenceResult {
  /// Why inference as a whole failed (intermediate shapes stay unknown);
  /// empty on success.
  std::string error;
  /// The first node, by graph position, whose own inference function
  /// rejects it with all its input types known (-1: none), and why: what
  /// ONNX's strict inference and full check reject beyond the schema (an
  /// axis outside the rank, `pads` of the wrong length).
  int badNode = -1;
  std::string nodeError;
  /// Why ONNX's checker rejects the model (empty: it does not).
  std::string checkError;
};

/// Runs ONNX shape inference on `model` in place (adds value_info), ONNX's
/// checker on the result, then each default-domain node's inference
/// function once more on its inferred input types, all isolated in a child
/// process where the platform allows.
ShapeInferenceResult inferShapes(onnx::ModelProto &model);

/// Runs ONNX's full checker (`check_model(..., full_check=True)`: the
/// structure, every node against its schema at the model's opsets, and
/// strict shape inference) on a model about to be written, isolated in a
/// child process; `model` holds no large tensor data (see
/// ModelExporter::getCheckView). A graph output without a shape fails, as
/// in the file. Returns the checker's message on one line, empty when the
/// model passes.
std::string checkWrittenModel(onnx::ModelProto &model);

/// A copy of `model` for ONNX's full check in which the initializers
/// `isWeight` picks, and `moreWeights` (tensors written beside the graph),
/// are graph inputs of their type and shape: their data is not copied
/// (check_model copies the model it infers), and what the check judges of
/// a weight is its type and shape.
onnx::ModelProto
copyWithoutWeights(onnx::ModelProto &model,
                   llvm::function_ref<bool(const onnx::TensorProto &)> isWeight,
                   llvm::ArrayRef<const onnx::TensorProto *> moreWeights = {});

/// The checker's message on one line, led by the node it names in its
/// context ("==> Context: Bad node spec for node. Name: n OpType: Conv").
std::string formatCheckerError(llvm::StringRef message);

/// Replaces, in place and in order, the default-domain nodes of `model`'s
/// graph whose op types are in `opTypes` by the nodes of their ONNX
/// function bodies at the model's opset. Context-dependent bodies read the
/// value types that shape inference left in the graph. A node whose body
/// ONNX cannot build for its inputs stays as it is. Returns how many nodes
/// were expanded; their values and nodes are named after them.
int expandFunctionNodes(onnx::ModelProto &model,
                        llvm::ArrayRef<llvm::StringRef> opTypes);

/// Checks `node` against its ONNX schema at `opset` (numbers of inputs and
/// outputs, required attributes, attribute types); returns an error
/// message, empty when the node conforms or has no known schema.
std::string verifyNode(const onnx::NodeProto &node, int64_t opset);

/// The newest default-domain opset the ONNX library knows.
int64_t getLibraryOpsetLimit();

/// What the subgraphs of a node (If, Loop, Scan) see of the graph around
/// them: the types of the values they may capture, and the model's opsets.
struct SubgraphScope {
  const std::unordered_map<std::string, onnx::TypeProto *> *types = nullptr;
  const std::unordered_map<std::string, int> *opsets = nullptr;
};

/// Runs the type and shape inference function of `node`'s schema at
/// `opset` on one node, after checking the node against the schema and its
/// input types against the schema's constraints. `inputTypes` and
/// `inputData` are by input position (null: unknown or omitted; data only
/// for constant inputs). A node with subgraphs is inferred through them
/// when `subgraphs` gives their scope, and left alone otherwise. Fills
/// `outputTypes`, one per output; returns an error message, empty on
/// success.
std::string inferNodeTypes(onnx::NodeProto &node, int64_t opset,
                           llvm::ArrayRef<onnx::TypeProto *> inputTypes,
                           llvm::ArrayRef<const onnx::TensorProto *> inputData,
                           std::vector<onnx::TypeProto> &outputTypes,
                           SubgraphScope subgraphs = {});

/// inferNodeTypes, without subgraphs, in a forked child: ONNX's inference
/// functions read out of bounds on some inconsistent inputs (a Conv whose
/// input and weight ranks differ, in ONNX 1.12), which the whole-model
/// check may never have seen when types were refined afterwards. A crash
/// is an error message like any other.
std::string
inferNodeTypesIsolated(const onnx::NodeProto &node, int64_t opset,
                       llvm::ArrayRef<onnx::TypeProto *> inputTypes,
                       llvm::ArrayRef<const onnx::TensorProto *> inputData,
                       std::vector<onnx::TypeProto> &outputTypes);

/// The AttributeProto type that the schema of `opType` in `domain` at
/// `opset` declares for `attrName`; 0 when unknown.
int getSchemaAttributeType(llvm::StringRef opType, llvm::StringRef domain,
                           int64_t opset, llvm::StringRef attrName);

/// The name that the schema of `opType` in `domain` at `opset` gives input
/// `index` (`min` for Clip's second); empty when unknown or variadic.
std::string getSchemaInputName(llvm::StringRef opType, llvm::StringRef domain,
                               int64_t opset, unsigned index);

/// Converts `model` from its default-domain opset to `opset` with ONNX's
/// version converter, in a forked child (the converter asserts by
/// throwing, and its adapters trust their input); nodes of other domains
/// are left as they are. Returns an error message, empty on success, when
/// `model` is then the converted model.
std::string convertOpsetVersion(onnx::ModelProto &model, int64_t opset);

} // namespace mlir::quant_qdq::onnx_io

#endif // QUANTQDQ_LIB_TARGET_ONNX_ONNXCOMMON_H
