//===- ModelImporter.cpp - ONNX ModelProto to a quant_qdq module ----------===//
//
// Parses the protobuf with the ONNX library's generated classes, checks what
// a hostile file can get wrong (undefined inputs, duplicate producers,
// cycles, malformed tensors, nodes against their schema) before anything
// relies on it, runs ONNX shape inference for the types of node outputs,
// and translates the nodes in dependency order into quant_qdq.generic ops,
// mechanically. importONNX then runs the ONNX conversion patterns, which
// give the nodes their layer ops.
//
//===----------------------------------------------------------------------===//

#include "ModelImporter.h"
#include "ExternalData.h"
#include "QuantQDQ/Conversion/ONNXToQuantQDQ.h"
#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/Target/ONNX/ONNX.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/logging.h>

#include <deque>

using namespace mlir;
using namespace mlir::quant_qdq;
using namespace mlir::quant_qdq::onnx_io;

ModelImporter::ModelImporter(MLIRContext *context, StringRef fileName)
    : context(context), fileName(fileName.str()), builder(context),
      fileLoc(FileLineColLoc::get(context, fileName, 0, 0)) {}

//===----------------------------------------------------------------------===//
// Helpers for node handlers
//===----------------------------------------------------------------------===//

Location ModelImporter::getNodeLoc(const onnx::NodeProto &node) {
  StringRef name =
      node.name().empty() ? StringRef(node.op_type()) : StringRef(node.name());
  return NameLoc::get(StringAttr::get(context, name), fileLoc);
}

InFlightDiagnostic ModelImporter::emitNodeError(const onnx::NodeProto &node) {
  InFlightDiagnostic diag = emitError(getNodeLoc(node));
  diag << "node '" << node.name() << "' (" << node.op_type() << "): ";
  return diag;
}

int64_t ModelImporter::getOpset(StringRef domain) const {
  if (domain == "ai.onnx")
    domain = "";
  auto it = opsets.find(domain);
  return it == opsets.end() ? 0 : it->second;
}

Value ModelImporter::getValue(StringRef name) {
  if (name.empty())
    return {};
  if (Value v = values.lookup(name))
    return v;
  onnx::TensorProto *init = initializers.lookup(name);
  if (!init)
    return {};
  Location loc = NameLoc::get(StringAttr::get(context, name), fileLoc);
  FailureOr<ElementsAttr> value = importTensor(*init, loc, name);
  if (failed(value))
    return {};
  auto op = arith::ConstantOp::create(builder, loc, cast<TypedAttr>(*value));
  values[name] = op.getResult();
  return op.getResult();
}

//===----------------------------------------------------------------------===//
// Generic nodes
//===----------------------------------------------------------------------===//

/// Collects names `graph` reads and defines, recursing into subgraphs.
static void collectGraphNames(const onnx::GraphProto &graph,
                              llvm::StringSet<> &defined, NameSet &used) {
  for (const onnx::ValueInfoProto &in : graph.input())
    defined.insert(in.name());
  for (const onnx::TensorProto &init : graph.initializer())
    defined.insert(init.name());
  for (const onnx::SparseTensorProto &init : graph.sparse_initializer())
    defined.insert(init.values().name());
  for (const onnx::NodeProto &node : graph.node()) {
    for (const std::string &in : node.input())
      if (!in.empty())
        used.insert(in);
    for (const std::string &out : node.output())
      defined.insert(out);
    for (const onnx::AttributeProto &attr : node.attribute()) {
      if (attr.has_g())
        collectGraphNames(attr.g(), defined, used);
      for (const onnx::GraphProto &g : attr.graphs())
        collectGraphNames(g, defined, used);
    }
  }
  for (const onnx::ValueInfoProto &out : graph.output())
    used.insert(out.name());
}

void onnx_io::collectCapturedNames(const onnx::GraphProto &graph,
                                   NameSet &captured) {
  llvm::StringSet<> defined;
  NameSet used;
  collectGraphNames(graph, defined, used);
  for (const std::string &name : used)
    if (!defined.count(name))
      captured.insert(name);
}

/// The outer-scope names the node's subgraph attributes read.
static NameSet getNodeCaptures(const onnx::NodeProto &node) {
  NameSet captured;
  for (const onnx::AttributeProto &attr : node.attribute()) {
    if (attr.has_g())
      collectCapturedNames(attr.g(), captured);
    for (const onnx::GraphProto &g : attr.graphs())
      collectCapturedNames(g, captured);
  }
  return captured;
}

LogicalResult ModelImporter::importGeneric(onnx::NodeProto &node) {
  Location loc = getNodeLoc(node);
  SmallVector<Value> operands;
  SmallVector<int64_t> omittedInputs, omittedOutputs;
  for (auto [i, name] : llvm::enumerate(node.input())) {
    if (name.empty()) {
      omittedInputs.push_back(i);
      continue;
    }
    Value v = getValue(name);
    if (!v)
      return emitNodeError(node) << "input '" << name << "' has no value";
    operands.push_back(v);
  }
  SmallVector<Attribute> captureNames;
  for (const std::string &name : getNodeCaptures(node)) {
    Value v = getValue(name);
    // A name the subgraph reads from further out than this graph stays a
    // plain name in the subgraph.
    if (!v)
      continue;
    operands.push_back(v);
    captureNames.push_back(builder.getStringAttr(name));
  }

  SmallVector<NamedAttribute> layerAttrs;
  std::string resourcePrefix =
      node.name().empty() ? node.op_type() : node.name();
  for (onnx::AttributeProto &attr : *node.mutable_attribute()) {
    FailureOr<Attribute> value = importAttribute(attr, loc, resourcePrefix);
    if (failed(value))
      return emitNodeError(node)
             << "cannot read attribute '" << attr.name() << "'";
    layerAttrs.push_back(builder.getNamedAttr(attr.name(), *value));
  }

  SmallVector<Type> resultTypes;
  for (auto [i, name] : llvm::enumerate(node.output())) {
    if (name.empty())
      omittedOutputs.push_back(i);
    Type type = name.empty() ? Type() : declaredTypes.lookup(name);
    resultTypes.push_back(type ? type : NoneType::get(context));
  }

  OperationState state(loc, GenericOp::getOperationName());
  state.addOperands(operands);
  state.addTypes(resultTypes);
  state.addAttribute("op_type", builder.getStringAttr(node.op_type()));
  if (!node.name().empty())
    state.addAttribute("name", builder.getStringAttr(node.name()));
  if (!node.domain().empty())
    state.addAttribute("domain", builder.getStringAttr(node.domain()));
  if (!layerAttrs.empty())
    state.addAttribute("layer_attributes",
                       builder.getDictionaryAttr(layerAttrs));
  if (!omittedInputs.empty())
    state.addAttribute(kOmittedInputs,
                       builder.getDenseI64ArrayAttr(omittedInputs));
  if (!omittedOutputs.empty())
    state.addAttribute(kOmittedOutputs,
                       builder.getDenseI64ArrayAttr(omittedOutputs));
  if (!captureNames.empty())
    state.addAttribute(kCaptures, builder.getArrayAttr(captureNames));
  Operation *op = builder.create(state);
  for (auto [i, name] : llvm::enumerate(node.output()))
    if (!name.empty())
      values[name] = op->getResult(i);
  return success();
}

//===----------------------------------------------------------------------===//
// The graph
//===----------------------------------------------------------------------===//

FailureOr<Type>
ModelImporter::convertType(const onnx::TypeProto &type, StringRef what,
                           SmallVectorImpl<Attribute> *dimParams) {
  if (!type.has_tensor_type())
    return emitError(fileLoc) << what
                              << " is not a tensor (sequences, maps and "
                                 "optionals are not supported)";
  const onnx::TypeProto::Tensor &tensor = type.tensor_type();
  Type elementType = getElementType(context, tensor.elem_type());
  if (!elementType)
    return emitError(fileLoc) << what << " has an unsupported element type ("
                              << tensor.elem_type() << ")";
  if (!tensor.has_shape())
    return Type(UnrankedTensorType::get(elementType));
  SmallVector<int64_t> shape;
  for (const auto &dim : tensor.shape().dim()) {
    if (dim.has_dim_value()) {
      if (dim.dim_value() < 0)
        return emitError(fileLoc) << what << " has a negative dimension ("
                                  << dim.dim_value() << ")";
      shape.push_back(dim.dim_value());
    } else {
      shape.push_back(ShapedType::kDynamic);
    }
    if (dimParams)
      dimParams->push_back(StringAttr::get(context, dim.dim_param()));
  }
  int64_t count = 1;
  for (int64_t d : shape)
    if (!ShapedType::isDynamic(d) && llvm::MulOverflow(count, d, count))
      return emitError(fileLoc) << what
                                << " has more elements than fit in "
                                   "64 bits";
  return Type(RankedTensorType::get(shape, elementType));
}

LogicalResult ModelImporter::collectTypes(onnx::GraphProto &graph) {
  auto add = [&](const onnx::ValueInfoProto &info,
                 StringRef kind) -> LogicalResult {
    if (!info.has_type())
      return success();
    FailureOr<Type> type = convertType(
        info.type(), (kind + " '" + info.name() + "'").str(), nullptr);
    if (failed(type))
      return failure();
    declaredTypes[info.name()] = *type;
    return success();
  };
  // Inferred value_info may be wrong about kinds the importer does not
  // model (sequences); those values just stay untyped.
  for (const onnx::ValueInfoProto &info : graph.value_info())
    if (info.type().has_tensor_type() &&
        getElementType(context, info.type().tensor_type().elem_type()))
      (void)add(info, "value");
  for (const onnx::ValueInfoProto &info : graph.output())
    if (failed(add(info, "graph output")))
      return failure();
  return success();
}

FailureOr<SmallVector<int>> ModelImporter::sortNodes(onnx::GraphProto &graph) {
  llvm::StringMap<int> producers;
  llvm::StringSet<> available;
  for (const onnx::ValueInfoProto &in : graph.input())
    available.insert(in.name());
  for (const onnx::TensorProto &init : graph.initializer())
    available.insert(init.name());

  int numNodes = graph.node_size();
  for (int i = 0; i < numNodes; ++i) {
    const onnx::NodeProto &node = graph.node(i);
    for (const std::string &out : node.output()) {
      if (out.empty())
        continue;
      if (available.count(out))
        return emitNodeError(node)
               << "output '" << out << "' is also a graph input or initializer";
      auto [it, inserted] = producers.try_emplace(out, i);
      if (!inserted)
        return emitNodeError(node)
               << "output '" << out << "' is also produced by node '"
               << graph.node(it->second).name() << "'";
    }
  }

  // Kahn's algorithm, keeping the file order among ready nodes.
  std::vector<SmallVector<int, 2>> consumers(numNodes);
  std::vector<int> pending(numNodes, 0);
  for (int i = 0; i < numNodes; ++i) {
    const onnx::NodeProto &node = graph.node(i);
    NameSet deps(node.input().begin(), node.input().end());
    for (const std::string &name : getNodeCaptures(node))
      deps.insert(name);
    for (const std::string &in : deps) {
      if (in.empty() || available.count(in))
        continue;
      auto it = producers.find(in);
      if (it == producers.end()) {
        // Captured names may come from an enclosing scope of a function.
        if (llvm::is_contained(node.input(), in))
          return emitNodeError(node)
                 << "input '" << in
                 << "' is not produced by any node, graph input or "
                    "initializer";
        continue;
      }
      consumers[it->second].push_back(i);
      ++pending[i];
    }
  }
  for (const onnx::ValueInfoProto &out : graph.output()) {
    if (!available.count(out.name()) && !producers.count(out.name()))
      return emitError(fileLoc) << "graph output '" << out.name()
                                << "' is not produced by any node, graph "
                                   "input or initializer";
  }

  SmallVector<int> order;
  std::deque<int> ready;
  for (int i = 0; i < numNodes; ++i)
    if (pending[i] == 0)
      ready.push_back(i);
  while (!ready.empty()) {
    int i = ready.front();
    ready.pop_front();
    order.push_back(i);
    for (int c : consumers[i])
      if (--pending[c] == 0)
        ready.push_back(c);
  }
  if (int(order.size()) != numNodes) {
    for (int i = 0; i < numNodes; ++i)
      if (pending[i] != 0)
        return emitNodeError(graph.node(i))
               << "is part of a cycle (or depends on one)";
  }
  return order;
}

/// Reorders `nodes` so that position i holds the node at `order[i]`,
/// moving pointers, not nodes.
static void
putInOrder(google::protobuf::RepeatedPtrField<onnx::NodeProto> &nodes,
           ArrayRef<int> order) {
  if (llvm::is_sorted(order))
    return;
  std::vector<onnx::NodeProto *> released(nodes.size());
  nodes.ExtractSubrange(0, nodes.size(), released.data());
  for (int index : order)
    nodes.AddAllocated(released[index]);
}

LogicalResult ModelImporter::checkNodeSchema(const onnx::NodeProto &node) {
  int64_t opset = getOpset(node.domain());
  std::string error = verifyNode(node, opset);
  if (error.empty())
    return success();
  return emitNodeError(node) << getFirstLine(error);
}

LogicalResult ModelImporter::importMetadata(onnx::ModelProto &model,
                                            ModuleOp module) {
  Builder b(context);
  SmallVector<NamedAttribute> opsetAttrs;
  for (const onnx::OperatorSetIdProto &id : model.opset_import()) {
    // The ONNX library holds versions as int.
    if (id.version() < 1 || id.version() > std::numeric_limits<int32_t>::max())
      return emitError(fileLoc)
             << "opset version " << id.version() << " of domain '"
             << id.domain() << "' is outside [1, 2^31 - 1]";
    opsets[id.domain()] = id.version();
    // MLIR dictionaries need non-empty keys: the default domain is written
    // by its long name.
    opsetAttrs.push_back(b.getNamedAttr(id.domain().empty()
                                            ? StringRef(kDefaultDomain)
                                            : StringRef(id.domain()),
                                        b.getI64IntegerAttr(id.version())));
  }
  if (!opsets.count(""))
    return emitError(fileLoc) << "the model imports no opset of the default "
                                 "ONNX domain";
  // Nodes of a newer opset may follow schemas this build has never seen:
  // neither the checker nor the conversions could read them.
  if (opsets[""] > getLibraryOpsetLimit())
    return emitError(fileLoc)
           << "the model's opset " << opsets[""]
           << " is newer than the newest this build's ONNX library knows ("
           << getLibraryOpsetLimit()
           << "); export it at an older opset, or build quant-qdq with a "
              "newer onnx";
  if (model.ir_version() > kNewestIRVersion)
    return emitError(fileLoc)
           << "IR version " << model.ir_version()
           << " is newer than any this build knows (" << kNewestIRVersion
           << ")";
  module->setAttr(kOpsetImport, b.getDictionaryAttr(opsetAttrs));
  module->setAttr(kIrVersion, b.getI64IntegerAttr(model.ir_version()));
  auto setString = [&](StringRef attr, const std::string &value) {
    if (!value.empty())
      module->setAttr(attr, b.getStringAttr(value));
  };
  setString(kProducerName, model.producer_name());
  setString(kProducerVersion, model.producer_version());
  setString(kModelDomain, model.domain());
  setString(kDocString, model.doc_string());
  setString(kGraphName, model.graph().name());
  setString(kGraphDocString, model.graph().doc_string());
  if (model.model_version() != 0)
    module->setAttr(kModelVersion, b.getI64IntegerAttr(model.model_version()));
  if (model.metadata_props_size() != 0) {
    SmallVector<NamedAttribute> props;
    for (const onnx::StringStringEntryProto &p : model.metadata_props())
      props.push_back(b.getNamedAttr(p.key(), b.getStringAttr(p.value())));
    module->setAttr(kMetadataProps, b.getDictionaryAttr(props));
  }
  if (model.functions_size() != 0)
    return emitError(fileLoc) << "model-local functions are not supported";
  if (model.graph().sparse_initializer_size() != 0)
    return emitError(fileLoc) << "sparse initializers are not supported";
  return success();
}

/// Default-domain ops that no layer op stands for and no lowering runs,
/// but that ONNX defines as functions of ops that have both: the import
/// replaces them by their ONNX function bodies (ONNX's own definition,
/// built for the node's attributes and input types). What follows sees
/// their matrix products and softmax, so that insertion cases place Q/DQ
/// inside attention as in a written-out one.
static constexpr llvm::StringRef kExpandedOps[] = {"Attention",
                                                   "RotaryEmbedding"};

LogicalResult ModelImporter::inferAndCheck(onnx::ModelProto &model) {
  onnx::GraphProto &graph = *model.mutable_graph();
  // Shape inference may replace or add value_info; it reads initializer
  // types, not their data.
  ShapeInferenceResult inference = inferShapes(model);
  if (!inference.checkError.empty())
    return emitError(fileLoc) << "invalid ONNX model: "
                              << formatCheckerError(inference.checkError);
  if (!inference.error.empty())
    emitWarning(fileLoc) << "ONNX shape inference failed, intermediate "
                            "shapes stay unknown: "
                         << inference.error;
  if (inference.badNode >= 0 && inference.badNode < graph.node_size())
    return emitNodeError(graph.node(inference.badNode))
           << getFirstLine(inference.nodeError);
  refineByNode = inference.error.empty();
  return success();
}

OwningOpRef<ModuleOp> ModelImporter::importModel(onnx::ModelProto &model) {
  if (!model.has_graph())
    return emitError(fileLoc) << "not an ONNX model: the file holds no graph",
           nullptr;
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  if (failed(importMetadata(model, *module)))
    return nullptr;
  onnx::GraphProto &graph = *model.mutable_graph();

  // Structure first: later steps (shape inference included) assume that
  // every input is defined and the graph is acyclic.
  FailureOr<SmallVector<int>> order = sortNodes(graph);
  if (failed(order))
    return nullptr;
  // ONNX wants nodes in dependency order; a file that lists them otherwise
  // is read as sorted (as ONNX Runtime does), so that the checker judges
  // everything else.
  putInOrder(*graph.mutable_node(), *order);
  for (const onnx::NodeProto &node : graph.node())
    if (failed(checkNodeSchema(node)))
      return nullptr;
  // Initializers are checked now (sizes against dimensions) and converted
  // on first use; no later step fails on their data.
  for (onnx::TensorProto &init : *graph.mutable_initializer()) {
    if (failed(checkTensor(init, fileLoc)))
      return nullptr;
    initializers[init.name()] = &init;
  }

  // No tensor that fits in a 2 GiB file has a dimension beyond 2^31 - 1, and
  // ONNX shape inference does not terminate on some larger ones.
  for (const auto *infos :
       {&graph.input(), &graph.output(), &graph.value_info()})
    for (const onnx::ValueInfoProto &info : *infos)
      for (const auto &dim : info.type().tensor_type().shape().dim())
        if (dim.has_dim_value() &&
            (dim.dim_value() < 0 ||
             dim.dim_value() > std::numeric_limits<int32_t>::max()))
          return emitError(fileLoc)
                     << "tensor '" << info.name() << "' declares dimension "
                     << dim.dim_value() << ", outside [0, 2^31 - 1]",
                 nullptr;

  if (failed(inferAndCheck(model)))
    return nullptr;
  // Ops that ONNX defines as functions of others and that nothing here
  // runs as they are become their function bodies, whose types inference
  // then gives.
  if (expandFunctionNodes(model, kExpandedOps) > 0 &&
      failed(inferAndCheck(model)))
    return nullptr;
  if (failed(collectTypes(graph)))
    return nullptr;

  // Signature: graph inputs that are not initializers (an initializer that
  // is also an input, as IR version < 4 writes them, is a constant here).
  SmallVector<Type> argTypes;
  SmallVector<DictionaryAttr> argAttrs;
  SmallVector<const onnx::ValueInfoProto *> args;
  Builder b(context);
  for (const onnx::ValueInfoProto &in : graph.input()) {
    if (initializers.count(in.name()))
      continue;
    SmallVector<Attribute> dimParams;
    FailureOr<Type> type =
        convertType(in.type(), "graph input '" + in.name() + "'", &dimParams);
    if (failed(type))
      return nullptr;
    argTypes.push_back(*type);
    SmallVector<NamedAttribute> attrs{
        b.getNamedAttr(kValueName, b.getStringAttr(in.name()))};
    if (llvm::any_of(dimParams, [](Attribute a) {
          return !cast<StringAttr>(a).getValue().empty();
        }))
      attrs.push_back(b.getNamedAttr(kDimParams, b.getArrayAttr(dimParams)));
    argAttrs.push_back(b.getDictionaryAttr(attrs));
    args.push_back(&in);
  }
  builder.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(builder, fileLoc, "main",
                                   builder.getFunctionType(argTypes, {}));
  func.setAllArgAttrs(argAttrs);
  Block *body = func.addEntryBlock();
  for (auto [arg, info] : llvm::zip(body->getArguments(), args)) {
    arg.setLoc(NameLoc::get(b.getStringAttr(info->name()), fileLoc));
    values[info->name()] = arg;
  }
  builder.setInsertionPointToEnd(body);

  for (onnx::NodeProto &node : *graph.mutable_node())
    if (failed(importGeneric(node)))
      return nullptr;

  SmallVector<Value> results;
  SmallVector<DictionaryAttr> resultAttrs;
  for (const onnx::ValueInfoProto &out : graph.output()) {
    Value v = getValue(out.name());
    if (!v)
      return emitError(fileLoc)
                 << "graph output '" << out.name() << "' has no value",
             nullptr;
    results.push_back(v);
    resultAttrs.push_back(b.getDictionaryAttr(
        {b.getNamedAttr(kValueName, b.getStringAttr(out.name()))}));
  }
  func::ReturnOp::create(builder, fileLoc, results);
  func.setFunctionType(
      builder.getFunctionType(argTypes, ValueRange(results).getTypes()));
  func.setAllResultAttrs(resultAttrs);

  if (failed(verify(*module)))
    return nullptr;
  return module;
}

//===----------------------------------------------------------------------===//
// Entry point
//===----------------------------------------------------------------------===//

/// Gives the translated nodes their layer ops.
static LogicalResult convertNodes(ModuleOp module, bool refineByNode) {
  RewritePatternSet patterns(module.getContext());
  populateONNXToQuantQDQPatterns(patterns);
  FrozenRewritePatternSet frozen(std::move(patterns));
  // Whole-model inference leaves a node's results unranked where the ONNX
  // library cannot follow a computed shape; node by node, on the inputs the
  // conversion has refined, it often can. A failure here only keeps the
  // node's present types: whole-model inference already checked the node.
  auto refineTypes = [](GenericOp node) {
    ScopedDiagnosticHandler quiet(node.getContext(),
                                  [](Diagnostic &) { return success(); });
    FailureOr<SmallVector<Type>> types = inferONNXNodeTypes(node);
    if (succeeded(types))
      for (auto [result, type] : llvm::zip(node->getResults(), *types))
        result.setType(type);
  };
  for (auto func : module.getOps<func::FuncOp>())
    if (failed(convertONNXToQuantQDQ(
            func, frozen,
            refineByNode ? function_ref<void(GenericOp)>(refineTypes)
                         : nullptr)))
      return failure();
  return verify(module);
}

/// Parses a ModelProto of `size` bytes from `stream` and imports it.
static OwningOpRef<ModuleOp>
parseAndImport(google::protobuf::io::ZeroCopyInputStream &stream, uint64_t size,
               StringRef fileName, MLIRContext *context,
               const ONNXImportOptions &options) {
  context
      ->loadDialect<QuantQDQDialect, func::FuncDialect, arith::ArithDialect>();
  Location fileLoc = FileLineColLoc::get(context, fileName, 0, 0);
  if (size == 0)
    return emitError(fileLoc) << "not an ONNX model: the file is empty",
           nullptr;
  if (size > uint64_t(std::numeric_limits<int>::max()))
    return emitError(fileLoc) << "the file is larger than 2 GiB, the limit "
                                 "of a protobuf message: save the model "
                                 "with its weights in external data",
           nullptr;

  onnx::ModelProto model;
  google::protobuf::io::CodedInputStream coded(&stream);
  coded.SetTotalBytesLimit(std::numeric_limits<int>::max());
  bool parsed;
  {
    // Protobuf logs its own parse errors to stderr; the diagnostic below
    // says it once, with the file name.
    google::protobuf::LogSilencer silencer;
    parsed =
        model.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
  }
  if (!parsed)
    return emitError(fileLoc) << "not an ONNX model: the file is not a valid "
                                 "ModelProto (truncated or not protobuf)",
           nullptr;
  // External tensors are read first: everything after sees their bytes.
  bool externalData = false;
  StringRef modelDir = llvm::sys::path::parent_path(fileName);
  if (failed(loadExternalData(model, modelDir, fileLoc, externalData)))
    return nullptr;
  ModelImporter importer(context, fileName);
  OwningOpRef<ModuleOp> module = importer.importModel(model);
  if (module && externalData)
    (*module)->setAttr(kExternalData, UnitAttr::get(context));
  if (module && options.convertNodes &&
      failed(convertNodes(*module, importer.canRefineTypesByNode())))
    return nullptr;
  return module;
}

OwningOpRef<ModuleOp>
mlir::quant_qdq::importONNX(llvm::MemoryBufferRef buffer, MLIRContext *context,
                            const ONNXImportOptions &options) {
  StringRef data = buffer.getBuffer();
  google::protobuf::io::ArrayInputStream stream(
      data.data(),
      int(std::min<size_t>(data.size(), std::numeric_limits<int>::max())));
  return parseAndImport(stream, data.size(), buffer.getBufferIdentifier(),
                        context, options);
}

OwningOpRef<ModuleOp>
mlir::quant_qdq::importONNXFile(StringRef path, MLIRContext *context,
                                const ONNXImportOptions &options) {
  // Read, not mapped: the parsed tensors are the only copy of the weights
  // in memory, not a second one beside the file's pages.
  int fd;
  uint64_t size = 0;
  if (std::error_code ec = llvm::sys::fs::openFileForRead(path, fd)) {
    emitError(FileLineColLoc::get(context, path, 0, 0))
        << "cannot open the file: " << ec.message();
    return nullptr;
  }
  llvm::sys::fs::file_status status;
  if (!llvm::sys::fs::status(fd, status))
    size = status.getSize();
  // A device or a pipe has no end to read to (or blocks).
  if (!llvm::sys::fs::is_regular_file(status)) {
    llvm::sys::Process::SafelyCloseFileDescriptor(fd);
    emitError(FileLineColLoc::get(context, path, 0, 0))
        << "not a regular file";
    return nullptr;
  }
  google::protobuf::io::FileInputStream stream(fd, /*block_size=*/1 << 20);
  stream.SetCloseOnDelete(true);
  return parseAndImport(stream, size, path, context, options);
}
