//===- VectorizeChannelWindows.cpp - NHWC windows as channel vectors ------===//
//
// In NHWC a depthwise convolution or a pooling reads, for each output
// pixel, a window of input pixels whose channels are contiguous, and a
// depthwise filter's taps are contiguous along the channels too: every
// output vector of channels is a sum (or maximum) of input vectors of
// channels, times filter vectors. Lowered to loops these ops make one
// scalar multiply-add per iteration. This pass writes each such op on
// static f32 buffers as register tiles of `pixels` output pixels of a row
// by `vectors` vectors of `width` channels: accumulators read once; for
// each filter row (a loop carrying them) the filter row's vectors loaded
// once and each input vector of the window row loaded once and added to
// every pixel whose window holds it; accumulators written back once. The
// fill before the op and the element-wise op after it fold into the tiles
// where they can (ChannelWindowFusion.h).
//
//===----------------------------------------------------------------------===//

#include "ChannelWindowFusion.h"
#include "ContiguousBuffers.h"
#include "LinearIndex.h"
#include "QuantQDQ/Codegen/Passes.h"
#include "VectorBody.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <map>

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_VECTORIZECHANNELWINDOWS
#include "QuantQDQ/Codegen/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using mlir::quant_qdq::isContiguousF32Buffer;

/// Filter taps past which a window stays loops (its tile's code grows with
/// the taps of a filter row).
static constexpr int64_t kMaxRowTaps = 16;

namespace {
/// How a window's terms combine into an output element.
enum class Combine { MultiplyAdd, Maximum, Add };

/// An NHWC window op this pass writes as channel vectors.
struct ChannelWindow {
  Operation *op;
  Combine combine;
  Value input, filter, output; // filter: a depthwise one's taps, else null
  /// What fills the output before the op, which a tile computes instead of
  /// loading its accumulators (see ChannelWindowFusion.h); may be null.
  Operation *init = nullptr;
  /// The element-wise op a tile applies to its accumulators, storing its
  /// result instead of them; may be null.
  linalg::GenericOp epilogue;
  int64_t batch, height, width, channels, windowHeight, windowWidth;
  int64_t strides[2], dilations[2];
};
} // namespace

/// How `op`'s body combines its image's element (argument 0) and, for a
/// multiply-add, its filter's (argument 1) into its output's, or nothing.
static std::optional<Combine> getCombine(linalg::LinalgOp op) {
  Block &body = op->getRegion(0).front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (yield.getNumOperands() != 1 || body.getNumArguments() != 3)
    return std::nullopt;
  Value in = body.getArgument(0), tap = body.getArgument(1),
        out = body.getArgument(2);
  Operation *last = yield.getOperand(0).getDefiningOp();
  if (!last || last->getBlock() != &body)
    return std::nullopt;
  auto reads = [](Operation *op, Value a, Value b) {
    return (op->getOperand(0) == a && op->getOperand(1) == b) ||
           (op->getOperand(0) == b && op->getOperand(1) == a);
  };
  size_t ops = body.getOperations().size() - 1; // less the yield
  if (isa<arith::MaximumFOp>(last) && ops == 1 && reads(last, out, in))
    return Combine::Maximum;
  if (!isa<arith::AddFOp>(last))
    return std::nullopt;
  if (ops == 1 && reads(last, out, in))
    return Combine::Add;
  for (Value operand : last->getOperands())
    if (auto product = operand.getDefiningOp<arith::MulFOp>();
        product && ops == 2 && reads(last, out, product) &&
        reads(product, in, tap))
      return Combine::MultiplyAdd;
  return std::nullopt;
}

/// The coefficients of loops `outer` and `inner` in `e`, when `e` is
/// exactly `outer * a + inner * b` with a, b > 0.
static std::optional<std::pair<int64_t, int64_t>>
getWindowIndex(AffineExpr e, unsigned outer, unsigned inner, unsigned loops) {
  for (unsigned d = 0; d < loops; ++d)
    if (d != outer && d != inner && e.isFunctionOfDim(d))
      return std::nullopt;
  std::optional<int64_t> a = quant_qdq::getLinearCoefficient(e, outer, loops);
  std::optional<int64_t> b = quant_qdq::getLinearCoefficient(e, inner, loops);
  SmallVector<int64_t> origin(loops, 0);
  if (!a || !b || *a <= 0 || *b <= 0 ||
      AffineMap::get(loops, 0, e).compose(origin)[0] != 0)
    return std::nullopt;
  return std::make_pair(*a, *b);
}

/// `op` as an NHWC window: output (n, oh, ow, c), image
/// (n, oh sh + kh dh, ow sw + kw dw, c), taps (kh, kw[, c]); in whatever
/// order its loops run.
static std::optional<ChannelWindow> matchChannelWindow(linalg::LinalgOp op,
                                                       int64_t width) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op->getNumRegions() != 1)
    return std::nullopt;
  std::optional<Combine> combine = getCombine(op);
  if (!combine)
    return std::nullopt;
  ChannelWindow window;
  window.op = op.getOperation();
  window.combine = *combine;
  window.input = op.getDpsInputOperand(0)->get();
  Value taps = op.getDpsInputOperand(1)->get();
  window.output = op.getDpsInitOperand(0)->get();
  if (*combine == Combine::MultiplyAdd) {
    window.filter = taps;
    if (!isContiguousF32Buffer(taps))
      return std::nullopt;
  }
  auto tapsType = dyn_cast<MemRefType>(taps.getType());
  if (!isContiguousF32Buffer(window.input) ||
      !isContiguousF32Buffer(window.output) || !tapsType ||
      !tapsType.hasStaticShape() || window.output == window.input ||
      window.output == taps)
    return std::nullopt;

  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  AffineMap inMap = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap tapsMap = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
  unsigned loops = op.getNumLoops();
  if (loops != 6 || outMap.getNumResults() != 4 ||
      !outMap.isProjectedPermutation() || inMap.getNumResults() != 4 ||
      tapsMap.getNumResults() != (window.filter ? 3 : 2) ||
      !tapsMap.isProjectedPermutation())
    return std::nullopt;
  auto dim = [](AffineMap map, unsigned i) {
    return cast<AffineDimExpr>(map.getResult(i)).getPosition();
  };
  // The batch loop is the same in the image and the output (below).
  unsigned oh = dim(outMap, 1), ow = dim(outMap, 2), c = dim(outMap, 3),
           kh = dim(tapsMap, 0), kw = dim(tapsMap, 1);
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (iterators[kh] != utils::IteratorType::reduction ||
      iterators[kw] != utils::IteratorType::reduction ||
      (window.filter && dim(tapsMap, 2) != c) ||
      inMap.getResult(0) != outMap.getResult(0) ||
      inMap.getResult(3) != outMap.getResult(3))
    return std::nullopt;
  std::optional<std::pair<int64_t, int64_t>> rows =
      getWindowIndex(inMap.getResult(1), oh, kh, loops);
  std::optional<std::pair<int64_t, int64_t>> columns =
      getWindowIndex(inMap.getResult(2), ow, kw, loops);
  if (!rows || !columns)
    return std::nullopt;
  std::tie(window.strides[0], window.dilations[0]) = *rows;
  std::tie(window.strides[1], window.dilations[1]) = *columns;
  ArrayRef<int64_t> out = cast<MemRefType>(window.output.getType()).getShape();
  window.batch = out[0];
  window.height = out[1];
  window.width = out[2];
  window.channels = out[3];
  window.windowHeight = tapsType.getDimSize(0);
  window.windowWidth = tapsType.getDimSize(1);
  if (window.channels % width != 0 || window.windowWidth > kMaxRowTaps ||
      llvm::is_contained(out, 0) || window.windowHeight == 0 ||
      window.windowWidth == 0)
    return std::nullopt;
  return window;
}

namespace {
/// Emits the register tiles of one window op in its place.
class TileEmitter {
public:
  TileEmitter(const ChannelWindow &window, int64_t width)
      : w(window), loc(window.op->getLoc()),
        vectorType(VectorType::get({width},
                                   Float32Type::get(window.op->getContext()))),
        width(width) {}

  void emit(int64_t pixels, int64_t vectors);

private:
  /// The tiles of output row `row` of sample `sample` for `vectors`
  /// channel vectors from channel `channel`.
  void emitRow(OpBuilder &b, Value sample, Value row, Value channel,
               int64_t pixels, int64_t vectors);
  /// One tile: `pixels` output pixels from `column` by `vectors` vectors.
  void emitTile(OpBuilder &b, Value sample, Value row, Value column,
                Value channel, int64_t pixels, int64_t vectors);
  /// The accumulator of the output vector at `ivs` (sample, row, column,
  /// channel) before the window's terms: the output's, or the init's.
  Value readAccumulator(OpBuilder &b, ArrayRef<Value> ivs);
  /// Stores the accumulator of the output vector at `ivs`, or the
  /// epilogue's result on it.
  void writeAccumulator(OpBuilder &b, Value accumulator, ArrayRef<Value> ivs);
  /// Erases the op, the ops folded into its tiles, and its output if that
  /// was only theirs.
  void eraseFolded();

  Value index(OpBuilder &b, int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }
  Value add(OpBuilder &b, Value base, int64_t offset) {
    return offset == 0 ? base
                       : arith::AddIOp::create(b, loc, base, index(b, offset))
                             .getResult();
  }
  Value scale(OpBuilder &b, Value value, int64_t factor) {
    return factor == 1 ? value
                       : arith::MulIOp::create(b, loc, value, index(b, factor))
                             .getResult();
  }
  Value combine(OpBuilder &b, Value acc, Value input, Value tap) {
    switch (w.combine) {
    case Combine::MultiplyAdd:
      return vector::FMAOp::create(b, loc, input, tap, acc);
    case Combine::Maximum:
      return arith::MaximumFOp::create(b, loc, acc, input);
    case Combine::Add:
      return arith::AddFOp::create(b, loc, acc, input);
    }
    llvm_unreachable("unknown combination");
  }

  /// A loop from 0 to `count` of `step` whose body `body` builds with the
  /// induction variable; none when it runs once.
  void loop(OpBuilder &b, int64_t count, int64_t step,
            function_ref<void(OpBuilder &, Value)> body) {
    if (count == step) {
      body(b, index(b, 0));
      return;
    }
    auto forOp = scf::ForOp::create(b, loc, index(b, 0), index(b, count),
                                    index(b, step));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(forOp.getBody());
    body(b, forOp.getInductionVar());
  }

  ChannelWindow w;
  Location loc;
  VectorType vectorType;
  int64_t width;
};
} // namespace

void TileEmitter::emit(int64_t pixels, int64_t vectors) {
  // After the window, where the epilogue's operands are all defined.
  OpBuilder b(w.epilogue ? w.epilogue.getOperation() : w.op);
  int64_t channelVectors = w.channels / width;
  vectors = std::min(vectors, channelVectors);
  int64_t wholeGroups = channelVectors / vectors;
  int64_t rest = channelVectors % vectors;
  loop(b, w.batch, 1, [&](OpBuilder &b, Value sample) {
    loop(b, w.height, 1, [&](OpBuilder &b, Value row) {
      loop(b, wholeGroups * vectors * width, vectors * width,
           [&](OpBuilder &b, Value channel) {
             emitRow(b, sample, row, channel, pixels, vectors);
           });
      if (rest)
        emitRow(b, sample, row, index(b, wholeGroups * vectors * width), pixels,
                rest);
    });
  });
  eraseFolded();
}

void TileEmitter::eraseFolded() {
  w.op->erase();
  if (w.init)
    w.init->erase();
  if (!w.epilogue)
    return;
  w.epilogue->erase();
  // Only its deallocations are left (findWindowEpilogue).
  Operation *allocation = w.output.getDefiningOp();
  for (Operation *user : llvm::make_early_inc_range(w.output.getUsers()))
    cast<memref::DeallocOp>(user).erase();
  allocation->erase();
}

Value TileEmitter::readAccumulator(OpBuilder &b, ArrayRef<Value> ivs) {
  if (!w.init)
    return vector::LoadOp::create(b, loc, vectorType, w.output, ivs);
  if (auto fill = dyn_cast<linalg::FillOp>(w.init))
    return vector::BroadcastOp::create(b, loc, vectorType, fill.getInputs()[0]);
  auto init = cast<linalg::GenericOp>(w.init);
  quant_qdq::VectorBody body(b, loc, width);
  body.readOperands(init, ivs, quant_qdq::kWindowChannelLoop,
                    /*inputsOnly=*/true);
  body.cloneOps(init);
  return body.lookup(init.getBody()->getTerminator()->getOperand(0));
}

void TileEmitter::writeAccumulator(OpBuilder &b, Value accumulator,
                                   ArrayRef<Value> ivs) {
  if (!w.epilogue) {
    vector::StoreOp::create(b, loc, accumulator, w.output, ivs);
    return;
  }
  quant_qdq::VectorBody body(b, loc, width);
  for (OpOperand *input : w.epilogue.getDpsInputOperands())
    if (input->get() == w.output)
      body.bind(w.epilogue.getMatchingBlockArgument(input), accumulator);
  body.readOperands(w.epilogue, ivs, quant_qdq::kWindowChannelLoop,
                    /*inputsOnly=*/true);
  body.cloneOps(w.epilogue);
  vector::StoreOp::create(
      b, loc, body.lookup(w.epilogue.getBody()->getTerminator()->getOperand(0)),
      w.epilogue.getDpsInitOperand(0)->get(), ivs);
}

void TileEmitter::emitRow(OpBuilder &b, Value sample, Value row, Value channel,
                          int64_t pixels, int64_t vectors) {
  pixels = std::min(pixels, w.width);
  int64_t whole = w.width / pixels * pixels;
  loop(b, whole, pixels, [&](OpBuilder &b, Value column) {
    emitTile(b, sample, row, column, channel, pixels, vectors);
  });
  if (whole < w.width)
    emitTile(b, sample, row, index(b, whole), channel, w.width - whole,
             vectors);
}

void TileEmitter::emitTile(OpBuilder &b, Value sample, Value row, Value column,
                           Value channel, int64_t pixels, int64_t vectors) {
  SmallVector<Value> channels;
  for (int64_t v = 0; v < vectors; ++v)
    channels.push_back(add(b, channel, v * width));
  auto outputIndices = [&](int64_t p, int64_t v) {
    return SmallVector<Value>{sample, row, add(b, column, p), channels[v]};
  };
  SmallVector<Value> accumulators;
  for (int64_t p = 0; p < pixels; ++p)
    for (int64_t v = 0; v < vectors; ++v)
      accumulators.push_back(readAccumulator(b, outputIndices(p, v)));

  // Each input column of a window row, by its offset from the tile's first
  // input column, with the (pixel, tap) pairs that read it, pixels in
  // order: a pixel's taps come in order of their columns.
  std::map<int64_t, SmallVector<std::pair<int64_t, int64_t>>> readers;
  for (int64_t p = 0; p < pixels; ++p)
    for (int64_t j = 0; j < w.windowWidth; ++j)
      readers[p * w.strides[1] + j * w.dilations[1]].push_back({p, j});

  auto windowRows = scf::ForOp::create(
      b, loc, index(b, 0), index(b, w.windowHeight), index(b, 1), accumulators,
      [&](OpBuilder &b, Location, Value i, ValueRange carried) {
        SmallVector<Value> acc(carried);
        Value inputRow = arith::AddIOp::create(
            b, loc, scale(b, row, w.strides[0]), scale(b, i, w.dilations[0]));
        Value firstColumn = scale(b, column, w.strides[1]);
        SmallVector<Value> taps; // [j * vectors + v]
        if (w.filter)
          for (int64_t j = 0; j < w.windowWidth; ++j)
            for (int64_t v = 0; v < vectors; ++v)
              taps.push_back(vector::LoadOp::create(
                  b, loc, vectorType, w.filter,
                  ValueRange{i, index(b, j), channels[v]}));
        for (auto &[offset, pairs] : readers)
          for (int64_t v = 0; v < vectors; ++v) {
            Value input = vector::LoadOp::create(
                b, loc, vectorType, w.input,
                ValueRange{sample, inputRow, add(b, firstColumn, offset),
                           channels[v]});
            for (auto [p, j] : pairs) {
              Value &a = acc[p * vectors + v];
              a = combine(b, a, input,
                          w.filter ? taps[j * vectors + v] : Value());
            }
          }
        scf::YieldOp::create(b, loc, acc);
      });
  for (int64_t p = 0; p < pixels; ++p)
    for (int64_t v = 0; v < vectors; ++v)
      writeAccumulator(b, windowRows.getResult(p * vectors + v),
                       outputIndices(p, v));
}

namespace {
struct VectorizeChannelWindowsPass
    : quant_qdq::impl::VectorizeChannelWindowsBase<
          VectorizeChannelWindowsPass> {
  using Base::Base;
  void runOnOperation() override {
    if (width < 1 || pixels < 1 || vectors < 1) {
      getOperation()->emitError("qdq-vectorize-channel-windows: width, "
                                "pixels and vectors must be 1 or more");
      return signalPassFailure();
    }
    Operation *root = getOperation();
    SmallVector<ChannelWindow> windows;
    // An op folded into one window's tiles is not folded into another's.
    DenseSet<Operation *> folded;
    auto fold = [&](Operation *op) {
      return op && folded.insert(op).second ? op : nullptr;
    };
    root->walk([&](linalg::LinalgOp op) {
      std::optional<ChannelWindow> window = matchChannelWindow(op, width);
      if (!window)
        return;
      window->init = fold(quant_qdq::findWindowInit(op, window->output, root));
      window->epilogue =
          cast_or_null<linalg::GenericOp>(fold(quant_qdq::findWindowEpilogue(
              op, window->output, window->init, root)));
      windows.push_back(*window);
    });
    for (const ChannelWindow &window : windows)
      TileEmitter(window, width).emit(pixels, vectors);
  }
};
} // namespace
