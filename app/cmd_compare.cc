// gdstudio compare: a float graph against its 8-bit version on the same
// inputs (engine::compare). One input (--input) gives per-output errors and
// the per-layer table, worst layer first; a dataset folder (--dataset) gives
// the accuracy of each variant, their top-1 agreement and the confusion where
// they disagree.
#include <algorithm>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "app/flags.h"
#include "engine/eval/compare.h"
#include "engine/eval/dataset.h"
#include "model/graph.h"
#include "model/io.h"

namespace gds::app {
namespace {

const char* kUsage =
    "Usage: gdstudio compare --graph=FLOAT.pb --graph2=QUANT.pb --output=NAME (--input=[NAME=]FILE | --dataset=DIR)\n"
    "                        [--labels=labels.csv --label_map=labels.txt] [--format=text|csv|json]\n\n"
    "Runs both graphs on the same inputs in the interpreter. Inputs are .npy files, images (PNG/JPEG: RGB,\n"
    "resized to --input_size, then (x - input_mean) / input_std) or, for string inputs, raw files such as WAV.\n"
    "With --input: per-output max/mean absolute error, RMSE, SQNR, cosine, top-1/top-5, and the layers\n"
    "matched by node name with SQNR and RMSE / quantization step, worst first. With --dataset: accuracy of\n"
    "each variant (labels.csv: file,label; '|' separates accepted labels), agreement, and the confusion.";

std::vector<FlagSpec> compareFlags() {
  using T = FlagSpec::Type;
  return {
      {"graph", T::String, "", "the float model", kRequired | kPath},
      {"graph2", T::String, "", "the 8-bit model", kRequired | kPath},
      {"input_layer", T::String, "", "input node (default: the graph's only Placeholder)"},
      {"output", T::String, "", "output node(s) to compare, comma separated"},
      {"output_layer", T::String, "", "alias of --output"},
      {"input", T::String, "", "one input file (.npy, .png, .jpg, .wav, ...), or NAME=FILE as for 'gdstudio run'"},
      {"dataset", T::String, "", "folder of input files", kPath},
      {"labels", T::String, "", "labels.csv: file,label (default: <dataset>/labels.csv when present)", kPath},
      {"label_map", T::String, "", "class names, one per line (index = class id)", kPath},
      {"input_size", T::String, "", "image size H,W (default: from the input's shape)"},
      {"input_mean", T::Float, "127.5", "subtracted from image pixels"},
      {"input_std", T::Float, "127.5", "image pixels are divided by this"},
      {"num_threads", T::Int, "1", "intra-op threads: -1 or 0 all cores, N threads"},
      {"layers", T::Int, "20", "rows of the per-layer table (0: all)"},
      {"format", T::String, "text", "text, csv or json"},
  };
}

std::string fmt(double v) {
  if (std::isinf(v)) return "inf";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

// "--input=NAME=FILE": (NAME, FILE) when the text has an '=' and is not
// itself an existing file (file names may contain '='); else ("", "").
std::pair<std::string, std::string> splitNamedInput(const tensorflow::GraphDef& graph, const std::string& value) {
  const size_t eq = value.find('=');
  if (eq == std::string::npos || eq == 0) return {};
  std::error_code ec;
  const std::string name = value.substr(0, eq);
  bool is_node = false;
  for (const auto& n : graph.node())
    if (n.name() == model::nodeNameOf(name)) is_node = true;
  if (!is_node && std::filesystem::exists(expandPath(value), ec)) return {};
  return {name, expandPath(value.substr(eq + 1))};
}

// "H,W" as two positive integers.
Result<std::pair<std::int64_t, std::int64_t>> parseImageSize(const std::string& text) {
  const auto parts = splitString(text, ',');
  std::int64_t v[2] = {0, 0};
  bool ok = parts.size() == 2;
  for (size_t i = 0; ok && i < 2; ++i) {
    char* end = nullptr;
    errno = 0;
    const long long x = std::strtoll(parts[i].c_str(), &end, 10);
    ok = !parts[i].empty() && *end == '\0' && errno == 0 && x > 0 && x <= 8192;
    v[i] = x;
  }
  if (!ok) return Status::Error("--input_size must be H,W (two sizes from 1 to 8192), got '" + text + "'");
  return std::make_pair(v[0], v[1]);
}

int runCompareCommand(int argc, char** argv) {
  Flags flags("compare", kUsage, compareFlags());
  if (auto exit_code = flags.parseCommand(argc, argv)) return *exit_code;
  std::string output_flag = flags.str("output").empty() ? flags.str("output_layer") : flags.str("output");
  if (output_flag.empty()) return fail("--output is required (the output node to compare)");
  const bool dataset_mode = !flags.str("dataset").empty();
  if (dataset_mode == !flags.str("input").empty()) return fail("give exactly one of --input=FILE and --dataset=DIR");
  const std::string format = flags.str("format");
  if (format != "text" && format != "csv" && format != "json")
    return fail("--format must be text, csv or json, got '" + format + "'");

  auto g1 = model::load(flags.str("graph"));
  if (!g1.ok()) return fail(g1.error());
  auto g2 = model::load(flags.str("graph2"));
  if (!g2.ok()) return fail(g2.error());
  const tensorflow::GraphDef& float_graph = g1->graph;
  const tensorflow::GraphDef& quant_graph = g2->graph;

  // --input=NAME=FILE (the spelling of `gdstudio run`) names the input too.
  std::string input_file = expandPath(flags.str("input"));
  std::string input_layer = flags.str("input_layer");
  if (!dataset_mode) {
    auto named = splitNamedInput(float_graph, flags.str("input"));
    if (!named.first.empty()) {
      if (!input_layer.empty() && model::nodeNameOf(input_layer) != model::nodeNameOf(named.first))
        return fail("--input names the input '" + named.first + "' but --input_layer says '" + input_layer + "'");
      input_layer = named.first;
      input_file = named.second;
    }
  }
  auto spec = engine::findGraphInput(float_graph, input_layer);
  if (!spec.ok()) return fail("--input_layer: " + spec.error());
  engine::ImagePreprocess preprocess;
  if (!flags.str("input_size").empty()) {
    auto size = parseImageSize(flags.str("input_size"));
    if (!size.ok()) return fail(size.error());
    preprocess.height = size->first;
    preprocess.width = size->second;
  }
  auto mean = flags.number("input_mean");
  auto std_dev = flags.number("input_std");
  auto threads = flags.numThreads();
  if (!threads.ok()) return fail(threads.error());
  auto layer_rows = flags.integer("layers");
  if (!mean.ok() || !std_dev.ok() || !layer_rows.ok())
    return fail("--input_mean, --input_std and --layers must be numbers");
  engine::CompareOptions options;
  options.plan.num_threads = static_cast<int>(*threads);
  const std::vector<std::string> outputs = flags.list("output");
  const std::vector<std::string> outs = outputs.empty() ? flags.list("output_layer") : outputs;
  preprocess.mean = static_cast<float>(*mean);
  preprocess.std_dev = static_cast<float>(*std_dev);
  std::vector<std::string> label_map;
  if (!flags.str("label_map").empty()) {
    auto read = engine::readLabelMap(flags.str("label_map"));
    if (!read.ok()) return fail("--label_map: " + read.error());
    label_map = std::move(*read);
  }
  auto className = [&](std::int64_t id) {
    return id >= 0 && static_cast<std::size_t>(id) < label_map.size() ? label_map[static_cast<std::size_t>(id)]
                                                                       : std::to_string(id);
  };

  if (!dataset_mode) {
    auto input = engine::loadSample(input_file, *spec, preprocess);
    if (!input.ok()) return fail(input.error());
    auto result = engine::compare(float_graph, quant_graph, {spec->name}, {*input}, outs, options);
    if (!result.ok()) return fail(result.error());
    std::size_t rows = result->layers.size();
    if (*layer_rows > 0) rows = std::min<std::size_t>(rows, static_cast<std::size_t>(*layer_rows));
    if (format == "json") {
      nlohmann::json j;
      for (const auto& o : result->outputs) {
        nlohmann::json x = {{"name", o.stats.name}, {"max_abs", o.stats.max_abs}, {"mean_abs", o.stats.mean_abs},
                            {"rmse", o.stats.rmse}, {"sqnr_db", std::isinf(o.stats.sqnr_db) ? 999.0 : o.stats.sqnr_db},
                            {"cosine", o.stats.cosine}};
        if (o.classifier) {
          x["top1_agree"] = o.top1_agree;
          x["rows"] = o.rows;
          x["top5_overlap"] = o.top5_overlap;
          x["top1_float"] = className(o.top1_reference[0]);
          x["top1_8bit"] = className(o.top1_other[0]);
        }
        j["outputs"].push_back(x);
      }
      for (std::size_t i = 0; i < rows; ++i) {
        const auto& l = result->layers[i];
        j["layers"].push_back({{"name", l.name}, {"sqnr_db", std::isinf(l.sqnr_db) ? 999.0 : l.sqnr_db},
                               {"rmse", l.rmse}, {"step", l.step}, {"rmse_over_step", l.rmse_over_step}});
      }
      std::printf("%s\n", j.dump(2).c_str());
      return 0;
    }
    const char sep = format == "csv" ? ',' : '\t';
    auto cell = [&](const std::string& text) { return format == "csv" ? csvField(text) : text; };
    std::printf("output%cmax_abs%cmean_abs%crmse%csqnr_db%ccosine%ctop1_float%ctop1_8bit%ctop5_overlap\n", sep, sep,
                sep, sep, sep, sep, sep, sep);
    for (const auto& o : result->outputs)
      std::printf("%s%c%s%c%s%c%s%c%s%c%s%c%s%c%s%c%s\n", cell(o.stats.name).c_str(), sep, fmt(o.stats.max_abs).c_str(),
                  sep, fmt(o.stats.mean_abs).c_str(), sep, fmt(o.stats.rmse).c_str(), sep, fmt(o.stats.sqnr_db).c_str(),
                  sep, fmt(o.stats.cosine).c_str(), sep, o.classifier ? cell(className(o.top1_reference[0])).c_str() : "",
                  sep, o.classifier ? cell(className(o.top1_other[0])).c_str() : "", sep,
                  o.classifier ? fmt(o.top5_overlap).c_str() : "");
    std::printf("\nlayer%csqnr_db%crmse%cstep%crmse_over_step\n", sep, sep, sep, sep);
    for (std::size_t i = 0; i < rows; ++i) {
      const auto& l = result->layers[i];
      std::printf("%s%c%s%c%s%c%s%c%s\n", cell(l.name).c_str(), sep, fmt(l.sqnr_db).c_str(), sep, fmt(l.rmse).c_str(),
                  sep, fmt(l.step).c_str(), sep, fmt(l.rmse_over_step).c_str());
    }
    return 0;
  }

  // Dataset mode.
  auto dataset = engine::openDataset(flags.str("dataset"), flags.str("labels"));
  if (!dataset.ok()) return fail("--dataset: " + dataset.error());
  engine::DatasetOptions dataset_options;
  dataset_options.compare = options;
  dataset_options.compare.per_layer = false;
  dataset_options.preprocess = preprocess;
  dataset_options.label_map = label_map;
  ProgressLine progress;
  if (progress.enabled())
    dataset_options.progress = [&progress](int done, int total, const std::string& file) {
      progress.update("compare: " + std::to_string(done + 1) + "/" + std::to_string(total) + " " + file);
    };
  auto evaluated = engine::evaluateDataset(float_graph, quant_graph, *spec, *dataset, outs, dataset_options);
  progress.finish();
  if (!evaluated.ok()) return fail(evaluated.error());
  const int n = evaluated->inputs, agree = evaluated->agree, labelled = evaluated->labelled;
  const int correct_float = evaluated->correct_reference, correct_8bit = evaluated->correct_other;
  const double mean_sqnr_db = evaluated->mean_sqnr_db;
  const auto& confusion = evaluated->confusion;
  if (format == "json") {
    nlohmann::json items = nlohmann::json::array();
    for (const auto& item : evaluated->items)
      items.push_back({{"file", item.file}, {"top1_float", item.top1_reference}, {"top1_8bit", item.top1_other},
                       {"sqnr_db", item.sqnr_db}});
    nlohmann::json j = {{"inputs", n}, {"top1_agreement", agree}, {"labelled", labelled},
                        {"accuracy_float", labelled ? static_cast<double>(correct_float) / labelled : 0.0},
                        {"accuracy_8bit", labelled ? static_cast<double>(correct_8bit) / labelled : 0.0},
                        {"mean_sqnr_db", mean_sqnr_db}, {"items", items}};
    for (const auto& [k, v] : confusion) j["confusion"].push_back({{"float", k.first}, {"8bit", k.second}, {"count", v}});
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  const char sep = format == "csv" ? ',' : '\t';
  auto cell = [&](const std::string& text) { return format == "csv" ? csvField(text) : text; };
  std::printf("file%ctop1_float%ctop1_8bit%csqnr_db\n", sep, sep, sep);
  for (const auto& item : evaluated->items)
    std::printf("%s%c%s%c%s%c%s\n", cell(item.file).c_str(), sep, cell(item.top1_reference).c_str(), sep,
                cell(item.top1_other).c_str(), sep, fmt(item.sqnr_db).c_str());
  std::printf("\ninputs%c%d\ntop1_agreement%c%d/%d\n", sep, n, sep, agree, n);
  if (labelled)
    std::printf("accuracy_float%c%d/%d\naccuracy_8bit%c%d/%d\n", sep, correct_float, labelled, sep, correct_8bit,
                labelled);
  std::printf("mean_sqnr_db%c%s\n", sep, fmt(mean_sqnr_db).c_str());
  if (!confusion.empty()) {
    std::printf("\nfloat%c8bit%ccount\n", sep, sep);
    for (const auto& [k, v] : confusion)
      std::printf("%s%c%s%c%d\n", cell(k.first).c_str(), sep, cell(k.second).c_str(), sep, v);
  }
  return 0;
}

CommandRegistration registration({"compare", "float vs 8-bit: output and per-layer errors, dataset accuracy",
                                  &runCompareCommand});

}  // namespace
}  // namespace gds::app
