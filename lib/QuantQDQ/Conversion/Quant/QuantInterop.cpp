//===- QuantInterop.cpp - Q/DQ ops to and from upstream quant casts -------===//
//
// qdq-to-quant and quant-to-qdq. A quantizer with its scales and zero
// points is one !quant.uniform type: the storage integer type and its
// range (the narrow range is the storage minimum plus one), the expressed
// float type, and per tensor one scale and zero point, per axis one per
// slice, or per block a sub-channel type ({0:1, 1:128}: blocks of 128
// along axis 1, one per index along axis 0). Both passes map between the
// two forms of that fact, op by op.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Conversion/Passes.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/Builders.h"

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_QDQTOQUANT
#define GEN_PASS_DEF_QUANTTOQDQ
#include "QuantQDQ/Conversion/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using namespace mlir::quant_qdq;

//===----------------------------------------------------------------------===//
// Quantizers as types
//===----------------------------------------------------------------------===//

/// The !quant.uniform element type of `quantizer` with `scales` and
/// `zeroPoints` (empty: 0) over `expressed`; a diagnostic at `op` when the
/// quantizer has no scales.
static FailureOr<quant::QuantizedType>
getUniformType(Operation *op, QuantizerAttr quantizer,
               std::optional<ArrayRef<float>> scales,
               std::optional<ArrayRef<int32_t>> zeroPoints,
               RankedTensorType floatType) {
  Type expressed = floatType.getElementType();
  if (!scales)
    return op->emitError("has no scale: calibrate the model, or set scales, "
                         "before converting to upstream quant types");
  if (quantizer.isFloatStorage())
    return op->emitError("FP8 quantizers do not convert to upstream quant "
                         "types");
  MLIRContext *context = op->getContext();
  auto storage = IntegerType::get(context, quantizer.getBits());
  unsigned flags = quantizer.getIsSigned() ? quant::QuantizationFlags::Signed
                                           : 0;
  SmallVector<double> scaleValues(scales->begin(), scales->end());
  SmallVector<int64_t> zeroValues(scaleValues.size(), 0);
  if (zeroPoints)
    for (auto [i, zp] : llvm::enumerate(*zeroPoints))
      zeroValues[i] = zp;
  auto emit = [&] { return op->emitError(); };
  quant::QuantizedType type;
  if (quantizer.isBlocked()) {
    // A sub-channel type blocked along every dimension: the block size
    // along the axis, 1 (one scale per index) along the others.
    SmallVector<int64_t> scaleShape =
        quantizer.getScaleShape(floatType.getShape());
    if (ShapedType::isDynamicShape(scaleShape))
      return op->emitError("blocks of a tensor of dynamic shape have no "
                           "sub-channel type");
    SmallVector<APFloat> scaleFloats;
    for (float scale : *scales) {
      APFloat value(scale);
      bool lost;
      value.convert(cast<FloatType>(expressed).getFloatSemantics(),
                    APFloat::rmNearestTiesToEven, &lost);
      scaleFloats.push_back(value);
    }
    SmallVector<APInt> zeroInts;
    for (int64_t zp : zeroValues)
      zeroInts.emplace_back(quantizer.getBits(), uint64_t(zp),
                            /*isSigned=*/true, /*implicitTrunc=*/true);
    SmallVector<int32_t> dims;
    SmallVector<int64_t> blocks;
    for (int64_t d = 0, rank = floatType.getRank(); d < rank; ++d) {
      dims.push_back(int32_t(d));
      blocks.push_back(d == *quantizer.getAxis() ? *quantizer.getBlockSize()
                                                 : 1);
    }
    type = quant::UniformQuantizedSubChannelType::getChecked(
        emit, flags, storage, expressed,
        DenseElementsAttr::get(RankedTensorType::get(scaleShape, expressed),
                               scaleFloats),
        DenseElementsAttr::get(RankedTensorType::get(scaleShape, storage),
                               zeroInts),
        dims, blocks, quantizer.getQMin(), quantizer.getQMax());
  } else if (std::optional<int64_t> axis = quantizer.getAxis())
    type = quant::UniformQuantizedPerAxisType::getChecked(
        emit, flags, storage, expressed, scaleValues, zeroValues, *axis,
        quantizer.getQMin(), quantizer.getQMax());
  else
    type = quant::UniformQuantizedType::getChecked(
        emit, flags, storage, expressed, scaleValues.front(),
        zeroValues.front(), quantizer.getQMin(), quantizer.getQMax());
  if (!type)
    return failure();
  return type;
}

namespace {
/// A !quant.uniform type in this dialect's terms.
struct QuantizerParams {
  QuantizerAttr quantizer;
  SmallVector<float> scales;
  SmallVector<int32_t> zeroPoints;
};
} // namespace

/// One axis and block size for the block sizes of a sub-channel type over
/// `shape`: a block of 1 (or a dimension of size 1) everywhere but on at
/// most one axis; an error otherwise.
static FailureOr<std::pair<int64_t, int64_t>>
getBlockedAxis(Operation *op, quant::UniformQuantizedSubChannelType type,
               ArrayRef<int64_t> shape) {
  // Dimensions the type does not name form one block.
  SmallVector<int64_t> blocks(shape);
  for (auto [dim, block] : type.getBlockSizeInfo())
    if (dim >= 0 && dim < int64_t(shape.size()))
      blocks[dim] = block;
  std::optional<std::pair<int64_t, int64_t>> axis;
  for (auto [d, block] : llvm::enumerate(blocks)) {
    if (block == 1 || shape[d] == 1)
      continue;
    if (axis || ShapedType::isDynamic(block))
      return op->emitError("sub-channel blocks along more than one "
                           "dimension have no quant_qdq form: ")
             << type;
    axis = std::make_pair(int64_t(d), block);
  }
  // Every index its own scale: blocks of 1 along the first dimension.
  return axis.value_or(std::make_pair(int64_t(0), int64_t(1)));
}

static FailureOr<QuantizerParams>
getQuantizerParams(Operation *op, Type elementType, ArrayRef<int64_t> shape) {
  auto type = dyn_cast<quant::QuantizedType>(elementType);
  auto storage = type ? dyn_cast<IntegerType>(type.getStorageType())
                      : IntegerType();
  if (!storage)
    return op->emitError("expected a !quant.uniform type with integer "
                         "storage, got ")
           << elementType;
  unsigned bits = storage.getWidth();
  bool isSigned = type.isSigned();
  int64_t fullMin = quant::QuantizedType::getDefaultMinimumForInteger(
      isSigned, bits);
  int64_t fullMax = quant::QuantizedType::getDefaultMaximumForInteger(
      isSigned, bits);
  if (type.getStorageTypeMax() != fullMax ||
      (type.getStorageTypeMin() != fullMin &&
       type.getStorageTypeMin() != fullMin + 1))
    return op->emitError("storage range [")
           << type.getStorageTypeMin() << ", " << type.getStorageTypeMax()
           << "] is neither the full nor the narrow range of " << bits
           << "-bit storage";
  bool narrow = type.getStorageTypeMin() == fullMin + 1;

  QuantizerParams params;
  std::optional<int64_t> axis, blockSize;
  SmallVector<int64_t> zeroPoints;
  if (auto perTensor = dyn_cast<quant::UniformQuantizedType>(type)) {
    params.scales.push_back(perTensor.getScale());
    zeroPoints.push_back(perTensor.getZeroPoint());
  } else if (auto perAxis = dyn_cast<quant::UniformQuantizedPerAxisType>(
                 type)) {
    axis = perAxis.getQuantizedDimension();
    llvm::append_range(params.scales, perAxis.getScales());
    llvm::append_range(zeroPoints, perAxis.getZeroPoints());
  } else if (auto subChannel =
                 dyn_cast<quant::UniformQuantizedSubChannelType>(type)) {
    FailureOr<std::pair<int64_t, int64_t>> blocked =
        getBlockedAxis(op, subChannel, shape);
    if (failed(blocked))
      return failure();
    axis = blocked->first;
    blockSize = blocked->second;
    for (APFloat scale : subChannel.getScales().getValues<APFloat>()) {
      bool lost;
      scale.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                    &lost);
      params.scales.push_back(scale.convertToFloat());
    }
    for (const APInt &zp : subChannel.getZeroPoints().getValues<APInt>())
      zeroPoints.push_back(isSigned ? zp.getSExtValue()
                                    : int64_t(zp.getZExtValue()));
  } else {
    return op->emitError("only per-tensor, per-axis and sub-channel "
                         "!quant.uniform types convert: ")
           << elementType;
  }
  bool symmetric = llvm::all_of(zeroPoints, [](int64_t zp) { return !zp; });
  for (int64_t zp : zeroPoints)
    params.zeroPoints.push_back(int32_t(zp));
  params.quantizer =
      QuantizerAttr::get(op->getContext(), bits, isSigned, narrow, symmetric,
                         axis, std::optional<CalibrationMethod>(), blockSize,
                         StorageFormat::Int);
  return params;
}

/// `type` (a tensor) with the element type `element`.
static Type withElementType(Type type, Type element) {
  return cast<ShapedType>(type).clone(element);
}

//===----------------------------------------------------------------------===//
// qdq-to-quant
//===----------------------------------------------------------------------===//

namespace {
struct QDQToQuantPass
    : quant_qdq::impl::QDQToQuantBase<QDQToQuantPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<QuantizeOp, DequantizeOp, FakeQuantOp>(op))
        ops.push_back(op);
    });
    bool failed = false;
    for (Operation *op : ops)
      failed |= mlir::failed(convert(op));
    if (failed)
      return signalPassFailure();
    // A quantize's storage cast read by a dequantize's: the pair cancels.
    getOperation()->walk([](quant::StorageCastOp cast) {
      auto inner = cast.getInput().getDefiningOp<quant::StorageCastOp>();
      if (inner && inner.getInput().getType() == cast.getType()) {
        cast.replaceAllUsesWith(inner.getInput());
        cast.erase();
        if (inner->use_empty())
          inner.erase();
      }
    });
  }

  LogicalResult convert(Operation *op) {
    OpBuilder builder(op);
    Location loc = op->getLoc();
    if (auto q = dyn_cast<QuantizeOp>(op)) {
      FailureOr<quant::QuantizedType> type =
          getUniformType(q, q.getQuantizer(), q.getScale(), q.getZeroPoint(),
                         q.getInput().getType());
      if (mlir::failed(type))
        return failure();
      Value quantized = quant::QuantizeCastOp::create(
          builder, loc, withElementType(q.getInput().getType(), *type),
          q.getInput());
      Value storage = quant::StorageCastOp::create(builder, loc, q.getType(),
                                                   quantized);
      q.replaceAllUsesWith(storage);
      q.erase();
      return success();
    }
    if (auto dq = dyn_cast<DequantizeOp>(op)) {
      FailureOr<quant::QuantizedType> type =
          getUniformType(dq, dq.getQuantizer(), dq.getScale(),
                         dq.getZeroPoint(), dq.getType());
      if (mlir::failed(type))
        return failure();
      Value quantized = quant::StorageCastOp::create(
          builder, loc, withElementType(dq.getInput().getType(), *type),
          dq.getInput());
      Value result = quant::DequantizeCastOp::create(builder, loc,
                                                     dq.getType(), quantized);
      dq.replaceAllUsesWith(result);
      dq.erase();
      return success();
    }
    auto fake = cast<FakeQuantOp>(op);
    FailureOr<quant::QuantizedType> type =
        getUniformType(fake, fake.getQuantizer(), fake.getScale(),
                       fake.getZeroPoint(), fake.getType());
    if (mlir::failed(type))
      return failure();
    Value quantized = quant::QuantizeCastOp::create(
        builder, loc, withElementType(fake.getType(), *type), fake.getInput());
    Value result = quant::DequantizeCastOp::create(builder, loc,
                                                   fake.getType(), quantized);
    fake.replaceAllUsesWith(result);
    fake.erase();
    return success();
  }
};

//===----------------------------------------------------------------------===//
// quant-to-qdq
//===----------------------------------------------------------------------===//

struct QuantToQDQPass
    : quant_qdq::impl::QuantToQDQBase<QuantToQDQPass> {
  void runOnOperation() override {
    // Quantized values by their storage integers, in program order.
    llvm::DenseMap<Value, Value> storageOf;
    SmallVector<Operation *> converted;
    WalkResult result = getOperation()->walk([&](Operation *op) {
      if (failed(convert(op, storageOf, converted)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    // The casts whose quantized values nothing else reads.
    for (Operation *op : llvm::reverse(converted))
      if (op->use_empty())
        op->erase();
  }

  /// The storage integers of the quantized value `value`: from the map, or
  /// a storage cast of it.
  Value getStorage(OpBuilder &builder, Value value,
                   llvm::DenseMap<Value, Value> &storageOf) {
    if (Value storage = storageOf.lookup(value))
      return storage;
    auto type = cast<quant::QuantizedType>(getElementTypeOrSelf(value));
    Value storage = quant::StorageCastOp::create(
        builder, value.getLoc(),
        withElementType(value.getType(), type.getStorageType()), value);
    storageOf[value] = storage;
    return storage;
  }

  LogicalResult convert(Operation *op, llvm::DenseMap<Value, Value> &storageOf,
                        SmallVectorImpl<Operation *> &converted) {
    OpBuilder builder(op);
    Location loc = op->getLoc();
    auto build = [&](auto opType, Value input, Type resultType,
                     const QuantizerParams &params) {
      using OpTy = decltype(opType);
      // Zero points only where one is not 0, as the ops are written.
      bool zeros = llvm::all_of(params.zeroPoints,
                                [](int32_t zp) { return zp == 0; });
      return OpTy::create(builder, loc, resultType, input, params.quantizer,
                          builder.getDenseF32ArrayAttr(params.scales),
                          zeros ? DenseI32ArrayAttr()
                                : builder.getDenseI32ArrayAttr(
                                      params.zeroPoints))
          .getResult();
    };
    if (auto qcast = dyn_cast<quant::QuantizeCastOp>(op)) {
      Type element = getElementTypeOrSelf(qcast.getType());
      FailureOr<QuantizerParams> params = getQuantizerParams(
          op, element, cast<ShapedType>(qcast.getType()).getShape());
      if (failed(params))
        return failure();
      Type storage = withElementType(
          qcast.getType(),
          cast<quant::QuantizedType>(element).getStorageType());
      storageOf[qcast.getResult()] =
          build(QuantizeOp(), qcast.getInput(), storage, *params);
      converted.push_back(op);
      return success();
    }
    if (auto scast = dyn_cast<quant::StorageCastOp>(op)) {
      Value input = scast.getInput();
      if (isa<quant::QuantizedType>(getElementTypeOrSelf(scast.getType()))) {
        storageOf[scast.getResult()] = input;
      } else {
        scast.replaceAllUsesWith(getStorage(builder, input, storageOf));
      }
      converted.push_back(op);
      return success();
    }
    if (auto dcast = dyn_cast<quant::DequantizeCastOp>(op)) {
      Type element = getElementTypeOrSelf(dcast.getInput().getType());
      FailureOr<QuantizerParams> params = getQuantizerParams(
          op, element, cast<ShapedType>(dcast.getInput().getType()).getShape());
      if (failed(params))
        return failure();
      Value storage = getStorage(builder, dcast.getInput(), storageOf);
      dcast.replaceAllUsesWith(
          build(DequantizeOp(), storage, dcast.getType(), *params));
      converted.push_back(op);
      return success();
    }
    return success();
  }
};
} // namespace
