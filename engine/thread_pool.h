// Intra-op thread pool. num_threads == 1 means no worker threads: work runs
// on the caller. Heavy Eigen headers stay out of this header.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

namespace Eigen {
class ThreadPoolDevice;
}

namespace gds::engine {

class ThreadPool {
 public:
  // num_threads <= 0: the number of hardware threads.
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int numThreads() const { return num_threads_; }
  // Splits [0, n) into blocks and runs fn(begin, end) on them in parallel;
  // cost_per_unit is a rough cycle count per element that decides whether
  // splitting is worth it. Returns when all blocks are done.
  void parallelFor(std::int64_t n, double cost_per_unit,
                   const std::function<void(std::int64_t, std::int64_t)>& fn) const;
  // For Eigen tensor expressions and contractions.
  const Eigen::ThreadPoolDevice& device() const;

 private:
  struct Impl;
  int num_threads_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gds::engine
