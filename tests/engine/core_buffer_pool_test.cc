// engine::BufferPool: a tensor smaller than the free buffer it reuses sits in
// the buffer's middle (64-byte aligned), so the halves that two threads write
// are the same halves of the buffer whatever tensor had it before; sizes and
// the live/peak counts are those of whole buffers.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>

#include "engine/buffer_pool.h"

namespace gds::engine {
namespace {

std::uintptr_t address(const std::shared_ptr<void>& p) { return reinterpret_cast<std::uintptr_t>(p.get()); }

TEST(BufferPool, ASmallerTensorSitsInTheMiddleOfTheBufferItReuses) {
  auto pool = std::make_shared<BufferPool>();
  std::uintptr_t start;
  {
    auto big = pool->get(1600);  // capacity 1600
    start = address(big);
    EXPECT_EQ(start % 64, 0u);
    std::memset(big.get(), 1, 1600);
  }
  auto small = pool->get(1000);  // reuses it: (1600 - 1000) / 2 = 300, aligned down to 256
  EXPECT_EQ(address(small), start + 256);
  std::memset(small.get(), 2, 1000);  // within the buffer (ASan would say otherwise)
  EXPECT_EQ(pool->liveBytes(), 1600);
  EXPECT_EQ(pool->totalBytes(), 1600);
  small.reset();
  auto same = pool->get(1600);  // the whole buffer again, from its start
  EXPECT_EQ(address(same), start);
  auto other = pool->get(700);  // none free: a new buffer, nothing to centre
  EXPECT_NE(address(other), start);
  EXPECT_EQ(address(other) % 64, 0u);
  EXPECT_EQ(pool->peakBytes(), 1600 + 704);
}

}  // namespace
}  // namespace gds::engine
