//===- KVCache.h - the key/value cache of a decoder ---------------*- C++
//-*-===//
//
// A decoder exported with a key/value cache returns the keys and values of
// every position so far (`present_*`), which the runtime stores and feeds
// back as the next step's `past_*`. Quantizing them shrinks the cache, the
// memory that bounds a decoder's batch and context.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_TRANSFORMS_KVCACHE_H
#define QUANTQDQ_TRANSFORMS_KVCACHE_H

#include "QuantQDQ/IR/QuantQDQAttrs.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::quant_qdq {

/// The tensors of `func`'s key/value cache: each returned tensor that a
/// concatenation builds from one of the function's arguments (the decode
/// step: past keys or values joined with the new ones), or, where the
/// function takes no past, each returned tensor whose graph output name
/// starts with `present` (the prefill form).
SmallVector<Value> findKVCacheTensors(func::FuncOp func);

/// Quantizes each of `tensors` with a Q/DQ pair of `quantizer` that every
/// reader takes, the function's return included: the cache holds values of
/// the grid, and attention reads the dequantized cache.
void quantizeKVCache(ArrayRef<Value> tensors, QuantizerAttr quantizer);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_TRANSFORMS_KVCACHE_H
