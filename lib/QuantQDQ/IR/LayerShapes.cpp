//===- LayerShapes.cpp - result types of the layer ops --------------------===//
//
// Shape functions of the layer ops. They serve both the verifier (a result
// type must be compatible with the inferred one) and the builders that omit
// result types, so they check their inputs themselves instead of relying on
// the ODS constraints having run first.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::quant_qdq;

static constexpr int64_t kDynamic = ShapedType::kDynamic;

namespace {
/// Where the batch, channel and spatial dimensions of a 4-D image lie.
struct ImageAxes {
  int64_t channel, height, width;
};
} // namespace

static ImageAxes getImageAxes(Layout layout) {
  if (layout == Layout::NHWC)
    return {3, 1, 2};
  return {1, 2, 3};
}

/// Builds a 4-D image shape from its parts in the order `layout` puts them.
static SmallVector<int64_t, 4> makeImageShape(Layout layout, int64_t n,
                                              int64_t c, int64_t h,
                                              int64_t w) {
  if (layout == Layout::NHWC)
    return {n, h, w, c};
  return {n, c, h, w};
}

static RankedTensorType getRankedType(Value value) {
  return value ? dyn_cast<RankedTensorType>(value.getType())
               : RankedTensorType();
}

/// Output length of a sliding window along one spatial dimension, with the
/// ONNX rule that a ceil-mode window must start inside the padded input.
static FailureOr<int64_t> getWindowedSize(std::optional<Location> loc,
                                          StringRef what, int64_t size,
                                          int64_t kernel, int64_t stride,
                                          int64_t padBegin, int64_t padEnd,
                                          int64_t dilation, bool ceilMode) {
  if (ShapedType::isDynamic(size))
    return kDynamic;
  // Every operand is non-negative here; only the sums and products may
  // overflow.
  int64_t span, padded;
  if (llvm::MulOverflow(dilation, kernel - 1, span) ||
      llvm::AddOverflow(span, int64_t(1), span) ||
      llvm::AddOverflow(size, padBegin, padded) ||
      llvm::AddOverflow(padded, padEnd, padded))
    return emitOptionalError(loc, what, " window or padded input size "
                                        "overflows");
  int64_t room = padded - span;
  if (room < 0)
    return emitOptionalError(loc, what, " window of ", span,
                             " does not fit the padded input of ", padded);
  int64_t out = room / stride + (ceilMode && room % stride != 0 ? 1 : 0) + 1;
  int64_t lastStart;
  if (ceilMode && (llvm::MulOverflow(out - 1, stride, lastStart) ||
                   lastStart >= size + padBegin))
    --out;
  return out;
}

/// The spatial attributes that convolution and pooling share.
struct WindowParams {
  ArrayRef<int64_t> kernel, strides, pads, dilations;
  bool ceilMode;
};

static LogicalResult checkWindowParams(std::optional<Location> loc,
                                       const WindowParams &params) {
  if (params.kernel.size() != 2 || params.strides.size() != 2 ||
      params.dilations.size() != 2 || params.pads.size() != 4)
    return emitOptionalError(loc, "expects 2 kernel sizes, strides and "
                                  "dilations, and 4 pads");
  for (int64_t v : llvm::concat<const int64_t>(params.kernel, params.strides,
                                               params.dilations))
    if (v <= 0)
      return emitOptionalError(loc, "kernel sizes, strides and dilations "
                                    "must be positive");
  for (int64_t v : params.pads)
    if (v < 0)
      return emitOptionalError(loc, "pads must be non-negative");
  return success();
}

/// Result type of a windowed layer with `outChannels` channels.
static LogicalResult inferWindowed(std::optional<Location> loc, StringRef what,
                                   RankedTensorType input, Layout layout,
                                   int64_t outChannels,
                                   const WindowParams &params,
                                   SmallVectorImpl<Type> &inferred) {
  if (!input || input.getRank() != 4)
    return emitOptionalError(loc, "expects a 4-D input");
  if (failed(checkWindowParams(loc, params)))
    return failure();
  ImageAxes axes = getImageAxes(layout);
  FailureOr<int64_t> height = getWindowedSize(
      loc, what, input.getDimSize(axes.height), params.kernel[0],
      params.strides[0], params.pads[0], params.pads[2], params.dilations[0],
      params.ceilMode);
  FailureOr<int64_t> width = getWindowedSize(
      loc, what, input.getDimSize(axes.width), params.kernel[1],
      params.strides[1], params.pads[1], params.pads[3], params.dilations[1],
      params.ceilMode);
  if (failed(height) || failed(width))
    return failure();
  inferred.push_back(RankedTensorType::get(
      makeImageShape(layout, input.getDimSize(0), outChannels, *height, *width),
      input.getElementType()));
  return success();
}

/// Whether `actual` may stand where `inferred` was computed: same element
/// types, and shapes that agree wherever both are static.
static bool areCompatibleResultTypes(TypeRange inferred, TypeRange actual) {
  if (inferred.size() != actual.size())
    return false;
  for (auto [a, b] : llvm::zip(inferred, actual))
    if (getElementTypeOrSelf(a) != getElementTypeOrSelf(b) ||
        failed(verifyCompatibleShape(a, b)))
      return false;
  return true;
}

#define QDQ_COMPATIBLE_RESULTS(OP)                                             \
  bool OP::isCompatibleReturnTypes(TypeRange l, TypeRange r) {                 \
    return areCompatibleResultTypes(l, r);                                     \
  }
QDQ_COMPATIBLE_RESULTS(Conv2DOp)
QDQ_COMPATIBLE_RESULTS(DenseOp)
QDQ_COMPATIBLE_RESULTS(AvgPool2DOp)
QDQ_COMPATIBLE_RESULTS(MaxPool2DOp)
QDQ_COMPATIBLE_RESULTS(GlobalAvgPool2DOp)
QDQ_COMPATIBLE_RESULTS(GlobalMaxPool2DOp)
QDQ_COMPATIBLE_RESULTS(ConcatOp)
QDQ_COMPATIBLE_RESULTS(AddOp)
QDQ_COMPATIBLE_RESULTS(MultiplyOp)
QDQ_COMPATIBLE_RESULTS(FlattenOp)
QDQ_COMPATIBLE_RESULTS(ReshapeOp)
QDQ_COMPATIBLE_RESULTS(TransposeOp)
QDQ_COMPATIBLE_RESULTS(PadOp)
#undef QDQ_COMPATIBLE_RESULTS

/// Whether two dimensions may be equal (either is dynamic, or they are).
static bool mayBeEqual(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

//===----------------------------------------------------------------------===//
// Convolution and dense
//===----------------------------------------------------------------------===//

/// A weighted layer computes in one float type: its weight and bias must hold
/// the input's element type.
static LogicalResult checkWeightElementTypes(std::optional<Location> loc,
                                             RankedTensorType input,
                                             RankedTensorType weight,
                                             RankedTensorType bias) {
  Type elementType = input.getElementType();
  if (weight.getElementType() != elementType ||
      (bias && bias.getElementType() != elementType))
    return emitOptionalError(loc, "expects the weight and bias to hold the "
                                  "input's element type ",
                             elementType);
  return success();
}

LogicalResult Conv2DOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  RankedTensorType input = getRankedType(adaptor.getInput());
  RankedTensorType weight = getRankedType(adaptor.getWeight());
  if (!input || !weight || input.getRank() != 4 || weight.getRank() != 4)
    return emitOptionalError(loc, "expects a 4-D input and a 4-D weight");
  if (failed(checkWeightElementTypes(loc, input, weight,
                                     getRankedType(adaptor.getBias()))))
    return failure();
  Layout layout = adaptor.getLayout();
  int64_t groups = adaptor.getGroups();
  if (groups <= 0)
    return emitOptionalError(loc, "groups must be positive");

  // NCHW weights are O x C/groups x kH x kW, NHWC weights kH x kW x C/groups x O.
  bool nhwc = layout == Layout::NHWC;
  int64_t outChannels = weight.getDimSize(nhwc ? 3 : 0);
  int64_t groupChannels = weight.getDimSize(nhwc ? 2 : 1);
  int64_t kernel[2] = {weight.getDimSize(nhwc ? 0 : 2),
                       weight.getDimSize(nhwc ? 1 : 3)};
  if (ShapedType::isDynamic(kernel[0]) || ShapedType::isDynamic(kernel[1]))
    return emitOptionalError(loc, "expects a static kernel size");

  int64_t inChannels = input.getDimSize(getImageAxes(layout).channel);
  if (!ShapedType::isDynamic(inChannels) && inChannels % groups != 0)
    return emitOptionalError(loc, "input channels (", inChannels,
                             ") are not divisible by groups (", groups, ")");
  if (!ShapedType::isDynamic(outChannels) && outChannels % groups != 0)
    return emitOptionalError(loc, "output channels (", outChannels,
                             ") are not divisible by groups (", groups, ")");
  // Divides instead of multiplying groupChannels, which could overflow.
  if (!mayBeEqual(ShapedType::isDynamic(inChannels) ? kDynamic
                                                    : inChannels / groups,
                  groupChannels))
    return emitOptionalError(loc, "input has ", inChannels,
                             " channels but the weight expects ",
                             groupChannels, " per group x ", groups,
                             " groups");
  if (RankedTensorType bias = getRankedType(adaptor.getBias()))
    if (bias.getRank() != 1 || !mayBeEqual(bias.getDimSize(0), outChannels))
      return emitOptionalError(loc, "bias must hold one value per output "
                                    "channel (",
                               outChannels, ")");

  WindowParams params{kernel, adaptor.getStrides(), adaptor.getPads(),
                      adaptor.getDilations(), /*ceilMode=*/false};
  return inferWindowed(loc, "convolution", input, layout, outChannels, params,
                       inferred);
}

LogicalResult DenseOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  RankedTensorType input = getRankedType(adaptor.getInput());
  RankedTensorType weight = getRankedType(adaptor.getWeight());
  if (!input || !weight || input.getRank() < 1 || weight.getRank() != 2)
    return emitOptionalError(loc, "expects an input of rank >= 1 and a 2-D "
                                  "weight");
  if (failed(checkWeightElementTypes(loc, input, weight,
                                     getRankedType(adaptor.getBias()))))
    return failure();
  bool transposed = adaptor.getTransposeWeight();
  int64_t weightIn = weight.getDimSize(transposed ? 1 : 0);
  int64_t units = weight.getDimSize(transposed ? 0 : 1);
  int64_t features = input.getShape().back();
  if (!mayBeEqual(features, weightIn))
    return emitOptionalError(loc, "input has ", features,
                             " features but the weight expects ", weightIn);
  if (RankedTensorType bias = getRankedType(adaptor.getBias()))
    if (bias.getRank() != 1 || !mayBeEqual(bias.getDimSize(0), units))
      return emitOptionalError(loc, "bias must hold one value per unit (",
                               units, ")");
  SmallVector<int64_t> shape(input.getShape());
  shape.back() = units;
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

static int64_t getImageChannels(RankedTensorType input, Layout layout) {
  return input.getDimSize(getImageAxes(layout).channel);
}

LogicalResult AvgPool2DOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  RankedTensorType input = getRankedType(adaptor.getInput());
  if (!input || input.getRank() != 4)
    return emitOptionalError(loc, "expects a 4-D input");
  int64_t unitDilations[2] = {1, 1};
  WindowParams params{adaptor.getKernelShape(), adaptor.getStrides(),
                      adaptor.getPads(), unitDilations, adaptor.getCeilMode()};
  return inferWindowed(loc, "pooling", input, adaptor.getLayout(),
                       getImageChannels(input, adaptor.getLayout()), params,
                       inferred);
}

LogicalResult MaxPool2DOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  RankedTensorType input = getRankedType(adaptor.getInput());
  if (!input || input.getRank() != 4)
    return emitOptionalError(loc, "expects a 4-D input");
  WindowParams params{adaptor.getKernelShape(), adaptor.getStrides(),
                      adaptor.getPads(), adaptor.getDilations(),
                      adaptor.getCeilMode()};
  return inferWindowed(loc, "pooling", input, adaptor.getLayout(),
                       getImageChannels(input, adaptor.getLayout()), params,
                       inferred);
}

static LogicalResult inferGlobalPool(std::optional<Location> loc,
                                     RankedTensorType input, Layout layout,
                                     bool keepDims,
                                     SmallVectorImpl<Type> &inferred) {
  if (!input || input.getRank() != 4)
    return emitOptionalError(loc, "expects a 4-D input");
  int64_t batch = input.getDimSize(0);
  int64_t channels = getImageChannels(input, layout);
  SmallVector<int64_t, 4> shape =
      keepDims ? makeImageShape(layout, batch, channels, 1, 1)
               : SmallVector<int64_t, 4>{batch, channels};
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

/// Normalization keeps its input's type (the result type must equal it).
LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location>,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  inferred.push_back(adaptor.getInput().getType());
  return success();
}

LogicalResult GlobalAvgPool2DOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  return inferGlobalPool(loc, getRankedType(adaptor.getInput()),
                         adaptor.getLayout(), adaptor.getKeepDims(), inferred);
}

LogicalResult GlobalMaxPool2DOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  return inferGlobalPool(loc, getRankedType(adaptor.getInput()),
                         adaptor.getLayout(), adaptor.getKeepDims(), inferred);
}

//===----------------------------------------------------------------------===//
// Multi-input layers
//===----------------------------------------------------------------------===//

/// Normalizes a possibly negative `axis` into [0, rank), or fails.
static FailureOr<int64_t> normalizeAxis(std::optional<Location> loc,
                                        int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return emitOptionalError(loc, "axis ", axis,
                             " is out of range for rank ", rank);
  return axis < 0 ? axis + rank : axis;
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitOptionalError(loc, "expects at least one input");
  RankedTensorType first = getRankedType(inputs.front());
  if (!first)
    return emitOptionalError(loc, "expects ranked tensor inputs");
  FailureOr<int64_t> axis =
      normalizeAxis(loc, adaptor.getAxis(), first.getRank());
  if (failed(axis))
    return failure();

  SmallVector<int64_t> shape(first.getShape());
  for (auto [index, value] : llvm::enumerate(inputs.drop_front())) {
    RankedTensorType type = getRankedType(value);
    if (!type || type.getRank() != first.getRank() ||
        type.getElementType() != first.getElementType())
      return emitOptionalError(loc, "input #", index + 1,
                               " differs in rank or element type from "
                               "input #0");
    for (int64_t d = 0, e = first.getRank(); d < e; ++d) {
      int64_t size = type.getDimSize(d);
      if (d == *axis) {
        if (ShapedType::isDynamic(shape[d]) || ShapedType::isDynamic(size))
          shape[d] = kDynamic;
        else if (llvm::AddOverflow(shape[d], size, shape[d]))
          return emitOptionalError(loc, "concatenated size overflows");
      } else if (!mayBeEqual(shape[d], size)) {
        return emitOptionalError(loc, "input #", index + 1, " has size ", size,
                                 " in dimension ", d, " where input #0 has ",
                                 shape[d]);
      } else if (ShapedType::isDynamic(shape[d])) {
        shape[d] = size;
      }
    }
  }
  inferred.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

/// NumPy broadcasting of two or more same-typed tensors.
static LogicalResult inferBroadcast(std::optional<Location> loc,
                                    ValueRange inputs,
                                    SmallVectorImpl<Type> &inferred) {
  if (inputs.size() < 2)
    return emitOptionalError(loc, "expects at least two inputs");
  RankedTensorType first = getRankedType(inputs.front());
  if (!first)
    return emitOptionalError(loc, "expects ranked tensor inputs");
  SmallVector<int64_t> shape(first.getShape());
  for (auto [index, value] : llvm::enumerate(inputs.drop_front())) {
    RankedTensorType type = getRankedType(value);
    if (!type || type.getElementType() != first.getElementType())
      return emitOptionalError(loc, "input #", index + 1,
                               " differs in element type from input #0");
    SmallVector<int64_t> broadcast;
    if (!OpTrait::util::getBroadcastedShape(shape, type.getShape(), broadcast))
      return emitOptionalError(loc, "input #", index + 1,
                               " does not broadcast with the inputs before it");
    shape = std::move(broadcast);
  }
  inferred.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

LogicalResult AddOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  return inferBroadcast(loc, adaptor.getInputs(), inferred);
}

LogicalResult MultiplyOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &inferred) {
  return inferBroadcast(loc, adaptor.getInputs(), inferred);
}

//===----------------------------------------------------------------------===//
// Shape-only layers
//===----------------------------------------------------------------------===//

/// Product of `dims`, or dynamic if any of them is; fails if it overflows.
static FailureOr<int64_t> getProduct(std::optional<Location> loc,
                                     ArrayRef<int64_t> dims) {
  int64_t product = 1;
  for (int64_t d : dims) {
    if (ShapedType::isDynamic(d))
      return kDynamic;
    if (llvm::MulOverflow(product, d, product))
      return emitOptionalError(loc, "element count overflows");
  }
  return product;
}

LogicalResult FlattenOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  RankedTensorType input = getRankedType(adaptor.getInput());
  if (!input)
    return emitOptionalError(loc, "expects a ranked input");
  int64_t rank = input.getRank();
  int64_t axis = adaptor.getAxis();
  if (axis < -rank || axis > rank)
    return emitOptionalError(loc, "axis ", axis, " is out of range for rank ",
                             rank);
  if (axis < 0)
    axis += rank;
  ArrayRef<int64_t> shape = input.getShape();
  FailureOr<int64_t> outer = getProduct(loc, shape.take_front(axis));
  FailureOr<int64_t> inner = getProduct(loc, shape.drop_front(axis));
  if (failed(outer) || failed(inner))
    return failure();
  inferred.push_back(
      RankedTensorType::get({*outer, *inner}, input.getElementType()));
  return success();
}

LogicalResult ReshapeOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  RankedTensorType input = getRankedType(adaptor.getInput());
  if (!input)
    return emitOptionalError(loc, "expects a ranked input");
  SmallVector<int64_t> shape(adaptor.getShape());
  std::optional<unsigned> inferredDim;
  int64_t known = 1;
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (d == -1) {
      if (inferredDim)
        return emitOptionalError(loc, "shape may hold at most one -1");
      inferredDim = i;
      continue;
    }
    if (d <= 0)
      return emitOptionalError(loc, "shape entries must be positive or -1, "
                                    "got ",
                               d);
    if (llvm::MulOverflow(known, d, known))
      return emitOptionalError(loc, "element count overflows");
  }
  FailureOr<int64_t> product = getProduct(loc, input.getShape());
  if (failed(product))
    return failure();
  int64_t total = *product;
  if (inferredDim) {
    if (ShapedType::isDynamic(total)) {
      shape[*inferredDim] = kDynamic;
    } else if (total % known != 0) {
      return emitOptionalError(loc, "cannot reshape ", total,
                               " elements into a multiple of ", known);
    } else {
      shape[*inferredDim] = total / known;
    }
  } else if (!ShapedType::isDynamic(total) && total != known) {
    return emitOptionalError(loc, "cannot reshape ", total, " elements into ",
                             known);
  }
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  RankedTensorType input = getRankedType(adaptor.getInput());
  if (!input)
    return emitOptionalError(loc, "expects a ranked input");
  ArrayRef<int64_t> perm = adaptor.getPerm();
  int64_t rank = input.getRank();
  if (int64_t(perm.size()) != rank)
    return emitOptionalError(loc, "perm has ", perm.size(),
                             " entries for an input of rank ", rank);
  SmallVector<bool> seen(rank, false);
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p])
      return emitOptionalError(loc, "perm is not a permutation of [0, ", rank,
                               ")");
    seen[p] = true;
    shape.push_back(input.getDimSize(p));
  }
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  RankedTensorType input = getRankedType(adaptor.getInput());
  if (!input)
    return emitOptionalError(loc, "expects a ranked input");
  ArrayRef<int64_t> pads = adaptor.getPads();
  int64_t rank = input.getRank();
  if (int64_t(pads.size()) != 2 * rank)
    return emitOptionalError(loc, "expects ", 2 * rank,
                             " pads (before and after each dimension), got ",
                             pads.size());
  SmallVector<int64_t> shape(input.getShape());
  for (int64_t d = 0; d < rank; ++d) {
    int64_t before = pads[d], after = pads[d + rank];
    if (before < 0 || after < 0)
      return emitOptionalError(loc, "pads must be non-negative");
    if (ShapedType::isDynamic(shape[d]) || (before == 0 && after == 0))
      continue;
    if (adaptor.getMode() == PadMode::Reflect &&
        (before >= shape[d] || after >= shape[d]))
      return emitOptionalError(loc, "reflect padding of dimension ", d,
                               " must be smaller than its size ", shape[d]);
    if (adaptor.getMode() == PadMode::Edge && shape[d] == 0)
      return emitOptionalError(loc, "edge padding of dimension ", d,
                               " needs a non-empty dimension");
    if (llvm::AddOverflow(shape[d], before, shape[d]) ||
        llvm::AddOverflow(shape[d], after, shape[d]))
      return emitOptionalError(loc, "padded size of dimension ", d,
                               " overflows");
  }
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}
