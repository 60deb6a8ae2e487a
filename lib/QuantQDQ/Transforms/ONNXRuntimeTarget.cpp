//===- ONNXRuntimeTarget.cpp - Q/DQ placed for ONNX Runtime ---------------===//

#include "QuantQDQ/Transforms/ONNXRuntimeTarget.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::quant_qdq;

QuantizerAttr
mlir::quant_qdq::getONNXRuntimeActivationQuantizer(MLIRContext *context) {
  return QuantizerAttr::get(context, /*bits=*/8, /*is_signed=*/false,
                            /*narrow_range=*/false, /*symmetric=*/false,
                            /*axis=*/std::nullopt,
                            std::optional<CalibrationMethod>(),
                            /*block_size=*/std::nullopt, StorageFormat::Int);
}

/// Whether ORT removes `act` in front of a quantize whose zero point is the
/// storage minimum (its ReluQuantFusion and ClipQuantFusion): the quantize
/// clamps below at 0, and calibration keeps a clip's upper bound in range.
static bool vanishesBeforeQuantize(ActivationOp act) {
  switch (act.getKind()) {
  case ActivationKind::Relu:
  case ActivationKind::Relu6:
    return true;
  case ActivationKind::Clip:
    return act.getMinAttr().getValueAsDouble() == 0.0;
  default:
    return false;
  }
}

/// The tensor to quantize after `layer`: its result, or the result of the
/// activation that alone reads it and vanishes before a quantize.
static Value getQuantizedOutput(Operation *layer) {
  Value output = layer->getResult(0);
  if (!output.hasOneUse())
    return output;
  auto act = dyn_cast<ActivationOp>(*output.getUsers().begin());
  return act && vanishesBeforeQuantize(act) ? act.getResult() : output;
}

/// Whether every activation input of `layer`, and its weight if it has one,
/// comes from a dequantize.
static bool readsQuantized(QDQLayerOpInterface layer) {
  SmallVector<unsigned> inputs = layer.getActivationOperandIndices();
  if (inputs.empty())
    return false;
  auto dequantized = [&](unsigned index) {
    return layer->getOperand(index).getDefiningOp<DequantizeOp>() != nullptr;
  };
  if (std::optional<unsigned> weight = layer.getWeightOperandIndex();
      weight && !dequantized(*weight))
    return false;
  return llvm::all_of(inputs, dequantized);
}

/// A per-tensor dequantize of `value` that a quantize of it feeds, if any.
static DequantizeOp findPair(Value value) {
  for (Operation *user : value.getUsers()) {
    auto quantize = dyn_cast<QuantizeOp>(user);
    if (!quantize || quantize.getQuantizer().isPerAxis())
      continue;
    for (Operation *reader : quantize->getUsers())
      if (auto dequantize = dyn_cast<DequantizeOp>(reader))
        return dequantize;
  }
  return nullptr;
}

/// Quantizes `value` for every reader but quantize ops, sharing a pair that
/// already quantizes it. False, and nothing changed, when the function
/// returns `value` or it is not a float tensor.
static bool quantizeEveryReader(OpBuilder &builder, Value value,
                                QuantizerAttr quantizer,
                                QLinearOutputCounts &counts) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !isa<FloatType>(type.getElementType()))
    return false;
  auto isFloatReader = [](OpOperand &use) {
    return !isa<QuantizeOp>(use.getOwner());
  };
  if (llvm::any_of(value.getUses(), [](OpOperand &use) {
        return use.getOwner()->hasTrait<OpTrait::IsTerminator>();
      }))
    return false;
  if (llvm::none_of(value.getUses(), isFloatReader))
    return true;
  DequantizeOp pair = findPair(value);
  if (!pair) {
    pair = createQDQPair(builder, value, quantizer, "insert-qdq");
    ++counts.pairs;
  }
  Operation *quantize = pair.getInput().getDefiningOp();
  value.replaceUsesWithIf(pair.getResult(), [&](OpOperand &use) {
    return use.getOwner() != quantize && isFloatReader(use);
  });
  return true;
}

/// The readers of `value`, looking through pass-through layers.
static void collectReaders(Value value, SmallVectorImpl<OpOperand *> &readers) {
  for (OpOperand &use : value.getUses()) {
    auto layer = dyn_cast<QDQLayerOpInterface>(use.getOwner());
    if (layer && layer.isPassThrough() && layer->getNumResults() == 1)
      collectReaders(layer->getResult(0), readers);
    else
      readers.push_back(&use);
  }
}

/// Whether `use` can run on integers once its value comes quantized: a
/// pair already quantizes the value (a consumer asked for it); a layer with
/// a dequantized weight reads it (QLinearConv, QGemm,
/// MatMulIntegerToFloat); or a layer with a QLinear kernel reads it beside
/// activation inputs that are all quantized.
static bool runsOnIntegers(OpOperand &use) {
  Operation *reader = use.getOwner();
  if (isa<QuantizeOp>(reader))
    return true;
  auto layer = dyn_cast<QDQLayerOpInterface>(reader);
  if (!layer)
    return false;
  if (std::optional<unsigned> weight = layer.getWeightOperandIndex())
    if (*weight != use.getOperandNumber() &&
        layer->getOperand(*weight).getDefiningOp<DequantizeOp>())
      return true;
  if (!layer.hasQLinearKernel())
    return false;
  return llvm::all_of(layer.getActivationOperandIndices(), [&](unsigned i) {
    return i == use.getOperandNumber() ||
           layer->getOperand(i).getDefiningOp<DequantizeOp>();
  });
}

/// Whether quantizing `value` lets a reader run on integers. Quantizing it
/// for nothing would cost accuracy: a convolution feeding a layer
/// normalization stays in float.
static bool isWantedQuantized(Value value) {
  SmallVector<OpOperand *> readers;
  collectReaders(value, readers);
  return llvm::any_of(readers,
                      [](OpOperand *use) { return runsOnIntegers(*use); });
}

/// Splits a swish, `x * sigmoid(x)`, whose input comes dequantized into
/// its sigmoid and its product, with the sigmoid's output quantized: ORT
/// runs the two as QLinearSigmoid and QLinearMul, where it has no kernel
/// for the whole. Returns the product.
static MultiplyOp splitSwish(OpBuilder &builder, ActivationOp swish,
                             QuantizerAttr activation,
                             QLinearOutputCounts &counts) {
  builder.setInsertionPoint(swish);
  Location loc = swish.getLoc();
  std::string name = swish.getName().value_or("swish").str();
  Value input = swish.getInput();
  auto sigmoid =
      ActivationOp::create(builder, loc, input, ActivationKind::Sigmoid,
                           builder.getStringAttr(name + "/sigmoid"), nullptr,
                           nullptr, nullptr, nullptr);
  auto product = MultiplyOp::create(builder, loc, swish.getType(),
                                    ValueRange{input, sigmoid.getResult()},
                                    builder.getStringAttr(name + "/mul"));
  swish.getResult().replaceAllUsesWith(product.getResult());
  swish.erase();
  if (quantizeEveryReader(builder, sigmoid.getResult(), activation, counts))
    ++counts.layerOutputs;
  return product;
}

QLinearOutputCounts
mlir::quant_qdq::quantizeQLinearOutputs(func::FuncOp func,
                                        QuantizerAttr activation) {
  QLinearOutputCounts counts;
  // Collected first: the pairs go in after the layers they follow.
  SmallVector<QDQLayerOpInterface> layers;
  func.walk([&](QDQLayerOpInterface layer) {
    if (layer->getNumResults() == 1)
      layers.push_back(layer);
  });
  OpBuilder builder(func.getContext());
  for (QDQLayerOpInterface layer : layers) {
    if (layer.isPassThrough()) {
      SmallVector<unsigned> inputs = layer.getActivationOperandIndices();
      if (inputs.size() != 1)
        continue;
      auto source =
          layer->getOperand(inputs.front()).getDefiningOp<DequantizeOp>();
      Value output = layer->getResult(0);
      if (source && !source.getQuantizer().isPerAxis() &&
          isWantedQuantized(output) &&
          quantizeEveryReader(builder, output, source.getQuantizer(), counts))
        ++counts.passThroughOutputs;
      continue;
    }
    if (!layer.hasQLinearKernel() || !readsQuantized(layer))
      continue;
    auto act = dyn_cast<ActivationOp>(layer.getOperation());
    if (act && act.getKind() == ActivationKind::Swish)
      layer = splitSwish(builder, act, activation, counts);
    Value output = getQuantizedOutput(layer);
    if (isWantedQuantized(output) &&
        quantizeEveryReader(builder, output, activation, counts))
      ++counts.layerOutputs;
  }
  return counts;
}
