//===- SplitBatch.cpp - run a batch's independent samples in groups -------===//
//
// Layer by layer over a whole batch, each activation of a batch of 8 is 8
// times the size of one sample's: ResNet-50's and MobileNet-v2's leave the
// caches between a layer and the next, and a run costs 15-20% more per
// image than eight runs of one image. Where every sample of a function's
// batch is computed independently of the others, the same function over a
// group of samples, called once per group, keeps the activations in cache.
//
// "Independently" is proved, not assumed (SampleAnalysis.h). The group's
// function is then the same ops with the samples' factor shrunk: shape
// computations folded for the whole batch stay as they are.
//
//===----------------------------------------------------------------------===//

#include "SampleAnalysis.h"
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
using namespace mlir::quant_qdq;

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
