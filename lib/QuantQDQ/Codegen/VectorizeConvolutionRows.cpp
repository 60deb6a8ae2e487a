//===- VectorizeConvolutionRows.cpp - register tiles of output rows -------===//
//
// qdq-convolutions-as-matmuls turns ungrouped convolutions into contractions;
// depthwise and grouped ones stay convolutions and, lowered to loops, make
// one scalar multiply-add per iteration (44% of the samples in
// MobileNet-v2's compiled code). In NCHW the output's contiguous dimension
// is an output image column, and the filter does not depend on it, so a
// vector of columns is a broadcast filter tap times a vector of input
// columns: contiguous at stride 1, the even lanes of two vectors at stride
// 2. This pass writes each such convolution on static f32 buffers as
// register tiles of `rows` output rows by `vectors` vectors of `width`
// columns: accumulators read once, every filter tap unrolled into one FMA
// per accumulator (input vectors shared by the rows that read them), the
// input channels of a group as a loop around the taps, the accumulators
// written back once. Vectors past a row's end, or whose reads would pass
// the input row's end, are masked. Each output element sums its terms
// channel by channel, each channel's taps in order, as FMAs: the order of
// the loops qdq-reduction-loop-order leaves.
//
//===----------------------------------------------------------------------===//

#include "ContiguousBuffers.h"
#include "LinearIndex.h"
#include "QuantQDQ/Codegen/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <map>

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_VECTORIZECONVOLUTIONROWS
#include "QuantQDQ/Codegen/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;
using mlir::quant_qdq::isContiguousF32Buffer;

/// A filter window of more taps than this (an unrolled tile's code grows
/// with it) stays loops.
static constexpr int64_t kMaxUnrolledTaps = 64;

namespace {
/// A convolution this pass vectorizes, and how.
struct ConvolutionRows {
  linalg::LinalgOp op;
  /// The loop of the output's contiguous dimension, and its stride in the
  /// input (1 or 2).
  unsigned column;
  int64_t columnStride;
  /// The other output image loop, when there is one (NCHW's oh).
  std::optional<unsigned> row;
  /// Loops around the tiles (batch, groups, a group's output channels) and
  /// the filter's loops: input channels, then the unrolled window.
  SmallVector<unsigned> outer, channels, window;
};
} // namespace

/// Whether `op`'s body is `out + in * filter` (an FMA of its operands).
static bool isMultiplyAccumulate(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  if (body->getNumArguments() != 3 ||
      !llvm::hasNItems(body->without_terminator(), 2))
    return false;
  auto mul = dyn_cast<arith::MulFOp>(body->front());
  auto add = dyn_cast<arith::AddFOp>(*std::next(body->begin()));
  auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
  if (!mul || !add || !yield || yield.getValues().size() != 1 ||
      yield.getValues()[0] != add.getResult())
    return false;
  auto is = [&](Value a, Value b, Value x, Value y) {
    return (a == x && b == y) || (a == y && b == x);
  };
  return is(mul.getLhs(), mul.getRhs(), body->getArgument(0),
            body->getArgument(1)) &&
         is(add.getLhs(), add.getRhs(), body->getArgument(2), mul);
}

/// `op` as a convolution of output rows, or nullopt where this pass leaves
/// it alone.
static std::optional<ConvolutionRows>
matchConvolutionRows(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !isMultiplyAccumulate(op))
    return std::nullopt;
  OpOperand *input = op.getDpsInputOperand(0);
  OpOperand *filter = op.getDpsInputOperand(1);
  OpOperand *output = op.getDpsInitOperand(0);
  if (!isContiguousF32Buffer(input->get()) ||
      !isContiguousF32Buffer(output->get()) ||
      !isa<MemRefType>(filter->get().getType()) ||
      !cast<MemRefType>(filter->get().getType()).hasStaticShape())
    return std::nullopt;
  // Every loop runs at least once, and the output is none of the inputs.
  SmallVector<int64_t> bounds = op.getStaticLoopRanges();
  if (llvm::any_of(bounds, [](int64_t b) { return b <= 0; }) ||
      output->get() == input->get() || output->get() == filter->get())
    return std::nullopt;
  FailureOr<linalg::ConvolutionDimensions> dims =
      linalg::inferConvolutionDims(op);
  if (failed(dims))
    return std::nullopt;

  ConvolutionRows conv;
  conv.op = op;
  unsigned numLoops = op.getNumLoops();
  AffineMap outputMap = op.getMatchingIndexingMap(output);
  AffineMap inputMap = op.getMatchingIndexingMap(input);
  AffineMap filterMap = op.getMatchingIndexingMap(filter);
  // The output is indexed by parallel loops, each once, the column last.
  if (!outputMap.isProjectedPermutation())
    return std::nullopt;
  for (AffineExpr e : outputMap.getResults())
    if (op.getIteratorTypesArray()[cast<AffineDimExpr>(e).getPosition()] !=
        utils::IteratorType::parallel)
      return std::nullopt;
  auto column = cast<AffineDimExpr>(outputMap.getResults().back());
  if (!llvm::is_contained(dims->outputImage, column.getPosition()))
    return std::nullopt;
  conv.column = column.getPosition();
  // Only the input's last index moves along the column, by its stride;
  // the filter stays put.
  if (filterMap.isFunctionOfDim(conv.column))
    return std::nullopt;
  for (AffineExpr e : inputMap.getResults().drop_back())
    if (e.isFunctionOfDim(conv.column))
      return std::nullopt;
  if (!llvm::all_of(inputMap.getResults(),
                    [](AffineExpr e) { return e.isPureAffine(); }))
    return std::nullopt;
  std::optional<int64_t> stride = quant_qdq::getLinearCoefficient(
      inputMap.getResults().back(), conv.column, numLoops);
  if (!stride || (*stride != 1 && *stride != 2))
    return std::nullopt;
  conv.columnStride = *stride;

  // Every loop has a role: parallel ones are the tile's or around it,
  // reductions are the filter's.
  int64_t taps = 1;
  for (unsigned d = 0; d < numLoops; ++d) {
    if (d == conv.column)
      continue;
    if (llvm::is_contained(dims->outputImage, d) && !conv.row) {
      conv.row = d;
    } else if (llvm::is_contained(dims->filterLoop, d)) {
      conv.window.push_back(d);
      taps *= bounds[d];
    } else if (llvm::is_contained(dims->inputChannel, d)) {
      conv.channels.push_back(d);
    } else if (op.getIteratorTypesArray()[d] ==
               utils::IteratorType::parallel) {
      conv.outer.push_back(d);
    } else {
      return std::nullopt;
    }
  }
  // The input's last index may depend on the window (the column's kernel
  // position) but on no loop around the tiles: the masks are decided once.
  for (unsigned d : llvm::concat<unsigned>(conv.outer, conv.channels))
    if (inputMap.getResults().back().isFunctionOfDim(d))
      return std::nullopt;
  // A tile's rows share their filter values.
  if (conv.row && (inputMap.getResults().back().isFunctionOfDim(*conv.row) ||
                   filterMap.isFunctionOfDim(*conv.row)))
    return std::nullopt;
  // The loops around the tiles are the output's.
  for (unsigned d : conv.outer)
    if (!outputMap.isFunctionOfDim(d))
      return std::nullopt;
  if (taps > kMaxUnrolledTaps)
    return std::nullopt;
  // The loops around the tiles follow the output's layout.
  llvm::sort(conv.outer, [&](unsigned a, unsigned b) {
    return *outputMap.getResultPosition(getAffineDimExpr(a, op.getContext())) <
           *outputMap.getResultPosition(getAffineDimExpr(b, op.getContext()));
  });
  return conv;
}

namespace {
/// Emits the register tiles of one convolution.
class TileEmitter {
public:
  TileEmitter(const ConvolutionRows &conv, int64_t width)
      : conv(conv), op(conv.op), width(width),
        bounds(op.getStaticLoopRanges()),
        vectorType(
            VectorType::get({width}, Float32Type::get(op.getContext()))) {}

  /// Replaces the convolution by loops of tiles.
  void emit(int64_t rows, int64_t vectors);

private:
  /// One tile at the loop positions `dims` (the row and column loops'
  /// values are the tile's first row and column): `rows` rows by `vectors`
  /// vectors, masked when `inBounds` is false.
  void emitTile(OpBuilder &b, SmallVector<Value> dims, int64_t rows,
                int64_t vectors, bool inBounds);

  /// The indices of `operand` at the loop positions `dims`, each moved by
  /// `offsets` (a constant per loop).
  SmallVector<Value> getIndices(OpBuilder &b, OpOperand *operand,
                                ArrayRef<Value> dims,
                                ArrayRef<int64_t> offsets);

  /// The number of leading column vectors whose output and input reads all
  /// lie inside their rows.
  int64_t countInBoundsVectors();

  Value constant(OpBuilder &b, int64_t value) {
    return arith::ConstantIndexOp::create(b, op.getLoc(), value);
  }

  const ConvolutionRows &conv;
  linalg::LinalgOp op;
  int64_t width;
  SmallVector<int64_t> bounds;
  VectorType vectorType;
};
} // namespace

SmallVector<Value> TileEmitter::getIndices(OpBuilder &b, OpOperand *operand,
                                           ArrayRef<Value> dims,
                                           ArrayRef<int64_t> offsets) {
  AffineMap map = op.getMatchingIndexingMap(operand);
  MLIRContext *ctx = op.getContext();
  SmallVector<AffineExpr> moved;
  for (unsigned d = 0; d < map.getNumDims(); ++d)
    moved.push_back(getAffineDimExpr(d, ctx) + offsets[d]);
  SmallVector<OpFoldResult> operands = getAsOpFoldResult(dims);
  SmallVector<Value> indices;
  for (AffineExpr e : map.getResults())
    indices.push_back(getValueOrCreateConstantIndexOp(
        b, op.getLoc(),
        affine::makeComposedFoldedAffineApply(
            b, op.getLoc(),
            AffineMap::get(map.getNumDims(), 0, e.replaceDims(moved)),
            operands)));
  return indices;
}

int64_t TileEmitter::countInBoundsVectors() {
  AffineMap inputMap = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap last = inputMap.getSubMap({inputMap.getNumResults() - 1});
  int64_t inputWidth =
      cast<MemRefType>(op.getDpsInputOperand(0)->get().getType())
          .getShape()
          .back();
  int64_t columns = bounds[conv.column], count = 0;
  for (int64_t start = 0; start + width <= columns; start += width) {
    // The last window position reads furthest (dilations are positive).
    SmallVector<int64_t> at(bounds.size(), 0);
    at[conv.column] = start;
    for (unsigned d : conv.window)
      at[d] = bounds[d] - 1;
    int64_t first = last.compose(at)[0];
    if (first + conv.columnStride * width > inputWidth)
      break;
    ++count;
  }
  return count;
}

void TileEmitter::emitTile(OpBuilder &b, SmallVector<Value> dims,
                           int64_t rows, int64_t vectors, bool inBounds) {
  Location loc = op.getLoc();
  OpOperand *input = op.getDpsInputOperand(0);
  OpOperand *filter = op.getDpsInputOperand(1);
  OpOperand *output = op.getDpsInitOperand(0);
  Value padding = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  SmallVector<bool> inBoundsAttr = {inBounds};
  auto offsetsAt = [&](int64_t row, int64_t vector) {
    SmallVector<int64_t> offsets(bounds.size(), 0);
    if (conv.row)
      offsets[*conv.row] = row;
    offsets[conv.column] = vector * width;
    return offsets;
  };

  SmallVector<Value> accumulators;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t v = 0; v < vectors; ++v)
      accumulators.push_back(vector::TransferReadOp::create(
          b, loc, vectorType, output->get(),
          getIndices(b, output, dims, offsetsAt(r, v)), padding,
          inBoundsAttr));

  // The input channels of a group: a loop carrying the accumulators.
  OpBuilder::InsertionGuard guard(b);
  SmallVector<scf::ForOp> channelLoops;
  for (unsigned d : conv.channels) {
    if (bounds[d] == 1)
      continue;
    auto loop = scf::ForOp::create(b, loc, constant(b, 0),
                                   constant(b, bounds[d]), constant(b, 1),
                                   accumulators);
    b.setInsertionPointToStart(loop.getBody());
    dims[d] = loop.getInductionVar();
    accumulators.assign(loop.getRegionIterArgs().begin(),
                        loop.getRegionIterArgs().end());
    channelLoops.push_back(loop);
  }

  // Input vectors by where they lie relative to the tile's first: rows at
  // stride 1 share them.
  AffineMap inputMap = op.getMatchingIndexingMap(input);
  SmallVector<int64_t> origin =
      inputMap.compose(SmallVector<int64_t>(bounds.size(), 0));
  std::map<SmallVector<int64_t>, Value> inputs;
  auto readInput = [&](SmallVector<int64_t> offsets) -> Value {
    SmallVector<int64_t> key = inputMap.compose(offsets);
    for (auto [k, o] : llvm::zip(key, origin))
      k -= o;
    auto [it, inserted] = inputs.try_emplace(key, Value());
    if (!inserted)
      return it->second;
    SmallVector<Value> indices = getIndices(b, input, dims, offsets);
    Value first = vector::TransferReadOp::create(
        b, loc, vectorType, input->get(), indices, padding, inBoundsAttr);
    if (conv.columnStride == 2) {
      // Lanes 0, 2, 4, ... of two consecutive vectors.
      indices.back() = getValueOrCreateConstantIndexOp(
          b, loc,
          affine::makeComposedFoldedAffineApply(
              b, loc, b.getAffineDimExpr(0) + width, {indices.back()}));
      Value second = vector::TransferReadOp::create(
          b, loc, vectorType, input->get(), indices, padding, inBoundsAttr);
      SmallVector<int64_t> even;
      for (int64_t lane = 0; lane < width; ++lane)
        even.push_back(2 * lane);
      first = vector::ShuffleOp::create(b, loc, first, second,
                                        b.getDenseI64ArrayAttr(even));
    }
    it->second = first;
    return first;
  };

  // The window, unrolled: one broadcast filter value per tap.
  SmallVector<int64_t> tap(conv.window.size(), 0);
  while (true) {
    SmallVector<int64_t> offsets(bounds.size(), 0);
    for (auto [d, position] : llvm::zip(conv.window, tap))
      offsets[d] = position;
    Value weight = memref::LoadOp::create(
        b, loc, filter->get(), getIndices(b, filter, dims, offsets));
    Value weights = vector::BroadcastOp::create(b, loc, vectorType, weight);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t v = 0; v < vectors; ++v) {
        SmallVector<int64_t> at = offsetsAt(r, v);
        for (unsigned d : conv.window)
          at[d] = offsets[d];
        Value &acc = accumulators[r * vectors + v];
        acc = vector::FMAOp::create(b, loc, readInput(at), weights, acc);
      }
    // Next tap, the last window loop fastest.
    int64_t i = tap.size() - 1;
    for (; i >= 0; --i) {
      if (++tap[i] < bounds[conv.window[i]])
        break;
      tap[i] = 0;
    }
    if (i < 0)
      break;
  }

  for (scf::ForOp loop : llvm::reverse(channelLoops)) {
    scf::YieldOp::create(b, loc, accumulators);
    b.setInsertionPointAfter(loop);
    accumulators.assign(loop.getResults().begin(), loop.getResults().end());
  }
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t v = 0; v < vectors; ++v)
      vector::TransferWriteOp::create(
          b, loc, accumulators[r * vectors + v], output->get(),
          getIndices(b, output, dims, offsetsAt(r, v)), inBoundsAttr);
}

void TileEmitter::emit(int64_t rows, int64_t vectors) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value zero = constant(b, 0);
  SmallVector<Value> dims(bounds.size(), zero);
  for (unsigned d : conv.outer) {
    if (bounds[d] == 1)
      continue;
    auto loop = scf::ForOp::create(b, loc, zero, constant(b, bounds[d]),
                                   constant(b, 1));
    b.setInsertionPointToStart(loop.getBody());
    dims[d] = loop.getInductionVar();
  }

  // Columns: loops of whole tiles, the in-bounds vectors left one by one,
  // then the masked ones.
  int64_t columns = bounds[conv.column];
  int64_t inBoundsVectors = countInBoundsVectors();
  int64_t allVectors = llvm::divideCeil(columns, width);
  auto emitColumns = [&](OpBuilder &rb, SmallVector<Value> at,
                         int64_t tileRows) {
    int64_t wholeTiles = inBoundsVectors / vectors;
    if (wholeTiles > 0) {
      auto loop = scf::ForOp::create(rb, loc, constant(rb, 0),
                                     constant(rb, wholeTiles * vectors * width),
                                     constant(rb, vectors * width));
      OpBuilder::InsertionGuard guard(rb);
      rb.setInsertionPointToStart(loop.getBody());
      at[conv.column] = loop.getInductionVar();
      emitTile(rb, at, tileRows, vectors, /*inBounds=*/true);
    }
    for (int64_t v = wholeTiles * vectors; v < allVectors; ++v) {
      at[conv.column] = constant(rb, v * width);
      emitTile(rb, at, tileRows, 1, /*inBounds=*/v < inBoundsVectors);
    }
  };

  int64_t height = conv.row ? bounds[*conv.row] : 1;
  rows = std::min(rows, height);
  int64_t wholeRows = height / rows * rows;
  if (conv.row && wholeRows > rows) {
    auto loop = scf::ForOp::create(b, loc, zero, constant(b, wholeRows),
                                   constant(b, rows));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> at = dims;
    at[*conv.row] = loop.getInductionVar();
    emitColumns(b, at, rows);
  } else {
    emitColumns(b, dims, rows);
  }
  if (wholeRows < height) {
    SmallVector<Value> at = dims;
    at[*conv.row] = constant(b, wholeRows);
    emitColumns(b, at, height - wholeRows);
  }
  op->erase();
}

namespace {
struct VectorizeConvolutionRowsPass
    : quant_qdq::impl::VectorizeConvolutionRowsBase<
          VectorizeConvolutionRowsPass> {
  using Base::Base;
  void runOnOperation() override {
    if (width < 2 || rows < 1 || vectors < 1) {
      getOperation()->emitError("qdq-vectorize-convolution-rows: width must "
                                "be 2 or more, rows and vectors 1 or more");
      return signalPassFailure();
    }
    SmallVector<ConvolutionRows> convolutions;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (std::optional<ConvolutionRows> conv = matchConvolutionRows(op))
        convolutions.push_back(*conv);
    });
    for (const ConvolutionRows &conv : convolutions)
      TileEmitter(conv, width).emit(rows, vectors);
  }
};
} // namespace
