//===- KeptNodeConversion.cpp - kept nodes into the export opset ----------===//
//
// The converter works on a view of the graph: every node, in order, so
// that it sees the values that flow between them; the nodes export wrote
// itself moved to a domain of their own, which the converter leaves
// alone (it converts ONNX's own domain only); the small initializers that
// adapters read (axes, pads, split sizes) with their data and the weights
// as typed graph inputs, so that no weight is copied.
//
//===----------------------------------------------------------------------===//

#include "KeptNodeConversion.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::quant_qdq;
using namespace mlir::quant_qdq::onnx_io;

/// The domain under which the converter sees the nodes that are written
/// for the model's opset already.
static constexpr const char *kWrittenDomain = "quant_qdq.written";

/// Initializers up to this size go to the converter with their data.
static constexpr size_t kMaxViewedInitializerBytes = 64 << 10;

/// Declares `tensor` as an input of `graph`: its type without its data.
static void declareAsInput(onnx::GraphProto &graph,
                           const onnx::TensorProto &tensor) {
  onnx::ValueInfoProto &info = *graph.add_input();
  info.set_name(tensor.name());
  auto &type = *info.mutable_type()->mutable_tensor_type();
  type.set_elem_type(tensor.data_type());
  auto &shape = *type.mutable_shape();
  for (int64_t d : tensor.dims())
    shape.add_dim()->set_dim_value(d);
}

static int64_t getDefaultDomainOpset(const onnx::ModelProto &model) {
  for (const onnx::OperatorSetIdProto &id : model.opset_import())
    if (isDefaultDomain(id.domain()))
      return id.version();
  return 0;
}

LogicalResult onnx_io::convertKeptNodes(
    onnx::ModelProto &model, const KeptNodes &kept,
    llvm::ArrayRef<onnx::TensorProto> elsewhere,
    llvm::ArrayRef<onnx::ValueInfoProto> valueTypes, Location loc) {
  int64_t target = getDefaultDomainOpset(model);
  if (kept.positions.empty() || kept.opset == target)
    return success();
  onnx::GraphProto &graph = *model.mutable_graph();

  onnx::ModelProto view;
  view.set_ir_version(model.ir_version());
  for (const onnx::OperatorSetIdProto &id : model.opset_import()) {
    onnx::OperatorSetIdProto &copy = *view.add_opset_import();
    copy = id;
    if (isDefaultDomain(id.domain()))
      copy.set_version(kept.opset);
  }
  onnx::OperatorSetIdProto &written = *view.add_opset_import();
  written.set_domain(kWrittenDomain);
  written.set_version(1);

  onnx::GraphProto &viewGraph = *view.mutable_graph();
  viewGraph.set_name(graph.name());
  *viewGraph.mutable_input() = graph.input();
  *viewGraph.mutable_output() = graph.output();
  for (const onnx::ValueInfoProto &info : valueTypes)
    *viewGraph.add_value_info() = info;
  std::vector<bool> isKept(graph.node_size(), false);
  for (int position : kept.positions)
    isKept[position] = true;
  for (auto [i, node] : llvm::enumerate(graph.node())) {
    onnx::NodeProto &copy = *viewGraph.add_node();
    copy = node;
    if (!isKept[i] && isDefaultDomain(node.domain()))
      copy.set_domain(kWrittenDomain);
  }
  std::vector<int> weights;
  for (auto [i, init] : llvm::enumerate(graph.initializer())) {
    if (init.ByteSizeLong() <= kMaxViewedInitializerBytes) {
      *viewGraph.add_initializer() = init;
      continue;
    }
    declareAsInput(viewGraph, init);
    weights.push_back(int(i));
  }
  for (const onnx::TensorProto &tensor : elsewhere)
    declareAsInput(viewGraph, tensor);

  std::string error = convertOpsetVersion(view, target);
  if (!error.empty())
    return emitError(loc) << "cannot convert the nodes kept from opset "
                          << kept.opset << " to opset " << target << ": "
                          << getFirstLine(error);

  // The converted nodes, the weights, and the small initializers as the
  // converter returns them (with any it added: ReduceMean's axes).
  onnx::GraphProto &converted = *view.mutable_graph();
  for (onnx::NodeProto &node : *converted.mutable_node()) {
    if (node.domain() == kWrittenDomain) {
      node.clear_domain();
      continue;
    }
    // Adapters append the attributes they add; export writes them sorted.
    auto *attributes = node.mutable_attribute();
    std::sort(attributes->pointer_begin(), attributes->pointer_end(),
              [](const onnx::AttributeProto *a, const onnx::AttributeProto *b) {
                return a->name() < b->name();
              });
  }
  graph.mutable_node()->Swap(converted.mutable_node());
  google::protobuf::RepeatedPtrField<onnx::TensorProto> initializers;
  for (int i : weights)
    initializers.Add()->Swap(graph.mutable_initializer(i));
  for (onnx::TensorProto &tensor : *converted.mutable_initializer())
    initializers.Add()->Swap(&tensor);
  graph.mutable_initializer()->Swap(&initializers);
  return success();
}
