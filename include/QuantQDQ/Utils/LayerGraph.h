//===- LayerGraph.h - a module's layers as a graph of named tensors -*- C++ -*-===//
//
// The read-only view of a model that insertion cases written outside C++
// (Python's QDQCase) and reports work on: its layers in program order, each
// with its activation inputs, outputs and weight as named, shaped tensors,
// and its producers and consumers as positions in that list. Q/DQ ops are
// looked through, so the graph is the same before and after insertion; what
// insertion placed shows as the inputs and weights read quantized.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_UTILS_LAYERGRAPH_H
#define QUANTQDQ_UTILS_LAYERGRAPH_H

#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::quant_qdq {

/// A tensor a layer reads or writes.
struct LayerTensor {
  /// Its name (qdq-name-tensors'; a weight: its initializer's).
  std::string name;
  /// Its shape, dynamic dimensions as ShapedType::kDynamic; none unranked.
  std::optional<SmallVector<int64_t>> shape;
  /// The position of the layer that produces it; none for a graph input or
  /// a constant.
  std::optional<unsigned> producer;
  /// An input or weight the layer reads through a dequantize (or
  /// fake_quant): where Q/DQ placement quantized it. False for outputs.
  bool quantized = false;
};

/// One layer.
struct LayerNode {
  Operation *op = nullptr;
  std::string name, layerClass;
  /// The activation inputs, in the order of the layer's activation operand
  /// list (the positions insertion cases and QuantizationSpecs use).
  SmallVector<LayerTensor> inputs;
  SmallVector<LayerTensor> outputs;
  std::optional<LayerTensor> weight;
  /// The axis per-channel weight scales lie along.
  std::optional<int64_t> weightChannelAxis;
  /// The layers that read an output, in use order, each once.
  SmallVector<unsigned> consumers;
  bool quantizesInputByDefault = false, quantizesWeightByDefault = false,
       passThrough = false;
};

/// The value a chain of quantize/dequantize/fake_quant ops carries.
Value lookThroughQDQ(Value value);

/// The layers of `module` in program order. Names the tensors first
/// (nameTensors), so the names are those of calibration tables and export.
std::vector<LayerNode> buildLayerGraph(ModuleOp module);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_UTILS_LAYERGRAPH_H
