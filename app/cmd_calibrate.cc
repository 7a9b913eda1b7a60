// gdstudio calibrate: TensorFlow's two-step range calibration (insert_logging,
// run, freeze_requantization_ranges with the log) in one step. Runs
// representative inputs through a quantize_nodes graph in the interpreter,
// reads every RequantizationRange output directly and writes the graph with
// the ranges frozen by the same percentile rule (engine::calibrate).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/flags.h"
#include "engine/eval/calibrate.h"
#include "engine/eval/dataset.h"
#include "model/io.h"

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
    "such as WAV.";

std::vector<FlagSpec> calibrateFlags() {
  using T = FlagSpec::Type;
  return {
      {"graph", T::String, "", "the 8-bit graph (quantize_nodes output)", kRequired | kPath},
      {"output_graph", T::String, "", "where to write the graph with frozen ranges", kRequired | kPath},
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
}

int runCalibrateCommand(int argc, char** argv) {
  Flags flags("calibrate", kUsage, calibrateFlags());
  if (auto exit_code = flags.parseCommand(argc, argv)) return *exit_code;
  const std::string format = flags.str("format");
  if (format != "text" && format != "json") return fail("--format must be text or json, got '" + format + "'");
  const bool dataset_mode = !flags.str("dataset").empty();
  if (dataset_mode == !flags.str("input").empty()) return fail("give exactly one of --dataset=DIR and --input=FILE");
  auto min_percentile = flags.number("min_percentile");
  auto max_percentile = flags.number("max_percentile");
  if (!min_percentile.ok() || !max_percentile.ok()) return fail("--min_percentile and --max_percentile must be numbers");
  for (double p : {*min_percentile, *max_percentile})
    if (p < 0 || p > 100) return fail("--min_percentile and --max_percentile must be between 0 and 100");
  auto mean = flags.number("input_mean");
  auto std_dev = flags.number("input_std");
  auto threads = flags.numThreads();
  if (!threads.ok()) return fail(threads.error());
  if (!mean.ok() || !std_dev.ok()) return fail("--input_mean and --input_std must be numbers");

  auto loaded = model::load(flags.str("graph"));
  if (!loaded.ok()) return fail(loaded.error());
  const tensorflow::GraphDef& graph = loaded->graph;
  auto input = engine::findGraphInput(graph, flags.str("input_layer"));
  if (!input.ok()) return fail(input.error());
  engine::ImagePreprocess preprocess;
  preprocess.mean = static_cast<float>(*mean);
  preprocess.std_dev = static_cast<float>(*std_dev);
  if (!flags.str("input_size").empty()) {
    const auto parts = flags.list("input_size");
    char* end = nullptr;
    bool ok = parts.size() == 2;
    if (ok) {
      preprocess.height = std::strtoll(parts[0].c_str(), &end, 10);
      ok = *end == '\0' && !parts[0].empty();
      if (ok) preprocess.width = std::strtoll(parts[1].c_str(), &end, 10);
      ok = ok && *end == '\0' && !parts[1].empty();
    }
    // The image is resized to H x W floats: bound it before allocating.
    if (!ok || preprocess.height <= 0 || preprocess.width <= 0 || preprocess.height > 8192 ||
        preprocess.width > 8192)
      return fail("--input_size must be H,W (two sizes from 1 to 8192), got '" + flags.str("input_size") + "'");
  }

  std::vector<std::string> paths;
  if (dataset_mode) {
    auto dataset = engine::openDataset(flags.str("dataset"));
    if (!dataset.ok()) return fail("--dataset: " + dataset.error());
    for (const std::string& file : dataset->files) paths.push_back(dataset->dir + "/" + file);
  } else {
    paths = flags.list("input");
  }
  std::vector<std::vector<engine::Tensor>> samples;
  ProgressLine progress;
  for (const std::string& path : paths) {
    progress.update("calibrate: reading input " + std::to_string(samples.size() + 1) + "/" +
                    std::to_string(paths.size()) + " " + path);
    auto t = engine::loadSample(path, *input, preprocess);
    if (!t.ok()) return fail(t.error());
    samples.push_back({std::move(*t)});
  }
  progress.update("calibrate: compiling the graph for " + std::to_string(samples.size()) + " inputs");

  engine::PlanOptions options;
  options.num_threads = static_cast<int>(*threads);
  engine::CalibrationProgress on_run;
  if (progress.enabled())
    on_run = [&progress, &paths](std::size_t done, std::size_t total) {
      progress.update("calibrate: ran input " + std::to_string(done) + "/" + std::to_string(total) + " " +
                      paths[done - 1]);
    };
  auto result = engine::calibrate(graph, {input->name}, samples, static_cast<float>(*min_percentile),
                                  static_cast<float>(*max_percentile), options, on_run);
  progress.finish();
  if (!result.ok()) return fail(flags.str("graph") + ": " + result.error());
  Status saved = model::saveGraph(result->graph, flags.str("output_graph"));
  if (!saved.ok()) return fail(saved.message());

  nlohmann::json ranges = nlohmann::json::array();
  if (format == "text") std::printf("node\tobserved_min\tobserved_max\tfrozen_min\tfrozen_max\n");
  for (const auto& [name, list] : result->samples) {
    float lo = list.front().min, hi = list.front().max;
    for (const auto& s : list) {
      lo = std::min(lo, s.min);
      hi = std::max(hi, s.max);
    }
    const engine::RangeSample& frozen = result->frozen.at(name);
    if (format == "text")
      std::printf("%s\t%.6g\t%.6g\t%.6g\t%.6g\n", name.c_str(), lo, hi, frozen.min, frozen.max);
    ranges.push_back({{"node", name}, {"samples", list.size()}, {"observed_min", lo}, {"observed_max", hi},
                      {"frozen_min", frozen.min}, {"frozen_max", frozen.max}});
  }
  if (format == "json") {
    nlohmann::json j = {{"graph", flags.str("graph")},
                        {"output_graph", flags.str("output_graph")},
                        {"inputs", samples.size()},
                        {"min_percentile", *min_percentile},
                        {"max_percentile", *max_percentile},
                        {"ranges", ranges}};
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::printf("\nFroze %zu ranges (RequantizationRange nodes, fused layers) from %zu inputs; wrote %s\n",
              result->frozen.size(),
              samples.size(), flags.str("output_graph").c_str());
  return 0;
}

const CommandRegistration kRegistration(
    {"calibrate", "freeze the 8-bit graph's requantization ranges from representative inputs", &runCalibrateCommand});

}  // namespace
}  // namespace gds::app
