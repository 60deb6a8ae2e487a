//===- SplitBatch.cpp - run a batch's independent samples in groups -------===//
//
// Layer by layer over a whole batch, each activation of a batch of 8 is 8
// times the size of one sample's: ResNet-50's and MobileNet-v2's leave the
// caches between a layer and the next, and a run costs 15-20% more per
// image than eight runs of one image. Where every sample of a function's
// batch is computed independently of the others, the same ops over a
// group of samples, called once per group, keep the activations in cache.
// Groups grow along the function, in stages: the last layers of a CNN,
// whose activations are small and weights large, read each weight once
// for more samples.
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
#include "llvm/ADT/SetVector.h"

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

/// A run of consecutive ops of a function that compute on samples, run
/// `group` samples at a time: a private function for one group, called in
/// a loop over the batch.
struct Stage {
  SmallVector<Operation *> ops;
  int64_t group = 1;
  /// The sample tensors the stage reads from before it (the function's
  /// arguments, earlier stages' results), and those it makes that later
  /// stages or the function's results read.
  SmallVector<Value> inputs, outputs;
};

/// Whether `op` computes on samples: whether a result of it holds some.
static bool isPerSample(Operation *op, const SampleAnalysis &analysis) {
  return llvm::any_of(op->getResults(), [&](Value result) {
    return analysis.dims.contains(result);
  });
}

/// Finds each stage's inputs and outputs.
static void findStageValues(func::FuncOp func, const SampleAnalysis &analysis,
                            MutableArrayRef<Stage> stages) {
  Block &body = func.getBody().front();
  DenseMap<Operation *, unsigned> stageOf;
  for (auto [index, stage] : llvm::enumerate(stages))
    for (Operation *op : stage.ops)
      stageOf[op] = index;
  for (auto [index, stage] : llvm::enumerate(stages)) {
    SetVector<Value> inputs, outputs;
    for (Operation *op : stage.ops) {
      // Operands, and what the op's regions read (a gather's table).
      op->walk([&](Operation *nested) {
        for (Value value : nested->getOperands()) {
          if (!analysis.dims.contains(value))
            continue;
          auto def = stageOf.find(value.getDefiningOp());
          if (def == stageOf.end() || def->second != index)
            inputs.insert(value);
        }
      });
      for (Value result : op->getResults()) {
        if (!analysis.dims.contains(result))
          continue;
        if (llvm::any_of(result.getUsers(), [&](Operation *user) {
              auto top = stageOf.find(body.findAncestorOpInBlock(*user));
              return top == stageOf.end() || top->second != index;
            }))
          outputs.insert(result);
      }
    }
    stage.inputs = inputs.takeVector();
    stage.outputs = outputs.takeVector();
  }
}

/// The ops of `stage`, for `stage.group` samples, as a new private
/// function: its ops, and what the samples do not depend on that they
/// read (weights, shapes, empty tensors), each made for the group.
static func::FuncOp buildStageFunction(func::FuncOp func,
                                       const SampleAnalysis &analysis,
                                       const Stage &stage, StringRef name) {
  int64_t group = stage.group;
  auto typesOf = [&](ArrayRef<Value> values) {
    return llvm::map_to_vector(values, [&](Value value) -> Type {
      return forGroup(value.getType(), analysis.dims.at(value), group);
    });
  };
  OpBuilder builder(func);
  auto groupFunc = func::FuncOp::create(
      builder, func.getLoc(), name,
      builder.getFunctionType(typesOf(stage.inputs), typesOf(stage.outputs)));
  groupFunc.setPrivate();
  Block *body = groupFunc.addEntryBlock();
  builder.setInsertionPointToStart(body);
  IRMapping mapping;
  mapping.map(stage.inputs, body->getArguments());
  DenseSet<Operation *> members(llvm::from_range, stage.ops);
  for (Operation &op : func.getBody().front().without_terminator()) {
    if (isPerSample(&op, analysis) && !members.contains(&op))
      continue;
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
  func::ReturnOp::create(builder, func.getLoc(),
                         llvm::map_to_vector(stage.outputs, [&](Value v) {
                           return mapping.lookup(v);
                         }));
  // The batch-sized ops that the group's copies replaced, and what only
  // other stages read.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*body)))
    if (isOpTriviallyDead(&op))
      op.erase();
  return groupFunc;
}

/// Calls `groupFunc`, `stage`'s function, on each group of the batch, at
/// `builder`'s position in the batch's function: a loop that reads each
/// group's part of the stage's inputs (the batch's tensors that `batch`
/// maps them to) and inserts its results into the whole batch's, which
/// `batch` then maps the stage's outputs to.
static void callPerGroup(OpBuilder &builder, func::FuncOp groupFunc,
                         const SampleAnalysis &analysis, const Stage &stage,
                         IRMapping &batch) {
  Location loc = groupFunc.getLoc();
  SmallVector<Value> outputs;
  for (Value output : stage.outputs) {
    auto type = cast<RankedTensorType>(output.getType());
    outputs.push_back(tensor::EmptyOp::create(builder, loc, type.getShape(),
                                              type.getElementType()));
  }
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(builder, loc, v);
  };
  auto loop = scf::ForOp::create(
      builder, loc, index(0), index(analysis.samples), index(stage.group),
      outputs,
      [&](OpBuilder &b, Location loc, Value first, ValueRange partial) {
        // The group's part of `whole` (a tensor of the batch), or `whole`
        // (a group's) inserted into `into`.
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
        for (auto [input, type] :
             llvm::zip_equal(stage.inputs, groupFunc.getArgumentTypes()))
          args.push_back(slice(batch.lookupOrDefault(input),
                               cast<RankedTensorType>(type),
                               analysis.dims.at(input), Value()));
        auto call = func::CallOp::create(b, loc, groupFunc, args);
        SmallVector<Value> updated;
        for (auto [result, whole, output] :
             llvm::zip_equal(call.getResults(), partial, stage.outputs))
          updated.push_back(slice(result,
                                  cast<RankedTensorType>(result.getType()),
                                  analysis.dims.at(output), whole));
        scf::YieldOp::create(b, loc, updated);
      });
  for (auto [output, result] :
       llvm::zip_equal(stage.outputs, loop.getResults()))
    batch.map(output, result);
}

/// The bytes a sample that a cut before each of `ops` (the function's ops
/// that compute on samples, in order) moves through memory: each tensor
/// it passes on is written to the batch's and read back. An argument is in
/// memory already, and a result is written there anyway.
static SmallVector<double> getBytesPassed(Block &body,
                                          const SampleAnalysis &analysis,
                                          ArrayRef<Operation *> ops) {
  int64_t count = ops.size();
  DenseMap<Operation *, int64_t> position;
  for (auto [i, op] : llvm::enumerate(ops))
    position[op] = i;
  SmallVector<double> crossing(count + 1, 0);
  for (auto [i, op] : llvm::enumerate(ops))
    for (Value result : op->getResults()) {
      if (!analysis.dims.contains(result))
        continue;
      int64_t last = i;
      bool returned = false;
      for (Operation *user : result.getUsers()) {
        auto at = position.find(body.findAncestorOpInBlock(*user));
        if (at == position.end())
          returned = true;
        else
          last = std::max(last, at->second);
      }
      auto type = cast<ShapedType>(result.getType());
      double bytes = double(type.getNumElements()) *
                     double(type.getElementTypeBitWidth()) / 8 /
                     analysis.samples;
      crossing[i + 1] += (returned ? 1 : 2) * bytes;
      crossing[last + 1] -= (returned ? 1 : 2) * bytes;
    }
  for (int64_t j = 1; j <= count; ++j)
    crossing[j] += crossing[j - 1];
  return crossing;
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

  /// The largest divisor of `batch` that is at most the samples asked for,
  /// or whose op's tensors, `bytes` a sample, fit `cacheBytes`; at least 1.
  int64_t chooseGroup(int64_t batch, int64_t bytes) const {
    int64_t limit = samples;
    if (limit == 0)
      limit = cacheBytes / std::max<int64_t>(bytes, 1);
    for (int64_t group = std::min(limit, batch); group > 1; --group)
      if (batch % group == 0)
        return group;
    return 1;
  }

  /// The ops of `func` that compute on samples, cut into stages. Each op
  /// may run in the largest group that its tensors and those of every op
  /// after it allow: groups only grow along the function. A CNN's first
  /// layers, whose activations are large, then run a sample or two at a
  /// time, and its last, whose weights are large and activations small, on
  /// more samples, each weight read once for all of them. Between two
  /// stages the tensors still to be read leave the cache for the batch's,
  /// so where a larger group may start, the cut goes where that costs least
  /// against the weights the larger group reads less often, or nowhere
  /// (costs in bytes moved a sample: a weight read once per group, a
  /// tensor that crosses the cut written and read back). A stage that reads
  /// samples interleaved with another dimension (which a group's slice
  /// cannot take) joins the stage before it.
  SmallVector<Stage> partition(func::FuncOp func,
                               const SampleAnalysis &analysis) const {
    Block &body = func.getBody().front();
    SmallVector<Operation *> ops;
    for (Operation &op : body.without_terminator())
      if (isPerSample(&op, analysis))
        ops.push_back(&op);
    int64_t count = ops.size();
    if (count == 0)
      return {};
    int64_t batch = analysis.samples;
    // The largest group of each op: the smallest that it or a later op's
    // tensors allow. Ops with no tensors of their own (reshapes, slices)
    // after the last that has take the group before them.
    constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max();
    SmallVector<int64_t> groups(count, kUnbounded);
    for (int64_t i = count - 1, later = kUnbounded; i >= 0; --i) {
      auto bytes = analysis.bytesPerSampleOf.find(ops[i]);
      if (bytes != analysis.bytesPerSampleOf.end())
        later = std::min(later, chooseGroup(batch, bytes->second));
      groups[i] = later;
    }
    for (int64_t i = 0; i < count; ++i)
      if (groups[i] == kUnbounded)
        groups[i] = i == 0 ? chooseGroup(batch, 0) : groups[i - 1];

    SmallVector<double> crossing = getBytesPassed(body, analysis, ops);

    // Where each larger group may start, from its first op (after the
    // last op that needs a smaller one) to the next larger group's start.
    SmallVector<std::pair<int64_t, int64_t>> cuts = {{0, groups[0]}};
    for (int64_t start = 1; start < count; ++start) {
      if (groups[start] == groups[start - 1])
        continue;
      int64_t end = start;
      while (end < count && groups[end] == groups[start])
        ++end;
      double saving = 1.0 / cuts.back().second - 1.0 / groups[start];
      double cost = 0, best = 0;
      std::optional<int64_t> bestCut;
      // Not cutting: every op of the range reads its weights as often as
      // the smaller group does.
      for (int64_t j = start; j < end; ++j)
        best += saving * analysis.sharedBytesOf.lookup(ops[j]);
      for (int64_t j = start; j < end; ++j) {
        if (cost + crossing[j] < best) {
          best = cost + crossing[j];
          bestCut = j;
        }
        cost += saving * analysis.sharedBytesOf.lookup(ops[j]);
      }
      if (bestCut)
        cuts.push_back({*bestCut, groups[start]});
    }
    SmallVector<Stage> stages;
    for (auto [index, cut] : llvm::enumerate(cuts)) {
      int64_t end = index + 1 < cuts.size() ? cuts[index + 1].first : count;
      stages.push_back(
          {SmallVector<Operation *>(ops.begin() + cut.first, ops.begin() + end),
           cut.second,
           {},
           {}});
    }

    for (;;) {
      findStageValues(func, analysis, stages);
      auto *interleaved =
          llvm::find_if(llvm::drop_begin(stages), [&](const Stage &stage) {
            return llvm::any_of(stage.inputs, [&](Value input) {
              return analysis.dims.at(input).outer != 1;
            });
          });
      if (interleaved == stages.end())
        return stages;
      Stage &before = *std::prev(interleaved);
      llvm::append_range(before.ops, interleaved->ops);
      before.group = std::min(before.group, interleaved->group);
      stages.erase(interleaved);
    }
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
    SmallVector<Stage> stages = partition(func, analysis);
    bool whole = llvm::all_of(stages, [&](const Stage &stage) {
      return stage.group == analysis.samples;
    });
    if (explain) {
      InFlightDiagnostic remark = func.emitRemark("the batch of @")
                                  << func.getName();
      if (stages.empty())
        remark << " runs whole: it computes nothing per sample";
      else if (whole)
        remark << " runs whole";
      else {
        remark << " runs in groups of ";
        llvm::interleave(
            stages, [&](const Stage &stage) { remark << stage.group; },
            [&] { remark << ", then "; });
      }
      remark << " (" << analysis.samples << " samples, "
             << analysis.bytesPerSample << " bytes a sample in its largest "
             << "op)";
    }
    if (stages.empty() || whole)
      return success();

    // Each stage's function copies ops of the body as it is: all are built
    // before the loops that call them join it.
    SmallVector<func::FuncOp> groupFuncs;
    for (auto [index, stage] : llvm::enumerate(stages)) {
      std::string name = (func.getName() + "_samples").str();
      if (stages.size() > 1)
        name += "_" + std::to_string(index);
      func::FuncOp groupFunc = buildStageFunction(func, analysis, stage, name);
      symbols.insert(groupFunc);
      // The analysis admits only what it can shrink; a function that does
      // not verify is this pass's bug, not the model's.
      if (failed(verify(groupFunc)))
        return groupFunc.emitError("qdq-split-batch built an invalid "
                                   "function for groups of ")
               << stage.group << " samples";
      groupFuncs.push_back(groupFunc);
    }
    Block &body = func.getBody().front();
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    SmallVector<Operation *> old;
    for (Operation &op : body.without_terminator())
      old.push_back(&op);
    OpBuilder builder(ret);
    // The batch's tensor of each stage's output, once its loop has run.
    IRMapping batch;
    for (auto [stage, groupFunc] : llvm::zip_equal(stages, groupFuncs))
      callPerGroup(builder, groupFunc, analysis, stage, batch);
    for (OpOperand &result : ret->getOpOperands())
      result.set(batch.lookupOrDefault(result.get()));
    // What is left computes the results that do not depend on the samples.
    for (Operation *op : llvm::reverse(old))
      if (op->use_empty())
        op->erase();
    return success();
  }
};
} // namespace
