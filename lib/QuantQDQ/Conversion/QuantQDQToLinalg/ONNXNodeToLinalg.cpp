//===- ONNXNodeToLinalg.cpp - the pattern over the lowering table ---------===//

#include "LoweringUtils.h"
#include "ONNXNodeLowering.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::quant_qdq;

static const ONNXNodeLowerings &getLowerings() {
  static const ONNXNodeLowerings lowerings = [] {
    ONNXNodeLowerings table;
    addONNXElementwiseLowerings(table);
    addONNXDataMovementLowerings(table);
    addONNXReductionLowerings(table);
    addONNXContractionLowerings(table);
    return table;
  }();
  return lowerings;
}

bool mlir::quant_qdq::hasONNXNodeLowering(GenericOp op) {
  return op.isInDefaultDomain() && getLowerings().lookup(op.getOpType());
}

FailureOr<SmallVector<int64_t>>
mlir::quant_qdq::getConstantIntInput(ONNXNode node, unsigned index,
                                     StringRef what) {
  if (std::optional<SmallVector<int64_t>> values =
          getConstantInts(node.getInput(index)))
    return *values;
  return node.emitError() << "its " << what
                          << " must be constant for execution";
}

RankedTensorType mlir::quant_qdq::getStaticResultType(ONNXNode node,
                                                      unsigned index) {
  auto type =
      dyn_cast<RankedTensorType>(node.getOp()->getResult(index).getType());
  return type && type.hasStaticShape() ? type : RankedTensorType();
}

Value mlir::quant_qdq::castScalar(OpBuilder &b, Location loc, Value x, Type to,
                                  bool fromUnsigned, bool toUnsigned) {
  Type from = x.getType();
  if (from == to)
    return x;
  auto fromInt = dyn_cast<IntegerType>(from);
  auto toInt = dyn_cast<IntegerType>(to);
  if (toInt && toInt.getWidth() == 1) {
    if (fromInt)
      return arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ne, x,
          arith::ConstantOp::create(b, loc, b.getIntegerAttr(from, 0)));
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x,
                                 floatConstant(b, loc, from, 0.0));
  }
  if (fromInt && toInt) {
    if (toInt.getWidth() < fromInt.getWidth())
      return arith::TruncIOp::create(b, loc, to, x);
    if (fromInt.getWidth() == 1 || fromUnsigned)
      return arith::ExtUIOp::create(b, loc, to, x);
    return arith::ExtSIOp::create(b, loc, to, x);
  }
  if (fromInt) {
    if (fromInt.getWidth() == 1 || fromUnsigned)
      return arith::UIToFPOp::create(b, loc, to, x);
    return arith::SIToFPOp::create(b, loc, to, x);
  }
  if (toInt) {
    // LLVM leaves an out-of-range conversion undefined; ONNX Runtime
    // converts to a wider signed integer and keeps the low bits (300.0 to
    // uint8 is 44, -1.5 is 255): through 32 bits below 32, 64 for uint32.
    unsigned width = toInt.getWidth();
    unsigned through = width < 32 ? 32 : width == 32 && toUnsigned ? 64 : 0;
    if (through) {
      Value wide =
          arith::FPToSIOp::create(b, loc, b.getIntegerType(through), x);
      return arith::TruncIOp::create(b, loc, to, wide);
    }
    if (toUnsigned)
      return arith::FPToUIOp::create(b, loc, to, x);
    return arith::FPToSIOp::create(b, loc, to, x);
  }
  if (cast<FloatType>(to).getWidth() < cast<FloatType>(from).getWidth())
    return arith::TruncFOp::create(b, loc, to, x);
  return arith::ExtFOp::create(b, loc, to, x);
}

RankedTensorType mlir::quant_qdq::getSignlessType(RankedTensorType type) {
  auto element = dyn_cast<IntegerType>(type.getElementType());
  if (!element || element.isSignless())
    return type;
  return type.clone(IntegerType::get(type.getContext(), element.getWidth()));
}

Value mlir::quant_qdq::castToSignless(OpBuilder &b, Location loc,
                                      Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  RankedTensorType signless = getSignlessType(type);
  if (signless == type)
    return tensor;
  return tensor::BitcastOp::create(b, loc, signless, tensor);
}

namespace {
struct ONNXNodeLowering : OpRewritePattern<GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.isInDefaultDomain())
      return failure();
    ONNXNodeLowerFn lower = getLowerings().lookup(op.getOpType());
    if (!lower)
      return failure();
    ONNXNode node(op);
    for (unsigned i = 0, e = op->getNumResults(); i < e; ++i)
      if (!getStaticResultType(node, i))
        return node.emitError() << "result #" << i
                                << " must have a static shape to execute, "
                                   "not "
                                << op->getResult(i).getType();
    return lower(node, rewriter);
  }
};
} // namespace

void mlir::quant_qdq::populateONNXNodeToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ONNXNodeLowering>(patterns.getContext());
}
