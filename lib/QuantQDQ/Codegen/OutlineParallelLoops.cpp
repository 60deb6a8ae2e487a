//===- OutlineParallelLoops.cpp - each parallel loop in its own function --===//
//
// A network's function holds one `scf.parallel` per layer (ResNet-50: 277),
// which the OpenMP translation outlines one after the other from the same
// LLVM function: each outlining scans the whole function, so translation
// grows with the square of the network, and the entry function LLVM then
// optimizes holds every layer's captured loop state. This pass moves each
// parallel loop at the top level of a function body into a private
// function of its own, called in its place: the OpenMP outlining then works
// on small functions, and the entry function shrinks to calls and buffer
// management.
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/Codegen/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::quant_qdq {
#define GEN_PASS_DEF_OUTLINEPARALLELLOOPS
#include "QuantQDQ/Codegen/Passes.h.inc"
} // namespace mlir::quant_qdq

using namespace mlir;

/// Moves `loop` into a new private function named after `parent`, placed
/// before it, and calls that function in its place. Constants the loop
/// reads are cloned in, so that static sizes and offsets stay constants;
/// every other captured value becomes an argument.
static void outline(scf::ParallelOp loop, func::FuncOp parent,
                    SymbolTable &symbols, IRRewriter &rewriter) {
  // The loop's own operands (bounds, steps), then what its body reads.
  llvm::SetVector<Value> captured(llvm::from_range, loop->getOperands());
  getUsedValuesDefinedAbove(loop->getRegions(), captured);
  SmallVector<Value> arguments;
  SmallVector<Operation *> constants;
  for (Value value : captured) {
    Operation *definition = value.getDefiningOp();
    if (definition && definition->hasTrait<OpTrait::ConstantLike>())
      constants.push_back(definition);
    else
      arguments.push_back(value);
  }

  rewriter.setInsertionPoint(parent);
  auto type = rewriter.getFunctionType(ValueRange(arguments).getTypes(),
                                       loop.getResultTypes());
  auto function = func::FuncOp::create(rewriter, loop.getLoc(),
                                       parent.getName().str() + "_parallel",
                                       type);
  function.setPrivate();
  // Internal in LLVM, like any helper of the entry (ParallelJIT makes it
  // external again, to link it across parts), and not inlined back, or the
  // entry would again hold every layer's loop state. func-to-llvm carries
  // both attributes over; it drops func.func's own no_inline.
  function->setAttr("llvm.linkage", LLVM::LinkageAttr::get(
                                        rewriter.getContext(),
                                        LLVM::Linkage::Internal));
  function->setAttr("passthrough",
                    rewriter.getArrayAttr(rewriter.getStringAttr("noinline")));
  symbols.insert(function); // Renames it if the name is taken.

  Block *body = function.addEntryBlock();
  IRMapping mapping;
  mapping.map(arguments, body->getArguments());
  rewriter.setInsertionPointToStart(body);
  for (Operation *constant : constants)
    rewriter.clone(*constant, mapping);
  Operation *moved = rewriter.clone(*loop, mapping);
  func::ReturnOp::create(rewriter, loop.getLoc(), moved->getResults());

  rewriter.setInsertionPoint(loop);
  auto call = func::CallOp::create(rewriter, loop.getLoc(), function,
                                   arguments);
  rewriter.replaceOp(loop, call.getResults());
}

namespace {
struct OutlineParallelLoopsPass
    : quant_qdq::impl::OutlineParallelLoopsBase<OutlineParallelLoopsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    IRRewriter rewriter(&getContext());
    SmallVector<func::FuncOp> functions(module.getOps<func::FuncOp>());
    for (func::FuncOp function : functions) {
      if (function.isExternal())
        continue;
      SmallVector<scf::ParallelOp> loops;
      for (Block &block : function.getBody())
        for (auto loop : block.getOps<scf::ParallelOp>())
          loops.push_back(loop);
      for (scf::ParallelOp loop : loops)
        outline(loop, function, symbols, rewriter);
    }
  }
};
} // namespace
