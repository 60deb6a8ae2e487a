//===- GPUKernelBuilder.cpp - the bodies of Q/DQ GPU kernels --------------===//
//
// The body of one kernel, as GPUKernelSpec.h describes it, and its name and
// launch geometry. The element arithmetic is QDQArithmetic.h's, the same
// as the CPU lowering's.
//
// Kernel shape: a 1-D grid over the tensor taken flat. A block of T threads
// covers T * U vectors of V elements (16 bytes of the widest element type);
// vector j of thread t in block b is (b * U + j) * T + t, so each of the U
// loads is coalesced across the warp, and all U are issued before the first
// is used. Only the last block checks bounds.
//
//===----------------------------------------------------------------------===//

#include "GPUKernelSpec.h"

#include "../NumberFormatArithmetic.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::quant_qdq;

static StringRef kindName(QuantOpKind kind) {
  switch (kind) {
  case QuantOpKind::Quantize:
    return "quantize";
  case QuantOpKind::Dequantize:
    return "dequantize";
  case QuantOpKind::FakeQuant:
    return "fake_quant";
  case QuantOpKind::FakeQuantGrad:
    return "fake_quant_grad";
  }
  llvm_unreachable("unknown kind");
}

static std::string typeName(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

static std::string signedName(double v) {
  return (v < 0 ? "m" : "") + std::to_string(int64_t(std::fabs(v)));
}

/// A format's TensorQuant name as part of a symbol: `ternary,1,0.5` is
/// `ternary_1_0p5`.
static std::string formatTag(NumberFormatAttr format) {
  std::string tag;
  for (char c : format.getTensorQuantName())
    tag += c == ',' ? std::string("_")
           : c == '.' ? std::string("p")
           : c == '-' ? std::string("m")
           : c == '+' ? std::string()
                      : std::string(1, c);
  return tag;
}

std::string mlir::quant_qdq::KernelSpec::name() const {
  if (format)
    return llvm::formatv("round_to_format_{0}_{1}_n{2}_{3}",
                         typeName(inElement), typeName(outElement),
                         numElements, formatTag(format))
        .str();
  std::string n =
      llvm::formatv("{0}_{1}_{2}_n{3}", kindName(kind), typeName(inElement),
                    typeName(outElement), numElements);
  if (perChannel())
    n += llvm::formatv("_c{0}x{1}", channels, inner).str();
  if (blocked())
    n += llvm::formatv("_b{0}", quantBlock).str();
  n += fp8 ? std::string(hardwareFP8 ? "_e4m3fn_cvt" : "_e4m3fn")
           : "_q" + signedName(qmin) + "_" + signedName(qmax);
  n += reciprocal ? "_rcp" : "_div";
  return n;
}

/// Bytes of one element in memory (sub-byte integers take a byte).
static int64_t storageBytes(Type type) {
  return std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
}

void mlir::quant_qdq::chooseGeometry(KernelSpec &spec, int64_t blockSize,
                                     int64_t vectorsPerThread) {
  spec.blockSize = blockSize;
  int64_t widest =
      std::max(storageBytes(spec.inElement), storageBytes(spec.outElement));
  // Sub-byte elements are a byte each in memory but LLVM packs vectors of
  // them: keep those scalar.
  bool subByte = spec.inElement.getIntOrFloatBitWidth() < 8 ||
                 spec.outElement.getIntOrFloatBitWidth() < 8;
  spec.vectorWidth = subByte ? 1 : 16 / widest;
  while (spec.numElements % spec.vectorWidth)
    spec.vectorWidth /= 2;
  spec.vectorsPerThread = vectorsPerThread;

  if (spec.perChannel() && !spec.blocked()) {
    // Channels a block can touch: its span over `inner`, plus one partial
    // slice at each end.
    auto touched = [&] {
      return std::min(spec.channels,
                      (spec.elementsPerBlock() - 1) / spec.inner + 2);
    };
    // Fewer vectors per thread keep the staged table small.
    while (touched() > 1025 && spec.vectorsPerThread > 1)
      spec.vectorsPerThread /= 2;
    // Stage when the table is small against the block's elements;
    // otherwise (channels-last) each element's channel is read directly.
    spec.staged = touched() * 8 <= spec.elementsPerBlock() ? touched() : 0;
  }
  int64_t vectors = spec.numElements / spec.vectorWidth;
  int64_t perBlock = spec.blockSize * spec.vectorsPerThread;
  spec.numBlocks = (vectors + perBlock - 1) / perBlock;
}

//===----------------------------------------------------------------------===//
// Kernel body
//===----------------------------------------------------------------------===//

namespace {
/// Builds the body of one kernel.
class KernelBuilder {
public:
  KernelBuilder(const KernelSpec &spec, gpu::GPUFuncOp func)
      : spec(spec), func(func),
        b(OpBuilder::atBlockBegin(&func.getBody().front())),
        loc(func.getLoc()) {}

  void build();

private:
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value arg(KernelArgRole role) {
    return func.getArgument(getKernelArgIndex(spec.roles(), role));
  }
  VectorType f32Vector() {
    return VectorType::get({spec.vectorWidth}, b.getF32Type());
  }
  VectorType vectorOf(Type element) {
    return VectorType::get({spec.vectorWidth}, element);
  }

  /// The thread's indices and the per-tensor parameters.
  void emitPrologue();
  /// The per-channel parameters a block needs, staged in shared memory,
  /// then a barrier: emitted after the data loads of each (block-uniform)
  /// path, so that the barrier waits while the data is in flight.
  void emitStaging();
  /// Channel parameters (f32) of flat element `element`.
  std::array<Value, 3> channelParams(Value element);
  /// The position of flat element `element`'s block in the scale tables.
  Value blockEntry(Value element);
  /// The parameters of a blocked quantizer at table entry `entry`: one
  /// scalar each, or, with `width`, that many consecutive entries.
  std::array<Value, 3> tableParams(Value entry, int64_t width = 0);
  /// The parameters of the vector starting at `element`.
  QuantArith vectorParams(Value element);
  /// The U vectors of this thread; bounds-checked when `guarded`.
  void emitVectors(bool guarded);
  Value emitLoad(Value memref, Value element, Type vectorType);
  Value compute(ValueRange data, const QuantArith &p);
  /// The E4M3FN bytes (a vector of i8) of f32 quotients, and back, through
  /// the cvt instructions of sm_89.
  Value convertToE4M3FN(Value quotients);
  Value convertFromE4M3FN(Value bytes);
  /// emitFP8Dequantize of E4M3FN `values` held in f32, for the cvt path: a
  /// bf16 or f16 result is rounded two lanes per cvt, its NaN lanes made
  /// the type's canonical NaN with integer masks on the pair.
  Value dequantizeFP8(Value values, const QuantArith &p, Type resultType);
  /// `convert` applied to lanes (2j, 2j + 1) of `vector`, the last one
  /// padded with 0 when the width is odd: the vector of the results, of
  /// `resultElement`, without the padding's.
  Value mapLanePairs(
      Value vector, Type resultElement,
      function_ref<std::pair<Value, Value>(Value, Value)> convert);
  /// round_to_format of the vector starting at `element`.
  Value computeFormat(Value data, Value element);

  const KernelSpec &spec;
  gpu::GPUFuncOp func;
  OpBuilder b;
  Location loc;
  Value threadId, blockId;
  Value scale, reciprocal, zeroPoint; // per tensor, scalars
  Value threshold;                     // ternary's own threshold
  Value tableScale, tableReciprocal, tableZeroPoint, tableFirstRow;
};
} // namespace

void KernelBuilder::emitPrologue() {
  threadId = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  blockId = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  if (spec.format) {
    if (spec.format.needsMeanMagnitude())
      threshold = memref::LoadOp::create(b, loc, arg(KernelArgRole::Threshold),
                                         index(0));
    return;
  }
  if (!spec.perChannel()) {
    Value zero = index(0);
    scale = memref::LoadOp::create(b, loc, arg(KernelArgRole::Scale), zero);
    reciprocal =
        memref::LoadOp::create(b, loc, arg(KernelArgRole::Reciprocal), zero);
    zeroPoint =
        memref::LoadOp::create(b, loc, arg(KernelArgRole::ZeroPoint), zero);
    return;
  }
}

void KernelBuilder::emitStaging() {
  // Entry k of the table is channel (firstRow + k) mod C, where firstRow is
  // the slice holding the block's first element.
  auto attributions = func.getWorkgroupAttributions();
  tableScale = attributions[0];
  tableReciprocal = attributions[1];
  tableZeroPoint = attributions[2];
  Value blockStart =
      arith::MulIOp::create(b, loc, blockId, index(spec.elementsPerBlock()));
  tableFirstRow = arith::DivUIOp::create(b, loc, blockStart, index(spec.inner));
  auto loop = scf::ForOp::create(b, loc, threadId, index(spec.staged),
                                 index(spec.blockSize));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value k = loop.getInductionVar();
    Value channel = arith::RemUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, tableFirstRow, k),
        index(spec.channels));
    // The three loads first, so that their latencies overlap.
    SmallVector<std::pair<Value, Value>, 3> staged;
    for (auto [role, table] :
         {std::pair{KernelArgRole::Scale, tableScale},
          std::pair{KernelArgRole::Reciprocal, tableReciprocal},
          std::pair{KernelArgRole::ZeroPoint, tableZeroPoint}})
      staged.push_back(
          {memref::LoadOp::create(b, loc, arg(role), channel), table});
    for (auto [value, table] : staged)
      memref::StoreOp::create(b, loc, value, table, k);
  }
  gpu::BarrierOp::create(b, loc);
}

Value KernelBuilder::blockEntry(Value element) {
  Value rest = arith::DivUIOp::create(b, loc, element, index(spec.inner));
  Value within = arith::RemUIOp::create(b, loc, element, index(spec.inner));
  Value channel = arith::RemUIOp::create(b, loc, rest, index(spec.channels));
  Value outer = arith::DivUIOp::create(b, loc, rest, index(spec.channels));
  Value block =
      arith::DivUIOp::create(b, loc, channel, index(spec.quantBlock));
  Value row = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, outer, index(spec.blocksPerSlice())),
      block);
  return arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, row, index(spec.inner)), within);
}

std::array<Value, 3> KernelBuilder::tableParams(Value entry, int64_t width) {
  std::array<Value, 3> params;
  static constexpr KernelArgRole roles[] = {
      KernelArgRole::Scale, KernelArgRole::Reciprocal,
      KernelArgRole::ZeroPoint};
  for (auto [i, role] : llvm::enumerate(roles))
    params[i] = width ? emitLoad(arg(role), entry, f32Vector())
                      : memref::LoadOp::create(b, loc, arg(role), entry)
                            .getResult();
  return params;
}

std::array<Value, 3> KernelBuilder::channelParams(Value element) {
  Value row = arith::DivUIOp::create(b, loc, element, index(spec.inner));
  if (!spec.staged) {
    Value channel = arith::RemUIOp::create(b, loc, row, index(spec.channels));
    return {
        memref::LoadOp::create(b, loc, arg(KernelArgRole::Scale), channel),
        memref::LoadOp::create(b, loc, arg(KernelArgRole::Reciprocal), channel),
        memref::LoadOp::create(b, loc, arg(KernelArgRole::ZeroPoint), channel)};
  }
  Value entry = arith::SubIOp::create(b, loc, row, tableFirstRow);
  // A block spanning more slices than there are channels wraps around.
  if (spec.staged == spec.channels)
    entry = arith::RemUIOp::create(b, loc, entry, index(spec.channels));
  return {memref::LoadOp::create(b, loc, tableScale, entry),
          memref::LoadOp::create(b, loc, tableReciprocal, entry),
          memref::LoadOp::create(b, loc, tableZeroPoint, entry)};
}

QuantArith KernelBuilder::vectorParams(Value element) {
  QuantArith p;
  p.qmin = spec.qmin;
  p.qmax = spec.qmax;
  p.fp8 = spec.fp8;
  VectorType type = f32Vector();
  auto splat = [&](Value v) {
    return vector::BroadcastOp::create(b, loc, type, v).getResult();
  };
  if (!spec.perChannel()) {
    p.scale = splat(scale);
    p.zeroPoint = splat(zeroPoint);
    if (spec.reciprocal)
      p.reciprocal = splat(reciprocal);
    return p;
  }
  if (spec.blocked()) {
    int64_t width = spec.vectorWidth;
    auto set = [&](std::array<Value, 3> params, bool vector) {
      auto as = [&](Value v) { return vector ? v : splat(v); };
      p.scale = as(params[0]);
      p.zeroPoint = as(params[2]);
      if (spec.reciprocal)
        p.reciprocal = as(params[1]);
      return p;
    };
    if (width == 1)
      return set(tableParams(blockEntry(element)), false);
    // Along a slice, the vector's scales are consecutive entries.
    if (spec.inner % width == 0)
      return set(tableParams(blockEntry(element), width), true);
    // Across slices (the axis innermost), one block holds the vector.
    if (spec.inner == 1 && spec.quantBlock % width == 0 &&
        spec.channels % width == 0)
      return set(tableParams(blockEntry(element)), false);
    SmallVector<Value> lanes[3];
    for (int64_t j = 0; j < width; ++j) {
      Value e = arith::AddIOp::create(b, loc, element, index(j));
      std::array<Value, 3> params = tableParams(blockEntry(e));
      for (int k = 0; k < 3; ++k)
        lanes[k].push_back(params[k]);
    }
    std::array<Value, 3> vectors;
    for (int k = 0; k < 3; ++k)
      vectors[k] = vector::FromElementsOp::create(b, loc, type, lanes[k]);
    return set(vectors, true);
  }
  if (spec.inner % spec.vectorWidth == 0) {
    // The whole vector lies in one channel slice.
    auto [s, r, z] = channelParams(element);
    p.scale = splat(s);
    p.zeroPoint = splat(z);
    if (spec.reciprocal)
      p.reciprocal = splat(r);
    return p;
  }
  SmallVector<Value> scales, reciprocals, zeroPoints;
  for (int64_t j = 0; j < spec.vectorWidth; ++j) {
    Value e = arith::AddIOp::create(b, loc, element, index(j));
    auto [s, r, z] = channelParams(e);
    scales.push_back(s);
    reciprocals.push_back(r);
    zeroPoints.push_back(z);
  }
  p.scale = vector::FromElementsOp::create(b, loc, type, scales);
  p.zeroPoint = vector::FromElementsOp::create(b, loc, type, zeroPoints);
  if (spec.reciprocal)
    p.reciprocal = vector::FromElementsOp::create(b, loc, type, reciprocals);
  return p;
}

Value KernelBuilder::emitLoad(Value memref, Value element, Type vectorType) {
  auto elementType = cast<VectorType>(vectorType).getElementType();
  int64_t alignment = spec.vectorWidth * storageBytes(elementType);
  auto load = vector::LoadOp::create(b, loc, vectorType, memref, element);
  load.setAlignment(uint64_t(alignment));
  return load;
}

Value KernelBuilder::mapLanePairs(
    Value vector, Type resultElement,
    function_ref<std::pair<Value, Value>(Value, Value)> convert) {
  Type element = cast<VectorType>(vector.getType()).getElementType();
  Value pad = arith::ConstantOp::create(
      b, loc, cast<TypedAttr>(b.getZeroAttr(element)));
  SmallVector<Value> results;
  for (int64_t j = 0; j < spec.vectorWidth; j += 2) {
    bool whole = j + 1 < spec.vectorWidth;
    Value lo = vector::ExtractOp::create(b, loc, vector, j);
    Value hi = whole ? vector::ExtractOp::create(b, loc, vector, j + 1)
                           .getResult()
                     : pad;
    auto [first, second] = convert(lo, hi);
    results.push_back(first);
    if (whole)
      results.push_back(second);
  }
  return vector::FromElementsOp::create(b, loc, vectorOf(resultElement),
                                        results);
}

Value KernelBuilder::convertToE4M3FN(Value quotients) {
  auto pairType = VectorType::get({2}, b.getIntegerType(8));
  Type fp8 = Float8E4M3FNType::get(b.getContext());
  return mapLanePairs(quotients, b.getIntegerType(8), [&](Value lo, Value hi) {
    // cvt puts `a` in the high byte of its 16 bits: as a vector of two
    // bytes (little endian), [b, a].
    Value pair = NVVM::ConvertF32x2ToF8x2Op::create(
        b, loc, pairType, /*a=*/hi, /*b=*/lo, NVVM::FPRoundingMode::RN,
        NVVM::SaturationMode::SATFINITE, /*relu=*/false, fp8);
    // In order: arguments' evaluation order is unspecified.
    Value first = vector::ExtractOp::create(b, loc, pair, 0);
    Value second = vector::ExtractOp::create(b, loc, pair, 1);
    return std::pair(first, second);
  });
}

Value KernelBuilder::convertFromE4M3FN(Value bytes) {
  auto pairType = VectorType::get({2}, b.getIntegerType(8));
  auto halfPair = VectorType::get({2}, b.getF16Type());
  Type fp8 = Float8E4M3FNType::get(b.getContext());
  return mapLanePairs(bytes, b.getF32Type(), [&](Value lo, Value hi) {
    Value pair = vector::FromElementsOp::create(b, loc, pairType,
                                                ValueRange{lo, hi});
    // E4M3FN values are exact in f16, and f16 in f32.
    Value halves = NVVM::ConvertF8x2ToF16x2Op::create(
        b, loc, halfPair, pair, /*relu=*/false, fp8);
    auto toF32 = [&](int64_t k) {
      Value half = vector::ExtractOp::create(b, loc, halves, k);
      return arith::ExtFOp::create(b, loc, b.getF32Type(), half).getResult();
    };
    Value first = toF32(0);
    Value second = toF32(1);
    return std::pair(first, second);
  });
}

Value KernelBuilder::dequantizeFP8(Value values, const QuantArith &p,
                                   Type resultType) {
  auto element = cast<FloatType>(getElementTypeOrSelf(resultType));
  if (element.getWidth() != 16)
    return emitFP8Dequantize(b, loc, values, p, resultType);
  // A select on the rounded lanes makes LLVM round them one at a time, and
  // cvt rounds a NaN to the GPU's own (0x7fff), not the type's: the lanes
  // are tested before the rounding and replaced in the pair's 32 bits.
  Value dequantized = emitDequantize(b, loc, values, p);
  Type i32 = b.getI32Type();
  auto word = [&](uint32_t bits) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(bits));
  };
  uint32_t nan = APFloat::getQNaN(element.getFloatSemantics())
                     .bitcastToAPInt()
                     .getZExtValue();
  auto pairType = VectorType::get({2}, element);
  return mapLanePairs(dequantized, element, [&](Value lo, Value hi) {
    Value pair = vector::FromElementsOp::create(
        b, loc, VectorType::get({2}, b.getF32Type()), ValueRange{lo, hi});
    auto wordType = VectorType::get({1}, i32);
    Value bits = vector::ExtractOp::create(
        b, loc,
        vector::BitCastOp::create(
            b, loc, wordType, arith::TruncFOp::create(b, loc, pairType, pair)),
        0);
    auto laneMask = [&](Value lane, uint32_t ones) -> Value {
      Value isNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO,
                                          lane, lane);
      return arith::SelectOp::create(b, loc, isNan, word(ones), word(0));
    };
    Value mask = arith::OrIOp::create(b, loc, laneMask(lo, 0x0000ffffu),
                                      laneMask(hi, 0xffff0000u));
    Value kept = arith::AndIOp::create(
        b, loc, bits, arith::XOrIOp::create(b, loc, mask, word(~0u)));
    Value replaced = arith::AndIOp::create(b, loc, mask, word(nan | nan << 16));
    Value canonical = vector::BitCastOp::create(
        b, loc, pairType,
        vector::FromElementsOp::create(
            b, loc, wordType,
            ValueRange{arith::OrIOp::create(b, loc, kept, replaced)}));
    Value first = vector::ExtractOp::create(b, loc, canonical, 0);
    Value second = vector::ExtractOp::create(b, loc, canonical, 1);
    return std::pair(first, second);
  });
}

Value KernelBuilder::compute(ValueRange data, const QuantArith &p) {
  Type result = vectorOf(spec.outElement);
  if (!spec.fp8 || !spec.hardwareFP8 ||
      spec.kind == QuantOpKind::FakeQuantGrad)
    return emitQuantOp(b, loc, spec.kind, data, p, result);
  // Saturation (satfinite) and rounding to nearest even are the cvt's; x /
  // scale and the dequantization are the shared arithmetic's.
  Type bytesType = vectorOf(b.getIntegerType(8));
  if (spec.kind == QuantOpKind::Dequantize) {
    Value bytes = arith::BitcastOp::create(b, loc, bytesType, data[0]);
    return dequantizeFP8(convertFromE4M3FN(bytes), p, result);
  }
  Value bytes =
      convertToE4M3FN(emitQuotient(b, loc, toF32(b, loc, data[0]), p));
  if (spec.kind == QuantOpKind::Quantize)
    return arith::BitcastOp::create(b, loc, result, bytes);
  return dequantizeFP8(convertFromE4M3FN(bytes), p, result);
}

Value KernelBuilder::computeFormat(Value data, Value element) {
  VectorType type = f32Vector();
  NumberFormatInputs inputs;
  if (threshold)
    inputs.threshold = vector::BroadcastOp::create(b, loc, type, threshold);
  if (spec.format.isStochastic()) {
    // Lane j holds element + j.
    VectorType positions = vectorOf(b.getI64Type());
    Value first = arith::IndexCastOp::create(b, loc, b.getI64Type(), element);
    auto lanes = llvm::to_vector(llvm::seq<int64_t>(0, spec.vectorWidth));
    Value offsets = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(positions, ArrayRef<int64_t>(lanes)));
    inputs.position = arith::AddIOp::create(
        b, loc, vector::BroadcastOp::create(b, loc, positions, first),
        offsets);
  }
  Value rounded =
      emitRoundToFormat(b, loc, toF32(b, loc, data), spec.format, inputs);
  return fromF32(b, loc, rounded, vectorOf(spec.outElement));
}

void KernelBuilder::emitVectors(bool guarded) {
  bool grad = spec.kind == QuantOpKind::FakeQuantGrad;
  int64_t numVectors = spec.numElements / spec.vectorWidth;
  Type inVector = vectorOf(spec.inElement);
  Value blockFirst =
      arith::MulIOp::create(b, loc, blockId, index(spec.vectorsPerThread));

  struct Slot {
    Value element, inBounds;
    SmallVector<Value, 2> data;
  };
  SmallVector<Slot> slots(spec.vectorsPerThread);
  // All loads first, so that U requests are in flight per thread.
  for (int64_t j = 0; j < spec.vectorsPerThread; ++j) {
    Value vectorIndex = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(
            b, loc, arith::AddIOp::create(b, loc, blockFirst, index(j)),
            index(spec.blockSize)),
        threadId);
    Slot &slot = slots[j];
    slot.element =
        arith::MulIOp::create(b, loc, vectorIndex, index(spec.vectorWidth));
    SmallVector<Value, 2> sources = {arg(KernelArgRole::Input)};
    if (grad)
      sources.push_back(arg(KernelArgRole::Grad));
    if (!guarded) {
      for (Value source : sources)
        slot.data.push_back(emitLoad(source, slot.element, inVector));
      continue;
    }
    slot.inBounds = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          vectorIndex, index(numVectors));
    SmallVector<Type> types(sources.size(), inVector);
    auto ifOp = scf::IfOp::create(b, loc, types, slot.inBounds,
                                  /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      SmallVector<Value> loaded;
      for (Value source : sources)
        loaded.push_back(emitLoad(source, slot.element, inVector));
      scf::YieldOp::create(b, loc, loaded);
      b.setInsertionPointToStart(ifOp.elseBlock());
      Value zero = arith::ConstantOp::create(
          b, loc, cast<TypedAttr>(b.getZeroAttr(inVector)));
      scf::YieldOp::create(b, loc, SmallVector<Value>(sources.size(), zero));
    }
    llvm::append_range(slot.data, ifOp.getResults());
  }
  // After the loads: the staging's own loads and the barrier then wait
  // while the data is in flight, not before it is asked for.
  if (!spec.format && spec.perChannel() && spec.staged)
    emitStaging();

  Value output = arg(KernelArgRole::Output);
  int64_t outAlignment = spec.vectorWidth * storageBytes(spec.outElement);
  for (Slot &slot : slots) {
    OpBuilder::InsertionGuard g(b);
    if (guarded) {
      auto ifOp = scf::IfOp::create(b, loc, slot.inBounds);
      b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    }
    Value result = spec.format
                       ? computeFormat(slot.data[0], slot.element)
                       : compute(slot.data, vectorParams(slot.element));
    auto store = vector::StoreOp::create(b, loc, result, output, slot.element);
    store.setAlignment(uint64_t(outAlignment));
  }
}

void KernelBuilder::build() {
  emitPrologue();
  int64_t numVectors = spec.numElements / spec.vectorWidth;
  int64_t perBlock = spec.blockSize * spec.vectorsPerThread;
  if (numVectors % perBlock == 0) {
    emitVectors(/*guarded=*/false);
  } else {
    // Every block but the last is full: a uniform branch keeps the checks
    // out of the common path.
    Value full = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                       blockId, index(spec.numBlocks - 1));
    auto ifOp = scf::IfOp::create(b, loc, full, /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      emitVectors(/*guarded=*/false);
      b.setInsertionPoint(ifOp.elseBlock()->getTerminator());
      emitVectors(/*guarded=*/true);
    }
  }
  gpu::ReturnOp::create(b, loc);
}

void mlir::quant_qdq::buildKernelBody(const KernelSpec &spec,
                                      gpu::GPUFuncOp func) {
  KernelBuilder(spec, func).build();
}
