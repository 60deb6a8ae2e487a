//===- QuantizeLinear.cpp - QuantizeLinear and DequantizeLinear -----------===//
//
// Import: QuantizeLinear -> quantize, DequantizeLinear -> dequantize, with
// constant f32 scales and 4-, 8- or 16-bit zero points; a vector scale is
// per axis, `block_size` per block. The zero point's type is the storage
// type (uint8 without one, as ONNX says): unsigned storage is an unsigned
// quantizer, a nonzero zero point an asymmetric one. ONNX quantizes over
// the full storage range, so quantizers are not narrow. Storage is
// signless in MLIR whatever the sign.
//
// Export: quantize -> QuantizeLinear, dequantize -> DequantizeLinear,
// fake_quant -> both, with the scale and zero point as constants (scalars
// per tensor, vectors per axis, tensors per block). Storage is (u)int4,
// (u)int8 or (u)int16 on the wire, by the quantizer: an unsigned
// quantizer's storage is typed unsigned from here on.
//
//===----------------------------------------------------------------------===//

#include "PatternUtils.h"
#include "QuantQDQ/Utils/TensorNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;
using namespace mlir::quant_qdq;
using namespace mlir::quant_qdq::onnx_patterns;

/// The storage widths ONNX QuantizeLinear/DequantizeLinear have.
static bool isStorageWidth(unsigned width) {
  return width == 4 || width == 8 || width == 16;
}

static LogicalResult convertQDQ(ONNXNode node, PatternRewriter &rewriter) {
  bool isQuantize = node.getOpType() == "QuantizeLinear";
  MLIRContext *context = rewriter.getContext();
  if (!node.hasInput(0) || !node.hasInput(1))
    return failure();
  Value scaleValue = node.getInput(1);
  ElementsAttr scaleAttr = getConstantAttr(scaleValue);
  std::optional<SmallVector<float>> scales = getConstantFloats(scaleValue);
  if (!scaleAttr || !scales || scales->empty() ||
      !cast<ShapedType>(scaleAttr.getType()).getElementType().isF32() ||
      llvm::any_of(*scales,
                   [](float s) { return !std::isfinite(s) || s <= 0.0f; }))
    return failure();

  // Without a zero point, QuantizeLinear stores uint8 (ONNX's default).
  bool isSigned = false, fp8 = false;
  unsigned bits = 8;
  SmallVector<int64_t> zeroPoints(scales->size(), 0);
  if (Value zp = node.getInput(2)) {
    ElementsAttr zpAttr = getConstantAttr(zp);
    if (!zpAttr)
      return failure();
    Type zpElement = cast<ShapedType>(zpAttr.getType()).getElementType();
    if (isa<Float8E4M3FNType>(zpElement)) {
      // FP8: the zero point must be 0 (ONNX allows no other for it).
      std::optional<SmallVector<float>> zps = getConstantFloats(zp);
      if (!zps || zps->size() != scales->size() ||
          llvm::any_of(*zps, [](float z) { return z != 0.0f; }))
        return failure();
      fp8 = isSigned = true;
    } else {
      std::optional<SmallVector<int64_t>> zps = getConstantInts(zp);
      auto zpType = dyn_cast<IntegerType>(zpElement);
      if (!zps || zps->size() != scales->size() || !zpType ||
          !isStorageWidth(zpType.getWidth()))
        return failure();
      isSigned = !zpType.isUnsigned();
      bits = zpType.getWidth();
      zeroPoints = *zps;
    }
  }
  // Saturation (opset 19) is the only FP8 rounding this dialect has.
  FailureOr<int64_t> saturate = node.getInt("saturate", 1);
  if (failed(saturate) || *saturate != 1)
    return failure();

  // The float side and the storage side.
  Value input = node.getInput(0);
  RankedTensorType floatType, storageType;
  // A DequantizeLinear of FP8 data without a zero point is FP8 too.
  if (!isQuantize && !node.hasInput(2))
    if (auto type = dyn_cast<RankedTensorType>(input.getType());
        type && isa<Float8E4M3FNType>(type.getElementType()))
      fp8 = isSigned = true;
  Type storageElement = fp8 ? Type(Float8E4M3FNType::get(context))
                            : Type(IntegerType::get(context, bits));
  if (isQuantize) {
    floatType = getFloatTensor(input);
    if (!floatType || !floatType.getElementType().isF32())
      return failure();
    storageType = RankedTensorType::get(floatType.getShape(), storageElement);
  } else if (ElementsAttr constant = getConstantAttr(input);
             constant && !fp8) {
    // Storage read from an initializer is reinterpreted as signless, the
    // dialect's storage type; the quantizer remembers the signedness.
    auto type = cast<RankedTensorType>(constant.getType());
    auto intType = dyn_cast<IntegerType>(type.getElementType());
    // Without a zero point the data's type says the width and the sign.
    if (!intType || !isStorageWidth(intType.getWidth()) ||
        (node.hasInput(2) && (intType.getWidth() != bits ||
                              intType.isUnsigned() == isSigned)))
      return failure();
    bits = intType.getWidth();
    isSigned = !intType.isUnsigned();
    storageType = RankedTensorType::get(type.getShape(),
                                        IntegerType::get(context, bits));
    if (!intType.isSignless())
      input = arith::ConstantOp::create(
          rewriter, input.getLoc(),
          cast<TypedAttr>(retypeConstant(constant, storageType)));
    floatType = RankedTensorType::get(storageType.getShape(),
                                      Float32Type::get(context));
  } else {
    storageType = dyn_cast<RankedTensorType>(input.getType());
    if (!storageType || storageType.getElementType() != storageElement)
      return failure();
    floatType = RankedTensorType::get(storageType.getShape(),
                                      Float32Type::get(context));
  }

  // Per tensor (a scalar, or one value), per axis (a vector), or per block
  // (`block_size`, scales of the data's rank).
  std::optional<int64_t> axis, blockSize;
  auto scaleType = cast<ShapedType>(scaleAttr.getType());
  int64_t rank = floatType.getRank();
  FailureOr<int64_t> block = node.getInt("block_size", 0);
  if (failed(block) || *block < 0)
    return failure();
  if (*block > 0 || (scaleType.getRank() == 1 &&
                     !(scales->size() == 1 && rank == 0))) {
    FailureOr<int64_t> a = node.getInt("axis", 1);
    if (failed(a) || *a < -rank || *a >= rank)
      return failure();
    axis = *a < 0 ? *a + rank : *a;
    if (*block > 0)
      blockSize = *block;
    // A one-element scale along an axis of another size is per tensor.
    else if (scales->size() == 1 && floatType.getDimSize(*axis) != 1)
      axis.reset();
  } else if (scaleType.getRank() > 1) {
    return failure();
  }

  bool symmetric =
      isSigned && llvm::all_of(zeroPoints, [](int64_t z) { return z == 0; });
  auto quantizer = QuantizerAttr::get(
      context, bits, isSigned, /*narrow_range=*/false, symmetric, axis,
      std::optional<CalibrationMethod>(), blockSize,
      fp8 ? StorageFormat::E4M3FN : StorageFormat::Int);
  // The verifier's checks, as a refusal: the node stays generic.
  if (blockSize && quantizer.getScaleShape(floatType.getShape()) !=
                       ArrayRef<int64_t>(scaleType.getShape()))
    return failure();
  SmallVector<NamedAttribute> attrs{
      rewriter.getNamedAttr("quantizer", quantizer),
      rewriter.getNamedAttr("scale", rewriter.getDenseF32ArrayAttr(*scales))};
  if (!llvm::all_of(zeroPoints, [](int64_t z) { return z == 0; })) {
    SmallVector<int32_t> zp(zeroPoints.begin(), zeroPoints.end());
    attrs.push_back(
        rewriter.getNamedAttr("zero_point", rewriter.getDenseI32ArrayAttr(zp)));
  }
  StringRef opName = isQuantize ? QuantizeOp::getOperationName()
                                : DequantizeOp::getOperationName();
  return replaceNode(rewriter, node,
                     node.createLayer(rewriter, opName, {input}, attrs,
                                      isQuantize ? storageType : floatType));
}

//===----------------------------------------------------------------------===//
// Export
//===----------------------------------------------------------------------===//

/// The element type of a quantizer's storage on the wire: i4/i8/i16 (INT4,
/// INT8, INT16), their unsigned forms, or f8E4M3FN (FLOAT8E4M3FN).
static Type getStorageElementType(QuantizerAttr q) {
  if (q.isFloatStorage())
    return q.getStorageType();
  return IntegerType::get(q.getContext(), q.getBits(),
                          q.getIsSigned() ? IntegerType::Signless
                                          : IntegerType::Unsigned);
}

namespace {
/// The inputs a QuantizeLinear/DequantizeLinear node reads besides its data.
struct QuantParams {
  Value scale, zeroPoint;
};
} // namespace

/// Scale and zero point constants for `op`, named after the tensor it
/// quantizes (a weight: after its constant), `x_scale` and `x_zero_point`
/// (unnamed when it has no name: the writer then names them after the node
/// that reads them first). The pass shares equal ones across ops.
template <typename QuantOp>
static FailureOr<QuantParams> createQuantParams(QuantOp op, Value floatValue,
                                                ONNXNodeBuilder &b) {
  QuantizerAttr q = op.getQuantizer();
  std::optional<ArrayRef<float>> scales = op.getScale();
  if (!scales)
    return b.emitError() << "quantize/dequantize has no scale: calibrate the "
                            "model, or export computes weight scales only "
                            "for constant inputs";
  unsigned bits = q.getBits();
  if (bits != 4 && bits != 8 && bits != 16)
    return b.emitError() << "ONNX QuantizeLinear/DequantizeLinear store 4, 8 "
                            "or 16 bits; this quantizer has "
                         << bits;
  // Per-tensor parameters are scalars, per-axis ones vectors, blocked ones
  // tensors of the data's rank.
  SmallVector<int64_t> shape = q.getScaleShape(
      cast<ShapedType>(floatValue.getType()).getShape());
  if (ShapedType::isDynamicShape(shape))
    return b.emitError() << "blocked scales need the sizes of the tensor";
  auto f32 = Float32Type::get(op.getContext());
  Type storage = getStorageElementType(q);
  // FP8 zero points are +0.0 (the verifier checked they are 0).
  SmallVector<APInt> zeroPoints;
  for (unsigned i = 0; i < scales->size(); ++i)
    zeroPoints.emplace_back(bits, uint64_t(op.getZeroPointAt(i)),
                            /*isSigned=*/q.getIsSigned(),
                            /*implicitTrunc=*/true);
  StringRef tensor = getTensorName(floatValue);
  if (tensor.empty() && matchPattern(floatValue, m_Constant()))
    tensor = getLocationName(floatValue.getLoc());
  auto name = [&](StringRef what) {
    return tensor.empty() ? std::string() : (tensor + "_" + what).str();
  };
  return QuantParams{
      b.createNamedConstant(
          DenseElementsAttr::get(RankedTensorType::get(shape, f32), *scales),
          name("scale")),
      b.createNamedConstant(
          q.isFloatStorage()
              ? DenseElementsAttr::get(
                    RankedTensorType::get(shape, storage),
                    APFloat::getZero(
                        cast<FloatType>(storage).getFloatSemantics()))
              : DenseElementsAttr::get(RankedTensorType::get(shape, storage),
                                       zeroPoints),
          name("zero_point"))};
}

/// The attributes of a QuantizeLinear/DequantizeLinear node.
static SmallVector<NamedAttribute> getQDQAttrs(QuantizerAttr q,
                                               ONNXNodeBuilder &b) {
  SmallVector<NamedAttribute> attrs;
  if (std::optional<int64_t> axis = q.getAxis())
    attrs.push_back(b.getIntAttr("axis", *axis));
  if (std::optional<int64_t> block = q.getBlockSize())
    attrs.push_back(b.getIntAttr("block_size", *block));
  return attrs;
}

/// QuantizeLinear of `input` by `q` with `params`, with the given suffix.
static Value createQuantize(QuantizerAttr q, Value input,
                            const QuantParams &params, ONNXNodeBuilder &b,
                            StringRef suffix) {
  auto type = cast<ShapedType>(input.getType())
                  .clone(getStorageElementType(q));
  return b.create("QuantizeLinear", {input, params.scale, params.zeroPoint},
                  type, getQDQAttrs(q, b), suffix);
}

/// DequantizeLinear of `storage` by `q` with `params`, with the given
/// suffix. Storage held as a constant (qdq-quantize-weights) is retyped to
/// the wire type.
static Value createDequantize(QuantizerAttr q, Value storage,
                              const QuantParams &params, ONNXNodeBuilder &b,
                              StringRef suffix) {
  auto storageType = cast<ShapedType>(storage.getType());
  Type wireType = getStorageElementType(q);
  if (storageType.getElementType() != wireType)
    if (ElementsAttr constant = getConstantAttr(storage))
      storage = arith::ConstantOp::create(
          b.getRewriter(), storage.getLoc(),
          cast<TypedAttr>(
              retypeConstant(constant, storageType.clone(wireType))));
  return b.create("DequantizeLinear", {storage, params.scale, params.zeroPoint},
                  storageType.clone(Float32Type::get(q.getContext())),
                  getQDQAttrs(q, b), suffix);
}

/// The float tensor a dequantize restores: the input of the quantize that
/// produced its storage, else its storage.
static Value getQuantizedValue(DequantizeOp op) {
  Value storage = op.getInput();
  if (auto node = storage.getDefiningOp<GenericOp>())
    if (node.isDefaultDomainNode("QuantizeLinear"))
      return node.getInputs().front();
  return storage;
}

static LogicalResult exportQuantize(QuantizeOp op, ONNXNodeBuilder &b) {
  FailureOr<QuantParams> params = createQuantParams(op, op.getInput(), b);
  if (failed(params))
    return failure();
  return b.replaceWithValue(createQuantize(op.getQuantizer(), op.getInput(),
                                           *params, b, /*suffix=*/{}));
}

static LogicalResult exportDequantize(DequantizeOp op, ONNXNodeBuilder &b) {
  FailureOr<QuantParams> params =
      createQuantParams(op, getQuantizedValue(op), b);
  if (failed(params))
    return failure();
  return b.replaceWithValue(createDequantize(op.getQuantizer(), op.getInput(),
                                             *params, b, /*suffix=*/{}));
}

/// Both nodes, reading one scale and one zero point.
static LogicalResult exportFakeQuant(FakeQuantOp op, ONNXNodeBuilder &b) {
  FailureOr<QuantParams> params = createQuantParams(op, op.getInput(), b);
  if (failed(params))
    return failure();
  QuantizerAttr q = op.getQuantizer();
  Value quantized = createQuantize(q, op.getInput(), *params, b, "q");
  return b.replaceWithValue(createDequantize(q, quantized, *params, b, "dq"));
}

void onnx_patterns::populateQuantizeLinearExports(
    RewritePatternSet &patterns) {
  addExport<QuantizeOp, exportQuantize>(patterns);
  addExport<DequantizeOp, exportDequantize>(patterns);
  addExport<FakeQuantOp, exportFakeQuant>(patterns);
}

//===----------------------------------------------------------------------===//
// Import
//===----------------------------------------------------------------------===//

void onnx_patterns::populateQuantizeLinearPatterns(
    RewritePatternSet &patterns) {
  addConversion<convertQDQ>(patterns, {"QuantizeLinear", "DequantizeLinear"});
}
