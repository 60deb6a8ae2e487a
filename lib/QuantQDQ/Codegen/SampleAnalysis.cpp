//===- SampleAnalysis.cpp - where a function's samples are ----------------===//

#include "SampleAnalysis.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace mlir::quant_qdq;

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
  int64_t bytes = 0, shared = 0;
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
    else if (isa<ShapedType>(operand.get().getType())) // not a scalar
      shared += getBytes(operand.get().getType());
  }
  bytesPerSampleOf[op] = bytes / samples;
  sharedBytesOf[op] = shared;
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
