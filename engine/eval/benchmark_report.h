// The formats of a BenchmarkResult that `gdstudio benchmark` prints and the
// application's Benchmark panel exports, from one place so both give the
// same numbers: TensorFlow's StatsCalculator tables as tab-separated text or
// CSV, the FLOPs lines benchmark_model prints with --show_flops, the latency
// line, and the JSON document of --format=json.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>

#include "engine/eval/benchmark.h"

namespace gds::engine {

// What the JSON document says about the run besides the result.
struct ReportContext {
  std::string graph;           // "graph": the model file (or the variant's name)
  std::string benchmark_name;  // "benchmark_name", left out when empty
  int num_threads = 1;         // "num_threads"
  double init_seconds = 0;     // "init_seconds": time to compile the plan
};

// FLOPs per second of the timed runs (no per-node statistics).
double flopsPerSecond(const BenchmarkResult& result);

// The tables `tables` asks for (Run Order, Top by Computation Time, Top by
// Memory Use, Summary by node type, Timings/Memory lines), tab-separated as
// TensorFlow prints them or CSV when tables.csv; then, with show_flops,
// "FLOPs estimate: 27.14M" and "FLOPs/second: ..." lines.
std::string formatTables(const BenchmarkResult& result, const StatsOptions& tables, bool show_flops);
// "FLOPs estimate: X\nFLOPs/second: Y\n" (benchmark_model's human-readable numbers).
std::string formatFlops(const BenchmarkResult& result);
// "Median latency: 1.234 ms, p90 1.456 ms over 50 runs; peak memory 123456 bytes\n".
std::string formatLatencyLine(const BenchmarkResult& result);

// The --format=json document: latency (median, p90, min, max, mean, std,
// runs), warm-up and with-statistics means, FLOPs, FLOPs/s, peak and
// allocated memory, init time, the graph's node count (nodes_defined), the
// per-node times against the latency (profile_overhead), every node in run
// order (with the graph ops of fused nodes) and the node types.
nlohmann::json benchmarkJson(const BenchmarkResult& result, const ReportContext& context);
// benchmarkJson dumped with a two-space indent and a final newline.
std::string formatJson(const BenchmarkResult& result, const ReportContext& context);

}  // namespace gds::engine
