#include "engine/eval/benchmark.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <thread>

#include "engine/rewrite/fused_nodes.h"
#include "model/attr.h"
#include "model/summary.h"

namespace gds::engine {
namespace {

using Clock = std::chrono::steady_clock;

// benchmark_model's CalculateFlops counts convolutions and matrix products
// only; elementwise work is left out of the estimate. The plan's fused float
// and 8-bit kernels count as the contraction they replaced, with the same
// list as summarize (model/summary.h).
bool countsForFlops(const std::string& op) {
  return model::countsForFlops(op);
}

// An 8-bit layer's stages (engine/quantized/fused_chain.h) as the graph ops
// quantize_nodes wrote.
std::string quantizedStageOps(const std::string& stage) {
  if (stage == "Requantize") return "RequantizationRange+Requantize";
  if (stage == "RequantizeToRange") return "Requantize";
  if (stage == "BiasAdd" || stage == "Add" || stage == "Relu" || stage == "Relu6") return "Quantized" + stage;
  return stage;
}

std::string formatSeconds(double s) {
  std::ostringstream o;
  o << s;
  return o.str();
}

}  // namespace

double BenchmarkResult::percentileMs(double p) const {
  if (latencies_us.empty()) return 0;
  std::vector<std::int64_t> v = latencies_us;
  std::sort(v.begin(), v.end());
  // Nearest-rank on the sorted list; the median of an even count averages the middle two.
  if (p == 50 && v.size() % 2 == 0) return (static_cast<double>(v[v.size() / 2 - 1]) + static_cast<double>(v[v.size() / 2])) / 2000.0;
  size_t idx = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
  idx = std::min(std::max<size_t>(idx, 1), v.size()) - 1;
  return static_cast<double>(v[idx]) / 1000.0;
}

std::string fusedOpsDescription(const std::string& op, const std::vector<std::string>& fused_ops) {
  if (fused_ops.empty()) return "";
  std::string head = op;
  if (head.rfind("_Fused", 0) == 0) head = head.substr(6);
  else if (head == "_QuantizeV2OwnRange") head = "QuantizeV2";
  else if (!head.empty() && head[0] == '_') head = head.substr(1);
  const bool quantized = head.find("Quantize") != std::string::npos;
  std::string out = head;
  for (const auto& stage : fused_ops) out += "+" + (quantized ? quantizedStageOps(stage) : stage);
  return out;
}

std::map<std::string, FusedNode> fusedOpsByNode(const tensorflow::GraphDef& graph) {
  std::map<std::string, FusedNode> out;
  for (const auto& node : graph.node()) {
    FusedNode f;
    if (const auto* fused = model::findAttr(node, "fused_ops")) {
      const std::vector<std::string> ops(fused->list().s().begin(), fused->list().s().end());
      f.ops = fusedOpsDescription(node.op(), ops);
    }
    if (const auto* nodes = model::findAttr(node, kFusedNodesAttr))
      f.nodes.assign(nodes->list().s().begin(), nodes->list().s().end());
    if (const auto* head = model::findAttr(node, kFusedHeadAttr)) f.head = head->s();
    if (!f.ops.empty() || !f.nodes.empty()) out[node.name()] = std::move(f);
  }
  return out;
}

ProfileOverhead profileOverhead(const BenchmarkResult& r) {
  ProfileOverhead o;
  o.node_sum_ms = r.stats.nodeTimeUsPerRun() / 1000.0;
  o.profiled_ms = r.stats.runTotalUs().avg() / 1000.0;
  o.unprofiled_ms = r.no_stats_us.avg() / 1000.0;
  o.median_ms = r.medianMs();
  o.profiled_runs = static_cast<int>(r.stats.numRuns());
  return o;
}

std::string formatProfileOverhead(const ProfileOverhead& o) {
  if (o.profiled_ms <= 0) return "";
  char buf[512];
  if (o.outsideNodesMs() >= 0)
    std::snprintf(buf, sizeof(buf),
                  "Per-node times sum to %.3f ms of the %.3f ms each profiled run took (%.3f ms, %.1f%%, between "
                  "nodes: scheduling and timing); runs without profiling took %.3f ms.\n",
                  o.node_sum_ms, o.profiled_ms, o.outsideNodesMs(), o.outsideNodesPercent(), o.unprofiled_ms);
  else
    std::snprintf(buf, sizeof(buf),
                  "Per-node times sum to %.3f ms, more than the %.3f ms each profiled run took: nodes ran at the same "
                  "time on several threads; runs without profiling took %.3f ms.\n",
                  o.node_sum_ms, o.profiled_ms, o.unprofiled_ms);
  return buf;
}

std::string formatProfileOverheadAgainstMedian(const ProfileOverhead& a) {
  if (a.profiled_runs == 0) return {};
  char buf[512];
  int n = std::snprintf(buf, sizeof(buf), "Per-node times add up to %.3f ms per run (%d profiled run%s of %.3f ms on average)",
                        a.node_sum_ms, a.profiled_runs, a.profiled_runs == 1 ? "" : "s", a.profiled_ms);
  std::string out(buf, static_cast<size_t>(n));
  if (a.median_ms <= 0) return out + ".";
  const double overhead = a.overheadMs();
  if (overhead > 0) {
    n = std::snprintf(buf, sizeof(buf),
                      "; the median latency without per-node timing is %.3f ms: timing each node adds %.3f ms (%.0f%%) "
                      "to a run, which the per-node times include.",
                      a.median_ms, overhead, 100.0 * overhead / a.median_ms);
  } else {
    n = std::snprintf(buf, sizeof(buf), "; the median latency without per-node timing is %.3f ms.", a.median_ms);
  }
  return out + std::string(buf, static_cast<size_t>(n));
}

std::string runPhaseHeader(int max_runs, double max_time_s, bool with_stats, double delay_s) {
  return "Running benchmark for max " + std::to_string(max_runs) + " iterations, max " + formatSeconds(max_time_s) +
         " seconds " + (with_stats ? "with" : "without") + " detailed stat logging, with " + formatSeconds(delay_s) +
         "s sleep between inferences\n";
}

Result<BenchmarkResult> runBenchmark(Plan& plan, const std::vector<Tensor>& feeds, const BenchmarkOptions& options) {
  BenchmarkResult result;
  result.stats.setOptions(options.stats);
  result.stats.setNodesDefined(options.graph_nodes);
  std::ostringstream log;

  auto sleepBetween = [&] {
    if (options.inference_delay_s > 0)
      std::this_thread::sleep_for(std::chrono::duration<double>(options.inference_delay_s));
  };
  auto runOnce = [&](RunProfile* profile, std::int64_t* us) -> Status {
    auto t0 = Clock::now();
    auto out = plan.run(feeds, profile);
    *us = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0).count();
    if (!out.ok()) return out.status();
    return Status::Ok();
  };
  auto isCancelled = [&] { return options.cancelled && options.cancelled(); };
  const FusedNode not_fused;
  auto fusedOf = [&](const std::string& name) -> const FusedNode& {
    auto it = options.fused_ops.find(name);
    return it == options.fused_ops.end() ? not_fused : it->second;
  };

  // Warm-up.
  log << runPhaseHeader(options.warmup_runs, -1, false, options.inference_delay_s);
  for (int i = 0; i < options.warmup_runs; ++i) {
    if (isCancelled()) return Status::Error("benchmark cancelled");
    std::int64_t us = 0;
    GDS_RETURN_IF_ERROR(runOnce(nullptr, &us));
    result.warmup_us.update(us);
    if (options.progress) options.progress("warmup", i + 1);
    sleepBetween();
  }
  log << result.warmup_us.toString() << "\n\n";

  // Phase bounded by runs and time, as benchmark_model's RunBenchmark loop.
  auto phase = [&](bool with_stats) -> Status {
    log << runPhaseHeader(options.max_num_runs, options.max_time_s, with_stats, options.inference_delay_s);
    Stat& stat = with_stats ? result.with_stats_us : result.no_stats_us;
    double total_s = 0;
    for (int i = 0;; ++i) {
      if (options.max_num_runs > 0 && i >= options.max_num_runs) break;
      if (options.max_time_s > 0 && total_s >= options.max_time_s) break;
      if (options.max_num_runs <= 0 && options.max_time_s <= 0) break;
      if (isCancelled()) return Status::Error("benchmark cancelled");
      std::int64_t us = 0;
      RunProfile profile;
      GDS_RETURN_IF_ERROR(runOnce(with_stats ? &profile : nullptr, &us));
      stat.update(us);
      total_s += static_cast<double>(us) / 1e6;
      if (with_stats) {
        const auto& nodes = plan.nodes();
        std::int64_t run_order = 0;
        std::int64_t first_ns = -1;
        for (const auto& n : profile.nodes)
          if (n.calls > 0 && (first_ns < 0 || n.start_ns < first_ns)) first_ns = n.start_ns;
        double flops = 0;
        for (size_t k = 0; k < profile.nodes.size() && k < nodes.size(); ++k) {
          const NodeRunStats& n = profile.nodes[k];
          if (nodes[k].graph_index < 0 || n.calls == 0) continue;  // feeds
          if (countsForFlops(nodes[k].op)) flops += n.flops;
          // TensorFlow's Const hands out its tensor without allocating: 0 bytes in its memory column.
          const std::int64_t mem = nodes[k].op == "Const" ? 0 : n.output_bytes;
          result.stats.addNodeStats(nodes[k].name, nodes[k].op, run_order++, (n.start_ns - first_ns) / 1000,
                                    n.duration_ns / 1000, mem, fusedOf(nodes[k].name));
        }
        result.stats.updateRunTotalUs(us);
        result.stats.updateMemoryUsed(profile.allocated_bytes);
        result.flops = flops;
        result.allocated_bytes = profile.allocated_bytes;
      } else {
        result.latencies_us.push_back(us);
      }
      if (options.progress) options.progress(with_stats ? "stats" : "timing", i + 1);
      sleepBetween();
    }
    log << stat.toString() << "\n\n";
    return Status::Ok();
  };
  GDS_RETURN_IF_ERROR(phase(false));
  if (options.detailed_stats) {
    if (options.inter_benchmark_delay_s > 0)
      std::this_thread::sleep_for(std::chrono::duration<double>(options.inter_benchmark_delay_s));
    GDS_RETURN_IF_ERROR(phase(true));
  } else {
    // One profiled run still gives FLOPs and memory figures.
    RunProfile profile;
    std::int64_t us = 0;
    GDS_RETURN_IF_ERROR(runOnce(&profile, &us));
    const auto& nodes = plan.nodes();
    for (size_t k = 0; k < profile.nodes.size() && k < nodes.size(); ++k)
      if (countsForFlops(nodes[k].op)) result.flops += profile.nodes[k].flops;
    result.allocated_bytes = profile.allocated_bytes;
  }
  result.peak_bytes = plan.peakBytes();
  log << "Average inference timings in us: Warmup: "
      << static_cast<std::int64_t>(result.warmup_us.avg()) << ", no stats: "
      << static_cast<std::int64_t>(result.no_stats_us.avg()) << ", with stats: "
      << static_cast<std::int64_t>(result.with_stats_us.avg()) << "\n";
  result.log = log.str();
  return result;
}

Result<BenchmarkPlan> compileForBenchmark(std::shared_ptr<const tensorflow::GraphDef> graph,
                                          const std::vector<std::string>& feeds,
                                          const std::vector<std::string>& fetches, const PlanOptions& options,
                                          const InferenceRewrites& rewrites) {
  if (!graph) return Status::Error("compileForBenchmark: no graph");
  BenchmarkPlan out;
  out.graph_nodes = graph->node_size();
  const auto start = Clock::now();
  out.compiled = optimizeForInference(*graph, feeds, fetches, options, rewrites);
  if (!out.compiled) out.compiled = graph;
  auto plan = Plan::compile(out.compiled, feeds, fetches, options);
  if (!plan.ok()) return plan.status();
  out.plan = std::move(plan).value();
  out.init_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  out.fused_ops = fusedOpsByNode(*out.compiled);
  return out;
}

}  // namespace gds::engine
