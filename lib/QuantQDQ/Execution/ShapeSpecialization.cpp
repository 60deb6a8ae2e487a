//===- ShapeSpecialization.cpp - static input shapes for execution --------===//

#include "QuantQDQ/Execution/JITExecutor.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

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
  bool changed = false;
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
    if (!type.hasStaticShape()) {
      arg.setType(type.clone(shape));
      changed = true;
    }
  }
  if (!changed)
    return success();

  // Ops come in program order in a single-block body: operands are refined
  // before their users.
  WalkResult result = func.getBody().walk([&](Operation *op) {
    if (isa<func::ReturnOp>(op))
      return WalkResult::advance();
    for (OpResult res : op->getResults()) {
      auto type = dyn_cast<RankedTensorType>(res.getType());
      if (!type || type.hasStaticShape())
        continue;
      Type refined = refineResult(op, res.getResultNumber());
      if (!refined) {
        // An imported node's location prints as the file alone: name it.
        InFlightDiagnostic diag = op->emitError("cannot compute a static "
                                                "result shape of ");
        diag << op->getName();
        if (auto name = dyn_cast<NameLoc>(op->getLoc()))
          diag << " '" << name.getName().getValue() << "'";
        diag << " for the given input shapes";
        return WalkResult::interrupt();
      }
      res.setType(refined);
    }
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  // The signature follows the (specialized) block arguments.
  func.setType(FunctionType::get(func.getContext(),
                                 func.getBody().getArgumentTypes(),
                                 ret.getOperandTypes()));
  return success();
}
