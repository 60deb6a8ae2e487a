//===- ONNXRuntimeTarget.cpp - Q/DQ placed for ONNX Runtime ---------------===//
//
// Two steps. Analysis: which tensors to quantize, as a greatest fixpoint:
// every candidate (the output of a layer with a QLinear kernel, past the
// activation ORT removes; the output of a pass-through layer) starts in the
// set, and leaves it when its layer cannot run on integers (an input neither
// dequantized nor in the set) or when no reader would then run on integers.
// Starting from all of them, two convolutions feeding one Add keep each
// other in. Each sweep is linear; each removes a candidate or ends it.
// Insertion: in program order, a pair on each tensor of the set, swishes
// split first.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Transforms/ONNXRuntimeTarget.h"
#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/Utils/PassThrough.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "llvm/ADT/SetVector.h"

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

bool mlir::quant_qdq::isONNXRuntimeIntegerFormat(QuantizerAttr quantizer,
                                                 bool weight) {
  return quantizer.getBits() == 8 && !quantizer.isFloatStorage() &&
         !quantizer.isBlocked() && (weight || !quantizer.isPerAxis());
}

/// The dequantize `value` comes from, when ORT's integer kernels read its
/// format.
static DequantizeOp getIntegerDequantize(Value value, bool weight) {
  auto dequantize = value.getDefiningOp<DequantizeOp>();
  if (dequantize &&
      isONNXRuntimeIntegerFormat(dequantize.getQuantizer(), weight))
    return dequantize;
  return nullptr;
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

/// Whether a pair may go on `value`: a float tensor that the function does
/// not return (its output keeps full precision).
static bool isQuantizableOutput(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && isa<FloatType>(type.getElementType()) &&
         llvm::none_of(value.getUsers(), [](Operation *user) {
           return user->hasTrait<OpTrait::IsTerminator>();
         });
}

namespace {
/// The tensors the target quantizes, found as a greatest fixpoint.
class QuantizedTensors {
public:
  explicit QuantizedTensors(ArrayRef<QDQLayerOpInterface> layers);

  /// Whether `value` comes quantized: from a dequantize of an integer
  /// format, or because the set will quantize it.
  bool isQuantized(Value value) const {
    return getIntegerDequantize(value, /*weight=*/false) || set.contains(value);
  }
  bool contains(Value value) const { return set.contains(value); }

private:
  /// Whether every activation input of `layer`, and its weight if it has
  /// one, comes quantized.
  bool readsQuantized(QDQLayerOpInterface layer) const;
  /// Whether `use` runs on integers once its value comes quantized: a
  /// quantize already reads the value; a layer with a QLinear kernel whose
  /// other inputs come quantized and whose output the set holds; a layer
  /// without one but with an integer weight (QGemm, MatMulIntegerToFloat).
  bool runsOnIntegers(OpOperand &use) const;
  /// Whether some reader of `value`, looking through pass-through layers,
  /// runs on integers once it comes quantized. Quantizing it for nothing
  /// would cost accuracy: a convolution feeding a layer normalization
  /// stays in float.
  bool isWanted(Value value) const;
  /// Whether `candidate`, the output its layer gives, stays in the set.
  bool holds(Value candidate, QDQLayerOpInterface layer) const;

  llvm::SetVector<Value> set;
};
} // namespace

QuantizedTensors::QuantizedTensors(ArrayRef<QDQLayerOpInterface> layers) {
  SmallVector<std::pair<Value, QDQLayerOpInterface>> candidates;
  for (QDQLayerOpInterface layer : layers) {
    Value output;
    if (getPassThroughInput(layer.getOperation()))
      output = layer->getResult(0);
    else if (layer.hasQLinearKernel())
      output = getQuantizedOutput(layer);
    if (output && isQuantizableOutput(output)) {
      candidates.push_back({output, layer});
      set.insert(output);
    }
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (auto [candidate, layer] : candidates)
      if (set.contains(candidate) && !holds(candidate, layer)) {
        set.remove(candidate);
        changed = true;
      }
  }
}

bool QuantizedTensors::readsQuantized(QDQLayerOpInterface layer) const {
  SmallVector<unsigned> inputs = layer.getActivationOperandIndices();
  if (inputs.empty())
    return false;
  if (std::optional<unsigned> weight = layer.getWeightOperandIndex();
      weight && !getIntegerDequantize(layer->getOperand(*weight),
                                      /*weight=*/true))
    return false;
  return llvm::all_of(inputs, [&](unsigned index) {
    return isQuantized(layer->getOperand(index));
  });
}

bool QuantizedTensors::runsOnIntegers(OpOperand &use) const {
  Operation *reader = use.getOwner();
  if (isa<QuantizeOp>(reader))
    return true;
  auto layer = dyn_cast<QDQLayerOpInterface>(reader);
  if (!layer || use.getOperandNumber() == layer.getWeightOperandIndex())
    return false;
  // A QLinear kernel needs its output quantized too, and all its inputs.
  if (layer.hasQLinearKernel())
    return set.contains(getQuantizedOutput(layer)) &&
           llvm::all_of(layer.getActivationOperandIndices(), [&](unsigned i) {
             return i == use.getOperandNumber() ||
                    isQuantized(layer->getOperand(i));
           });
  // QGemm and MatMulIntegerToFloat write float.
  std::optional<unsigned> weight = layer.getWeightOperandIndex();
  return weight &&
         getIntegerDequantize(layer->getOperand(*weight), /*weight=*/true);
}

bool QuantizedTensors::isWanted(Value value) const {
  SmallVector<Value> worklist{value};
  while (!worklist.empty()) {
    Value next = worklist.pop_back_val();
    for (OpOperand &use : next.getUses()) {
      if (getPassThroughInput(use.getOwner()))
        worklist.push_back(use.getOwner()->getResult(0));
      else if (runsOnIntegers(use))
        return true;
    }
  }
  return false;
}

bool QuantizedTensors::holds(Value candidate, QDQLayerOpInterface layer) const {
  if (OpOperand *input = getPassThroughInput(layer.getOperation()))
    return isQuantized(input->get()) && isWanted(candidate);
  return readsQuantized(layer) && isWanted(candidate);
}

/// A per-tensor dequantize of `value` that a quantize of it feeds and that
/// comes before every other reader of `value`, if any.
static DequantizeOp findPair(Value value, DominanceInfo &dominance) {
  for (Operation *user : value.getUsers()) {
    auto quantize = dyn_cast<QuantizeOp>(user);
    if (!quantize || quantize.getQuantizer().isPerAxis())
      continue;
    for (Operation *reader : quantize->getUsers()) {
      auto dequantize = dyn_cast<DequantizeOp>(reader);
      if (dequantize && llvm::all_of(value.getUsers(), [&](Operation *other) {
            return isa<QuantizeOp>(other) ||
                   dominance.properlyDominates(dequantize.getOperation(),
                                               other);
          }))
        return dequantize;
    }
  }
  return nullptr;
}

/// Quantizes `value` for every reader but quantize ops, sharing a pair that
/// already quantizes it.
static void quantizeEveryReader(OpBuilder &builder, DominanceInfo &dominance,
                                Value value, QuantizerAttr quantizer,
                                QLinearOutputCounts &counts) {
  auto isFloatReader = [](OpOperand &use) {
    return !isa<QuantizeOp>(use.getOwner());
  };
  if (llvm::none_of(value.getUses(), isFloatReader))
    return;
  DequantizeOp pair = findPair(value, dominance);
  if (!pair) {
    pair = createQDQPair(builder, value, quantizer, "insert-qdq");
    ++counts.pairs;
  }
  Operation *quantize = pair.getInput().getDefiningOp();
  value.replaceUsesWithIf(pair.getResult(), [&](OpOperand &use) {
    return use.getOwner() != quantize && isFloatReader(use);
  });
}

/// Splits a swish, `x * sigmoid(x)`, into its sigmoid and its product, with
/// the sigmoid's output quantized: ORT runs the two as QLinearSigmoid and
/// QLinearMul, where it has no kernel for the whole. Returns the product,
/// which takes the swish's place (and its tensor names).
static MultiplyOp splitSwish(OpBuilder &builder, DominanceInfo &dominance,
                             ActivationOp swish, QuantizerAttr activation,
                             QLinearOutputCounts &counts) {
  builder.setInsertionPoint(swish);
  Location loc = swish.getLoc();
  StringAttr name = swish.getNameAttr();
  auto suffixed = [&](StringRef suffix) {
    return name ? builder.getStringAttr(name.getValue() + suffix)
                : StringAttr();
  };
  Value input = swish.getInput();
  auto sigmoid = ActivationOp::create(
      builder, loc, input, ActivationKind::Sigmoid, suffixed("/sigmoid"),
      nullptr, nullptr, nullptr, nullptr);
  auto product = MultiplyOp::create(builder, loc, swish.getType(),
                                    ValueRange{input, sigmoid.getResult()},
                                    suffixed("/mul"));
  for (NamedAttribute attr : swish->getDiscardableAttrs())
    product->setAttr(attr.getName(), attr.getValue());
  swish.getResult().replaceAllUsesWith(product.getResult());
  swish.erase();
  quantizeEveryReader(builder, dominance, sigmoid.getResult(), activation,
                      counts);
  ++counts.layerOutputs;
  return product;
}

QLinearOutputCounts
mlir::quant_qdq::quantizeQLinearOutputs(func::FuncOp func,
                                        QuantizerAttr activation) {
  QLinearOutputCounts counts;
  SmallVector<QDQLayerOpInterface> layers;
  func.walk([&](QDQLayerOpInterface layer) {
    if (layer->getNumResults() == 1)
      layers.push_back(layer);
  });
  QuantizedTensors quantized(layers);

  OpBuilder builder(func.getContext());
  DominanceInfo dominance(func);
  for (QDQLayerOpInterface layer : layers) {
    if (OpOperand *input = getPassThroughInput(layer.getOperation())) {
      // In program order, the input's pair is in place: its quantizer.
      Value output = layer->getResult(0);
      if (!quantized.contains(output))
        continue;
      auto source = getIntegerDequantize(input->get(), /*weight=*/false);
      if (!source)
        continue;
      quantizeEveryReader(builder, dominance, output, source.getQuantizer(),
                          counts);
      ++counts.passThroughOutputs;
      continue;
    }
    Value output = layer->getNumResults() == 1 && layer.hasQLinearKernel()
                       ? getQuantizedOutput(layer)
                       : Value();
    if (!output || !quantized.contains(output))
      continue;
    auto act = dyn_cast<ActivationOp>(layer.getOperation());
    if (act && act.getKind() == ActivationKind::Swish)
      output = getQuantizedOutput(
          splitSwish(builder, dominance, act, activation, counts));
    quantizeEveryReader(builder, dominance, output, activation, counts);
    ++counts.layerOutputs;
  }

  // A layer with an integer weight that stays in float dequantizes it on
  // every run: its weight is better stored as the float values.
  // (Walked again: `layers` holds the swishes split and erased above.)
  func.walk([&](QDQLayerOpInterface layer) {
    std::optional<unsigned> weight = layer.getWeightOperandIndex();
    if (layer->getNumResults() != 1 || !weight ||
        !getIntegerDequantize(layer->getOperand(*weight), /*weight=*/true))
      return;
    bool inputsQuantized =
        llvm::all_of(layer.getActivationOperandIndices(), [&](unsigned i) {
          return getIntegerDequantize(layer->getOperand(i), /*weight=*/false);
        });
    bool outputQuantized =
        !layer.hasQLinearKernel() ||
        llvm::all_of(getQuantizedOutput(layer).getUsers(),
                     [](Operation *user) { return isa<QuantizeOp>(user); });
    if (!inputsQuantized || !outputQuantized) {
      layer->setAttr(kFloatKernelAttrName, builder.getUnitAttr());
      ++counts.floatKernels;
    }
  });

  // ORT fuses a Gemm with quantized input and weight into QGemm only
  // without a float bias: export writes the bias as an Add after it.
  func.walk([&](DenseOp dense) {
    if (dense.getBias() &&
        getIntegerDequantize(dense.getInput(), /*weight=*/false) &&
        getIntegerDequantize(dense.getWeight(), /*weight=*/true)) {
      dense->setAttr(DenseOp::kSeparateBiasAttrName, builder.getUnitAttr());
      ++counts.separateBiases;
    }
  });
  return counts;
}
