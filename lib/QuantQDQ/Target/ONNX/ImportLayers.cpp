//===- ImportLayers.cpp - ONNX nodes that become quant_qdq layer ops ------===//
//
// One handler per ONNX op type. A handler maps the node only when the layer
// op means exactly what the node means; any attribute or shape it cannot
// carry (a 3-D convolution, Gemm with alpha != 1, a non-constant Reshape
// target) sends the node to quant_qdq.generic instead, which export writes
// back unchanged. Two peepholes run as their second node arrives:
// x * Sigmoid(x) becomes a swish activation (x * HardSigmoid(x) with
// alpha 1/6, beta 1/2 a hard_swish), and MatMul by a constant followed by
// Add of a constant vector becomes one dense layer with a bias.
//
//===----------------------------------------------------------------------===//

#include "ModelImporter.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cmath>

using namespace mlir;
using namespace mlir::quant_qdq;
using namespace mlir::quant_qdq::onnx_io;

using onnx::NodeProto;

namespace {
/// Shorthands shared by the handlers of one node.
struct NodeContext {
  ModelImporter &im;
  NodeProto &node;
  Builder b;

  NodeContext(ModelImporter &im, NodeProto &node)
      : im(im), node(node), b(im.getContext()) {}

  Value input(int i) { return im.getInput(node, i); }
  bool hasInput(int i) {
    return i < node.input_size() && !node.input(i).empty();
  }
  /// Defines output `i` (and checks that no other output is read).
  bool onlyFirstOutputUsed() {
    for (int i = 1; i < node.output_size(); ++i)
      if (!node.output(i).empty() && im.getNumUses(node.output(i)) != 0)
        return false;
    return true;
  }
  FailureOr<bool> define(FailureOr<Value> v) {
    if (failed(v))
      return failure();
    im.setValue(node.output(0), *v);
    return true;
  }
  NamedAttribute attr(StringRef name, Attribute value) {
    return b.getNamedAttr(name, value);
  }
  FailureOr<Value> create(StringRef opName, ValueRange operands,
                          ArrayRef<NamedAttribute> attrs,
                          Type resultType = {}) {
    return im.createLayer(node, opName, operands, attrs, resultType);
  }
};
} // namespace

/// The ranked floating-point tensor type of `v`, or null.
static RankedTensorType getFloatTensor(Value v) {
  auto type = v ? dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType();
  return type && isa<FloatType>(type.getElementType()) ? type
                                                       : RankedTensorType();
}

static bool isAll(ArrayRef<int64_t> values, int64_t x) {
  return llvm::all_of(values, [x](int64_t v) { return v == x; });
}

/// `value` with the same data seen as `type` (same element count): a
/// reshape or a reinterpretation of integer storage. Resource data is shared,
/// not copied.
static ElementsAttr retypeConstant(ElementsAttr value, ShapedType type) {
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (dense.getElementType() != type.getElementType())
      dense = dense.bitcast(type.getElementType());
    return cast<ElementsAttr>(dense.reshape(type));
  }
  auto resource = cast<DenseResourceElementsAttr>(value);
  return cast<ElementsAttr>(
      DenseResourceElementsAttr::get(type, resource.getRawHandle()));
}

//===----------------------------------------------------------------------===//
// Windowed layers
//===----------------------------------------------------------------------===//

namespace {
/// Window attributes of Conv, MaxPool and AveragePool, resolved to explicit
/// pads in [top, left, bottom, right] order (ONNX's order for 2-D).
struct Window {
  SmallVector<int64_t> kernel, strides{1, 1}, pads{0, 0, 0, 0}, dilations{1, 1};
};
} // namespace

/// Reads the window attributes; false when they are not 2-D or auto_pad
/// needs a shape that is unknown.
static FailureOr<bool> readWindow(NodeContext &c, RankedTensorType input,
                                  Window &w) {
  FailureOr<std::optional<SmallVector<int64_t>>> kernel =
      c.im.getIntsAttr(c.node, "kernel_shape");
  FailureOr<std::optional<SmallVector<int64_t>>> strides =
      c.im.getIntsAttr(c.node, "strides");
  FailureOr<std::optional<SmallVector<int64_t>>> pads =
      c.im.getIntsAttr(c.node, "pads");
  FailureOr<std::optional<SmallVector<int64_t>>> dilations =
      c.im.getIntsAttr(c.node, "dilations");
  FailureOr<std::string> autoPad =
      c.im.getStringAttr(c.node, "auto_pad", "NOTSET");
  if (failed(kernel) || failed(strides) || failed(pads) || failed(dilations) ||
      failed(autoPad))
    return failure();
  if (*kernel)
    w.kernel = **kernel;
  if (*strides)
    w.strides = **strides;
  if (*pads)
    w.pads = **pads;
  if (*dilations)
    w.dilations = **dilations;
  if (w.kernel.size() != 2 || w.strides.size() != 2 || w.pads.size() != 4 ||
      w.dilations.size() != 2)
    return false;
  if (*autoPad == "NOTSET")
    return true;
  if (*autoPad == "VALID") {
    w.pads.assign(4, 0);
    return true;
  }
  if (*autoPad != "SAME_UPPER" && *autoPad != "SAME_LOWER")
    return c.im.emitNodeError(c.node)
           << "unknown auto_pad '" << *autoPad << "'";
  for (int i = 0; i < 2; ++i) {
    int64_t size = input.getDimSize(2 + i);
    if (ShapedType::isDynamic(size) || w.strides[i] <= 0 ||
        w.dilations[i] <= 0 || w.kernel[i] <= 0)
      return false;
    int64_t out = (size + w.strides[i] - 1) / w.strides[i];
    int64_t span = (w.kernel[i] - 1) * w.dilations[i] + 1;
    int64_t total =
        std::max<int64_t>(0, (out - 1) * w.strides[i] + span - size);
    int64_t small = total / 2, large = total - small;
    bool upper = *autoPad == "SAME_UPPER";
    w.pads[i] = upper ? small : large;
    w.pads[i + 2] = upper ? large : small;
  }
  return true;
}

static FailureOr<bool> importConv(ModelImporter &im, NodeProto &node) {
  NodeContext c(im, node);
  Value x = c.input(0), w = c.input(1), bias = c.input(2);
  RankedTensorType xType = getFloatTensor(x), wType = getFloatTensor(w);
  if (!xType || !wType || xType.getRank() != 4 || wType.getRank() != 4)
    return false;
  if (bias && (!getFloatTensor(bias) || getFloatTensor(bias).getRank() != 1))
    return false;
  Window window;
  window.kernel = {wType.getDimSize(2), wType.getDimSize(3)};
  FailureOr<bool> ok = readWindow(c, xType, window);
  FailureOr<int64_t> group = im.getIntAttr(node, "group", 1);
  if (failed(ok) || failed(group))
    return failure();
  if (!*ok || ShapedType::isDynamic(window.kernel[0]) ||
      window.kernel[0] != wType.getDimSize(2) ||
      window.kernel[1] != wType.getDimSize(3))
    return false;
  SmallVector<Value> operands{x, w};
  if (bias)
    operands.push_back(bias);
  SmallVector<NamedAttribute> attrs;
  if (!isAll(window.strides, 1))
    attrs.push_back(
        c.attr("strides", c.b.getDenseI64ArrayAttr(window.strides)));
  if (!isAll(window.pads, 0))
    attrs.push_back(c.attr("pads", c.b.getDenseI64ArrayAttr(window.pads)));
  if (!isAll(window.dilations, 1))
    attrs.push_back(
        c.attr("dilations", c.b.getDenseI64ArrayAttr(window.dilations)));
  if (*group != 1)
    attrs.push_back(c.attr("groups", c.b.getI64IntegerAttr(*group)));
  return c.define(c.create(Conv2DOp::getOperationName(), operands, attrs));
}

static FailureOr<bool> importPool(ModelImporter &im, NodeProto &node) {
  NodeContext c(im, node);
  bool isMax = node.op_type() == "MaxPool";
  Value x = c.input(0);
  RankedTensorType xType = getFloatTensor(x);
  if (!xType || xType.getRank() != 4 || !c.onlyFirstOutputUsed())
    return false;
  Window window;
  FailureOr<bool> ok = readWindow(c, xType, window);
  FailureOr<int64_t> ceilMode = im.getIntAttr(node, "ceil_mode", 0);
  FailureOr<int64_t> countPad = im.getIntAttr(node, "count_include_pad", 0);
  FailureOr<int64_t> storageOrder = im.getIntAttr(node, "storage_order", 0);
  if (failed(ok) || failed(ceilMode) || failed(countPad) ||
      failed(storageOrder))
    return failure();
  if (!*ok || *storageOrder != 0 || (!isMax && !isAll(window.dilations, 1)))
    return false;
  SmallVector<NamedAttribute> attrs{
      c.attr("kernel_shape", c.b.getDenseI64ArrayAttr(window.kernel))};
  if (!isAll(window.strides, 1))
    attrs.push_back(
        c.attr("strides", c.b.getDenseI64ArrayAttr(window.strides)));
  if (!isAll(window.pads, 0))
    attrs.push_back(c.attr("pads", c.b.getDenseI64ArrayAttr(window.pads)));
  if (isMax && !isAll(window.dilations, 1))
    attrs.push_back(
        c.attr("dilations", c.b.getDenseI64ArrayAttr(window.dilations)));
  if (*ceilMode)
    attrs.push_back(c.attr("ceil_mode", c.b.getUnitAttr()));
  if (!isMax && *countPad)
    attrs.push_back(c.attr("count_include_pad", c.b.getUnitAttr()));
  StringRef opName =
      isMax ? MaxPool2DOp::getOperationName() : AvgPool2DOp::getOperationName();
  return c.define(c.create(opName, {x}, attrs));
}

static FailureOr<bool> importGlobalPool(ModelImporter &im, NodeProto &node) {
  NodeContext c(im, node);
  Value x = c.input(0);
  RankedTensorType xType = getFloatTensor(x);
  if (!xType || xType.getRank() != 4)
    return false;
  StringRef opName = node.op_type() == "GlobalMaxPool"
                         ? GlobalMaxPool2DOp::getOperationName()
                         : GlobalAvgPool2DOp::getOperationName();
  return c.define(c.create(opName, {x}, {}));
}

/// ReduceMean over H and W of an NCHW image is a global average pooling.
static FailureOr<bool> importReduceMean(ModelImporter &im, NodeProto &node) {
  NodeContext c(im, node);
  Value x = c.input(0);
  RankedTensorType xType = getFloatTensor(x);
  if (!xType || xType.getRank() != 4)
    return false;
  FailureOr<std::optional<SmallVector<int64_t>>> attrAxes =
      im.getIntsAttr(node, "axes");
  FailureOr<int64_t> keepDims = im.getIntAttr(node, "keepdims", 1);
  if (failed(attrAxes) || failed(keepDims))
    return failure();
  std::optional<SmallVector<int64_t>> axes = *attrAxes;
  if (!axes && c.hasInput(1))
    axes = im.getConstantInts(node.input(1));
  if (!axes || axes->size() != 2)
    return false;
  SmallVector<int64_t> normalized;
  for (int64_t a : *axes)
    normalized.push_back(a < 0 ? a + 4 : a);
  llvm::sort(normalized);
  if (normalized != SmallVector<int64_t>{2, 3})
    return false;
  return c.define(c.create(GlobalAvgPool2DOp::getOperationName(), {x},
                           {c.attr("keep_dims", c.b.getBoolAttr(*keepDims))}));
}

//===----------------------------------------------------------------------===//
// Dense layers
//===----------------------------------------------------------------------===//

/// A constant bias of `units` values, as a 1-D constant (ONNX writes Gemm
/// biases as [N] or [1, N]); null when `name` is not one.
static Value getBiasVector(ModelImporter &im, StringRef name, int64_t units,
                           Type elementType) {
  FailureOr<ElementsAttr> value = im.getConstant(name);
  if (failed(value) || !*value)
    return {};
  auto type = cast<ShapedType>(value->getType());
  if (type.getElementType() != elementType || !type.hasStaticShape() ||
      type.getNumElements() != units || units == ShapedType::kDynamic ||
      type.getRank() < 1 || type.getShape().back() != units)
    return {};
  if (type.getRank() == 1)
    return im.getValue(name);
  auto vectorType = RankedTensorType::get({units}, elementType);
  ElementsAttr vector = retypeConstant(*value, vectorType);
  Location loc = NameLoc::get(StringAttr::get(im.getContext(), name),
                              UnknownLoc::get(im.getContext()));
  return arith::ConstantOp::create(im.getBuilder(), loc,
                                   cast<TypedAttr>(vector));
}

static FailureOr<bool> importGemm(ModelImporter &im, NodeProto &node) {
  NodeContext c(im, node);
  Value a = c.input(0), bMat = c.input(1);
  RankedTensorType aType = getFloatTensor(a), bType = getFloatTensor(bMat);
  if (!aType || !bType || aType.getRank() != 2 || bType.getRank() != 2)
    return false;
  FailureOr<int64_t> transA = im.getIntAttr(node, "transA", 0);
  FailureOr<int64_t> transB = im.getIntAttr(node, "transB", 0);
  FailureOr<float> alpha = im.getFloatAttr(node, "alpha", 1.0f);
  FailureOr<float> beta = im.getFloatAttr(node, "beta", 1.0f);
  if (failed(transA) || failed(transB) || failed(alpha) || failed(beta))
    return failure();
  if (*transA != 0 || *alpha != 1.0f || (c.hasInput(2) && *beta != 1.0f))
    return false;
  SmallVector<Value> operands{a, bMat};
  if (c.hasInput(2)) {
    int64_t units = bType.getDimSize(*transB ? 0 : 1);
    Value bias =
        getBiasVector(im, node.input(2), units, aType.getElementType());
    if (!bias) {
      // A non-constant 1-D bias works as it is.
      bias = c.input(2);
      RankedTensorType biasType = getFloatTensor(bias);
      if (!biasType || biasType.getRank() != 1)
        return false;
    }
    operands.push_back(bias);
  }
  SmallVector<NamedAttribute> attrs;
  if (*transB)
    attrs.push_back(c.attr("transpose_weight", c.b.getUnitAttr()));
  return c.define(c.create(DenseOp::getOperationName(), operands, attrs));
}

static FailureOr<bool> importMatMul(ModelImporter &im, NodeProto &node) {
  NodeContext c(im, node);
  Value a = c.input(0);
  RankedTensorType aType = getFloatTensor(a);
  FailureOr<ElementsAttr> weight =
      node.input_size() > 1 ? im.getConstant(node.input(1)) : ElementsAttr();
  if (failed(weight))
    return failure();
  if (!aType || !*weight || cast<ShapedType>(weight->getType()).getRank() != 2)
    return false;
  return c.define(c.create(DenseOp::getOperationName(), {a, c.input(1)}, {}));
}

//===----------------------------------------------------------------------===//
// Normalization and activations
//===----------------------------------------------------------------------===//

static FailureOr<bool> importBatchNorm(ModelImporter &im, NodeProto &node) {
  NodeContext c(im, node);
  if (node.input_size() != 5 || !c.onlyFirstOutputUsed())
    return false;
  SmallVector<Value> operands;
  for (int i = 0; i < 5; ++i) {
    Value v = c.input(i);
    RankedTensorType type = getFloatTensor(v);
    if (!type || (i > 0 && type.getRank() != 1) ||
        (i == 0 && type.getRank() < 2))
      return false;
    operands.push_back(v);
  }
  FailureOr<float> epsilon = im.getFloatAttr(node, "epsilon", 1e-5f);
  FailureOr<int64_t> training = im.getIntAttr(node, "training_mode", 0);
  FailureOr<int64_t> spatial = im.getIntAttr(node, "spatial", 1);
  if (failed(epsilon) || failed(training) || failed(spatial))
    return failure();
  if (*training != 0 || *spatial != 1)
    return false;
  SmallVector<NamedAttribute> attrs;
  if (*epsilon != 1e-5f)
    attrs.push_back(c.attr("epsilon", c.b.getF32FloatAttr(*epsilon)));
  return c.define(c.create(BatchNormOp::getOperationName(), operands, attrs,
                           operands[0].getType()));
}

/// Creates `quant_qdq.activation kind` on `x` for `node`.
static FailureOr<Value> createActivation(NodeContext &c, Value x,
                                         ActivationKind kind,
                                         ArrayRef<NamedAttribute> params = {}) {
  SmallVector<NamedAttribute> attrs(params.begin(), params.end());
  attrs.push_back(
      c.attr("kind", ActivationKindAttr::get(c.im.getContext(), kind)));
  return c.create(ActivationOp::getOperationName(), {x}, attrs, x.getType());
}

static FailureOr<bool> importActivation(ModelImporter &im, NodeProto &node) {
  NodeContext c(im, node);
  Value x = c.input(0);
  if (!getFloatTensor(x))
    return false;
  static const llvm::StringMap<ActivationKind> simple = {
      {"Relu", ActivationKind::Relu},
      {"Sigmoid", ActivationKind::Sigmoid},
      {"Tanh", ActivationKind::Tanh},
      {"Softplus", ActivationKind::Softplus},
      {"HardSwish", ActivationKind::HardSwish}};
  StringRef op = node.op_type();
  if (auto it = simple.find(op); it != simple.end())
    return c.define(createActivation(c, x, it->second));

  SmallVector<NamedAttribute> params;
  ActivationKind kind;
  float defaultAlpha;
  if (op == "LeakyRelu") {
    kind = ActivationKind::LeakyRelu;
    defaultAlpha = 0.01f;
  } else if (op == "Elu") {
    kind = ActivationKind::Elu;
    defaultAlpha = 1.0f;
  } else { // HardSigmoid
    kind = ActivationKind::HardSigmoid;
    defaultAlpha = 0.2f;
    FailureOr<float> beta = im.getFloatAttr(node, "beta", 0.5f);
    if (failed(beta))
      return failure();
    params.push_back(c.attr("beta", c.b.getF32FloatAttr(*beta)));
  }
  FailureOr<float> alpha = im.getFloatAttr(node, "alpha", defaultAlpha);
  if (failed(alpha))
    return failure();
  params.push_back(c.attr("alpha", c.b.getF32FloatAttr(*alpha)));
  return c.define(createActivation(c, x, kind, params));
}

static FailureOr<bool> importClip(ModelImporter &im, NodeProto &node) {
  NodeContext c(im, node);
  Value x = c.input(0);
  if (!getFloatTensor(x))
    return false;
  float lo = -INFINITY, hi = INFINITY;
  if (im.getOpset("") < 11) {
    FailureOr<float> min = im.getFloatAttr(node, "min", -INFINITY);
    FailureOr<float> max = im.getFloatAttr(node, "max", INFINITY);
    if (failed(min) || failed(max))
      return failure();
    lo = *min;
    hi = *max;
  } else {
    for (int i : {1, 2}) {
      if (!c.hasInput(i))
        continue;
      std::optional<SmallVector<float>> bound =
          im.getConstantFloats(node.input(i));
      if (!bound || bound->size() != 1)
        return false;
      (i == 1 ? lo : hi) = bound->front();
    }
  }
  if (std::isnan(lo) || std::isnan(hi) || lo > hi)
    return false;
  if (lo == 0.0f && hi == 6.0f)
    return c.define(createActivation(c, x, ActivationKind::Relu6));
  if (lo == 0.0f && std::isinf(hi))
    return c.define(createActivation(c, x, ActivationKind::Relu));
  return c.define(createActivation(c, x, ActivationKind::Clip,
                                   {c.attr("min", c.b.getF32FloatAttr(lo)),
                                    c.attr("max", c.b.getF32FloatAttr(hi))}));
}

static FailureOr<bool> importSoftmax(ModelImporter &im, NodeProto &node) {
  NodeContext c(im, node);
  Value x = c.input(0);
  RankedTensorType type = getFloatTensor(x);
  if (!type)
    return false;
  bool old = im.getOpset("") < 13;
  FailureOr<int64_t> axis = im.getIntAttr(node, "axis", old ? 1 : -1);
  if (failed(axis))
    return failure();
  int64_t rank = type.getRank();
  if (*axis < -rank || *axis >= rank)
    return false;
  int64_t normalized = *axis < 0 ? *axis + rank : *axis;
  // Before opset 13 Softmax flattens at `axis` into 2-D; that is a softmax
  // along one axis only when `axis` is the last one.
  if (old && normalized != rank - 1)
    return false;
  SmallVector<NamedAttribute> attrs;
  if (normalized != rank - 1)
    attrs.push_back(c.attr("axis", c.b.getI64IntegerAttr(normalized)));
  return c.define(
      c.create(SoftmaxOp::getOperationName(), {x}, attrs, x.getType()));
}

//===----------------------------------------------------------------------===//
// Multi-input layers
//===----------------------------------------------------------------------===//

/// The activation op producing `v` with `kind`, if `v`'s tensor has no
/// other reader (the peepholes erase it).
static ActivationOp getSoleActivation(ModelImporter &im, StringRef name,
                                      Value v, ActivationKind kind) {
  auto act = v ? v.getDefiningOp<ActivationOp>() : ActivationOp();
  if (!act || act.getKind() != kind || im.getNumUses(name) != 1 ||
      im.isGraphOutput(name) || !act->use_empty())
    return {};
  return act;
}

/// x * Sigmoid(x) -> swish(x); x * HardSigmoid(x) with the hard-swish
/// constants -> hard_swish(x).
static FailureOr<bool> tryGatedActivation(NodeContext &c) {
  if (c.node.input_size() != 2)
    return false;
  for (int i : {0, 1}) {
    Value x = c.input(i), gate = c.input(1 - i);
    StringRef gateName = c.node.input(1 - i);
    if (auto sigmoid =
            getSoleActivation(c.im, gateName, gate, ActivationKind::Sigmoid);
        sigmoid && sigmoid.getInput() == x) {
      sigmoid->erase();
      return c.define(createActivation(c, x, ActivationKind::Swish));
    }
    if (auto hard = getSoleActivation(c.im, gateName, gate,
                                      ActivationKind::HardSigmoid);
        hard && hard.getInput() == x && hard.getAlpha() && hard.getBeta() &&
        std::abs(hard.getAlpha()->convertToFloat() - 1.0f / 6.0f) < 1e-6f &&
        std::abs(hard.getBeta()->convertToFloat() - 0.5f) < 1e-6f) {
      hard->erase();
      return c.define(createActivation(c, x, ActivationKind::HardSwish));
    }
  }
  return false;
}

/// Add(MatMul(x, W), b) with a constant vector b -> dense(x, W, b).
static FailureOr<bool> tryDenseBias(NodeContext &c) {
  if (c.node.input_size() != 2)
    return false;
  for (int i : {0, 1}) {
    StringRef name = c.node.input(i);
    auto dense = c.input(i) ? c.input(i).getDefiningOp<DenseOp>() : DenseOp();
    if (!dense || dense.getBias() || !dense->use_empty() ||
        c.im.getNumUses(name) != 1 || c.im.isGraphOutput(name))
      continue;
    RankedTensorType outType = dense.getOutput().getType();
    Value bias =
        getBiasVector(c.im, c.node.input(1 - i), outType.getShape().back(),
                      outType.getElementType());
    if (!bias)
      continue;
    // Keep the MatMul's name and location: the layer is the MatMul.
    OpBuilder &builder = c.im.getBuilder();
    auto fused = DenseOp::create(
        builder, dense.getLoc(), outType, dense.getInput(), dense.getWeight(),
        bias, dense.getNameAttr(), dense.getTransposeWeightAttr());
    dense->erase();
    c.im.setValue(c.node.output(0), fused.getResult());
    return true;
  }
  return false;
}

static FailureOr<bool> importElementwise(ModelImporter &im, NodeProto &node) {
  NodeContext c(im, node);
  SmallVector<Value> inputs;
  Type elementType;
  for (int i = 0; i < node.input_size(); ++i) {
    RankedTensorType type = getFloatTensor(c.input(i));
    if (!type || (elementType && type.getElementType() != elementType))
      return false;
    elementType = type.getElementType();
    inputs.push_back(c.input(i));
  }
  if (inputs.size() == 1 && node.op_type() == "Sum") {
    im.setValue(node.output(0), inputs.front());
    return true;
  }
  if (inputs.size() < 2)
    return false;
  bool isMul = node.op_type() == "Mul";
  FailureOr<bool> peephole = isMul ? tryGatedActivation(c) : tryDenseBias(c);
  if (failed(peephole) || *peephole)
    return peephole;
  StringRef opName =
      isMul ? MultiplyOp::getOperationName() : AddOp::getOperationName();
  return c.define(c.create(opName, inputs, {}));
}

static FailureOr<bool> importConcat(ModelImporter &im, NodeProto &node) {
  NodeContext c(im, node);
  SmallVector<Value> inputs;
  for (int i = 0; i < node.input_size(); ++i) {
    if (!getFloatTensor(c.input(i)))
      return false;
    inputs.push_back(c.input(i));
  }
  FailureOr<int64_t> axis = im.getIntAttr(node, "axis", 0);
  if (failed(axis))
    return failure();
  if (inputs.empty())
    return false;
  return c.define(c.create(ConcatOp::getOperationName(), inputs,
                           {c.attr("axis", c.b.getI64IntegerAttr(*axis))}));
}

//===----------------------------------------------------------------------===//
// Shape-only layers
//===----------------------------------------------------------------------===//

static FailureOr<bool> importFlatten(ModelImporter &im, NodeProto &node) {
  NodeContext c(im, node);
  Value x = c.input(0);
  RankedTensorType type = getFloatTensor(x);
  FailureOr<int64_t> axis = im.getIntAttr(node, "axis", 1);
  if (failed(axis))
    return failure();
  if (!type)
    return false;
  int64_t rank = type.getRank();
  if (*axis < -rank || *axis > rank)
    return false;
  int64_t normalized = *axis < 0 ? *axis + rank : *axis;
  SmallVector<NamedAttribute> attrs;
  if (normalized != 1)
    attrs.push_back(c.attr("axis", c.b.getI64IntegerAttr(normalized)));
  return c.define(c.create(FlattenOp::getOperationName(), {x}, attrs));
}

static FailureOr<bool> importReshape(ModelImporter &im, NodeProto &node) {
  NodeContext c(im, node);
  Value x = c.input(0);
  RankedTensorType type = getFloatTensor(x);
  FailureOr<int64_t> allowZero = im.getIntAttr(node, "allowzero", 0);
  if (failed(allowZero))
    return failure();
  if (!type || !c.hasInput(1))
    return false;
  std::optional<SmallVector<int64_t>> shape = im.getConstantInts(node.input(1));
  if (!shape)
    return false;
  // Resolve ONNX's 0 ("copy this input dimension"); a copied dynamic
  // dimension becomes the one -1 when there is none yet.
  bool hasMinusOne = llvm::is_contained(*shape, -1);
  for (auto [i, d] : llvm::enumerate(*shape)) {
    if (d != 0 || *allowZero)
      continue;
    if (int64_t(i) >= type.getRank())
      return false;
    d = type.getDimSize(i);
    if (ShapedType::isDynamic(d)) {
      if (hasMinusOne)
        return false;
      d = -1;
      hasMinusOne = true;
    }
  }
  if (llvm::any_of(*shape, [](int64_t d) { return d == 0 || d < -1; }))
    return false;
  // With a static input the -1 is known too.
  if (hasMinusOne && type.hasStaticShape()) {
    int64_t known = 1;
    for (int64_t d : *shape)
      if (d != -1)
        known *= d;
    if (known != 0 && type.getNumElements() % known == 0)
      for (int64_t &d : *shape)
        if (d == -1)
          d = type.getNumElements() / known;
  }
  return c.define(
      c.create(ReshapeOp::getOperationName(), {x},
               {c.attr("shape", c.b.getDenseI64ArrayAttr(*shape))}));
}

static FailureOr<bool> importTranspose(ModelImporter &im, NodeProto &node) {
  NodeContext c(im, node);
  Value x = c.input(0);
  RankedTensorType type = getFloatTensor(x);
  FailureOr<std::optional<SmallVector<int64_t>>> perm =
      im.getIntsAttr(node, "perm");
  if (failed(perm))
    return failure();
  if (!type)
    return false;
  SmallVector<int64_t> p;
  if (*perm)
    p = **perm;
  else
    for (int64_t d = type.getRank() - 1; d >= 0; --d)
      p.push_back(d);
  return c.define(c.create(TransposeOp::getOperationName(), {x},
                           {c.attr("perm", c.b.getDenseI64ArrayAttr(p))}));
}

static FailureOr<bool> importPad(ModelImporter &im, NodeProto &node) {
  NodeContext c(im, node);
  Value x = c.input(0);
  RankedTensorType type = getFloatTensor(x);
  FailureOr<std::string> mode = im.getStringAttr(node, "mode", "constant");
  if (failed(mode))
    return failure();
  if (!type)
    return false;
  std::optional<SmallVector<int64_t>> pads;
  float value = 0.0f;
  if (im.getOpset("") < 11) {
    FailureOr<std::optional<SmallVector<int64_t>>> attr =
        im.getIntsAttr(node, "pads");
    FailureOr<float> v = im.getFloatAttr(node, "value", 0.0f);
    if (failed(attr) || failed(v))
      return failure();
    pads = *attr;
    value = *v;
  } else {
    if (c.hasInput(3) || !c.hasInput(1))
      return false;
    pads = im.getConstantInts(node.input(1));
    if (c.hasInput(2)) {
      std::optional<SmallVector<float>> v = im.getConstantFloats(node.input(2));
      if (!v || v->size() != 1)
        return false;
      value = v->front();
    }
  }
  std::optional<PadMode> padMode = symbolizePadMode(*mode);
  if (!pads || !padMode || llvm::any_of(*pads, [](int64_t p) { return p < 0; }))
    return false;
  SmallVector<NamedAttribute> attrs{
      c.attr("pads", c.b.getDenseI64ArrayAttr(*pads))};
  if (*padMode != PadMode::Constant)
    attrs.push_back(
        c.attr("mode", PadModeAttr::get(im.getContext(), *padMode)));
  if (value != 0.0f)
    attrs.push_back(c.attr("value", c.b.getF32FloatAttr(value)));
  return c.define(c.create(PadOp::getOperationName(), {x}, attrs));
}

/// Identity and inference-mode Dropout: the output is the input.
static FailureOr<bool> importIdentity(ModelImporter &im, NodeProto &node) {
  NodeContext c(im, node);
  Value x = c.input(0);
  if (!x || !c.onlyFirstOutputUsed())
    return false;
  if (node.op_type() == "Dropout" && c.hasInput(2)) {
    std::optional<SmallVector<int64_t>> training =
        im.getConstantInts(node.input(2));
    if (!training || training->size() != 1 || training->front() != 0)
      return false;
  }
  im.setValue(node.output(0), x);
  return true;
}

//===----------------------------------------------------------------------===//
// Quantize and dequantize
//===----------------------------------------------------------------------===//

static FailureOr<bool> importQDQ(ModelImporter &im, NodeProto &node) {
  NodeContext c(im, node);
  bool isQuantize = node.op_type() == "QuantizeLinear";
  if (!c.hasInput(1) || !c.hasInput(0))
    return false;
  std::optional<SmallVector<float>> scales =
      im.getConstantFloats(node.input(1));
  FailureOr<ElementsAttr> scaleAttr = im.getConstant(node.input(1));
  if (failed(scaleAttr))
    return failure();
  if (!scales || scales->empty() ||
      !cast<ShapedType>(scaleAttr->getType()).getElementType().isF32() ||
      llvm::any_of(*scales,
                   [](float s) { return !std::isfinite(s) || s <= 0.0f; }))
    return false;

  // The zero point's type is the storage type; without one it is uint8.
  bool isSigned = false;
  SmallVector<int64_t> zeroPoints(scales->size(), 0);
  if (c.hasInput(2)) {
    FailureOr<ElementsAttr> zpAttr = im.getConstant(node.input(2));
    if (failed(zpAttr))
      return failure();
    std::optional<SmallVector<int64_t>> zps = im.getConstantInts(node.input(2));
    if (!*zpAttr || !zps || zps->size() != scales->size())
      return false;
    auto zpType = dyn_cast<IntegerType>(
        cast<ShapedType>(zpAttr->getType()).getElementType());
    if (!zpType || zpType.getWidth() != 8)
      return false;
    isSigned = !zpType.isUnsigned();
    zeroPoints = *zps;
  }

  // The float side and the storage side.
  Value input;
  RankedTensorType floatType, storageType;
  auto i8 = IntegerType::get(im.getContext(), 8);
  if (isQuantize) {
    input = c.input(0);
    floatType = getFloatTensor(input);
    if (!floatType || !floatType.getElementType().isF32())
      return false;
    storageType = RankedTensorType::get(floatType.getShape(), i8);
  } else {
    // Storage read from an initializer is reinterpreted as signless i8, the
    // dialect's storage type; the quantizer remembers the signedness.
    FailureOr<ElementsAttr> constant = im.getConstant(node.input(0));
    if (failed(constant))
      return failure();
    if (*constant) {
      auto type = cast<RankedTensorType>(constant->getType());
      auto intType = dyn_cast<IntegerType>(type.getElementType());
      if (!intType || intType.getWidth() != 8 ||
          intType.isUnsigned() == isSigned)
        return false;
      storageType = RankedTensorType::get(type.getShape(), i8);
      if (intType.isSignless()) {
        input = c.input(0);
      } else {
        Location loc =
            NameLoc::get(StringAttr::get(im.getContext(), node.input(0)),
                         UnknownLoc::get(im.getContext()));
        input = arith::ConstantOp::create(
            im.getBuilder(), loc,
            cast<TypedAttr>(retypeConstant(*constant, storageType)));
      }
    } else {
      input = c.input(0);
      storageType = input ? dyn_cast<RankedTensorType>(input.getType())
                          : RankedTensorType();
      if (!storageType || !storageType.getElementType().isSignlessInteger(8))
        return false;
    }
    floatType = RankedTensorType::get(storageType.getShape(),
                                      Float32Type::get(im.getContext()));
  }

  std::optional<int64_t> axis;
  auto scaleType = cast<ShapedType>(scaleAttr->getType());
  if (scaleType.getRank() == 1 &&
      !(scales->size() == 1 && floatType.getRank() == 0)) {
    FailureOr<int64_t> a = im.getIntAttr(node, "axis", 1);
    if (failed(a))
      return failure();
    int64_t rank = floatType.getRank();
    if (*a < -rank || *a >= rank)
      return false;
    axis = *a < 0 ? *a + rank : *a;
    // A one-element scale along an axis of another size is per tensor.
    if (scales->size() == 1 && floatType.getDimSize(*axis) != 1)
      axis.reset();
  } else if (scaleType.getRank() > 1) {
    return false;
  }

  bool symmetric =
      isSigned && llvm::all_of(zeroPoints, [](int64_t z) { return z == 0; });
  auto quantizer = QuantizerAttr::get(im.getContext(), 8, isSigned,
                                      /*narrow_range=*/false, symmetric, axis);
  SmallVector<NamedAttribute> attrs{
      c.attr("quantizer", quantizer),
      c.attr("scale", c.b.getDenseF32ArrayAttr(*scales))};
  if (!llvm::all_of(zeroPoints, [](int64_t z) { return z == 0; })) {
    SmallVector<int32_t> zp(zeroPoints.begin(), zeroPoints.end());
    attrs.push_back(c.attr("zero_point", c.b.getDenseI32ArrayAttr(zp)));
  }
  StringRef opName = isQuantize ? QuantizeOp::getOperationName()
                                : DequantizeOp::getOperationName();
  return c.define(
      c.create(opName, {input}, attrs, isQuantize ? storageType : floatType));
}

//===----------------------------------------------------------------------===//
// Registry
//===----------------------------------------------------------------------===//

const llvm::StringMap<NodeHandler> &onnx_io::getLayerHandlers() {
  static const llvm::StringMap<NodeHandler> handlers = {
      {"Conv", importConv},
      {"MaxPool", importPool},
      {"AveragePool", importPool},
      {"GlobalAveragePool", importGlobalPool},
      {"GlobalMaxPool", importGlobalPool},
      {"ReduceMean", importReduceMean},
      {"Gemm", importGemm},
      {"MatMul", importMatMul},
      {"BatchNormalization", importBatchNorm},
      {"Relu", importActivation},
      {"Sigmoid", importActivation},
      {"Tanh", importActivation},
      {"Softplus", importActivation},
      {"HardSwish", importActivation},
      {"HardSigmoid", importActivation},
      {"LeakyRelu", importActivation},
      {"Elu", importActivation},
      {"Clip", importClip},
      {"Softmax", importSoftmax},
      {"Add", importElementwise},
      {"Sum", importElementwise},
      {"Mul", importElementwise},
      {"Concat", importConcat},
      {"Flatten", importFlatten},
      {"Reshape", importReshape},
      {"Transpose", importTranspose},
      {"Pad", importPad},
      {"Identity", importIdentity},
      {"Dropout", importIdentity},
      {"QuantizeLinear", importQDQ},
      {"DequantizeLinear", importQDQ},
  };
  return handlers;
}
