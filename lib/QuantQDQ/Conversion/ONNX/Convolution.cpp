//===- Convolution.cpp - Conv, pooling and spatial means ------------------===//
//
// Import: Conv -> conv2d, MaxPool/AveragePool -> max_pool2d/avg_pool2d,
// GlobalAveragePool/GlobalMaxPool -> global_*_pool2d, and ReduceMean over H
// and W -> global_avg_pool2d. Only 2-D windows map; auto_pad is resolved to
// explicit pads when the spatial dimensions are static.
//
// Export: the same nodes back, with explicit pads; a global pooling that
// drops the spatial dimensions is the pooling and a Flatten.
//
//===----------------------------------------------------------------------===//

#include "PatternUtils.h"

using namespace mlir;
using namespace mlir::quant_qdq;
using namespace mlir::quant_qdq::onnx_patterns;

namespace {
/// Window attributes of Conv, MaxPool and AveragePool, resolved to explicit
/// pads in [top, left, bottom, right] order (ONNX's order for 2-D).
struct Window {
  SmallVector<int64_t> kernel, strides{1, 1}, pads{0, 0, 0, 0}, dilations{1, 1};
};
} // namespace

/// Reads the window attributes of a node on a 4-D (two spatial dimensions)
/// input; false when auto_pad needs a shape that is unknown. A list of the
/// wrong length is malformed, an error.
static FailureOr<bool> readWindow(ONNXNode node, RankedTensorType input,
                                  Window &w) {
  FailureOr<std::optional<SmallVector<int64_t>>> kernel =
      node.getInts("kernel_shape");
  FailureOr<std::optional<SmallVector<int64_t>>> strides =
      node.getInts("strides");
  FailureOr<std::optional<SmallVector<int64_t>>> pads = node.getInts("pads");
  FailureOr<std::optional<SmallVector<int64_t>>> dilations =
      node.getInts("dilations");
  FailureOr<std::string> autoPad = node.getString("auto_pad", "NOTSET");
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
  for (auto [name, values, expected] :
       {std::make_tuple("kernel_shape", &w.kernel, 2),
        std::make_tuple("strides", &w.strides, 2),
        std::make_tuple("pads", &w.pads, 4),
        std::make_tuple("dilations", &w.dilations, 2)})
    if (values->size() != size_t(expected))
      return node.emitError()
             << "'" << name << "' has " << values->size()
             << " values; a window over 2 spatial dimensions needs "
             << expected;
  if (*autoPad == "NOTSET")
    return true;
  if (*autoPad == "VALID") {
    w.pads.assign(4, 0);
    return true;
  }
  if (*autoPad != "SAME_UPPER" && *autoPad != "SAME_LOWER")
    return node.emitError() << "unknown auto_pad '" << *autoPad << "'";
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

/// The window attributes a layer op carries, defaults left out.
static void addWindowAttrs(Builder &b, const Window &w, bool withDilations,
                           SmallVectorImpl<NamedAttribute> &attrs) {
  if (!isAll(w.strides, 1))
    attrs.push_back(
        b.getNamedAttr("strides", b.getDenseI64ArrayAttr(w.strides)));
  if (!isAll(w.pads, 0))
    attrs.push_back(b.getNamedAttr("pads", b.getDenseI64ArrayAttr(w.pads)));
  if (withDilations && !isAll(w.dilations, 1))
    attrs.push_back(
        b.getNamedAttr("dilations", b.getDenseI64ArrayAttr(w.dilations)));
}

static LogicalResult convertConv(ONNXNode node, PatternRewriter &rewriter) {
  Value x = node.getInput(0), w = node.getInput(1), bias = node.getInput(2);
  RankedTensorType xType = getFloatTensor(x), wType = getFloatTensor(w);
  if (!xType || !wType || xType.getRank() != 4 || wType.getRank() != 4)
    return failure();
  if (bias && (!getFloatTensor(bias) || getFloatTensor(bias).getRank() != 1))
    return failure();
  Window window;
  window.kernel = {wType.getDimSize(2), wType.getDimSize(3)};
  FailureOr<bool> ok = readWindow(node, xType, window);
  FailureOr<int64_t> group = node.getInt("group", 1);
  if (failed(ok) || failed(group) || !*ok ||
      ShapedType::isDynamic(wType.getDimSize(2)) ||
      ShapedType::isDynamic(wType.getDimSize(3)))
    return failure();
  if (window.kernel[0] != wType.getDimSize(2) ||
      window.kernel[1] != wType.getDimSize(3))
    return node.emitError() << "'kernel_shape' [" << window.kernel[0] << ", "
                            << window.kernel[1] << "] is not the weight's ["
                            << wType.getDimSize(2) << ", "
                            << wType.getDimSize(3) << "]";
  SmallVector<Value> operands{x, w};
  if (bias)
    operands.push_back(bias);
  SmallVector<NamedAttribute> attrs;
  addWindowAttrs(rewriter, window, /*withDilations=*/true, attrs);
  if (*group != 1)
    attrs.push_back(
        rewriter.getNamedAttr("groups", rewriter.getI64IntegerAttr(*group)));
  return replaceNode(rewriter, node,
                     node.createLayer(rewriter, Conv2DOp::getOperationName(),
                                      operands, attrs));
}

static LogicalResult convertPool(ONNXNode node, PatternRewriter &rewriter) {
  bool isMax = node.getOpType() == "MaxPool";
  Value x = node.getInput(0);
  RankedTensorType xType = getFloatTensor(x);
  if (!xType || xType.getRank() != 4)
    return failure();
  Window window;
  FailureOr<bool> ok = readWindow(node, xType, window);
  FailureOr<int64_t> ceilMode = node.getInt("ceil_mode", 0);
  FailureOr<int64_t> countPad = node.getInt("count_include_pad", 0);
  FailureOr<int64_t> storageOrder = node.getInt("storage_order", 0);
  if (failed(ok) || failed(ceilMode) || failed(countPad) ||
      failed(storageOrder) || !*ok || *storageOrder != 0 ||
      (!isMax && !isAll(window.dilations, 1)))
    return failure();
  SmallVector<NamedAttribute> attrs{rewriter.getNamedAttr(
      "kernel_shape", rewriter.getDenseI64ArrayAttr(window.kernel))};
  addWindowAttrs(rewriter, window, /*withDilations=*/isMax, attrs);
  if (*ceilMode)
    attrs.push_back(rewriter.getNamedAttr("ceil_mode", rewriter.getUnitAttr()));
  if (!isMax && *countPad)
    attrs.push_back(
        rewriter.getNamedAttr("count_include_pad", rewriter.getUnitAttr()));
  StringRef opName =
      isMax ? MaxPool2DOp::getOperationName() : AvgPool2DOp::getOperationName();
  return replaceNode(rewriter, node,
                     node.createLayer(rewriter, opName, {x}, attrs));
}

static LogicalResult convertGlobalPool(ONNXNode node,
                                       PatternRewriter &rewriter) {
  Value x = node.getInput(0);
  RankedTensorType xType = getFloatTensor(x);
  if (!xType || xType.getRank() != 4)
    return failure();
  StringRef opName = node.getOpType() == "GlobalMaxPool"
                         ? GlobalMaxPool2DOp::getOperationName()
                         : GlobalAvgPool2DOp::getOperationName();
  return replaceNode(rewriter, node,
                     node.createLayer(rewriter, opName, {x}, {}));
}

/// ReduceMean over H and W of an NCHW image is a global average pooling.
/// Its axes are an attribute before opset 18 and an input from it on.
static LogicalResult convertReduceMean(ONNXNode node,
                                       PatternRewriter &rewriter) {
  Value x = node.getInput(0);
  RankedTensorType xType = getFloatTensor(x);
  if (!xType || xType.getRank() != 4)
    return failure();
  FailureOr<std::optional<SmallVector<int64_t>>> attrAxes =
      node.getInts("axes");
  FailureOr<int64_t> keepDims = node.getInt("keepdims", 1);
  if (failed(attrAxes) || failed(keepDims))
    return failure();
  std::optional<SmallVector<int64_t>> axes = *attrAxes;
  if (!axes && node.hasInput(1))
    axes = getConstantInts(node.getInput(1));
  if (!axes || axes->size() != 2)
    return failure();
  SmallVector<int64_t> normalized;
  for (int64_t a : *axes)
    normalized.push_back(a < 0 ? a + 4 : a);
  llvm::sort(normalized);
  if (normalized != SmallVector<int64_t>{2, 3})
    return failure();
  return replaceNode(
      rewriter, node,
      node.createLayer(rewriter, GlobalAvgPool2DOp::getOperationName(), {x},
                       {rewriter.getNamedAttr(
                           "keep_dims", rewriter.getBoolAttr(*keepDims))}));
}

//===----------------------------------------------------------------------===//
// Export
//===----------------------------------------------------------------------===//

static LogicalResult exportConv(Conv2DOp op, ONNXNodeBuilder &b) {
  if (failed(requireNCHW(b, op.getLayout())))
    return failure();
  auto wType = op.getWeight().getType();
  SmallVector<int64_t> kernel{wType.getDimSize(2), wType.getDimSize(3)};
  return b.replaceWith(
      "Conv", op->getOperands(),
      {b.getIntsAttr("kernel_shape", kernel),
       b.getIntsAttr("strides", op.getStrides()),
       b.getIntsAttr("pads", op.getPads()),
       b.getIntsAttr("dilations", op.getDilations()),
       b.getIntAttr("group", op.getGroups())});
}

template <typename PoolOp>
static LogicalResult exportPool(PoolOp op, ONNXNodeBuilder &b) {
  if (failed(requireNCHW(b, op.getLayout())))
    return failure();
  constexpr bool isMax = std::is_same_v<PoolOp, MaxPool2DOp>;
  if (op.getCeilMode() && b.getOpset() < 10)
    return b.emitError() << "ceil_mode pooling needs opset >= 10, the model "
                            "imports "
                         << b.getOpset();
  SmallVector<NamedAttribute> attrs{
      b.getIntsAttr("kernel_shape", op.getKernelShape()),
      b.getIntsAttr("strides", op.getStrides()),
      b.getIntsAttr("pads", op.getPads())};
  if (op.getCeilMode())
    attrs.push_back(b.getIntAttr("ceil_mode", 1));
  if constexpr (isMax) {
    if (!isAll(op.getDilations(), 1)) {
      if (b.getOpset() < 10)
        return b.emitError() << "dilated max pooling needs opset >= 10";
      attrs.push_back(b.getIntsAttr("dilations", op.getDilations()));
    }
  } else if (op.getCountIncludePad()) {
    attrs.push_back(b.getIntAttr("count_include_pad", 1));
  }
  return b.replaceWith(isMax ? "MaxPool" : "AveragePool", op.getInput(),
                       attrs);
}

template <typename PoolOp>
static LogicalResult exportGlobalPool(PoolOp op, ONNXNodeBuilder &b) {
  if (failed(requireNCHW(b, op.getLayout())))
    return failure();
  StringRef opType = std::is_same_v<PoolOp, GlobalMaxPool2DOp>
                         ? "GlobalMaxPool"
                         : "GlobalAveragePool";
  if (op.getKeepDims())
    return b.replaceWith(opType, op.getInput());
  // N x C: pool to N x C x 1 x 1, then flatten.
  auto inputType = op.getInput().getType();
  auto pooledType = RankedTensorType::get(
      {inputType.getDimSize(0), inputType.getDimSize(1), 1, 1},
      inputType.getElementType());
  Value pooled = b.create(opType, op.getInput(), pooledType);
  return b.replaceWithValue(b.create("Flatten", pooled, op.getType(),
                                     {b.getIntAttr("axis", 1)}, "flatten"));
}

void onnx_patterns::populateConvolutionExports(RewritePatternSet &patterns) {
  addExport<Conv2DOp, exportConv>(patterns);
  addExport<AvgPool2DOp, exportPool<AvgPool2DOp>>(patterns);
  addExport<MaxPool2DOp, exportPool<MaxPool2DOp>>(patterns);
  addExport<GlobalAvgPool2DOp, exportGlobalPool<GlobalAvgPool2DOp>>(patterns);
  addExport<GlobalMaxPool2DOp, exportGlobalPool<GlobalMaxPool2DOp>>(patterns);
}

//===----------------------------------------------------------------------===//
// Import
//===----------------------------------------------------------------------===//

void onnx_patterns::populateConvolutionPatterns(RewritePatternSet &patterns) {
  addConversion<convertConv>(patterns, {"Conv"});
  addConversion<convertPool>(patterns, {"MaxPool", "AveragePool"});
  addConversion<convertGlobalPool>(patterns,
                                   {"GlobalAveragePool", "GlobalMaxPool"});
  addConversion<convertReduceMean>(patterns, {"ReduceMean"});
}
