//===- KVCache.cpp - the key/value cache of a decoder ---------------------===//

#include "QuantQDQ/Transforms/KVCache.h"
#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/Utils/TensorNames.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::quant_qdq;

/// Whether `value` is a concatenation with a past-cache argument of `func`
/// among its inputs.
static bool extendsPastCache(Value value, func::FuncOp func) {
  Operation *op = value.getDefiningOp();
  auto generic = dyn_cast_or_null<GenericOp>(op);
  if (!isa_and_nonnull<ConcatOp>(op) &&
      !(generic && generic.isInDefaultDomain() &&
        generic.getOpType() == "Concat"))
    return false;
  return llvm::any_of(op->getOperands(), [&](Value input) {
    auto argument = dyn_cast<BlockArgument>(input);
    if (!argument || argument.getOwner() != &func.getBody().front())
      return false;
    auto name = func.getArgAttrOfType<StringAttr>(argument.getArgNumber(),
                                                  kTensorNameAttr);
    return name && name.getValue().starts_with("past");
  });
}

SmallVector<Value>
mlir::quant_qdq::findKVCacheTensors(func::FuncOp func,
                                    unsigned &alreadyQuantized) {
  SmallVector<Value> cache;
  if (func.isExternal())
    return cache;
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || !isa<FloatType>(type.getElementType()) ||
        llvm::is_contained(cache, value))
      continue;
    auto name = func.getResultAttrOfType<StringAttr>(i, kTensorNameAttr);
    bool isPresent = name && name.getValue().starts_with("present");
    if (value.getDefiningOp<DequantizeOp>() ||
        value.getDefiningOp<FakeQuantOp>()) {
      alreadyQuantized += isPresent;
      continue;
    }
    if (isPresent || extendsPastCache(value, func))
      cache.push_back(value);
  }
  return cache;
}

void mlir::quant_qdq::quantizeKVCache(ArrayRef<Value> tensors,
                                      QuantizerAttr quantizer) {
  for (Value value : tensors) {
    OpBuilder builder(value.getContext());
    DequantizeOp dequantize =
        createQDQPair(builder, value, quantizer, "insert-qdq");
    value.replaceAllUsesExcept(dequantize.getResult(),
                               dequantize.getInput().getDefiningOp());
  }
}
