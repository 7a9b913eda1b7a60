#include "app/tflite_convert_tf.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "model/dot_export.h"
#include "model/io.h"
#include "model/tflite/builtin_ops.h"
#include "model/tflite/dialect.h"

namespace gds::app {
namespace {

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// _parse_inference_type.
Result<tensorflow::DataType> parseInferenceType(const std::string& value, const std::string& flag) {
  const std::string v = upper(value);
  if (v == "FLOAT" || v == "FLOAT32") return tensorflow::DT_FLOAT;
  if (v == "INT8") return tensorflow::DT_INT8;
  if (v == "UINT8" || v == "QUANTIZED_UINT8") return tensorflow::DT_UINT8;
  // 16x8 models take int16 inputs (TensorFlow 2's inference_input_type=tf.int16).
  const bool io = flag != "inference_type";
  if (io && v == "INT16") return tensorflow::DT_INT16;
  return Status::Error("Unsupported value for `" + flag + "` flag. Expected FLOAT, INT8, " +
                       (io ? "INT16, " : "") + "UINT8, or QUANTIZED_UINT8 instead got " + value + ".");
}

Result<std::vector<double>> parseNumbers(const std::string& text, const std::string& flag) {
  std::vector<double> out;
  for (const std::string& item : splitString(text, ',')) {
    if (item.empty()) continue;
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(item.c_str(), &end);
    if (!end || *end != '\0' || errno == ERANGE)
      return Status::Error("--" + flag + ": '" + item + "' is not a number");
    out.push_back(v);
  }
  return out;
}

Result<std::optional<double>> optionalNumber(const Flags& flags, const std::string& flag) {
  if (!flags.has(flag) || flags.str(flag).empty()) return std::optional<double>();
  auto v = parseNumbers(flags.str(flag), flag);
  if (!v.ok()) return v.status();
  if (v->size() != 1) return Status::Error("--" + flag + " takes one number, got '" + flags.str(flag) + "'");
  return std::optional<double>((*v)[0]);
}

// --mean_values, --std_dev_values, --default_ranges_min/max with
// _check_tf1_flags' rules.
Status parseQuantizationStats(const Flags& flags, TensorFlowConverterFlags& tf) {
  if (flags.has("std_dev_values") != flags.has("mean_values"))
    return Status::Error("--std_dev_values and --mean_values must be used together");
  auto mean = parseNumbers(flags.str("mean_values"), "mean_values");
  if (!mean.ok()) return mean.status();
  auto std_dev = parseNumbers(flags.str("std_dev_values"), "std_dev_values");
  if (!std_dev.ok()) return std_dev.status();
  if (mean->size() != std_dev->size())
    return Status::Error("--std_dev_values, --mean_values must have the same number of items");
  for (double s : *std_dev)
    if (s == 0) return Status::Error("--std_dev_values must not be 0 (the input scale is 1 / std_dev)");
  tf.mean_values = *mean;
  tf.std_dev_values = *std_dev;
  auto lo = optionalNumber(flags, "default_ranges_min");
  if (!lo.ok()) return lo.status();
  auto hi = optionalNumber(flags, "default_ranges_max");
  if (!hi.ok()) return hi.status();
  if (lo->has_value() != hi->has_value())
    return Status::Error("--default_ranges_min and --default_ranges_max must be used together");
  if (lo->has_value()) {
    if (!(**lo <= **hi))
      return Status::Error("--default_ranges_min (" + flags.str("default_ranges_min") +
                           ") must not be above --default_ranges_max (" + flags.str("default_ranges_max") + ")");
    tf.default_ranges = std::make_pair(**lo, **hi);
  }
  return Status::Ok();
}

// --target_ops and --experimental_select_user_tf_ops.
Status parseTargetOps(const Flags& flags, TensorFlowConverterFlags& tf) {
  static const std::vector<std::string> kOpsSets = {"TFLITE_BUILTINS", "SELECT_TF_OPS", "TFLITE_BUILTINS_INT8",
                                                    "EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8"};
  for (const std::string& option : flags.list("target_ops")) {
    if (std::find(kOpsSets.begin(), kOpsSets.end(), option) == kOpsSets.end())
      return Status::Error("Invalid value for --target_ops. Options: TFLITE_BUILTINS,SELECT_TF_OPS,"
                           "TFLITE_BUILTINS_INT8,EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8");
    if (option == "SELECT_TF_OPS") tf.select_tf_ops = true;
    if (option == "TFLITE_BUILTINS_INT8") tf.builtins_int8 = true;
    if (option == "EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8") tf.int16x8 = true;
  }
  if (tf.select_tf_ops)
    return Status::Error("--target_ops=SELECT_TF_OPS (TensorFlow ops run by the Flex delegate) is not written by "
                         "gdstudio, which exports TensorFlow Lite builtins only; `gdstudio check_ops "
                         "--runtime=tflite` lists the nodes that need it");
  if (!flags.str("experimental_select_user_tf_ops").empty())
    return Status::Error("--experimental_select_user_tf_ops can only be set if --target_ops contains SELECT_TF_OPS.");
  return Status::Ok();
}

// Flags that cannot be honoured, with the gdstudio flag that does the job.
Status refuseUnhonoured(const Flags& flags, TensorFlowConverterFlags& tf) {
  const bool post_training = flags.boolean("post_training_quantize") || flags.boolean("quantize_weights");
  if (post_training && flags.boolean("quantize_to_float16")) {
    tf.float16 = true;
  } else if (post_training) {
    tf.dynamic_range = true;
  } else if (flags.boolean("quantize_to_float16")) {
    tf.notes.push_back("--quantize_to_float16 will only take effect with the --post_training_quantize flag enabled.");
  }
  if (!flags.str("change_concat_input_ranges").empty()) {
    const std::string v = upper(flags.str("change_concat_input_ranges"));
    if (v != "TRUE" && v != "FALSE")
      return Status::Error("--change_concat_input_ranges: invalid choice: '" + flags.str("change_concat_input_ranges") +
                           "' (choose from 'TRUE', 'FALSE')");
    if (v == "TRUE")
      return Status::Error("--change_concat_input_ranges=TRUE is not how gdstudio quantizes a concatenation: each "
                           "input is requantized to the output's range (TensorFlow's FALSE, the default)");
  }
  if (flags.boolean("dump_graphviz_video") && flags.str("dump_graphviz_dir").empty())
    return Status::Error("--dump_graphviz_video must be used with --dump_graphviz_dir");
  if (!flags.str("custom_opdefs").empty() && !flags.boolean("allow_custom_ops"))
    return Status::Error("--custom_opdefs must be used with --allow_custom_ops");
  if (flags.boolean("allow_custom_ops"))
    tf.notes.push_back("--allow_custom_ops: every op of the model has a TensorFlow Lite builtin or the conversion "
                       "stops at it, naming it (gdstudio writes no custom operators, which it could not run)");
  return Status::Ok();
}

std::string dotFile(const std::string& dir, const std::string& name) {
  return (std::filesystem::path(dir) / name).string();
}

// op -> count of a graph's nodes (a dialect graph's by builtin name).
std::map<std::string, int> opCounts(const tensorflow::GraphDef& graph) {
  std::map<std::string, int> ops;
  for (const auto& n : graph.node()) {
    if (n.op() == "Const" || n.op() == model::tflite::kNoValueOp) continue;
    const auto* b = model::tflite::isDialectOp(n.op()) ? model::tflite::builtinByOpType(n.op()) : nullptr;
    ++ops[b ? b->name : n.op()];
  }
  return ops;
}

std::string htmlEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out += c;
  }
  return out;
}

// toco_conversion_summary.html: the ops before and after, the model's inputs
// and outputs and the converter's notes.
std::string conversionSummaryHtml(const tensorflow::GraphDef& imported,
                                  const transforms::tflite::ConvertResult& converted, const std::string& output_file) {
  std::string html = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Conversion summary</title></head>"
                     "<body>\n<h1>Conversion summary: " + htmlEscape(output_file) + "</h1>\n";
  auto table = [&html](const std::string& title, const std::map<std::string, int>& ops) {
    html += "<h2>" + title + "</h2>\n<table border=\"1\"><tr><th>op</th><th>count</th></tr>\n";
    for (const auto& [op, count] : ops)
      html += "<tr><td>" + htmlEscape(op) + "</td><td>" + std::to_string(count) + "</td></tr>\n";
    html += "</table>\n";
  };
  table("TensorFlow ops (" + std::to_string(imported.node_size()) + " nodes)", opCounts(imported));
  table("TensorFlow Lite operators", opCounts(converted.graph));
  html += "<h2>Inputs and outputs</h2>\n<ul>\n";
  for (const auto& in : converted.inputs) html += "<li>input " + htmlEscape(in) + "</li>\n";
  for (std::size_t k = 0; k < converted.outputs.size(); ++k)
    html += "<li>output " + htmlEscape(converted.outputs[k]) +
            (k < converted.graph_outputs.size() ? " = " + htmlEscape(converted.graph_outputs[k]) : std::string()) +
            "</li>\n";
  html += "</ul>\n";
  if (!converted.notes.empty()) {
    html += "<h2>Notes</h2>\n<ul>\n";
    for (const auto& n : converted.notes) html += "<li>" + htmlEscape(n) + "</li>\n";
    html += "</ul>\n";
  }
  return html + "</body></html>\n";
}

}  // namespace

std::vector<FlagSpec> tensorflowConverterFlags() {
  using T = FlagSpec::Type;
  return {
      {"output_format", T::String, "TFLITE",
       "TFLITE, or GRAPHVIZ_DOT to write the converted model as a Graphviz .dot file instead"},
      {"inference_type", T::String, "FLOAT",
       "FLOAT; INT8 quantizes with TensorFlow 1.x's ranges (FakeQuant nodes, --mean_values/--std_dev_values, "
       "--default_ranges_min/max), int8 inputs and outputs"},
      {"mean_values", T::String, "", "quantized inputs: real = (q - mean) / std_dev, one per input, comma separated"},
      {"std_dev_values", T::String, "", "quantized inputs: see --mean_values"},
      {"default_ranges_min", T::String, "",
       "\"dummy quantization\": the min of every tensor without a FakeQuant range"},
      {"default_ranges_max", T::String, "", "\"dummy quantization\": the max, see --default_ranges_min"},
      {"post_training_quantize", T::Bool, "false",
       "TensorFlow's dynamic-range quantization (as --quantize=dynamic); with --quantize_to_float16, float16 weights"},
      {"quantize_weights", T::Bool, "false", "old name of --post_training_quantize"},
      {"quantize_to_float16", T::Bool, "false", "with --post_training_quantize only (as in TensorFlow)"},
      {"drop_control_dependency", T::Bool, "true",
       "accepted: TensorFlow Lite has no control dependencies, they are always dropped"},
      {"reorder_across_fake_quant", T::Bool, "false",
       "accepted: a FakeQuant node anywhere gives the range of the tensor it reads"},
      {"change_concat_input_ranges", T::String, "",
       "FALSE (TensorFlow's default: concatenation inputs requantized); TRUE is refused"},
      {"allow_custom_ops", T::Bool, "false", "accepted; an op without a TensorFlow Lite builtin still stops the conversion"},
      {"custom_opdefs", T::String, "", "accepted with --allow_custom_ops"},
      {"target_ops", T::String, "",
       "TFLITE_BUILTINS (default); TFLITE_BUILTINS_INT8 insists on an int8 model; SELECT_TF_OPS is refused"},
      {"experimental_select_user_tf_ops", T::String, "", "with --target_ops=SELECT_TF_OPS only"},
      {"dump_graphviz_dir", T::String, "",
       "write toco_AT_IMPORT.dot and toco_AFTER_TRANSFORMATIONS.dot (the model before and after) to this folder",
       kPath},
      {"dump_graphviz_video", T::Bool, "false", "with --dump_graphviz_dir: one .dot file per conversion stage"},
      {"conversion_summary_dir", T::String, "",
       "write toco_conversion_summary.html (the ops before and after, inputs, outputs, notes) to this folder", kPath},
      {"experimental_new_converter", T::Bool, "true", "accepted (gdstudio has one converter)"},
      {"experimental_new_quantizer", T::Bool, "false", "accepted (gdstudio has one quantizer)"},
      {"enable_v1_converter", T::Bool, "false",
       "accepted: TensorFlow 1.x's flags (--graph_def_file, --inference_type, ...) always are"},
  };
}

std::vector<std::pair<std::string, std::string>> tensorflowRenamedFlags() {
  return {{"input_file", "graph_def_file"},
          {"savedmodel_directory", "saved_model_dir"},
          {"std_value", "std_dev_values"},
          {"batch_size", "input_shapes"},
          {"dump_graphviz", "dump_graphviz_dir"}};
}

Result<TensorFlowConverterFlags> parseTensorFlowConverterFlags(const Flags& flags) {
  TensorFlowConverterFlags tf;
  const std::string format = upper(flags.str("output_format"));
  if (format != "TFLITE" && format != "GRAPHVIZ_DOT")
    return Status::Error("--output_format: invalid choice: '" + flags.str("output_format") +
                         "' (choose from 'TFLITE', 'GRAPHVIZ_DOT')");
  tf.graphviz_dot = format == "GRAPHVIZ_DOT";
  auto type = parseInferenceType(flags.str("inference_type"), "inference_type");
  if (!type.ok()) return type.status();
  tf.inference_type = *type;
  if (flags.has("inference_input_type")) {
    auto in_type = parseInferenceType(flags.str("inference_input_type"), "inference_input_type");
    if (!in_type.ok()) return in_type.status();
    tf.inference_input_type = *in_type;
  }
  if (tf.inference_type == tensorflow::DT_UINT8 || tf.inference_input_type == tensorflow::DT_UINT8)
    return Status::Error("--inference_type=" + flags.str("inference_type") +
                         ": TensorFlow Lite's legacy uint8 models are not written by gdstudio; "
                         "--inference_type=INT8 (with the same --mean_values minus 128) writes the int8 model "
                         "TensorFlow's converter writes today, and --quantize=int8 --calibration_data=DIR "
                         "calibrates it");
  for (auto* check : {&parseQuantizationStats, &parseTargetOps, &refuseUnhonoured}) {
    Status s = (*check)(flags, tf);
    if (!s.ok()) return s;
  }
  if (tf.inference_type == tensorflow::DT_FLOAT && !tf.mean_values.empty())
    tf.notes.push_back("--mean_values and --std_dev_values describe quantized inputs; the model is float "
                       "(--inference_type=FLOAT), so they change nothing");
  tf.dump_graphviz_dir = flags.str("dump_graphviz_dir");
  tf.dump_graphviz_video = flags.boolean("dump_graphviz_video");
  tf.conversion_summary_dir = flags.str("conversion_summary_dir");
  return tf;
}

Status applyInferenceType(const TensorFlowConverterFlags& tf, std::size_t inputs,
                          transforms::tflite::ConvertOptions& options) {
  using transforms::tflite::Quantize;
  if (tf.builtins_int8 && tf.inference_type != tensorflow::DT_INT8 && options.quantize != Quantize::Int8)
    return Status::Error("--target_ops=TFLITE_BUILTINS_INT8 needs an int8 model: --inference_type=INT8, or "
                         "--quantize=int8 --calibration_data=DIR");
  options.int8_only = tf.builtins_int8 || tf.inference_type == tensorflow::DT_INT8;
  if (tf.inference_type != tensorflow::DT_INT8) return Status::Ok();
  options.quantize = Quantize::Int8;
  // TensorFlow 1.x: the model's inputs and outputs take inference_type
  // unless --inference_input_type says otherwise.
  options.inference_input_type =
      tf.inference_input_type == tensorflow::DT_INVALID ? tensorflow::DT_INT8 : tf.inference_input_type;
  options.inference_output_type = tensorflow::DT_INT8;
  if (!tf.mean_values.empty()) {
    if (tf.mean_values.size() != inputs)
      return Status::Error("Mismatching --input_arrays, --std_dev_values, and --mean_values. The flags must have the "
                           "same number of items: the model has " + std::to_string(inputs) + " inputs, --mean_values "
                           "gives " + std::to_string(tf.mean_values.size()));
    // InputStatsToMinMax: real = (q - mean) / std over int8's [-128, 127].
    for (std::size_t i = 0; i < inputs; ++i)
      options.input_ranges.push_back(transforms::tflite::TensorRange{
          static_cast<float>((-128.0 - tf.mean_values[i]) / tf.std_dev_values[i]),
          static_cast<float>((127.0 - tf.mean_values[i]) / tf.std_dev_values[i])});
  }
  if (tf.default_ranges)
    options.default_range = transforms::tflite::TensorRange{static_cast<float>(tf.default_ranges->first),
                                                            static_cast<float>(tf.default_ranges->second)};
  return Status::Ok();
}

Result<std::vector<std::string>> writeConversionDumps(const TensorFlowConverterFlags& tf,
                                                      const tensorflow::GraphDef& imported,
                                                      const transforms::tflite::ConvertResult& converted,
                                                      const std::string& output_file) {
  std::vector<std::pair<std::string, std::string>> files;
  if (!tf.dump_graphviz_dir.empty()) {
    files.emplace_back(dotFile(tf.dump_graphviz_dir, "toco_AT_IMPORT.dot"), model::graphToDot(imported));
    if (tf.dump_graphviz_video)
      files.emplace_back(dotFile(tf.dump_graphviz_dir, "toco_AFTER_INFERENCE_REWRITES.dot"),
                         model::graphToDot(converted.prepared));
    files.emplace_back(dotFile(tf.dump_graphviz_dir, "toco_AFTER_TRANSFORMATIONS.dot"),
                       model::graphToDot(converted.graph));
  }
  if (!tf.conversion_summary_dir.empty())
    files.emplace_back((std::filesystem::path(tf.conversion_summary_dir) / "toco_conversion_summary.html").string(),
                       conversionSummaryHtml(imported, converted, output_file));
  std::vector<std::string> written;
  for (const auto& [path, text] : files) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    Status s = model::writeFileAtomic(path, text);
    if (!s.ok()) return s;
    written.push_back(path);
  }
  return written;
}

}  // namespace gds::app
