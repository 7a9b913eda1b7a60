// gdstudio compare: a float graph against its 8-bit version on the same
// inputs (engine::compare). One input (--input) gives per-output errors and
// the per-layer table, worst layer first; a dataset folder (--dataset) gives
// the accuracy of each variant, their top-1 agreement and the confusion where
// they disagree.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "app/arithmetic_flag.h"
#include "app/benchmark_device.h"
#include "app/flags.h"
#include "device/device_compare.h"
#include "engine/eval/arithmetic_compare.h"
#include "engine/eval/compare.h"
#include "engine/eval/dataset.h"
#include "engine/rewrite/optimize_for_inference.h"
#include "model/endpoints.h"
#include "model/graph.h"
#include "model/io.h"
#include "model/npy.h"

namespace gds::app {
namespace {

const char* kUsage =
    "Usage: gdstudio compare --graph=FLOAT.pb --graph2=QUANT.pb [--output=NAME [--output2=NAME]]\n"
    "                        (--input=[NAME=]FILE | --dataset=DIR)\n"
    "                        [--labels=labels.csv --label_map=labels.txt] [--format=text|csv|json]\n"
    "       gdstudio compare --graph=MODEL.tflite --arithmetic=A --arithmetic2=B (--input=[NAME=]FILE | --dataset=DIR)\n"
    "       gdstudio compare --graph=MODEL --device=URI [--device_runtime=armnn|gdstudio] --input=[NAME=]FILE\n\n"
    "Runs both graphs on the same inputs in the interpreter. Inputs are .npy files, images (PNG/JPEG: RGB,\n"
    "resized to --input_size, then (x - input_mean) / input_std) or, for string inputs, raw files such as WAV.\n"
    "With --input: per-output max/mean absolute error, RMSE, SQNR, cosine, top-1/top-5, and the layers\n"
    "matched by node name with SQNR and RMSE / quantization step, worst first. With --dataset: accuracy of\n"
    "each variant (labels.csv: file,label; '|' separates accepted labels), agreement, and the confusion.\n"
    "Either model may be a frozen graph, a SavedModel (its signature frozen) or a .tflite file; names may be\n"
    "nodes, tensors or signature keys, resolved in each model. Where the two name an input or output\n"
    "differently, --input_layer2 and --output2 give the second model's names.\n"
    "With --arithmetic2 instead of --graph2: one .tflite model under two runtimes' int8 arithmetic (A and B:\n"
    "tflite-xnnpack, tflite-builtin, tflite-reference, armnn), every tensor compared in execution order: the\n"
    "first layer where they part, the steps each layer and output differ by, and the inputs whose top-1 class\n"
    "flips.\n"
    "With --device instead: the model on the desktop (under --arithmetic) and on the device with its runtime (Arm NN\n"
    "runs the .tflite; gdstudio runs the model file), on the same input, output by output: whether the device\n"
    "computes what the desktop shows.";

std::vector<FlagSpec> compareFlags() {
  using T = FlagSpec::Type;
  return {
      {"graph", T::String, "", "the float model", kRequired | kPath},
      {"graph2", T::String, "", "the 8-bit model (not with --arithmetic2)", kPath},
      {"input_layer", T::String, "",
       "input (node, tensor or signature key; default: the model's only input)"},
      {"output", T::String, "",
       "output(s) to compare, comma separated: nodes, tensors or signature keys (default: the model's outputs)"},
      {"output_layer", T::String, "", "alias of --output"},
      {"input_layer2", T::String, "", "the input's name in --graph2 when it differs (default: the same name)"},
      {"output2", T::String, "",
       "the outputs' names in --graph2 when they differ, in --output's order (default: the same names)"},
      {"signature_name", T::String, "", "SavedModels: the signature to run (default serving_default)"},
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
      arithmeticFlagSpec(),
      {"arithmetic2", T::String, "",
       "compare --graph (a .tflite) under --arithmetic and under this arithmetic instead of against --graph2"},
  };
}

// compareFlags() and the device's (app/benchmark_device.h). Comparing needs
// the outputs back, which benchmark_model does not write: Arm NN by default.
std::vector<FlagSpec> compareAndDeviceFlags() {
  std::vector<FlagSpec> specs = compareFlags();
  for (FlagSpec f : deviceConnectionFlags()) {
    if (f.name == "device_runtime") {
      f.default_value = "armnn";
      f.help = "the device's runtime: armnn (Arm NN through pyarmnn, on the .tflite) or gdstudio (TensorFlow Lite's "
               "benchmark_model writes no outputs)";
    }
    specs.push_back(f);
  }
  return specs;
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

// What the command line asks for, checked: the flags as the command uses
// them. A new flag lands here and in parseCompareFlags.
struct CompareArgs {
  std::string graph, graph2;
  std::string format;  // text, csv or json
  bool dataset_mode = false;
  std::string input;        // --input as typed (may be NAME=FILE)
  std::string input_layer;  // --input_layer ("": the graph's only input)
  std::string input_layer2;
  std::vector<std::string> outputs2;
  std::string signature;
  std::string dataset, labels, label_map;
  std::vector<std::string> outputs;
  std::int64_t layer_rows = 0;  // 0: all
  engine::ImagePreprocess preprocess;
  engine::CompareOptions compare;
  // --arithmetic2: --graph under compare.plan.arithmetic and under this.
  bool arithmetic_mode = false;
  engine::lowp::Arithmetic arithmetic2 = engine::lowp::kDefaultArithmetic;
  // --device: --graph on the desktop against the device's run of it.
  bool device_mode = false;
};

Result<CompareArgs> parseCompareFlags(const Flags& flags) {
  CompareArgs a;
  a.graph = flags.str("graph");
  a.graph2 = flags.str("graph2");
  auto arithmetic = arithmeticFlag(flags);
  if (!arithmetic.ok()) return arithmetic.status();
  a.compare.plan.arithmetic = *arithmetic;
  a.arithmetic_mode = flags.has("arithmetic2");
  a.device_mode = !flags.str("device").empty();
  if (a.device_mode) {
    if (!a.graph2.empty() || a.arithmetic_mode)
      return Status::Error("--device compares --graph on the desktop with the device's run of it; leave out "
                           "--graph2 and --arithmetic2");
    if (flags.str("input").empty())
      return Status::Error("--device compares one input: give --input=FILE (not --dataset)");
  } else if (a.arithmetic_mode) {
    auto second = arithmeticFlag(flags, "arithmetic2");
    if (!second.ok()) return second.status();
    a.arithmetic2 = *second;
    if (!a.graph2.empty())
      return Status::Error("give --graph2 (a float graph against its 8-bit version) or --arithmetic2 (one .tflite "
                           "under two arithmetics), not both");
  } else if (a.graph2.empty()) {
    return Status::Error("--graph2 is required (the 8-bit model), or --arithmetic2 to run --graph under two "
                         "arithmetics");
  }
  a.dataset = flags.str("dataset");
  a.input = flags.str("input");
  a.dataset_mode = !a.dataset.empty();
  if (a.dataset_mode == !a.input.empty()) return Status::Error("give exactly one of --input=FILE and --dataset=DIR");
  a.format = flags.str("format");
  if (a.format != "text" && a.format != "csv" && a.format != "json")
    return Status::Error("--format must be text, csv or json, got '" + a.format + "'");
  a.input_layer = flags.str("input_layer");
  a.input_layer2 = flags.str("input_layer2");
  a.outputs2 = flags.list("output2");
  a.signature = flags.str("signature_name");
  a.labels = flags.str("labels");
  a.label_map = flags.str("label_map");
  if (!flags.str("input_size").empty()) {
    auto size = parseImageSize(flags.str("input_size"));
    if (!size.ok()) return size.status();
    a.preprocess.height = size->first;
    a.preprocess.width = size->second;
  }
  auto threads = flags.numThreads();
  if (!threads.ok()) return threads.status();
  auto mean = flags.number("input_mean");
  auto std_dev = flags.number("input_std");
  auto layer_rows = flags.integer("layers");
  if (!mean.ok() || !std_dev.ok() || !layer_rows.ok())
    return Status::Error("--input_mean, --input_std and --layers must be numbers");
  a.compare.plan.num_threads = static_cast<int>(*threads);
  a.preprocess.mean = static_cast<float>(*mean);
  a.preprocess.std_dev = static_cast<float>(*std_dev);
  a.layer_rows = *layer_rows;
  const std::vector<std::string> outputs = flags.list("output");
  a.outputs = outputs.empty() ? flags.list("output_layer") : outputs;
  return a;
}

// The two models, the input they are fed, the outputs compared (as tensors
// of each) and the class names.
struct CompareInputs {
  model::RunnableModel float_model, quant_model;
  engine::InputSpec spec;
  std::string input_file;  // --input mode
  std::vector<std::string> output_names;      // as reported (the first model's names)
  std::vector<std::string> float_outputs;     // tensors of the first model
  std::vector<std::string> quant_outputs;     // tensors of the second
  std::string quant_input;                    // the input's tensor in the second ("": the same name)
  std::vector<std::string> label_map;
};

Result<model::RunnableModel> openModel(const std::string& path, const std::string& signature) {
  model::RunnableOptions options;
  options.signature = signature;
  auto m = model::openRunnable(path, options);
  if (!m.ok()) return m.status();
  for (const auto& n : m->notes) note(n);
  return m;
}

// Whether `second` starts inside `first`: one of its Placeholders is a node
// `first` computes (a keyword model exported to TFLite from Mfcc on).
bool startsInside(const tensorflow::GraphDef& first, const tensorflow::GraphDef& second) {
  std::set<std::string> computed;
  for (const auto& n : first.node())
    if (n.op() != "Placeholder") computed.insert(n.name());
  for (const auto& n : second.node())
    if (n.op() == "Placeholder" && computed.count(n.name())) return true;
  return false;
}

// The input both models are fed: --input_layer (or the NAME of
// --input=NAME=FILE), else the first model's only input; its name in the
// second model when it resolves there or --input_layer2 gives it.
Status chooseInput(const CompareArgs& a, CompareInputs& in) {
  std::string input_layer = a.input_layer;
  if (!a.dataset_mode) {
    auto named = splitNamedInput(in.float_model.model.graph, a.input);
    if (!named.first.empty()) {
      if (!input_layer.empty() && input_layer != named.first &&
          model::nodeNameOf(input_layer) != model::nodeNameOf(named.first))
        return Status::Error("--input names the input '" + named.first + "' but --input_layer says '" +
                             input_layer + "'");
      input_layer = named.first;
      in.input_file = named.second;
    }
  }
  const auto& inputs = in.float_model.endpoints.inputs;
  if (input_layer.empty()) {
    if (inputs.size() != 1)
      return Status::Error("--input_layer: " + a.graph + " has " + std::to_string(inputs.size()) + " inputs (" +
                           model::endpointList(inputs) + "); name the one to feed");
    input_layer = inputs[0].display();
  }
  auto tensor = model::resolveTensor(in.float_model, input_layer, "--input_layer");
  if (!tensor.ok()) return tensor.status();
  const model::Endpoint e = model::endpointOf(in.float_model, *tensor);
  const model::TensorRef ref = model::parseTensorName(*tensor);
  in.spec.name = ref.port == 0 ? ref.node : *tensor;
  in.spec.dtype = e.dtype == tensorflow::DT_INVALID ? tensorflow::DT_FLOAT : e.dtype;
  in.spec.shape = e.known_rank ? e.shape : model::Shape{};
  // In the second model: --input_layer2, else the same name when it names
  // something there under another tensor (a signature key); a name it does
  // not have stays, for a model that starts inside the first (compare.h).
  const std::string name2 = a.input_layer2.empty() ? input_layer : a.input_layer2;
  auto tensor2 = model::resolveTensor(in.quant_model, name2, a.input_layer2.empty() ? "--input_layer" : "--input_layer2");
  if (!tensor2.ok() && (!a.input_layer2.empty() || !startsInside(in.float_model.model.graph, in.quant_model.model.graph)))
    return Status::Error(tensor2.error() + "; give the input's name in " + a.graph2 + " with --input_layer2");
  if (tensor2.ok() && model::parseTensorName(*tensor2).node != ref.node) in.quant_input = *tensor2;
  return Status::Ok();
}

// The outputs compared: --output (default: the first model's), resolved in
// each model; --output2 names them in the second, else the same names, else
// (without --output) the second model's own outputs in order.
Status chooseOutputs(const CompareArgs& a, CompareInputs& in) {
  std::vector<std::string> names = a.outputs;
  const bool given = !names.empty();
  if (!given)
    for (const auto& o : in.float_model.endpoints.outputs) names.push_back(o.display());
  if (names.empty()) return Status::Error(a.graph + " has no output; name one with --output");
  auto first = model::resolveTensors(in.float_model, names, "--output");
  if (!first.ok()) return first.status();
  in.output_names = names;
  in.float_outputs = *first;
  if (!a.outputs2.empty()) {
    if (a.outputs2.size() != names.size())
      return Status::Error("--output2 gives " + std::to_string(a.outputs2.size()) + " names for " +
                           std::to_string(names.size()) + " outputs");
    auto second = model::resolveTensors(in.quant_model, a.outputs2, "--output2");
    if (!second.ok()) return second.status();
    in.quant_outputs = *second;
    return Status::Ok();
  }
  auto second = model::resolveTensors(in.quant_model, names, "--output");
  if (second.ok()) {
    in.quant_outputs = *second;
    return Status::Ok();
  }
  const auto& own = in.quant_model.endpoints.outputs;
  if (given || own.size() != names.size())
    return Status::Error(second.error() + "; give its name in " + a.graph2 + " with --output2");
  for (const auto& o : own) in.quant_outputs.push_back(o.tensor);
  return Status::Ok();
}

Result<CompareInputs> loadCompareInputs(const CompareArgs& a) {
  auto g1 = openModel(a.graph, a.signature);
  if (!g1.ok()) return g1.status();
  // --arithmetic2 and --device run the one model twice: it is its own second model.
  auto g2 = openModel(a.arithmetic_mode || a.device_mode ? a.graph : a.graph2, a.signature);
  if (!g2.ok()) return g2.status();
  CompareInputs in;
  in.float_model = std::move(*g1);
  in.quant_model = std::move(*g2);
  // --input=NAME=FILE (the spelling of `gdstudio run`) names the input too.
  in.input_file = expandPath(a.input);
  Status input = chooseInput(a, in);
  if (!input.ok()) return input;
  Status outputs = chooseOutputs(a, in);
  if (!outputs.ok()) return outputs;
  if (!a.label_map.empty()) {
    auto read = engine::readLabelMap(a.label_map);
    if (!read.ok()) return Status::Error("--label_map: " + read.error());
    in.label_map = std::move(*read);
  }
  return in;
}

// The comparison's names: the second model's input and outputs where they
// differ from the first's.
engine::CompareOptions compareOptions(const CompareArgs& a, const CompareInputs& in) {
  engine::CompareOptions options = a.compare;
  if (!in.quant_input.empty()) options.other_feed_names = {in.quant_input};
  if (in.quant_outputs != in.float_outputs) options.other_outputs = in.quant_outputs;
  return options;
}

// A class id as its name in --label_map, else the number.
std::string className(const std::vector<std::string>& label_map, std::int64_t id) {
  return id >= 0 && static_cast<std::size_t>(id) < label_map.size() ? label_map[static_cast<std::size_t>(id)]
                                                                     : std::to_string(id);
}

// Text and CSV cells: a CSV field is quoted when it must be.
struct Cells {
  explicit Cells(const std::string& format) : csv(format == "csv"), sep(csv ? ',' : '\t') {}
  std::string operator()(const std::string& text) const { return csv ? csvField(text) : text; }
  bool csv;
  char sep;
};

void printCompareJson(const engine::CompareResult& result, const CompareInputs& in, std::size_t rows) {
  nlohmann::json j;
  for (const auto& o : result.outputs) {
    nlohmann::json x = {{"name", o.stats.name}, {"max_abs", o.stats.max_abs}, {"mean_abs", o.stats.mean_abs},
                        {"rmse", o.stats.rmse}, {"sqnr_db", std::isinf(o.stats.sqnr_db) ? 999.0 : o.stats.sqnr_db},
                        {"cosine", o.stats.cosine}};
    if (o.classifier) {
      x["top1_agree"] = o.top1_agree;
      x["rows"] = o.rows;
      x["top5_overlap"] = o.top5_overlap;
      x["top1_float"] = className(in.label_map, o.top1_reference[0]);
      x["top1_8bit"] = className(in.label_map, o.top1_other[0]);
    }
    j["outputs"].push_back(x);
  }
  for (std::size_t i = 0; i < rows; ++i) {
    const auto& l = result.layers[i];
    j["layers"].push_back({{"name", l.name}, {"sqnr_db", std::isinf(l.sqnr_db) ? 999.0 : l.sqnr_db},
                           {"rmse", l.rmse}, {"step", l.step}, {"rmse_over_step", l.rmse_over_step}});
  }
  std::printf("%s\n", j.dump(2).c_str());
}

void printCompareTable(const engine::CompareResult& result, const CompareInputs& in, std::size_t rows,
                       const Cells& cell) {
  const char sep = cell.sep;
  std::printf("output%cmax_abs%cmean_abs%crmse%csqnr_db%ccosine%ctop1_float%ctop1_8bit%ctop5_overlap\n", sep, sep,
              sep, sep, sep, sep, sep, sep);
  for (const auto& o : result.outputs)
    std::printf("%s%c%s%c%s%c%s%c%s%c%s%c%s%c%s%c%s\n", cell(o.stats.name).c_str(), sep, fmt(o.stats.max_abs).c_str(),
                sep, fmt(o.stats.mean_abs).c_str(), sep, fmt(o.stats.rmse).c_str(), sep, fmt(o.stats.sqnr_db).c_str(),
                sep, fmt(o.stats.cosine).c_str(), sep,
                o.classifier ? cell(className(in.label_map, o.top1_reference[0])).c_str() : "", sep,
                o.classifier ? cell(className(in.label_map, o.top1_other[0])).c_str() : "", sep,
                o.classifier ? fmt(o.top5_overlap).c_str() : "");
  std::printf("\nlayer%csqnr_db%crmse%cstep%crmse_over_step\n", sep, sep, sep, sep);
  for (std::size_t i = 0; i < rows; ++i) {
    const auto& l = result.layers[i];
    std::printf("%s%c%s%c%s%c%s%c%s\n", cell(l.name).c_str(), sep, fmt(l.sqnr_db).c_str(), sep, fmt(l.rmse).c_str(),
                sep, fmt(l.step).c_str(), sep, fmt(l.rmse_over_step).c_str());
  }
}

// --input: both graphs on one input, per output and per layer.
int compareOneInput(const CompareArgs& a, const CompareInputs& in) {
  auto input = engine::loadSample(in.input_file, in.spec, a.preprocess);
  if (!input.ok()) return fail(input.error());
  auto result = engine::compare(in.float_model.model.graph, in.quant_model.model.graph, {in.spec.name}, {*input},
                                in.float_outputs, compareOptions(a, in));
  if (!result.ok()) return fail(result.error());
  for (std::size_t i = 0; i < result->outputs.size() && i < in.output_names.size(); ++i)
    result->outputs[i].stats.name = in.output_names[i];
  std::size_t rows = result->layers.size();
  if (a.layer_rows > 0) rows = std::min<std::size_t>(rows, static_cast<std::size_t>(a.layer_rows));
  if (a.format == "json") printCompareJson(*result, in, rows);
  else printCompareTable(*result, in, rows, Cells(a.format));
  return 0;
}

void printDatasetJson(const engine::DatasetResult& r) {
  nlohmann::json items = nlohmann::json::array();
  for (const auto& item : r.items) {
    nlohmann::json x = {{"file", item.file}, {"sqnr_db", item.sqnr_db}};
    if (r.classifier) {
      x["top1_float"] = item.top1_reference;
      x["top1_8bit"] = item.top1_other;
    }
    items.push_back(x);
  }
  nlohmann::json j = {{"inputs", r.inputs}, {"classifier", r.classifier}, {"mean_sqnr_db", r.mean_sqnr_db},
                      {"items", items}};
  if (r.classifier) {
    j["top1_agreement"] = r.agree;
    j["labelled"] = r.labelled;
    j["accuracy_float"] = r.labelled ? static_cast<double>(r.correct_reference) / r.labelled : 0.0;
    j["accuracy_8bit"] = r.labelled ? static_cast<double>(r.correct_other) / r.labelled : 0.0;
  }
  for (const auto& o : r.outputs)
    j["outputs"].push_back({{"name", o.error.stats.name}, {"max_abs", o.error.stats.max_abs},
                            {"mean_abs", o.error.stats.mean_abs}, {"rmse", o.error.stats.rmse},
                            {"sqnr_db", o.error.stats.sqnr_db}});
  for (const auto& [k, v] : r.confusion) j["confusion"].push_back({{"float", k.first}, {"8bit", k.second}, {"count", v}});
  std::printf("%s\n", j.dump(2).c_str());
}

void printDatasetTable(const engine::DatasetResult& r, const Cells& cell) {
  const char sep = cell.sep;
  const int n = r.inputs;
  if (!r.classifier) {
    // No classes (a regression or a single sigmoid): each input's SQNR, and
    // the outputs' errors over all of them.
    std::printf("file%csqnr_db\n", sep);
    for (const auto& item : r.items) std::printf("%s%c%s\n", cell(item.file).c_str(), sep, fmt(item.sqnr_db).c_str());
    std::printf("\ninputs%c%d\nmean_sqnr_db%c%s\n", sep, n, sep, fmt(r.mean_sqnr_db).c_str());
    std::printf("\noutput%cmax_abs%cmean_abs%crmse\n", sep, sep, sep);
    for (const auto& o : r.outputs)
      std::printf("%s%c%s%c%s%c%s\n", cell(o.error.stats.name).c_str(), sep, fmt(o.error.stats.max_abs).c_str(), sep,
                  fmt(o.error.stats.mean_abs).c_str(), sep, fmt(o.error.stats.rmse).c_str());
    return;
  }
  std::printf("file%ctop1_float%ctop1_8bit%csqnr_db\n", sep, sep, sep);
  for (const auto& item : r.items)
    std::printf("%s%c%s%c%s%c%s\n", cell(item.file).c_str(), sep, cell(item.top1_reference).c_str(), sep,
                cell(item.top1_other).c_str(), sep, fmt(item.sqnr_db).c_str());
  std::printf("\ninputs%c%d\ntop1_agreement%c%d/%d\n", sep, n, sep, r.agree, n);
  if (r.labelled)
    std::printf("accuracy_float%c%d/%d\naccuracy_8bit%c%d/%d\n", sep, r.correct_reference, r.labelled, sep,
                r.correct_other, r.labelled);
  std::printf("mean_sqnr_db%c%s\n", sep, fmt(r.mean_sqnr_db).c_str());
  if (!r.confusion.empty()) {
    std::printf("\nfloat%c8bit%ccount\n", sep, sep);
    for (const auto& [k, v] : r.confusion)
      std::printf("%s%c%s%c%d\n", cell(k.first).c_str(), sep, cell(k.second).c_str(), sep, v);
  }
}

// --dataset: both graphs on every input of the folder, accuracy and agreement.
int compareDataset(const CompareArgs& a, const CompareInputs& in) {
  auto dataset = engine::openDataset(a.dataset, a.labels);
  if (!dataset.ok()) return fail("--dataset: " + dataset.error());
  engine::DatasetOptions options;
  options.compare = compareOptions(a, in);
  options.compare.per_layer = false;
  options.preprocess = a.preprocess;
  options.label_map = in.label_map;
  ProgressLine progress;
  if (progress.enabled())
    options.progress = [&progress](int done, int total, const std::string& file) {
      progress.update("compare: " + std::to_string(done + 1) + "/" + std::to_string(total) + " " + file);
    };
  auto evaluated = engine::evaluateDataset(in.float_model.model.graph, in.quant_model.model.graph, in.spec, *dataset,
                                          in.float_outputs, options);
  progress.finish();
  if (!evaluated.ok()) return fail(evaluated.error());
  if (a.format == "json") printDatasetJson(*evaluated);
  else printDatasetTable(*evaluated, Cells(a.format));
  return 0;
}

// --arithmetic2: --graph under two arithmetics on one input or a folder.
void printArithmeticJson(const engine::ArithmeticComparison& c, const CompareArgs& a,
                         const std::vector<std::string>& sample_names) {
  nlohmann::json j = {{"arithmetic", engine::lowp::arithmeticName(a.compare.plan.arithmetic)},
                      {"arithmetic2", engine::lowp::arithmeticName(a.arithmetic2)},
                      {"inputs", c.samples},
                      {"differing_tensors", c.differing_tensors},
                      {"tensors_compared", c.tensors.size()}};
  j["first_differing"] = c.first_differing < 0 ? nlohmann::json(nullptr)
                                               : nlohmann::json(c.tensors[static_cast<std::size_t>(c.first_differing)].tensor);
  for (const auto& o : c.outputs) {
    nlohmann::json x = {{"name", o.tensor}, {"max_steps", o.max_steps}, {"max_abs", o.max_abs}, {"step", o.step}};
    if (o.classifier) {
      x["rows"] = o.rows;
      x["top1_flips"] = o.top1_flips;
      nlohmann::json files = nlohmann::json::array();
      for (std::int64_t s : o.flipped_samples) files.push_back(sample_names[static_cast<std::size_t>(s)]);
      x["flipped_inputs"] = files;
    }
    j["outputs"].push_back(x);
  }
  j["tensors"] = nlohmann::json::array();
  for (const auto& t : c.tensors) {
    nlohmann::json x = {{"name", t.tensor}, {"op", t.op}, {"differing", t.differing}, {"total", t.total}};
    if (t.integer) x["max_steps"] = t.max_steps;
    else {
      x["max_abs"] = t.max_abs;
      x["max_rel"] = t.max_rel;
    }
    j["tensors"].push_back(x);
  }
  std::printf("%s\n", j.dump(2).c_str());
}

void printArithmeticCsv(const engine::ArithmeticComparison& c) {
  std::printf("tensor,op,integer,max_steps,max_abs,max_rel,differing,total\n");
  for (const auto& t : c.tensors)
    std::printf("%s,%s,%d,%s,%s,%s,%lld,%lld\n", csvField(t.tensor).c_str(), t.op.c_str(), t.integer ? 1 : 0,
                fmt(t.max_steps).c_str(), fmt(t.max_abs).c_str(), fmt(t.max_rel).c_str(),
                static_cast<long long>(t.differing), static_cast<long long>(t.total));
}

int compareArithmeticsCommand(const CompareArgs& a, const CompareInputs& in) {
  std::vector<std::vector<engine::Tensor>> samples;
  std::vector<std::string> names;
  if (a.dataset_mode) {
    auto dataset = engine::openDataset(a.dataset, a.labels);
    if (!dataset.ok()) return fail("--dataset: " + dataset.error());
    for (const std::string& file : dataset->files) {
      auto t = engine::loadSample(dataset->dir + "/" + file, in.spec, a.preprocess);
      if (!t.ok()) return fail(t.error());
      samples.push_back({std::move(*t)});
      names.push_back(file);
    }
  } else {
    auto t = engine::loadSample(in.input_file, in.spec, a.preprocess);
    if (!t.ok()) return fail(t.error());
    samples.push_back({std::move(*t)});
    names.push_back(std::filesystem::path(in.input_file).filename().string());
  }
  engine::PlanOptions second = a.compare.plan;
  second.arithmetic = a.arithmetic2;
  auto c = engine::compareArithmetics(in.float_model.model.graph, {in.spec.name}, samples, in.float_outputs,
                                      a.compare.plan, second);
  if (!c.ok()) return fail(c.error());
  if (a.format == "json") {
    printArithmeticJson(*c, a, names);
  } else if (a.format == "csv") {
    printArithmeticCsv(*c);
  } else {
    std::printf("%s", engine::formatArithmeticComparison(*c, engine::lowp::arithmeticName(a.compare.plan.arithmetic),
                                                          engine::lowp::arithmeticName(a.arithmetic2))
                          .c_str());
    for (const auto& o : c->outputs)
      if (!o.flipped_samples.empty()) {
        std::printf("\ntop-1 of %s flips on:", o.tensor.c_str());
        for (std::int64_t s : o.flipped_samples) std::printf(" %s", names[static_cast<std::size_t>(s)].c_str());
        std::printf("\n");
      }
  }
  return 0;
}

// The file the device runs: the .tflite as it is (Arm NN and gdstudio read
// it), another model as the GraphDef the desktop runs (a SavedModel's
// signature frozen) written in `temp`.
Result<device::DeviceModel> deviceModelFor(const CompareArgs& a, const CompareInputs& in, const std::string& temp) {
  const model::LoadedModel& m = in.float_model.model;
  device::DeviceModel dm;
  dm.label = std::filesystem::path(a.graph).filename().string();
  if (m.kind == model::ModelKind::TFLite) {
    dm.path = m.file.empty() ? m.path : m.file;
    dm.arithmetic = engine::lowp::arithmeticName(a.compare.plan.arithmetic);
  } else {
    dm.path = temp + "/model.pb";
    Status saved = model::saveGraph(m.graph, dm.path, model::SaveFormat::Binary);
    if (!saved.ok()) return saved;
  }
  dm.input_names = {in.spec.name};
  dm.outputs = in.float_outputs;
  return dm;
}

void printDeviceComparison(const device::DeviceComparison& run, const CompareArgs& a, const std::string& input) {
  const bool equal = run.equal();
  const std::vector<engine::ArithmeticOutputDiff>& outputs = run.outputs;
  const std::string desktop = std::string("desktop (gdstudio, ") +
                              engine::lowp::arithmeticName(a.compare.plan.arithmetic) + ")";
  if (a.format == "json") {
    nlohmann::json j = {{"desktop", desktop}, {"device", run.device}, {"runtime", run.runtime},
                        {"command", run.command}, {"input", input}, {"equal", equal}};
    j["outputs"] = nlohmann::json::array();
    for (const auto& o : outputs) {
      nlohmann::json x = {{"name", o.tensor}, {"max_abs", o.max_abs}, {"differing", o.differing}, {"total", o.total}};
      if (o.integer || o.step > 0) x["max_steps"] = o.max_steps;
      if (o.classifier) x["top1_flips"] = o.top1_flips;
      j["outputs"].push_back(x);
    }
    std::printf("%s\n", j.dump(2).c_str());
    return;
  }
  std::printf("%s vs %s with %s, input %s\n%s", desktop.c_str(), run.device.c_str(), run.runtime.c_str(), input.c_str(),
              engine::formatOutputDiffs(outputs).c_str());
  std::printf(equal ? "\nthe device computes exactly what the desktop shows\n"
                    : "\nthe device's outputs differ from the desktop's (above)\n");
}

// --device: --graph on the desktop (under --arithmetic) and on the device
// with its runtime, on the same input, output by output.
int compareOnDevice(const Flags& flags, const CompareArgs& a, const CompareInputs& in) {
  auto options = deviceOptions(flags);
  if (!options.ok()) return fail(options.error());
  const model::LoadedModel& m = in.float_model.model;
  const bool tflite = m.kind == model::ModelKind::TFLite;
  // Before connecting: a runtime that cannot return outputs is refused here.
  if (Status s = device::checkRuntimeReturnsOutputs(options->runtime); !s.ok()) return fail(s.message());
  if (options->runtime == device::RuntimeKind::Armnn) {
    if (!tflite)
      return fail("--device_runtime=armnn runs a .tflite; " + a.graph + " is a " + model::modelKindName(m.kind) +
                  " (convert it with gdstudio tflite_convert, or compare with --device_runtime=gdstudio)");
    if (!a.outputs.empty())
      return fail("--output: Arm NN's runner returns every output of the .tflite; leave --output out to compare "
                  "them all");
  }
  auto input = engine::loadSample(in.input_file, in.spec, a.preprocess);
  if (!input.ok()) return fail(input.error());
  TempFolder temp("compare");
  if (temp.path.empty()) return fail("cannot make a local temporary folder for the device's files");
  auto dm = deviceModelFor(a, in, temp.path);
  if (!dm.ok()) return fail(dm.error());
  device::DeviceCompareModel model;
  model.graph = &m.graph;
  model.feeds = {in.spec.name};
  model.fetches = in.float_outputs;
  model.names = in.output_names;
  model.plan = a.compare.plan;
  model.device = std::move(*dm);
  ProgressLine progress;
  if (progress.enabled()) options->progress = [&progress](const std::string& text) { progress.update(text); };
  auto bench = device::DeviceBench::open(*options);
  if (!bench.ok()) return fail(bench.error());
  auto compared = device::compareWithDevice(**bench, model, {{*input}}, temp.path);
  Status closed = (*bench)->close();
  progress.finish();
  if (!compared.ok()) return fail(compared.error());
  if (!closed.ok()) return fail(closed.message());
  printDeviceComparison(*compared, a, std::filesystem::path(in.input_file).filename().string());
  return 0;
}

int runCompareCommand(int argc, char** argv) {
  Flags flags("compare", kUsage, compareAndDeviceFlags());
  if (auto exit_code = flags.parseCommand(argc, argv)) return *exit_code;
  auto args = parseCompareFlags(flags);
  if (!args.ok()) return fail(args.error());
  auto inputs = loadCompareInputs(*args);
  if (!inputs.ok()) return fail(inputs.error());
  if (args->arithmetic_mode) return compareArithmeticsCommand(*args, *inputs);
  if (args->device_mode) return compareOnDevice(flags, *args, *inputs);
  return args->dataset_mode ? compareDataset(*args, *inputs) : compareOneInput(*args, *inputs);
}

CommandRegistration registration({"compare", "float vs 8-bit: output and per-layer errors, dataset accuracy",
                                  &runCompareCommand});

}  // namespace
}  // namespace gds::app
