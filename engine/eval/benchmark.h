// benchmark_model's run flow on a compiled Plan: warm-up runs, timed runs
// without per-node statistics (stopping at max_num_runs or max_time), then
// runs with per-node statistics that feed a StatsCalculator. The CLI prints
// TensorFlow's lines and tables; the application shows the same data.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/eval/stats_calculator.h"
#include "engine/plan.h"

namespace gds::engine {

struct BenchmarkOptions {
  int warmup_runs = 1;
  int max_num_runs = 1000;     // <= 0: bounded by max_time only
  double max_time_s = 10.0;    // <= 0: bounded by max_num_runs only
  double inference_delay_s = -1.0;  // sleep between runs when > 0
  double inter_benchmark_delay_s = -1.0;  // sleep before the statistics phase when > 0
  bool detailed_stats = true;  // also run the per-node statistics phase
  StatsOptions stats;
  // Polled between runs; returning true stops with an error "cancelled".
  std::function<bool()> cancelled;
  // Called after each run: phase ("warmup", "timing", "stats") and runs done.
  std::function<void(const std::string& phase, int done)> progress;
};

struct BenchmarkResult {
  Stat warmup_us;
  Stat no_stats_us;
  Stat with_stats_us;
  std::vector<std::int64_t> latencies_us;  // the timed runs without statistics, in order
  StatsCalculator stats;                   // per-node statistics of the detailed phase
  double flops = 0;                        // per run (Conv2D/MatMul/Depthwise rule), from a profiled run
  std::int64_t peak_bytes = 0;             // most intermediate bytes live at once
  std::int64_t allocated_bytes = 0;        // bytes allocated by one run
  std::string log;                         // TensorFlow-style progress lines

  double percentileMs(double p) const;     // over latencies_us, p in [0, 100]
  double medianMs() const { return percentileMs(50); }
};

Result<BenchmarkResult> runBenchmark(Plan& plan, const std::vector<Tensor>& feeds, const BenchmarkOptions& options);

// "count=..." summary lines as benchmark_model prints them.
std::string runPhaseHeader(int max_runs, double max_time_s, bool with_stats, double delay_s);

}  // namespace gds::engine
