//===- LayerGraph.cpp - a module's layers as a graph of named tensors -----===//

#include "QuantQDQ/Utils/LayerGraph.h"
#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/Utils/TensorNames.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::quant_qdq;

static bool isQDQ(Operation *op) {
  return isa<QuantizeOp, DequantizeOp, FakeQuantOp>(op);
}

Value mlir::quant_qdq::lookThroughQDQ(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (!isQDQ(def))
      break;
    value = def->getOperand(0);
  }
  return value;
}

/// Whether a layer reading `operand` reads quantized values.
static bool readsQuantized(Value operand) {
  return isa_and_present<DequantizeOp, FakeQuantOp>(operand.getDefiningOp());
}

/// Layers that read `value`, through Q/DQ ops, in use order.
static void collectConsumers(Value value,
                             SmallVectorImpl<Operation *> &consumers) {
  for (Operation *user : value.getUsers()) {
    if (isQDQ(user)) {
      for (Value result : user->getResults())
        collectConsumers(result, consumers);
      continue;
    }
    if (isa<QDQLayerOpInterface>(user) && !llvm::is_contained(consumers, user))
      consumers.push_back(user);
  }
}

static std::optional<SmallVector<int64_t>> getShape(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasRank())
    return std::nullopt;
  return SmallVector<int64_t>(shaped.getShape());
}

std::vector<LayerNode> mlir::quant_qdq::buildLayerGraph(ModuleOp module) {
  module.walk([](FunctionOpInterface func) { nameTensors(func); });
  llvm::DenseMap<Operation *, unsigned> index;
  SmallVector<QDQLayerOpInterface> layers;
  module.walk([&](QDQLayerOpInterface layer) {
    index[layer.getOperation()] = layers.size();
    layers.push_back(layer);
  });
  auto positionOf = [&](Value value) -> std::optional<unsigned> {
    Operation *def = value.getDefiningOp();
    auto it = def ? index.find(def) : index.end();
    if (it == index.end())
      return std::nullopt;
    return it->second;
  };

  std::vector<LayerNode> graph;
  for (QDQLayerOpInterface layer : layers) {
    Operation *op = layer.getOperation();
    LayerNode node;
    node.op = op;
    node.name = layer.getLayerName().str();
    node.layerClass = layer.getLayerClass().str();
    node.quantizesInputByDefault = layer.quantizesInputByDefault();
    node.quantizesWeightByDefault = layer.quantizesWeightByDefault();
    node.passThrough = layer.isPassThrough();
    for (unsigned operand : layer.getActivationOperandIndices()) {
      Value read = op->getOperand(operand);
      Value value = lookThroughQDQ(read);
      node.inputs.push_back({getTensorName(value).str(),
                             getShape(value.getType()), positionOf(value),
                             readsQuantized(read)});
    }
    if (std::optional<unsigned> operand = layer.getWeightOperandIndex()) {
      Value read = op->getOperand(*operand);
      Value value = lookThroughQDQ(read);
      // A weight is named after its initializer (its location).
      std::string name;
      if (Operation *def = value.getDefiningOp())
        name = getLocationName(def->getLoc()).str();
      if (name.empty())
        name = getTensorName(value).str();
      node.weight = LayerTensor{name, getShape(value.getType()),
                                positionOf(value), readsQuantized(read)};
      node.weightChannelAxis = layer.getWeightChannelAxis();
    }
    SmallVector<Operation *> consumers;
    for (Value result : op->getResults()) {
      node.outputs.push_back({getTensorName(result).str(),
                              getShape(result.getType()), index.lookup(op)});
      collectConsumers(result, consumers);
    }
    for (Operation *consumer : consumers)
      node.consumers.push_back(index.lookup(consumer));
    graph.push_back(std::move(node));
  }
  return graph;
}
