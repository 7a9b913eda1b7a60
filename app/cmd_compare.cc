// gdstudio compare: a float graph against its 8-bit version on the same
// inputs (engine::compare). One input (--input) gives per-output errors and
// the per-layer table, worst layer first; a dataset folder (--dataset) gives
// the accuracy of each variant, their top-1 agreement and the confusion where
// they disagree.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/flags.h"
#include "engine/compare.h"
#include "engine/feeds.h"
#include "engine/ops/image_decode.h"
#include "engine/ops/nn.h"
#include "model/graph.h"
#include "model/io.h"
#include "model/tensor.h"

namespace gds::app {
namespace {

const char* kUsage =
    "Usage: gdstudio compare --graph=FLOAT.pb --graph2=QUANT.pb --output=NAME (--input=FILE | --dataset=DIR)\n"
    "                        [--labels=labels.csv --label_map=labels.txt] [--format=text|csv|json]\n\n"
    "Runs both graphs on the same inputs in the interpreter. Inputs are .npy files, images (PNG/JPEG: RGB,\n"
    "resized to --input_size, then (x - input_mean) / input_std) or, for string inputs, raw files such as WAV.\n"
    "With --input: per-output max/mean absolute error, RMSE, SQNR, cosine, top-1/top-5, and the layers\n"
    "matched by node name with SQNR and RMSE / quantization step, worst first. With --dataset: accuracy of\n"
    "each variant (labels.csv: file,label; '|' separates accepted labels), agreement, and the confusion.";

std::vector<FlagSpec> compareFlags() {
  using T = FlagSpec::Type;
  return {
      {"graph", T::String, "", "the float model"},
      {"graph2", T::String, "", "the 8-bit model"},
      {"input_layer", T::String, "", "input node (default: the graph's only Placeholder)"},
      {"output", T::String, "", "output node(s) to compare, comma separated"},
      {"output_layer", T::String, "", "alias of --output"},
      {"input", T::String, "", "one input file (.npy, .png, .jpg, .wav, ...)"},
      {"dataset", T::String, "", "folder of input files"},
      {"labels", T::String, "", "labels.csv: file,label (default: <dataset>/labels.csv when present)"},
      {"label_map", T::String, "", "class names, one per line (index = class id)"},
      {"input_size", T::String, "", "image size H,W (default: from the input's shape)"},
      {"input_mean", T::Float, "127.5", "subtracted from image pixels"},
      {"input_std", T::Float, "127.5", "image pixels are divided by this"},
      {"num_threads", T::Int, "1", "intra-op threads"},
      {"layers", T::Int, "20", "rows of the per-layer table (0: all)"},
      {"format", T::String, "text", "text, csv or json"},
  };
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct InputSpec {
  std::string name;
  tensorflow::DataType dtype = tensorflow::DT_FLOAT;
  model::Shape shape;
};

Result<engine::Tensor> loadInput(const std::string& path, const InputSpec& spec, std::int64_t h, std::int64_t w,
                                 float mean, float std_dev) {
  const std::string ext = lower(std::filesystem::path(path).extension().string());
  if (spec.dtype == tensorflow::DT_STRING) return engine::tensorFromFile(path, tensorflow::DT_STRING, path);
  if (ext == ".npy") return engine::tensorFromFile(path, spec.dtype, path);
  if (ext == ".png" || ext == ".jpg" || ext == ".jpeg") {
    auto bytes = model::readFile(path);
    if (!bytes.ok()) return bytes.status();
    engine::ops::DecodedImage image;
    const std::string err = engine::ops::decodeImage(*bytes, 3, &image);
    if (!err.empty()) return Status::Error(path + ": " + err);
    std::vector<float> pixels(image.pixels.begin(), image.pixels.end());
    engine::Tensor t(tensorflow::DT_FLOAT, {1, h, w, 3});
    engine::ops::resizeBilinear(pixels.data(), 1, image.height, image.width, 3, h, w, false, false, t.data<float>());
    for (std::int64_t i = 0; i < t.numElements(); ++i) t.data<float>()[i] = (t.data<float>()[i] - mean) / std_dev;
    return t;
  }
  return Status::Error(path + ": unsupported input file (expected .npy, .png, .jpg or, for string inputs, any file)");
}

std::vector<std::string> readLines(const std::string& path) {
  std::ifstream f(path);
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(f, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

std::string fmt(double v) {
  if (std::isinf(v)) return "inf";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

int runCompareCommand(int argc, char** argv) {
  Flags flags("compare", kUsage, compareFlags());
  Status parsed = flags.parse(argc, argv, 1);
  if (flags.helpRequested()) {
    std::printf("%s\n", flags.helpText().c_str());
    return 0;
  }
  if (!parsed.ok()) return fail(parsed.message());
  if (flags.str("graph").empty() || flags.str("graph2").empty()) return fail("--graph and --graph2 are required");
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

  InputSpec spec;
  spec.name = flags.str("input_layer");
  const tensorflow::NodeDef* input_node = nullptr;
  for (const auto& n : float_graph.node())
    if (n.op() == "Placeholder" && (spec.name.empty() || n.name() == model::parseTensorName(spec.name).node)) {
      if (input_node && spec.name.empty())
        return fail("the graph has several Placeholders; choose one with --input_layer");
      input_node = &n;
    }
  if (!input_node) return fail(spec.name.empty() ? "the float graph has no Placeholder; give --input_layer"
                                                 : "--input_layer: no Placeholder named '" + spec.name + "'");
  if (spec.name.empty()) spec.name = input_node->name();
  if (input_node->attr().count("dtype")) spec.dtype = input_node->attr().at("dtype").type();
  bool known = false;
  if (input_node->attr().count("shape")) spec.shape = model::shapeFromProto(input_node->attr().at("shape").shape(), &known);
  std::int64_t h = 224, w = 224;
  if (known && spec.shape.size() == 4 && spec.shape[1] > 0 && spec.shape[2] > 0) {
    h = spec.shape[1];
    w = spec.shape[2];
  }
  if (!flags.str("input_size").empty()) {
    auto parts = flags.list("input_size");
    if (parts.size() != 2) return fail("--input_size must be H,W, got '" + flags.str("input_size") + "'");
    h = std::stoll(parts[0]);
    w = std::stoll(parts[1]);
  }
  auto mean = flags.number("input_mean");
  auto std_dev = flags.number("input_std");
  auto threads = flags.integer("num_threads");
  auto layer_rows = flags.integer("layers");
  if (!mean.ok() || !std_dev.ok() || !threads.ok() || !layer_rows.ok())
    return fail("--input_mean, --input_std, --num_threads and --layers must be numbers");
  engine::CompareOptions options;
  options.plan.num_threads = static_cast<int>(*threads);
  const std::vector<std::string> outputs = flags.list("output");
  const std::vector<std::string> outs = outputs.empty() ? flags.list("output_layer") : outputs;
  std::vector<std::string> label_map;
  if (!flags.str("label_map").empty()) label_map = readLines(flags.str("label_map"));
  auto className = [&](std::int64_t id) {
    return id >= 0 && static_cast<std::size_t>(id) < label_map.size() ? label_map[static_cast<std::size_t>(id)]
                                                                       : std::to_string(id);
  };

  if (!dataset_mode) {
    auto input = loadInput(flags.str("input"), spec, h, w, static_cast<float>(*mean), static_cast<float>(*std_dev));
    if (!input.ok()) return fail(input.error());
    auto result = engine::compare(float_graph, quant_graph, {spec.name}, {*input}, outs, options);
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
    std::printf("output%cmax_abs%cmean_abs%crmse%csqnr_db%ccosine%ctop1_float%ctop1_8bit%ctop5_overlap\n", sep, sep,
                sep, sep, sep, sep, sep, sep);
    for (const auto& o : result->outputs)
      std::printf("%s%c%s%c%s%c%s%c%s%c%s%c%s%c%s%c%s\n", o.stats.name.c_str(), sep, fmt(o.stats.max_abs).c_str(), sep,
                  fmt(o.stats.mean_abs).c_str(), sep, fmt(o.stats.rmse).c_str(), sep, fmt(o.stats.sqnr_db).c_str(), sep,
                  fmt(o.stats.cosine).c_str(), sep, o.classifier ? className(o.top1_reference[0]).c_str() : "", sep,
                  o.classifier ? className(o.top1_other[0]).c_str() : "", sep,
                  o.classifier ? fmt(o.top5_overlap).c_str() : "");
    std::printf("\nlayer%csqnr_db%crmse%cstep%crmse_over_step\n", sep, sep, sep, sep);
    for (std::size_t i = 0; i < rows; ++i) {
      const auto& l = result->layers[i];
      std::printf("%s%c%s%c%s%c%s%c%s\n", l.name.c_str(), sep, fmt(l.sqnr_db).c_str(), sep, fmt(l.rmse).c_str(), sep,
                  fmt(l.step).c_str(), sep, fmt(l.rmse_over_step).c_str());
    }
    return 0;
  }

  // Dataset mode.
  const std::string dir = flags.str("dataset");
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return fail("--dataset: '" + dir + "' is not a folder");
  std::map<std::string, std::vector<std::string>> labels;
  std::string labels_path = flags.str("labels");
  if (labels_path.empty() && std::filesystem::exists(dir + "/labels.csv")) labels_path = dir + "/labels.csv";
  if (!labels_path.empty()) {
    auto lines = readLines(labels_path);
    for (std::size_t i = 1; i < lines.size(); ++i) {
      const auto comma = lines[i].find(',');
      if (comma == std::string::npos) continue;
      std::vector<std::string> accepted;
      std::stringstream ss(lines[i].substr(comma + 1));
      std::string item;
      while (std::getline(ss, item, '|'))
        if (!item.empty()) accepted.push_back(item);
      labels[lines[i].substr(0, comma)] = accepted;
    }
  }
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    const std::string ext = lower(e.path().extension().string());
    if (e.is_regular_file() && ext != ".csv" && ext != ".txt" && ext != ".md") files.push_back(name);
  }
  std::sort(files.begin(), files.end());
  int n = 0, agree = 0, labelled = 0, correct_float = 0, correct_8bit = 0;
  double sqnr_sum = 0;
  std::map<std::pair<std::string, std::string>, int> confusion;
  engine::CompareOptions dataset_options = options;
  dataset_options.per_layer = false;
  nlohmann::json items = nlohmann::json::array();
  for (const std::string& file : files) {
    auto input = loadInput(dir + "/" + file, spec, h, w, static_cast<float>(*mean), static_cast<float>(*std_dev));
    if (!input.ok()) return fail(input.error());
    auto result = engine::compare(float_graph, quant_graph, {spec.name}, {*input}, outs, dataset_options);
    if (!result.ok()) return fail(file + ": " + result.error());
    const auto& o = result->outputs[0];
    if (!o.classifier) return fail("--dataset needs a classifier output (last dimension >= 2)");
    ++n;
    sqnr_sum += std::isinf(o.stats.sqnr_db) ? 100.0 : o.stats.sqnr_db;
    const std::string a = className(o.top1_reference[0]), b = className(o.top1_other[0]);
    if (a == b) ++agree;
    else ++confusion[{a, b}];
    auto it = labels.find(file);
    if (it != labels.end() && !it->second.empty()) {
      ++labelled;
      // A class name may be "282:tabby, tabby cat": strip the id and accept
      // the full name or any of its comma-separated synonyms.
      auto accepted = [&](std::int64_t id) {
        std::string name = className(id);
        const auto colon = name.find(':');
        if (colon != std::string::npos && name.find_first_not_of("0123456789") == colon) name = name.substr(colon + 1);
        std::vector<std::string> names = {name};
        std::stringstream ss(name);
        std::string part;
        while (std::getline(ss, part, ',')) {
          while (!part.empty() && part[0] == ' ') part.erase(0, 1);
          names.push_back(part);
        }
        for (const auto& n : names)
          if (std::find(it->second.begin(), it->second.end(), n) != it->second.end()) return true;
        return false;
      };
      correct_float += accepted(o.top1_reference[0]) ? 1 : 0;
      correct_8bit += accepted(o.top1_other[0]) ? 1 : 0;
    }
    items.push_back({{"file", file}, {"top1_float", a}, {"top1_8bit", b}, {"sqnr_db", o.stats.sqnr_db}});
  }
  if (format == "json") {
    nlohmann::json j = {{"inputs", n}, {"top1_agreement", agree}, {"labelled", labelled},
                        {"accuracy_float", labelled ? static_cast<double>(correct_float) / labelled : 0.0},
                        {"accuracy_8bit", labelled ? static_cast<double>(correct_8bit) / labelled : 0.0},
                        {"mean_sqnr_db", n ? sqnr_sum / n : 0.0}, {"items", items}};
    for (const auto& [k, v] : confusion) j["confusion"].push_back({{"float", k.first}, {"8bit", k.second}, {"count", v}});
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  const char sep = format == "csv" ? ',' : '\t';
  std::printf("file%ctop1_float%ctop1_8bit%csqnr_db\n", sep, sep, sep);
  for (const auto& it : items)
    std::printf("%s%c%s%c%s%c%s\n", it["file"].get<std::string>().c_str(), sep,
                it["top1_float"].get<std::string>().c_str(), sep, it["top1_8bit"].get<std::string>().c_str(), sep,
                fmt(it["sqnr_db"].get<double>()).c_str());
  std::printf("\ninputs%c%d\ntop1_agreement%c%d/%d\n", sep, n, sep, agree, n);
  if (labelled)
    std::printf("accuracy_float%c%d/%d\naccuracy_8bit%c%d/%d\n", sep, correct_float, labelled, sep, correct_8bit,
                labelled);
  std::printf("mean_sqnr_db%c%s\n", sep, fmt(n ? sqnr_sum / n : 0.0).c_str());
  if (!confusion.empty()) {
    std::printf("\nfloat%c8bit%ccount\n", sep, sep);
    for (const auto& [k, v] : confusion) std::printf("%s%c%s%c%d\n", k.first.c_str(), sep, k.second.c_str(), sep, v);
  }
  return 0;
}

CommandRegistration registration({"compare", "float vs 8-bit: output and per-layer errors, dataset accuracy",
                                  &runCompareCommand});

}  // namespace
}  // namespace gds::app
