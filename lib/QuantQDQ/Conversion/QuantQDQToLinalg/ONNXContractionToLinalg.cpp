//===- ONNXContractionToLinalg.cpp - MatMul, Gemm, Einsum, ConvTranspose -===//
//
// Products summed over shared dimensions: one linalg.generic contraction
// each (MatMul's batch dimensions broadcast NumPy-style, Einsum's letters as
// iteration dimensions); ConvTranspose is the convolution of the
// zero-interleaved, padded input with the flipped, transposed kernel.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "ONNXNodeLowering.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::quant_qdq;

/// `a` [..., m, k] times `b` [..., k, n] with NumPy broadcasting of the
/// batch dimensions into `type` [..., m, n], plus `acc` when given.
static Value buildBatchMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                             RankedTensorType type) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = type.getRank();
  // Iteration space: the result's dimensions, then k.
  AffineExpr k = getAffineDimExpr(rank, ctx);
  auto operandMap = [&](Value v, bool isLhs) {
    auto t = cast<RankedTensorType>(v.getType());
    int64_t offset = rank - t.getRank();
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < t.getRank() - 2; ++d) {
      bool broadcast =
          t.getDimSize(d) == 1 && type.getDimSize(d + offset) != 1;
      exprs.push_back(broadcast ? getAffineConstantExpr(0, ctx)
                                : getAffineDimExpr(d + offset, ctx));
    }
    if (isLhs) {
      exprs.push_back(getAffineDimExpr(rank - 2, ctx));
      exprs.push_back(k);
    } else {
      exprs.push_back(k);
      exprs.push_back(getAffineDimExpr(rank - 1, ctx));
    }
    return AffineMap::get(rank + 1, 0, exprs, ctx);
  };
  Type element = type.getElementType();
  Value acc = createFilled(b, loc, type, {}, b.getZeroAttr(element));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  bool isFloat = isa<FloatType>(element);
  return linalg::GenericOp::create(
             b, loc, type, ValueRange{lhs, rhs}, acc,
             SmallVector<AffineMap>{operandMap(lhs, true),
                                    operandMap(rhs, false),
                                    AffineMap::getMultiDimIdentityMap(
                                        rank + 1, ctx)
                                        .getMajorSubMap(rank)},
             iterators,
             [&](OpBuilder &nested, Location l, ValueRange args) {
               Value x = castScalar(nested, l, args[0], element);
               Value y = castScalar(nested, l, args[1], element);
               Value sum =
                   isFloat
                       ? Value(arith::AddFOp::create(
                             nested, l, args[2],
                             arith::MulFOp::create(nested, l, x, y)))
                       : Value(arith::AddIOp::create(
                             nested, l, args[2],
                             arith::MulIOp::create(nested, l, x, y)));
               linalg::YieldOp::create(nested, l, sum);
             })
      .getResult(0);
}

static LogicalResult lowerMatMul(ONNXNode node, PatternRewriter &rewriter) {
  Location loc = node.getOp().getLoc();
  Value lhs = node.getInput(0), rhs = node.getInput(1);
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  RankedTensorType type = getStaticResultType(node);
  // A 1-D operand is a matrix with a unit row (lhs) or column (rhs), which
  // the result does not have.
  if (lhsType.getRank() == 1)
    lhs = reshapeStatic(rewriter, loc, lhs,
                        RankedTensorType::get({1, lhsType.getDimSize(0)},
                                              lhsType.getElementType()));
  if (rhsType.getRank() == 1)
    rhs = reshapeStatic(rewriter, loc, rhs,
                        RankedTensorType::get({rhsType.getDimSize(0), 1},
                                              rhsType.getElementType()));
  auto l = cast<RankedTensorType>(lhs.getType());
  auto r = cast<RankedTensorType>(rhs.getType());
  int64_t rank = std::max(l.getRank(), r.getRank());
  SmallVector<int64_t> shape(rank, 1);
  for (int64_t d = 0; d < rank - 2; ++d) {
    int64_t a = d - (rank - l.getRank()), c = d - (rank - r.getRank());
    int64_t x = a >= 0 ? l.getDimSize(a) : 1, y = c >= 0 ? r.getDimSize(c) : 1;
    if (x != y && x != 1 && y != 1)
      return node.emitError() << "batch dimensions " << x << " and " << y
                              << " do not broadcast";
    shape[d] = std::max(x, y);
  }
  shape[rank - 2] = l.getDimSize(l.getRank() - 2);
  shape[rank - 1] = r.getDimSize(r.getRank() - 1);
  if (l.getDimSize(l.getRank() - 1) != r.getDimSize(r.getRank() - 2))
    return node.emitError() << "inner dimensions differ";
  auto full = RankedTensorType::get(shape, type.getElementType());
  Value product = buildBatchMatmul(rewriter, loc, lhs, rhs, full);
  rewriter.replaceOp(node.getOp(),
                     reshapeStatic(rewriter, loc, product, type));
  return success();
}

/// alpha * A' B' + beta * C, A' and B' transposed as the attributes say.
static LogicalResult lowerGemm(ONNXNode node, PatternRewriter &rewriter) {
  Location loc = node.getOp().getLoc();
  FailureOr<int64_t> transA = node.getInt("transA", 0),
                     transB = node.getInt("transB", 0);
  FailureOr<float> alpha = node.getFloat("alpha", 1.0f),
                   beta = node.getFloat("beta", 1.0f);
  if (failed(transA) || failed(transB) || failed(alpha) || failed(beta))
    return failure();
  RankedTensorType type = getStaticResultType(node);
  auto transpose = [&](Value v) {
    auto t = cast<RankedTensorType>(v.getType());
    auto transposed = RankedTensorType::get(
        {t.getDimSize(1), t.getDimSize(0)}, t.getElementType());
    Value init = createEmpty(rewriter, loc, transposed, {});
    return linalg::TransposeOp::create(rewriter, loc, v, init,
                                       ArrayRef<int64_t>{1, 0})
        .getResult()[0];
  };
  Value a = *transA ? transpose(node.getInput(0)) : node.getInput(0);
  Value b = *transB ? transpose(node.getInput(1)) : node.getInput(1);
  Value product = buildBatchMatmul(rewriter, loc, a, b, type);
  SmallVector<Value> inputs = {product};
  if (node.hasInput(2))
    inputs.push_back(node.getInput(2));
  double al = *alpha, be = *beta;
  Value result = buildElementwise(
      rewriter, loc, type, inputs,
      [&](OpBuilder &bld, Location l, ValueRange args) {
        Value y = arith::MulFOp::create(
            bld, l, args[0], floatConstant(bld, l, args[0].getType(), al));
        if (args.size() > 1)
          y = arith::AddFOp::create(
              bld, l, y,
              arith::MulFOp::create(
                  bld, l, args[1],
                  floatConstant(bld, l, args[1].getType(), be)));
        return y;
      });
  rewriter.replaceOp(node.getOp(), result);
  return success();
}


//===----------------------------------------------------------------------===//
// Einsum
//===----------------------------------------------------------------------===//

/// Each operand's letters, then the result's ("" + implicit when the
/// equation has no "->": the letters used once, in alphabetical order).
static FailureOr<SmallVector<std::string>> parseEinsum(ONNXNode node,
                                                       StringRef equation,
                                                       unsigned numInputs) {
  std::string compact;
  for (char ch : equation)
    if (ch != ' ')
      compact.push_back(ch);
  if (StringRef(compact).contains("..."))
    return node.emitError() << "equations with '...' cannot be executed";
  auto [lhs, rhs] = StringRef(compact).split("->");
  SmallVector<StringRef> parts;
  lhs.split(parts, ',');
  if (parts.size() != numInputs)
    return node.emitError() << "equation '" << equation << "' names "
                            << parts.size() << " operands for " << numInputs
                            << " inputs";
  SmallVector<std::string> terms;
  for (StringRef part : parts)
    terms.push_back(part.str());
  if (StringRef(compact).contains("->")) {
    terms.push_back(rhs.str());
  } else {
    std::string implicit;
    for (char ch = 'A'; ch <= 'z'; ++ch)
      if (llvm::count(lhs, ch) == 1)
        implicit.push_back(ch);
    terms.push_back(implicit);
  }
  for (const std::string &term : terms)
    for (char ch : term)
      if (!llvm::isAlpha(ch))
        return node.emitError() << "equation '" << equation
                                << "' has the character '" << ch << "'";
  return terms;
}

static LogicalResult lowerEinsum(ONNXNode node, PatternRewriter &rewriter) {
  GenericOp op = node.getOp();
  Location loc = op.getLoc();
  FailureOr<std::string> equation = node.getString("equation", "");
  if (failed(equation))
    return failure();
  FailureOr<SmallVector<std::string>> terms =
      parseEinsum(node, *equation, op.getInputs().size());
  if (failed(terms))
    return failure();
  RankedTensorType type = getStaticResultType(node);
  Type element = type.getElementType();
  if (!isa<FloatType>(element))
    return node.emitError() << "only float Einsum can be executed";
  // Iteration dimensions: the result's letters, then the summed ones.
  const std::string &out = terms->back();
  std::string letters = out;
  for (const std::string &term : ArrayRef(*terms).drop_back())
    for (char ch : term)
      if (!llvm::is_contained(letters, ch))
        letters.push_back(ch);
  SmallVector<int64_t> sizes(letters.size(), -1);
  MLIRContext *ctx = rewriter.getContext();
  SmallVector<AffineMap> maps;
  for (auto [term, input] : llvm::zip(ArrayRef(*terms).drop_back(),
                                      op.getInputs())) {
    auto inputType = cast<RankedTensorType>(input.getType());
    if (int64_t(term.size()) != inputType.getRank())
      return node.emitError() << "'" << term << "' does not match the rank of "
                              << inputType;
    SmallVector<AffineExpr> exprs;
    for (auto [i, ch] : llvm::enumerate(term)) {
      size_t d = letters.find(ch);
      int64_t size = inputType.getDimSize(i);
      if (sizes[d] >= 0 && sizes[d] != size)
        return node.emitError() << "'" << ch << "' stands for sizes "
                                << sizes[d] << " and " << size;
      sizes[d] = size;
      exprs.push_back(getAffineDimExpr(d, ctx));
    }
    maps.push_back(AffineMap::get(letters.size(), 0, exprs, ctx));
  }
  SmallVector<AffineExpr> outExprs;
  for (size_t d = 0; d < out.size(); ++d)
    outExprs.push_back(getAffineDimExpr(d, ctx));
  maps.push_back(AffineMap::get(letters.size(), 0, outExprs, ctx));
  SmallVector<utils::IteratorType> iterators(letters.size(),
                                             utils::IteratorType::reduction);
  for (size_t d = 0; d < out.size(); ++d)
    iterators[d] = utils::IteratorType::parallel;
  Value acc = createFilled(rewriter, loc, type, {}, rewriter.getZeroAttr(element));
  auto generic = linalg::GenericOp::create(
      rewriter, loc, type, op.getInputs(), acc, maps, iterators,
      [](OpBuilder &b, Location l, ValueRange args) {
        Value product = args.front();
        for (Value next : args.drop_front().drop_back())
          product = arith::MulFOp::create(b, l, product, next);
        linalg::YieldOp::create(
            b, l, Value(arith::AddFOp::create(b, l, args.back(), product)));
      });
  rewriter.replaceOp(op, generic.getResults());
  return success();
}

//===----------------------------------------------------------------------===//
// ConvTranspose
//===----------------------------------------------------------------------===//

/// y = conv(pad(interleave(x, strides - 1 zeros)), flip(w)^T) + bias, for
/// 2-D, one group: with k' = (k - 1) * dilation + 1, the input is padded by
/// k' - 1 - pad at the start and k' - 1 - pad + output_padding at the end.
static LogicalResult lowerConvTranspose(ONNXNode node,
                                        PatternRewriter &rewriter) {
  GenericOp op = node.getOp();
  Location loc = op.getLoc();
  Value input = node.getInput(0), weight = node.getInput(1);
  auto inputType = cast<RankedTensorType>(input.getType());
  auto weightType = cast<RankedTensorType>(weight.getType());
  RankedTensorType type = getStaticResultType(node);
  Type element = type.getElementType();
  if (inputType.getRank() != 4 || !isa<FloatType>(element))
    return node.emitError() << "only 2-D float ConvTranspose can be executed";
  FailureOr<int64_t> group = node.getInt("group", 1);
  FailureOr<std::string> autoPad = node.getString("auto_pad", "NOTSET");
  if (failed(group) || failed(autoPad))
    return failure();
  if (*group != 1 || *autoPad != "NOTSET" || node.getAttr("output_shape"))
    return node.emitError() << "ConvTranspose with groups, auto_pad or "
                               "output_shape cannot be executed";
  auto ints = [&](StringRef name, SmallVector<int64_t> fallback)
      -> FailureOr<SmallVector<int64_t>> {
    FailureOr<std::optional<SmallVector<int64_t>>> v = node.getInts(name);
    if (failed(v))
      return failure();
    return *v ? **v : fallback;
  };
  FailureOr<SmallVector<int64_t>> strides = ints("strides", {1, 1}),
                                  dilations = ints("dilations", {1, 1}),
                                  pads = ints("pads", {0, 0, 0, 0}),
                                  outputPadding = ints("output_padding", {0, 0});
  if (failed(strides) || failed(dilations) || failed(pads) ||
      failed(outputPadding))
    return failure();
  if (strides->size() != 2 || dilations->size() != 2 || pads->size() != 4 ||
      outputPadding->size() != 2)
    return node.emitError() << "expects 2-D strides, dilations, pads and "
                               "output_padding";

  // Zeros between the input pixels.
  int64_t n = inputType.getDimSize(0), c = inputType.getDimSize(1);
  SmallVector<int64_t> spread = {n, c};
  for (int d = 0; d < 2; ++d)
    spread.push_back((inputType.getDimSize(2 + d) - 1) * (*strides)[d] + 1);
  Value interleaved = input;
  if ((*strides)[0] != 1 || (*strides)[1] != 1) {
    auto spreadType = RankedTensorType::get(spread, element);
    Value zeros =
        createFilled(rewriter, loc, spreadType, {}, rewriter.getZeroAttr(element));
    interleaved = tensor::InsertSliceOp::create(
        rewriter, loc, input, zeros,
        getAsIndexOpFoldResult(rewriter.getContext(),
                               ArrayRef<int64_t>{0, 0, 0, 0}),
        getAsIndexOpFoldResult(rewriter.getContext(), inputType.getShape()),
        getAsIndexOpFoldResult(
            rewriter.getContext(),
            ArrayRef<int64_t>{1, 1, (*strides)[0], (*strides)[1]}));
  }
  SmallVector<int64_t> low(4, 0), high(4, 0);
  for (int d = 0; d < 2; ++d) {
    int64_t k = (weightType.getDimSize(2 + d) - 1) * (*dilations)[d] + 1;
    low[2 + d] = k - 1 - (*pads)[d];
    high[2 + d] = k - 1 - (*pads)[2 + d] + (*outputPadding)[d];
    if (low[2 + d] < 0 || high[2 + d] < 0)
      return node.emitError() << "pads larger than the kernel cannot be "
                                 "executed";
  }
  Value padded = padTensor(rewriter, loc, interleaved, low, high,
                           rewriter.getZeroAttr(element));

  // [C, F, kh, kw] -> [F, C, kh, kw], flipped spatially.
  int64_t kh = weightType.getDimSize(2), kw = weightType.getDimSize(3);
  auto flippedType = RankedTensorType::get(
      {weightType.getDimSize(1), weightType.getDimSize(0), kh, kw}, element);
  MLIRContext *ctx = rewriter.getContext();
  AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx),
             d2 = getAffineDimExpr(2, ctx), d3 = getAffineDimExpr(3, ctx);
  auto flip = linalg::GenericOp::create(
      rewriter, loc, flippedType, weight,
      createEmpty(rewriter, loc, flippedType, {}),
      SmallVector<AffineMap>{
          AffineMap::get(4, 0, {d1, d0, (kh - 1) - d2, (kw - 1) - d3}, ctx),
          rewriter.getMultiDimIdentityMap(4)},
      SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
      [](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(b, l, args[0]);
      });

  Value acc;
  if (node.hasInput(2)) {
    acc = linalg::BroadcastOp::create(
              rewriter, loc, node.getInput(2),
              createEmpty(rewriter, loc, type, {}),
              ArrayRef<int64_t>{0, 2, 3})
              .getResult()[0];
  } else {
    acc = createFilled(rewriter, loc, type, {}, rewriter.getZeroAttr(element));
  }
  Value conv = linalg::Conv2DNchwFchwOp::create(
                   rewriter, loc, type, ValueRange{padded, flip.getResult(0)},
                   acc, rewriter.getI64TensorAttr({1, 1}),
                   rewriter.getI64TensorAttr(*dilations))
                   .getResult(0);
  rewriter.replaceOp(op, conv);
  return success();
}

void mlir::quant_qdq::addONNXContractionLowerings(
    ONNXNodeLowerings &lowerings) {
  lowerings.add({"MatMul"}, lowerMatMul);
  lowerings.add({"Gemm"}, lowerGemm);
  lowerings.add({"Einsum"}, lowerEinsum);
  lowerings.add({"ConvTranspose"}, lowerConvTranspose);
}
