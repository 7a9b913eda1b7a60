// gdstudio benchmark: TensorFlow benchmark_model's flags, run flow, log lines
// and tables (Run Order, Top by Computation Time, Top by Memory Use, Summary
// by node type), FLOPs estimate; plus CSV and JSON output.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>

#include "app/flags.h"
#include "app/test_reporter.h"
#include "engine/eval/benchmark.h"
#include "engine/eval/benchmark_report.h"
#include "engine/eval/feeds.h"
#include "engine/rewrite/optimize_for_inference.h"
#include "model/io.h"
#include "model/memory_budget.h"
#include "model/shape_inference.h"
#include "model/summary.h"

namespace gds::app {
namespace {

const char* kUsage =
    "Usage: gdstudio benchmark --graph=FILE --input_layer=NAME[,NAME...] --input_layer_shape=1,224,224,3[:SHAPE...]\n"
    "                          --input_layer_type=float[,TYPE...] --output_layer=NAME[,NAME...] [flags]\n\n"
    "Runs a graph in the built-in interpreter the way TensorFlow's benchmark_model does: warm-up runs,\n"
    "timed runs without per-node statistics, then runs with per-node statistics, and prints the same log\n"
    "lines and tables. Shapes of several inputs are separated by ':', values by ':' per input and ',' per\n"
    "element. Inputs default to zeros; --input_layer_files gives .npy files (or raw bytes for string inputs).";

std::vector<FlagSpec> benchmarkFlags() {
  using T = FlagSpec::Type;
  return {
      {"graph", T::String, "", "model file (.pb, .pbtxt, .meta) or SavedModel directory", kRequired | kPath},
      {"input_layer", T::String, "input:0", "input tensor names, comma separated"},
      {"input_layer_shape", T::String, "1,224,224,3", "input shapes, ':' between inputs"},
      {"input_layer_type", T::String, "float", "input types, comma separated (float, int32, uint8, bool, string, ...)"},
      {"input_layer_values", T::String, "", "input values, ':' between inputs, ',' between elements (default zeros)"},
      {"input_layer_files", T::String, "", ".npy files (or raw files for string inputs), ',' between inputs", kPath},
      {"output_layer", T::String, "output:0", "output tensor names, comma separated"},
      {"target_layer", T::String, "", "nodes to run without fetching their outputs, comma separated"},
      {"max_num_runs", T::Int, "1000", "most timed runs per phase"},
      {"num_runs", T::Int, "", "alias of --max_num_runs (older benchmark_model)"},
      {"max_time", T::Float, "10.0", "most seconds per phase"},
      {"warmup_runs", T::Int, "1", "runs before timing"},
      {"inference_delay", T::Float, "-1.0", "seconds to sleep between runs"},
      {"inter_benchmark_delay", T::Float, "-1.0", "seconds to sleep between the timing and the statistics phase"},
      {"num_threads", T::Int, "-1", "intra-op threads: -1 or 0 all cores, N threads"},
      {"reference", T::Bool, "false", "use the plain reference kernels"},
      {"optimize_graph", T::Bool, "true",
       "fold constants and fuse layers before running (false: every node of the graph runs as its own kernel, as "
       "in TensorFlow's benchmark_model)"},
      {"winograd", T::Bool, "true",
       "let float 3x3 stride-1 convolutions with 64+ channels use Winograd's algorithm (F(2x2,3x3) on AVX-512, "
       "F(4x4,3x3) on AVX2; faster; rounding differs from the direct convolution by a few 1e-6 relative)"},
      {"show_run_order", T::Bool, "true", "print the Run Order table"},
      {"run_order_limit", T::Int, "0", "rows of the Run Order table (0: all)"},
      {"show_time", T::Bool, "true", "print the Top by Computation Time table"},
      {"time_limit", T::Int, "10", "rows of the Top by Computation Time table"},
      {"show_memory", T::Bool, "true", "print the Top by Memory Use table"},
      {"memory_limit", T::Int, "10", "rows of the Top by Memory Use table"},
      {"show_type", T::Bool, "true", "print the Summary by node type table"},
      {"show_summary", T::Bool, "true", "print the Timings and Memory lines"},
      {"show_flops", T::Bool, "false", "print the FLOPs estimate and FLOPs/second"},
      {"show_sizes", T::Bool, "false", "print the output tensor sizes of every node in run order"},
      {"benchmark_name", T::String, "", "name of the TestReporter entries (with --output_prefix) and in the JSON"},
      {"output_prefix", T::String, "",
       "with --benchmark_name: write TensorFlow TestReporter files PREFIX<name>, PREFIX<name>_meta-init, "
       "..._meta-first-inference, ..._meta-init-plus-first-inference and one per op type", kPath},
      {"format", T::String, "text", "text, csv or json"},
  };
}

std::string joinShape(const model::Shape& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out;
}

// benchmark_model's TestReporter entries (RecordBenchmarkEntry calls in
// tensorflow/tools/benchmark/benchmark_model.cc): the timed runs with the
// first input's throughput in MB/s, initialization, the warm-up runs, their
// sum, then one entry per op type with its time per statistics run.
Status writeTestReports(const engine::BenchmarkResult& r, const std::vector<engine::Tensor>& feeds,
                        const std::string& prefix, const std::string& name, double init_s, std::int64_t warmup_runs) {
  const std::int64_t timed_runs = r.no_stats_us.count();
  const double timed_s = r.no_stats_us.sum() / 1e6;
  double throughput = -1.0;
  if (!feeds.empty() && timed_s > 0)
    throughput = static_cast<double>(feeds[0].bytes()) * static_cast<double>(timed_runs) / timed_s / (1024.0 * 1024.0);
  const double warmup_s = r.warmup_us.sum() / 1e6;
  struct Entry {
    std::string suffix;
    std::int64_t iters;
    double wall_s, throughput;
  };
  std::vector<Entry> entries = {
      {"", timed_runs, timed_s, throughput},
      {"meta-init", 1, init_s, -1.0},
      {"meta-first-inference", warmup_runs, warmup_s, -1.0},
      {"meta-init-plus-first-inference", 1, init_s + (warmup_runs > 0 ? warmup_s / static_cast<double>(warmup_runs) : 0.0),
       -1.0},
  };
  // ComputeStatsByType's map: op types in name order, time per run.
  std::map<std::string, std::int64_t> by_type;
  for (const auto& t : r.stats.byType()) by_type[t.type] = t.time_us;
  const std::int64_t stat_runs = r.stats.numRuns();
  for (const auto& [type, us] : by_type)
    entries.push_back({type, stat_runs, static_cast<double>(us) * static_cast<double>(stat_runs) / 1e6, -1.0});
  for (const auto& e : entries) {
    const std::string test_name = e.suffix.empty() ? name : name + "_" + e.suffix;
    if (!e.suffix.empty() && by_type.count(e.suffix)) note("Outputting: [" + e.suffix + "]");
    auto written = writeTestReporterEntry(prefix, test_name, e.iters, -1.0, e.wall_s, e.throughput);
    if (!written.ok()) return written.status();
  }
  return Status::Ok();
}

int runBenchmarkCommand(int argc, char** argv) {
  Flags flags("benchmark", kUsage, benchmarkFlags());
  if (auto exit_code = flags.parseCommand(argc, argv)) return *exit_code;
  const std::string graph_path = flags.str("graph");
  const std::string format = flags.str("format");
  if (format != "text" && format != "csv" && format != "json")
    return fail("--format must be text, csv or json, got '" + format + "'");

  std::vector<std::string> names = flags.list("input_layer");
  std::vector<std::string> shapes = flags.list("input_layer_shape", ':');
  std::vector<std::string> types = flags.list("input_layer_type");
  std::vector<std::string> values = flags.list("input_layer_values", ':');
  std::vector<std::string> files = flags.list("input_layer_files");
  std::vector<std::string> outputs = flags.list("output_layer");
  std::vector<std::string> targets = flags.list("target_layer");
  if (outputs.empty() && targets.empty()) return fail("--output_layer is required");
  if (flags.str("input_layer_shape").empty() && names.size() == 1) shapes = {""};  // scalar input
  if (!names.empty()) {
    if (shapes.size() != names.size() && files.size() != names.size())
      return fail("--input_layer names " + std::to_string(names.size()) + " inputs but --input_layer_shape gives " +
                  std::to_string(shapes.size()) + " shapes (separate shapes with ':')");
    if (types.size() != names.size())
      return fail("--input_layer names " + std::to_string(names.size()) + " inputs but --input_layer_type gives " +
                  std::to_string(types.size()) + " types");
    if (!values.empty() && values.size() != names.size())
      return fail("--input_layer_values gives values for " + std::to_string(values.size()) + " inputs, expected " +
                  std::to_string(names.size()) + " (separate inputs with ':')");
    if (!files.empty() && files.size() != names.size())
      return fail("--input_layer_files gives " + std::to_string(files.size()) + " files, expected " +
                  std::to_string(names.size()));
  }

  auto max_runs = flags.integer(flags.has("num_runs") ? "num_runs" : "max_num_runs");
  auto max_time = flags.number("max_time");
  auto warmup = flags.integer("warmup_runs");
  auto threads = flags.numThreads();
  if (!threads.ok()) return fail(threads.error());
  auto delay = flags.number("inference_delay");
  auto between = flags.number("inter_benchmark_delay");
  auto run_limit = flags.integer("run_order_limit");
  auto time_limit = flags.integer("time_limit");
  auto memory_limit = flags.integer("memory_limit");
  if (*warmup < 0) return fail("--warmup_runs must be >= 0");
  const std::string output_prefix = flags.str("output_prefix");
  const std::string benchmark_name = flags.str("benchmark_name");
  if (!output_prefix.empty() && benchmark_name.empty())
    return fail("--output_prefix needs --benchmark_name: the TestReporter files are named PREFIX<benchmark_name>...");

  auto loaded = model::load(graph_path);
  if (!loaded.ok()) return fail(loaded.error());
  auto graph = std::make_shared<tensorflow::GraphDef>(std::move(loaded->graph));

  std::vector<engine::Tensor> feeds;
  std::vector<std::string> feed_names;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string what = "input '" + names[i] + "'";
    auto dtype = model::parseDtype(types[i]);
    if (!dtype.ok()) return fail("--input_layer_type: " + dtype.error());
    Result<engine::Tensor> t = Status::Error("no value");
    if (!files.empty()) {
      t = engine::tensorFromFile(files[i], *dtype, what);
    } else {
      auto shape = model::parseShape(shapes[i]);
      if (!shape.ok()) return fail("--input_layer_shape for " + what + ": " + shape.error());
      for (auto d : *shape)
        if (d < 0) return fail("--input_layer_shape for " + what + " has an unknown dimension; give every dimension a size");
      // Checked before the tensor is allocated: 100000,100000 floats is 37 GiB.
      auto elements = model::checkedElements(shape->data(), shape->size(),
                                             std::max<std::int64_t>(1, static_cast<std::int64_t>(model::dtypeSize(*dtype))),
                                             "--input_layer_shape for " + what + " (" + shapes[i] + ")");
      if (!elements.ok()) return fail(elements.error());
      t = engine::tensorFromValues(*dtype, *shape, values.empty() ? "" : values[i], what);
    }
    if (!t.ok()) return fail(t.error());
    feeds.push_back(std::move(*t));
    feed_names.push_back(names[i]);
  }
  std::vector<std::string> fetches = outputs;
  for (const auto& t : targets) fetches.push_back("^" + t);

  engine::PlanOptions plan_options;
  plan_options.num_threads = static_cast<int>(*threads);
  plan_options.reference_kernels = flags.boolean("reference");
  plan_options.winograd = flags.boolean("winograd");
  engine::InferenceRewrites rewrites;
  rewrites.fold_and_fuse = flags.boolean("optimize_graph");
  rewrites.fuse_quantized = flags.boolean("optimize_graph");
  auto init_start = std::chrono::steady_clock::now();
  // compileForInference in two steps, to keep the rewritten graph: its fused
  // nodes name the graph ops they run in the tables.
  std::shared_ptr<const tensorflow::GraphDef> compiled =
      engine::optimizeForInference(*graph, feed_names, fetches, plan_options, rewrites);
  if (!compiled) compiled = graph;
  auto plan = engine::Plan::compile(compiled, feed_names, fetches, plan_options);
  if (!plan.ok()) return fail(graph_path + ": " + plan.error());
  double init_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - init_start).count();

  engine::BenchmarkOptions options;
  options.warmup_runs = static_cast<int>(*warmup);
  options.max_num_runs = static_cast<int>(*max_runs);
  options.max_time_s = *max_time;
  options.inference_delay_s = *delay;
  options.stats.show_run_order = flags.boolean("show_run_order");
  options.stats.run_order_limit = static_cast<int>(*run_limit);
  options.stats.show_time = flags.boolean("show_time");
  options.stats.time_limit = static_cast<int>(*time_limit);
  options.stats.show_memory = flags.boolean("show_memory");
  options.stats.memory_limit = static_cast<int>(*memory_limit);
  options.stats.show_type = flags.boolean("show_type");
  options.stats.show_summary = flags.boolean("show_summary");
  options.stats.csv = format == "csv";
  options.inter_benchmark_delay_s = *between;
  options.graph_nodes = graph->node_size();
  options.fused_ops = engine::fusedOpsByNode(*compiled);
  ProgressLine progress;
  if (progress.enabled())
    options.progress = [&progress, &options](const std::string& phase, int done) {
      progress.update("benchmark: " + phase + " run " + std::to_string(done) +
                      (phase == "warmup" ? " of " + std::to_string(options.warmup_runs) : ""));
    };
  auto result = engine::runBenchmark(**plan, feeds, options);
  progress.finish();
  if (!result.ok()) return fail(graph_path + ": " + result.error());
  if (!output_prefix.empty()) {
    Status reported = writeTestReports(*result, feeds, output_prefix, benchmark_name, init_s, *warmup);
    if (!reported.ok()) return fail("--output_prefix: " + reported.message());
  }
  const auto& r = *result;

  if (format == "json") {
    engine::ReportContext context;
    context.graph = graph_path;
    context.benchmark_name = flags.str("benchmark_name");
    context.num_threads = (*plan)->pool().numThreads();
    context.init_seconds = init_s;
    std::cout << engine::formatJson(r, context);
    return 0;
  }

  if (format == "text") {
    auto list = [](const std::vector<std::string>& v) {
      std::string s;
      for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + v[i];
      return "[" + s + "]";
    };
    std::printf("Graph: [%s]\n", graph_path.c_str());
    std::printf("Input layers: %s\n", list(names).c_str());
    std::printf("Input shapes: %s\n", list(files.empty() ? shapes : std::vector<std::string>{}).c_str());
    std::printf("Input types: %s\n", list(types).c_str());
    std::printf("Output layers: %s\n", list(outputs).c_str());
    std::printf("Target layers: %s\n", list(targets).c_str());
    std::printf("Num runs: [%lld]\n", static_cast<long long>(*max_runs));
    std::printf("Inter-inference delay (seconds): [%s]\n", flags.str("inference_delay").c_str());
    std::printf("Inter-benchmark delay (seconds): [%s]\n", flags.str("inter_benchmark_delay").c_str());
    std::printf("Num threads: [%lld]\n", static_cast<long long>(*threads));
    std::printf("Benchmark name: [%s]\n", flags.str("benchmark_name").c_str());
    std::printf("Output prefix: [%s]\n", flags.str("output_prefix").c_str());
    std::printf("Show sizes: [%d]\n", flags.boolean("show_sizes") ? 1 : 0);
    std::printf("Warmup runs: [%lld]\n", static_cast<long long>(*warmup));
    std::printf("Initialized session in %.3fs\n", init_s);
    std::printf("%s\n", r.log.c_str());
  }
  if (flags.boolean("show_sizes")) {
    engine::RunProfile profile;
    auto out = (*plan)->run(feeds, &profile);
    if (!out.ok()) return fail(graph_path + ": " + out.error());
    std::printf("============ Node output tensor sizes in run order ========\n");
    const auto& nodes = (*plan)->nodes();
    for (size_t k = 0; k < nodes.size() && k < profile.nodes.size(); ++k) {
      if (nodes[k].graph_index < 0 || profile.nodes[k].calls == 0) continue;
      const auto& shapes_out = profile.nodes[k].output_shapes;
      std::printf("%s\t%zu", nodes[k].name.c_str(), shapes_out.size());
      for (size_t o = 0; o < shapes_out.size(); ++o) {
        std::string dtype = o < nodes[k].output_types.size() ? model::dtypeName(nodes[k].output_types[o]) : "?";
        std::printf("\t%s\t%zu\t[%s]", dtype.c_str(), shapes_out[o].size(), joinShape(shapes_out[o]).c_str());
      }
      std::printf("\n");
    }
    std::printf("\n");
  }
  std::printf("%s", engine::formatTables(r, options.stats, flags.boolean("show_flops")).c_str());
  if (format == "text") {
    std::printf("%s", engine::formatProfileOverhead(engine::profileOverhead(r)).c_str());
    std::printf("%s", engine::formatLatencyLine(r).c_str());
  }
  return 0;
}

CommandRegistration registration({"benchmark", "time a graph with per-op profiling (benchmark_model's flags)",
                                  &runBenchmarkCommand});

}  // namespace
}  // namespace gds::app
