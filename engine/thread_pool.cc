// engine::ThreadPool: num_threads - 1 workers and the calling thread share
// each parallelFor, taking blocks from an atomic counter. Kernels call
// parallelFor many times per run, often for well under a millisecond of work,
// so waking a sleeping thread (a futex round trip, tens of microseconds on a
// virtual machine) would cost as much as the split saves: workers spin for a
// short while after each job before they sleep, as ONNX Runtime's pool does.
// Eigen's own pool, for the Eigen contractions and tensor expressions that
// take device(), is made on first use only.
#include "engine/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

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

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

// How long an idle worker keeps polling for the next job before it sleeps.
constexpr auto kSpin = std::chrono::microseconds(300);

// Set while a thread runs a block of some pool's job: a parallelFor from
// inside a block runs inline instead of waiting for busy workers.
thread_local bool t_in_job = false;

}  // namespace

struct ThreadPool::Impl {
  // One parallelFor: blocks [0, blocks) of [0, n), claimed through `next`.
  struct Job {
    const std::function<void(std::int64_t, std::int64_t)>* fn = nullptr;
    std::int64_t n = 0, blocks = 0;
    std::atomic<std::int64_t> next{0};
    std::atomic<std::int64_t> done{0};
  };

  std::vector<std::thread> workers;
  std::mutex mutex;  // orders sleeping against the job hand-over and stop
  std::condition_variable wake;
  std::atomic<std::uint64_t> generation{0};  // bumped per job
  std::atomic<Job*> job{nullptr};
  std::atomic<int> attached{0};  // workers inside the current job
  std::atomic<bool> stop{false};  // set under `mutex`
  std::mutex busy;  // one parallelFor at a time; other callers run inline

  std::once_flag eigen_once;
  int num_threads = 1;
  std::unique_ptr<Eigen::ThreadPoolInterface> eigen_pool;
  std::unique_ptr<Eigen::ThreadPoolDevice> device;

  static void runBlocks(Job& j) {
    const bool outer = t_in_job;
    t_in_job = true;
    for (std::int64_t b; (b = j.next.fetch_add(1, std::memory_order_relaxed)) < j.blocks;) {
      (*j.fn)(j.n * b / j.blocks, j.n * (b + 1) / j.blocks);
      j.done.fetch_add(1, std::memory_order_acq_rel);
    }
    t_in_job = outer;
  }

  void workerLoop() {
    std::uint64_t seen = generation.load(std::memory_order_acquire);
    while (true) {
      // Spin for the next job, then sleep until one is posted.
      auto deadline = std::chrono::steady_clock::now() + kSpin;
      int polls = 0;
      while (generation.load(std::memory_order_acquire) == seen) {
        cpuRelax();
        if (++polls % 64 == 0 && std::chrono::steady_clock::now() > deadline) {
          std::unique_lock<std::mutex> lock(mutex);
          wake.wait(lock, [&] { return stop || generation.load(std::memory_order_acquire) != seen; });
          break;
        }
      }
      if (stop.load()) return;
      seen = generation.load(std::memory_order_acquire);
      // Attach, then re-check that the job is still posted: the caller
      // clears it and waits for attached workers before it returns.
      attached.fetch_add(1);
      if (Job* j = job.load()) runBlocks(*j);
      attached.fetch_sub(1);
    }
  }

  void run(std::int64_t n, std::int64_t blocks, const std::function<void(std::int64_t, std::int64_t)>& fn) {
    Job j;
    j.fn = &fn;
    j.n = n;
    j.blocks = blocks;
    job.store(&j);
    {
      std::lock_guard<std::mutex> lock(mutex);
      generation.fetch_add(1, std::memory_order_acq_rel);
    }
    wake.notify_all();
    runBlocks(j);
    while (j.done.load(std::memory_order_acquire) < blocks) cpuRelax();
    job.store(nullptr);
    // A worker that read the job pointer may still be about to look at
    // `next`; j lives on this stack frame until none is attached.
    // (Sequentially consistent: the worker's attach-then-read and this
    // clear-then-check must not pass each other.)
    while (attached.load() > 0) cpuRelax();
  }
};

ThreadPool::ThreadPool(int num_threads) : impl_(std::make_unique<Impl>()) {
  if (num_threads <= 0) num_threads = std::max(1u, std::thread::hardware_concurrency());
  num_threads_ = num_threads;
  impl_->num_threads = num_threads;
  for (int i = 1; i < num_threads; ++i) impl_->workers.emplace_back([impl = impl_.get()] { impl->workerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->stop = true;
    impl_->generation.fetch_add(1, std::memory_order_acq_rel);
  }
  impl_->wake.notify_all();
  for (auto& t : impl_->workers) t.join();
  impl_->device.reset();
  impl_->eigen_pool.reset();
}

void ThreadPool::parallelFor(std::int64_t n, double cost_per_unit,
                             const std::function<void(std::int64_t, std::int64_t)>& fn) const {
  if (n <= 0) return;
  const double total = static_cast<double>(n) * cost_per_unit;
  // Below ~10k cycles of work a hand-off costs more than it saves.
  if (num_threads_ == 1 || n == 1 || total < 10000.0 || t_in_job) {
    fn(0, n);
    return;
  }
  std::unique_lock<std::mutex> busy(impl_->busy, std::try_to_lock);
  if (!busy.owns_lock()) {  // another thread is using the pool
    fn(0, n);
    return;
  }
  // A few blocks per thread balance uneven blocks; each keeps at least
  // ~5k cycles of work.
  const std::int64_t by_cost = std::max<std::int64_t>(num_threads_, static_cast<std::int64_t>(total / 5000.0));
  const std::int64_t blocks = std::min<std::int64_t>({n, static_cast<std::int64_t>(num_threads_) * 4, by_cost});
  impl_->run(n, blocks, fn);
}

const Eigen::ThreadPoolDevice& ThreadPool::device() const {
  std::call_once(impl_->eigen_once, [impl = impl_.get()] {
    if (impl->num_threads == 1)
      impl->eigen_pool = std::make_unique<InlineThreadPool>();
    else
      impl->eigen_pool = std::make_unique<Eigen::ThreadPool>(impl->num_threads);
    impl->device = std::make_unique<Eigen::ThreadPoolDevice>(impl->eigen_pool.get(), impl->num_threads);
  });
  return *impl_->device;
}

}  // namespace gds::engine
