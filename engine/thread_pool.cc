// Eigen's non-blocking thread pool behind engine::ThreadPool. With one
// thread no worker exists: an inline pool runs scheduled work on the caller,
// so Eigen expressions and contractions evaluated on device() stay
// single-threaded.
#include "engine/thread_pool.h"

#include <algorithm>
#include <thread>

#define EIGEN_USE_THREADS
#include <unsupported/Eigen/CXX11/Tensor>
#include <unsupported/Eigen/CXX11/ThreadPool>

namespace gds::engine {
namespace {

class InlineThreadPool : public Eigen::ThreadPoolInterface {
 public:
  void Schedule(std::function<void()> fn) override { fn(); }
  int NumThreads() const override { return 1; }
  int CurrentThreadId() const override { return 0; }
};

}  // namespace

struct ThreadPool::Impl {
  std::unique_ptr<Eigen::ThreadPoolInterface> pool;
  std::unique_ptr<Eigen::ThreadPoolDevice> device;
};

ThreadPool::ThreadPool(int num_threads) : impl_(std::make_unique<Impl>()) {
  if (num_threads <= 0) num_threads = std::max(1u, std::thread::hardware_concurrency());
  num_threads_ = num_threads;
  if (num_threads == 1)
    impl_->pool = std::make_unique<InlineThreadPool>();
  else
    impl_->pool = std::make_unique<Eigen::ThreadPool>(num_threads);
  impl_->device = std::make_unique<Eigen::ThreadPoolDevice>(impl_->pool.get(), num_threads);
}

ThreadPool::~ThreadPool() {
  impl_->device.reset();
  impl_->pool.reset();
}

void ThreadPool::parallelFor(std::int64_t n, double cost_per_unit,
                             const std::function<void(std::int64_t, std::int64_t)>& fn) const {
  if (n <= 0) return;
  // Below ~10k cycles of work a hand-off costs more than it saves.
  if (num_threads_ == 1 || static_cast<double>(n) * cost_per_unit < 10000.0) {
    fn(0, n);
    return;
  }
  impl_->device->parallelFor(static_cast<Eigen::Index>(n), Eigen::TensorOpCost(0, 0, cost_per_unit),
                             [&fn](Eigen::Index begin, Eigen::Index end) { fn(begin, end); });
}

const Eigen::ThreadPoolDevice& ThreadPool::device() const { return *impl_->device; }

}  // namespace gds::engine
