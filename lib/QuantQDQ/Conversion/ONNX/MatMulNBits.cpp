//===- MatMulNBits.cpp - int4 dense layers as ONNX Runtime's MatMulNBits --===//
//
// ONNX Runtime's com.microsoft MatMulNBits multiplies by a weight stored in
// 4-bit blocks along the reduction axis, in its own packing: what
// onnxruntime-genai runs for int4 decoders, with kernels that read the
// packed weight directly. A dense layer whose weight is a signed int4
// constant dequantized in blocks along its input channels (weight-only
// int4, stored quantized) is exactly that product: export repacks it, and
// import unpacks the node (as ORT's quantizer and onnxruntime-genai write
// it) back into that layer, so that qdq-run and calibration run it.
//
//   B       uint8 [N, blocks, block_size / 2]: code q + 8 (the default zero
//           point 8 of 4 bits stands for our symmetric grid), two codes a
//           byte, the lower input channel in the low nibble; the tail of
//           the last block holds code 8 (zero)
//   scales  f32 [N, blocks]
//
//===----------------------------------------------------------------------===//

#include "PatternUtils.h"
#include "QuantQDQ/Target/ONNX/ONNXAttrNames.h"
#include "QuantQDQ/Utils/Scales.h"
#include "QuantQDQ/Utils/TensorNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::quant_qdq;
using namespace mlir::quant_qdq::onnx_io;

/// ONNX Runtime's contrib domain, and the version of it MatMulNBits is in.
static constexpr StringLiteral kMicrosoftDomain = "com.microsoft";
static constexpr int64_t kMicrosoftDomainVersion = 1;

namespace {
/// A dense layer's weight as MatMulNBits needs it.
struct BlockedInt4Weight {
  DequantizeOp dequantize;
  /// The stored codes, row-major as the constant holds them.
  std::vector<int8_t> codes;
  int64_t k, n, blockSize;
  bool transposed;
};
} // namespace

/// The elements of an integer constant of at most 8 bits, a byte each as
/// dense constants and resources store them (signed ones sign-extended),
/// or nothing for another constant or a resource of another size.
static std::optional<std::vector<uint8_t>>
readByteElements(ElementsAttr value) {
  auto type = cast<ShapedType>(value.getType());
  auto element = dyn_cast<IntegerType>(type.getElementType());
  if (!element || element.getWidth() > 8 || !type.hasStaticShape())
    return std::nullopt;
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob || int64_t(blob->getData().size()) != type.getNumElements())
      return std::nullopt;
    ArrayRef<char> data = blob->getData();
    return std::vector<uint8_t>(data.begin(), data.end());
  }
  std::vector<uint8_t> bytes;
  for (APInt v : value.getValues<APInt>())
    bytes.push_back(
        uint8_t((element.isUnsigned() ? v.zext(8) : v.sext(8)).getZExtValue()));
  return bytes;
}

/// The int4 weight of `dense` in blocks along its input channels, stored
/// quantized and symmetric, or nothing.
static std::optional<BlockedInt4Weight> matchBlockedInt4(DenseOp dense) {
  auto dq = dense.getWeight().getDefiningOp<DequantizeOp>();
  if (!dq || !dq.getScale())
    return std::nullopt;
  QuantizerAttr q = dq.getQuantizer();
  ElementsAttr codes;
  if (!matchPattern(dq.getInput(), m_Constant(&codes)))
    return std::nullopt;
  auto type = cast<RankedTensorType>(codes.getType());
  bool transposed = dense.getTransposeWeight();
  std::optional<int64_t> blockSize = q.getBlockSize();
  // ONNX Runtime's kernels take power-of-two blocks from 16 up.
  if (q.getBits() != 4 || !q.getIsSigned() || !q.getSymmetric() ||
      q.isFloatStorage() || !blockSize || *blockSize < 16 ||
      !llvm::isPowerOf2_64(*blockSize) || type.getRank() != 2 ||
      !type.hasStaticShape() || q.getAxis() != (transposed ? 1 : 0) ||
      llvm::any_of(
          dq.getZeroPoint().value_or(ArrayRef<int32_t>()),
          [](int32_t z) { return z != 0; }))
    return std::nullopt;
  std::optional<std::vector<uint8_t>> stored = readByteElements(codes);
  if (!stored)
    return std::nullopt;
  BlockedInt4Weight w{dq,
                      std::vector<int8_t>(stored->begin(), stored->end()),
                      type.getDimSize(transposed ? 1 : 0),
                      type.getDimSize(transposed ? 0 : 1),
                      *blockSize,
                      transposed};
  return w;
}

/// Replaces `dense` by MatMulNBits (and an add of its bias).
static void rewriteAsMatMulNBits(DenseOp dense, const BlockedInt4Weight &w,
                                 OpBuilder &b) {
  MLIRContext *context = dense.getContext();
  int64_t blocks = llvm::divideCeil(w.k, w.blockSize);
  int64_t blob = w.blockSize / 2;
  DequantizeOp dq = w.dequantize; // (accessors are not const)
  ArrayRef<float> scales = *dq.getScale();

  // Code 8 is zero: the tail of a short last block.
  std::vector<uint8_t> packed(w.n * blocks * blob, 0x88);
  std::vector<float> blockScales(w.n * blocks);
  for (int64_t j = 0; j < w.n; ++j) {
    for (int64_t i = 0; i < w.k; ++i) {
      int8_t q = w.codes[w.transposed ? j * w.k + i : i * w.n + j];
      uint8_t code = uint8_t(q + 8) & 0xF;
      uint8_t &byte =
          packed[(j * blocks + i / w.blockSize) * blob + (i % w.blockSize) / 2];
      byte = i % 2 ? (byte & 0x0F) | (code << 4) : (byte & 0xF0) | code;
    }
    // The quantizer's scales are [blocks, N], or [N, blocks] transposed.
    for (int64_t block = 0; block < blocks; ++block)
      blockScales[j * blocks + block] =
          scales[w.transposed ? j * blocks + block : block * w.n + j];
  }

  std::string name = dense.getLayerName().str();
  if (name.empty())
    name = getLocationName(dense.getLoc()).str();
  auto u8 = IntegerType::get(context, 8, IntegerType::Unsigned);
  auto packedType = RankedTensorType::get({w.n, blocks, blob}, u8);
  auto scalesType = RankedTensorType::get({w.n, blocks}, b.getF32Type());
  auto constant = [&](Attribute value, StringRef suffix) {
    return arith::ConstantOp::create(
        b, NameLoc::get(b.getStringAttr(name + suffix), dense.getLoc()),
        cast<TypedAttr>(value));
  };
  Value packedWeight =
      constant(DenseResourceElementsAttr::get(
                   packedType, name + "_Q4",
                   HeapAsmResourceBlob::allocateAndCopyInferAlign(
                       ArrayRef<uint8_t>(packed))),
               "_Q4");
  Value scalesValue =
      constant(DenseElementsAttr::get(scalesType, ArrayRef<float>(blockScales)),
               "_scales");

  NamedAttribute attrs[] = {
      b.getNamedAttr("K", b.getI64IntegerAttr(w.k)),
      b.getNamedAttr("N", b.getI64IntegerAttr(w.n)),
      b.getNamedAttr("bits", b.getI64IntegerAttr(4)),
      b.getNamedAttr("block_size", b.getI64IntegerAttr(w.blockSize))};
  Value bias = dense.getBias();
  // Without a bias the node is the layer's own, with its name and tensor.
  auto node = GenericOp::create(
      b,
      bias ? NameLoc::get(b.getStringAttr(name + "_matmul"), dense.getLoc())
           : dense.getLoc(),
      TypeRange{dense.getType()},
      ValueRange{dense.getInput(), packedWeight, scalesValue},
      b.getStringAttr("MatMulNBits"),
      bias ? StringAttr() : b.getStringAttr(name),
      b.getStringAttr(kMicrosoftDomain), b.getDictionaryAttr(attrs));
  Value result = node.getResult(0);
  if (bias)
    result = AddOp::create(b, dense.getLoc(), dense.getType(),
                           ValueRange{result, bias}, b.getStringAttr(name))
                 .getResult();
  if (auto names = dense->getAttrOfType<ArrayAttr>(kResultNamesAttr))
    result.getDefiningOp()->setAttr(kResultNamesAttr, names);
  dense.getResult().replaceAllUsesWith(result);
  dense.erase();
}

LogicalResult
mlir::quant_qdq::onnx_patterns::writeDenseAsMatMulNBits(ModuleOp module) {
  SmallVector<std::pair<DenseOp, BlockedInt4Weight>> targets;
  module.walk([&](DenseOp dense) {
    if (std::optional<BlockedInt4Weight> w = matchBlockedInt4(dense))
      targets.emplace_back(dense, *w);
  });
  if (targets.empty()) {
    emitWarning(module.getLoc())
        << "matmul-nbits: no dense layer has an int4 weight stored in "
           "blocks along its input channels (weight-format=int4 "
           "weight-block-size=16, 32, ...); nothing is written as "
           "MatMulNBits";
    return success();
  }
  for (auto &[dense, weight] : targets) {
    OpBuilder b(dense);
    DequantizeOp dq = weight.dequantize;
    rewriteAsMatMulNBits(dense, weight, b);
    if (dq->use_empty()) {
      Operation *codes = dq.getInput().getDefiningOp();
      dq.erase();
      if (codes->use_empty())
        codes->erase();
    }
  }
  auto opsets = module->getAttrOfType<DictionaryAttr>(kOpsetImport);
  NamedAttrList entries(opsets);
  entries.set(kMicrosoftDomain,
              IntegerAttr::get(IntegerType::get(module.getContext(), 64),
                               kMicrosoftDomainVersion));
  module->setAttr(kOpsetImport, entries.getDictionary(module.getContext()));
  return success();
}

//===----------------------------------------------------------------------===//
// Import
//===----------------------------------------------------------------------===//

namespace {
/// com.microsoft MatMulNBits of 4 bits with the default zero point (8) and
/// no g_idx, as the dense layer it computes: A times the transpose of an
/// [N, K] weight dequantized in blocks along K. ONNX Runtime's symmetric
/// quantizer writes negative scales (the largest magnitude on code -8);
/// such a block's codes and scale change sign, and a code of +8 that gives
/// makes the weight 8-bit storage. Other widths and explicit zero points
/// stay generic.
struct ImportMatMulNBits : OpRewritePattern<GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getDomain() != kMicrosoftDomain || op.getOpType() != "MatMulNBits")
      return failure();
    ONNXNode node(op);
    FailureOr<int64_t> k = node.getInt("K", 0), n = node.getInt("N", 0),
                       bits = node.getInt("bits", 4),
                       blockSize = node.getInt("block_size", 0);
    if (failed(k) || failed(n) || failed(bits) || failed(blockSize) ||
        // (Bounded so that the sizes below cannot overflow.)
        *bits != 4 || *k < 1 || *n < 1 || *k > (int64_t(1) << 31) ||
        *n > (int64_t(1) << 31) || *blockSize < 16 ||
        *blockSize > (int64_t(1) << 20) || !llvm::isPowerOf2_64(*blockSize) ||
        !node.onlyFirstOutputUsed() || node.hasInput(3) || node.hasInput(4))
      return failure();
    Value a = node.getInput(0);
    RankedTensorType aType = onnx_patterns::getFloatTensor(a);
    ElementsAttr packedAttr = getConstantAttr(node.getInput(1));
    ElementsAttr scalesAttr = getConstantAttr(node.getInput(2));
    int64_t blocks = llvm::divideCeil(*k, *blockSize), blob = *blockSize / 2;
    if (!aType || !aType.getElementType().isF32() || !packedAttr ||
        !scalesAttr || aType.getShape().back() != *k ||
        cast<ShapedType>(packedAttr.getType()).getNumElements() !=
            *n * blocks * blob ||
        cast<ShapedType>(scalesAttr.getType()).getNumElements() != *n * blocks)
      return failure();
    std::optional<std::vector<uint8_t>> packed = readByteElements(packedAttr);
    SmallVector<float> scales;
    if (!packed ||
        !cast<ShapedType>(packedAttr.getType())
             .getElementType()
             .isUnsignedInteger(8) ||
        failed(readFloatConstant(
            scalesAttr,
            [&](ArrayRef<float> v) { scales.assign(v.begin(), v.end()); })) ||
        llvm::any_of(scales,
                     [](float s) { return !(s != 0) || !std::isfinite(s); }))
      return failure();

    // The codes q = code - 8, two a byte, low nibble first; a negative
    // scale's block negated.
    std::vector<int8_t> codes(*n * *k);
    int8_t largest = 0;
    for (int64_t j = 0; j < *n; ++j)
      for (int64_t i = 0; i < *k; ++i) {
        int64_t block = j * blocks + i / *blockSize;
        uint8_t byte = (*packed)[block * blob + (i % *blockSize) / 2];
        int8_t q = int8_t((i % 2 ? byte >> 4 : byte & 0xF)) - 8;
        if (scales[block] < 0)
          q = int8_t(-q);
        codes[j * *k + i] = q;
        largest = std::max(largest, q);
      }
    for (float &scale : scales)
      scale = std::fabs(scale);
    int64_t storageBits = largest > 7 ? 8 : 4;

    MLIRContext *context = op.getContext();
    Location loc = op.getLoc();
    std::string name = getLocationName(loc).str();
    if (name.empty())
      name = "MatMulNBits";
    // A byte per element, as import holds INT4 tensors.
    auto codesType =
        RankedTensorType::get({*n, *k}, IntegerType::get(context, storageBits));
    auto weight = arith::ConstantOp::create(
        rewriter, NameLoc::get(rewriter.getStringAttr(name + "_weight"), loc),
        DenseResourceElementsAttr::get(
            codesType, name + "_weight",
            HeapAsmResourceBlob::allocateAndCopyInferAlign(
                ArrayRef<int8_t>(codes))));
    auto quantizer = QuantizerAttr::get(
        context, storageBits, /*is_signed=*/true, /*narrow_range=*/false,
        /*symmetric=*/true, /*axis=*/int64_t(1),
        std::optional<CalibrationMethod>(), *blockSize, StorageFormat::Int);
    auto dequantize = DequantizeOp::create(
        rewriter, FusedLoc::get(context, {loc}, rewriter.getStringAttr(name)),
        RankedTensorType::get({*n, *k}, rewriter.getF32Type()), weight,
        quantizer, rewriter.getDenseF32ArrayAttr(scales), nullptr);
    SmallVector<Value> operands{a, dequantize.getResult()};
    if (Value bias = node.getInput(5))
      operands.push_back(bias);
    return onnx_patterns::replaceNode(
        rewriter, node,
        node.createLayer(rewriter, DenseOp::getOperationName(), operands,
                         {rewriter.getNamedAttr("transpose_weight",
                                                rewriter.getUnitAttr())}));
  }
};
} // namespace

void mlir::quant_qdq::onnx_patterns::populateMatMulNBitsPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ImportMatMulNBits>(patterns.getContext());
}
