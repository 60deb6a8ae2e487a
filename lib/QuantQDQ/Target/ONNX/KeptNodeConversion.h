//===- KeptNodeConversion.h - kept nodes into the export opset --*- C++ -*-===//
//
// Export writes a model at another opset than it was imported at when its
// Q/DQ ops need a newer one (21 for int4 blocks) or `--onnx-opset` asks.
// The layer and Q/DQ ops are written in the new opset's forms by their
// patterns; the nodes kept from the model as they were (a ReduceMean no
// layer took in, a mask's Trilu) still follow the old opset's schemas, and
// ONNX's version converter brings them over.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_LIB_TARGET_ONNX_KEPTNODECONVERSION_H
#define QUANTQDQ_LIB_TARGET_ONNX_KEPTNODECONVERSION_H

#include "ONNXCommon.h"

#include <vector>

namespace mlir::quant_qdq::onnx_io {

/// The nodes of a graph kept from the model as they were.
struct KeptNodes {
  /// Each one's position in the graph's node list, and the default-domain
  /// opset it was written for.
  std::vector<std::pair<int, int64_t>> nodes;
};

/// Rewrites the `kept` nodes of `model`'s graph into the forms of the
/// model's default-domain opset with ONNX's version converter, the nodes
/// of each opset they were written for in turn; every other node is
/// written for that opset already and stays as it is. The
/// converter sees the graph without its weights: `elsewhere` declares the
/// tensors the graph reads but does not hold (weights streamed after it),
/// `valueTypes` the types of node outputs, which some of its adapters read.
/// Fails with a diagnostic at `loc` when the converter cannot convert a
/// node (a downgrade that has no older form).
LogicalResult convertKeptNodes(onnx::ModelProto &model, const KeptNodes &kept,
                               llvm::ArrayRef<onnx::TensorProto> elsewhere,
                               llvm::ArrayRef<onnx::ValueInfoProto> valueTypes,
                               Location loc);

} // namespace mlir::quant_qdq::onnx_io

#endif // QUANTQDQ_LIB_TARGET_ONNX_KEPTNODECONVERSION_H
