//===- BufferPool.h - buffers JIT-compiled functions reuse ------*- C++ -*-===//
//
// A compiled function allocates the same buffers on every run. Taken from
// malloc, the large ones are fresh mappings each time, and the kernel's page
// faults and page zeroing cost as much as the arithmetic (ResNet-50 at 224
// on two cores: 175 ms per run, 81 ms when nothing is unmapped between
// runs). The CPU pipeline built with `buffer-pool` allocates through the
// three functions below, which keep freed buffers and hand each to the next
// request it fits (at most twice its size), as malloc reuses freed memory:
// the pool holds about what a run has live at its peak. The pool is the
// process's, shared by every executor and thread-safe: OpenMP workers
// allocate too.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_EXECUTION_BUFFERPOOL_H
#define QUANTQDQ_EXECUTION_BUFFERPOOL_H

#include <cstdint>

namespace mlir::quant_qdq::buffer_pool {

/// `_mlir_memref_to_llvm_alloc`: a buffer of `size` bytes, 64-byte aligned.
void *allocate(uint64_t size);
/// `_mlir_memref_to_llvm_aligned_alloc`.
void *allocateAligned(uint64_t alignment, uint64_t size);
/// `_mlir_memref_to_llvm_free`: keeps the buffer for reuse.
void release(void *buffer);
/// Returns the buffers kept for reuse to the system.
void trim();

} // namespace mlir::quant_qdq::buffer_pool

#endif // QUANTQDQ_EXECUTION_BUFFERPOOL_H
