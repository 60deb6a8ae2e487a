//===- ONNXElementwiseToLinalg.cpp - element-wise ONNX nodes --------------===//
//
// Arithmetic, comparisons, logic, math functions and Cast: one parallel
// linalg.generic with NumPy broadcasting, whose body the table below builds
// per op type from arith and math ops.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "ONNXNodeLowering.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
/// Builds one result element from the elements of the node's present
/// inputs (`args`), for a result of element type `result`.
using ElementFn = Value (*)(OpBuilder &b, Location loc, ValueRange args,
                            Type result, ONNXNode node);
} // namespace

static bool isFloat(Value v) { return isa<FloatType>(v.getType()); }

template <typename FloatOp, typename IntOp>
static Value arith2(OpBuilder &b, Location loc, Value x, Value y) {
  if (isFloat(x))
    return FloatOp::create(b, loc, x, y);
  return IntOp::create(b, loc, x, y);
}

/// Folds the inputs left to right with `combine` (Sum, Max, Min, Mean).
template <typename FloatOp, typename IntOp>
static Value foldArgs(OpBuilder &b, Location loc, ValueRange args) {
  Value acc = args.front();
  for (Value next : args.drop_front())
    acc = arith2<FloatOp, IntOp>(b, loc, acc, next);
  return acc;
}

static Value compare(OpBuilder &b, Location loc, Value x, Value y,
                     arith::CmpFPredicate f, arith::CmpIPredicate i) {
  if (isFloat(x))
    return arith::CmpFOp::create(b, loc, f, x, y);
  return arith::CmpIOp::create(b, loc, i, x, y);
}

static Value one(OpBuilder &b, Location loc, Value like) {
  return floatConstant(b, loc, like.getType(), 1.0);
}

static Value pythonMod(OpBuilder &b, Location loc, Value x, Value y) {
  // The remainder takes the divisor's sign: r + y where r and y differ in
  // sign and r is not zero.
  Value r = arith::RemSIOp::create(b, loc, x, y);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(x.getType()));
  Value rNeg =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, r, zero);
  Value yNeg =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, y, zero);
  Value rNonZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, r, zero);
  Value differ = arith::XOrIOp::create(b, loc, rNeg, yNeg);
  Value fix = arith::AndIOp::create(b, loc, differ, rNonZero);
  return arith::SelectOp::create(b, loc, fix,
                                 arith::AddIOp::create(b, loc, r, y), r);
}

/// The element functions by op type.
static const llvm::StringMap<ElementFn> &getElementFns() {
  static const llvm::StringMap<ElementFn> fns = [] {
    llvm::StringMap<ElementFn> m;
    m["Add"] = [](OpBuilder &b, Location l, ValueRange a, Type, ONNXNode) {
      return arith2<arith::AddFOp, arith::AddIOp>(b, l, a[0], a[1]);
    };
    m["Sub"] = [](OpBuilder &b, Location l, ValueRange a, Type, ONNXNode) {
      return arith2<arith::SubFOp, arith::SubIOp>(b, l, a[0], a[1]);
    };
    m["Mul"] = [](OpBuilder &b, Location l, ValueRange a, Type, ONNXNode) {
      return arith2<arith::MulFOp, arith::MulIOp>(b, l, a[0], a[1]);
    };
    m["Div"] = [](OpBuilder &b, Location l, ValueRange a, Type, ONNXNode) {
      return arith2<arith::DivFOp, arith::DivSIOp>(b, l, a[0], a[1]);
    };
    m["Mod"] = [](OpBuilder &b, Location l, ValueRange a, Type,
                  ONNXNode node) -> Value {
      FailureOr<int64_t> fmod = node.getInt("fmod", 0);
      if (isFloat(a[0]) || (succeeded(fmod) && *fmod))
        return isFloat(a[0]) ? Value(arith::RemFOp::create(b, l, a[0], a[1]))
                             : Value(arith::RemSIOp::create(b, l, a[0], a[1]));
      return pythonMod(b, l, a[0], a[1]);
    };
    m["Pow"] = [](OpBuilder &b, Location l, ValueRange a, Type r,
                  ONNXNode) -> Value {
      Value exponent = castScalar(b, l, a[1], a[0].getType());
      if (isFloat(a[0]))
        return math::PowFOp::create(b, l, a[0], exponent);
      return math::IPowIOp::create(b, l, a[0], exponent);
    };
    m["Sum"] = [](OpBuilder &b, Location l, ValueRange a, Type, ONNXNode) {
      return foldArgs<arith::AddFOp, arith::AddIOp>(b, l, a);
    };
    m["Mean"] = [](OpBuilder &b, Location l, ValueRange a, Type, ONNXNode) {
      Value sum = foldArgs<arith::AddFOp, arith::AddIOp>(b, l, a);
      return Value(arith::DivFOp::create(
          b, l, sum, floatConstant(b, l, sum.getType(), a.size())));
    };
    m["Max"] = [](OpBuilder &b, Location l, ValueRange a, Type, ONNXNode) {
      return foldArgs<arith::MaximumFOp, arith::MaxSIOp>(b, l, a);
    };
    m["Min"] = [](OpBuilder &b, Location l, ValueRange a, Type, ONNXNode) {
      return foldArgs<arith::MinimumFOp, arith::MinSIOp>(b, l, a);
    };
    m["Equal"] = [](OpBuilder &b, Location l, ValueRange a, Type, ONNXNode) {
      return compare(b, l, a[0], a[1], arith::CmpFPredicate::OEQ,
                     arith::CmpIPredicate::eq);
    };
    m["Less"] = [](OpBuilder &b, Location l, ValueRange a, Type, ONNXNode) {
      return compare(b, l, a[0], a[1], arith::CmpFPredicate::OLT,
                     arith::CmpIPredicate::slt);
    };
    m["LessOrEqual"] = [](OpBuilder &b, Location l, ValueRange a, Type,
                          ONNXNode) {
      return compare(b, l, a[0], a[1], arith::CmpFPredicate::OLE,
                     arith::CmpIPredicate::sle);
    };
    m["Greater"] = [](OpBuilder &b, Location l, ValueRange a, Type,
                      ONNXNode) {
      return compare(b, l, a[0], a[1], arith::CmpFPredicate::OGT,
                     arith::CmpIPredicate::sgt);
    };
    m["GreaterOrEqual"] = [](OpBuilder &b, Location l, ValueRange a, Type,
                             ONNXNode) {
      return compare(b, l, a[0], a[1], arith::CmpFPredicate::OGE,
                     arith::CmpIPredicate::sge);
    };
    m["And"] = [](OpBuilder &b, Location l, ValueRange a, Type, ONNXNode) {
      return Value(arith::AndIOp::create(b, l, a[0], a[1]));
    };
    m["Or"] = [](OpBuilder &b, Location l, ValueRange a, Type, ONNXNode) {
      return Value(arith::OrIOp::create(b, l, a[0], a[1]));
    };
    m["Xor"] = [](OpBuilder &b, Location l, ValueRange a, Type, ONNXNode) {
      return Value(arith::XOrIOp::create(b, l, a[0], a[1]));
    };
    m["Not"] = [](OpBuilder &b, Location l, ValueRange a, Type, ONNXNode) {
      Value t = arith::ConstantOp::create(b, l, b.getBoolAttr(true));
      return Value(arith::XOrIOp::create(b, l, a[0], t));
    };
    m["Where"] = [](OpBuilder &b, Location l, ValueRange a, Type, ONNXNode) {
      return Value(arith::SelectOp::create(b, l, a[0], a[1], a[2]));
    };
    m["Neg"] = [](OpBuilder &b, Location l, ValueRange a, Type,
                  ONNXNode) -> Value {
      if (isFloat(a[0]))
        return arith::NegFOp::create(b, l, a[0]);
      Value zero = arith::ConstantOp::create(b, l, b.getZeroAttr(a[0].getType()));
      return arith::SubIOp::create(b, l, zero, a[0]);
    };
    m["Abs"] = [](OpBuilder &b, Location l, ValueRange a, Type,
                  ONNXNode) -> Value {
      if (isFloat(a[0]))
        return math::AbsFOp::create(b, l, a[0]);
      return math::AbsIOp::create(b, l, a[0]);
    };
    m["Reciprocal"] = [](OpBuilder &b, Location l, ValueRange a, Type,
                         ONNXNode) {
      return Value(arith::DivFOp::create(b, l, one(b, l, a[0]), a[0]));
    };
    m["Sqrt"] = [](OpBuilder &b, Location l, ValueRange a, Type, ONNXNode) {
      return Value(math::SqrtOp::create(b, l, a[0]));
    };
    m["Exp"] = [](OpBuilder &b, Location l, ValueRange a, Type, ONNXNode) {
      return Value(math::ExpOp::create(b, l, a[0]));
    };
    m["Log"] = [](OpBuilder &b, Location l, ValueRange a, Type, ONNXNode) {
      return Value(math::LogOp::create(b, l, a[0]));
    };
    m["Erf"] = [](OpBuilder &b, Location l, ValueRange a, Type, ONNXNode) {
      return Value(math::ErfOp::create(b, l, a[0]));
    };
    m["Tanh"] = [](OpBuilder &b, Location l, ValueRange a, Type, ONNXNode) {
      return Value(math::TanhOp::create(b, l, a[0]));
    };
    m["Sin"] = [](OpBuilder &b, Location l, ValueRange a, Type, ONNXNode) {
      return Value(math::SinOp::create(b, l, a[0]));
    };
    m["Cos"] = [](OpBuilder &b, Location l, ValueRange a, Type, ONNXNode) {
      return Value(math::CosOp::create(b, l, a[0]));
    };
    m["Floor"] = [](OpBuilder &b, Location l, ValueRange a, Type, ONNXNode) {
      return Value(math::FloorOp::create(b, l, a[0]));
    };
    m["Ceil"] = [](OpBuilder &b, Location l, ValueRange a, Type, ONNXNode) {
      return Value(math::CeilOp::create(b, l, a[0]));
    };
    m["Relu"] = [](OpBuilder &b, Location l, ValueRange a, Type, ONNXNode) {
      return Value(arith::MaximumFOp::create(
          b, l, a[0], floatConstant(b, l, a[0].getType(), 0.0)));
    };
    m["Sigmoid"] = [](OpBuilder &b, Location l, ValueRange a, Type,
                      ONNXNode) {
      Value negExp =
          math::ExpOp::create(b, l, arith::NegFOp::create(b, l, a[0]));
      return Value(arith::DivFOp::create(
          b, l, one(b, l, a[0]),
          arith::AddFOp::create(b, l, one(b, l, a[0]), negExp)));
    };
    return m;
  }();
  return fns;
}

static LogicalResult lowerElementwise(ONNXNode node,
                                      PatternRewriter &rewriter) {
  GenericOp op = node.getOp();
  if (op->getNumResults() != 1)
    return node.emitError() << "expects one result";
  ElementFn fn = getElementFns().lookup(node.getOpType());
  RankedTensorType type = getStaticResultType(node);
  Type element = type.getElementType();
  Value result =
      buildElementwise(rewriter, op.getLoc(), type, op.getInputs(),
                       [&](OpBuilder &b, Location loc, ValueRange args) {
                         return fn(b, loc, args, element, node);
                       });
  rewriter.replaceOp(op, result);
  return success();
}

/// Cast, and CastLike (whose second input gives the type and whose values
/// it does not read): the first input converted to the result's element
/// type. Unsigned integer tensors are computed on as signless ones of the
/// same bits (tensor.bitcast), their signedness choosing the conversion.
static LogicalResult lowerCast(ONNXNode node, PatternRewriter &rewriter) {
  GenericOp op = node.getOp();
  Location loc = op.getLoc();
  RankedTensorType type = getStaticResultType(node);
  Value input = op.getInputs().front();
  auto isUnsigned = [](Type t) {
    return cast<RankedTensorType>(t).getElementType().isUnsignedInteger();
  };
  bool fromUnsigned = isUnsigned(input.getType());
  bool toUnsigned = isUnsigned(type);
  RankedTensorType signlessType = getSignlessType(type);
  Value result = buildElementwise(
      rewriter, loc, signlessType, castToSignless(rewriter, loc, input),
      [&](OpBuilder &b, Location l, ValueRange args) {
        return castScalar(b, l, args[0], signlessType.getElementType(),
                          fromUnsigned, toUnsigned);
      });
  if (signlessType != type)
    result = tensor::BitcastOp::create(rewriter, loc, type, result);
  rewriter.replaceOp(op, result);
  return success();
}

void mlir::quant_qdq::addONNXElementwiseLowerings(
    ONNXNodeLowerings &lowerings) {
  for (const auto &entry : getElementFns())
    lowerings.add(entry.getKey(), lowerElementwise);
  lowerings.add({"Cast", "CastLike"}, lowerCast);
}
