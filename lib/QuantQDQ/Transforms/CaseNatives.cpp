//===- CaseNatives.cpp - native functions of Q/DQ insertion cases ---------===//
//
// The graph queries PDL cannot express (producer chains, use counts, "the
// first input that...") and the rewrites that record a case's decision on a
// layer in its `quant_qdq.case` attribute.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/Transforms/InsertionCases.h"

#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::quant_qdq;

/// Walks up the residual rule's chain: [Dropout <-] [Activation <-]
/// [BatchNormalization <-] Conv. With BN folded into the convolution, as
/// exporters from PyTorch do, Activation <- Conv is the same chain.
static bool isConvFed(Value value) {
  Operation *op = value.getDefiningOp();
  if (isa_and_nonnull<DropoutOp>(op))
    op = op->getOperand(0).getDefiningOp();
  if (isa_and_nonnull<ActivationOp>(op))
    op = op->getOperand(0).getDefiningOp();
  if (isa_and_nonnull<BatchNormOp>(op))
    op = op->getOperand(0).getDefiningOp();
  return isa_and_nonnull<Conv2DOp>(op);
}

/// Adds to the record of `caseName` on `layer`: more quantized activation
/// positions, and the weight. Several cases may record on one layer; their
/// records merge.
///
/// Misuse is reported as an error diagnostic, which fails the pass; the
/// rewrite itself still "succeeds": a failing native rewrite aborts the
/// process in the pattern drivers that cannot roll back.
void mlir::quant_qdq::recordCaseDecision(RewriterBase &rewriter,
                                         Operation *op, StringRef caseName,
                                         ArrayRef<int64_t> positions,
                                         bool weight, bool keepInFloat,
                                         const QuantizerOverride &input,
                                         const QuantizerOverride &weights) {
  auto layer = dyn_cast<QDQLayerOpInterface>(op);
  if (!layer) {
    op->emitError("insertion case '")
        << caseName << "' recorded a decision on '" << op->getName()
        << "', which is not a layer (QDQLayerOpInterface)";
    return;
  }
  int64_t numInputs = layer.getActivationOperandIndices().size();
  for (int64_t position : positions)
    if (position < 0 || position >= numInputs) {
      op->emitError("insertion case '")
          << caseName << "' asks for input " << position << " of a layer "
          << "with " << numInputs << " activation inputs";
      return;
    }
  if (weight && !layer.getWeightOperandIndex()) {
    op->emitError("insertion case '")
        << caseName << "' asks to quantize the weight of a layer without "
        << "one";
    return;
  }

  auto record = CaseRecordAttr::addDecision(
      op->getContext(), op->getAttrOfType<CaseRecordAttr>(kCaseAttrName),
      caseName, positions, weight, keepInFloat, input, weights);
  rewriter.modifyOpInPlace(op, [&] { op->setAttr(kCaseAttrName, record); });
}

static constexpr StringLiteral kNativeNames[] = {
    "IsConvFed",      "HasOneUse",      "IsConvOutput",
    "QuantizeInputs", "QuantizeInputsAt", "QuantizeWeight",
    "QuantizeResidualBranches", "KeepInFloat"};

ArrayRef<StringLiteral> mlir::quant_qdq::getCaseNativeNames() {
  return kNativeNames;
}

void mlir::quant_qdq::registerCaseNatives(PDLPatternModule &module,
                                          StringRef caseName) {
  std::string name = caseName.str();
  module.registerConstraintFunction(
      "IsConvFed", [](PatternRewriter &, Value value) {
        return success(isConvFed(value));
      });
  module.registerConstraintFunction(
      "HasOneUse", [](PatternRewriter &, Value value) {
        return success(value.hasOneUse());
      });
  module.registerConstraintFunction(
      "IsConvOutput", [](PatternRewriter &, Value value) {
        return success(isa_and_nonnull<Conv2DOp>(value.getDefiningOp()));
      });
  module.registerRewriteFunction(
      "QuantizeInputs", [name](PatternRewriter &rewriter, Operation *op) {
        auto layer = dyn_cast<QDQLayerOpInterface>(op);
        SmallVector<int64_t> all;
        if (layer)
          for (size_t i = 0, e = layer.getActivationOperandIndices().size();
               i < e; ++i)
            all.push_back(i);
        recordCaseDecision(rewriter, op, name, all, /*weight=*/false);
      });
  module.registerRewriteFunction(
      "QuantizeInputsAt",
      [name](PatternRewriter &rewriter, Operation *op, Attribute positions) {
        auto array = dyn_cast<DenseI64ArrayAttr>(positions);
        if (!array) {
          op->emitError("QuantizeInputsAt expects positions as "
                        "array<i64: ...>, got ")
              << positions;
          return;
        }
        recordCaseDecision(rewriter, op, name, array.asArrayRef(), /*weight=*/false);
      });
  module.registerRewriteFunction(
      "QuantizeWeight", [name](PatternRewriter &rewriter, Operation *op) {
        recordCaseDecision(rewriter, op, name, {}, /*weight=*/true);
      });
  module.registerRewriteFunction(
      "KeepInFloat", [name](PatternRewriter &rewriter, Operation *op) {
        recordCaseDecision(rewriter, op, name, {}, /*weight=*/false,
               /*keepInFloat=*/true);
      });
  module.registerRewriteFunction(
      "QuantizeResidualBranches",
      [name](PatternRewriter &rewriter, Operation *op) {
        auto layer = dyn_cast<QDQLayerOpInterface>(op);
        if (!layer)
          return recordCaseDecision(rewriter, op, name, {}, false);
        SmallVector<unsigned> operands = layer.getActivationOperandIndices();
        std::optional<size_t> fused;
        for (auto [position, index] : llvm::enumerate(operands)) {
          Value input = op->getOperand(index);
          if (isConvFed(input) && input.hasOneUse()) {
            fused = position;
            break;
          }
        }
        SmallVector<int64_t> quantized;
        for (size_t position = 0; position < operands.size(); ++position)
          if (position != fused)
            quantized.push_back(position);
        recordCaseDecision(rewriter, op, name, quantized, /*weight=*/false);
      });
}
