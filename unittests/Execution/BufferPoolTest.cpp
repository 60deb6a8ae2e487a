//===- BufferPoolTest.cpp - the JIT's buffer pool -------------------------===//

#include "BufferPool.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <thread>
#include <vector>

using namespace mlir::quant_qdq;

namespace {

bool isLineAligned(void *p) {
  return reinterpret_cast<uintptr_t>(p) % 64 == 0;
}

TEST(BufferPoolTest, FreedBufferServesTheNextRequestItFits) {
  buffer_pool::trim();
  void *a = buffer_pool::allocate(1000);
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(isLineAligned(a));
  buffer_pool::release(a);
  // Same size: the same buffer.
  void *b = buffer_pool::allocate(1000);
  EXPECT_EQ(b, a);
  buffer_pool::release(b);
  // Smaller, but more than half of it: the same buffer again.
  void *c = buffer_pool::allocate(600);
  EXPECT_EQ(c, a);
  buffer_pool::release(c);
  buffer_pool::trim();
}

TEST(BufferPoolTest, BuffersTwiceTooLargeOrTooSmallAreNotHandedOut) {
  buffer_pool::trim();
  void *large = buffer_pool::allocate(1 << 20);
  buffer_pool::release(large);
  // Less than half the kept buffer: a buffer of its own.
  void *small = buffer_pool::allocate(1000);
  EXPECT_NE(small, large);
  // More than the kept buffer holds: a new one too.
  void *larger = buffer_pool::allocate((1 << 20) + 64);
  EXPECT_NE(larger, large);
  // The kept one is still there for a request it fits.
  void *again = buffer_pool::allocate(1 << 20);
  EXPECT_EQ(again, large);
  for (void *p : {small, larger, again})
    buffer_pool::release(p);
  buffer_pool::trim();
}

TEST(BufferPoolTest, OverAlignedRequestsAreHonoured) {
  buffer_pool::trim();
  void *p = buffer_pool::allocateAligned(4096, 100);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 4096, 0u);
  buffer_pool::release(p);
  void *q = buffer_pool::allocate(0); // a zero-byte request still gets one
  EXPECT_NE(q, nullptr);
  EXPECT_TRUE(isLineAligned(q));
  buffer_pool::release(q);
  buffer_pool::release(nullptr);
  buffer_pool::trim();
}

TEST(BufferPoolTest, ThreadsShareThePool) {
  buffer_pool::trim();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t] {
      for (int i = 0; i < 1000; ++i) {
        auto *p = static_cast<char *>(buffer_pool::allocate(64 * (1 + i % 7)));
        p[0] = static_cast<char>(t);
        buffer_pool::release(p);
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  buffer_pool::trim();
}

} // namespace
