//===- CrossLayerEqualization.cpp - equal channel ranges across layers ----===//
//
// A per-tensor weight scale fits a layer badly when its output channels'
// ranges differ by orders of magnitude, as a depthwise convolution's do once
// batch normalization is folded into it. Dividing output channel i of one
// layer by s_i and multiplying the matching input channel of the next by s_i
// leaves the network's function unchanged across a positively homogeneous
// activation (relu(x / s) * s = relu(x)); s_i = sqrt(r1_i / r2_i) gives both
// layers the channel range sqrt(r1_i * r2_i) (Nagel et al., "Data-Free
// Quantization Through Weight Equalization and Bias Correction", 2019).
// A bounded activation (relu6, clip(0, c)) stays exact as relu followed by a
// per-channel minimum c / s_i.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/Transforms/Passes.h"
#include "QuantQDQ/Utils/Scales.h"
#include "QuantQDQ/Utils/TensorNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ToolOutputFile.h"

#include <cmath>

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_CROSSLAYEREQUALIZATION
#include "QuantQDQ/Transforms/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
/// A Conv2D or Dense layer's weight and bias as floats, rescaled in place
/// and written back once at the end.
struct LayerParameters {
  Operation *layer = nullptr;
  arith::ConstantOp weightConstant, biasConstant;
  SmallVector<int64_t> shape;
  std::vector<float> weight, bias;
  /// The weight's axis of output channels.
  int64_t outputAxis = 0;
  /// The ranges of the output channels before any rescaling (the report's).
  std::vector<float> initialRanges;
  /// Whether the weight, and the bias (a producer's only), were rescaled.
  bool weightChanged = false, biasChanged = false;
};

/// A producer whose every output channel feeds one input channel of the
/// consumer, through at most one activation.
struct EqualizedPair {
  unsigned producer = 0, consumer = 0;
  /// The consumer weight's axis that indexes the shared channels, and the
  /// axis of the activation between the two that holds them.
  int64_t consumerAxis = 0, activationAxis = 0;
  /// The activation between the two; with an upper bound (relu6, clip), the
  /// bound of each channel, which rescaling divides too.
  ActivationOp activation;
  std::vector<float> bound;
  /// The activation's kind as the input had it, for the report.
  std::string through = "-";
  /// The product of the factors each channel was divided by.
  std::vector<double> factor;
  /// Whether any factor moved from 1.
  bool changed = false;
};

struct CrossLayerEqualizationPass
    : public quant_qdq::impl::CrossLayerEqualizationBase<
          CrossLayerEqualizationPass> {
  using CrossLayerEqualizationBase::CrossLayerEqualizationBase;
  void runOnOperation() override;
};
} // namespace

/// The values of an f32 constant of static shape with no other reader, or
/// nothing.
static std::optional<std::vector<float>> readOwnConstant(arith::ConstantOp op) {
  if (!op || !op->hasOneUse())
    return std::nullopt;
  auto type = cast<RankedTensorType>(op.getType());
  if (!type.getElementType().isF32() || !type.hasStaticShape())
    return std::nullopt;
  std::vector<float> values;
  if (failed(readFloatConstant(cast<ElementsAttr>(op.getValue()),
                               [&](ArrayRef<float> data) {
                                 values.assign(data.begin(), data.end());
                               })))
    return std::nullopt;
  return values;
}

/// Slices along `axis` of a row-major tensor: element (o, c, i) of the view
/// [outer, shape[axis], inner] lies in channel c.
struct ChannelView {
  int64_t outer = 1, channels = 1, inner = 1;
  ChannelView(ArrayRef<int64_t> shape, int64_t axis) : channels(shape[axis]) {
    for (int64_t d = 0; d < axis; ++d)
      outer *= shape[d];
    for (int64_t d = axis + 1; d < int64_t(shape.size()); ++d)
      inner *= shape[d];
  }
  template <typename Fn> void forEach(Fn fn) const {
    int64_t i = 0;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t c = 0; c < channels; ++c)
        for (int64_t e = 0; e < inner; ++e, ++i)
          fn(i, c);
  }
};

/// The largest magnitude in each channel of `values` along `axis`.
static std::vector<float> getChannelRanges(ArrayRef<float> values,
                                           ArrayRef<int64_t> shape,
                                           int64_t axis) {
  ChannelView view(shape, axis);
  std::vector<float> ranges(view.channels, 0.0f);
  view.forEach([&](int64_t i, int64_t c) {
    ranges[c] = std::max(ranges[c], std::fabs(values[i]));
  });
  return ranges;
}

/// Multiplies each channel of `values` along `axis` by its factor.
static void scaleChannels(MutableArrayRef<float> values,
                          ArrayRef<int64_t> shape, int64_t axis,
                          ArrayRef<float> factors) {
  ChannelView view(shape, axis);
  view.forEach([&](int64_t i, int64_t c) { values[i] *= factors[c]; });
}

/// The weight and bias of a Conv2D or Dense layer when both are f32
/// constants that no other op reads.
static std::optional<LayerParameters> readParameters(Operation *op) {
  auto layer = dyn_cast<QDQLayerOpInterface>(op);
  if (!layer || !isa<Conv2DOp, DenseOp>(op))
    return std::nullopt;
  LayerParameters params;
  params.layer = op;
  params.outputAxis = *layer.getWeightChannelAxis();
  params.weightConstant = op->getOperand(*layer.getWeightOperandIndex())
                              .getDefiningOp<arith::ConstantOp>();
  std::optional<std::vector<float>> weight =
      readOwnConstant(params.weightConstant);
  if (!weight)
    return std::nullopt;
  params.weight = std::move(*weight);
  params.shape = llvm::to_vector(
      cast<RankedTensorType>(params.weightConstant.getType()).getShape());
  if (op->getNumOperands() > 2) {
    params.biasConstant = op->getOperand(2).getDefiningOp<arith::ConstantOp>();
    std::optional<std::vector<float>> bias =
        readOwnConstant(params.biasConstant);
    if (!bias || int64_t(bias->size()) != params.shape[params.outputAxis])
      return std::nullopt;
    params.bias = std::move(*bias);
  }
  params.initialRanges =
      getChannelRanges(params.weight, params.shape, params.outputAxis);
  return params;
}

/// The axis of a layer's activation (its input, or its output) that holds
/// channels.
static int64_t getActivationChannelAxis(Operation *op, Value activation) {
  int64_t rank = cast<RankedTensorType>(activation.getType()).getRank();
  if (auto conv = dyn_cast<Conv2DOp>(op))
    return conv.getLayout() == Layout::NHWC ? rank - 1 : 1;
  return rank - 1;
}

/// The consumer weight's axis that indexes its input channels one to one:
/// the reduction axis of an ungrouped convolution or dense layer, the output
/// axis of a depthwise convolution with one filter per channel. Other
/// grouped convolutions mix channels in groups: none.
static std::optional<int64_t> getInputChannelAxis(Operation *op) {
  auto layer = cast<QDQLayerOpInterface>(op);
  if (auto conv = dyn_cast<Conv2DOp>(op)) {
    if (conv.getGroups() == 1)
      return layer.getWeightReductionAxis();
    int64_t filters =
        conv.getWeight().getType().getDimSize(*layer.getWeightChannelAxis());
    if (conv.isDepthwise() && filters == conv.getInputChannels())
      return layer.getWeightChannelAxis();
    return std::nullopt;
  }
  return layer.getWeightReductionAxis();
}

/// How an activation lets a positive per-channel scale through.
struct ScalePassage {
  /// Whether act(x / s) * s == act(x), once `bound` is divided by s too.
  bool commutes = false;
  /// The upper bound it clips to (relu6, clip(0, c)), if any.
  std::optional<float> bound;
};

static ScalePassage getScalePassage(ActivationOp activation) {
  switch (activation.getKind()) {
  case ActivationKind::Relu:
  case ActivationKind::LeakyRelu:
  case ActivationKind::Linear:
    return {true, std::nullopt};
  case ActivationKind::Relu6:
    return {true, 6.0f};
  case ActivationKind::Clip:
    if (activation.getMin() && activation.getMax() &&
        activation.getMin()->convertToFloat() == 0.0f &&
        activation.getMax()->convertToFloat() > 0.0f)
      return {true, activation.getMax()->convertToFloat()};
    return {};
  default:
    return {};
  }
}

/// The pair `producer` starts, when its output reaches one consumer layer
/// alone, through at most one activation that commutes with the scales, and
/// the channels match one to one.
static std::optional<EqualizedPair>
matchPair(Operation *producer, llvm::function_ref<int(Operation *)> indexOf) {
  Value output = producer->getResult(0);
  if (!output.hasOneUse())
    return std::nullopt;
  EqualizedPair pair;
  Operation *user = *output.user_begin();
  std::optional<float> bound;
  if (auto activation = dyn_cast<ActivationOp>(user)) {
    ScalePassage passage = getScalePassage(activation);
    if (!passage.commutes || !activation.getOutput().hasOneUse())
      return std::nullopt;
    pair.activation = activation;
    pair.through = stringifyActivationKind(activation.getKind()).str();
    bound = passage.bound;
    output = activation.getOutput();
    user = *output.user_begin();
  }
  int consumer = indexOf(user);
  if (consumer < 0 || user->getOperand(0) != output)
    return std::nullopt;
  std::optional<int64_t> consumerAxis = getInputChannelAxis(user);
  int64_t channelAxis = getActivationChannelAxis(producer, output);
  if (!consumerAxis || channelAxis != getActivationChannelAxis(user, output))
    return std::nullopt;
  pair.consumer = consumer;
  pair.consumerAxis = *consumerAxis;
  pair.activationAxis = channelAxis;
  if (bound) {
    int64_t channels =
        cast<RankedTensorType>(output.getType()).getDimSize(channelAxis);
    if (ShapedType::isDynamic(channels))
      return std::nullopt;
    pair.bound.assign(channels, *bound);
  }
  return pair;
}

/// Replaces `old` (which only `layer` reads) by a constant of `values`.
static void replaceConstant(Operation *layer, arith::ConstantOp old,
                            ArrayRef<float> values, StringRef name) {
  OpBuilder builder(old);
  arith::ConstantOp replacement = createFloatResourceConstant(
      builder, old.getLoc(), cast<RankedTensorType>(old.getType()), values,
      name);
  layer->replaceUsesOfWith(old, replacement);
  old->erase();
}

/// Rewrites a bounded activation as relu followed by the per-channel
/// minimum `bound` (ONNX `Min`, which broadcasts where `Clip` cannot).
static void splitBound(ActivationOp activation, ArrayRef<float> bound,
                       int64_t channelAxis) {
  OpBuilder builder(activation.getContext());
  builder.setInsertionPointAfter(activation);
  auto type = cast<RankedTensorType>(activation.getType());
  SmallVector<int64_t> boundShape(type.getRank(), 1);
  boundShape[channelAxis] = int64_t(bound.size());
  if (channelAxis == type.getRank() - 1)
    boundShape.assign({int64_t(bound.size())});
  std::string name = activation.getName().value_or("activation").str();
  Location loc = activation.getLoc();
  Value limit = createFloatResourceConstant(
      builder, loc, RankedTensorType::get(boundShape, type.getElementType()),
      bound, name + "_equalized_bound");
  auto minimum = GenericOp::create(
      builder, loc, TypeRange{type}, ValueRange{activation.getOutput(), limit},
      builder.getStringAttr("Min"), builder.getStringAttr(name + "_bound"),
      /*domain=*/StringAttr(), /*layer_attributes=*/DictionaryAttr());
  activation.getOutput().replaceAllUsesExcept(minimum.getResult(0), minimum);
  activation.setKind(ActivationKind::Relu);
  activation.removeMinAttr();
  activation.removeMaxAttr();
}

/// How well one per-tensor scale fits a layer's output channels: the mean
/// channel range over the largest (1 when every channel spans the grid).
static double getTensorFit(ArrayRef<float> ranges) {
  double largest = 0, sum = 0;
  for (float r : ranges) {
    largest = std::max<double>(largest, r);
    sum += r;
  }
  return largest > 0 ? sum / double(ranges.size()) / largest : 1.0;
}

static StringRef getNameOrPlaceholder(Operation *op) {
  StringRef name = cast<QDQLayerOpInterface>(op).getLayerName();
  return name.empty() ? StringRef("<unnamed>") : name;
}

void CrossLayerEqualizationPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (maxSweeps < 1) {
    emitError(module.getLoc(), "qdq-equalize: max-sweeps must be positive");
    return signalPassFailure();
  }
  // The scales would change weights that quantizers already describe.
  WalkResult quantized = module.walk([](Operation *op) {
    return isa<QuantizeOp, DequantizeOp, FakeQuantOp>(op)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  if (quantized.wasInterrupted()) {
    emitError(module.getLoc(),
              "qdq-equalize rescales float weights: run it before "
              "insert-qdq (this module already holds Q/DQ ops)");
    return signalPassFailure();
  }

  std::vector<LayerParameters> layers;
  llvm::DenseMap<Operation *, unsigned> layerIndex;
  module.walk([&](Operation *op) {
    if (std::optional<LayerParameters> params = readParameters(op)) {
      layerIndex[op] = layers.size();
      layers.push_back(std::move(*params));
    }
  });
  auto indexOf = [&](Operation *op) {
    auto it = layerIndex.find(op);
    return it == layerIndex.end() ? -1 : int(it->second);
  };
  std::vector<EqualizedPair> pairs;
  for (unsigned i = 0; i < layers.size(); ++i) {
    std::optional<EqualizedPair> pair = matchPair(layers[i].layer, indexOf);
    if (!pair)
      continue;
    pair->producer = i;
    const LayerParameters &consumer = layers[pair->consumer];
    int64_t channels = layers[i].shape[layers[i].outputAxis];
    if (channels == 0 || consumer.shape[pair->consumerAxis] != channels ||
        (!pair->bound.empty() && int64_t(pair->bound.size()) != channels))
      continue;
    pair->factor.assign(channels, 1.0);
    pairs.push_back(std::move(*pair));
  }

  // A layer between two pairs (a depthwise convolution between two
  // pointwise ones) takes part in both: sweep until the factors settle.
  int64_t sweeps = 0;
  for (; sweeps < maxSweeps; ++sweeps) {
    double largestStep = 0;
    for (EqualizedPair &pair : pairs) {
      LayerParameters &producer = layers[pair.producer];
      LayerParameters &consumer = layers[pair.consumer];
      std::vector<float> r1 = getChannelRanges(producer.weight, producer.shape,
                                               producer.outputAxis);
      std::vector<float> r2 =
          getChannelRanges(consumer.weight, consumer.shape, pair.consumerAxis);
      std::vector<float> divide(r1.size(), 1.0f), multiply(r1.size(), 1.0f);
      bool any = false;
      for (size_t c = 0; c < r1.size(); ++c) {
        // A channel that is zero on either side keeps its scale.
        if (!(r1[c] > 0.0f) || !(r2[c] > 0.0f) || !std::isfinite(r1[c]) ||
            !std::isfinite(r2[c]))
          continue;
        double s = std::sqrt(double(r1[c]) / double(r2[c]));
        // A factor that f32 cannot hold, or whose inverse it cannot, would
        // turn a weight into infinities: leave such a channel alone.
        if (s == 1.0 || !std::isnormal(float(s)) ||
            !std::isnormal(float(1.0 / s)))
          continue;
        divide[c] = float(1.0 / s);
        multiply[c] = float(s);
        pair.factor[c] *= s;
        largestStep = std::max(largestStep, std::fabs(std::log(s)));
        any = pair.changed = true;
      }
      if (!any)
        continue;
      scaleChannels(producer.weight, producer.shape, producer.outputAxis,
                    divide);
      if (!producer.bias.empty())
        scaleChannels(producer.bias, {int64_t(producer.bias.size())}, 0,
                      divide);
      if (!pair.bound.empty())
        scaleChannels(pair.bound, {int64_t(pair.bound.size())}, 0, divide);
      scaleChannels(consumer.weight, consumer.shape, pair.consumerAxis,
                    multiply);
      producer.weightChanged = consumer.weightChanged = true;
      producer.biasChanged = !producer.bias.empty();
    }
    // Factors within 0.1 % of 1: another sweep would change nothing that
    // an 8-bit grid sees.
    if (largestStep < 1e-3) {
      ++sweeps;
      break;
    }
  }

  for (LayerParameters &params : layers) {
    std::string name = getNameOrPlaceholder(params.layer).str();
    if (params.weightChanged)
      replaceConstant(params.layer, params.weightConstant, params.weight,
                      name + "_equalized_weight");
    if (params.biasChanged)
      replaceConstant(params.layer, params.biasConstant, params.bias,
                      name + "_equalized_bias");
  }
  for (EqualizedPair &pair : pairs)
    if (!pair.bound.empty() && pair.changed)
      splitBound(pair.activation, pair.bound, pair.activationAxis);

  if (reportPath.empty())
    return;
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> file =
      openOutputFile(reportPath, &error);
  if (!file) {
    emitError(module.getLoc(), "cannot write the equalization report: ")
        << error;
    return signalPassFailure();
  }
  // Columns as wide as the longest name, so that long names stay aligned.
  size_t width = 8;
  for (const LayerParameters &params : layers)
    if (params.weightChanged)
      width = std::max(width, getNameOrPlaceholder(params.layer).size());
  auto pad = [&](StringRef name) {
    return (name + std::string(width + 1 - std::min(width, name.size()), ' '))
        .str();
  };
  llvm::raw_ostream &os = file->os();
  os << llvm::formatv("qdq-equalize: {0} pairs, {1} sweeps\n", pairs.size(),
                      sweeps);
  os << pad("producer") << pad("consumer")
     << llvm::formatv("{0,-10} {1,8} {2,21}\n", "through", "channels",
                      "factor range");
  for (const EqualizedPair &pair : pairs) {
    auto [low, high] =
        std::minmax_element(pair.factor.begin(), pair.factor.end());
    os << pad(getNameOrPlaceholder(layers[pair.producer].layer))
       << pad(getNameOrPlaceholder(layers[pair.consumer].layer))
       << llvm::formatv("{0,-10} {1,8} {2,10:e2} {3,10:e2}\n", pair.through,
                        pair.factor.size(), *low, *high);
  }
  os << "\nper-tensor fit of each rescaled layer's weight (mean channel "
        "range / largest; 1 is best)\n";
  os << pad("layer") << llvm::formatv("{0,8} {1,8}\n", "before", "after");
  for (const LayerParameters &params : layers) {
    if (!params.weightChanged)
      continue;
    os << pad(getNameOrPlaceholder(params.layer))
       << llvm::formatv("{0,8:f3} {1,8:f3}\n",
                        getTensorFit(params.initialRanges),
                        getTensorFit(getChannelRanges(
                            params.weight, params.shape, params.outputAxis)));
  }
  file->keep();
}
