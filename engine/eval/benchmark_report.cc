#include "engine/eval/benchmark_report.h"

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "model/summary.h"

namespace gds::engine {
namespace {

nlohmann::json nodeJson(const NodeDetail& d, std::int64_t runs) {
  return {{"name", d.name},
          {"type", d.type},
          {"run_order", d.run_order},
          {"start_ms", d.start_us.avg() / 1000.0},
          {"first_ms", static_cast<double>(d.rel_end_us.first()) / 1000.0},
          {"avg_ms", d.rel_end_us.avg() / 1000.0},
          {"mem_bytes", d.mem_used.newest()},
          {"times_called", d.times_called / std::max<std::int64_t>(runs, 1)},
          {"fused_ops", d.fused.ops}};
}

}  // namespace

double flopsPerSecond(const BenchmarkResult& r) {
  const double avg_s = r.no_stats_us.avg() / 1e6;
  return avg_s > 0 ? r.flops / avg_s : 0;
}

std::string formatFlops(const BenchmarkResult& r) {
  return "FLOPs estimate: " + model::humanReadableNum(static_cast<std::int64_t>(r.flops)) + "\n" +
         "FLOPs/second: " + model::humanReadableNum(static_cast<std::int64_t>(flopsPerSecond(r))) + "\n";
}

std::string formatTables(const BenchmarkResult& r, const StatsOptions& tables, bool show_flops) {
  StatsCalculator stats = r.stats;
  stats.setOptions(tables);
  std::string out = stats.outputString();
  if (show_flops) out += formatFlops(r);
  return out;
}

std::string formatLatencyLine(const BenchmarkResult& r) {
  char buf[256];
  std::snprintf(buf, sizeof(buf), "Median latency: %.3f ms, p90 %.3f ms over %lld runs; peak memory %lld bytes\n",
                r.medianMs(), r.percentileMs(90), static_cast<long long>(r.no_stats_us.count()),
                static_cast<long long>(r.peak_bytes));
  return buf;
}

nlohmann::json benchmarkJson(const BenchmarkResult& r, const ReportContext& context) {
  nlohmann::json j;
  j["graph"] = context.graph;
  if (!context.benchmark_name.empty()) j["benchmark_name"] = context.benchmark_name;
  j["num_threads"] = context.num_threads;
  j["latency_ms"] = {{"median", r.medianMs()},
                     {"p90", r.percentileMs(90)},
                     {"min", static_cast<double>(r.no_stats_us.min()) / 1000.0},
                     {"max", static_cast<double>(r.no_stats_us.max()) / 1000.0},
                     {"mean", r.no_stats_us.avg() / 1000.0},
                     {"std", r.no_stats_us.stddev() / 1000.0},
                     {"runs", r.no_stats_us.count()}};
  j["warmup_ms"] = r.warmup_us.avg() / 1000.0;
  j["with_stats_mean_ms"] = r.with_stats_us.avg() / 1000.0;
  j["flops"] = r.flops;
  j["flops_per_second"] = flopsPerSecond(r);
  j["peak_memory_bytes"] = r.peak_bytes;
  j["allocated_bytes_per_run"] = r.allocated_bytes;
  j["init_seconds"] = context.init_seconds;
  if (r.stats.numRuns() > 0) {
    const ProfileOverhead o = profileOverhead(r);
    j["profile_overhead"] = {{"node_sum_ms", o.node_sum_ms},
                             {"profiled_run_ms", o.profiled_ms},
                             {"unprofiled_run_ms", o.unprofiled_ms},
                             {"between_nodes_ms", o.outsideNodesMs()}};
  }
  if (r.stats.nodesDefined() > 0) j["nodes_defined"] = r.stats.nodesDefined();
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto* d : r.stats.ordered(StatsCalculator::SortBy::RunOrder)) nodes.push_back(nodeJson(*d, r.stats.numRuns()));
  j["nodes"] = nodes;
  nlohmann::json types = nlohmann::json::array();
  for (const auto& t : r.stats.byType())
    types.push_back({{"type", t.type}, {"count", t.count}, {"avg_ms", static_cast<double>(t.time_us) / 1000.0},
                     {"avg_percent", t.percent}, {"cdf_percent", t.cdf_percent}, {"mem_bytes", t.mem_bytes},
                     {"times_called", t.times_called}});
  j["node_types"] = types;
  return j;
}

std::string formatJson(const BenchmarkResult& result, const ReportContext& context) {
  return benchmarkJson(result, context).dump(2) + "\n";
}

}  // namespace gds::engine
