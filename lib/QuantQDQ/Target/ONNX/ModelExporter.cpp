//===- ModelExporter.cpp - a quant_qdq function to an ONNX ModelProto -----===//
//
// Writes each layer op as the ONNX node(s) the importer maps to it, each
// quantize/dequantize as QuantizeLinear/DequantizeLinear with its scale and
// zero point as initializers, and each generic op back as the node it came
// from. Weights are not copied into the proto: the graph is serialized
// without their data, and the resource bytes are streamed after it as
// additional `initializer` fields, which protobuf merges into the same
// repeated field. Tensor and node names are unique; graph tensors carry the
// names qdq-name-tensors gave them (the ones calibration tables use), and
// tensors export makes up (initializers, the insides of decomposed layers)
// get fresh ones.
//
//===----------------------------------------------------------------------===//

#include "ONNXCommon.h"
#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/Target/ONNX/ONNX.h"
#include "QuantQDQ/Transforms/Passes.h"
#include "QuantQDQ/Transforms/TensorNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <cmath>
#include <map>

using namespace mlir;
using namespace mlir::quant_qdq;
using namespace mlir::quant_qdq::onnx_io;

/// Per-channel QuantizeLinear/DequantizeLinear need opset 13.
static constexpr int64_t kQDQOpset = 13;

namespace {
/// An initializer whose data is streamed after the graph.
struct StreamedTensor {
  onnx::TensorProto header;
  ArrayRef<char> data;
  std::string owned;
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
  ModelExporter(ModuleOp module, const ONNXExportOptions &options)
      : module(module), options(options) {}

  LogicalResult exportFunction(func::FuncOp func);
  LogicalResult write(llvm::raw_ostream &os);

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

  static void addIntAttr(onnx::NodeProto &node, StringRef name, int64_t v) {
    onnx::AttributeProto &a = *node.add_attribute();
    a.set_name(name.str());
    a.set_type(onnx::AttributeProto::INT);
    a.set_i(v);
  }
  static void addFloatAttr(onnx::NodeProto &node, StringRef name, float v) {
    onnx::AttributeProto &a = *node.add_attribute();
    a.set_name(name.str());
    a.set_type(onnx::AttributeProto::FLOAT);
    a.set_f(v);
  }
  static void addStringAttr(onnx::NodeProto &node, StringRef name,
                            StringRef v) {
    onnx::AttributeProto &a = *node.add_attribute();
    a.set_name(name.str());
    a.set_type(onnx::AttributeProto::STRING);
    a.set_s(v.str());
  }
  static void addIntsAttr(onnx::NodeProto &node, StringRef name,
                          ArrayRef<int64_t> v) {
    onnx::AttributeProto &a = *node.add_attribute();
    a.set_name(name.str());
    a.set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v)
      a.add_ints(x);
  }

  /// Adds an initializer holding `value`; resource data is streamed later.
  FailureOr<std::string> addInitializer(StringRef base, ElementsAttr value,
                                        Location loc, int32_t onnxType = 0) {
    std::string name = claimName(base);
    auto resource = dyn_cast<DenseResourceElementsAttr>(value);
    if (!resource) {
      onnx::TensorProto &t = *graph->add_initializer();
      t.set_name(name);
      if (failed(exportTensor(value, t, loc, onnxType)))
        return failure();
      return name;
    }
    auto type = cast<ShapedType>(value.getType());
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    int32_t dataType =
        onnxType ? onnxType : getONNXElementType(type.getElementType());
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

  /// Adds an initializer whose bytes the exporter computed.
  std::string addOwnedInitializer(StringRef base, ArrayRef<int64_t> shape,
                                  int32_t dataType, std::string bytes) {
    std::string name = claimName(base);
    onnx::TensorProto &t = *graph->add_initializer();
    t.set_name(name);
    t.set_data_type(dataType);
    for (int64_t d : shape)
      t.add_dims(d);
    *t.mutable_raw_data() = std::move(bytes);
    return name;
  }

  std::string addInt64s(StringRef base, ArrayRef<int64_t> values) {
    std::string bytes(reinterpret_cast<const char *>(values.data()),
                      values.size() * sizeof(int64_t));
    return addOwnedInitializer(base, {int64_t(values.size())},
                               onnx::TensorProto::INT64, std::move(bytes));
  }

  /// A scalar initializer of element type `type` (a float type) holding v.
  FailureOr<std::string> addFloatScalar(StringRef base, float v, Type type,
                                        Location loc) {
    auto tensorType = RankedTensorType::get({}, type);
    auto floatType = dyn_cast<FloatType>(type);
    if (!floatType)
      return emitError(loc) << "expected a floating-point type, got " << type;
    APFloat value(v);
    bool lost;
    value.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                  &lost);
    return addInitializer(
        base, cast<ElementsAttr>(DenseElementsAttr::get(tensorType, value)),
        loc);
  }

  /// The ONNX type of quantized storage: int8 or uint8 by the quantizer.
  static int32_t getStorageType(QuantizerAttr q) {
    return q.getIsSigned() ? onnx::TensorProto::INT8 : onnx::TensorProto::UINT8;
  }

  /// The name of `value`, writing its constant as an initializer (of ONNX
  /// type `onnxType`, when set) on first use.
  FailureOr<std::string> getName(Value value, int32_t onnxType = 0) {
    auto it = names.find(value);
    if (it != names.end())
      return it->second;
    ElementsAttr constant;
    if (matchPattern(value, m_Constant(&constant))) {
      Operation *def = value.getDefiningOp();
      StringRef base = getLocationName(def->getLoc());
      FailureOr<std::string> name =
          addInitializer(base.empty() ? StringRef("const") : base, constant,
                         def->getLoc(), onnxType);
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

  /// `result` is `input` (an op export drops, such as dropout): shares the
  /// name, or writes an Identity when `result` already has its own (a graph
  /// output).
  LogicalResult alias(Operation *op, Value result, Value input) {
    FailureOr<std::string> in = getName(input);
    if (failed(in))
      return failure();
    auto it = names.find(result);
    if (it == names.end()) {
      names[result] = *in;
      return success();
    }
    addNode("Identity", getNodeName(op, "Identity"), {*in}, {it->second});
    return success();
  }

  FailureOr<SmallVector<std::string>> getNames(ValueRange values) {
    SmallVector<std::string> out;
    for (Value v : values) {
      FailureOr<std::string> n = getName(v);
      if (failed(n))
        return failure();
      out.push_back(*n);
    }
    return out;
  }

  //===------------------------------------------------------------------===//
  // Ops
  //===------------------------------------------------------------------===//

  LogicalResult exportOp(Operation *op);
  LogicalResult exportConv(Conv2DOp op);
  LogicalResult exportDense(DenseOp op);
  LogicalResult exportPool(Operation *op);
  LogicalResult exportGlobalPool(Operation *op, StringRef opType,
                                 bool keepDims);
  LogicalResult exportActivation(ActivationOp op);
  LogicalResult exportPad(PadOp op);
  LogicalResult exportGeneric(GenericOp op);
  LogicalResult exportQuantize(Operation *op, Value input, QuantizerAttr q,
                               std::optional<ArrayRef<float>> scales,
                               std::optional<ArrayRef<int32_t>> zps,
                               StringRef nodeName, StringRef output);
  LogicalResult exportDequantize(Operation *op, StringRef input,
                                 QuantizerAttr q,
                                 std::optional<ArrayRef<float>> scales,
                                 std::optional<ArrayRef<int32_t>> zps,
                                 StringRef nodeName, StringRef output);
  FailureOr<std::pair<std::string, std::string>>
  getQuantParams(Operation *op, QuantizerAttr q,
                 std::optional<ArrayRef<float>> scales,
                 std::optional<ArrayRef<int32_t>> zps, StringRef base);

  /// Writes `opType` with `op`'s operands as inputs and results as outputs.
  FailureOr<onnx::NodeProto *> exportSimple(Operation *op, StringRef opType) {
    FailureOr<SmallVector<std::string>> inputs = getNames(op->getOperands());
    if (failed(inputs))
      return failure();
    std::string nodeName = getNodeName(op, opType);
    return &addNode(opType, nodeName, *inputs, nameResults(op, nodeName));
  }

  LogicalResult requireNCHW(Operation *op, Layout layout) {
    if (layout != Layout::NCHW)
      return op->emitError("ONNX is NCHW: cannot export a layer in nhwc "
                           "layout");
    return success();
  }

  /// The ONNX element type a value has on the wire: quantized storage is
  /// int8 or uint8 by its quantizer.
  int32_t getWireType(Value v) {
    if (auto q = v.getDefiningOp<QuantizeOp>())
      return getStorageType(q.getQuantizer());
    return getONNXElementType(getElementTypeOrSelf(v.getType()));
  }

  LogicalResult setValueInfo(onnx::ValueInfoProto &info, Value v,
                             ArrayAttr dimParams, Location loc) {
    int32_t elemType = getWireType(v);
    if (!elemType)
      return emitError(loc) << "graph input or output of type " << v.getType()
                            << " has no ONNX tensor type";
    auto &tensor = *info.mutable_type()->mutable_tensor_type();
    tensor.set_elem_type(elemType);
    auto ranked = dyn_cast<RankedTensorType>(v.getType());
    if (!ranked)
      return success();
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
    return success();
  }

  ModuleOp module;
  const ONNXExportOptions &options;
  onnx::ModelProto model;
  onnx::GraphProto *graph = model.mutable_graph();
  int64_t opset = kDefaultOpsetVersion;
  llvm::DenseMap<Value, std::string> names;
  llvm::StringSet<> usedNames;
  UniqueNames nodeNames;
  std::vector<StreamedTensor> streamed;
  std::map<std::tuple<const void *, const void *, bool>,
           std::pair<std::string, std::string>>
      quantParams;
  unsigned nodeCounter = 0;
};
} // namespace

//===----------------------------------------------------------------------===//
// Layers
//===----------------------------------------------------------------------===//

LogicalResult ModelExporter::exportConv(Conv2DOp op) {
  if (failed(requireNCHW(op, op.getLayout())))
    return failure();
  FailureOr<onnx::NodeProto *> node = exportSimple(op, "Conv");
  if (failed(node))
    return failure();
  auto wType = op.getWeight().getType();
  addIntsAttr(**node, "kernel_shape",
              {wType.getDimSize(2), wType.getDimSize(3)});
  addIntsAttr(**node, "strides", op.getStrides());
  addIntsAttr(**node, "pads", op.getPads());
  addIntsAttr(**node, "dilations", op.getDilations());
  addIntAttr(**node, "group", op.getGroups());
  return success();
}

LogicalResult ModelExporter::exportDense(DenseOp op) {
  std::string nodeName = getNodeName(op, "Gemm");
  FailureOr<std::string> input = getName(op.getInput());
  FailureOr<std::string> weight = getName(op.getWeight());
  if (failed(input) || failed(weight))
    return failure();
  std::optional<std::string> bias;
  if (op.getBias()) {
    FailureOr<std::string> b = getName(op.getBias());
    if (failed(b))
      return failure();
    bias = *b;
  }
  SmallVector<std::string> outputs = nameResults(op, nodeName);
  if (op.getInput().getType().getRank() == 2) {
    SmallVector<std::string> inputs{*input, *weight};
    if (bias)
      inputs.push_back(*bias);
    onnx::NodeProto &node = addNode("Gemm", nodeName, inputs, outputs);
    if (op.getTransposeWeight())
      addIntAttr(node, "transB", 1);
    return success();
  }
  // MatMul broadcasts over leading dimensions; Gemm does not.
  std::string w = *weight;
  if (op.getTransposeWeight()) {
    std::string t = claimName(nodeName + "_weight_t");
    onnx::NodeProto &transpose =
        addNode("Transpose", claimNodeName(nodeName + "_transpose"), {w}, {t});
    addIntsAttr(transpose, "perm", {1, 0});
    w = t;
  }
  if (!bias) {
    addNode("MatMul", nodeName, {*input, w}, outputs);
    return success();
  }
  std::string product = claimName(nodeName + "_matmul");
  addNode("MatMul", nodeName, {*input, w}, {product});
  addNode("Add", claimNodeName(nodeName + "_bias"), {product, *bias}, outputs);
  return success();
}

LogicalResult ModelExporter::exportPool(Operation *op) {
  auto avg = dyn_cast<AvgPool2DOp>(op);
  auto max = dyn_cast<MaxPool2DOp>(op);
  Layout layout = avg ? avg.getLayout() : max.getLayout();
  if (failed(requireNCHW(op, layout)))
    return failure();
  bool ceil = avg ? avg.getCeilMode() : max.getCeilMode();
  if (ceil && opset < 10)
    return op->emitError("ceil_mode pooling needs opset >= 10, the model "
                         "imports ")
           << opset;
  FailureOr<onnx::NodeProto *> node =
      exportSimple(op, avg ? "AveragePool" : "MaxPool");
  if (failed(node))
    return failure();
  addIntsAttr(**node, "kernel_shape",
              avg ? avg.getKernelShape() : max.getKernelShape());
  addIntsAttr(**node, "strides", avg ? avg.getStrides() : max.getStrides());
  addIntsAttr(**node, "pads", avg ? avg.getPads() : max.getPads());
  if (ceil)
    addIntAttr(**node, "ceil_mode", 1);
  if (avg && avg.getCountIncludePad())
    addIntAttr(**node, "count_include_pad", 1);
  if (max) {
    ArrayRef<int64_t> dilations = max.getDilations();
    if (llvm::any_of(dilations, [](int64_t d) { return d != 1; })) {
      if (opset < 10)
        return op->emitError("dilated max pooling needs opset >= 10");
      addIntsAttr(**node, "dilations", dilations);
    }
  }
  return success();
}

LogicalResult ModelExporter::exportGlobalPool(Operation *op, StringRef opType,
                                              bool keepDims) {
  if (keepDims)
    return exportSimple(op, opType);
  // N x C: pool to N x C x 1 x 1, then flatten.
  std::string nodeName = getNodeName(op, opType);
  FailureOr<std::string> input = getName(op->getOperand(0));
  if (failed(input))
    return failure();
  std::string pooled = claimName(nodeName + "_pooled");
  addNode(opType, nodeName, {*input}, {pooled});
  onnx::NodeProto &flatten =
      addNode("Flatten", claimNodeName(nodeName + "_flatten"), {pooled},
              nameResults(op, nodeName));
  addIntAttr(flatten, "axis", 1);
  return success();
}

LogicalResult ModelExporter::exportActivation(ActivationOp op) {
  auto fattr = [](std::optional<APFloat> v, float d) {
    return v ? v->convertToFloat() : d;
  };
  Type elementType = op.getInput().getType().getElementType();
  auto clip = [&](float lo, float hi) -> LogicalResult {
    if (opset < 11) {
      FailureOr<onnx::NodeProto *> node = exportSimple(op, "Clip");
      if (failed(node))
        return failure();
      addFloatAttr(**node, "min", lo);
      addFloatAttr(**node, "max", hi);
      return success();
    }
    std::string nodeName = getNodeName(op, "Clip");
    FailureOr<std::string> in = getName(op.getInput());
    FailureOr<std::string> min =
        addFloatScalar(nodeName + "_min", lo, elementType, op.getLoc());
    FailureOr<std::string> max =
        addFloatScalar(nodeName + "_max", hi, elementType, op.getLoc());
    if (failed(in) || failed(min) || failed(max))
      return failure();
    addNode("Clip", nodeName, {*in, *min, *max}, nameResults(op, nodeName));
    return success();
  };
  /// x * gate(x), the gate written by `writeGate` into a fresh tensor.
  auto gated =
      [&](StringRef gateType,
          function_ref<void(onnx::NodeProto &)> setAttrs) -> LogicalResult {
    std::string nodeName = getNodeName(op, gateType);
    FailureOr<std::string> in = getName(op.getInput());
    if (failed(in))
      return failure();
    std::string gate = claimName(nodeName + "_gate");
    onnx::NodeProto &g =
        addNode(gateType, claimNodeName(nodeName + "_gate"), {*in}, {gate});
    setAttrs(g);
    addNode("Mul", nodeName, {*in, gate}, nameResults(op, nodeName));
    return success();
  };

  switch (op.getKind()) {
  case ActivationKind::Relu:
    return exportSimple(op, "Relu");
  case ActivationKind::Sigmoid:
    return exportSimple(op, "Sigmoid");
  case ActivationKind::Tanh:
    return exportSimple(op, "Tanh");
  case ActivationKind::Softplus:
    return exportSimple(op, "Softplus");
  case ActivationKind::Linear:
    return alias(op, op.getOutput(), op.getInput());
  case ActivationKind::Relu6:
    return clip(0.0f, 6.0f);
  case ActivationKind::Clip:
    return clip(fattr(op.getMin(), -INFINITY), fattr(op.getMax(), INFINITY));
  case ActivationKind::LeakyRelu:
  case ActivationKind::Elu: {
    bool leaky = op.getKind() == ActivationKind::LeakyRelu;
    FailureOr<onnx::NodeProto *> node =
        exportSimple(op, leaky ? "LeakyRelu" : "Elu");
    if (failed(node))
      return failure();
    addFloatAttr(**node, "alpha", fattr(op.getAlpha(), leaky ? 0.01f : 1.0f));
    return success();
  }
  case ActivationKind::HardSigmoid: {
    FailureOr<onnx::NodeProto *> node = exportSimple(op, "HardSigmoid");
    if (failed(node))
      return failure();
    addFloatAttr(**node, "alpha", fattr(op.getAlpha(), 0.2f));
    addFloatAttr(**node, "beta", fattr(op.getBeta(), 0.5f));
    return success();
  }
  case ActivationKind::Swish:
    return gated("Sigmoid", [](onnx::NodeProto &) {});
  case ActivationKind::HardSwish:
    if (opset >= 14)
      return exportSimple(op, "HardSwish");
    return gated("HardSigmoid", [](onnx::NodeProto &n) {
      addFloatAttr(n, "alpha", 1.0f / 6.0f);
      addFloatAttr(n, "beta", 0.5f);
    });
  case ActivationKind::Gelu: {
    // gelu(x) = x * 0.5 * (1 + erf(x / sqrt(2))); ONNX has Gelu from opset
    // 20 only.
    std::string nodeName = getNodeName(op, "Gelu");
    FailureOr<std::string> in = getName(op.getInput());
    FailureOr<std::string> sqrt2 = addFloatScalar(
        nodeName + "_sqrt2", float(M_SQRT2), elementType, op.getLoc());
    FailureOr<std::string> one =
        addFloatScalar(nodeName + "_one", 1.0f, elementType, op.getLoc());
    FailureOr<std::string> half =
        addFloatScalar(nodeName + "_half", 0.5f, elementType, op.getLoc());
    if (failed(in) || failed(sqrt2) || failed(one) || failed(half))
      return failure();
    auto step = [&](StringRef type, StringRef suffix,
                    ArrayRef<std::string> inputs) {
      std::string base = nodeName + "_" + suffix.str();
      std::string out = claimName(base);
      addNode(type, claimNodeName(base), inputs, {out});
      return out;
    };
    std::string scaled = step("Div", "scaled", {*in, *sqrt2});
    std::string erf = step("Erf", "erf", {scaled});
    std::string plus = step("Add", "plus_one", {erf, *one});
    std::string gate = step("Mul", "gate", {plus, *half});
    addNode("Mul", nodeName, {*in, gate}, nameResults(op, nodeName));
    return success();
  }
  }
  return op.emitError("activation has no ONNX form");
}

LogicalResult ModelExporter::exportPad(PadOp op) {
  std::string nodeName = getNodeName(op, "Pad");
  FailureOr<std::string> in = getName(op.getInput());
  if (failed(in))
    return failure();
  StringRef mode = stringifyPadMode(op.getMode());
  float value = op.getValue().convertToFloat();
  if (opset < 11) {
    onnx::NodeProto &node =
        addNode("Pad", nodeName, {*in}, nameResults(op, nodeName));
    addStringAttr(node, "mode", mode);
    addIntsAttr(node, "pads", op.getPads());
    if (value != 0.0f)
      addFloatAttr(node, "value", value);
    return success();
  }
  SmallVector<std::string> inputs{*in,
                                  addInt64s(nodeName + "_pads", op.getPads())};
  if (value != 0.0f) {
    FailureOr<std::string> v =
        addFloatScalar(nodeName + "_value", value,
                       op.getInput().getType().getElementType(), op.getLoc());
    if (failed(v))
      return failure();
    inputs.push_back(*v);
  }
  onnx::NodeProto &node =
      addNode("Pad", nodeName, inputs, nameResults(op, nodeName));
  addStringAttr(node, "mode", mode);
  return success();
}

LogicalResult ModelExporter::exportGeneric(GenericOp op) {
  std::string nodeName = getNodeName(op, op.getOpType());
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
  for (int64_t slot = 0; next < numInputs; ++slot) {
    if (isOmitted(omittedIn, slot)) {
      inputs.push_back("");
      continue;
    }
    FailureOr<std::string> n = getName(op.getInputs()[next++]);
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
  onnx::NodeProto &node = addNode(op.getOpType(), nodeName, inputs, outputs);
  if (op.getDomain())
    node.set_domain(op.getDomain()->str());
  if (DictionaryAttr attrs = op.getLayerAttributesAttr()) {
    StringRef domain = op.getDomain() ? *op.getDomain() : StringRef();
    int64_t version = opset;
    if (auto opsets = module->getAttrOfType<DictionaryAttr>(kOpsetImport))
      if (auto v = opsets.getAs<IntegerAttr>(
              domain.empty() ? StringRef(kDefaultDomain) : domain))
        version = v.getInt();
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

//===----------------------------------------------------------------------===//
// Quantize and dequantize
//===----------------------------------------------------------------------===//

FailureOr<std::pair<std::string, std::string>> ModelExporter::getQuantParams(
    Operation *op, QuantizerAttr q, std::optional<ArrayRef<float>> scales,
    std::optional<ArrayRef<int32_t>> zps, StringRef base) {
  if (!scales)
    return op->emitError("quantize/dequantize has no scale: calibrate the "
                         "model, or export computes weight scales only for "
                         "constant inputs");
  if (q.getBits() != 8)
    return op->emitError("ONNX QuantizeLinear/DequantizeLinear store 8 "
                         "bits; this quantizer has ")
           << q.getBits();
  if (q.getAxis() && opset < kQDQOpset)
    return op->emitError("per-axis quantization needs opset >= 13");
  Builder b(op->getContext());
  auto scaleAttr = b.getDenseF32ArrayAttr(*scales);
  DenseI32ArrayAttr zpAttr =
      zps ? b.getDenseI32ArrayAttr(*zps) : DenseI32ArrayAttr();
  auto key = std::make_tuple(scaleAttr.getAsOpaquePointer(),
                             zpAttr ? zpAttr.getAsOpaquePointer() : nullptr,
                             bool(q.getIsSigned()));
  auto it = quantParams.find(key);
  if (it != quantParams.end())
    return it->second;

  // Per-tensor parameters are scalars; per-axis ones are vectors.
  SmallVector<int64_t> shape;
  if (q.getAxis())
    shape.push_back(scales->size());
  std::string scaleBytes(reinterpret_cast<const char *>(scales->data()),
                         scales->size() * sizeof(float));
  std::string scaleName = addOwnedInitializer(
      base.str() + "_scale", shape, onnx::TensorProto::FLOAT, scaleBytes);
  std::string zpBytes;
  for (size_t i = 0; i < scales->size(); ++i)
    zpBytes.push_back(char(uint8_t((zps ? (*zps)[i] : 0) & 0xff)));
  std::string zpName = addOwnedInitializer(
      base.str() + "_zero_point", shape,
      getStorageType(q), zpBytes);
  return quantParams[key] = {scaleName, zpName};
}

LogicalResult
ModelExporter::exportQuantize(Operation *op, Value input, QuantizerAttr q,
                              std::optional<ArrayRef<float>> scales,
                              std::optional<ArrayRef<int32_t>> zps,
                              StringRef nodeName, StringRef output) {
  FailureOr<std::string> in = getName(input);
  FailureOr<std::pair<std::string, std::string>> params =
      getQuantParams(op, q, scales, zps, nodeName);
  if (failed(in) || failed(params))
    return failure();
  onnx::NodeProto &node =
      addNode("QuantizeLinear", nodeName, {*in, params->first, params->second},
              {output.str()});
  if (q.getAxis())
    addIntAttr(node, "axis", *q.getAxis());
  return success();
}

LogicalResult
ModelExporter::exportDequantize(Operation *op, StringRef input, QuantizerAttr q,
                                std::optional<ArrayRef<float>> scales,
                                std::optional<ArrayRef<int32_t>> zps,
                                StringRef nodeName, StringRef output) {
  FailureOr<std::pair<std::string, std::string>> params =
      getQuantParams(op, q, scales, zps, nodeName);
  if (failed(params))
    return failure();
  onnx::NodeProto &node =
      addNode("DequantizeLinear", nodeName,
              {input.str(), params->first, params->second}, {output.str()});
  if (q.getAxis())
    addIntAttr(node, "axis", *q.getAxis());
  return success();
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

LogicalResult ModelExporter::exportOp(Operation *op) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<arith::ConstantOp>([](auto) {
        // Written as initializers when first read.
        return success();
      })
      .Case<Conv2DOp>([&](auto conv) { return exportConv(conv); })
      .Case<DenseOp>([&](auto dense) { return exportDense(dense); })
      .Case<AvgPool2DOp, MaxPool2DOp>(
          [&](Operation *pool) { return exportPool(pool); })
      .Case<GlobalAvgPool2DOp>([&](auto pool) -> LogicalResult {
        if (failed(requireNCHW(pool, pool.getLayout())))
          return failure();
        return exportGlobalPool(pool, "GlobalAveragePool", pool.getKeepDims());
      })
      .Case<GlobalMaxPool2DOp>([&](auto pool) -> LogicalResult {
        if (failed(requireNCHW(pool, pool.getLayout())))
          return failure();
        return exportGlobalPool(pool, "GlobalMaxPool", pool.getKeepDims());
      })
      .Case<BatchNormOp>([&](auto bn) -> LogicalResult {
        if (failed(requireNCHW(bn, bn.getLayout())))
          return failure();
        FailureOr<onnx::NodeProto *> node =
            exportSimple(bn, "BatchNormalization");
        if (failed(node))
          return failure();
        addFloatAttr(**node, "epsilon", bn.getEpsilon().convertToFloat());
        return success();
      })
      .Case<ConcatOp>([&](auto concat) -> LogicalResult {
        FailureOr<onnx::NodeProto *> node = exportSimple(concat, "Concat");
        if (failed(node))
          return failure();
        addIntAttr(**node, "axis", concat.getAxis());
        return success();
      })
      .Case<AddOp>([&](auto add) -> LogicalResult {
        return exportSimple(add, add.getInputs().size() == 2 ? "Add" : "Sum");
      })
      .Case<MultiplyOp>([&](auto mul) -> LogicalResult {
        if (mul.getInputs().size() == 2)
          return exportSimple(mul, "Mul");
        // Mul takes two inputs: multiply left to right.
        std::string nodeName = getNodeName(mul, "Mul");
        FailureOr<SmallVector<std::string>> ins = getNames(mul.getInputs());
        if (failed(ins))
          return failure();
        std::string acc = (*ins)[0];
        for (size_t i = 1; i + 1 < ins->size(); ++i) {
          std::string out = claimName(nodeName + "_partial");
          addNode("Mul", claimNodeName(nodeName + "_partial"), {acc, (*ins)[i]},
                  {out});
          acc = out;
        }
        addNode("Mul", nodeName, {acc, ins->back()},
                nameResults(mul, nodeName));
        return success();
      })
      .Case<ActivationOp>([&](auto act) { return exportActivation(act); })
      .Case<SoftmaxOp>([&](auto softmax) -> LogicalResult {
        int64_t rank = softmax.getInput().getType().getRank();
        int64_t axis = softmax.getAxis() < 0 ? softmax.getAxis() + rank
                                             : softmax.getAxis();
        if (opset < 13 && axis != rank - 1)
          return softmax.emitError("before opset 13 ONNX Softmax works on "
                                   "the last axis only");
        FailureOr<onnx::NodeProto *> node = exportSimple(softmax, "Softmax");
        if (failed(node))
          return failure();
        addIntAttr(**node, "axis", axis);
        return success();
      })
      .Case<DropoutOp>([&](auto dropout) {
        return alias(dropout, dropout.getOutput(), dropout.getInput());
      })
      .Case<FlattenOp>([&](auto flatten) -> LogicalResult {
        FailureOr<onnx::NodeProto *> node = exportSimple(flatten, "Flatten");
        if (failed(node))
          return failure();
        addIntAttr(**node, "axis", flatten.getAxis());
        return success();
      })
      .Case<ReshapeOp>([&](auto reshape) -> LogicalResult {
        std::string nodeName = getNodeName(reshape, "Reshape");
        FailureOr<std::string> in = getName(reshape.getInput());
        if (failed(in))
          return failure();
        std::string shape = addInt64s(nodeName + "_shape", reshape.getShape());
        addNode("Reshape", nodeName, {*in, shape},
                nameResults(reshape, nodeName));
        return success();
      })
      .Case<TransposeOp>([&](auto transpose) -> LogicalResult {
        FailureOr<onnx::NodeProto *> node =
            exportSimple(transpose, "Transpose");
        if (failed(node))
          return failure();
        addIntsAttr(**node, "perm", transpose.getPerm());
        return success();
      })
      .Case<PadOp>([&](auto pad) { return exportPad(pad); })
      .Case<GenericOp>([&](auto generic) { return exportGeneric(generic); })
      .Case<QuantizeOp>([&](QuantizeOp q) -> LogicalResult {
        std::string nodeName = getNodeName(q, "QuantizeLinear");
        SmallVector<std::string> outs = nameResults(q, nodeName);
        return exportQuantize(q, q.getInput(), q.getQuantizer(), q.getScale(),
                              q.getZeroPoint(), nodeName, outs.front());
      })
      .Case<DequantizeOp>([&](DequantizeOp dq) -> LogicalResult {
        std::string nodeName = getNodeName(dq, "DequantizeLinear");
        // Storage held as a constant (qdq-quantize-weights) is int8 or
        // uint8 by the quantizer.
        FailureOr<std::string> in =
            getName(dq.getInput(), getStorageType(dq.getQuantizer()));
        if (failed(in))
          return failure();
        SmallVector<std::string> outs = nameResults(dq, nodeName);
        return exportDequantize(dq, *in, dq.getQuantizer(), dq.getScale(),
                                dq.getZeroPoint(), nodeName, outs.front());
      })
      .Case<FakeQuantOp>([&](FakeQuantOp fq) -> LogicalResult {
        std::string nodeName = getNodeName(fq, "QuantizeLinear");
        std::string quantized = claimName(nodeName + "_quantized");
        SmallVector<std::string> outs = nameResults(fq, nodeName);
        if (failed(exportQuantize(fq, fq.getInput(), fq.getQuantizer(),
                                  fq.getScale(), fq.getZeroPoint(),
                                  claimNodeName(nodeName + "_q"), quantized)))
          return failure();
        return exportDequantize(fq, quantized, fq.getQuantizer(), fq.getScale(),
                                fq.getZeroPoint(),
                                claimNodeName(nodeName + "_dq"), outs.front());
      })
      .Default([](Operation *op) {
        return op->emitError("'") << op->getName()
                                  << "' has no ONNX form; export supports "
                                     "quant_qdq layer and Q/DQ ops and "
                                     "arith.constant";
      });
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

  // Opsets: the imported ones, raised to 13 when Q/DQ ops need it.
  auto opsets = module->getAttrOfType<DictionaryAttr>(kOpsetImport);
  if (opsets)
    if (auto v = opsets.getAs<IntegerAttr>(kDefaultDomain))
      opset = v.getInt();
  bool hasQDQ = false;
  func.walk([&](Operation *op) {
    hasQDQ |= isa<QuantizeOp, DequantizeOp, FakeQuantOp>(op);
  });
  if (hasQDQ && opset < kQDQOpset) {
    emitWarning(func.getLoc())
        << "raising the default-domain opset from " << opset << " to "
        << kQDQOpset
        << " for QuantizeLinear/DequantizeLinear; generic "
           "nodes are written unchanged";
    opset = kQDQOpset;
  }
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
  int64_t irVersion = 8;
  if (auto v = module->getAttrOfType<IntegerAttr>(kIrVersion))
    irVersion = std::max<int64_t>(v.getInt(), hasQDQ ? 7 : 3);
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
                   llvm::count(outputNames, want) == 0 && !isa<BlockArgument>(v);
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
  return success();
}

LogicalResult ModelExporter::write(llvm::raw_ostream &os) {
  namespace io = google::protobuf::io;
  using WireFormat = google::protobuf::internal::WireFormatLite;

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
    size_t header = t.header.ByteSizeLong();
    headerSizes.push_back(header);
    graphSize += fieldSize(header + fieldSize(t.data.size()));
  }
  uint64_t total = model.ByteSizeLong() + fieldSize(graphSize);
  if (total > uint64_t(std::numeric_limits<int>::max()))
    return emitError(module.getLoc())
           << "the model is " << total
           << " bytes; protobuf limits a model to 2 GiB";

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

LogicalResult mlir::quant_qdq::exportONNX(ModuleOp module,
                                          llvm::raw_ostream &os,
                                          const ONNXExportOptions &options) {
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

  // The passes that prepare a module for ONNX run on a copy: export does
  // not change its input. The copy shares the weights' resource blobs.
  // Names first, so that a weight stored quantized keeps its tensor's name.
  OwningOpRef<ModuleOp> copy = module.clone();
  func::FuncOp copyFunc = copy->lookupSymbol<func::FuncOp>(func.getName());
  PassManager pm(module.getContext());
  pm.addPass(createNameTensors());
  pm.addPass(createWeightScales(WeightScalesOptions{options.activationAmax}));
  if (options.integerWeights)
    pm.addPass(createQuantizeWeights());
  if (failed(pm.run(*copy)))
    return failure();

  // Every check happens before the first byte is written: on failure `os`
  // is untouched.
  ModelExporter exporter(*copy, options);
  if (failed(exporter.exportFunction(copyFunc)))
    return failure();
  return exporter.write(os);
}
