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
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::quant_qdq;

static bool isConstant(Value value) {
  Operation *producer = value.getDefiningOp();
  return producer && producer->hasTrait<OpTrait::ConstantLike>();
}

/// Whether `value` has one reader of its data: a Shape or Size node reads
/// only its shape (exporters compute the next view's target so), which
/// does not stop TensorRT from fusing along the chain.
static bool hasOneDataUse(Value value) {
  unsigned readers = 0;
  for (Operation *user : value.getUsers()) {
    auto generic = dyn_cast<GenericOp>(user);
    if (!generic || (!generic.isDefaultDomainNode("Shape") &&
                     !generic.isDefaultDomainNode("Size")))
      ++readers;
  }
  return readers == 1;
}

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

/// Whether `op` only moves data: a pass-through layer, or an ONNX shape
/// node kept generic (a Reshape to a computed shape, as transformers split
/// and merge heads).
static bool movesDataOnly(Operation *op) {
  if (auto layer = dyn_cast<QDQLayerOpInterface>(op))
    if (layer.isPassThrough())
      return true;
  auto generic = dyn_cast<GenericOp>(op);
  return generic && generic->getNumResults() == 1 &&
         generic.isInDefaultDomain() &&
         llvm::is_contained({"Reshape", "Transpose", "Squeeze", "Unsqueeze",
                             "Flatten", "Identity"},
                            generic.getOpType());
}

/// Whether `op` multiplies by a constant (ConvNeXt's layer scale), which
/// folds into the GEMM or convolution before it. The other operand.
static Value getConstantlyScaled(Operation *op) {
  auto mul = dyn_cast<MultiplyOp>(op);
  if (!mul || mul.getInputs().size() != 2)
    return {};
  for (int i : {0, 1})
    if (isConstant(mul.getInputs()[1 - i]))
      return mul.getInputs()[i];
  return {};
}

/// The transformer residual rule's chain: [data movement or constant
/// scale]* [Activation <-] [BatchNormalization <-] (Conv | Dense). A GEMM's
/// output reaches the residual Add through the reshapes and transposes
/// that merge heads (and ConvNeXt's layer scale); TensorRT fuses the Add
/// into the GEMM or convolution all the same.
static bool isWeightedLayerFed(Value value) {
  Operation *op = value.getDefiningOp();
  while (op) {
    if (op->getResult(0) != value && !hasOneDataUse(op->getResult(0)))
      return false;
    if (Value scaled = getConstantlyScaled(op))
      op = scaled.getDefiningOp();
    else if (movesDataOnly(op) && op->getNumOperands() >= 1)
      op = op->getOperand(0).getDefiningOp();
    else
      break;
  }
  if (isa_and_nonnull<ActivationOp>(op))
    op = op->getOperand(0).getDefiningOp();
  if (isa_and_nonnull<BatchNormOp>(op))
    op = op->getOperand(0).getDefiningOp();
  return isa_and_nonnull<Conv2DOp, DenseOp>(op);
}

/// Attention's batched matmuls (Q.K^T, softmax.V): an ONNX MatMul of two
/// activations of rank >= 3, with a sequence length (the largest of its
/// M, N and K) of at most `maxSequence`, or unknown before run time.
static bool isAttentionMatMul(Operation *op, int64_t maxSequence) {
  auto generic = dyn_cast<GenericOp>(op);
  if (!generic || !generic.isDefaultDomainNode("MatMul") ||
      generic.getInputs().size() != 2 || generic->getNumResults() != 1)
    return false;
  auto lhs = dyn_cast<RankedTensorType>(generic.getInputs()[0].getType());
  auto rhs = dyn_cast<RankedTensorType>(generic.getInputs()[1].getType());
  if (!lhs || !rhs || lhs.getRank() < 3 || rhs.getRank() < 3)
    return false;
  if (llvm::any_of(generic.getInputs(), isConstant))
    return false;
  int64_t m = lhs.getDimSize(lhs.getRank() - 2);
  int64_t k = lhs.getDimSize(lhs.getRank() - 1);
  int64_t n = rhs.getDimSize(rhs.getRank() - 1);
  for (int64_t size : {m, k, n})
    if (!ShapedType::isDynamic(size) && size > maxSequence)
      return false;
  return true;
}

/// Whether `dense` is the model's output layer on a dynamic batch: a
/// [batch, K] input and a result only returned (a classifier head). Its M
/// is the batch, a GEMV at batch 1, the deployment TensorRT Model Optimizer
/// calibrates for. (A [?, K] input inside the network is no batch: it may
/// be a flattened batch x sequence, as attention's output projections
/// read.)
static bool isOutputLayerOnBatch(DenseOp dense) {
  RankedTensorType input = dense.getInput().getType();
  return input.getRank() == 2 && input.isDynamicDim(0) &&
         !dense->use_empty() &&
         llvm::all_of(dense->getUsers(), [](Operation *user) {
           return user->hasTrait<OpTrait::ReturnLike>();
         });
}

/// A product too small for INT8 to pay (TensorRT Model Optimizer's
/// exclusion): GEMV-like (M or N = 1), or K or N under 16. M is the product
/// of the input's leading dimensions, unknown when one is dynamic, but for
/// the output layer's batch.
static bool isSmallGemm(Operation *op) {
  auto dense = dyn_cast<DenseOp>(op);
  if (!dense)
    return false;
  auto input = cast<RankedTensorType>(dense.getInput().getType());
  auto weight = cast<RankedTensorType>(dense.getWeight().getType());
  int64_t k = weight.getDimSize(dense.getTransposeWeight() ? 1 : 0);
  int64_t n = weight.getDimSize(dense.getTransposeWeight() ? 0 : 1);
  int64_t m = 1;
  for (int64_t d : input.getShape().drop_back())
    m = ShapedType::isDynamic(d) || ShapedType::isDynamic(m)
            ? ShapedType::kDynamic
            : m * d;
  if (isOutputLayerOnBatch(dense))
    m = 1;
  auto isUnder = [](int64_t size, int64_t bound) {
    return !ShapedType::isDynamic(size) && size < bound;
  };
  return m == 1 || n == 1 || isUnder(k, 16) || isUnder(n, 16);
}

/// The position, among `op`'s activation inputs, of the first one that
/// `isFused` accepts: the input TensorRT fuses the Add into its producer
/// with. None when `op` is not a layer.
static std::optional<size_t>
findFusedInput(Operation *op, function_ref<bool(Value)> isFused) {
  auto layer = dyn_cast<QDQLayerOpInterface>(op);
  if (!layer)
    return std::nullopt;
  for (auto [position, index] :
       llvm::enumerate(layer.getActivationOperandIndices()))
    if (isFused(op->getOperand(index)))
      return position;
  return std::nullopt;
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
    "IsConvFed",           "HasOneUse",         "IsConvOutput",
    "IsWeightedLayerFed",  "IsAttentionMatMul", "IsSmallGemm",
    "QuantizeInputs",      "QuantizeInputsAt",  "QuantizeWeight",
    "QuantizeResidualBranches", "QuantizeSkipInputs", "KeepInFloat"};

ArrayRef<StringLiteral> mlir::quant_qdq::getCaseNativeNames() {
  return kNativeNames;
}

void mlir::quant_qdq::registerCaseNatives(PDLPatternModule &module,
                                          StringRef caseName,
                                          const CaseOptions &options) {
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
  module.registerConstraintFunction(
      "IsWeightedLayerFed", [](PatternRewriter &, Value value) {
        return success(isWeightedLayerFed(value));
      });
  module.registerConstraintFunction(
      "IsAttentionMatMul",
      [maxSequence = options.maxAttentionSequence](PatternRewriter &,
                                                   Operation *op) {
        return success(isAttentionMatMul(op, maxSequence));
      });
  module.registerConstraintFunction(
      "IsSmallGemm", [](PatternRewriter &, Operation *op) {
        return success(isSmallGemm(op));
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
        recordCaseDecision(rewriter, op, name, array.asArrayRef(),
                           /*weight=*/false);
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
      "QuantizeSkipInputs", [name](PatternRewriter &rewriter, Operation *op) {
        std::optional<size_t> fused = findFusedInput(op, [](Value input) {
          return isWeightedLayerFed(input) && hasOneDataUse(input);
        });
        // Not a residual connection (a mask, a position embedding): the
        // case has nothing to say.
        if (!fused)
          return;
        SmallVector<int64_t> quantized;
        auto layer = cast<QDQLayerOpInterface>(op);
        for (auto [position, index] :
             llvm::enumerate(layer.getActivationOperandIndices()))
          if (position != *fused && !isConstant(op->getOperand(index)))
            quantized.push_back(position);
        recordCaseDecision(rewriter, op, name, quantized, /*weight=*/false);
      });
  module.registerRewriteFunction(
      "QuantizeResidualBranches",
      [name](PatternRewriter &rewriter, Operation *op) {
        auto layer = dyn_cast<QDQLayerOpInterface>(op);
        if (!layer)
          return recordCaseDecision(rewriter, op, name, {}, false);
        std::optional<size_t> fused = findFusedInput(op, [](Value input) {
          return isConvFed(input) && input.hasOneUse();
        });
        SmallVector<int64_t> quantized;
        for (size_t position = 0,
                    e = layer.getActivationOperandIndices().size();
             position < e; ++position)
          if (position != fused)
            quantized.push_back(position);
        recordCaseDecision(rewriter, op, name, quantized, /*weight=*/false);
      });
}
