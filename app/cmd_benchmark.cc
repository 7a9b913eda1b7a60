// gdstudio benchmark: TensorFlow benchmark_model's flags, run flow, log lines
// and tables (Run Order, Top by Computation Time, Top by Memory Use, Summary
// by node type), FLOPs estimate; plus CSV and JSON output.
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "app/benchmark_device.h"
#include "app/arithmetic_flag.h"
#include "app/flags.h"
#include "app/test_reporter.h"
#include "engine/eval/benchmark.h"
#include "engine/eval/benchmark_report.h"
#include "engine/eval/feeds.h"
#include "engine/rewrite/optimize_for_inference.h"
#include "model/endpoints.h"
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
    "element. Inputs default to zeros; --input_layer_files gives .npy files (or raw bytes for string inputs).\n"
    "Without --input_layer or --output_layer the model's own are used (a .tflite file's declared inputs and\n"
    "outputs, a SavedModel's signature, a graph's Placeholders and the nodes nothing consumes), with their\n"
    "shapes and types; an unknown dimension (-1 or ?) runs as 1, with a note. Names may be nodes, tensors or\n"
    "signature keys; a SavedModel runs its signature frozen with its checkpoint.";

std::vector<FlagSpec> benchmarkFlags() {
  using T = FlagSpec::Type;
  return {
      {"graph", T::String, "", "model file (.pb, .pbtxt, .meta, .tflite) or SavedModel directory", kRequired | kPath},
      {"input_layer", T::String, "", "input tensor names, comma separated (default: the model's inputs)"},
      {"input_layer_shape", T::String, "",
       "input shapes, ':' between inputs; -1 runs as 1 (default: the inputs' shapes, unknown dimensions 1)"},
      {"input_layer_type", T::String, "",
       "input types, comma separated (float, int32, uint8, bool, string, ...; default: the inputs' types)"},
      {"input_layer_values", T::String, "", "input values, ':' between inputs, ',' between elements (default zeros)"},
      {"input_layer_files", T::String, "", ".npy files (or raw files for string inputs), ',' between inputs", kPath},
      {"output_layer", T::String, "", "output tensor names, comma separated (default: the model's outputs)"},
      {"signature_name", T::String, "", "SavedModel: the signature to run (default serving_default)"},
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
      winogradFlagSpec(),
      arithmeticFlagSpec(),
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

// What the command line asks for, checked: the flags as the command uses
// them. A new flag lands here and in parseBenchmarkFlags.
struct BenchmarkArgs {
  std::string graph_path;
  std::string signature;
  std::string format;  // text, csv or json
  std::vector<std::string> names, shapes, types, values, files, outputs, targets;
  std::int64_t max_runs = 0, warmup = 0;
  int threads = 0;
  // Printed in the text header as typed.
  std::string inference_delay_text, inter_benchmark_delay_text;
  std::string output_prefix, benchmark_name;
  bool show_sizes = false, show_flops = false;
  engine::PlanOptions plan;
  engine::InferenceRewrites rewrites;
  // The run flow and tables (graph_nodes, fused_ops and progress are set once
  // the graph is compiled).
  engine::BenchmarkOptions benchmark;
};

// The input flags agree with each other: one shape (or file), type and
// value list per --input_layer name.
Status checkInputCounts(const BenchmarkArgs& a) {
  if (a.names.empty()) return Status::Ok();
  const std::string inputs = std::to_string(a.names.size());
  if (a.shapes.size() != a.names.size() && a.files.size() != a.names.size())
    return Status::Error("--input_layer names " + inputs + " inputs but --input_layer_shape gives " +
                         std::to_string(a.shapes.size()) + " shapes (separate shapes with ':')");
  if (a.types.size() != a.names.size())
    return Status::Error("--input_layer names " + inputs + " inputs but --input_layer_type gives " +
                         std::to_string(a.types.size()) + " types");
  if (!a.values.empty() && a.values.size() != a.names.size())
    return Status::Error("--input_layer_values gives values for " + std::to_string(a.values.size()) +
                         " inputs, expected " + inputs + " (separate inputs with ':')");
  if (!a.files.empty() && a.files.size() != a.names.size())
    return Status::Error("--input_layer_files gives " + std::to_string(a.files.size()) + " files, expected " +
                         inputs);
  return Status::Ok();
}

Result<BenchmarkArgs> parseBenchmarkFlags(const Flags& flags) {
  BenchmarkArgs a;
  a.graph_path = flags.str("graph");
  a.format = flags.str("format");
  if (a.format != "text" && a.format != "csv" && a.format != "json")
    return Status::Error("--format must be text, csv or json, got '" + a.format + "'");
  a.names = flags.list("input_layer");
  a.shapes = flags.list("input_layer_shape", ':');
  a.types = flags.list("input_layer_type");
  a.values = flags.list("input_layer_values", ':');
  a.files = flags.list("input_layer_files");
  a.outputs = flags.list("output_layer");
  a.targets = flags.list("target_layer");
  a.signature = flags.str("signature_name");
  // Shapes and types the user gives for inputs the model names are checked
  // once it is loaded (inferInputs).
  if (!a.names.empty() && flags.has("input_layer_shape") && flags.str("input_layer_shape").empty() &&
      a.names.size() == 1)
    a.shapes = {""};  // scalar input
  if (!a.names.empty() && (!a.shapes.empty() || !a.files.empty()) && !a.types.empty()) {
    Status counts = checkInputCounts(a);
    if (!counts.ok()) return counts;
  }

  // Numeric flags were checked by the flag parser.
  a.max_runs = *flags.integer(flags.has("num_runs") ? "num_runs" : "max_num_runs");
  a.warmup = *flags.integer("warmup_runs");
  auto threads = flags.numThreads();
  if (!threads.ok()) return threads.status();
  a.threads = *threads;
  if (a.warmup < 0) return Status::Error("--warmup_runs must be >= 0");
  a.output_prefix = flags.str("output_prefix");
  a.benchmark_name = flags.str("benchmark_name");
  if (!a.output_prefix.empty() && a.benchmark_name.empty())
    return Status::Error(
        "--output_prefix needs --benchmark_name: the TestReporter files are named PREFIX<benchmark_name>...");
  a.inference_delay_text = flags.str("inference_delay");
  a.inter_benchmark_delay_text = flags.str("inter_benchmark_delay");
  a.show_sizes = flags.boolean("show_sizes");
  a.show_flops = flags.boolean("show_flops");

  a.plan.num_threads = a.threads;
  a.plan.reference_kernels = flags.boolean("reference");
  a.plan.winograd = flags.boolean("winograd");
  auto arithmetic = arithmeticFlag(flags);
  if (!arithmetic.ok()) return arithmetic.status();
  a.plan.arithmetic = *arithmetic;
  a.rewrites.fold_and_fuse = flags.boolean("optimize_graph");
  a.rewrites.fuse_quantized = flags.boolean("optimize_graph");

  engine::BenchmarkOptions& o = a.benchmark;
  o.warmup_runs = static_cast<int>(a.warmup);
  o.max_num_runs = static_cast<int>(a.max_runs);
  o.max_time_s = *flags.number("max_time");
  o.inference_delay_s = *flags.number("inference_delay");
  o.inter_benchmark_delay_s = *flags.number("inter_benchmark_delay");
  o.stats.show_run_order = flags.boolean("show_run_order");
  o.stats.run_order_limit = static_cast<int>(*flags.integer("run_order_limit"));
  o.stats.show_time = flags.boolean("show_time");
  o.stats.time_limit = static_cast<int>(*flags.integer("time_limit"));
  o.stats.show_memory = flags.boolean("show_memory");
  o.stats.memory_limit = static_cast<int>(*flags.integer("memory_limit"));
  o.stats.show_type = flags.boolean("show_type");
  o.stats.show_summary = flags.boolean("show_summary");
  o.stats.csv = a.format == "csv";
  return a;
}

// One input tensor from --input_layer_files, or from its shape, type and
// --input_layer_values (zeros by default).
Result<engine::Tensor> makeFeed(const BenchmarkArgs& a, size_t i) {
  const std::string what = "input '" + a.names[i] + "'";
  auto dtype = model::parseDtype(a.types[i]);
  if (!dtype.ok()) return Status::Error("--input_layer_type: " + dtype.error());
  if (!a.files.empty()) return engine::tensorFromFile(a.files[i], *dtype, what);
  auto shape = model::parseShape(a.shapes[i]);
  if (!shape.ok()) return Status::Error("--input_layer_shape for " + what + ": " + shape.error());
  // summarize suggests the Placeholder's shape, -1 for a free batch: run it
  // as 1, as the model's own shape would be.
  bool unknown = false;
  for (auto& d : *shape)
    if (d < 0) {
      d = 1;
      unknown = true;
    }
  if (unknown)
    note("--input_layer_shape for " + what + " (" + a.shapes[i] + ") has unknown dimensions; running it as " +
         joinShape(*shape));
  // Checked before the tensor is allocated: 100000,100000 floats is 37 GiB.
  auto elements = model::checkedElements(shape->data(), shape->size(),
                                         std::max<std::int64_t>(1, static_cast<std::int64_t>(model::dtypeSize(*dtype))),
                                         "--input_layer_shape for " + what + " (" + a.shapes[i] + ")");
  if (!elements.ok()) return elements.status();
  return engine::tensorFromValues(*dtype, *shape, a.values.empty() ? "" : a.values[i], what);
}

// The compiled graph, its feeds and the benchmark's measurements.
struct BenchmarkRun {
  std::shared_ptr<const tensorflow::GraphDef> graph;
  std::vector<engine::Tensor> feeds;
  std::unique_ptr<engine::Plan> plan;
  double init_s = 0;
  engine::BenchmarkResult result;
};

// The inputs, shapes, types and outputs the flags leave out, from the
// model (benchmark_model's defaults, input:0 of 1,224,224,3 and output:0,
// fit no model but its example); every name resolved to a tensor of the
// graph that runs.
Status completeFromModel(BenchmarkArgs& a, const model::RunnableModel& m, std::vector<std::string>* feeds,
                         std::vector<std::string>* fetches) {
  if (a.names.empty())
    for (const auto& in : m.endpoints.inputs) a.names.push_back(in.display());
  auto feed_tensors = model::resolveTensors(m, a.names, "--input_layer");
  if (!feed_tensors.ok()) return feed_tensors.status();
  const bool shapes_given = !a.shapes.empty() || !a.files.empty(), types_given = !a.types.empty();
  for (const auto& t : *feed_tensors) {
    const model::Endpoint e = model::endpointOf(m, t);
    if (!shapes_given) {
      std::string shape_note;
      auto shape = model::concreteShape(e, "--input_layer_shape", &shape_note);
      if (!shape.ok()) return Status::Error(a.graph_path + ": " + shape.error());
      if (!shape_note.empty()) note(shape_note);
      a.shapes.push_back(joinShape(*shape));
    }
    if (!types_given) a.types.push_back(e.dtype == tensorflow::DT_INVALID ? "float" : model::dtypeName(e.dtype));
  }
  Status counts = checkInputCounts(a);
  if (!counts.ok()) return counts;
  if (a.outputs.empty() && a.targets.empty()) {
    if (m.endpoints.outputs.empty())
      return Status::Error(a.graph_path + " has no output (every node is consumed); name one with --output_layer");
    for (const auto& o : m.endpoints.outputs) a.outputs.push_back(o.display());
  }
  auto fetch_tensors = model::resolveTensors(m, a.outputs, "--output_layer");
  if (!fetch_tensors.ok()) return fetch_tensors.status();
  *feeds = std::move(*feed_tensors);
  *fetches = std::move(*fetch_tensors);
  for (const auto& t : a.targets) {
    auto node = model::resolveTensor(m, t, "--target_layer");
    if (!node.ok()) return node.status();
    fetches->push_back("^" + std::string(model::nodeNameOf(*node)));
  }
  return Status::Ok();
}

// Loads the graph and its feeds, compiles the plan (timed as the session's
// initialization) and runs the benchmark.
Result<BenchmarkRun> runBenchmark(BenchmarkArgs& a) {
  model::RunnableOptions open_options;
  open_options.signature = a.signature;
  auto loaded = model::openRunnable(a.graph_path, open_options);
  if (!loaded.ok()) return loaded.status();
  for (const auto& n : loaded->notes) note(n);
  std::vector<std::string> feed_names, fetches;
  Status completed = completeFromModel(a, *loaded, &feed_names, &fetches);
  if (!completed.ok()) return completed;
  BenchmarkRun run;
  auto graph = std::make_shared<tensorflow::GraphDef>(std::move(loaded->model.graph));
  run.graph = graph;
  for (size_t i = 0; i < a.names.size(); ++i) {
    auto t = makeFeed(a, i);
    if (!t.ok()) return t.status();
    run.feeds.push_back(std::move(*t));
  }

  auto compiled = engine::compileForBenchmark(graph, feed_names, fetches, a.plan, a.rewrites);
  if (!compiled.ok()) return Status::Error(a.graph_path + ": " + compiled.error());
  run.plan = std::move(compiled->plan);
  run.init_s = compiled->init_seconds;

  engine::BenchmarkOptions& options = a.benchmark;
  options.graph_nodes = compiled->graph_nodes;
  options.fused_ops = compiled->fused_ops;
  ProgressLine progress;
  if (progress.enabled())
    options.progress = [&progress, &options](const std::string& phase, int done) {
      progress.update("benchmark: " + phase + " run " + std::to_string(done) +
                      (phase == "warmup" ? " of " + std::to_string(options.warmup_runs) : ""));
    };
  auto result = engine::runBenchmark(*run.plan, run.feeds, options);
  progress.finish();
  options.progress = nullptr;
  if (!result.ok()) return Status::Error(a.graph_path + ": " + result.error());
  run.result = std::move(*result);
  if (!a.output_prefix.empty()) {
    Status reported =
        writeTestReports(run.result, run.feeds, a.output_prefix, a.benchmark_name, run.init_s, a.warmup);
    if (!reported.ok()) return Status::Error("--output_prefix: " + reported.message());
  }
  return run;
}

// benchmark_model's header: the flags as it read them.
void printTextHeader(const BenchmarkArgs& a, const BenchmarkRun& run) {
  auto list = [](const std::vector<std::string>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + v[i];
    return "[" + s + "]";
  };
  std::printf("Graph: [%s]\n", a.graph_path.c_str());
  std::printf("Input layers: %s\n", list(a.names).c_str());
  std::printf("Input shapes: %s\n", list(a.files.empty() ? a.shapes : std::vector<std::string>{}).c_str());
  std::printf("Input types: %s\n", list(a.types).c_str());
  std::printf("Output layers: %s\n", list(a.outputs).c_str());
  std::printf("Target layers: %s\n", list(a.targets).c_str());
  std::printf("Num runs: [%lld]\n", static_cast<long long>(a.max_runs));
  std::printf("Inter-inference delay (seconds): [%s]\n", a.inference_delay_text.c_str());
  std::printf("Inter-benchmark delay (seconds): [%s]\n", a.inter_benchmark_delay_text.c_str());
  std::printf("Num threads: [%lld]\n", static_cast<long long>(a.threads));
  std::printf("Benchmark name: [%s]\n", a.benchmark_name.c_str());
  std::printf("Output prefix: [%s]\n", a.output_prefix.c_str());
  std::printf("Show sizes: [%d]\n", a.show_sizes ? 1 : 0);
  std::printf("Warmup runs: [%lld]\n", static_cast<long long>(a.warmup));
  std::printf("Initialized session in %.3fs\n", run.init_s);
  std::printf("%s\n", run.result.log.c_str());
}

// --show_sizes: one more profiled run, and the shapes of every node's outputs.
Status printOutputSizes(const BenchmarkArgs& a, const BenchmarkRun& run) {
  engine::RunProfile profile;
  auto out = run.plan->run(run.feeds, &profile);
  if (!out.ok()) return Status::Error(a.graph_path + ": " + out.error());
  std::printf("============ Node output tensor sizes in run order ========\n");
  const auto& nodes = run.plan->nodes();
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
  return Status::Ok();
}

Status printBenchmark(const BenchmarkArgs& a, const BenchmarkRun& run) {
  const auto& r = run.result;
  if (a.format == "json") {
    engine::ReportContext context;
    context.graph = a.graph_path;
    context.benchmark_name = a.benchmark_name;
    context.num_threads = run.plan->pool().numThreads();
    context.init_seconds = run.init_s;
    std::cout << engine::formatJson(r, context);
    return Status::Ok();
  }
  if (a.format == "text") printTextHeader(a, run);
  if (a.show_sizes) {
    Status sizes = printOutputSizes(a, run);
    if (!sizes.ok()) return sizes;
  }
  std::printf("%s", engine::formatTables(r, a.benchmark.stats, a.show_flops).c_str());
  if (a.format == "text") {
    std::printf("%s", engine::formatProfileOverhead(engine::profileOverhead(r)).c_str());
    std::printf("%s", engine::formatLatencyLine(r).c_str());
  }
  return Status::Ok();
}

// --variants / --device: the graph's variants in turns, here and on the
// device (app/benchmark_device.h).
int runVariantsAndDevice(const Flags& flags, BenchmarkArgs a) {
  if (!a.targets.empty()) return fail("--target_layer cannot be used with --variants or --device");
  model::RunnableOptions open_options;
  open_options.signature = a.signature;
  auto loaded = model::openRunnable(a.graph_path, open_options);
  if (!loaded.ok()) return fail(loaded.error());
  for (const auto& n : loaded->notes) note(n);
  // The inputs, shapes, types and outputs the flags leave out, as for one graph.
  std::vector<std::string> feed_tensors, fetch_tensors;
  Status completed = completeFromModel(a, *loaded, &feed_tensors, &fetch_tensors);
  if (!completed.ok()) return fail(completed.message());
  DeviceBenchmarkInputs in;
  in.source.is_tflite = loaded->model.kind == model::ModelKind::TFLite;
  in.source.graph = std::move(loaded->model.graph);
  in.source.path = a.graph_path;
  in.source.inputs = a.names;
  in.source.input_types = a.types;
  in.source.outputs = a.outputs;
  for (size_t i = 0; i < a.names.size(); ++i) {
    auto t = makeFeed(a, i);
    if (!t.ok()) return fail(t.error());
    in.source.input_shapes.push_back(joinShape(t->shape()));
    in.source.feeds.push_back(std::move(*t));
  }
  in.desktop = a.benchmark;
  in.plan = a.plan;
  in.optimize_graph = a.rewrites.fold_and_fuse;
  in.num_threads = a.threads > 0 ? a.threads : -1;
  in.format = a.format;
  return runDeviceBenchmark(flags, in);
}

int runBenchmarkCommand(int argc, char** argv) {
  std::vector<FlagSpec> specs = benchmarkFlags();
  for (auto& f : deviceFlags()) specs.push_back(f);
  Flags flags("benchmark", kUsage, specs);
  if (auto exit_code = flags.parseCommand(argc, argv)) return *exit_code;
  auto args = parseBenchmarkFlags(flags);
  if (!args.ok()) return fail(args.error());
  if (deviceRequested(flags)) return runVariantsAndDevice(flags, *args);
  auto run = runBenchmark(*args);
  if (!run.ok()) return fail(run.error());
  Status printed = printBenchmark(*args, *run);
  return printed.ok() ? 0 : fail(printed.message());
}

CommandRegistration registration({"benchmark", "time a graph with per-op profiling (benchmark_model's flags)",
                                  &runBenchmarkCommand});

}  // namespace
}  // namespace gds::app
