//===- KeptNodeConversion.cpp - kept nodes into the export opset ----------===//
//
// The converter works on a view of the graph: every node, in order, so
// that it sees the values that flow between them; the nodes export wrote
// itself moved to a domain of their own, which the converter leaves
// alone (it converts ONNX's own domain only); the initializers of up to
// 64 KiB that adapters read (axes, pads, split sizes) with their data, and
// the larger ones and the weights streamed after the graph as typed graph
// inputs, so that no weight is copied.
//
//===----------------------------------------------------------------------===//

#include "KeptNodeConversion.h"

#include <algorithm>
#include <map>
#include <set>

using namespace mlir;
using namespace mlir::quant_qdq;
using namespace mlir::quant_qdq::onnx_io;

/// The domain under which the converter sees the nodes that are written
/// for the model's opset already.
static constexpr const char *kWrittenDomain = "quant_qdq.written";

/// Initializers up to this size go to the converter with their data (the
/// weights an import keeps in resources never do: they are streamed).
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

/// The domain under which the converter sees the kept nodes written for
/// `opset` while another opset's are converted.
static std::string getWaitingDomain(int64_t opset) {
  return "quant_qdq.kept." + std::to_string(opset);
}

static void addOpset(onnx::ModelProto &model, const std::string &domain,
                     int64_t version) {
  onnx::OperatorSetIdProto &id = *model.add_opset_import();
  id.set_domain(domain);
  id.set_version(version);
}

/// The number of nodes of `graph` outside ONNX's own domain.
static int countHidden(const onnx::GraphProto &graph) {
  return llvm::count_if(graph.node(), [](const onnx::NodeProto &node) {
    return !isDefaultDomain(node.domain());
  });
}

static void setDefaultDomainOpset(onnx::ModelProto &model, int64_t opset) {
  for (onnx::OperatorSetIdProto &id : *model.mutable_opset_import())
    if (isDefaultDomain(id.domain()))
      id.set_version(opset);
}

LogicalResult onnx_io::convertKeptNodes(
    onnx::ModelProto &model, const KeptNodes &kept,
    llvm::ArrayRef<onnx::TensorProto> elsewhere,
    llvm::ArrayRef<onnx::ValueInfoProto> valueTypes, Location loc) {
  int64_t target = getDefaultDomainOpset(model);
  // The kept nodes by the opset they were written for (a module exported
  // twice holds nodes of two).
  std::map<int64_t, int> groups;
  std::vector<int64_t> nodeOpset(model.graph().node_size(), target);
  for (auto [position, opset] : kept.nodes) {
    nodeOpset[position] = opset;
    if (opset != target)
      ++groups[opset];
  }
  if (groups.empty())
    return success();
  onnx::GraphProto &graph = *model.mutable_graph();

  onnx::ModelProto view;
  view.set_ir_version(model.ir_version());
  for (const onnx::OperatorSetIdProto &id : model.opset_import())
    *view.add_opset_import() = id;
  addOpset(view, kWrittenDomain, 1);
  for (auto [opset, count] : groups)
    addOpset(view, getWaitingDomain(opset), 1);

  onnx::GraphProto &viewGraph = *view.mutable_graph();
  viewGraph.set_name(graph.name());
  *viewGraph.mutable_input() = graph.input();
  *viewGraph.mutable_output() = graph.output();
  for (const onnx::ValueInfoProto &info : valueTypes)
    *viewGraph.add_value_info() = info;
  for (auto [i, node] : llvm::enumerate(graph.node())) {
    onnx::NodeProto &copy = *viewGraph.add_node();
    copy = node;
    if (!isDefaultDomain(node.domain()))
      continue;
    copy.set_domain(nodeOpset[i] == target ? std::string(kWrittenDomain)
                                           : getWaitingDomain(nodeOpset[i]));
  }
  // Weights are declared, not copied; the initializers adapters read
  // (axes, pads, split sizes) are small.
  std::set<std::string> original;
  for (const onnx::TensorProto &init : graph.initializer()) {
    original.insert(init.name());
    if (init.ByteSizeLong() <= kMaxViewedInitializerBytes)
      *viewGraph.add_initializer() = init;
    else
      declareAsInput(viewGraph, init);
  }
  for (const onnx::TensorProto &tensor : elsewhere)
    declareAsInput(viewGraph, tensor);

  // One group at a time, the others waiting in domains of their own; a
  // converted group joins the nodes written for the target.
  for (auto [from, count] : groups) {
    std::string waiting = getWaitingDomain(from);
    for (onnx::NodeProto &node : *view.mutable_graph()->mutable_node())
      if (node.domain() == waiting)
        node.clear_domain();
    setDefaultDomainOpset(view, from);
    int hidden = countHidden(view.graph());
    std::string error = convertOpsetVersion(view, target);
    if (!error.empty())
      return emitError(loc)
             << "cannot convert the nodes kept from opset " << from
             << " to opset " << target << ": " << getFirstLine(error);
    // Every other node comes back as it went (the converter's writer drops
    // what it cannot represent).
    if (countHidden(view.graph()) != hidden)
      return emitError(loc) << "ONNX's version converter lost nodes of the "
                               "graph converting opset "
                            << from << " to " << target;
    for (onnx::NodeProto &node : *view.mutable_graph()->mutable_node()) {
      if (!isDefaultDomain(node.domain()))
        continue;
      node.set_domain(kWrittenDomain);
      // Adapters append the attributes they add; export writes them
      // sorted.
      auto *attributes = node.mutable_attribute();
      std::sort(
          attributes->pointer_begin(), attributes->pointer_end(),
          [](const onnx::AttributeProto *a, const onnx::AttributeProto *b) {
            return a->name() < b->name();
          });
    }
  }

  onnx::GraphProto &converted = *view.mutable_graph();
  for (onnx::NodeProto &node : *converted.mutable_node())
    if (node.domain() == kWrittenDomain)
      node.clear_domain();
  graph.mutable_node()->Swap(converted.mutable_node());
  // The graph's initializers stay, even one a downgrade stopped reading (a
  // subgraph may read it by name); those an adapter added join them.
  for (onnx::TensorProto &tensor : *converted.mutable_initializer())
    if (!original.count(tensor.name()))
      graph.add_initializer()->Swap(&tensor);
  return success();
}
