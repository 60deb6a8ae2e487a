//===- ShapeSpecialization.cpp - static input shapes for execution --------===//

#include "QuantQDQ/Execution/JITExecutor.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "QuantQDQ/Conversion/ONNXToQuantQDQ.h"
#include "QuantQDQ/Target/ONNX/ONNX.h"

#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Rewrite/PatternApplicator.h"

using namespace mlir;
using namespace mlir::quant_qdq;

/// The type `op`'s result would have for its current operand types, or null
/// where it cannot tell.
static Type refineResult(Operation *op, unsigned index) {
  Type old = op->getResult(index).getType();
  if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
    SmallVector<Type> types;
    if (succeeded(infer.inferReturnTypes(
            op->getContext(), op->getLoc(), op->getOperands(),
            op->getAttrDictionary(), op->getPropertiesStorage(),
            op->getRegions(), types)))
      return types[index];
    return {};
  }
  // Element-wise layers and Q/DQ ops keep their operand's shape.
  if (op->hasTrait<OpTrait::SameOperandsAndResultType>() ||
      op->hasTrait<OpTrait::SameOperandsAndResultShape>()) {
    auto operand = cast<RankedTensorType>(op->getOperand(0).getType());
    return operand.clone(getElementTypeOrSelf(old));
  }
  return {};
}

LogicalResult
mlir::quant_qdq::specializeInputShapes(Operation *funcOp,
                                       ArrayRef<SmallVector<int64_t>> shapes) {
  auto func = cast<func::FuncOp>(funcOp);
  if (shapes.size() != func.getNumArguments())
    return func.emitError("expects ")
           << func.getNumArguments() << " inputs, got " << shapes.size();
  for (auto [arg, shape] : llvm::zip(func.getArguments(), shapes)) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || type.getRank() != int64_t(shape.size()))
      return func.emitError("input #")
             << arg.getArgNumber() << " is " << arg.getType()
             << " but the array has rank " << shape.size();
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (!type.isDynamicDim(d) && type.getDimSize(d) != shape[d])
        return func.emitError("input #")
               << arg.getArgNumber() << " is " << type
               << " but the array has size " << shape[d] << " in dimension "
               << d;
    if (!type.hasStaticShape())
      arg.setType(type.clone(shape));
  }
  // Ops come in program order in a single-block body: operands are refined
  // before their users. A generic ONNX node takes its types from ONNX's
  // inference; then the import patterns see it again with static operands,
  // so that shape computations fold to constants (which the next node's
  // inference reads) and nodes that only static shapes made convertible
  // become layer ops.
  MLIRContext *context = func.getContext();
  RewritePatternSet set(context);
  populateONNXToQuantQDQPatterns(set);
  FrozenRewritePatternSet patterns(std::move(set));
  PatternApplicator applicator(patterns);
  applicator.applyDefaultCostModel();
  PatternRewriter rewriter(context);
  bool hadError = false;
  ScopedDiagnosticHandler errors(context, [&](Diagnostic &diag) {
    hadError |= diag.getSeverity() == DiagnosticSeverity::Error;
    return failure(); // Passed on to the handlers outside.
  });
  auto isStatic = [](Value v) {
    auto type = dyn_cast<ShapedType>(v.getType());
    return !type || (type.hasRank() && type.hasStaticShape());
  };
  auto cannotCompute = [](Operation *op) {
    // An imported node's location prints as the file alone: name it.
    InFlightDiagnostic diag =
        op->emitError("cannot compute a static result shape of ");
    if (auto generic = dyn_cast<GenericOp>(op))
      diag << "'" << generic.getOpType() << "'";
    else
      diag << op->getName();
    if (auto name = dyn_cast<NameLoc>(op->getLoc()))
      diag << " '" << name.getName().getValue() << "'";
    diag << " for the given input shapes";
    return failure();
  };
  for (Operation &op :
       llvm::make_early_inc_range(func.getBody().front().without_terminator())) {
    bool allStatic = llvm::all_of(op.getResults(), isStatic);
    if (auto generic = dyn_cast<GenericOp>(op)) {
      if (!allStatic) {
        FailureOr<SmallVector<Type>> types = inferONNXNodeTypes(generic);
        if (failed(types))
          return failure();
        for (auto [result, type] : llvm::zip(op.getResults(), *types))
          result.setType(type);
      }
      rewriter.setInsertionPoint(&op);
      bool rewritten = succeeded(applicator.matchAndRewrite(&op, rewriter));
      if (hadError)
        return failure();
      if (!rewritten && !llvm::all_of(op.getResults(), isStatic))
        return cannotCompute(&op);
      continue;
    }
    if (allStatic)
      continue;
    for (OpResult res : op.getResults()) {
      if (isStatic(res))
        continue;
      Type refined = refineResult(&op, res.getResultNumber());
      if (!refined)
        return cannotCompute(&op);
      res.setType(refined);
    }
  }
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  // The signature follows the (specialized) block arguments.
  func.setType(FunctionType::get(func.getContext(),
                                 func.getBody().getArgumentTypes(),
                                 ret.getOperandTypes()));
  return success();
}
