//===- ConvertQuantQDQToONNX.cpp - the export pass and its driver ---------===//
//
// Rewrites every layer and Q/DQ op into ONNX nodes (quant_qdq.generic), in
// program order (see ProgramOrder.cpp), after fixing the opset the
// patterns write for. What is left for the ONNX writer is a mechanical
// translation of generic ops and constants.
//
//===----------------------------------------------------------------------===//

#include "PatternUtils.h"
#include "QuantQDQ/Conversion/Passes.h"
#include "QuantQDQ/Target/ONNX/ONNXAttrNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_CONVERTQUANTQDQTOONNX
#include "QuantQDQ/Conversion/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;
using namespace mlir::quant_qdq::onnx_io;
using namespace mlir::quant_qdq::onnx_patterns;

/// Per-axis QuantizeLinear/DequantizeLinear need opset 13; FP8 storage,
/// 19; 4- and 16-bit storage and blocked scales, 21.
static constexpr int64_t kQDQOpset = 13, kFP8QDQOpset = 19,
                         kExtendedQDQOpset = 21;

/// The opset a Q/DQ op's export needs.
static int64_t getRequiredOpset(QuantizerAttr q) {
  if (q.getBits() == 4 || q.getBits() == 16 || q.isBlocked())
    return kExtendedQDQOpset;
  return q.isFloatStorage() ? kFP8QDQOpset : kQDQOpset;
}

void mlir::quant_qdq::populateQuantQDQToONNXPatterns(
    RewritePatternSet &patterns) {
  populateConvolutionExports(patterns);
  populateDenseExports(patterns);
  populateActivationExports(patterns);
  populateElementwiseExports(patterns);
  populateNormalizationExports(patterns);
  populateShapeLayerExports(patterns);
  populateQuantizeLinearExports(patterns);
}

/// Fixes the default-domain opset the module is written at: `requested`
/// when given (0: none), else the module's raised to what its Q/DQ ops need
/// (13; 19 for FP8; 21 for int4/int16 and blocks), with a warning when the
/// module recorded another. The patterns then write that opset's forms;
/// the nodes kept from the model, written for the module's opset, are
/// tagged with it (kKeptNodeOpset) for the writer to convert.
static LogicalResult chooseExportOpset(ModuleOp module, int64_t requested) {
  MLIRContext *context = module.getContext();
  auto opsets = module->getAttrOfType<DictionaryAttr>(kOpsetImport);
  int64_t opset = getDefaultDomainOpset(module);
  int64_t required = 0;
  module.walk([&](Operation *op) {
    if (auto quantizer = op->getAttrOfType<QuantizerAttr>("quantizer");
        quantizer && isa<QuantizeOp, DequantizeOp, FakeQuantOp>(op))
      required = std::max(required, getRequiredOpset(quantizer));
  });
  int64_t target = std::max(opset, required);
  if (requested < 0)
    return emitError(module.getLoc())
           << "opset must be positive (0: the module's), got " << requested;
  if (requested) {
    if (requested < required)
      return emitError(module.getLoc())
             << "opset " << requested << " is too old for the model's "
             << "QuantizeLinear/DequantizeLinear, which need opset "
             << required << " (13 per axis, 19 for FP8, 21 for 4 and 16 "
             << "bits and blocks)";
    target = requested;
  } else if (target != opset && opsets) {
    // A module that imported no opset (Keras, MLIR) just takes the one it
    // needs, silently.
    emitWarning(module.getLoc())
        << "raising the default-domain opset from " << opset << " to "
        << target << " for QuantizeLinear/DequantizeLinear";
  }
  if (target == opset && opsets)
    return success();
  auto i64 = IntegerType::get(context, 64);
  // A node tagged by an earlier run keeps the opset it was written for.
  if (target != opset)
    module.walk([&](GenericOp node) {
      if (node.isInDefaultDomain() && !node->hasAttr(kKeptNodeOpset))
        node->setAttr(kKeptNodeOpset, IntegerAttr::get(i64, opset));
    });
  NamedAttrList entries(opsets);
  entries.set(kDefaultDomain, IntegerAttr::get(i64, target));
  module->setAttr(kOpsetImport, entries.getDictionary(context));
  return success();
}

/// Whether every reader of `constant` reads it as the scale or zero point
/// of a QuantizeLinear/DequantizeLinear node.
static bool isQuantizationParameter(arith::ConstantOp constant) {
  return llvm::all_of(constant->getUses(), [](OpOperand &use) {
    auto node = dyn_cast<GenericOp>(use.getOwner());
    return node &&
           (node.isDefaultDomainNode("QuantizeLinear") ||
            node.isDefaultDomainNode("DequantizeLinear")) &&
           (use.getOperandNumber() == 1 || use.getOperandNumber() == 2);
  });
}

/// Q/DQ nodes with equal scales (a pair; every pair of one calibrated
/// tensor's readers) read one initializer, not one each.
static void shareQuantizationParameters(func::FuncOp func) {
  llvm::DenseMap<Attribute, arith::ConstantOp> first;
  for (auto constant :
       llvm::make_early_inc_range(func.getOps<arith::ConstantOp>())) {
    if (isa<DenseResourceElementsAttr>(constant.getValue()) ||
        !isQuantizationParameter(constant))
      continue;
    auto [it, inserted] = first.try_emplace(constant.getValue(), constant);
    if (inserted)
      continue;
    constant.replaceAllUsesWith(it->second.getResult());
    constant.erase();
  }
}

LogicalResult
mlir::quant_qdq::convertQuantQDQToONNX(ModuleOp module,
                                       const FrozenRewritePatternSet &patterns,
                                       int64_t opset, bool matmulNBits) {
  MLIRContext *context = module.getContext();
  // Before the opset is chosen: Q/DQ ops it removes need no newer one.
  if (matmulNBits && failed(writeDenseAsMatMulNBits(module)))
    return failure();
  if (failed(chooseExportOpset(module, opset)))
    return failure();

  bool hadError = false;
  ScopedDiagnosticHandler errors(context, [&](Diagnostic &diag) {
    hadError |= diag.getSeverity() == DiagnosticSeverity::Error;
    return failure(); // Passed on to the handlers outside.
  });
  auto isONNX = [](Operation &op) {
    return isa<GenericOp, arith::ConstantOp>(op) ||
           op.hasTrait<OpTrait::IsTerminator>();
  };
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    applyInProgramOrder(
        func, patterns, [&](Operation &op) { return !isONNX(op); },
        [&] { return hadError; });
    if (hadError)
      return failure();
    for (Operation &op : func.getBody().getOps()) {
      if (auto round = dyn_cast<RoundToFormatOp>(op))
        return round.emitError("the ")
               << stringifyNumberFormatKind(round.getFormat().getKind())
               << " number format ('"
               << round.getFormat().getTensorQuantName()
               << "') has no ONNX form: TensorQuant's formats are fake "
                  "quantization only; run the model with qdq-run, or export "
                  "it before insert-number-formats";
      if (!isONNX(op))
        return op.emitError("'")
               << op.getName()
               << "' has no ONNX form; export supports quant_qdq layer and "
                  "Q/DQ ops and arith.constant";
    }
    shareQuantizationParameters(func);
    eraseUnreadConstants(func);
    refreshFunctionType(func);
  }
  return success();
}

namespace {
struct ConvertQuantQDQToONNXPass
    : quant_qdq::impl::ConvertQuantQDQToONNXBase<ConvertQuantQDQToONNXPass> {
  using ConvertQuantQDQToONNXBase::ConvertQuantQDQToONNXBase;

  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet set(context);
    populateQuantQDQToONNXPatterns(set);
    patterns = FrozenRewritePatternSet(std::move(set));
    return success();
  }

  void runOnOperation() override {
    if (failed(convertQuantQDQToONNX(getOperation(), patterns, opset,
                                     matmulNBits)))
      signalPassFailure();
  }

  FrozenRewritePatternSet patterns;
};
} // namespace
