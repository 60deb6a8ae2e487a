//===- BufferPool.cpp - buffers JIT-compiled functions reuse --------------===//

#include "BufferPool.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdlib>
#include <mutex>

using namespace mlir::quant_qdq;

namespace {
/// Every buffer is a multiple of a cache line, aligned to one (what AVX
/// loads like best, and what the size classes round to).
constexpr uint64_t kLine = 64;

struct Pool {
  std::mutex mutex;
  /// Size class (bytes) of each buffer handed out.
  llvm::DenseMap<void *, uint64_t> live;
  /// Buffers freed, by size class.
  llvm::DenseMap<uint64_t, llvm::SmallVector<void *, 2>> kept;
};

Pool &getPool() {
  static Pool *pool = new Pool(); // outlives every executor and thread
  return *pool;
}
} // namespace

void *buffer_pool::allocateAligned(uint64_t alignment, uint64_t size) {
  uint64_t bytes = (std::max<uint64_t>(size, 1) + kLine - 1) / kLine * kLine;
  Pool &pool = getPool();
  std::lock_guard<std::mutex> lock(pool.mutex);
  void *buffer = nullptr;
  auto it = pool.kept.find(bytes);
  if (alignment <= kLine && it != pool.kept.end() && !it->second.empty()) {
    buffer = it->second.pop_back_val();
  } else {
    uint64_t align = std::max(alignment, kLine);
    if (posix_memalign(&buffer, align, bytes) != 0)
      return nullptr;
  }
  pool.live[buffer] = alignment <= kLine ? bytes : 0;
  return buffer;
}

void *buffer_pool::allocate(uint64_t size) {
  return allocateAligned(kLine, size);
}

void buffer_pool::release(void *buffer) {
  if (!buffer)
    return;
  Pool &pool = getPool();
  std::lock_guard<std::mutex> lock(pool.mutex);
  auto it = pool.live.find(buffer);
  if (it == pool.live.end()) {
    free(buffer); // from malloc, not from the pool
    return;
  }
  uint64_t bytes = it->second;
  pool.live.erase(it);
  if (bytes == 0) // over-aligned: not kept
    free(buffer);
  else
    pool.kept[bytes].push_back(buffer);
}

void buffer_pool::trim() {
  Pool &pool = getPool();
  std::lock_guard<std::mutex> lock(pool.mutex);
  for (auto &entry : pool.kept)
    for (void *buffer : entry.second)
      free(buffer);
  pool.kept.clear();
}
