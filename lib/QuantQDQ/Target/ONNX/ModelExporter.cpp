//===- ModelExporter.cpp - a quant_qdq function to an ONNX ModelProto -----===//
//
// The writer's half of export, a translation: after the passes that
// prepare a module (names, weight scales, integer weights,
// convert-quant-qdq-to-onnx), every op is a quant_qdq.generic, written as
// the node it stands for, or a constant, written as an initializer when
// first read. Weights are not copied into the proto: the graph is
// serialized without their data, and the resource bytes are streamed after
// it as additional `initializer` fields, which protobuf merges into the
// same repeated field. Tensor and node names are unique; graph tensors
// carry the names qdq-name-tensors gave them (the ones calibration tables
// use), and tensors the conversion made up (initializers, the insides of
// decomposed layers) get fresh ones.
//
//===----------------------------------------------------------------------===//

#include "ExternalData.h"
#include "KeptNodeConversion.h"
#include "ONNXCommon.h"
#include "QuantQDQ/Conversion/ONNXToQuantQDQ.h"
#include "QuantQDQ/Conversion/Passes.h"
#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/Target/ONNX/ONNX.h"
#include "QuantQDQ/Target/ONNX/ONNXDiagnostics.h"
#include "QuantQDQ/Transforms/Passes.h"
#include "QuantQDQ/Utils/TensorNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>


using namespace mlir;
using namespace mlir::quant_qdq;
using namespace mlir::quant_qdq::onnx_io;

namespace {
/// An initializer whose data is streamed after the graph.
struct StreamedTensor {
  onnx::TensorProto header;
  ArrayRef<char> data;
  /// The data went to the external data file; the header says where.
  bool external = false;
};

/// Feeds protobuf's serializer into an llvm::raw_ostream.
class RawOstreamAdaptor : public google::protobuf::io::CopyingOutputStream {
public:
  explicit RawOstreamAdaptor(llvm::raw_ostream &os) : os(os) {}
  bool Write(const void *buffer, int size) override {
    os.write(static_cast<const char *>(buffer), size);
    return true;
  }

private:
  llvm::raw_ostream &os;
};

class ModelExporter {
public:
  explicit ModelExporter(ModuleOp module) : module(module) {}

  LogicalResult exportFunction(func::FuncOp func);
  /// The model's size on the wire with every tensor inside (to a few bytes
  /// per tensor).
  uint64_t getInlineSize();
  /// Serializes the model to `os`; with `external`, tensors of
  /// kExternalDataThreshold bytes or more go there instead.
  LogicalResult write(llvm::raw_ostream &os, ExternalDataWriter *external);
  /// The model as ONNX's checker needs to see it, without copying weights:
  /// every tensor of kCheckedInlineBytes or more is a graph input of its
  /// type and shape instead of an initializer (its bytes were written
  /// from checked attributes; what the checker judges is the graph).
  onnx::ModelProto getCheckView();

private:
  //===------------------------------------------------------------------===//
  // Names and tensors
  //===------------------------------------------------------------------===//

  std::string claimName(StringRef base) {
    std::string name = base.empty() ? std::string("tensor") : base.str();
    for (unsigned i = 1; !usedNames.insert(name).second; ++i)
      name = (base + "_" + Twine(i)).str();
    return name;
  }

  /// A fresh node name from `base`. Layer names are reserved up front
  /// (reserveLayerNames), so that a generated name (a Q/DQ node named after
  /// its producer, `/Relu` + `_1`) never takes a later layer's own name;
  /// `own` claims a layer's reserved name for that layer.
  std::string claimNodeName(StringRef base, bool own = false) {
    return nodeNames.claimReserved(base, own);
  }

  void reserveLayerNames(func::FuncOp func) {
    func.walk([&](QDQLayerOpInterface layer) {
      if (!layer.getLayerName().empty())
        nodeNames.reserve(layer.getLayerName());
    });
  }

  /// A node name for `op`: its layer name, its location's name, or the ONNX
  /// op type numbered.
  std::string getNodeName(Operation *op, StringRef opType) {
    StringRef base;
    if (auto layer = dyn_cast<QDQLayerOpInterface>(op))
      base = layer.getLayerName();
    if (!base.empty())
      return claimNodeName(base, /*own=*/true);
    base = getLocationName(op->getLoc());
    if (base.empty())
      return claimNodeName((opType + "_" + Twine(nodeCounter++)).str());
    return claimNodeName(base);
  }

  onnx::NodeProto &addNode(StringRef opType, StringRef nodeName,
                           ArrayRef<std::string> inputs,
                           ArrayRef<std::string> outputs) {
    onnx::NodeProto &node = *graph->add_node();
    node.set_op_type(opType.str());
    node.set_name(nodeName.str());
    for (const std::string &in : inputs)
      node.add_input(in);
    for (const std::string &out : outputs)
      node.add_output(out);
    return node;
  }

  /// Adds an initializer holding `value`; resource data is streamed later.
  FailureOr<std::string> addInitializer(StringRef base, ElementsAttr value,
                                        Location loc) {
    std::string name = claimName(base);
    auto resource = dyn_cast<DenseResourceElementsAttr>(value);
    // 4-bit data is packed on the way: it is written from a copy.
    auto type = cast<ShapedType>(value.getType());
    int32_t dataType = getONNXElementType(type.getElementType());
    if (!resource || isNibblePacked(dataType)) {
      onnx::TensorProto &t = *graph->add_initializer();
      t.set_name(name);
      if (failed(exportTensor(value, t, loc)))
        return failure();
      return name;
    }
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob || !dataType)
      return emitError(loc)
             << "constant '" << name << "' has no data or no ONNX type";
    uint64_t expected =
        uint64_t(type.getNumElements()) * getElementByteSize(dataType);
    if (blob->getData().size() != expected)
      return emitError(loc)
             << "resource '" << resource.getRawHandle().getKey() << "' holds "
             << blob->getData().size() << " bytes, " << expected << " expected";
    StreamedTensor &s = streamed.emplace_back();
    s.header.set_name(name);
    s.header.set_data_type(dataType);
    for (int64_t d : type.getShape())
      s.header.add_dims(d);
    s.data = blob->getData();
    return name;
  }

  /// The name of `value`, writing its constant as an initializer on first
  /// use: named after its location, else `unnamedBase()` (the node input
  /// that reads it first, `Clip_3_min`), else `const`.
  FailureOr<std::string>
  getName(Value value, function_ref<std::string()> unnamedBase = {}) {
    auto it = names.find(value);
    if (it != names.end())
      return it->second;
    ElementsAttr constant;
    if (matchPattern(value, m_Constant(&constant))) {
      Operation *def = value.getDefiningOp();
      std::string base = getLocationName(def->getLoc()).str();
      if (base.empty() && unnamedBase)
        base = unnamedBase();
      FailureOr<std::string> name = addInitializer(
          base.empty() ? StringRef("const") : StringRef(base), constant,
          def->getLoc());
      if (failed(name))
        return failure();
      names[value] = *name;
      return *name;
    }
    Location loc = value.getDefiningOp() ? value.getDefiningOp()->getLoc()
                                         : module.getLoc();
    return emitError(loc) << "value has no ONNX tensor (is its producer "
                             "exported?)";
  }

  /// Names the results of `op`'s node `nodeName`: the names
  /// qdq-name-tensors gave them (reserved up front), else
  /// `<node>_output_<i>`.
  SmallVector<std::string> nameResults(Operation *op, StringRef nodeName) {
    SmallVector<std::string> out;
    for (OpResult r : op->getResults()) {
      auto it = names.find(r);
      if (it == names.end()) {
        StringRef given = getTensorName(r);
        it = names
                 .try_emplace(r, !given.empty()
                                     ? given.str()
                                     : claimName((nodeName + "_output_" +
                                                  Twine(r.getResultNumber()))
                                                     .str()))
                 .first;
      }
      out.push_back(it->second);
    }
    return out;
  }

  //===------------------------------------------------------------------===//
  // Ops
  //===------------------------------------------------------------------===//

  LogicalResult exportOp(Operation *op);
  LogicalResult exportGeneric(GenericOp op);
  /// Brings the nodes kept from the model into the model's opset.
  LogicalResult convertKeptNodes(func::FuncOp func);

  /// Writes `type` into `info` (element type, and the shape of a ranked
  /// tensor: dynamic dimensions named by `dimParams` where it names them);
  /// false when the element type has no ONNX form.
  static bool setTensorType(onnx::ValueInfoProto &info, Type type,
                            ArrayAttr dimParams = {}) {
    int32_t elemType = getONNXElementType(getElementTypeOrSelf(type));
    if (!elemType)
      return false;
    auto &tensor = *info.mutable_type()->mutable_tensor_type();
    tensor.set_elem_type(elemType);
    auto ranked = dyn_cast<RankedTensorType>(type);
    if (!ranked)
      return true;
    auto &shape = *tensor.mutable_shape();
    for (auto [i, d] : llvm::enumerate(ranked.getShape())) {
      auto &dim = *shape.add_dim();
      StringRef param;
      if (dimParams && i < dimParams.size())
        if (auto s = dyn_cast<StringAttr>(dimParams[i]))
          param = s.getValue();
      if (!ShapedType::isDynamic(d))
        dim.set_dim_value(d);
      else if (!param.empty())
        dim.set_dim_param(param.str());
    }
    return true;
  }

  LogicalResult setValueInfo(onnx::ValueInfoProto &info, Value v,
                             ArrayAttr dimParams, Location loc) {
    if (!setTensorType(info, v.getType(), dimParams))
      return emitError(loc) << "graph input or output of type " << v.getType()
                            << " has no ONNX tensor type";
    return success();
  }

  ModuleOp module;
  onnx::ModelProto model;
  onnx::GraphProto *graph = model.mutable_graph();
  int64_t opset = kDefaultOpsetVersion;
  llvm::DenseMap<Value, std::string> names;
  llvm::StringSet<> usedNames;
  UniqueNames nodeNames;
  std::vector<StreamedTensor> streamed;
  /// Nodes kept from the model, written for another opset.
  KeptNodes kept;
  unsigned nodeCounter = 0;
};
} // namespace

LogicalResult ModelExporter::exportGeneric(GenericOp op) {
  std::string nodeName = getNodeName(op, op.getOpType());
  // The node's domain and the opset the module imports for it (or, for a
  // node kept from the model, the one it was written for), for its schema.
  StringRef domain = op.getDomain() ? *op.getDomain() : StringRef();
  int64_t version = opset;
  if (auto opsets = module->getAttrOfType<DictionaryAttr>(kOpsetImport))
    if (auto v = opsets.getAs<IntegerAttr>(
            domain.empty() ? StringRef(kDefaultDomain) : domain))
      version = v.getInt();
  auto keptFrom = op->getAttrOfType<IntegerAttr>(kKeptNodeOpset);
  if (keptFrom)
    version = keptFrom.getInt();
  auto omittedIn = op->getAttrOfType<DenseI64ArrayAttr>(kOmittedInputs);
  auto omittedOut = op->getAttrOfType<DenseI64ArrayAttr>(kOmittedOutputs);
  auto captures = op->getAttrOfType<ArrayAttr>(kCaptures);
  unsigned numCaptures = captures ? captures.size() : 0;
  if (numCaptures > op.getInputs().size())
    return op.emitError("'") << kCaptures
                             << "' lists more names than the "
                                "op has operands";
  unsigned numInputs = op.getInputs().size() - numCaptures;

  // Inputs, with "" where the node omitted one.
  SmallVector<std::string> inputs;
  unsigned next = 0;
  auto isOmitted = [](DenseI64ArrayAttr attr, int64_t i) {
    return attr && llvm::is_contained(attr.asArrayRef(), i);
  };
  // Trailing omitted inputs are written too: Loop's schema counts its
  // omitted condition.
  for (int64_t slot = 0; next < numInputs || isOmitted(omittedIn, slot);
       ++slot) {
    if (isOmitted(omittedIn, slot)) {
      inputs.push_back("");
      continue;
    }
    FailureOr<std::string> n = getName(op.getInputs()[next++], [&] {
      std::string input =
          getSchemaInputName(op.getOpType(), domain, version, slot);
      return nodeName + "_" +
             (input.empty() ? "input_" + std::to_string(slot) : input);
    });
    if (failed(n))
      return failure();
    inputs.push_back(*n);
  }

  // Subgraphs read outer tensors by name: give those values their names.
  for (unsigned i = 0; i < numCaptures; ++i) {
    auto captured = dyn_cast<StringAttr>(captures[i]);
    FailureOr<std::string> n = getName(op.getInputs()[numInputs + i]);
    if (!captured || failed(n))
      return failure();
    if (*n != captured.getValue()) {
      if (!usedNames.insert(captured.getValue()).second)
        return op.emitError("captured tensor name '")
               << captured.getValue() << "' is taken by another tensor";
      addNode("Identity", claimNodeName(nodeName + "_capture"), {*n},
              {captured.getValue().str()});
    }
  }

  SmallVector<std::string> outputs = nameResults(op, nodeName);
  for (auto [i, out] : llvm::enumerate(outputs))
    if (isOmitted(omittedOut, i) && op->getResult(i).use_empty())
      out.clear();
  if (keptFrom)
    kept.nodes.emplace_back(graph->node_size(), keptFrom.getInt());
  onnx::NodeProto &node = addNode(op.getOpType(), nodeName, inputs, outputs);
  if (op.getDomain())
    node.set_domain(op.getDomain()->str());
  if (DictionaryAttr attrs = op.getLayerAttributesAttr()) {
    for (NamedAttribute attr : attrs) {
      int schemaType = 0;
      if (auto array = dyn_cast<ArrayAttr>(attr.getValue());
          array && array.empty())
        schemaType = getSchemaAttributeType(op.getOpType(), domain, version,
                                            attr.getName().getValue());
      if (failed(exportAttribute(attr.getName().getValue(), attr.getValue(),
                                 *node.add_attribute(), op.getLoc(),
                                 schemaType)))
        return failure();
    }
  }
  return success();
}

LogicalResult ModelExporter::exportOp(Operation *op) {
  // Constants are written as initializers when first read.
  if (isa<arith::ConstantOp>(op))
    return success();
  if (auto generic = dyn_cast<GenericOp>(op))
    return exportGeneric(generic);
  return op->emitError("'") << op->getName()
                            << "' has no ONNX form; export supports "
                               "quant_qdq layer and Q/DQ ops and "
                               "arith.constant";
}

//===----------------------------------------------------------------------===//
// The model
//===----------------------------------------------------------------------===//

LogicalResult ModelExporter::exportFunction(func::FuncOp func) {
  if (!func.getBody().hasOneBlock())
    return func.emitError("export needs a function with one block");
  reserveLayerNames(func);
  // Graph tensors carry their names: made-up ones must not take them.
  nameTensors(func);
  for (BlockArgument arg : func.getArguments())
    usedNames.insert(getTensorName(arg));
  for (Operation &op : func.getBody().front())
    for (Value result : op.getResults())
      if (StringRef name = getTensorName(result); !name.empty())
        usedNames.insert(name);

  // Opsets: the module's (convert-quant-qdq-to-onnx raised the default
  // domain's where Q/DQ need it).
  auto opsets = module->getAttrOfType<DictionaryAttr>(kOpsetImport);
  if (opsets)
    if (auto v = opsets.getAs<IntegerAttr>(kDefaultDomain))
      opset = v.getInt();
  bool hasQDQ = false;
  func.walk([&](GenericOp op) {
      hasQDQ |= op.isDefaultDomainNode("QuantizeLinear") ||
              op.isDefaultDomainNode("DequantizeLinear");
  });
  llvm::StringMap<int64_t> domains;
  if (opsets)
    for (NamedAttribute entry : opsets)
      if (auto v = dyn_cast<IntegerAttr>(entry.getValue()))
        domains[entry.getName() == kDefaultDomain
                    ? StringRef()
                    : entry.getName().getValue()] = v.getInt();
  domains[""] = opset;
  WalkResult missingDomain = func.walk([&](GenericOp op) {
    if (op.getDomain() && !op.getDomain()->empty() &&
        !domains.count(*op.getDomain())) {
      op.emitError("domain '")
          << *op.getDomain() << "' is not in the module's '" << kOpsetImport
          << "'";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (missingDomain.wasInterrupted())
    return failure();
  // Sorted, so that the output is stable.
  SmallVector<std::pair<std::string, int64_t>> sortedDomains;
  for (auto &entry : domains)
    sortedDomains.emplace_back(entry.getKey().str(), entry.getValue());
  llvm::sort(sortedDomains);
  for (auto &[domain, version] : sortedDomains) {
    onnx::OperatorSetIdProto &id = *model.add_opset_import();
    id.set_domain(domain);
    id.set_version(version);
  }

  // Model fields the importer kept.
  auto getString = [&](StringRef attr, StringRef fallback) {
    if (auto s = module->getAttrOfType<StringAttr>(attr))
      return s.getValue().str();
    return fallback.str();
  };
  // At least the IR version that the opset (and so its types: FLOAT8 from
  // opset 19, INT4 from 21) came with.
  int64_t minimumIR = opset >= 21   ? 10
                      : opset >= 19 ? 9
                      : opset >= 15 ? 8
                      : hasQDQ      ? 7
                                    : 3;
  int64_t irVersion = std::max<int64_t>(8, minimumIR);
  if (auto v = module->getAttrOfType<IntegerAttr>(kIrVersion))
    irVersion = std::max<int64_t>(v.getInt(), minimumIR);
  model.set_ir_version(irVersion);
  model.set_producer_name(getString(kProducerName, "quant-qdq"));
  model.set_producer_version(getString(kProducerVersion, ""));
  model.set_domain(getString(kModelDomain, ""));
  model.set_doc_string(getString(kDocString, ""));
  if (auto v = module->getAttrOfType<IntegerAttr>(kModelVersion))
    model.set_model_version(v.getInt());
  if (auto props = module->getAttrOfType<DictionaryAttr>(kMetadataProps))
    for (NamedAttribute p : props)
      if (auto s = dyn_cast<StringAttr>(p.getValue())) {
        onnx::StringStringEntryProto &entry = *model.add_metadata_props();
        entry.set_key(p.getName().getValue().str());
        entry.set_value(s.getValue().str());
      }
  graph->set_name(getString(kGraphName, func.getName()));
  graph->set_doc_string(getString(kGraphDocString, ""));

  // Inputs.
  for (BlockArgument arg : func.getArguments()) {
    unsigned i = arg.getArgNumber();
    std::string n = getTensorName(arg).str();
    names[arg] = n;
    onnx::ValueInfoProto &info = *graph->add_input();
    info.set_name(n);
    if (failed(setValueInfo(info, arg,
                            func.getArgAttrOfType<ArrayAttr>(i, kDimParams),
                            func.getLoc())))
      return failure();
  }

  // Outputs keep their names: the values they return carry them already
  // (qdq-name-tensors); an input, a constant or a value returned twice gets
  // an Identity below.
  auto returnOp = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  SmallVector<std::string> outputNames;
  for (auto [i, v] : llvm::enumerate(returnOp.getOperands())) {
    auto name = func.getResultAttrOfType<StringAttr>(i, kValueName);
    std::string want =
        name ? name.getValue().str() : "output_" + std::to_string(i);
    bool carried = getTensorName(v) == want &&
                   llvm::count(outputNames, want) == 0 &&
                   !isa<BlockArgument>(v);
    outputNames.push_back(carried ? want : claimName(want));
  }

  for (Operation &op : func.getBody().front().without_terminator())
    if (failed(exportOp(&op)))
      return failure();

  for (auto [i, v] : llvm::enumerate(returnOp.getOperands())) {
    FailureOr<std::string> n = getName(v);
    if (failed(n))
      return failure();
    if (*n != outputNames[i])
      addNode("Identity", claimNodeName(outputNames[i] + "_identity"), {*n},
              {outputNames[i]});
    onnx::ValueInfoProto &info = *graph->add_output();
    info.set_name(outputNames[i]);
    if (failed(setValueInfo(info, v, {}, returnOp.getLoc())))
      return failure();
  }
  return convertKeptNodes(func);
}

LogicalResult ModelExporter::convertKeptNodes(func::FuncOp func) {
  if (kept.nodes.empty())
    return success();
  std::vector<onnx::TensorProto> elsewhere;
  for (const StreamedTensor &t : streamed)
    elsewhere.push_back(t.header);
  std::vector<onnx::ValueInfoProto> valueTypes;
  func.walk([&](GenericOp op) {
    for (OpResult result : op->getResults()) {
      auto it = names.find(result);
      if (it == names.end() || it->second.empty() ||
          !isa<RankedTensorType>(result.getType()))
        continue;
      onnx::ValueInfoProto info;
      info.set_name(it->second);
      if (setTensorType(info, result.getType()))
        valueTypes.push_back(std::move(info));
    }
  });
  return onnx_io::convertKeptNodes(model, kept, elsewhere, valueTypes,
                                   func.getLoc());
}

/// Initializers up to this size stay in the checked view: shapes, axes and
/// the other small constants that inference reads.
static constexpr size_t kCheckedInlineBytes = 1 << 16;

onnx::ModelProto ModelExporter::getCheckView() {
  SmallVector<const onnx::TensorProto *> streamedHeaders;
  for (const StreamedTensor &t : streamed)
    streamedHeaders.push_back(&t.header);
  onnx::ModelProto view = copyWithoutWeights(
      model,
      [](const onnx::TensorProto &init) {
        return init.raw_data().size() >= kCheckedInlineBytes;
      },
      streamedHeaders);
  onnx::GraphProto &viewGraph = *view.mutable_graph();
  // A custom-domain node's output may have no known rank (nothing here
  // infers it), which ONNX Runtime accepts: such an output is checked as
  // if it had one. Any other output of unknown rank fails the check.
  llvm::StringSet<> customOutputs;
  for (const onnx::NodeProto &node : viewGraph.node())
    if (!onnx_io::isDefaultDomain(node.domain()))
      customOutputs.insert(node.output().begin(), node.output().end());
  for (onnx::ValueInfoProto &output : *viewGraph.mutable_output())
    if (output.type().has_tensor_type() &&
        !output.type().tensor_type().has_shape() &&
        customOutputs.contains(output.name()))
      output.mutable_type()->mutable_tensor_type()->mutable_shape();
  return view;
}

uint64_t ModelExporter::getInlineSize() {
  uint64_t size = model.ByteSizeLong();
  for (const StreamedTensor &t : streamed)
    size += t.header.ByteSizeLong() + t.data.size() + 32;
  return size;
}

LogicalResult ModelExporter::write(llvm::raw_ostream &os,
                                   ExternalDataWriter *external) {
  namespace io = google::protobuf::io;
  using WireFormat = google::protobuf::internal::WireFormatLite;

  if (external) {
    // Large tensors go to the data file; their headers, which now say
    // where, are ordinary initializers.
    for (onnx::TensorProto &init : *graph->mutable_initializer())
      if (init.raw_data().size() >= kExternalDataThreshold) {
        external->write(ArrayRef<char>(init.raw_data().data(),
                                       init.raw_data().size()),
                        init);
        init.clear_raw_data();
      }
    for (StreamedTensor &t : streamed)
      if (t.data.size() >= kExternalDataThreshold) {
        external->write(t.data, t.header);
        *graph->add_initializer() = t.header;
        t.external = true;
      }
  }

  // The model without its graph is serialized as usual; the graph is
  // written by hand around the streamed tensors. ByteSizeLong caches the
  // sizes that SerializeWithCachedSizes then uses, so it runs last on each
  // message before writing.
  onnx::GraphProto graphBody;
  graphBody.Swap(graph);
  model.clear_graph();
  graph = nullptr;

  // The graph's size on the wire: its fields plus the streamed tensors.
  auto fieldSize = [](size_t bodySize) {
    return 1 + io::CodedOutputStream::VarintSize64(bodySize) + bodySize;
  };
  uint64_t graphSize = graphBody.ByteSizeLong();
  std::vector<size_t> headerSizes;
  for (StreamedTensor &t : streamed) {
    if (t.external) {
      headerSizes.push_back(0);
      continue;
    }
    size_t header = t.header.ByteSizeLong();
    headerSizes.push_back(header);
    graphSize += fieldSize(header + fieldSize(t.data.size()));
  }
  uint64_t total = model.ByteSizeLong() + fieldSize(graphSize);
  if (total > uint64_t(std::numeric_limits<int>::max()))
    return emitError(module.getLoc())
           << "the model is " << total
           << " bytes; protobuf limits a model to 2 GiB: keep its tensors "
              "in external data (a file export does, unless "
              "--onnx-external-data=never)";

  RawOstreamAdaptor adaptor(os);
  io::CopyingOutputStreamAdaptor zeroCopy(&adaptor);
  {
    io::CodedOutputStream out(&zeroCopy);
    model.SerializeWithCachedSizes(&out);
    out.WriteTag(WireFormat::MakeTag(onnx::ModelProto::kGraphFieldNumber,
                                     WireFormat::WIRETYPE_LENGTH_DELIMITED));
    out.WriteVarint64(graphSize);
    graphBody.SerializeWithCachedSizes(&out);
    for (auto [t, header] : llvm::zip(streamed, headerSizes)) {
      if (t.external)
        continue;
      out.WriteTag(
          WireFormat::MakeTag(onnx::GraphProto::kInitializerFieldNumber,
                              WireFormat::WIRETYPE_LENGTH_DELIMITED));
      out.WriteVarint64(header + fieldSize(t.data.size()));
      t.header.SerializeWithCachedSizes(&out);
      out.WriteTag(WireFormat::MakeTag(onnx::TensorProto::kRawDataFieldNumber,
                                       WireFormat::WIRETYPE_LENGTH_DELIMITED));
      out.WriteVarint64(t.data.size());
      out.WriteRaw(t.data.data(), int(t.data.size()));
    }
    if (out.HadError())
      return emitError(module.getLoc()) << "failed to write the model";
  }
  zeroCopy.Flush();
  return success();
}

//===----------------------------------------------------------------------===//
// Entry point
//===----------------------------------------------------------------------===//

/// The oldest opset export writes.
static constexpr int64_t kOldestExportOpset = 7;

namespace {
/// A module made ready for ONNX: a prepared copy and its translation.
struct PreparedExport {
  OwningOpRef<ModuleOp> copy;
  std::unique_ptr<ModelExporter> exporter;
};
} // namespace

/// The node a checker message names ("node 'n' (Conv): ..." or "(op_type:
/// Gather, node name: n): ..."), or empty.
static StringRef getCheckedNodeName(StringRef message) {
  for (auto [lead, end] : {std::pair{StringRef("node '"), StringRef("'")},
                           std::pair{StringRef("node name: "), StringRef(")")}})
    if (size_t at = message.find(lead); at != StringRef::npos) {
      StringRef rest = message.drop_front(at + lead.size());
      return rest.take_until([&](char c) { return end.contains(c); });
    }
  return {};
}

/// Where a diagnostic about the node `name` points: the op of that layer
/// or location name in `func`, or `func`.
static Location findNamedOp(func::FuncOp func, StringRef name) {
  Location found = func.getLoc();
  if (name.empty())
    return found;
  func.walk([&](Operation *op) {
    auto layer = dyn_cast<QDQLayerOpInterface>(op);
    if ((layer && layer.getLayerName() == name) ||
        getONNXNameInLocation(op->getLoc()) == name) {
      found = op->getLoc();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

/// Runs the passes that prepare `module` for ONNX, on a copy (export does
/// not change its input; the copy shares the weights' resource blobs), and
/// translates the copy. Every check happens here, before a byte is written.
static FailureOr<PreparedExport>
prepareExport(ModuleOp module, const ONNXExportOptions &options) {
  func::FuncOp func = module.lookupSymbol<func::FuncOp>("main");
  if (!func || func.isExternal()) {
    SmallVector<func::FuncOp> defined;
    for (auto f : module.getOps<func::FuncOp>())
      if (!f.isExternal())
        defined.push_back(f);
    if (defined.size() != 1)
      return module.emitError("export needs a function @main, or exactly one "
                              "function with a body");
    func = defined.front();
  }

  // Broadcasting became NumPy's in opset 7, which is what the patterns
  // write.
  if (options.opset &&
      (options.opset < kOldestExportOpset ||
       options.opset > getLibraryOpsetLimit()))
    return module.emitError("opset ")
           << options.opset << " is outside the " << kOldestExportOpset
           << " to " << getLibraryOpsetLimit() << " that export writes";

  // Names first, so that a weight stored quantized keeps its tensor's name.
  PreparedExport prepared;
  prepared.copy = module.clone();
  func::FuncOp copyFunc =
      prepared.copy->lookupSymbol<func::FuncOp>(func.getName());
  PassManager pm(module.getContext());
  pm.addPass(createNameTensors());
  pm.addPass(createWeightScales(WeightScalesOptions{options.activationAmax}));
  if (options.integerWeights)
    pm.addPass(createQuantizeWeights());
  pm.addPass(createConvertQuantQDQToONNX({options.opset, options.matmulNBits}));
  if (failed(pm.run(*prepared.copy)))
    return failure();

  prepared.exporter = std::make_unique<ModelExporter>(*prepared.copy);
  if (failed(prepared.exporter->exportFunction(copyFunc)))
    return failure();
  // What ONNX refuses is never written: ONNX Runtime would refuse it too.
  onnx::ModelProto view = prepared.exporter->getCheckView();
  for (const onnx::ValueInfoProto &output : view.graph().output())
    if (output.type().has_tensor_type() &&
        !output.type().tensor_type().has_shape())
      return emitError(func.getLoc())
             << "graph output '" << output.name()
             << "' has no known rank (the shapes before it could not be "
                "inferred), and ONNX requires one of a graph output, so the "
                "model is not written";
  if (std::string error = checkWrittenModel(view); !error.empty())
    return emitError(findNamedOp(func, getCheckedNodeName(error)))
           << "the ONNX model fails ONNX's full checker, so it is not "
              "written: "
           << error;
  return prepared;
}

LogicalResult mlir::quant_qdq::exportONNX(ModuleOp module,
                                          llvm::raw_ostream &os,
                                          const ONNXExportOptions &options) {
  if (options.externalData == ONNXExternalData::Always)
    return emitError(module.getLoc())
           << "external data needs the model written to a file, next to "
              "which the data goes";
  FailureOr<PreparedExport> prepared = prepareExport(module, options);
  if (failed(prepared))
    return failure();
  return prepared->exporter->write(os, /*external=*/nullptr);
}

/// Flushes `file`'s stream, failing with a diagnostic at `loc` when a write
/// failed (a full disk); the file is then deleted, not kept.
static LogicalResult finishFile(llvm::ToolOutputFile &file, Location loc) {
  file.os().flush();
  if (!file.os().has_error())
    return success();
  std::error_code ec = file.os().error();
  file.os().clear_error();
  return emitError(loc) << "cannot write '" << file.getFilename()
                        << "': " << ec.message();
}

LogicalResult mlir::quant_qdq::exportONNXFile(
    ModuleOp module, StringRef path, const ONNXExportOptions &options) {
  FailureOr<PreparedExport> prepared = prepareExport(module, options);
  if (failed(prepared))
    return failure();
  ModelExporter &exporter = *prepared->exporter;
  bool external = false;
  switch (options.externalData) {
  case ONNXExternalData::Always:
    external = true;
    break;
  case ONNXExternalData::Never:
    break;
  case ONNXExternalData::Auto:
    external = module->hasAttr(kExternalData) ||
               exporter.getInlineSize() >
                   uint64_t(std::numeric_limits<int>::max());
    break;
  }
  Location loc = module.getLoc();
  if (external && path == "-")
    return emitError(loc) << "external data needs the model written to a "
                             "file, not to stdout";

  std::string errorMessage;
  std::unique_ptr<llvm::ToolOutputFile> modelFile =
      openOutputFile(path, &errorMessage);
  if (!modelFile)
    return emitError(loc) << errorMessage;
  std::unique_ptr<llvm::ToolOutputFile> dataFile;
  std::optional<ExternalDataWriter> writer;
  if (external) {
    std::string dataPath = (path + ".data").str();
    dataFile = openOutputFile(dataPath, &errorMessage);
    if (!dataFile)
      return emitError(loc) << errorMessage;
    writer.emplace(dataFile->os(),
                   (llvm::sys::path::filename(path) + ".data").str());
  }
  if (failed(exporter.write(modelFile->os(), writer ? &*writer : nullptr)) ||
      failed(finishFile(*modelFile, loc)) ||
      (dataFile && failed(finishFile(*dataFile, loc))))
    return failure();
  modelFile->keep();
  // No tensor was large enough: no empty data file beside the model.
  if (dataFile && writer->size() != 0)
    dataFile->keep();
  return success();
}
