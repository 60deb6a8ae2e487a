//===- KVCache.cpp - the key/value cache of a decoder
//----------------------===//

#include "QuantQDQ/Transforms/KVCache.h"
#include "QuantQDQ/IR/QuantQDQOps.h"
#include "QuantQDQ/Utils/TensorNames.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::quant_qdq;

/// Whether `value` is a concatenation with one of `func`'s arguments among
/// its inputs.
static bool extendsArgument(Value value, func::FuncOp func) {
  Operation *op = value.getDefiningOp();
  if (!op)
    return false;
  auto generic = dyn_cast<GenericOp>(op);
  if (!isa<ConcatOp>(op) && !(generic && generic.getOpType() == "Concat"))
    return false;
  return llvm::any_of(op->getOperands(), [&](Value input) {
    auto argument = dyn_cast<BlockArgument>(input);
    return argument && argument.getOwner() == &func.getBody().front();
  });
}

SmallVector<Value> mlir::quant_qdq::findKVCacheTensors(func::FuncOp func) {
  if (func.isExternal())
    return {};
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  SmallVector<Value> cache;
  for (Value value : ret.getOperands())
    if (extendsArgument(value, func) && !llvm::is_contained(cache, value))
      cache.push_back(value);
  if (!cache.empty())
    return cache;
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    auto name = func.getResultAttrOfType<StringAttr>(i, kTensorNameAttr);
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (name && name.getValue().starts_with("present") && type &&
        isa<FloatType>(type.getElementType()) &&
        !llvm::is_contained(cache, value))
      cache.push_back(value);
  }
  return cache;
}

void mlir::quant_qdq::quantizeKVCache(ArrayRef<Value> tensors,
                                      QuantizerAttr quantizer) {
  for (Value value : tensors) {
    OpBuilder builder(value.getContext());
    builder.setInsertionPointAfterValue(value);
    auto type = cast<RankedTensorType>(value.getType());
    // Named after the tensor, as insert-qdq's pairs are (x_quantized).
    Location loc = FusedLoc::get(value.getContext(), {value.getLoc()},
                                 builder.getStringAttr("insert-qdq"));
    auto quantize =
        QuantizeOp::create(builder, loc, type.clone(quantizer.getStorageType()),
                           value, quantizer, nullptr, nullptr);
    auto dequantize = DequantizeOp::create(builder, loc, type, quantize,
                                           quantizer, nullptr, nullptr);
    value.replaceAllUsesExcept(dequantize.getResult(), quantize);
  }
}
