//===- InsertNumberFormats.cpp - TensorQuant's quantization as a pass -----===//
//
// One walk over the layers: a layer that the outputs map selects gets a
// round_to_format on each float result, one that the weights map selects a
// round_to_format on each float parameter: every operand that is not an
// activation (kernel, bias, normalization parameters: TensorQuant rounds
// every weight of the layer), and every constant operand.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/Transforms/NumberFormatMap.h"
#include "QuantQDQ/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_INSERTNUMBERFORMATS
#include "QuantQDQ/Transforms/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;

static bool isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

namespace {
class InsertNumberFormatsPass
    : public quant_qdq::impl::InsertNumberFormatsBase<
          InsertNumberFormatsPass> {
public:
  using InsertNumberFormatsBase::InsertNumberFormatsBase;

  void runOnOperation() override {
    Location loc = getOperation().getLoc();
    std::optional<NumberFormatMap> outputs, weights;
    if (!outputsMap.empty() && failed(read(outputsMap, outputs, loc)))
      return signalPassFailure();
    if (!weightsMap.empty() && failed(read(weightsMap, weights, loc)))
      return signalPassFailure();

    llvm::SmallPtrSet<const NumberFormatMap::Entry *, 8> used;
    auto decide = [&](const std::optional<NumberFormatMap> &map,
                      StringRef name) -> std::optional<NumberFormatAttr> {
      if (!map)
        return std::nullopt;
      const NumberFormatMap::Entry *entry = map->lookup(name);
      if (!entry)
        return std::nullopt;
      used.insert(entry);
      return entry->format;
    };

    getOperation().walk([&](QDQLayerOpInterface layer) {
      Operation *op = layer.getOperation();
      StringRef name = layer.getLayerName();
      if (std::optional<NumberFormatAttr> format = decide(weights, name))
        roundWeights(layer, *format);
      // A fused activation belongs to its layer, which decides for it.
      if (isFusedActivation(op))
        return;
      if (std::optional<NumberFormatAttr> format = decide(outputs, name))
        for (Value result : op->getResults()) {
          if (ActivationOp activation = getFusedActivation(result, name))
            roundOutput(activation, activation.getResult(), *format);
          else
            roundOutput(op, result, *format);
        }
    });

    for (const std::optional<NumberFormatMap> *map : {&outputs, &weights})
      if (*map)
        for (const NumberFormatMap::Entry &entry : (*map)->getEntries())
          if (!used.contains(&entry) && !entry.substring.empty())
            emitWarning(entry.loc)
                << "'" << entry.substring
                << "' selects no layer: no layer name contains it, or the "
                   "layers it matches are fused activations, which follow "
                   "their layer, or match an earlier key";
  }

private:
  /// The fused activation of layer `name` (`<name>/relu`, as the Keras
  /// importer names it) when it is `result`'s only reader: TensorQuant
  /// rounds a Keras layer's output after its activation.
  static ActivationOp getFusedActivation(Value result, StringRef name) {
    if (name.empty() || !result.hasOneUse())
      return {};
    auto activation = dyn_cast<ActivationOp>(*result.user_begin());
    if (!activation ||
        !activation.getLayerName().starts_with((name + "/").str()))
      return {};
    return activation;
  }
  static bool isFusedActivation(Operation *op) {
    auto activation = dyn_cast<ActivationOp>(op);
    if (!activation)
      return false;
    Value input = activation->getOperand(0);
    auto producer = input.getDefiningOp<QDQLayerOpInterface>();
    return producer &&
           getFusedActivation(input, producer.getLayerName()) == activation;
  }

  /// Whether `value` (or `user`) is already a round_to_format onto
  /// `format`: running the pass twice changes nothing.
  static bool isRounded(Value value, NumberFormatAttr format) {
    return isRounded(value.getDefiningOp(), format);
  }
  static bool isRounded(Operation *op, NumberFormatAttr format) {
    auto round = dyn_cast_or_null<RoundToFormatOp>(op);
    // By name: `rounding = nearest` written out is the default left out.
    return round && round.getFormat().getTensorQuantName() ==
                        format.getTensorQuantName();
  }

  static LogicalResult read(StringRef option,
                            std::optional<NumberFormatMap> &map,
                            Location loc) {
    FailureOr<NumberFormatMap> parsed = NumberFormatMap::parse(option, loc);
    if (failed(parsed))
      return failure();
    map = std::move(*parsed);
    return success();
  }

  void roundWeights(QDQLayerOpInterface layer, NumberFormatAttr format) {
    Operation *op = layer.getOperation();
    SmallVector<unsigned> activations(layer.getActivationOperandIndices());
    OpBuilder builder(op);
    for (OpOperand &operand : op->getOpOperands()) {
      // A constant read as an activation is a parameter all the same (the
      // initializer of a generic ONNX node, the constant of an Add).
      bool parameter =
          !llvm::is_contained(activations, operand.getOperandNumber()) ||
          matchPattern(operand.get(), m_Constant());
      if (!parameter || !isFloatTensor(operand.get().getType()) ||
          isRounded(operand.get(), format))
        continue;
      auto round = RoundToFormatOp::create(builder, operand.get().getLoc(),
                                           operand.get(), format);
      operand.set(round);
      ++numWeights;
    }
  }

  void roundOutput(Operation *op, Value result, NumberFormatAttr format) {
    if (!isFloatTensor(result.getType()) ||
        (result.hasOneUse() && isRounded(*result.user_begin(), format)))
      return;
    OpBuilder builder(op->getContext());
    builder.setInsertionPointAfter(op);
    auto round = RoundToFormatOp::create(builder, op->getLoc(), result, format);
    result.replaceAllUsesExcept(round, round);
    ++numOutputs;
  }
};
} // namespace
