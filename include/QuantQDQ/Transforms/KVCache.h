//===- KVCache.h - the key/value cache of a decoder -------------*- C++ -*-===//
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

/// The key/value cache of `func`: its float results that are a cache
/// tensor, each once. A result is one when its graph output name starts
/// with `present`, or when a concatenation builds it from a function
/// argument whose name starts with `past` (exporters' names for the cache:
/// Optimum's `past_key_values.0.key`, torch's `past_key_0`). Results
/// already dequantized (a second run, a QDQ model) are counted in
/// `alreadyQuantized` instead.
SmallVector<Value> findKVCacheTensors(func::FuncOp func,
                                      unsigned &alreadyQuantized);

/// Quantizes each of `tensors` with a Q/DQ pair of `quantizer` that every
/// reader takes, the function's return included: the cache holds values of
/// the grid, and attention reads the dequantized cache.
void quantizeKVCache(ArrayRef<Value> tensors, QuantizerAttr quantizer);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_TRANSFORMS_KVCACHE_H
