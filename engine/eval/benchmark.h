// benchmark_model's run flow on a compiled Plan: warm-up runs, timed runs
// without per-node statistics (stopping at max_num_runs or max_time), then
// runs with per-node statistics that feed a StatsCalculator. The CLI prints
// TensorFlow's lines and tables; the application shows the same data.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/eval/stats_calculator.h"
#include "engine/plan.h"
#include "engine/rewrite/optimize_for_inference.h"

namespace gds::engine {

struct BenchmarkOptions {
  int warmup_runs = 1;
  int max_num_runs = 1000;     // <= 0: bounded by max_time only
  double max_time_s = 10.0;    // <= 0: bounded by max_num_runs only
  double inference_delay_s = -1.0;  // sleep between runs when > 0
  double inter_benchmark_delay_s = -1.0;  // sleep before the statistics phase when > 0
  bool detailed_stats = true;  // also run the per-node statistics phase
  StatsOptions stats;
  // Nodes of the graph as loaded, before the inference rewrites: the "N nodes
  // defined" of the summary line (0: the line says "M nodes observed" only).
  std::int64_t graph_nodes = 0;
  // Node name -> the graph ops and nodes it runs, for the fused nodes of the
  // compiled graph (fusedOpsByNode); the ops are the tables' "[Fused ops]"
  // column, the nodes go with the statistics (NodeDetail::fused).
  std::map<std::string, FusedNode> fused_ops;
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

// A graph compiled for benchmarking: compileForInference in two steps,
// keeping the rewritten graph, whose fused nodes name the graph ops they run
// in the tables (options.fused_ops), and counting the graph's own nodes
// (options.graph_nodes).
struct BenchmarkPlan {
  std::unique_ptr<Plan> plan;
  std::shared_ptr<const tensorflow::GraphDef> compiled;  // the graph the plan runs
  std::map<std::string, FusedNode> fused_ops;            // fusedOpsByNode(*compiled)
  std::int64_t graph_nodes = 0;                          // nodes of the graph as given
  double init_seconds = 0;                               // rewriting and compiling
};
Result<BenchmarkPlan> compileForBenchmark(std::shared_ptr<const tensorflow::GraphDef> graph,
                                          const std::vector<std::string>& feeds,
                                          const std::vector<std::string>& fetches, const PlanOptions& options,
                                          const InferenceRewrites& rewrites = {});

// The graph ops a fused node of the inference rewrites runs, from its op
// and "fused_ops" attr: "Conv2D+BiasAdd+Relu6" for a _FusedConv2D,
// "QuantizedConv2D+RequantizationRange+Requantize+QuantizedBiasAdd+..." for
// an 8-bit layer. "" when fused_ops is empty.
std::string fusedOpsDescription(const std::string& op, const std::vector<std::string>& fused_ops);
// The fused nodes of `graph` (the graph a Plan compiled, after
// optimizeForInference) by node name: fusedOpsDescription of their fused_ops
// attr, and the graph nodes they replaced with the one doing the work, as
// the rewrites recorded them (engine/rewrite/fused_nodes.h).
std::map<std::string, FusedNode> fusedOpsByNode(const tensorflow::GraphDef& graph);

// Where a profiled run's time goes: the per-node times summed against the
// measured latency of the same runs, and those runs against the runs
// without profiling. The per-node times leave out the executor's work
// between nodes and the clock reads themselves, so they sum to less than
// the latency on one thread; with several threads nodes overlap and the sum
// can exceed it.
struct ProfileOverhead {
  double node_sum_ms = 0;     // per-node times summed, mean per profiled run
  double profiled_ms = 0;     // measured latency of the profiled runs (mean)
  double unprofiled_ms = 0;   // measured latency of the runs without profiling (mean)
  double median_ms = 0;       // median latency of the runs without profiling (what the tables headline)
  int profiled_runs = 0;      // runs with per-node statistics
  double outsideNodesMs() const { return profiled_ms - node_sum_ms; }
  double outsideNodesPercent() const { return profiled_ms > 0 ? 100.0 * outsideNodesMs() / profiled_ms : 0.0; }
  double profilingCostMs() const { return profiled_ms - unprofiled_ms; }
  // What timing each node adds to a run against the median latency (noise included).
  double overheadMs() const { return profiled_ms - median_ms; }
};
ProfileOverhead profileOverhead(const BenchmarkResult& result);
// "Per-node times sum to 1.234 ms of the 1.300 ms each profiled run took
// (0.066 ms, 5.1%, between nodes: scheduling and timing); runs without
// profiling took 1.250 ms.\n"; "" without profiled runs.
std::string formatProfileOverhead(const ProfileOverhead& overhead);
// The same against the median latency, for a reader of the latency table:
// "Per-node times add up to 1.310 ms per run (50 profiled runs of 1.352 ms on
// average); the median latency without per-node timing is 0.948 ms: timing
// each node adds 0.404 ms (43%) to a run, which the per-node times include."
// Empty without profiled runs.
std::string formatProfileOverheadAgainstMedian(const ProfileOverhead& overhead);

// "count=..." summary lines as benchmark_model prints them.
std::string runPhaseHeader(int max_runs, double max_time_s, bool with_stats, double delay_s);

}  // namespace gds::engine
