// engine::ThreadPool: every index is visited exactly once whatever the split,
// the work really is shared between threads, a parallelFor inside a block or
// from a second thread at the same time runs inline instead of waiting, and
// the pool can be destroyed while its workers spin or sleep.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "engine/thread_pool.h"

namespace gds::engine {
namespace {

// Each index of [0, n) counted once per call.
void expectEachIndexOnce(const ThreadPool& pool, std::int64_t n, double cost) {
  std::vector<std::atomic<int>> seen(static_cast<size_t>(n));
  pool.parallelFor(n, cost, [&](std::int64_t b, std::int64_t e) {
    ASSERT_LE(0, b);
    ASSERT_LT(b, e);
    ASSERT_LE(e, n);
    for (std::int64_t i = b; i < e; ++i) seen[static_cast<size_t>(i)].fetch_add(1);
  });
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(seen[static_cast<size_t>(i)].load(), 1) << "index " << i << " of " << n;
}

TEST(ThreadPool, EveryIndexOnceForAnySizeAndCost) {
  for (int threads : {1, 2, 3}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.numThreads(), threads);
    for (std::int64_t n : {1, 2, 3, 7, 64, 1000, 100003})
      for (double cost : {1.0, 100.0, 1e6}) expectEachIndexOnce(pool, n, cost);
    pool.parallelFor(0, 1e9, [](std::int64_t, std::int64_t) { FAIL() << "called for an empty range"; });
  }
}

TEST(ThreadPool, ExpensiveWorkIsSharedBetweenThreads) {
  ThreadPool pool(2);
  std::mutex mu;
  std::set<std::thread::id> ids;
  for (int round = 0; round < 20 && ids.size() < 2; ++round)
    pool.parallelFor(8, 1e9, [&](std::int64_t, std::int64_t) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      std::lock_guard<std::mutex> lock(mu);
      ids.insert(std::this_thread::get_id());
    });
  EXPECT_EQ(ids.size(), 2u);
  EXPECT_TRUE(ids.count(std::this_thread::get_id())) << "the caller takes part";
}

TEST(ThreadPool, OneThreadRunsEverythingOnTheCaller) {
  ThreadPool pool(1);
  std::set<std::thread::id> ids;
  pool.parallelFor(16, 1e9, [&](std::int64_t, std::int64_t) { ids.insert(std::this_thread::get_id()); });
  EXPECT_EQ(ids, std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST(ThreadPool, NestedCallsRunInline) {
  ThreadPool pool(2);
  std::atomic<std::int64_t> total{0};
  pool.parallelFor(6, 1e9, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i) {
      const std::thread::id outer = std::this_thread::get_id();
      pool.parallelFor(100, 1e9, [&](std::int64_t b2, std::int64_t e2) {
        EXPECT_EQ(std::this_thread::get_id(), outer);
        total.fetch_add(e2 - b2);
      });
    }
  });
  EXPECT_EQ(total.load(), 600);
}

TEST(ThreadPool, TwoCallersAtOnceBothFinish) {
  ThreadPool pool(2);
  std::atomic<std::int64_t> sums[2] = {{0}, {0}};
  auto caller = [&](int k) {
    for (int round = 0; round < 200; ++round)
      pool.parallelFor(1000, 1e4, [&](std::int64_t b, std::int64_t e) {
        std::int64_t s = 0;
        for (std::int64_t i = b; i < e; ++i) s += i;
        sums[k].fetch_add(s);
      });
  };
  std::thread other(caller, 1);
  caller(0);
  other.join();
  const std::int64_t expected = 200LL * (999LL * 1000LL / 2);
  EXPECT_EQ(sums[0].load(), expected);
  EXPECT_EQ(sums[1].load(), expected);
}

TEST(ThreadPool, ManySmallJobsInARowAndDestructionWhileWorkersSpinOrSleep) {
  for (int sleep_ms : {0, 5}) {
    auto pool = std::make_unique<ThreadPool>(2);
    std::int64_t total = 0;
    std::mutex mu;
    for (int round = 0; round < 2000; ++round)
      pool->parallelFor(4, 1e5, [&](std::int64_t b, std::int64_t e) {
        std::lock_guard<std::mutex> lock(mu);
        total += e - b;
      });
    EXPECT_EQ(total, 8000);
    std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));  // 5 ms: the worker has gone to sleep
    pool.reset();
  }
}

}  // namespace
}  // namespace gds::engine
