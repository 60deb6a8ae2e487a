//===- BiasCorrection.cpp - weight rounding's mean shift, folded away -----===//

#include "QuantQDQ/Calibration/Passes.h"
#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/Utils/BareOption.h"
#include "QuantQDQ/Utils/Scales.h"
#include "QuantQDQ/Utils/TensorNames.h"

#include "CalibrationData.h"
#include "DenseWeights.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_BIASCORRECTION
#include "QuantQDQ/Calibration/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
/// A Conv2D or Dense layer whose quantized weight shifts its output mean.
struct CorrectedLayer {
  Operation *layer = nullptr;
  /// The float weight and its rounding error Q(W) - W, in its layout.
  arith::ConstantOp weight;
  std::vector<float> error;
  /// The bias's values (zeros where the layer has none).
  std::vector<float> bias;
  /// The axis of the layer's output that holds its output channels.
  int64_t channelAxis = 0;
  /// Per output channel: the sum of the shift over the data, and how many
  /// values it adds.
  std::vector<double> sum;
  int64_t valuesPerChannel = 0;
};

struct BiasCorrectionPass
    : public quant_qdq::impl::BiasCorrectionBase<BiasCorrectionPass> {
  using BiasCorrectionBase::BiasCorrectionBase;

  /// `--qdq-bias-correction=data.npy` names the data.
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    return initializeWithMainOption<BiasCorrectionPass, BiasCorrectionBase>(
        *this, options, "data", errorHandler);
  }

  void runOnOperation() override;
};
} // namespace

/// The weight operand of a Conv2D or Dense layer, and where its output
/// channels lie in the layer's output; null for other ops.
static std::pair<OpOperand *, int64_t> getWeightAndChannelAxis(Operation *op) {
  if (auto conv = dyn_cast<Conv2DOp>(op))
    return {&conv.getWeightMutable(), conv.getLayout() == Layout::NHWC ? 3 : 1};
  if (auto dense = dyn_cast<DenseOp>(op))
    return {&dense.getWeightMutable(),
            cast<RankedTensorType>(dense.getType()).getRank() - 1};
  return {nullptr, 0};
}

/// The float constant `weight` reads through a quantize/dequantize pair (or
/// a fake_quant) under a symmetric signed integer quantizer, with that
/// pair's quantizer and scales (computed from the values when it has
/// none).
static std::optional<std::pair<arith::ConstantOp, SmallVector<float>>>
matchQuantizedWeight(Value weight, QuantizerAttr &quantizer) {
  Value input;
  std::optional<ArrayRef<float>> scale;
  if (auto dequantize = weight.getDefiningOp<DequantizeOp>()) {
    auto quantize = dequantize.getInput().getDefiningOp<QuantizeOp>();
    if (!quantize)
      return std::nullopt;
    input = quantize.getInput();
    quantizer = quantize.getQuantizer();
    scale = quantize.getScale();
  } else if (auto fake = weight.getDefiningOp<FakeQuantOp>()) {
    input = fake.getInput();
    quantizer = fake.getQuantizer();
    scale = fake.getScale();
  } else {
    return std::nullopt;
  }
  auto constant = input.getDefiningOp<arith::ConstantOp>();
  if (!constant || !quantizer.getSymmetric() || !quantizer.getIsSigned() ||
      quantizer.isFloatStorage() ||
      !cast<RankedTensorType>(constant.getType()).getElementType().isF32())
    return std::nullopt;
  auto values = cast<ElementsAttr>(constant.getValue());
  if (scale)
    return std::make_pair(constant, SmallVector<float>(*scale));
  FailureOr<SmallVector<float>> computed =
      computeWeightScales(values, quantizer);
  if (failed(computed))
    return std::nullopt;
  return std::make_pair(constant, *computed);
}

/// The layers of `func` the pass corrects, in program order, with their
/// biases and weights' rounding errors (computed when `withErrors`; the
/// same layers either way). `skipped` collects the layers with a quantized
/// weight whose bias is no f32 constant of their own (a quantized one).
static std::vector<CorrectedLayer>
collectLayers(func::FuncOp func, bool withErrors,
              SmallVectorImpl<Operation *> *skipped = nullptr) {
  std::vector<CorrectedLayer> layers;
  func.walk([&](Operation *op) {
    auto [weightOperand, channelAxis] = getWeightAndChannelAxis(op);
    if (!weightOperand)
      return;
    auto output = cast<RankedTensorType>(op->getResult(0).getType());
    if (!output.getElementType().isF32() ||
        ShapedType::isDynamic(output.getDimSize(channelAxis)))
      return;
    QuantizerAttr quantizer;
    auto matched = matchQuantizedWeight(weightOperand->get(), quantizer);
    if (!matched ||
        failed(readFloatConstant(cast<ElementsAttr>(matched->first.getValue()),
                                 [](ArrayRef<float>) {})))
      return;
    int64_t channels = output.getDimSize(channelAxis);
    std::vector<float> bias(channels, 0.0f);
    if (op->getNumOperands() > 2) {
      auto constant = op->getOperand(2).getDefiningOp<arith::ConstantOp>();
      bool read =
          constant &&
          cast<RankedTensorType>(constant.getType()).getElementType().isF32() &&
          succeeded(readFloatConstant(
              cast<ElementsAttr>(constant.getValue()),
              [&](ArrayRef<float> b) { bias.assign(b.begin(), b.end()); }));
      if (!read || int64_t(bias.size()) != channels) {
        if (skipped)
          skipped->push_back(op);
        return;
      }
    }
    CorrectedLayer &layer = layers.emplace_back();
    layer.layer = op;
    layer.weight = matched->first;
    layer.channelAxis = channelAxis;
    layer.bias = std::move(bias);
    layer.sum.assign(channels, 0.0);
    if (!withErrors)
      return;
    ArrayRef<float> scales = matched->second;
    ArrayRef<int64_t> shape =
        cast<RankedTensorType>(layer.weight.getType()).getShape();
    float qmin = float(quantizer.getQMin()), qmax = float(quantizer.getQMax());
    (void)readFloatConstant(
        cast<ElementsAttr>(layer.weight.getValue()), [&](ArrayRef<float> w) {
          layer.error.assign(w.size(), 0.0f);
          for (const ScaleRun &run : getScaleRuns(quantizer, shape))
            for (int64_t i = 0; i < run.length; ++i) {
              float scale = scales[run.scale + i * run.scaleStride];
              float value = w[run.begin + i];
              layer.error[run.begin + i] =
                  std::clamp(std::nearbyint(value / scale), qmin, qmax) *
                      scale -
                  value;
            }
        });
  });
  return layers;
}

/// A copy of `layer` beside it that applies the weight's rounding error to
/// the layer's input, without bias: its output is the shift rounding adds.
static Value buildShiftProbe(const CorrectedLayer &original, Operation *layer) {
  OpBuilder builder(layer);
  auto [weightOperand, axis] = getWeightAndChannelAxis(layer);
  auto weightType = cast<RankedTensorType>(weightOperand->get().getType());
  Value error = arith::ConstantOp::create(
      builder, layer->getLoc(),
      DenseElementsAttr::get(weightType, ArrayRef<float>(original.error)));
  Operation *probe = builder.clone(*layer);
  probe->setOperand(weightOperand->getOperandNumber(), error);
  if (probe->getNumOperands() > 2)
    probe->eraseOperand(2);
  probe->removeAttr(kResultNamesAttr);
  return probe->getResult(0);
}

/// Adds the per-channel sums of `shift` (the probe's output) to `layer`.
static void accumulateShift(CorrectedLayer &layer, const NpyArray &shift) {
  ArrayRef<int64_t> shape = shift.shape;
  int64_t channels = shape[layer.channelAxis], outer = 1, inner = 1;
  for (int64_t d = 0; d < layer.channelAxis; ++d)
    outer *= shape[d];
  for (int64_t d = layer.channelAxis + 1; d < int64_t(shape.size()); ++d)
    inner *= shape[d];
  const float *values = reinterpret_cast<const float *>(shift.bytes);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < channels; ++c) {
      const float *run = values + (o * channels + c) * inner;
      double sum = 0;
      for (int64_t i = 0; i < inner; ++i)
        sum += run[i];
      layer.sum[c] += sum;
    }
  layer.valuesPerChannel += outer * inner;
}

/// Subtracts `layer`'s mean shift from its bias; returns the correction.
static std::vector<float> correctBias(CorrectedLayer &layer) {
  Operation *op = layer.layer;
  std::vector<float> correction;
  for (double sum : layer.sum)
    correction.push_back(float(sum / double(layer.valuesPerChannel)));
  std::vector<float> bias = layer.bias;
  Location loc = op->getLoc();
  std::string name;
  if (op->getNumOperands() > 2) {
    loc = op->getOperand(2).getLoc();
    name = getLocationName(loc).str();
  }
  if (name.empty())
    name = (cast<QDQLayerOpInterface>(op).getLayerName() + "_bias").str();
  for (auto [b, c] : llvm::zip(bias, correction))
    b -= c;
  OpBuilder builder(op);
  MLIRContext *context = op->getContext();
  auto type =
      RankedTensorType::get({int64_t(bias.size())}, Float32Type::get(context));
  Value corrected = arith::ConstantOp::create(
      builder, NameLoc::get(StringAttr::get(context, name + "_corrected"), loc),
      DenseElementsAttr::get(type, ArrayRef<float>(bias)));
  if (op->getNumOperands() > 2)
    op->setOperand(2, corrected);
  else
    op->insertOperands(2, corrected);
  return correction;
}

void BiasCorrectionPass::runOnOperation() {
  ModuleOp module = getOperation();
  Location loc = module.getLoc();
  if (data.empty()) {
    emitError(loc) << "qdq-bias-correction needs data: data=<.npy or .npz "
                      "files>";
    return signalPassFailure();
  }
  func::FuncOp function =
      findDataPassEntry(module, "qdq-bias-correction", entry, batchSize);
  if (!function)
    return signalPassFailure();
  nameTensors(function);
  SmallVector<Operation *> skipped;
  std::vector<CorrectedLayer> layers =
      collectLayers(function, /*withErrors=*/true, &skipped);
  if (!skipped.empty())
    skipped.front()->emitWarning()
        << "qdq-bias-correction leaves " << skipped.size()
        << " layer(s) uncorrected, this one first: their bias is no f32 "
           "constant of their own (a quantized bias is not corrected)";
  if (layers.empty()) {
    emitWarning(loc) << "qdq-bias-correction found no convolution or dense "
                        "layer with a quantized float weight (symmetric, "
                        "signed integers)";
    return;
  }
  SmallVector<std::string> paths(data.begin(), data.end());
  if (failed(observeTensors(
          module, function, paths, batchSize,
          [&](func::FuncOp func) {
            // A copy of the function before any change: the same layers.
            std::vector<CorrectedLayer> copies =
                collectLayers(func, /*withErrors=*/false);
            SmallVector<Value> probes;
            if (copies.size() != layers.size())
              return probes;
            for (auto [original, copy] : llvm::zip(layers, copies))
              probes.push_back(buildShiftProbe(original, copy.layer));
            return probes;
          },
          [&](size_t i, const NpyArray &shift) {
            accumulateShift(layers[i], shift);
          })))
    return signalPassFailure();

  std::string text = "layer channels max-correction mean-correction\n";
  for (CorrectedLayer &layer : layers) {
    if (layer.valuesPerChannel == 0)
      continue;
    if (!llvm::all_of(layer.sum, [](double s) { return std::isfinite(s); })) {
      layer.layer->emitError("qdq-bias-correction: this layer's inputs on "
                             "the data hold NaN or infinite values");
      return signalPassFailure();
    }
    std::vector<float> correction = correctBias(layer);
    double largest = 0, mean = 0;
    for (float c : correction) {
      largest = std::max(largest, double(std::abs(c)));
      mean += std::abs(c) / double(correction.size());
    }
    text += llvm::formatv("{0} {1} {2:E3} {3:E3}\n",
                          cast<QDQLayerOpInterface>(layer.layer).getLayerName(),
                          correction.size(), largest, mean)
                .str();
    ++numCorrected;
  }
  if (!reportPath.empty() &&
      failed(writeReport(reportPath, text, loc, "bias correction")))
    signalPassFailure();
}
