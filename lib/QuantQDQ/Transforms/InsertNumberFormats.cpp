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
    MLIRContext *context = &getContext();
    std::optional<NumberFormatMap> outputs, weights;
    if (!outputsMap.empty() &&
        failed(read(outputsMap, outputs, context)))
      return signalPassFailure();
    if (!weightsMap.empty() && failed(read(weightsMap, weights, context)))
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
      if (std::optional<NumberFormatAttr> format = decide(outputs, name))
        for (Value result : op->getResults())
          if (!feedsOwnActivation(result, name))
            roundOutput(op, result, *format);
    });

    for (const std::optional<NumberFormatMap> *map : {&outputs, &weights})
      if (*map)
        for (const NumberFormatMap::Entry &entry : (*map)->getEntries())
          if (!used.contains(&entry) && !entry.substring.empty())
            emitWarning(entry.loc)
                << "no layer name contains '" << entry.substring << "'";
  }

private:
  /// Whether `result` of layer `name` is read only by that layer's fused
  /// activation (`<name>/relu`, the Keras importer's name), whose name
  /// contains `name` too: TensorQuant rounds a layer's output after it.
  static bool feedsOwnActivation(Value result, StringRef name) {
    if (name.empty() || !result.hasOneUse())
      return false;
    auto activation = dyn_cast<ActivationOp>(*result.user_begin());
    return activation &&
           activation.getLayerName().starts_with((name + "/").str());
  }

  /// Whether `value` (or `user`) is already a round_to_format onto
  /// `format`: running the pass twice changes nothing.
  static bool isRounded(Value value, NumberFormatAttr format) {
    return isRounded(value.getDefiningOp(), format);
  }
  static bool isRounded(Operation *op, NumberFormatAttr format) {
    auto round = dyn_cast_or_null<RoundToFormatOp>(op);
    return round && round.getFormat() == format;
  }

  static LogicalResult read(StringRef option,
                            std::optional<NumberFormatMap> &map,
                            MLIRContext *context) {
    FailureOr<NumberFormatMap> parsed = NumberFormatMap::parse(option, context);
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
