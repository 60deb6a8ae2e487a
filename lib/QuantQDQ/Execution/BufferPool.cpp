//===- BufferPool.cpp - buffers JIT-compiled functions reuse --------------===//

#include "BufferPool.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>

using namespace mlir::quant_qdq;

namespace {
/// Every buffer is a multiple of a cache line, aligned to one (what AVX
/// loads like best).
constexpr uint64_t kLine = 64;

struct Pool {
  std::mutex mutex;
  /// Size (bytes) of each buffer handed out; 0 for an over-aligned one,
  /// which is not kept.
  llvm::DenseMap<void *, uint64_t> live;
  /// Buffers freed, by size.
  std::multimap<uint64_t, void *> kept;
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
  // The smallest kept buffer that fits, if it is not more than twice the
  // size: freed buffers serve requests of other sizes too, as malloc's
  // would, so the pool holds about what one run has live at its peak.
  auto it = pool.kept.lower_bound(bytes);
  if (alignment <= kLine && it != pool.kept.end() && it->first <= 2 * bytes) {
    void *buffer = it->second;
    pool.live[buffer] = it->first;
    pool.kept.erase(it);
    return buffer;
  }
  void *buffer = nullptr;
  if (posix_memalign(&buffer, std::max(alignment, kLine), bytes) != 0)
    return nullptr;
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
    pool.kept.emplace(bytes, buffer);
}

void buffer_pool::trim() {
  Pool &pool = getPool();
  std::lock_guard<std::mutex> lock(pool.mutex);
  for (auto &[bytes, buffer] : pool.kept)
    free(buffer);
  pool.kept.clear();
}
