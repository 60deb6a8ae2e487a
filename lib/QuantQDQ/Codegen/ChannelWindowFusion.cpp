//===- ChannelWindowFusion.cpp - ops a window's tiles take in -------------===//

#include "ChannelWindowFusion.h"
#include "BufferAliasing.h"
#include "VectorBody.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::quant_qdq;

/// Calls deep enough for an outlined loop's arguments, traced to the
/// buffers its caller passes.
static constexpr unsigned kMaxCallDepth = 4;

/// The nearest op before (or after) `op` in its block that may touch
/// memory; null if none.
static Operation *getNeighbourTouchingMemory(Operation *op, bool before) {
  auto step = [&](Operation *from) {
    return before ? from->getPrevNode() : from->getNextNode();
  };
  for (Operation *next = step(op); next; next = step(next))
    if (!isMemoryEffectFree(next))
      return next;
  return nullptr;
}

/// Whether buffers `a` and `b` may share memory. They do not when their
/// bases (through views) are an allocation and another allocation, a
/// function argument or a global; nor when they are two arguments of a
/// private function of `root` that none of its calls passes aliasing
/// buffers. Any other base (a select, a loop's argument, an op that is no
/// view but returns one) may be anything.
static bool mayAlias(Value a, Value b, Operation *root, unsigned depth = 0) {
  a = getBaseBuffer(a);
  b = getBaseBuffer(b);
  if (a == b)
    return true;
  if (areAllocatedApart(a, b))
    return false;
  BlockArgument argA = getFunctionArgument(a), argB = getFunctionArgument(b);
  if (!argA || !argB || argA.getOwner() != argB.getOwner() ||
      depth == kMaxCallDepth)
    return true;
  auto func = cast<func::FuncOp>(argA.getOwner()->getParentOp());
  if (!func.isPrivate() || func->getParentOp() != root)
    return true;
  std::optional<SymbolTable::UseRange> uses =
      SymbolTable::getSymbolUses(func, root);
  if (!uses)
    return true;
  for (const SymbolTable::SymbolUse &use : *uses) {
    auto call = dyn_cast<func::CallOp>(use.getUser());
    if (!call ||
        mayAlias(call.getOperand(argA.getArgNumber()),
                 call.getOperand(argB.getArgNumber()), root, depth + 1))
      return true;
  }
  return false;
}

/// Whether `op` is an element-wise generic over the dimensions of an NHWC
/// f32 buffer of shape `shape`, writing one such buffer as it lies and
/// taking nothing from its elements, that VectorBody clones along the
/// channels.
static bool isElementwiseOver(linalg::GenericOp op, ArrayRef<int64_t> shape) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumLoops() != 4 || op.getNumParallelLoops() != 4 ||
      op.hasIndexSemantics())
    return false;
  OpOperand *init = op.getDpsInitOperand(0);
  auto type = dyn_cast<MemRefType>(init->get().getType());
  return type && type.getShape() == shape && type.getElementType().isF32() &&
         op.getMatchingIndexingMap(init).isIdentity() &&
         !op.payloadUsesValueFromOperand(init) &&
         hasVectorBody(op, kWindowChannelLoop);
}

Operation *mlir::quant_qdq::findWindowInit(linalg::LinalgOp window,
                                           Value output, Operation *root) {
  Operation *previous = getNeighbourTouchingMemory(window, /*before=*/true);
  if (auto fill = dyn_cast_or_null<linalg::FillOp>(previous))
    return fill.hasPureBufferSemantics() && fill.getOutputs()[0] == output &&
                   fill.getInputs()[0].getType().isF32()
               ? fill
               : nullptr;
  auto generic = dyn_cast_or_null<linalg::GenericOp>(previous);
  if (!generic ||
      !isElementwiseOver(generic,
                         cast<MemRefType>(output.getType()).getShape()) ||
      generic.getDpsInitOperand(0)->get() != output)
    return nullptr;
  // Tiles compute it while earlier tiles have stored into the output.
  for (OpOperand *input : generic.getDpsInputOperands())
    if (isa<MemRefType>(input->get().getType()) &&
        mayAlias(input->get(), output, root))
      return nullptr;
  return generic;
}

linalg::GenericOp mlir::quant_qdq::findWindowEpilogue(linalg::LinalgOp window,
                                                      Value output,
                                                      Operation *init,
                                                      Operation *root) {
  auto allocation = output.getDefiningOp<memref::AllocOp>();
  auto epilogue = dyn_cast_or_null<linalg::GenericOp>(
      getNeighbourTouchingMemory(window, /*before=*/false));
  if (!allocation || !epilogue ||
      !isElementwiseOver(epilogue,
                         cast<MemRefType>(output.getType()).getShape()))
    return nullptr;
  // It reads the window's output once, element for element.
  unsigned reads = 0;
  for (OpOperand *input : epilogue.getDpsInputOperands()) {
    if (input->get() != output)
      continue;
    if (!epilogue.getMatchingIndexingMap(input).isIdentity())
      return nullptr;
    ++reads;
  }
  if (reads != 1)
    return nullptr;
  // Nothing else sees the output, which then is not needed at all.
  Value result = epilogue.getDpsInitOperand(0)->get();
  if (result == output)
    return nullptr;
  for (Operation *user : output.getUsers())
    if (user != window && user != init && user != epilogue &&
        !isa<memref::DeallocOp>(user))
      return nullptr;
  // A tile stores the epilogue's result while later tiles still read the
  // window's and the init's inputs, and the epilogue's own in another
  // order than its loops did: only an input it reads element for element
  // where it writes (a residual sum in place) may be the result.
  SmallVector<Value> read(window.getDpsInputs());
  if (init)
    llvm::append_range(read, init->getOperands());
  for (OpOperand *input : epilogue.getDpsInputOperands())
    if (input->get() != result ||
        !epilogue.getMatchingIndexingMap(input).isIdentity())
      read.push_back(input->get());
  for (Value buffer : read)
    if (buffer != output && isa<MemRefType>(buffer.getType()) &&
        mayAlias(buffer, result, root))
      return nullptr;
  return epilogue;
}
