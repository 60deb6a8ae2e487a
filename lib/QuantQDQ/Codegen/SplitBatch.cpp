//===- SplitBatch.cpp - run a batch's independent samples in groups -------===//
//
// Layer by layer over a whole batch, each activation of a batch of 8 is 8
// times the size of one sample's: ResNet-50's and MobileNet-v2's leave the
// caches between a layer and the next, and a run costs 15-20% more per
// image than eight runs of one image. Where every sample of a function's
// batch is computed independently of the others, the same function over a
// group of samples, called once per group, keeps the activations in cache.
//
// "Independently" is proved, not assumed: a forward analysis follows where
// the samples are in every tensor (a dimension, or a factor of one, that
// counts them) through linalg ops, gathers in their bodies, reshapes, pads,
// slices, concats and calibration's histograms, and gives up on anything
// that reads across samples (a reduction over them, a slice of some of
// them, an index expression, an unknown op). The group's function is then
// the same ops with that factor shrunk: shape computations folded for the
// whole batch stay as they are.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_SPLITBATCH
#include "QuantQDQ/Codegen/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;

namespace {
/// Where a tensor's samples are: dimension `dim` holds `outer * samples *
/// inner` entries, sample `s` at [o * samples * inner + s * inner, ... +
/// inner) for each `o` below `outer`. Outer factors come from reshapes that
/// merge another dimension before the samples' ([sequence, batch] into one,
/// as PyTorch's attention does).
struct SampleDim {
  int64_t dim;
  int64_t outer = 1;
  int64_t inner = 1;

  bool operator==(const SampleDim &other) const {
    return dim == other.dim && outer == other.outer && inner == other.inner;
  }
  bool operator!=(const SampleDim &other) const { return !(*this == other); }
  /// The same layout of samples in dimension `d`.
  SampleDim at(int64_t d) const { return {d, outer, inner}; }
};

/// Which tensors of a function hold its samples, and where; `run` fails
/// where some op reads across samples, saying which and why.
class SampleAnalysis {
public:
  explicit SampleAnalysis(func::FuncOp func) : func(func) {}

  LogicalResult run();

  /// The batch: the size of every argument's dimension 0.
  int64_t samples = 0;
  /// Tensors that depend on the samples. The others (weights, constants,
  /// shapes) are the same for any group.
  DenseMap<Value, SampleDim> dims;
  /// Operands that do not depend on the samples but are read along a
  /// sample dimension (a bias broadcast over the batch, a convolution's
  /// empty output): the group's function makes them its own size.
  DenseMap<OpOperand *, SampleDim> widened;
  /// Bytes per sample of the largest linalg op's tensors.
  int64_t bytesPerSample = 0;
  /// Why the function cannot be split, at the op that reads across
  /// samples.
  Operation *blocker = nullptr;
  std::string reason;

private:
  LogicalResult block(Operation *op, const Twine &why) {
    blocker = op;
    reason = why.str();
    return failure();
  }
  std::optional<SampleDim> lookup(Value value) const {
    auto it = dims.find(value);
    if (it == dims.end())
      return std::nullopt;
    return it->second;
  }
  /// Records that `operand`, which does not depend on the samples, is read
  /// along its dimension `dim`: it must hold the same values for every
  /// sample there.
  LogicalResult widen(OpOperand &operand, SampleDim where);
  LogicalResult visit(Operation *op);
  LogicalResult visitLinalg(linalg::LinalgOp op);
  LogicalResult visitExpandShape(tensor::ExpandShapeOp op, SampleDim source);
  LogicalResult visitCollapseShape(tensor::CollapseShapeOp op,
                                   SampleDim source);
  LogicalResult visitExtractSlice(tensor::ExtractSliceOp op, SampleDim source);
  LogicalResult visitInsertSlice(tensor::InsertSliceOp op);
  LogicalResult visitConcat(tensor::ConcatOp op);

  func::FuncOp func;
};
} // namespace

static int64_t getBytes(Type type) {
  auto shaped = cast<ShapedType>(type);
  return shaped.getNumElements() *
         llvm::divideCeil(shaped.getElementTypeBitWidth(), 8);
}

/// Whether loop `dim` of `op` indexes its body (linalg.index).
static bool readsLoopIndex(linalg::LinalgOp op, unsigned dim) {
  bool reads = false;
  op->walk([&](linalg::IndexOp index) { reads |= index.getDim() == dim; });
  return reads;
}

/// Whether `op` covers the whole of dimension `d` of its destination with a
/// source as large.
static bool coversDim(tensor::InsertSliceOp op, int64_t d) {
  return !op.isDynamicOffset(d) && !op.isDynamicSize(d) &&
         !op.isDynamicStride(d) && op.getStaticOffset(d) == 0 &&
         op.getStaticStride(d) == 1 &&
         op.getStaticSize(d) == op.getDestType().getDimSize(d);
}

/// Whether `value`, which does not depend on the samples, holds the same
/// entries all along its dimension `dim`, and is made by ops that can make
/// it at another size along it: an empty tensor, a splat, a fill, a
/// broadcast along `dim`, an expand_shape of one (a grouped convolution's
/// bias), an insert of one into another (a class token before the patches).
static bool isUniformAlong(Value value, int64_t dim) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return false;
  if (isa<tensor::EmptyOp, linalg::FillOp>(def))
    return true;
  if (auto constant = dyn_cast<arith::ConstantOp>(def))
    return isa<SplatElementsAttr>(constant.getValue());
  if (auto broadcast = dyn_cast<linalg::BroadcastOp>(def))
    return llvm::is_contained(broadcast.getDimensions(), dim);
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(def)) {
    // Uniform along a source dimension: along each dimension it splits into.
    for (auto [source, group] :
         llvm::enumerate(expand.getReassociationIndices()))
      if (llvm::is_contained(group, dim))
        return isUniformAlong(expand.getSrc(), source);
    return false;
  }
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(def))
    return insert.getSourceType().getRank() == insert.getDestType().getRank() &&
           coversDim(insert, dim) && isUniformAlong(insert.getSource(), dim) &&
           isUniformAlong(insert.getDest(), dim);
  auto generic = dyn_cast<linalg::GenericOp>(def);
  if (!generic || generic->getNumResults() != 1 ||
      generic.getNumLoops() != generic.getNumParallelLoops())
    return false;
  // A loop that no input reads, written to `dim`, by a body that reads
  // neither its index nor the old output.
  auto loop = dyn_cast<AffineDimExpr>(
      generic.getIndexingMapMatchingResult(cast<OpResult>(value))
          .getResult(dim));
  if (!loop || readsLoopIndex(generic, loop.getPosition()))
    return false;
  for (OpOperand *input : generic.getDpsInputOperands())
    if (generic.getMatchingIndexingMap(input).isFunctionOfDim(
            loop.getPosition()))
      return false;
  return llvm::none_of(generic.getDpsInitsMutable(), [&](OpOperand &init) {
    return generic.payloadUsesValueFromOperand(&init);
  });
}

LogicalResult SampleAnalysis::widen(OpOperand &operand, SampleDim where) {
  if (!isUniformAlong(operand.get(), where.dim))
    return block(operand.getOwner(),
                 "reads a tensor that differs from sample to sample but "
                 "does not depend on them (a constant with the batch's "
                 "size)");
  widened[&operand] = where;
  return success();
}

LogicalResult SampleAnalysis::run() {
  if (!func.getBody().hasOneBlock())
    return block(func, "has more than one block");
  for (BlockArgument arg : func.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || type.getRank() == 0 || !type.hasStaticShape())
      return block(func, "has an argument that is not a tensor of static "
                         "shape with a batch");
    if (samples && type.getDimSize(0) != samples)
      return block(func, "has arguments of different batches");
    samples = type.getDimSize(0);
    dims[arg] = {0};
  }
  if (samples == 0)
    return block(func, "has no arguments");
  for (Operation &op : func.getBody().front())
    if (failed(visit(&op)))
      return failure();
  return success();
}

LogicalResult SampleAnalysis::visit(Operation *op) {
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    return visitLinalg(linalgOp);
  // A region that reads a sample tensor defined outside reads it at
  // indices the analysis cannot follow (linalg bodies aside).
  bool capturesSamples = false;
  for (Region &region : op->getRegions())
    visitUsedValuesDefinedAbove(region, [&](OpOperand *operand) {
      capturesSamples |= dims.contains(operand->get());
    });
  if (capturesSamples)
    return block(op, "reads a sample tensor inside a region");

  // Results that do not depend on the samples (calibration's sizes of the
  // observed tensors) stay in the function, computed once.
  if (auto ret = dyn_cast<func::ReturnOp>(op)) {
    bool perSample = false;
    for (Value result : ret.getOperands()) {
      std::optional<SampleDim> where = lookup(result);
      if (where && where->outer != 1)
        return block(op, "returns samples interleaved with another "
                         "dimension");
      perSample |= where.has_value();
    }
    if (!perSample)
      return block(op, "returns nothing computed per sample");
    return success();
  }
  // Only tensors hold samples: an op none of whose tensors do (whose
  // offsets, sizes and indices are then not computed from samples either)
  // is the same for any group.
  if (llvm::none_of(op->getOperands(),
                    [&](Value v) { return dims.contains(v); }))
    return success();
  if (llvm::any_of(op->getResultTypes(), [](Type type) {
        auto shaped = dyn_cast<ShapedType>(type);
        return shaped && !shaped.hasStaticShape();
      }))
    return block(op, "has a result of dynamic shape");

  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op))
    return visitExpandShape(expand, *lookup(expand.getSrc()));
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op))
    return visitCollapseShape(collapse, *lookup(collapse.getSrc()));
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
    return visitExtractSlice(slice, *lookup(slice.getSource()));
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(op))
    return visitInsertSlice(insert);
  if (auto concat = dyn_cast<tensor::ConcatOp>(op))
    return visitConcat(concat);
  // Calibration's histograms count each row apart: one per sample where
  // the rows are the samples.
  if (auto histogram = dyn_cast<quant_qdq::HistogramOp>(op)) {
    std::optional<SampleDim> source = lookup(histogram.getInput());
    if (source->dim != 0 || histogram.getInput().getType().getRank() < 2)
      return block(op, "counts rows that are not samples");
    dims[histogram.getCounts()] = *source;
    return success();
  }
  if (auto pad = dyn_cast<tensor::PadOp>(op)) {
    std::optional<SampleDim> source = lookup(pad.getSource());
    if (!pad.getConstantPaddingValue())
      return block(op, "pads with values computed per element");
    int64_t d = source->dim;
    if (pad.getStaticLow()[d] != 0 || pad.getStaticHigh()[d] != 0)
      return block(op, "pads the sample dimension");
    dims[pad.getResult()] = *source;
    return success();
  }
  return block(op, "is not known to keep samples apart");
}

LogicalResult SampleAnalysis::visitLinalg(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics())
    return block(op, "works on buffers");
  // The loop that walks the samples: every sample operand's sample
  // dimension is that loop, and nothing else of that operand is.
  std::optional<unsigned> loop;
  SampleDim layout;
  // One loop, and the same layout of samples along it in every operand:
  // [batch x 12] and [12 x batch] have the same size but not the same
  // samples at one index.
  auto readAlong = [&](unsigned dim, SampleDim where) {
    if (loop && (*loop != dim || layout.at(0) != where.at(0)))
      return block(op, "reads samples along two loops");
    loop = dim;
    layout = where;
    return success();
  };
  for (OpOperand &operand : op->getOpOperands()) {
    std::optional<SampleDim> where = lookup(operand.get());
    if (!where)
      continue;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    auto dim = dyn_cast<AffineDimExpr>(map.getResult(where->dim));
    if (!dim)
      return block(op, "reads the samples through an index expression");
    if (failed(readAlong(dim.getPosition(), *where)))
      return failure();
  }
  // Sample tensors read in the body, as a Gather along another dimension
  // is: a tensor.extract whose index in the samples' dimension is a loop's.
  SmallVector<tensor::ExtractOp> gathers;
  bool otherReads = false;
  visitUsedValuesDefinedAbove(op->getRegions(), [&](OpOperand *use) {
    if (!dims.contains(use->get()))
      return;
    auto extract = dyn_cast<tensor::ExtractOp>(use->getOwner());
    otherReads |= !extract || use->getOperandNumber() != 0;
    if (extract)
      gathers.push_back(extract);
  });
  if (otherReads)
    return block(op, "reads a sample tensor inside its body");
  for (tensor::ExtractOp extract : gathers) {
    SampleDim where = dims.at(extract.getTensor());
    auto index =
        extract.getIndices()[where.dim].getDefiningOp<linalg::IndexOp>();
    if (!index || index->getParentOp() != op.getOperation())
      return block(op, "reads samples at a computed index");
    if (failed(readAlong(index.getDim(), where)))
      return failure();
  }
  if (!loop)
    return success(); // The same for any group.
  if (llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic))
    return block(op, "has loops of dynamic size");
  if (op.getIteratorTypesArray()[*loop] != utils::IteratorType::parallel)
    return block(op, "reduces over samples");
  // The samples' loop index may only pick the sample of a gather.
  bool computes = false;
  op->walk([&](linalg::IndexOp index) {
    if (index.getDim() != *loop)
      return;
    for (OpOperand &use : index->getUses()) {
      auto extract = dyn_cast<tensor::ExtractOp>(use.getOwner());
      computes |= !extract || !llvm::is_contained(gathers, extract) ||
                  use.getOperandNumber() !=
                      1 + dims.at(extract.getTensor()).dim;
    }
  });
  if (computes)
    return block(op, "computes with the sample's index");

  // Each operand reads the samples' loop in one dimension at most, as a
  // plain loop; a result is per sample where its output reads it.
  int64_t bytes = 0;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    std::optional<int64_t> found;
    for (auto [d, expr] : llvm::enumerate(map.getResults())) {
      if (!expr.isFunctionOfDim(*loop))
        continue;
      if (found || !isa<AffineDimExpr>(expr))
        return block(op, "reads the samples' loop in more than one place");
      found = d;
    }
    std::optional<SampleDim> where = lookup(operand.get());
    if (where && where->dim != *found)
      return block(op, "reads the samples' loop in more than one place");
    if (!where && found &&
        failed(widen(operand, layout.at(*found))))
      return failure();
    if (op.isDpsInit(&operand)) {
      if (!found)
        return block(op, "writes one result for all samples");
      dims[op.getTiedOpResult(&operand)] = layout.at(*found);
    }
    if (found)
      bytes += getBytes(operand.get().getType());
  }
  bytesPerSample = std::max(bytesPerSample, bytes / samples);
  return success();
}

LogicalResult SampleAnalysis::visitExpandShape(tensor::ExpandShapeOp op,
                                               SampleDim source) {
  // The samples stay together in the one dimension `d` of the split whose
  // dimensions before it divide `outer` and after it divide `inner`.
  ArrayRef<int64_t> shape = op.getResultType().getShape();
  ReassociationIndices group = op.getReassociationIndices()[source.dim];
  int64_t before = 1;
  for (int64_t d : group) {
    int64_t after = 1;
    for (int64_t e : group)
      after *= e > d ? shape[e] : 1;
    if (source.outer % before == 0 && source.inner % after == 0 &&
        shape[d] == source.outer / before * samples * (source.inner / after)) {
      dims[op.getResult()] = {d, source.outer / before, source.inner / after};
      return success();
    }
    before *= shape[d];
  }
  return block(op, "splits the samples apart");
}

LogicalResult SampleAnalysis::visitCollapseShape(tensor::CollapseShapeOp op,
                                                 SampleDim source) {
  ArrayRef<int64_t> shape = op.getSrcType().getShape();
  for (auto [index, group] : llvm::enumerate(op.getReassociationIndices())) {
    if (!llvm::is_contained(group, source.dim))
      continue;
    SampleDim merged{int64_t(index), source.outer, source.inner};
    for (int64_t d : group) {
      if (d < source.dim)
        merged.outer *= shape[d];
      if (d > source.dim)
        merged.inner *= shape[d];
    }
    dims[op.getResult()] = merged;
    return success();
  }
  return block(op, "has no group for the sample dimension");
}

LogicalResult SampleAnalysis::visitExtractSlice(tensor::ExtractSliceOp op,
                                                SampleDim source) {
  int64_t d = source.dim;
  if (op.isDynamicOffset(d) || op.isDynamicSize(d) || op.isDynamicStride(d) ||
      op.getStaticOffset(d) != 0 || op.getStaticStride(d) != 1 ||
      op.getStaticSize(d) != op.getSourceType().getDimSize(d))
    return block(op, "takes some of the samples");
  // A rank-reducing slice drops unit dimensions before the samples' too.
  llvm::SmallBitVector dropped = op.getDroppedDims();
  if (dropped.test(d))
    return block(op, "drops the sample dimension");
  int64_t kept = 0;
  for (int64_t i = 0; i < d; ++i)
    kept += !dropped.test(i);
  dims[op.getResult()] = source.at(kept);
  return success();
}

LogicalResult SampleAnalysis::visitInsertSlice(tensor::InsertSliceOp op) {
  if (op.getSourceType().getRank() != op.getDestType().getRank())
    return block(op, "inserts a tensor of lower rank");
  std::optional<SampleDim> source = lookup(op.getSource());
  std::optional<SampleDim> dest = lookup(op.getDest());
  SampleDim where = source ? *source : *dest;
  if ((source && dest && *source != *dest) || !coversDim(op, where.dim))
    return block(op, "inserts across samples");
  if (!source && failed(widen(op.getSourceMutable(), where)))
    return failure();
  if (!dest && failed(widen(op.getDestMutable(), where)))
    return failure();
  dims[op.getResult()] = where;
  return success();
}

LogicalResult SampleAnalysis::visitConcat(tensor::ConcatOp op) {
  std::optional<SampleDim> where;
  for (Value input : op.getInputs())
    if ((where = lookup(input)))
      break;
  if (int64_t(op.getDim()) == where->dim)
    return block(op, "concatenates along the samples");
  for (OpOperand &input : op.getInputsMutable()) {
    std::optional<SampleDim> found = lookup(input.get());
    if (found && *found != *where)
      return block(op, "concatenates samples of two dimensions");
    if (!found && failed(widen(input, *where)))
      return failure();
  }
  dims[op.getResult()] = *where;
  return success();
}

/// `type` with its samples' dimension holding `group` samples.
static RankedTensorType forGroup(Type type, SampleDim where, int64_t group) {
  auto tensor = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape(tensor.getShape());
  shape[where.dim] = where.outer * group * where.inner;
  return tensor.clone(shape);
}

/// Makes `value`, uniform along a dimension (isUniformAlong), at `type`:
/// the ops that made it, with outputs of the new size.
static Value remake(OpBuilder &builder, Value value, RankedTensorType type,
                    const IRMapping &mapping) {
  Operation *def = value.getDefiningOp();
  Location loc = def->getLoc();
  if (isa<tensor::EmptyOp>(def))
    return tensor::EmptyOp::create(builder, loc, type.getShape(),
                                   type.getElementType());
  if (auto constant = dyn_cast<arith::ConstantOp>(def))
    return arith::ConstantOp::create(
        builder, loc,
        cast<SplatElementsAttr>(constant.getValue()).resizeSplat(type));
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(def)) {
    SmallVector<int64_t> shape;
    for (const ReassociationIndices &group : expand.getReassociationIndices())
      shape.push_back(llvm::product_of(llvm::map_range(
          group, [&](int64_t d) { return type.getDimSize(d); })));
    Value source =
        remake(builder, expand.getSrc(), expand.getSrcType().clone(shape),
               mapping);
    return tensor::ExpandShapeOp::create(builder, loc, type, source,
                                         expand.getReassociationIndices());
  }
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(def)) {
    // The dimension that changes is the one the insert covers.
    SmallVector<int64_t> sizes(insert.getStaticSizes());
    SmallVector<int64_t> sourceShape(insert.getSourceType().getShape());
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.getDimSize(d) != insert.getDestType().getDimSize(d))
        sizes[d] = sourceShape[d] = type.getDimSize(d);
    Value source =
        remake(builder, insert.getSource(),
               insert.getSourceType().clone(sourceShape), mapping);
    Value dest = remake(builder, insert.getDest(), type, mapping);
    auto mapped = [&](SmallVector<OpFoldResult> values) {
      for (OpFoldResult &value : values)
        if (auto v = dyn_cast<Value>(value))
          value = mapping.lookupOrDefault(v);
      return values;
    };
    auto copy = tensor::InsertSliceOp::create(
        builder, loc, source, dest, mapped(insert.getMixedOffsets()),
        getAsIndexOpFoldResult(builder.getContext(), sizes),
        mapped(insert.getMixedStrides()));
    return copy.getResult();
  }
  // Fills, broadcasts and generics write every entry of their one output.
  Value empty = tensor::EmptyOp::create(builder, loc, type.getShape(),
                                        type.getElementType());
  // A mapping of the op's own operands and captured values only: the op's
  // regions are copied whole, with arguments of their own.
  IRMapping operands;
  auto map = [&](Value v) { operands.map(v, mapping.lookupOrDefault(v)); };
  llvm::for_each(def->getOperands(), map);
  for (Region &region : def->getRegions())
    visitUsedValuesDefinedAbove(region,
                                [&](OpOperand *use) { map(use->get()); });
  Operation *copy = builder.clone(*def, operands);
  cast<DestinationStyleOpInterface>(copy).getDpsInitsMutable()[0].set(empty);
  copy->getResult(0).setType(type);
  return copy->getResult(0);
}

/// The body of `func` for `group` samples, as a new private function.
static func::FuncOp buildGroupFunction(func::FuncOp func,
                                       const SampleAnalysis &analysis,
                                       int64_t group) {
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  SmallVector<Type> inputs, results;
  for (BlockArgument arg : func.getArguments())
    inputs.push_back(forGroup(arg.getType(), analysis.dims.at(arg), group));
  SmallVector<Value> perSample;
  for (Value result : ret.getOperands()) {
    auto where = analysis.dims.find(result);
    if (where == analysis.dims.end())
      continue;
    perSample.push_back(result);
    results.push_back(forGroup(result.getType(), where->second, group));
  }

  OpBuilder builder(func);
  auto groupFunc = func::FuncOp::create(
      builder, func.getLoc(), (func.getName() + "_samples").str(),
      builder.getFunctionType(inputs, results));
  groupFunc.setPrivate();
  Block *body = groupFunc.addEntryBlock();
  builder.setInsertionPointToStart(body);
  IRMapping mapping;
  mapping.map(func.getArguments(), body->getArguments());
  for (Operation &op : func.getBody().front().without_terminator()) {
    Operation *copy = builder.clone(op, mapping);
    for (OpOperand &operand : op.getOpOperands()) {
      auto widened = analysis.widened.find(&operand);
      if (widened == analysis.widened.end())
        continue;
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPoint(copy);
      copy->setOperand(operand.getOperandNumber(),
                       remake(builder, operand.get(),
                              forGroup(operand.get().getType(),
                                       widened->second, group),
                              mapping));
    }
    for (OpResult result : op.getResults()) {
      auto where = analysis.dims.find(result);
      if (where != analysis.dims.end())
        copy->getResult(result.getResultNumber())
            .setType(forGroup(result.getType(), where->second, group));
    }
    // Ops that spell their result's sizes out.
    if (auto expand = dyn_cast<tensor::ExpandShapeOp>(copy))
      expand.setStaticOutputShape(expand.getResultType().getShape());
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(copy)) {
      auto where = analysis.dims.find(
          cast<tensor::ExtractSliceOp>(op).getSource());
      if (where != analysis.dims.end()) {
        SmallVector<int64_t> sizes(slice.getStaticSizes());
        sizes[where->second.dim] =
            where->second.outer * group * where->second.inner;
        slice.setStaticSizes(sizes);
      }
    }
    if (auto insert = dyn_cast<tensor::InsertSliceOp>(copy)) {
      auto where = analysis.dims.find(cast<tensor::InsertSliceOp>(op)
                                          .getResult());
      if (where != analysis.dims.end()) {
        SmallVector<int64_t> sizes(insert.getStaticSizes());
        sizes[where->second.dim] =
            where->second.outer * group * where->second.inner;
        insert.setStaticSizes(sizes);
      }
    }
  }
  func::ReturnOp::create(builder, ret.getLoc(),
                         llvm::map_to_vector(perSample, [&](Value v) {
                           return mapping.lookup(v);
                         }));
  // The batch-sized ops that the group's copies replaced, and what only
  // the results that do not depend on the samples needed.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*body)))
    if (isOpTriviallyDead(&op))
      op.erase();
  return groupFunc;
}

/// Replaces `func`'s body by a loop that calls `groupFunc` on each group of
/// `group` samples and inserts its results into the whole batch's.
static void callPerGroup(func::FuncOp func, func::FuncOp groupFunc,
                         const SampleAnalysis &analysis, int64_t group) {
  Block &body = func.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  SmallVector<Operation *> old;
  for (Operation &op : body.without_terminator())
    old.push_back(&op);
  Location loc = func.getLoc();
  OpBuilder builder(ret);
  SmallVector<Value> outputs;
  SmallVector<SampleDim> resultDims;
  SmallVector<OpOperand *> perSample;
  for (OpOperand &result : ret->getOpOperands()) {
    auto where = analysis.dims.find(result.get());
    if (where == analysis.dims.end())
      continue;
    auto type = cast<RankedTensorType>(result.get().getType());
    outputs.push_back(tensor::EmptyOp::create(builder, loc, type.getShape(),
                                              type.getElementType()));
    resultDims.push_back(where->second);
    perSample.push_back(&result);
  }
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(builder, loc, v);
  };
  auto loop = scf::ForOp::create(
      builder, loc, index(0), index(analysis.samples), index(group), outputs,
      [&](OpBuilder &b, Location loc, Value first, ValueRange partial) {
        auto slice = [&](Value whole, RankedTensorType part, SampleDim where,
                         Value into) -> Value {
          int64_t rank = part.getRank();
          SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
          SmallVector<OpFoldResult> sizes, strides(rank, b.getIndexAttr(1));
          for (int64_t size : part.getShape())
            sizes.push_back(b.getIndexAttr(size));
          Value offset = first;
          if (where.inner != 1)
            offset = arith::MulIOp::create(
                b, loc, first, arith::ConstantIndexOp::create(b, loc,
                                                              where.inner));
          offsets[where.dim] = offset;
          if (into)
            return tensor::InsertSliceOp::create(b, loc, whole, into, offsets,
                                                 sizes, strides);
          return tensor::ExtractSliceOp::create(b, loc, part, whole, offsets,
                                                sizes, strides);
        };
        SmallVector<Value> args;
        for (auto [arg, type] :
             llvm::zip(func.getArguments(), groupFunc.getArgumentTypes()))
          args.push_back(
              slice(arg, cast<RankedTensorType>(type), {0}, Value()));
        auto call = func::CallOp::create(b, loc, groupFunc, args);
        SmallVector<Value> updated;
        for (auto [result, whole, where] :
             llvm::zip(call.getResults(), partial, resultDims))
          updated.push_back(slice(result,
                                  cast<RankedTensorType>(result.getType()),
                                  where, whole));
        scf::YieldOp::create(b, loc, updated);
      });
  for (auto [result, value] : llvm::zip(perSample, loop.getResults()))
    result->set(value);
  // What is left computes the results that do not depend on the samples.
  for (Operation *op : llvm::reverse(old))
    if (op->use_empty())
      op->erase();
}

namespace {
struct SplitBatch : quant_qdq::impl::SplitBatchBase<SplitBatch> {
  using SplitBatchBase::SplitBatchBase;

  void runOnOperation() override {
    if (samples < 0 || cacheBytes < 0) {
      getOperation()->emitError("qdq-split-batch: samples and cache-bytes "
                                "must not be negative");
      return signalPassFailure();
    }
    if (samples == 0 && cacheBytes == 0)
      return;
    SmallVector<func::FuncOp> funcs;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal())
        funcs.push_back(func);
    SymbolTable symbols(getOperation());
    for (func::FuncOp func : funcs)
      if (failed(split(func, symbols)))
        return signalPassFailure();
  }

  /// The largest divisor of the batch that is at most the samples asked
  /// for, or whose largest op's tensors fit `cacheBytes`; at least 1.
  int64_t chooseGroup(const SampleAnalysis &analysis) const {
    int64_t limit = samples;
    if (limit == 0)
      limit = cacheBytes / std::max<int64_t>(analysis.bytesPerSample, 1);
    for (int64_t group = std::min(limit, analysis.samples); group > 1;
         --group)
      if (analysis.samples % group == 0)
        return group;
    return 1;
  }

  LogicalResult split(func::FuncOp func, SymbolTable &symbols) {
    SampleAnalysis analysis(func);
    if (failed(analysis.run())) {
      if (explain)
        analysis.blocker->emitRemark("the batch of @")
            << func.getName() << " runs whole: "
            << (analysis.blocker == func ? "it " : "this op ")
            << analysis.reason;
      return success();
    }
    int64_t group = chooseGroup(analysis);
    if (explain) {
      InFlightDiagnostic remark = func.emitRemark("the batch of @")
                                  << func.getName();
      if (group == analysis.samples)
        remark << " runs whole";
      else
        remark << " runs in groups of " << group;
      remark << " (" << analysis.samples << " samples, "
             << analysis.bytesPerSample << " bytes a sample in its largest "
             << "op)";
    }
    if (group == analysis.samples)
      return success();
    func::FuncOp groupFunc = buildGroupFunction(func, analysis, group);
    symbols.insert(groupFunc);
    // The analysis admits only what it can shrink; a function that does
    // not verify is this pass's bug, not the model's.
    if (failed(verify(groupFunc)))
      return groupFunc.emitError("qdq-split-batch built an invalid function "
                                 "for groups of ")
             << group << " samples";
    callPerGroup(func, groupFunc, analysis, group);
    return success();
  }
};
} // namespace
