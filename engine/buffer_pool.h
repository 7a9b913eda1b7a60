// Buffers for intermediate tensors, recycled by size: a tensor's storage
// returns here when the last Tensor sharing it goes away (its last consumer
// ran, or the caller dropped a fetched result), and the next allocation of a
// similar size reuses it. Tracks the bytes live at once.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

namespace gds::engine {

class BufferPool : public std::enable_shared_from_this<BufferPool> {
 public:
  ~BufferPool();
  // 64-byte aligned storage of at least `bytes`; a free buffer of up to twice
  // the size is reused before new memory is taken, with the storage in its
  // middle (see get()).
  std::shared_ptr<void> get(std::size_t bytes);

  std::int64_t liveBytes() const;
  std::int64_t peakBytes() const;       // since construction
  std::int64_t totalBytes() const;      // live + free
  // Starts a new measurement window for windowPeakBytes().
  void resetWindow();
  std::int64_t windowPeakBytes() const;
  std::int64_t windowAllocatedBytes() const;

 private:
  void release(void* p, std::size_t capacity);
  mutable std::mutex mu_;
  std::multimap<std::size_t, void*> free_;
  std::int64_t live_ = 0, peak_ = 0, total_ = 0, window_peak_ = 0, window_allocated_ = 0;
};

}  // namespace gds::engine
