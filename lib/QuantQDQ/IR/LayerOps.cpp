//===- LayerOps.cpp - verifiers, folds and interface answers of layers ----===//

#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include <cmath>

using namespace mlir;
using namespace mlir::quant_qdq;

//===----------------------------------------------------------------------===//
// Conv2DOp and DenseOp: the weighted layers
//===----------------------------------------------------------------------===//

int64_t Conv2DOp::getInputChannels() {
  return getInput().getType().getDimSize(getLayout() == Layout::NHWC ? 3 : 1);
}

bool Conv2DOp::isDepthwise() {
  int64_t groups = getGroups();
  return groups > 1 && groups == getInputChannels();
}

StringRef Conv2DOp::getLayerClass() {
  if (auto own = getFrontEndLayerClass(*this))
    return *own;
  return isDepthwise() ? StringRef("DepthwiseConv2D") : getDefaultLayerClass();
}

std::optional<unsigned> Conv2DOp::getWeightOperandIndex() {
  return odsIndex_weight;
}

// Output channels are the O of OIHW (NCHW) or of HWIO (NHWC); a depthwise
// weight is laid out the same way with C/groups == 1.
std::optional<int64_t> Conv2DOp::getWeightChannelAxis() {
  return getLayout() == Layout::NHWC ? 3 : 0;
}

std::optional<int64_t> Conv2DOp::getWeightReductionAxis() {
  return getLayout() == Layout::NHWC ? 2 : 1;
}

/// Each output element sums input channels / groups x kH x kW products:
/// the weight's size over its output channels, in either layout.
int64_t Conv2DOp::getMultiplyAccumulates() {
  auto weight = getWeight().getType();
  int64_t outputChannels = weight.getDimSize(*getWeightChannelAxis());
  if (ShapedType::isDynamic(outputChannels) || outputChannels == 0)
    return getStaticElementCount(getOutput().getType());
  return getStaticElementCount(getOutput().getType()) *
         (getStaticElementCount(weight) / outputChannels);
}

std::optional<unsigned> DenseOp::getWeightOperandIndex() {
  return odsIndex_weight;
}

std::optional<int64_t> DenseOp::getWeightChannelAxis() {
  return getTransposeWeight() ? 0 : 1;
}

std::optional<int64_t> DenseOp::getWeightReductionAxis() {
  return getTransposeWeight() ? 1 : 0;
}

int64_t DenseOp::getMultiplyAccumulates() {
  int64_t k = getWeight().getType().getDimSize(*getWeightReductionAxis());
  return getStaticElementCount(getOutput().getType()) *
         (ShapedType::isDynamic(k) ? 1 : k);
}

//===----------------------------------------------------------------------===//
// BatchNormOp
//===----------------------------------------------------------------------===//

int64_t BatchNormOp::getChannelAxis() {
  return getLayout() == Layout::NHWC ? getInput().getType().getRank() - 1 : 1;
}

LogicalResult BatchNormOp::verify() {
  RankedTensorType input = getInput().getType();
  if (input.getRank() < 2)
    return emitOpError("expects an input of rank >= 2, got ")
           << input.getRank();
  float epsilon = getEpsilon().convertToFloat();
  if (!std::isfinite(epsilon) || epsilon <= 0.0f)
    return emitOpError("epsilon must be positive and finite, got ") << epsilon;
  int64_t channels = input.getDimSize(getChannelAxis());
  for (Value param : {getScale(), getBias(), getMean(), getVariance()}) {
    int64_t size = cast<RankedTensorType>(param.getType()).getDimSize(0);
    if (!ShapedType::isDynamic(channels) && !ShapedType::isDynamic(size) &&
        size != channels)
      return emitOpError("expects ")
             << channels << " values per parameter (one per channel), got "
             << size;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ActivationOp
//===----------------------------------------------------------------------===//

// The kind prints as a bare keyword: `quant_qdq.activation relu %x`.
static ParseResult parseActivationKind(OpAsmParser &parser,
                                       ActivationKindAttr &kind) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<ActivationKind> value = symbolizeActivationKind(keyword);
  if (!value)
    return parser.emitError(loc, "unknown activation kind '") << keyword << "'";
  kind = ActivationKindAttr::get(parser.getContext(), *value);
  return success();
}

static void printActivationKind(OpAsmPrinter &printer, Operation *,
                                ActivationKindAttr kind) {
  printer << stringifyActivationKind(kind.getValue());
}

LogicalResult ActivationOp::verify() {
  ActivationKind kind = getKind();
  bool usesAlpha = kind == ActivationKind::LeakyRelu ||
                   kind == ActivationKind::HardSigmoid ||
                   kind == ActivationKind::Elu;
  bool usesBeta = kind == ActivationKind::HardSigmoid;
  bool usesBounds = kind == ActivationKind::Clip;
  auto reject = [&](StringRef attr) {
    return emitOpError("'") << attr << "' does not apply to the '"
                            << stringifyActivationKind(kind) << "' activation";
  };
  if (getAlphaAttr() && !usesAlpha)
    return reject("alpha");
  if (getBetaAttr() && !usesBeta)
    return reject("beta");
  if ((getMinAttr() || getMaxAttr()) && !usesBounds)
    return reject(getMinAttr() ? "min" : "max");
  if (usesBounds) {
    if (!getMinAttr() || !getMaxAttr())
      return emitOpError("a clip activation needs both 'min' and 'max'");
    float lo = getMinAttr().getValueAsDouble();
    float hi = getMaxAttr().getValueAsDouble();
    if (std::isnan(lo) || std::isnan(hi) || lo > hi)
      return emitOpError("clip bounds must satisfy min <= max, got [")
             << lo << ", " << hi << "]";
  }
  for (FloatAttr attr : {getAlphaAttr(), getBetaAttr()})
    if (attr && !std::isfinite(attr.getValueAsDouble()))
      return emitOpError("activation parameters must be finite");
  return success();
}

/// ONNX Runtime's QLinearSigmoid and QLinearLeakyRelu, and a swish split
/// into the first and a QLinearMul; the others run in float (relu and
/// clip(0, c) vanish into the quantize that follows them).
bool ActivationOp::hasQLinearKernel() {
  return getKind() == ActivationKind::Sigmoid ||
         getKind() == ActivationKind::LeakyRelu ||
         getKind() == ActivationKind::Swish;
}

//===----------------------------------------------------------------------===//
// AddOp, MultiplyOp
//===----------------------------------------------------------------------===//

/// Whether `op` is a two-input `Layer`, or the ONNX node `onnxType` kept
/// generic with two inputs.
template <typename Layer>
static bool isBinaryLayerOrNode(Operation *op, StringRef onnxType) {
  if (!op || op->getNumOperands() != 2)
    return false;
  auto generic = dyn_cast<GenericOp>(op);
  return isa<Layer>(op) || (generic && generic.isDefaultDomainNode(onnxType));
}

bool AddOp::isBinaryForm(Operation *op) {
  return isBinaryLayerOrNode<AddOp>(op, "Add");
}

bool MultiplyOp::isBinaryForm(Operation *op) {
  return isBinaryLayerOrNode<MultiplyOp>(op, "Mul");
}

//===----------------------------------------------------------------------===//
// SoftmaxOp
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::verify() {
  int64_t rank = getInput().getType().getRank();
  int64_t axis = getAxis();
  if (axis < -rank || axis >= rank)
    return emitOpError("axis ") << axis << " is out of range for rank " << rank;
  return success();
}

std::optional<std::pair<double, double>> SoftmaxOp::getOutputBounds() {
  return std::make_pair(0.0, 1.0);
}

//===----------------------------------------------------------------------===//
// LayerNormOp, RMSNormOp
//===----------------------------------------------------------------------===//

/// The first dimension of `input` that a normalization from `axis`
/// normalizes, counted from the front. (The ops' I64Attr accessors return
/// uint64_t; `axis` reads them as int64_t.)
static int64_t getNormalizedAxisOf(RankedTensorType input, int64_t axis) {
  return axis < 0 ? axis + input.getRank() : axis;
}

/// Whether a parameter of `type` has `input`'s element type and a shape
/// that broadcasts to the dimensions a normalization from `axis`
/// normalizes, never beyond them.
static bool fitsNormalizedDimsOf(RankedTensorType input, int64_t axis,
                                 RankedTensorType type) {
  if (type.getElementType() != input.getElementType())
    return false;
  ArrayRef<int64_t> normalized =
      input.getShape().drop_front(getNormalizedAxisOf(input, axis));
  ArrayRef<int64_t> shape = type.getShape();
  if (shape.size() > normalized.size())
    return false;
  for (size_t i = 1; i <= shape.size(); ++i) {
    int64_t have = shape[shape.size() - i];
    int64_t want = normalized[normalized.size() - i];
    if (have != 1 && !ShapedType::isDynamic(have) &&
        !ShapedType::isDynamic(want) && have != want)
      return false;
  }
  return true;
}

/// The axis, the epsilon and the `parameters` (role, value or null) of a
/// normalization.
template <typename NormOp>
static LogicalResult
verifyNormalization(NormOp op,
                    ArrayRef<std::pair<StringRef, Value>> parameters) {
  RankedTensorType input = op.getInput().getType();
  int64_t rank = input.getRank(), axis = op.getAxis();
  if (axis < -rank || axis >= rank)
    return op.emitOpError("axis ")
           << axis << " is out of range for rank " << rank;
  float epsilon = op.getEpsilon().convertToFloat();
  if (!(epsilon >= 0.0f) || !std::isfinite(epsilon))
    return op.emitOpError("epsilon must be finite and non-negative, got ")
           << epsilon;
  for (auto [role, value] : parameters)
    if (value && !fitsNormalizedDimsOf(input, axis,
                                       cast<RankedTensorType>(value.getType())))
      return op.emitOpError()
             << role << " of type " << value.getType()
             << " does not broadcast to the normalized dimensions of " << input;
  return success();
}

int64_t LayerNormOp::getNormalizedAxis() {
  return getNormalizedAxisOf(getInput().getType(), getAxis());
}

bool LayerNormOp::fitsNormalizedDims(RankedTensorType type) {
  return fitsNormalizedDimsOf(getInput().getType(), getAxis(), type);
}

LogicalResult LayerNormOp::verify() {
  return verifyNormalization(*this,
                             {{"scale", getScale()}, {"bias", getBias()}});
}

int64_t RMSNormOp::getNormalizedAxis() {
  return getNormalizedAxisOf(getInput().getType(), getAxis());
}

bool RMSNormOp::fitsNormalizedDims(RankedTensorType type) {
  return fitsNormalizedDimsOf(getInput().getType(), getAxis(), type);
}

bool RMSNormOp::fitsNormalizedDims(RankedTensorType input, int64_t axis,
                                   RankedTensorType type) {
  return fitsNormalizedDimsOf(input, axis, type);
}

LogicalResult RMSNormOp::verify() {
  return verifyNormalization(*this, {{"scale", getScale()}});
}

//===----------------------------------------------------------------------===//
// DropoutOp, GenericOp
//===----------------------------------------------------------------------===//

LogicalResult DropoutOp::verify() {
  float rate = getRate().convertToFloat();
  if (!(rate >= 0.0f && rate < 1.0f))
    return emitOpError("rate must be in [0, 1), got ") << rate;
  return success();
}

StringRef GenericOp::getLayerClass() {
  return getFrontEndLayerClass(*this).value_or(getOpType());
}

/// ONNX's MatMul (attention's batched products, a dense layer whose weight
/// is an activation) sums its first input's last dimension per output
/// element; other nodes count an operation per output element.
int64_t GenericOp::getMultiplyAccumulates() {
  if (getNumResults() == 0)
    return 0;
  int64_t elements = getStaticElementCount(getResult(0).getType());
  if (!isDefaultDomainNode("MatMul") || getInputs().empty())
    return elements;
  auto input = dyn_cast<RankedTensorType>(getInputs()[0].getType());
  if (!input || input.getRank() == 0 || input.isDynamicDim(input.getRank() - 1))
    return elements;
  return elements * input.getShape().back();
}

LogicalResult GenericOp::verify() {
  if (getOpType().empty())
    return emitOpError("needs a non-empty op_type");
  return success();
}

//===----------------------------------------------------------------------===//
// Folds: layers that do nothing
//===----------------------------------------------------------------------===//

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1 && getInputs()[0].getType() == getType())
    return getInputs()[0];
  return {};
}

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType() && getType().hasStaticShape())
    return getInput();
  return {};
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  for (auto [i, p] : llvm::enumerate(getPerm()))
    if (p != int64_t(i))
      return {};
  return getInput().getType() == getType() ? getInput() : Value();
}

bool PadOp::isPassThrough() {
  // A constant fill other than zero need not lie on the quantization grid.
  return getMode() != PadMode::Constant || getValue().isZero();
}

OpFoldResult PadOp::fold(FoldAdaptor) {
  if (llvm::all_of(getPads(), [](int64_t p) { return p == 0; }) &&
      getInput().getType() == getType())
    return getInput();
  return {};
}

#define GET_OP_CLASSES
#include "QuantQDQ/IR/QuantQDQOps.cpp.inc"
