// Why the per-node times of a benchmark add up to more than its latency.
// benchmark_model times every node only in a separate phase of profiled runs
// (reading the clock around each node and recording it); those runs are
// slower than the timed runs the latency comes from, so the per-node times
// summed over a run exceed the median latency by about that profiling
// overhead. This accounts for the difference from the result's own figures.
#pragma once

#include <string>

#include "engine/eval/benchmark.h"

namespace gds::engine {

struct ProfileAccounting {
  int profiled_runs = 0;       // runs with per-node statistics
  double node_sum_ms = 0;      // the nodes' average times added up: what the per-node tables total
  double profiled_run_ms = 0;  // average wall time of the profiled runs
  double median_ms = 0;        // median latency of the runs without per-node statistics
  // What timing each node adds to a run (profiled run - median; noise included).
  double overheadMs() const { return profiled_run_ms - median_ms; }
  // Time of the profiled runs spent outside the nodes (scheduling, feeds, fetches).
  double outsideNodesMs() const { return profiled_run_ms - node_sum_ms; }
};

// Zeros when the result has no profiled run.
ProfileAccounting accountProfile(const BenchmarkResult& result);

// One sentence: "Per-node times add up to 1.310 ms per run (50 profiled runs
// of 1.352 ms on average); the median latency without per-node timing is
// 0.948 ms: timing each node adds 0.404 ms (43%) to a run, which the per-node
// times include." Empty when there is no profiled run.
std::string formatProfileAccounting(const ProfileAccounting& accounting);

}  // namespace gds::engine
