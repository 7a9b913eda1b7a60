#include "engine/buffer_pool.h"

#include <algorithm>
#include <cstdlib>
#include <new>

namespace gds::engine {

BufferPool::~BufferPool() {
  for (auto& [size, p] : free_) std::free(p);
}

std::shared_ptr<void> BufferPool::get(std::size_t bytes) {
  std::size_t capacity = std::max<std::size_t>(64, (bytes + 63) / 64 * 64);
  void* p = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = free_.lower_bound(capacity);
    if (it != free_.end() && it->first <= 2 * capacity) {
      capacity = it->first;
      p = it->second;
      free_.erase(it);
    }
    live_ += static_cast<std::int64_t>(capacity);
    window_allocated_ += static_cast<std::int64_t>(capacity);
    peak_ = std::max(peak_, live_);
    window_peak_ = std::max(window_peak_, live_);
    if (!p) total_ += static_cast<std::int64_t>(capacity);
  }
  if (!p) {
    p = std::aligned_alloc(64, capacity);
    if (!p) throw std::bad_alloc();
  }
  // The tensor sits in the middle of the buffer. Kernels split between two
  // threads give each half of the tensor; centred, each thread writes the
  // half of the buffer it wrote last time, whatever size the tensor before
  // had, so the buffer's lines are already in its own core's cache.
  const std::size_t offset = (capacity - bytes) / 2 / 64 * 64;
  auto self = shared_from_this();
  return std::shared_ptr<void>(static_cast<char*>(p) + offset,
                               [self, p, capacity](void*) { self->release(p, capacity); });
}

void BufferPool::release(void* p, std::size_t capacity) {
  std::lock_guard<std::mutex> lock(mu_);
  live_ -= static_cast<std::int64_t>(capacity);
  free_.emplace(capacity, p);
}

std::int64_t BufferPool::liveBytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return live_;
}
std::int64_t BufferPool::peakBytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return peak_;
}
std::int64_t BufferPool::totalBytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return total_;
}
void BufferPool::resetWindow() {
  std::lock_guard<std::mutex> lock(mu_);
  window_peak_ = live_;
  window_allocated_ = 0;
}
std::int64_t BufferPool::windowPeakBytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return window_peak_;
}
std::int64_t BufferPool::windowAllocatedBytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return window_allocated_;
}

}  // namespace gds::engine
