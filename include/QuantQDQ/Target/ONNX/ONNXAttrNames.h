//===- ONNXAttrNames.h - ONNX facts carried as MLIR attributes --*- C++ -*-===//
//
// The names under which a translated ModelProto keeps what is not an op:
// the model's fields on the module, graph input/output names on the
// function's arguments and results, and the parts of a node that a
// quant_qdq.generic holds beside its operands. The translation writes them,
// the ONNX conversions read them; no protobuf is needed to use them.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_TARGET_ONNX_ONNXATTRNAMES_H
#define QUANTQDQ_TARGET_ONNX_ONNXATTRNAMES_H

#include "QuantQDQ/Utils/TensorNames.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::quant_qdq::onnx_io {

// Module attributes: the ModelProto fields that are not the graph.
inline constexpr llvm::StringLiteral kOpsetImport =
    "quant_qdq.onnx.opset_import";
/// The key of the default domain in kOpsetImport.
inline constexpr llvm::StringLiteral kDefaultDomain = "ai.onnx";
inline constexpr llvm::StringLiteral kIrVersion = "quant_qdq.onnx.ir_version";
inline constexpr llvm::StringLiteral kProducerName =
    "quant_qdq.onnx.producer_name";
inline constexpr llvm::StringLiteral kProducerVersion =
    "quant_qdq.onnx.producer_version";
inline constexpr llvm::StringLiteral kModelDomain = "quant_qdq.onnx.domain";
inline constexpr llvm::StringLiteral kModelVersion =
    "quant_qdq.onnx.model_version";
inline constexpr llvm::StringLiteral kDocString = "quant_qdq.onnx.doc_string";
inline constexpr llvm::StringLiteral kMetadataProps =
    "quant_qdq.onnx.metadata_props";
inline constexpr llvm::StringLiteral kGraphName = "quant_qdq.onnx.graph_name";
inline constexpr llvm::StringLiteral kGraphDocString =
    "quant_qdq.onnx.graph_doc_string";
/// A unit attribute: the model kept tensors in external data files, so a
/// file export keeps them outside too.
inline constexpr llvm::StringLiteral kExternalData =
    "quant_qdq.onnx.external_data";

// Function argument and result attributes: the graph input/output name and
// the names of its symbolic dimensions ("" for a static one).
inline constexpr llvm::StringLiteral kValueName = kTensorNameAttr;
inline constexpr llvm::StringLiteral kDimParams = "quant_qdq.onnx.dim_params";

// quant_qdq.generic: positions of inputs the node leaves out (ONNX writes ""
// for an absent optional input), and the outer-scope names that a subgraph
// attribute reads; those values are the generic op's trailing operands.
inline constexpr llvm::StringLiteral kOmittedInputs =
    "quant_qdq.onnx.omitted_inputs";
inline constexpr llvm::StringLiteral kCaptures = "quant_qdq.onnx.captures";
inline constexpr llvm::StringLiteral kOmittedOutputs =
    "quant_qdq.onnx.omitted_outputs";
/// On a quant_qdq.generic kept from the model when export writes another
/// opset than the model's: the opset the node was written for, from which
/// the writer converts it (ONNX's version converter).
inline constexpr llvm::StringLiteral kKeptNodeOpset =
    "quant_qdq.onnx.kept_node_opset";

// Keys of the dictionaries that wrap attribute kinds MLIR has no builtin
// for; the value is the serialized proto.
inline constexpr llvm::StringLiteral kGraphKey = "onnx.graph";
inline constexpr llvm::StringLiteral kSparseTensorKey = "onnx.sparse_tensor";
inline constexpr llvm::StringLiteral kTypeProtoKey = "onnx.type_proto";
inline constexpr llvm::StringLiteral kRefAttrKey = "onnx.ref_attr_name";
inline constexpr llvm::StringLiteral kRefAttrTypeKey = "onnx.ref_attr_type";

/// The default-domain opset of a module that records none (Keras, MLIR):
/// the conversions read such a module's nodes with that opset's semantics,
/// and export writes it unless Q/DQ ops need a newer one.
inline constexpr int64_t kDefaultOpsetVersion = 17;

} // namespace mlir::quant_qdq::onnx_io

#endif // QUANTQDQ_TARGET_ONNX_ONNXATTRNAMES_H
