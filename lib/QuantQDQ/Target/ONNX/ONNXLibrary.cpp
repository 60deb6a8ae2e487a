//===- ONNXLibrary.cpp - calls into the ONNX library, exceptions caught ---===//
//
// The ONNX library reports errors by throwing; LLVM code is built without
// exceptions. This file alone is compiled with -fexceptions (see
// CMakeLists.txt) and turns every exception into a message, so that no
// exception crosses into the rest of the tool.
//
//===----------------------------------------------------------------------===//

#include "IsolatedProcess.h"
#include "ONNXCommon.h"

#include "onnx/checker.h"
#include "onnx/defs/function.h"
#include "onnx/defs/schema.h"
#include "onnx/shape_inference/implementation.h"
#include "onnx/version_converter/convert.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <cstdlib>
#include <exception>
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>

using namespace mlir::quant_qdq;

/// ONNX Runtime's com.microsoft MatMulNBits (int4 weights in blocks along
/// K, what its quantizer and onnxruntime-genai write), registered so that
/// ONNX's shape inference types what follows such a node at import and in
/// qdq-run: Y = A[..., K] x B^T, [..., N], of A's element type.
static void registerMatMulNBitsSchema() {
  using onnx::AttributeProto;
  using onnx::OpSchema;
  onnx::OpSchemaRegistry::DomainToVersionRange::Instance().AddDomainToVersion(
      "com.microsoft", 1, 1);
  OpSchema schema;
  schema.SetName("MatMulNBits")
      .SetDomain("com.microsoft")
      .SinceVersion(1)
      .Input(0, "A", "", "T1")
      .Input(1, "B", "", "T2")
      .Input(2, "scales", "", "T1")
      .Input(3, "zero_points", "", "T3", OpSchema::Optional)
      .Input(4, "g_idx", "", "T4", OpSchema::Optional)
      .Input(5, "bias", "", "T1", OpSchema::Optional)
      .Output(0, "Y", "", "T1")
      .Attr("K", "", AttributeProto::INT)
      .Attr("N", "", AttributeProto::INT)
      .Attr("bits", "", AttributeProto::INT, int64_t(4))
      .Attr("block_size", "", AttributeProto::INT)
      .Attr("accuracy_level", "", AttributeProto::INT, int64_t(0))
      .TypeConstraint(
          "T1", {"tensor(float)", "tensor(float16)", "tensor(bfloat16)"}, "")
      .TypeConstraint("T2", {"tensor(uint8)", "tensor(int32)"}, "")
      .TypeConstraint("T3",
                      {"tensor(uint8)", "tensor(int32)", "tensor(float)",
                       "tensor(float16)", "tensor(bfloat16)"},
                      "")
      .TypeConstraint("T4", {"tensor(int32)"}, "")
      .TypeAndShapeInferenceFunction([](onnx::InferenceContext &ctx) {
        onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
        const onnx::AttributeProto *n = ctx.getAttribute("N");
        if (!n || !onnx::hasInputShape(ctx, 0))
          return;
        onnx::TensorShapeProto shape = onnx::getInputShape(ctx, 0);
        if (shape.dim_size() == 0)
          return;
        shape.mutable_dim(shape.dim_size() - 1)->set_dim_value(n->i());
        onnx::updateOutputShape(ctx, 0, shape);
      });
  onnx::RegisterSchema(std::move(schema));
}

namespace {
/// Registers the contrib schemas once per process, before any use of the
/// library (and so before the isolated processes fork from this one).
struct ContribSchemas {
  ContribSchemas() {
    try {
      registerMatMulNBitsSchema();
    } catch (const std::exception &) {
      // A library that knows the domain already keeps its own.
    }
  }
} contribSchemas;
} // namespace

/// Runs ONNX shape inference in this process.
static std::string inferModelShapes(onnx::ModelProto &model) {
  try {
    onnx::ShapeInferenceOptions options(/*check_type_val=*/false,
                                        /*strict_mode_val=*/0,
                                        /*data_prop_val=*/false);
    onnx::shape_inference::InferShapes(
        model, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception &e) {
    return e.what();
  } catch (...) {
    return "unknown error in ONNX shape inference";
  }
  return {};
}

/// ONNX's checker on `model` (with `fullCheck`, its strict shape inference
/// too), except that, with `relaxRankless`, a graph input or output of
/// unknown rank (no shape, which ONNX Runtime accepts and a custom-domain
/// producer leaves) passes the shape requirement. The model is left as it
/// was.
static std::string checkModel(onnx::ModelProto &model, bool fullCheck = false,
                              bool relaxRankless = true) {
  std::vector<onnx::TypeProto_Tensor *> rankless;
  onnx::GraphProto &graph = *model.mutable_graph();
  for (auto *infos : {graph.mutable_input(), graph.mutable_output()})
    for (onnx::ValueInfoProto &info : *infos)
      if (relaxRankless && info.type().has_tensor_type() &&
          !info.type().tensor_type().has_shape()) {
        rankless.push_back(info.mutable_type()->mutable_tensor_type());
        rankless.back()->mutable_shape();
      }
  std::string error;
  try {
    onnx::checker::check_model(model, fullCheck);
  } catch (const std::exception &e) {
    error = e.what();
  } catch (...) {
    error = "unknown error in the ONNX checker";
  }
  for (onnx::TypeProto_Tensor *type : rankless)
    type->clear_shape();
  return error;
}

/// Constant inputs up to this many elements are handed to a node's
/// inference (shapes, axes), never weights.
static constexpr int64_t kMaxCheckData = 1 << 16;

/// Elements of a tensor of `dims`, saturated at INT64_MAX.
static int64_t countElements(
    const google::protobuf::RepeatedField<int64_t> &dims) {
  int64_t elements = 1;
  for (int64_t d : dims) {
    if (d <= 0)
      return 0;
    if (elements > std::numeric_limits<int64_t>::max() / d)
      return std::numeric_limits<int64_t>::max();
    elements *= d;
  }
  return elements;
}

/// A copy of `node` for its inference function, which reads a tensor
/// attribute's type and dims, not its data (Constant): a large one comes
/// without its data.
static onnx::NodeProto copyForInference(const onnx::NodeProto &node) {
  onnx::NodeProto copy;
  copy.set_name(node.name());
  copy.set_op_type(node.op_type());
  copy.set_domain(node.domain());
  *copy.mutable_input() = node.input();
  *copy.mutable_output() = node.output();
  for (const onnx::AttributeProto &attr : node.attribute()) {
    onnx::AttributeProto *kept = copy.add_attribute();
    if (attr.type() != onnx::AttributeProto::TENSOR ||
        countElements(attr.t().dims()) <= kMaxCheckData) {
      *kept = attr;
      continue;
    }
    kept->set_name(attr.name());
    kept->set_type(attr.type());
    kept->mutable_t()->set_data_type(attr.t().data_type());
    *kept->mutable_t()->mutable_dims() = attr.t().dims();
  }
  return copy;
}

/// The first node (after whole-model inference) that its own inference
/// function rejects, as strict inference would, and why. Nodes with
/// subgraphs (If, Loop, Scan) are inferred with the types of the enclosing
/// scope, so that a body of the wrong arity is found.
static std::pair<int, std::string> findRejectedNode(onnx::ModelProto &model) {
  int64_t opset = onnx_io::getDefaultDomainOpset(model);
  std::unordered_map<std::string, int> opsets;
  for (const onnx::OperatorSetIdProto &id : model.opset_import())
    opsets[id.domain() == onnx_io::kDefaultDomain ? "" : id.domain()] =
        int(id.version());
  if (opset <= 0)
    return {-1, {}};
  const onnx::GraphProto &graph = model.graph();
  std::unordered_map<std::string, onnx::TypeProto> types;
  std::unordered_map<std::string, const onnx::TensorProto *> data;
  for (const auto *infos : {&graph.input(), &graph.value_info()})
    for (const onnx::ValueInfoProto &info : *infos)
      if (info.type().has_tensor_type() &&
          info.type().tensor_type().has_shape())
        types[info.name()] = info.type();
  for (const onnx::TensorProto &init : graph.initializer()) {
    onnx::TypeProto type;
    auto *tensor = type.mutable_tensor_type();
    tensor->set_elem_type(init.data_type());
    for (int64_t d : init.dims())
      tensor->mutable_shape()->add_dim()->set_dim_value(d);
    types[init.name()] = type;
    if (countElements(init.dims()) <= kMaxCheckData)
      data[init.name()] = &init;
  }
  // What a subgraph may capture: every typed value of the graph.
  std::unordered_map<std::string, onnx::TypeProto *> scope;
  for (auto &[name, type] : types)
    scope[name] = &type;
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto &node = graph.node(i);
    if (!onnx_io::isDefaultDomain(node.domain()))
      continue;
    std::vector<onnx::TypeProto *> inputTypes;
    std::vector<const onnx::TensorProto *> inputData;
    bool allKnown = true;
    for (const std::string &name : node.input()) {
      if (name.empty()) {
        inputTypes.push_back(nullptr);
        inputData.push_back(nullptr);
        continue;
      }
      auto it = types.find(name);
      allKnown &= it != types.end();
      inputTypes.push_back(it != types.end() ? &it->second : nullptr);
      auto known = data.find(name);
      inputData.push_back(known != data.end() ? known->second : nullptr);
    }
    // With an input of unknown type a function fails on the model's gap,
    // not on the node.
    if (!allKnown)
      continue;
    onnx::NodeProto copy = copyForInference(node);
    std::vector<onnx::TypeProto> outputTypes;
    std::string error = onnx_io::inferNodeTypes(
        copy, opset, inputTypes, inputData, outputTypes,
        onnx_io::SubgraphScope{&scope, &opsets});
    if (!error.empty())
      return {i, error};
  }
  return {-1, {}};
}

onnx::ModelProto onnx_io::copyWithoutWeights(
    onnx::ModelProto &model,
    llvm::function_ref<bool(const onnx::TensorProto &)> isWeight,
    llvm::ArrayRef<const onnx::TensorProto *> moreWeights) {
  // The model but its initializers, copied; then the others.
  onnx::GraphProto &graph = *model.mutable_graph();
  google::protobuf::RepeatedPtrField<onnx::TensorProto> initializers;
  initializers.Swap(graph.mutable_initializer());
  onnx::ModelProto view = model;
  initializers.Swap(graph.mutable_initializer());
  onnx::GraphProto &viewGraph = *view.mutable_graph();
  std::unordered_set<std::string> inputs;
  for (const onnx::ValueInfoProto &input : viewGraph.input())
    inputs.insert(input.name());
  auto addInput = [&](const onnx::TensorProto &tensor) {
    if (!inputs.insert(tensor.name()).second)
      return;
    onnx::ValueInfoProto &input = *viewGraph.add_input();
    input.set_name(tensor.name());
    auto *type = input.mutable_type()->mutable_tensor_type();
    type->set_elem_type(tensor.data_type());
    auto *shape = type->mutable_shape();
    for (int64_t d : tensor.dims())
      shape->add_dim()->set_dim_value(d);
  };
  for (const onnx::TensorProto &init : graph.initializer()) {
    if (isWeight(init))
      addInput(init);
    else
      *viewGraph.add_initializer() = init;
  }
  for (const onnx::TensorProto *tensor : moreWeights)
    addInput(*tensor);
  return view;
}

static onnx_io::ShapeInferenceResult
inferShapesInProcess(onnx::ModelProto &model) {
  onnx_io::ShapeInferenceResult result;
  result.error = inferModelShapes(model);
  // After inference, which gives graph outputs the shapes it finds.
  result.checkError = checkModel(model);
  if (result.error.empty() && result.checkError.empty())
    std::tie(result.badNode, result.nodeError) = findRejectedNode(model);
  // What only ONNX's full check finds (strict inference against the types
  // the model declares: a value_info of another rank than its producer
  // gives) comes last, after the checks that name the node.
  if (result.checkError.empty() && result.badNode < 0) {
    // Without the copy of every weight the check would make.
    onnx::ModelProto view =
        onnx_io::copyWithoutWeights(model, [](const onnx::TensorProto &init) {
          return countElements(init.dims()) > kMaxCheckData;
        });
    result.checkError = checkModel(view, /*fullCheck=*/true);
  }
  return result;
}

// ONNX's shape inference is not safe on hostile input: fuzzing found
// segmentation faults (Conv with an extra output, Conv on an input of
// another rank than its weight) and non-termination (pooling over a 2^40
// dimension) in ONNX 1.12. Whole-model inference and the checker run in a
// forked child that sends back the inferred value_info; a crash or a
// time-out costs the intermediate shapes, never the tool. Replies: "0" and
// the inferred value_info, "1" and an error, "2", the rejected node's
// index, a newline and why, or "3" and why the checker rejects the model.
onnx_io::ShapeInferenceResult onnx_io::inferShapes(onnx::ModelProto &model) {
  ChildReply child = runIsolated(
      [&] {
        ShapeInferenceResult result = inferShapesInProcess(model);
        if (!result.checkError.empty())
          return "3" + result.checkError;
        if (!result.error.empty())
          return "1" + result.error;
        if (result.badNode >= 0)
          return "2" + std::to_string(result.badNode) + "\n" +
                 result.nodeError;
        onnx::GraphProto inferred;
        *inferred.mutable_value_info() = model.graph().value_info();
        return "0" + inferred.SerializeAsString();
      },
      "ONNX shape inference", /*timeoutMs=*/60000);
  ShapeInferenceResult result;
  const std::string &reply = child.reply;
  if (!child.failure.empty()) {
    result.error = child.failure;
    return result;
  }
  if (reply[0] == '1' || reply[0] == '3') {
    (reply[0] == '1' ? result.error : result.checkError) = reply.substr(1);
    return result;
  }
  if (reply[0] == '2') {
    size_t newline = reply.find('\n');
    result.badNode = std::atoi(reply.substr(1, newline - 1).c_str());
    result.nodeError =
        newline == std::string::npos ? "" : reply.substr(newline + 1);
    return result;
  }
  onnx::GraphProto inferred;
  if (!inferred.ParseFromArray(reply.data() + 1, int(reply.size() - 1))) {
    result.error = "ONNX shape inference returned unreadable shapes";
    return result;
  }
  model.mutable_graph()->mutable_value_info()->Swap(
      inferred.mutable_value_info());
  return result;
}

// ONNX's checker reads what this tool wrote, yet a crash or a hang in it
// (as its inference had on hostile input) must not take the export with
// it: the check runs in a child, and a child that fails says so.
std::string onnx_io::checkWrittenModel(onnx::ModelProto &model) {
  ChildReply child = runIsolated(
      [&] {
        // "0": it passes; "1" and why not. (checkModel leaves the model as
        // it was, in whichever process it runs.)
        std::string error =
            checkModel(model, /*fullCheck=*/true, /*relaxRankless=*/false);
        return error.empty() ? std::string("0") : "1" + error;
      },
      "ONNX's checker", /*timeoutMs=*/120000);
  if (!child.failure.empty())
    return child.failure;
  if (child.reply[0] == '0')
    return {};
  return formatCheckerError(llvm::StringRef(child.reply).drop_front());
}

/// The checker's message on one line, led by the node it names in its
/// context ("==> Context: Bad node spec for node. Name: n OpType: Conv").
std::string onnx_io::formatCheckerError(llvm::StringRef message) {
  auto [main, context] = message.split("==> Context:");
  std::string flat;
  llvm::StringRef name, opType;
  if (context.consume_front(" Bad node spec for node. Name: ")) {
    std::tie(name, opType) = context.split(" OpType: ");
    flat = ("node '" + name.trim() + "' (" + opType.trim() + "): ").str();
  }
  bool first = true;
  for (llvm::StringRef line : llvm::split(main, '\n')) {
    line = line.trim();
    if (line.empty())
      continue;
    if (!first)
      flat += ' ';
    flat += line.str();
    first = false;
  }
  return flat;
}

/// A node's inference request as the server reads it: the node, its
/// domain's opset, and its known input types and data, named by input
/// position.
static onnx::ModelProto
makeNodeRequest(const onnx::NodeProto &node, int64_t opset,
                llvm::ArrayRef<onnx::TypeProto *> inputTypes,
                llvm::ArrayRef<const onnx::TensorProto *> inputData) {
  onnx::ModelProto request;
  request.add_opset_import()->set_version(opset);
  onnx::GraphProto &graph = *request.mutable_graph();
  *graph.add_node() = node;
  for (size_t i = 0; i < inputTypes.size(); ++i)
    if (inputTypes[i]) {
      onnx::ValueInfoProto &info = *graph.add_input();
      info.set_name(std::to_string(i));
      *info.mutable_type() = *inputTypes[i];
    }
  for (size_t i = 0; i < inputData.size(); ++i)
    if (inputData[i]) {
      onnx::TensorProto &data = *graph.add_initializer();
      data = *inputData[i];
      data.set_name(std::to_string(i));
    }
  return request;
}

/// Answers a request: "0" and the output types as a GraphProto's
/// value_info, or "1" and an error.
static std::string answerNodeRequest(const std::string &bytes) {
  onnx::ModelProto request;
  if (!request.ParseFromString(bytes) || request.graph().node_size() != 1 ||
      request.opset_import_size() != 1)
    return "1unreadable inference request";
  const onnx::GraphProto &graph = request.graph();
  std::vector<onnx::TypeProto *> types;
  std::vector<const onnx::TensorProto *> data;
  auto slot = [](const std::string &name) { return std::stoul(name); };
  for (const onnx::ValueInfoProto &info : graph.input()) {
    size_t i = slot(info.name());
    types.resize(std::max(types.size(), i + 1), nullptr);
    types[i] = const_cast<onnx::TypeProto *>(&info.type());
  }
  for (const onnx::TensorProto &tensor : graph.initializer()) {
    size_t i = slot(tensor.name());
    data.resize(std::max(data.size(), i + 1), nullptr);
    data[i] = &tensor;
  }
  onnx::NodeProto node = graph.node(0);
  std::vector<onnx::TypeProto> inferred;
  std::string error = onnx_io::inferNodeTypes(
      node, request.opset_import(0).version(), types, data, inferred);
  if (!error.empty())
    return "1" + error;
  onnx::GraphProto reply;
  for (onnx::TypeProto &type : inferred)
    *reply.add_value_info()->mutable_type() = std::move(type);
  return "0" + reply.SerializeAsString();
}

std::string onnx_io::inferNodeTypesIsolated(
    const onnx::NodeProto &node, int64_t opset,
    llvm::ArrayRef<onnx::TypeProto *> inputTypes,
    llvm::ArrayRef<const onnx::TensorProto *> inputData,
    std::vector<onnx::TypeProto> &outputTypes) {
  std::string request =
      makeNodeRequest(node, opset, inputTypes, inputData).SerializeAsString();
  static IsolatedServer server(answerNodeRequest, "ONNX type inference");
  ChildReply child = server.ask(request);
  if (!child.failure.empty())
    return child.failure;
  if (child.reply[0] == '1')
    return child.reply.substr(1);
  onnx::GraphProto types;
  if (!types.ParseFromArray(child.reply.data() + 1,
                            int(child.reply.size() - 1)))
    return "ONNX type inference returned unreadable types";
  outputTypes.clear();
  for (onnx::ValueInfoProto &info : *types.mutable_value_info())
    outputTypes.push_back(std::move(*info.mutable_type()));
  return {};
}

int64_t onnx_io::getLibraryOpsetLimit() {
  const auto &ranges =
      onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  auto it = ranges.find("");
  return it == ranges.end() ? 0 : it->second.second;
}

std::string onnx_io::verifyNode(const onnx::NodeProto &node, int64_t opset) {
  try {
    std::string domain = node.domain() == "ai.onnx" ? "" : node.domain();
    if (const onnx::OpSchema *schema =
            onnx::OpSchemaRegistry::Schema(node.op_type(), int(opset), domain))
      schema->Verify(node);
  } catch (const std::exception &e) {
    return e.what();
  } catch (...) {
    return "unknown error in ONNX node verification";
  }
  return {};
}

std::string onnx_io::inferNodeTypes(
    onnx::NodeProto &node, int64_t opset,
    llvm::ArrayRef<onnx::TypeProto *> inputTypes,
    llvm::ArrayRef<const onnx::TensorProto *> inputData,
    std::vector<onnx::TypeProto> &outputTypes, SubgraphScope subgraphs) {
  try {
    std::string domain = node.domain() == "ai.onnx" ? "" : node.domain();
    const onnx::OpSchema *schema =
        onnx::OpSchemaRegistry::Schema(node.op_type(), int(opset), domain);
    if (!schema)
      return "ONNX has no schema for it at opset " + std::to_string(opset);
    // The inference functions trust the node's arity and attribute types:
    // a node that does not conform never reaches them.
    schema->Verify(node);
    // Ops defined as functions of other ops (LessOrEqual, ...) are
    // inferred through their body, as whole-model inference does.
    bool asFunction = !schema->has_type_and_shape_inference_function() &&
                      schema->HasFunction() && schema->GetFunction();
    if (!schema->has_type_and_shape_inference_function() && !asFunction)
      return "its ONNX schema has no type inference";
    std::unordered_map<std::string, onnx::TypeProto *> types;
    std::unordered_map<std::string, const onnx::TensorProto *> data;
    for (int i = 0; i < node.input_size(); ++i) {
      const std::string &name = node.input(i);
      if (name.empty() || size_t(i) >= inputTypes.size())
        continue;
      if (inputTypes[i])
        types[name] = inputTypes[i];
      if (i < int(inputData.size()) && inputData[i])
        data[name] = inputData[i];
    }
    bool hasSubgraphs =
        llvm::any_of(node.attribute(), [](const onnx::AttributeProto &a) {
          return a.has_g() || a.graphs_size() != 0;
        });
    if (hasSubgraphs && !subgraphs.types)
      return {};
    std::optional<onnx::shape_inference::GraphInferenceContext> graphContext;
    if (hasSubgraphs)
      graphContext.emplace(*subgraphs.types, *subgraphs.opsets);
    // Subgraphs are inferred leniently, as the model's inference is.
    onnx::ShapeInferenceOptions options(/*check_type_val=*/false,
                                        /*strict_mode_val=*/0,
                                        /*data_prop_val=*/false);
    onnx::shape_inference::InferenceContextImpl context(
        node, types, data, /*sparse=*/{}, options,
        /*generatedShapeData=*/nullptr,
        graphContext ? &*graphContext : nullptr);
    // The element types the schema allows, as strict inference checks.
    schema->CheckInputOutputType(context);
    if (asFunction)
      onnx::shape_inference::InferShapeForFunctionNode(
          *schema->GetFunction(), onnx::OpSchemaRegistry::Instance(), context);
    else
      schema->GetTypeAndShapeInferenceFunction()(context);
    outputTypes = std::move(context.allOutputTypes_);
  } catch (const std::exception &e) {
    return e.what();
  } catch (...) {
    return "unknown error in ONNX type inference";
  }
  return {};
}

static const onnx::OpSchema *findSchema(llvm::StringRef opType,
                                        llvm::StringRef domain, int64_t opset) {
  try {
    std::string d = domain == "ai.onnx" ? std::string() : domain.str();
    return onnx::OpSchemaRegistry::Schema(opType.str(), int(opset), d);
  } catch (...) {
    return nullptr;
  }
}

int onnx_io::getSchemaAttributeType(llvm::StringRef opType,
                                    llvm::StringRef domain, int64_t opset,
                                    llvm::StringRef attrName) {
  const onnx::OpSchema *schema = findSchema(opType, domain, opset);
  if (!schema)
    return 0;
  auto it = schema->attributes().find(attrName.str());
  return it == schema->attributes().end() ? 0 : int(it->second.type);
}

std::string onnx_io::getSchemaInputName(llvm::StringRef opType,
                                        llvm::StringRef domain, int64_t opset,
                                        unsigned index) {
  const onnx::OpSchema *schema = findSchema(opType, domain, opset);
  if (!schema || index >= schema->inputs().size())
    return {};
  const onnx::OpSchema::FormalParameter &input = schema->inputs()[index];
  if (input.GetOption() == onnx::OpSchema::Variadic)
    return {};
  return input.GetName();
}

namespace vc = onnx::version_conversion;

/// Split from opset 18 to 17, which ONNX's converter has no adapter for:
/// the same node, unless it splits into `num_outputs` parts (18), which 17
/// writes as no sizes at all, an even split, when the axis divides evenly.
static onnx::Node *splitTo17(const std::shared_ptr<onnx::Graph> &,
                             onnx::Node *node) {
  const onnx::Symbol numOutputs("num_outputs");
  if (!node->hasAttribute(numOutputs))
    return node;
  const onnx::Value *input = node->inputs()[0];
  int64_t axis = node->hasAttribute(onnx::kaxis) ? node->i(onnx::kaxis) : 0;
  int64_t rank = input->has_sizes() ? int64_t(input->sizes().size()) : 0;
  if (axis < 0)
    axis += rank;
  int64_t parts = node->i(numOutputs);
  bool even = axis >= 0 && axis < rank && input->sizes()[axis].is_int &&
              parts > 0 && input->sizes()[axis].dim % parts == 0;
  if (!even)
    throw std::runtime_error(
        "Split '" + node->name() +
        "' into num_outputs parts has an opset-17 form only when the axis "
        "is known to divide evenly");
  node->removeAttribute(numOutputs);
  return node;
}

/// The converter's answer: "0" and the converted model, or "1" and why
/// there is none.
static std::string convertInProcess(const onnx::ModelProto &model,
                                    int64_t opset) {
  try {
    vc::DefaultVersionConverter converter;
    converter.registerAdapter("Split", 18, 17, splitTo17);
    onnx::ModelProto converted = converter.convert_version(
        model, onnx::OpSetID(onnx_io::getDefaultDomainOpset(model)),
        onnx::OpSetID(opset));
    std::string bytes;
    if (!converted.SerializeToString(&bytes))
      return "1the converted model cannot be serialized";
    return "0" + bytes;
  } catch (const std::exception &e) {
    // The adapters' assertions say where in ONNX's sources they failed
    // before saying why: only the why is for the user.
    llvm::StringRef message = e.what();
    size_t why = message.find("` failed: ");
    if (message.contains(": Assertion `") && why != llvm::StringRef::npos)
      message = message.drop_front(why + strlen("` failed: "));
    return "1" + message.str();
  } catch (...) {
    return "1unknown error in ONNX's version converter";
  }
}

std::string onnx_io::convertOpsetVersion(onnx::ModelProto &model,
                                         int64_t opset) {
  // The view sent to the child holds no weights; it stays small.
  if (model.ByteSizeLong() > uint64_t(std::numeric_limits<int>::max()))
    return "the graph is over protobuf's 2 GiB without its weights";
  ChildReply child =
      runIsolated([&] { return convertInProcess(model, opset); },
                  "ONNX's version converter", /*timeoutMs=*/60000);
  if (!child.failure.empty())
    return child.failure;
  if (child.reply.empty() || child.reply[0] != '0')
    return child.reply.empty() ? "no answer" : child.reply.substr(1);
  if (!model.ParseFromArray(child.reply.data() + 1,
                            int(child.reply.size() - 1)))
    return "ONNX's version converter returned an unreadable model";
  return {};
}

//===----------------------------------------------------------------------===//
// Function expansion
//===----------------------------------------------------------------------===//

/// The types of `graph`'s values by name, as shape inference left them:
/// inputs, outputs, value_info, and initializers' declared types.
static std::unordered_map<std::string, onnx::TypeProto>
collectValueTypes(const onnx::GraphProto &graph) {
  std::unordered_map<std::string, onnx::TypeProto> types;
  for (const auto *infos :
       {&graph.input(), &graph.output(), &graph.value_info()})
    for (const onnx::ValueInfoProto &info : *infos)
      if (info.has_type())
        types[info.name()] = info.type();
  for (const onnx::TensorProto &init : graph.initializer()) {
    onnx::TypeProto type;
    auto *tensor = type.mutable_tensor_type();
    tensor->set_elem_type(init.data_type());
    auto *shape = tensor->mutable_shape();
    for (int64_t d : init.dims())
      shape->add_dim()->set_dim_value(d);
    types.emplace(init.name(), std::move(type));
  }
  return types;
}

/// The body of `node`'s ONNX function at `opset`, built for its input
/// types where the body depends on them; nothing when ONNX defines none or
/// cannot build it for these inputs.
static std::optional<onnx::FunctionProto> buildFunctionBody(
    const onnx::NodeProto &node, int64_t opset,
    const std::unordered_map<std::string, onnx::TypeProto> &types) {
  const onnx::OpSchema *schema = findSchema(node.op_type(), "", opset);
  if (!schema)
    return std::nullopt;
  try {
    onnx::FunctionProto body;
    if (schema->HasContextDependentFunction()) {
      std::vector<onnx::TypeProto> inputTypes;
      for (const std::string &input : node.input()) {
        auto it = types.find(input);
        inputTypes.push_back(it == types.end() ? onnx::TypeProto()
                                               : it->second);
      }
      onnx::FunctionBodyBuildContextImpl context(node, inputTypes);
      if (!schema->BuildContextDependentFunction(context, body, int(opset)))
        return std::nullopt;
      return body;
    }
    if (const onnx::FunctionProto *function =
            schema->GetFunction(int(opset), /*validate=*/true))
      return *function;
  } catch (...) {
  }
  return std::nullopt;
}

int onnx_io::expandFunctionNodes(onnx::ModelProto &model,
                                 llvm::ArrayRef<llvm::StringRef> opTypes) {
  int64_t opset = getDefaultDomainOpset(model);
  onnx::GraphProto &graph = *model.mutable_graph();
  auto isExpanded = [&](const onnx::NodeProto &node) {
    return isDefaultDomain(node.domain()) &&
           llvm::is_contained(opTypes, llvm::StringRef(node.op_type()));
  };
  if (llvm::none_of(graph.node(), isExpanded))
    return 0;
  std::unordered_map<std::string, onnx::TypeProto> types =
      collectValueTypes(graph);
  // Every value name of the graph, so that the bodies' own stay apart.
  std::unordered_set<std::string> taken;
  for (const auto &entry : types)
    taken.insert(entry.first);
  for (const onnx::NodeProto &node : graph.node())
    taken.insert(node.output().begin(), node.output().end());
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  int expanded = 0;
  for (int i = 0, e = graph.node_size(); i < e; ++i) {
    onnx::NodeProto &node = *graph.mutable_node(i);
    std::optional<onnx::FunctionProto> body;
    if (isExpanded(node))
      body = buildFunctionBody(node, opset, types);
    std::optional<onnx::GraphProto> expansion;
    std::string prefix;
    // The body's values are named after the node ("Func_<name><value>");
    // a name no graph value starts with keeps them apart.
    for (int attempt = 0; body && !expansion && attempt < 8; ++attempt) {
      prefix = (node.name().empty() ? node.op_type() : node.name()) + "#" +
               std::to_string(i) +
               (attempt ? "~" + std::to_string(attempt) : "") + "/";
      onnx::NodeProto named = node;
      named.set_name(prefix);
      onnx::GraphProto candidate;
      try {
        onnx::FunctionExpandHelper(named, *body, candidate, prefix);
      } catch (...) {
        break;
      }
      std::unordered_set<std::string> own(node.output().begin(),
                                          node.output().end());
      bool clashes = llvm::any_of(candidate.node(), [&](const auto &part) {
        return llvm::any_of(part.output(), [&](const std::string &name) {
          return !own.count(name) && taken.count(name);
        });
      });
      if (!clashes)
        expansion = std::move(candidate);
    }
    if (!expansion) {
      *nodes.Add() = std::move(node);
      continue;
    }
    for (const onnx::NodeProto &part : expansion->node())
      taken.insert(part.output().begin(), part.output().end());
    // Each node is named after the one it comes from, for locations.
    for (int j = 0; j < expansion->node_size(); ++j) {
      onnx::NodeProto &part = *expansion->mutable_node(j);
      part.set_name(prefix + part.op_type() + "_" + std::to_string(j));
      *nodes.Add() = std::move(part);
    }
    ++expanded;
  }
  graph.mutable_node()->Swap(&nodes);
  return expanded;
}
