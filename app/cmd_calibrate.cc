// gdstudio calibrate: TensorFlow's two-step range calibration (insert_logging,
// run, freeze_requantization_ranges with the log) in one step. Runs
// representative inputs through a quantize_nodes graph in the interpreter,
// reads every RequantizationRange output directly and writes the graph with
// the ranges frozen by the same percentile rule (engine::calibrate).
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/calibration_report.h"
#include "app/flags.h"
#include "engine/eval/calibrate.h"
#include "engine/eval/dataset.h"
#include "model/io.h"
#include "transforms/tflite/convert.h"

namespace gds::app {
namespace {

const char* kUsage =
    "Usage: gdstudio calibrate --graph=QUANT.pb --output_graph=OUT.pb (--dataset=DIR | --input=FILE[,FILE...])\n"
    "                          [--input_layer=NAME] [--min_percentile=5 --max_percentile=5]\n\n"
    "Runs the inputs through an 8-bit graph made by quantize_nodes (without fallback_min/fallback_max),\n"
    "collects the range every RequantizationRange node computes, and replaces each by the Consts\n"
    "<name>/frozen_min and /frozen_max: the min_percentile-th smallest minimum and the max_percentile-th\n"
    "largest maximum (freeze_requantization_ranges' rule). Inputs are images (PNG/JPEG: RGB, resized\n"
    "to --input_size, then (x - input_mean) / input_std), .npy files or, for string inputs, raw files\n"
    "such as WAV.\n\n"
    "With --report, GRAPH is a float graph and nothing is written: the inputs calibrate TensorFlow Lite's int8\n"
    "conversion (tflite_convert --quantize=int8) and the report says, per tensor it quantizes, the observed range,\n"
    "the range --calibration_method chooses, the share of values that range clips and the histogram\n"
    "(--format=json: the histograms in full).";

std::vector<FlagSpec> calibrateFlags() {
  using T = FlagSpec::Type;
  std::vector<FlagSpec> flags = {
      {"graph", T::String, "", "the 8-bit graph (quantize_nodes output); with --report a float graph",
       kRequired | kPath},
      {"output_graph", T::String, "", "where to write the graph with frozen ranges (required without --report)",
       kPath},
      {"report", T::Bool, "false", "report TensorFlow Lite int8 calibration of a float graph (writes nothing)"},
      {"output_layer", T::String, "", "--report: output nodes, comma separated (default: the nodes nothing consumes)"},
      {"dataset", T::String, "", "folder of representative inputs", kPath},
      {"input", T::String, "", "representative input file(s), comma separated", kPath},
      {"input_layer", T::String, "", "input node (default: the graph's only Placeholder)"},
      {"input_size", T::String, "", "image size H,W (default: from the input's shape)"},
      {"input_mean", T::Float, "127.5", "subtracted from image pixels"},
      {"input_std", T::Float, "127.5", "image pixels are divided by this"},
      {"min_percentile", T::Float, "5", "percentile of the observed minimums to keep"},
      {"max_percentile", T::Float, "5", "percentile of the observed maximums to keep (from the top)"},
      {"num_threads", T::Int, "1", "intra-op threads: -1 or 0 all cores, N threads"},
      {"format", T::String, "text", "text (a tab-separated table) or json (one record per range)"},
  };
  for (FlagSpec& f : calibrationMethodFlags()) flags.push_back(std::move(f));
  return flags;
}

// What the command line asks for, checked: the flags as the command uses
// them. A new flag lands here and in parseCalibrateFlags.
struct CalibrateArgs {
  std::string graph, output_graph;
  std::string format;  // text or json
  std::string dataset;
  std::vector<std::string> inputs;  // --input files
  std::string input_layer;
  double min_percentile = 5, max_percentile = 5;
  engine::ImagePreprocess preprocess;
  engine::PlanOptions plan;
  bool report = false;  // --report: TensorFlow Lite calibration of a float graph
  std::vector<std::string> output_layers;
  transforms::tflite::CalibrationOptions method;
};

Result<CalibrateArgs> parseCalibrateFlags(const Flags& flags) {
  CalibrateArgs a;
  a.format = flags.str("format");
  if (a.format != "text" && a.format != "json")
    return Status::Error("--format must be text or json, got '" + a.format + "'");
  a.report = flags.boolean("report");
  if (!a.report && flags.str("output_graph").empty())
    return Status::Error("--output_graph is required (where to write the graph with frozen ranges), or --report");
  a.dataset = flags.str("dataset");
  if (a.dataset.empty() == flags.str("input").empty())
    return Status::Error("give exactly one of --dataset=DIR and --input=FILE");
  auto min_percentile = flags.number("min_percentile");
  auto max_percentile = flags.number("max_percentile");
  if (!min_percentile.ok() || !max_percentile.ok())
    return Status::Error("--min_percentile and --max_percentile must be numbers");
  for (double p : {*min_percentile, *max_percentile})
    if (p < 0 || p > 100) return Status::Error("--min_percentile and --max_percentile must be between 0 and 100");
  a.min_percentile = *min_percentile;
  a.max_percentile = *max_percentile;
  auto mean = flags.number("input_mean");
  auto std_dev = flags.number("input_std");
  auto threads = flags.numThreads();
  if (!threads.ok()) return threads.status();
  if (!mean.ok() || !std_dev.ok()) return Status::Error("--input_mean and --input_std must be numbers");
  a.preprocess.mean = static_cast<float>(*mean);
  a.preprocess.std_dev = static_cast<float>(*std_dev);
  if (!flags.str("input_size").empty()) {
    auto size = parseImageSize(flags.str("input_size"));
    if (!size.ok()) return size.status();
    a.preprocess.height = size->first;
    a.preprocess.width = size->second;
  }
  a.plan.num_threads = static_cast<int>(*threads);
  a.graph = flags.str("graph");
  a.output_graph = flags.str("output_graph");
  a.inputs = flags.list("input");
  a.input_layer = flags.str("input_layer");
  a.output_layers = flags.list("output_layer");
  if (a.report && !a.output_graph.empty())
    return Status::Error("--report writes nothing: it reads a float graph; drop --output_graph");
  if (!a.report && !a.output_layers.empty()) return Status::Error("--output_layer is for --report");
  auto method = parseCalibrationMethodFlags(flags);
  if (!method.ok()) return method.status();
  a.method = *method;
  return a;
}

// The representative inputs, decoded for the graph's input.
Result<std::vector<std::vector<engine::Tensor>>> loadSamples(const CalibrateArgs& a, const engine::InputSpec& input,
                                                             const std::vector<std::string>& paths,
                                                             ProgressLine& progress) {
  return engine::loadSamples(paths, input, a.preprocess,
                             [&progress](std::size_t done, std::size_t total, const std::string& path) {
                               progress.update("calibrate: reading input " + std::to_string(done + 1) + "/" +
                                               std::to_string(total) + " " + path);
                             });
}

// The range table (text) or records (json) and the closing line.
void printCalibration(const CalibrateArgs& a, const engine::CalibrationResult& result, std::size_t inputs) {
  nlohmann::json ranges = nlohmann::json::array();
  if (a.format == "text") std::printf("node\tobserved_min\tobserved_max\tfrozen_min\tfrozen_max\n");
  for (const auto& [name, list] : result.samples) {
    float lo = list.front().min, hi = list.front().max;
    for (const auto& s : list) {
      lo = std::min(lo, s.min);
      hi = std::max(hi, s.max);
    }
    const engine::RangeSample& frozen = result.frozen.at(name);
    if (a.format == "text")
      std::printf("%s\t%.6g\t%.6g\t%.6g\t%.6g\n", name.c_str(), lo, hi, frozen.min, frozen.max);
    ranges.push_back({{"node", name}, {"samples", list.size()}, {"observed_min", lo}, {"observed_max", hi},
                      {"frozen_min", frozen.min}, {"frozen_max", frozen.max}});
  }
  if (a.format == "json") {
    nlohmann::json j = {{"graph", a.graph},
                        {"output_graph", a.output_graph},
                        {"inputs", inputs},
                        {"min_percentile", a.min_percentile},
                        {"max_percentile", a.max_percentile},
                        {"ranges", ranges}};
    std::printf("%s\n", j.dump(2).c_str());
    return;
  }
  std::printf("\nFroze %zu ranges (RequantizationRange nodes, fused layers) from %zu inputs; wrote %s\n",
              result.frozen.size(), inputs, a.output_graph.c_str());
}

// --report: the float graph converted to int8 in memory on the samples, and
// what calibration saw of each tensor.
int reportTfliteCalibration(const CalibrateArgs& a, const tensorflow::GraphDef& graph, const std::string& input,
                            std::vector<std::vector<engine::Tensor>> samples, ProgressLine& progress) {
  transforms::tflite::ConvertOptions options;
  options.inputs = {input};
  options.outputs = a.output_layers;
  options.quantize = transforms::tflite::Quantize::Int8;
  options.calibration = std::move(samples);
  options.calibration_method = a.method;
  options.num_threads = a.plan.num_threads;
  if (progress.enabled())
    options.calibration_progress = [&progress](int done, int total) {
      progress.update("calibrate: input " + std::to_string(done + 1) + " of " + std::to_string(total));
    };
  auto converted = transforms::tflite::convertToTflite(graph, options);
  progress.finish();
  if (!converted.ok()) return fail(a.graph + ": " + converted.error());
  if (a.format == "json") {
    nlohmann::json j = calibrationReportJson(*converted, a.method);
    j["graph"] = a.graph;
    j["inputs"] = options.calibration.size();
    std::printf("%s\n", j.dump(1).c_str());
  } else {
    std::printf("%s", calibrationReportText(*converted, a.method).c_str());
  }
  return 0;
}

int runCalibrateCommand(int argc, char** argv) {
  Flags flags("calibrate", kUsage, calibrateFlags());
  if (auto exit_code = flags.parseCommand(argc, argv)) return *exit_code;
  auto args = parseCalibrateFlags(flags);
  if (!args.ok()) return fail(args.error());
  const CalibrateArgs& a = *args;

  auto loaded = model::load(a.graph);
  if (!loaded.ok()) return fail(loaded.error());
  const tensorflow::GraphDef& graph = loaded->graph;
  auto input = engine::findGraphInput(graph, a.input_layer);
  if (!input.ok()) return fail(input.error());
  std::vector<std::string> paths = a.inputs;
  if (!a.dataset.empty()) {
    auto dataset = engine::openDataset(a.dataset);
    if (!dataset.ok()) return fail("--dataset: " + dataset.error());
    paths = dataset->paths();
  }
  ProgressLine progress;
  auto samples = loadSamples(a, *input, paths, progress);
  if (!samples.ok()) return fail(samples.error());
  if (a.report) return reportTfliteCalibration(a, graph, input->name, std::move(*samples), progress);
  progress.update("calibrate: compiling the graph for " + std::to_string(samples->size()) + " inputs");

  engine::CalibrationProgress on_run;
  if (progress.enabled())
    on_run = [&progress, &paths](std::size_t done, std::size_t total) {
      progress.update("calibrate: ran input " + std::to_string(done) + "/" + std::to_string(total) + " " +
                      paths[done - 1]);
    };
  auto result = engine::calibrate(graph, {input->name}, *samples, static_cast<float>(a.min_percentile),
                                  static_cast<float>(a.max_percentile), a.plan, on_run);
  progress.finish();
  if (!result.ok()) return fail(a.graph + ": " + result.error());
  Status saved = model::saveGraph(result->graph, a.output_graph);
  if (!saved.ok()) return fail(saved.message());
  printCalibration(a, *result, samples->size());
  return 0;
}

const CommandRegistration kRegistration(
    {"calibrate", "freeze the 8-bit graph's requantization ranges from representative inputs", &runCalibrateCommand});

}  // namespace
}  // namespace gds::app
