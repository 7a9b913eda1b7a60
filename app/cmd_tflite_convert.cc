// gdstudio tflite_convert: TensorFlow's tflite_convert for frozen graphs,
// SavedModels (TF1 and TF2) and Keras models, with its flags (--graph_def_file
// --output_file --input_arrays --output_arrays --input_shapes
// --saved_model_dir --keras_model_file), plus
// full-integer int8 export calibrated on a folder of representative inputs
// (--quantize=int8 --calibration_data=DIR), which TensorFlow's command line
// never had. The converter is transforms/tflite/convert.h; the file is written
// by model/tflite/writer.h.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/calibration_report.h"
#include "app/flags.h"
#include "app/tflite_convert_tf.h"
#include "engine/eval/feeds.h"
#include "engine/eval/dataset.h"
#include "model/endpoints.h"
#include "model/dot_export.h"
#include "model/freeze.h"
#include "model/io.h"
#include "model/shape_inference.h"
#include "model/tflite/builtin_ops.h"
#include "model/tflite/dialect.h"
#include "model/tflite/writer.h"
#include "transforms/tflite/accuracy_budget.h"
#include "transforms/tflite/calibrate.h"
#include "transforms/tflite/convert.h"

namespace gds::app {
namespace {

const char* kUsage =
    "Usage: gdstudio tflite_convert --output_file=OUT.tflite\n"
    "                               (--graph_def_file=FROZEN.pb | --saved_model_dir=DIR | --keras_model_file=M.keras)\n"
    "                               [--input_arrays=a,b --output_arrays=c --input_shapes=1,224,224,3:1,10]\n"
    "                               [--quantize=int8 --calibration_data=DIR [--input_mean=127.5 --input_std=127.5]\n"
    "                                --inference_input_type=float|int8 --inference_output_type=float|int8]\n"
    "                               [--quantize=int16x8 --calibration_data=DIR]\n"
    "                               [--quantize=float16 | --quantize=dynamic]\n\n"
    "Converts a frozen TensorFlow graph (or a SavedModel, frozen on the way, or a Keras .keras or .h5 model,\n"
    "its layers as the ops TensorFlow traces) to a TensorFlow Lite model, as\n"
    "TensorFlow's tflite_convert does: it strips the graph to the input and output arrays, removes Identity nodes,\n"
    "folds constants and batch norms, and maps each op (or fused chain such as Conv2D + BiasAdd + Relu6) to a\n"
    "TensorFlow Lite builtin. An op without one is an error naming the node and op, and nothing is written.\n\n"
    "--quantize=int8 writes TensorFlow Lite's full-integer model: int8 weights per output channel, int8\n"
    "activations with ranges observed on the representative inputs of --calibration_data (a folder as\n"
    "`gdstudio compare --dataset` reads it: images resized to the input's shape and normalized as\n"
    "(x - input_mean) / input_std, .npy tensors, or, when the input arrays are inner nodes such as Mfcc, files fed\n"
    "to the graph's own input, e.g. WAV clips), int32 biases, float inputs and outputs with QUANTIZE/DEQUANTIZE at\n"
    "the edges unless --inference_input_type/--inference_output_type=int8. An operator without an int8 form stays\n"
    "float (TensorFlow's fallback; --target_ops=TFLITE_BUILTINS_INT8 refuses it). The representative inputs must fit the\n"
    "model's input: a .npy of another shape or type, or a colour image for a one-channel input (unless --grayscale),\n"
    "is an error naming the file; images are resized to the input's height and width.\n"
    "--calibration_data=random[:N] calibrates on N seeded random inputs (default 100) when you have no data at\n"
    "hand: the ranges are then not your data's, which the output and the model's description say.\n"
    "--calibration_method chooses how the inputs' values become each tensor's range, by TensorFlow's quantizer's\n"
    "names: min_max (the default: TensorFlow Lite's calibrator), average_min_max, histogram_percentile\n"
    "(--calibration_min_percentile/--calibration_max_percentile), histogram_mse_bruteforce,\n"
    "histogram_mse_max_frequency, histogram_mse_symmetric. --calibration_report=FILE (or -) writes what calibration\n"
    "saw of every tensor: the observed and chosen ranges, the share of values clipped, the histogram.\n"
    "--quantize=float16 stores every float weight as float16, read through a DEQUANTIZE operator (TensorFlow's\n"
    "supported_types=[tf.float16]; TF 1.x --post_training_quantize --quantize_to_float16): half the size, float32\n"
    "arithmetic, no data needed.\n"
    "--quantize=dynamic is TensorFlow's dynamic-range quantization (optimizations=[tf.lite.Optimize.DEFAULT]\n"
    "without a representative dataset; TF 1.x --post_training_quantize): the weights of convolutions and fully\n"
    "connected layers with 1024 or more elements become int8 (per output channel for convolutions), activations\n"
    "stay float, and TensorFlow Lite's hybrid kernels quantize each layer's input as they run: about a quarter of\n"
    "the size, no data needed.\n"
    "--quantize=int16x8 is TensorFlow's 16x8 (EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8, also\n"
    "--target_ops=EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8): int8 weights as int8's, int16\n"
    "activations with zero point 0 calibrated as int8's, int64 biases; --inference_input_type/--inference_output_type\n"
    "=int16 for int16 edges. Operators without an int16 form stay float and the output names them.\n\n"
    "TensorFlow's own flags work as in TensorFlow 1.x and 2.x (--enable_v1_converter is accepted, not needed):\n"
    "--inference_type=INT8 with --mean_values/--std_dev_values quantizes with the ranges of the graph's FakeQuant\n"
    "nodes and --default_ranges_min/max for the rest; --output_format=GRAPHVIZ_DOT writes a Graphviz file;\n"
    "--dump_graphviz_dir and --conversion_summary_dir write what the conversion did. Unambiguous prefixes of flag\n"
    "names are accepted, as TensorFlow's argparse accepts them (--input_shape).";

std::vector<FlagSpec> convertFlags() {
  using T = FlagSpec::Type;
  std::vector<FlagSpec> flags = {
      {"graph_def_file", T::String, "", "frozen GraphDef (.pb or .pbtxt) to convert", kPath},
      {"saved_model_dir", T::String, "", "SavedModel directory (TF1 or TF2) to freeze and convert", kPath},
      {"keras_model_file", T::String, "",
       "Keras model to convert: a .keras archive (Keras 3, Keras 2.13+) or an .h5 model (model.save); its input "
       "and output layers are the default arrays",
       kPath},
      {"saved_model_tag_set", T::String, "serve", "SavedModel: tags of the meta graph, comma separated"},
      {"saved_model_signature_key", T::String, "serving_default",
       "SavedModel: signature whose inputs and outputs are the model's (unless --input_arrays/--output_arrays)"},
      {"output_file", T::String, "", "where to write the .tflite", kRequired | kPath},
      {"input_arrays", T::String, "", "input nodes, comma separated (default: the Placeholders)"},
      {"output_arrays", T::String, "", "output nodes, comma separated (default: the nodes nothing consumes)"},
      {"input_shapes", T::String, "",
       "shape per input, colon separated, e.g. 1,224,224,3:1,10 (default: the Placeholder's, batch 1)"},
      {"quantize", T::String, "",
       "int8: TensorFlow Lite's full-integer quantization (needs --calibration_data); float16: float16 weights, "
       "float32 arithmetic; dynamic: int8 weights, float activations (hybrid kernels)"},
      {"calibration_data", T::String, "",
       "folder of representative inputs for --quantize=int8, or random[:N] for N seeded random inputs", kPath},
      {"input_mean", T::Float, "127.5", "calibration images: subtracted from the pixels"},
      {"input_std", T::Float, "127.5", "calibration images: the pixels are divided by this"},
      {"grayscale", T::Bool, "false", "calibration images: convert colour images to grey for a one-channel input"},
      {"inference_input_type", T::String, "float",
       "int8 models: float (QUANTIZE at the input) or int8 (with --inference_type: its value)"},
      {"inference_output_type", T::String, "float", "int8 models: float (DEQUANTIZE at the output) or int8"},
      {"disable_per_channel_quantization_for_dense_layers", T::Bool, "true",
       "int8: one weight scale per FULLY_CONNECTED layer (TensorFlow Lite's scheme until 2024, which Arm NN 20.08, "
       "NNAPI and older TFLite Micro need); =false gives one per output channel"},
      {"num_threads", T::Int, "1", "threads for the calibration runs: -1 or 0 all cores, N threads"},
  };
  for (FlagSpec& f : calibrationMethodFlags()) flags.push_back(std::move(f));
  flags.push_back({"calibration_report", T::String, "",
                   "write what calibration saw of each tensor (range chosen, share clipped, histogram): a .json "
                   "file, another file as a table, or - for the table on the output",
                   kPath});
  flags.push_back({"denylisted_nodes", T::String, "",
                   "int8: operators kept float, by the tensor each computes (TensorFlow's QuantizationDebugOptions "
                   "denylisted_nodes), comma separated"});
  flags.push_back({"denylisted_ops", T::String, "",
                   "int8: operator types kept float, by builtin name (CONV_2D, SOFTMAX), comma separated"});
  flags.push_back({"accuracy_budget", T::String, "",
                   "int8: keep the fewest operators float that meet top1:POINTS (accuracy lost against float), "
                   "sqnr:DB (mean output SQNR) or agreement:PERCENT (top-1 agreement with float) on --accuracy_data"});
  flags.push_back({"accuracy_data", T::String, "",
                   "--accuracy_budget: the dataset folder to measure on (default: --calibration_data)", kPath});
  flags.push_back({"label_map", T::String, "",
                   "--accuracy_budget=top1: class names, one per line in output order (labels.csv names classes)",
                   kPath});
  flags.push_back({"accuracy_budget_max_float", T::Int, "-1",
                   "--accuracy_budget: the most operators kept float (-1: as many as it takes)"});
  flags.push_back({"accuracy_budget_best", T::Bool, "false",
                   "--accuracy_budget: when no model meets the budget, write the best one found instead of nothing"});
  flags.push_back({"format", T::String, "text",
                   "text, or json: one object with what text prints (operators, sizes, notes, the budget search, "
                   "a --calibration_report=- table as records)"});
  for (FlagSpec& f : tensorflowConverterFlags()) flags.push_back(std::move(f));
  return flags;
}

Result<tensorflow::DataType> ioType(const Flags& flags, const std::string& name) {
  std::string v = flags.str(name);
  for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (v == "float" || v == "float32") return tensorflow::DT_FLOAT;
  if (v == "int8") return tensorflow::DT_INT8;
  if (v == "int16") return tensorflow::DT_INT16;
  return Status::Error("--" + name + " must be float, int8 or int16 (16x8), got '" + flags.str(name) + "'");
}

// --calibration_data=random or random:N.
constexpr int kDefaultRandomSamples = 100;
Result<int> randomSampleCount(const std::string& data) {
  if (data != "random" && data.rfind("random:", 0) != 0) return 0;
  if (data == "random") return kDefaultRandomSamples;
  char* end = nullptr;
  const long n = std::strtol(data.c_str() + 7, &end, 10);
  if (!end || *end != '\0' || n < 1 || n > 100000)
    return Status::Error("--calibration_data=" + data + ": random:N takes a sample count from 1 to 100000");
  return static_cast<int>(n);
}

// What the command line asks for, checked: the flags as the command uses
// them. A new flag lands here and in parseConvertFlags.
struct ConvertArgs {
  std::string graph_file, saved_model, keras_model;  // exactly one
  std::string tag_set, signature_key;   // SavedModel
  std::string output;
  std::string calibration_data;  // a folder, or "" for random samples / no calibration
  int random_samples = 0;        // --calibration_data=random[:N]
  std::string calibration_report;  // --calibration_report: a file, "-" or ""
  std::optional<transforms::tflite::AccuracyBudget> budget;  // --accuracy_budget
  std::string accuracy_data, label_map;
  bool budget_best = false;
  int budget_max_float = -1;
  double input_mean = 127.5, input_std = 127.5;
  bool grayscale = false;
  TensorFlowConverterFlags tf;
  transforms::tflite::ConvertOptions options;
  bool json = false;  // --format=json
};

// What the command prints: lines of text, or with --format=json the fields
// of one object printed at the end.
struct ConvertReport {
  bool json = false;
  nlohmann::json fields = nlohmann::json::object();
  void line(const std::string& text) const {
    if (!json) std::printf("%s\n", text.c_str());
  }
  void print() const {
    if (json) std::printf("%s\n", fields.dump(1).c_str());
  }
};

// --input_shapes: one shape per input, ':' between them.
Status parseInputShapes(const Flags& flags, transforms::tflite::ConvertOptions& options) {
  if (flags.str("input_shapes").empty()) return Status::Ok();
  for (const std::string& text : splitString(flags.str("input_shapes"), ':')) {
    auto shape = model::parseShape(text);
    if (!shape.ok()) return Status::Error("--input_shapes: '" + text + "': " + shape.error());
    options.input_shapes.push_back(*shape);
  }
  if (!options.inputs.empty() && options.input_shapes.size() != options.inputs.size())
    return Status::Error("--input_shapes gives " + std::to_string(options.input_shapes.size()) + " shapes for " +
                         std::to_string(options.inputs.size()) +
                         " --input_arrays (separate the shapes with ':')");
  return Status::Ok();
}

// --quantize and what goes with it: the calibration folder, the types at the
// model's edges, the dense layers' weight scales.
Status parseQuantizeFlags(const Flags& flags, ConvertArgs& a) {
  using transforms::tflite::Quantize;
  transforms::tflite::ConvertOptions& options = a.options;
  auto quantize = transforms::tflite::parseQuantize(a.tf.float16         ? std::string("float16")
                                                    : a.tf.dynamic_range ? std::string("dynamic")
                                                                         : flags.str("quantize"));
  if (!quantize.ok()) return Status::Error("--quantize: " + quantize.error());
  options.quantize = *quantize;
  // TensorFlow's 16x8 ops set (target_spec.supported_ops) asks for 16x8.
  if (a.tf.int16x8) {
    if (options.quantize != Quantize::None && options.quantize != Quantize::Int16x8)
      return Status::Error("--target_ops=EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8 is 16x8; it "
                           "cannot go with --quantize=" + std::string(transforms::tflite::quantizeName(options.quantize)));
    options.quantize = Quantize::Int16x8;
  }
  a.calibration_data = flags.str("calibration_data");
  auto random = randomSampleCount(a.calibration_data);
  if (!random.ok()) return random.status();
  a.random_samples = *random;
  if (a.random_samples > 0) a.calibration_data.clear();
  const bool calibrated = !a.calibration_data.empty() || a.random_samples > 0;
  const bool tf_int8 = a.tf.inference_type == tensorflow::DT_INT8;
  if (transforms::tflite::fullInteger(options.quantize) && !calibrated)
    return Status::Error(std::string("--quantize=") + transforms::tflite::quantizeName(options.quantize) +
                         " needs --calibration_data=DIR (representative inputs for the activation ranges), or "
                         "--calibration_data=random:100 to try it without data");
  if (!transforms::tflite::fullInteger(options.quantize) && calibrated && !tf_int8)
    return Status::Error("--calibration_data is for --quantize=int8 and int16x8" +
                         std::string(options.quantize == Quantize::Float16 || options.quantize == Quantize::Dynamic
                                         ? std::string(" (--quantize=") + transforms::tflite::quantizeName(options.quantize) +
                                               " converts the weights alone and needs no data)"
                                         : std::string()));
  if (calibrated && options.quantize == Quantize::None) options.quantize = Quantize::Int8;
  auto method = parseCalibrationMethodFlags(flags);
  if (!method.ok()) return method.status();
  options.calibration_method = *method;
  a.calibration_report = flags.str("calibration_report");
  options.float_nodes = flags.list("denylisted_nodes");
  options.float_ops = flags.list("denylisted_ops");
  if (!flags.str("accuracy_budget").empty()) {
    auto budget = transforms::tflite::parseAccuracyBudget(flags.str("accuracy_budget"));
    if (!budget.ok()) return Status::Error("--accuracy_budget: " + budget.error());
    a.budget = *budget;
  }
  a.accuracy_data = flags.str("accuracy_data");
  a.label_map = flags.str("label_map");
  a.budget_best = flags.boolean("accuracy_budget_best");
  auto max_float = flags.integer("accuracy_budget_max_float");
  if (!max_float.ok() || *max_float < -1 || *max_float > 100000)
    return Status::Error("--accuracy_budget_max_float takes a count of operators (-1: no limit)");
  a.budget_max_float = static_cast<int>(*max_float);
  for (const char* name : {"accuracy_data", "label_map", "accuracy_budget_best", "accuracy_budget_max_float"})
    if (flags.has(name) && !a.budget) return Status::Error(std::string("--") + name + " is for --accuracy_budget");
  if (a.budget && a.accuracy_data.empty()) a.accuracy_data = a.calibration_data;
  if (a.budget && a.accuracy_data.empty())
    return Status::Error("--accuracy_budget measures the candidates on a dataset: give --accuracy_data=DIR (or "
                         "--calibration_data=DIR, which it then uses)");
  for (const char* name : {"denylisted_nodes", "denylisted_ops"})
    if (flags.has(name) && !transforms::tflite::fullInteger(options.quantize))
      return Status::Error(std::string("--") + name + " chooses the operators an int8 or 16x8 model keeps float: it "
                           "needs --quantize=int8 or int16x8");
  if (flags.has("accuracy_budget") && options.quantize != Quantize::Int8)
    return Status::Error("--accuracy_budget chooses the operators an int8 model keeps float: it needs "
                         "--quantize=int8");
  for (const char* name : {"calibration_method", "calibration_num_bins", "calibration_min_percentile",
                           "calibration_max_percentile", "calibration_report"})
    if (flags.has(name) && !calibrated)
      return Status::Error(std::string("--") + name +
                           " is about calibration: it needs --quantize=int8 or int16x8 with --calibration_data=DIR");
  auto in_type = ioType(flags, "inference_input_type");
  auto out_type = ioType(flags, "inference_output_type");
  if (!in_type.ok() && !tf_int8) return in_type.status();
  if (!out_type.ok()) return out_type.status();
  options.inference_input_type = in_type.ok() ? *in_type : tensorflow::DT_FLOAT;
  options.inference_output_type = *out_type;
  options.per_channel_fully_connected = !flags.boolean("disable_per_channel_quantization_for_dense_layers");
  a.grayscale = flags.boolean("grayscale");
  return Status::Ok();
}

Result<ConvertArgs> parseConvertFlags(const Flags& flags) {
  ConvertArgs a;
  a.graph_file = flags.str("graph_def_file");
  a.saved_model = flags.str("saved_model_dir");
  a.keras_model = flags.str("keras_model_file");
  if (!a.graph_file.empty() + !a.saved_model.empty() + !a.keras_model.empty() != 1)
    return Status::Error(
        "give exactly one of --graph_def_file=FROZEN.pb, --saved_model_dir=DIR and --keras_model_file=MODEL.keras");
  a.output = flags.str("output_file");
  a.tag_set = flags.str("saved_model_tag_set");
  a.signature_key = flags.str("saved_model_signature_key");
  a.options.inputs = flags.list("input_arrays");
  a.options.outputs = flags.list("output_arrays");
  auto tf = parseTensorFlowConverterFlags(flags);
  if (!tf.ok()) return tf.status();
  a.tf = std::move(*tf);
  Status shapes = parseInputShapes(flags, a.options);
  if (!shapes.ok()) return shapes;
  Status quantize = parseQuantizeFlags(flags, a);
  if (!quantize.ok()) return quantize;
  auto threads = flags.numThreads();
  if (!threads.ok()) return threads.status();
  auto mean = flags.number("input_mean");
  auto std_dev = flags.number("input_std");
  if (!mean.ok() || !std_dev.ok()) return Status::Error("--input_mean and --input_std must be numbers");
  if (*std_dev == 0) return Status::Error("--input_std must not be 0");
  a.input_mean = *mean;
  a.input_std = *std_dev;
  a.options.num_threads = static_cast<int>(*threads);
  const std::string format = flags.str("format");
  if (format != "text" && format != "json") return Status::Error("--format must be text or json, got '" + format + "'");
  a.json = format == "json";
  return a;
}

// The frozen graph to convert, and the SavedModel's signature (if any).
struct ConvertInput {
  tensorflow::GraphDef graph;
  std::vector<model::Signature> signatures;
};

// A SavedModel frozen on the way; its signature supplies the input and
// output arrays the flags leave out.
Result<ConvertInput> freezeSavedModel(ConvertArgs& a) {
  model::LoadOptions load;
  load.tags = splitString(a.tag_set, ',');
  auto loaded = model::load(a.saved_model, load);
  if (!loaded.ok()) return loaded.status();
  auto frozen = transforms::tflite::freezeSavedModel(*loaded, a.signature_key, &a.options);
  if (!frozen.ok()) return frozen.status();
  ConvertInput in;
  in.graph = std::move(frozen->graph);
  in.signatures = std::move(frozen->signatures);
  return in;
}

// A Keras model (model/keras): its input and output layers are the arrays
// the flags leave out.
ConvertInput kerasInput(model::LoadedModel&& loaded, ConvertArgs& a) {
  ConvertInput in;
  in.signatures = transforms::tflite::kerasModelArrays(loaded, &a.options);
  in.graph = std::move(loaded.graph);
  return in;
}

Result<ConvertInput> loadConvertInput(ConvertArgs& a) {
  if (!a.saved_model.empty()) return freezeSavedModel(a);
  const std::string& file = a.keras_model.empty() ? a.graph_file : a.keras_model;
  auto loaded = model::load(file);
  if (!loaded.ok()) return loaded.status();
  if (loaded->kind == model::ModelKind::TFLite) return Status::Error(file + " is already a TensorFlow Lite model");
  if (!a.keras_model.empty() && loaded->kind != model::ModelKind::Keras)
    return Status::Error("--keras_model_file: " + file + " is a " + model::modelKindName(loaded->kind) +
                         ", not a Keras model (give it with --graph_def_file)");
  if (loaded->kind == model::ModelKind::Keras) return kerasInput(std::move(loaded).value(), a);
  ConvertInput in;
  in.graph = std::move(loaded->graph);
  return in;
}

// --calibration_data=random:N: N samples of seeded uniform values in the
// inputs' shapes (--input_shapes, else the Placeholder's, free dimensions 1).
Result<std::vector<std::vector<engine::Tensor>>> randomSamples(const ConvertArgs& a,
                                                               const tensorflow::GraphDef& graph) {
  const std::vector<std::string> inputs = transforms::tflite::converterInputs(graph, a.options);
  std::vector<std::vector<engine::Tensor>> samples(static_cast<std::size_t>(a.random_samples));
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    model::Endpoint e = model::endpointOf(graph, inputs[i]);
    if (i < a.options.input_shapes.size() && !a.options.input_shapes[i].empty()) {
      e.known_rank = true;
      e.shape = a.options.input_shapes[i];
    }
    auto shape = model::concreteShape(e, "--input_shapes", nullptr);
    if (!shape.ok()) return shape.status();
    const tensorflow::DataType dtype = e.dtype == tensorflow::DT_INVALID ? tensorflow::DT_FLOAT : e.dtype;
    for (std::size_t s = 0; s < samples.size(); ++s) {
      auto t = engine::randomTensor(dtype, *shape, 1000 * (s + 1) + i, "random input for '" + inputs[i] + "'");
      if (!t.ok()) return t.status();
      samples[s].push_back(std::move(*t));
    }
  }
  return samples;
}

// ", ranges by histogram_percentile (0.001 to 99.999)"; nothing for min/max.
std::string methodNote(const transforms::tflite::CalibrationOptions& o) {
  using transforms::tflite::CalibrationMethod;
  if (o.method == CalibrationMethod::MinMax) return "";
  std::string note = std::string(", ranges by ") + transforms::tflite::calibrationMethodName(o.method);
  if (o.method == CalibrationMethod::HistogramPercentile) {
    char range[64];
    std::snprintf(range, sizeof range, " (%g to %g)", o.min_percentile, o.max_percentile);
    note += range;
  }
  return note;
}

// --quantize=int8: the activation ranges' inputs, from --calibration_data's
// files (checked against the input: no silent decolouring) or
// random values. Returns the line that reports it.
Result<std::string> calibrate(ConvertArgs& a, const tensorflow::GraphDef& graph) {
  if (a.random_samples > 0) {
    auto samples = randomSamples(a, graph);
    if (!samples.ok()) return Status::Error("--calibration_data=random: " + samples.error());
    a.options.calibration = std::move(*samples);
    warn("--calibration_data=random:" + std::to_string(a.random_samples) + ": the int8 ranges come from " +
         std::to_string(a.random_samples) + " seeded random inputs (uniform in [0, 1)), not from your data; the "
         "model's accuracy says nothing until you calibrate it on real inputs (--calibration_data=DIR)");
    return "Calibrated on " + std::to_string(a.random_samples) + " random inputs (not real data)" +
           methodNote(a.options.calibration_method);
  }
  ProgressLine progress;
  progress.update("calibration: reading " + a.calibration_data);
  auto samples = transforms::tflite::calibrationFolder(graph, a.options, a.calibration_data,
                                                       static_cast<float>(a.input_mean),
                                                       static_cast<float>(a.input_std), a.grayscale);
  progress.finish();
  if (!samples.ok()) return Status::Error("--calibration_data: " + samples.error());
  a.options.calibration = std::move(*samples);
  return "Calibrated on " + std::to_string(a.options.calibration.size()) + " inputs from " + a.calibration_data +
         methodNote(a.options.calibration_method);
}

// The converter's notes, the operators by builtin, the file's sizes.
void printConverted(const ConvertArgs& a, const transforms::tflite::ConvertResult& converted,
                    const model::tflite::WriteStats& stats, const std::string& calibration_note,
                    ConvertReport& report) {
  for (const std::string& note : converted.notes) report.line("Note: " + note);
  std::map<std::string, int> ops;
  for (const auto& n : converted.graph.node())
    if (model::tflite::isDialectOp(n.op()) && n.op() != model::tflite::kNoValueOp) {
      const auto* b = model::tflite::builtinByOpType(n.op());
      ++ops[b ? b->name : n.op()];
    }
  std::string op_text;
  int operators = 0;
  for (const auto& [name, count] : ops) {
    op_text += (op_text.empty() ? "" : ", ") + std::to_string(count) + " " + name;
    operators += count;
  }
  report.line("Operators: " + std::to_string(operators) + " (" + op_text + ")");
  report.fields["notes"] = converted.notes;
  report.fields["operators"] = ops;
  if (!a.tf.graphviz_dot) {
    report.line("Tensors: " + std::to_string(stats.tensors) + ", buffers: " + std::to_string(stats.buffers) + " (" +
                std::to_string(stats.shared_buffers) + " shared), constant bytes: " +
                std::to_string(stats.constant_bytes));
    report.fields["tensors"] = stats.tensors;
    report.fields["buffers"] = stats.buffers;
    report.fields["shared_buffers"] = stats.shared_buffers;
    report.fields["constant_bytes"] = stats.constant_bytes;
  }
  if (!calibration_note.empty()) {
    report.line(calibration_note);
    report.fields["calibration"] = calibration_note;
  }
  if (a.options.quantize == transforms::tflite::Quantize::Int8 && a.options.calibration.empty()) {
    std::string how = std::to_string(converted.fake_quant_nodes) + " FakeQuant ranges";
    if (!a.options.input_ranges.empty()) how += ", the inputs' from --mean_values/--std_dev_values";
    if (a.options.default_range) {
      char range[96];
      std::snprintf(range, sizeof range, ", [%g, %g] (--default_ranges_min/max) for the rest",
                    a.options.default_range->min, a.options.default_range->max);
      how += range;
    }
    report.line("Quantized to int8 with " + how);
    report.fields["quantized_with"] = how;
  }
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(a.output, ec);
  report.line("Wrote " + a.output + " (" + std::to_string(ec ? 0 : bytes) + " bytes)");
  report.fields["output_file"] = a.output;
  report.fields["bytes"] = ec ? 0 : bytes;
}

// What the model's description says: gdstudio, and that random ranges are
// not the data's.
std::string description(const ConvertArgs& a) {
  if (a.random_samples == 0) return "gdstudio";
  return "gdstudio; WARNING: int8 ranges calibrated on " + std::to_string(a.random_samples) +
         " random inputs (uniform in [0, 1)), not on real data: not for deployment";
}

// The converted model written: a .tflite, or with --output_format=GRAPHVIZ_DOT
// a Graphviz file; then the dump files TensorFlow's flags ask for.
Status writeConverted(const ConvertArgs& a, const ConvertInput& input, const transforms::tflite::ConvertResult& converted,
                      model::tflite::WriteStats* stats, ConvertReport& report) {
  if (a.tf.graphviz_dot) {
    Status saved = model::writeFileAtomic(a.output, model::graphToDot(converted.graph));
    if (!saved.ok()) return saved;
  } else {
    model::tflite::WriteOptions write;
    write.description = description(a);
    write.signatures = transforms::tflite::convertedSignatures(input.signatures, converted);
    Status saved = model::tflite::saveTflite(converted.graph, a.output, write, stats);
    if (!saved.ok()) return saved;
  }
  auto dumps = writeConversionDumps(a.tf, input.graph, converted, a.output);
  if (!dumps.ok()) return dumps.status();
  for (const auto& f : *dumps) report.line("Wrote " + f);
  if (!dumps->empty()) report.fields["dumps"] = *dumps;
  return Status::Ok();
}

// --accuracy_budget: the search's table, and the operators to keep float
// for the model then written; a budget no candidate meets writes nothing
// unless --accuracy_budget_best.
Status searchBudget(ConvertArgs& a, const tensorflow::GraphDef& graph, ConvertReport& report) {
  auto dataset = engine::openDataset(a.accuracy_data);
  if (!dataset.ok()) return Status::Error("--accuracy_data: " + dataset.error());
  auto input = engine::findGraphInput(graph, "");
  if (!input.ok()) return Status::Error("--accuracy_budget: " + input.error());
  transforms::tflite::BudgetOptions o;
  o.budget = *a.budget;
  o.max_float = a.budget_max_float;
  o.preprocess.mean = static_cast<float>(a.input_mean);
  o.preprocess.std_dev = static_cast<float>(a.input_std);
  if (!a.label_map.empty()) {
    auto names = engine::readLabelMap(a.label_map);
    if (!names.ok()) return Status::Error("--label_map: " + names.error());
    o.label_map = std::move(*names);
  }
  ProgressLine progress;
  if (progress.enabled()) o.progress = [&progress](const std::string& what) { progress.update("accuracy budget: " + what); };
  transforms::tflite::ConvertOptions options = a.options;
  options.float_nodes.clear();
  auto search = transforms::tflite::searchAccuracyBudget(graph, options, *input, *dataset, o);
  progress.finish();
  if (!search.ok()) return Status::Error("--accuracy_budget: " + search.error());
  report.line(transforms::tflite::budgetSearchText(*search));
  report.fields["accuracy_budget"] = transforms::tflite::budgetSearchJson(*search);
  if (search->chosen < 0 && !a.budget_best)
    return Status::Error("--accuracy_budget=" + a.budget->text() +
                         ": no model meets it (the " + (a.json ? "accuracy_budget record" : "table") +
                         " above has the best reached); nothing was written "
                         "(--accuracy_budget_best writes the best one)");
  for (const std::string& n : search->path[static_cast<std::size_t>(search->best())].float_nodes)
    if (std::find(a.options.float_nodes.begin(), a.options.float_nodes.end(), n) == a.options.float_nodes.end())
      a.options.float_nodes.push_back(n);
  return Status::Ok();
}

// --calibration_report: "-" prints the table; a .json file gets the
// records, another file the table.
Status writeCalibrationReport(const ConvertArgs& a, const transforms::tflite::ConvertResult& converted,
                              ConvertReport& report) {
  const std::string& file = a.calibration_report;
  if (file.empty()) return Status::Ok();
  const auto& method = a.options.calibration_method;
  if (file == "-") {
    if (report.json) report.fields["calibration_report"] = calibrationReportJson(converted, method);
    else std::printf("\n%s", calibrationReportText(converted, method).c_str());
    return Status::Ok();
  }
  const bool json = file.size() > 5 && file.compare(file.size() - 5, 5, ".json") == 0;
  Status saved = model::writeFileAtomic(
      file, json ? calibrationReportJson(converted, method).dump(1) + "\n" : calibrationReportText(converted, method));
  if (!saved.ok()) return saved;
  report.line("Wrote " + file);
  report.fields["calibration_report_file"] = file;
  return Status::Ok();
}

int runTfliteConvert(int argc, char** argv) {
  Flags flags("tflite_convert", kUsage, convertFlags());
  flags.allowAbbreviations();
  flags.setRenamedFlags(tensorflowRenamedFlags());
  if (auto exit_code = flags.parseCommand(argc, argv)) return *exit_code;
  auto args = parseConvertFlags(flags);
  if (!args.ok()) return fail(args.error());
  for (const auto& n : args->tf.notes) note(n);
  auto input = loadConvertInput(*args);
  if (!input.ok()) return fail(input.error());
  Status typed = applyInferenceType(args->tf, transforms::tflite::converterInputs(input->graph, args->options).size(), args->options);
  if (!typed.ok()) return fail(typed.message());
  std::string calibration_note;
  if (transforms::tflite::fullInteger(args->options.quantize) &&
      (!args->calibration_data.empty() || args->random_samples > 0)) {
    auto calibrated = calibrate(*args, input->graph);
    if (!calibrated.ok()) return fail(calibrated.error());
    calibration_note = *calibrated;
  }
  ConvertReport report;
  report.json = args->json;
  if (args->budget) {
    Status searched = searchBudget(*args, input->graph, report);
    if (!searched.ok()) {
      report.print();  // a budget not met: the search, for the best reached
      return fail(searched.message());
    }
  }
  ProgressLine progress;
  if (progress.enabled())
    args->options.calibration_progress = [&progress](int done, int total) {
      progress.update("calibration: input " + std::to_string(done + 1) + " of " + std::to_string(total));
    };
  auto converted = transforms::tflite::convertToTflite(input->graph, args->options);
  progress.finish();
  if (!converted.ok()) return fail(converted.error());
  model::tflite::WriteStats stats;
  Status written = writeConverted(*args, *input, *converted, &stats, report);
  if (!written.ok()) return fail(written.message());
  printConverted(*args, *converted, stats, calibration_note, report);
  Status reported = writeCalibrationReport(*args, *converted, report);
  if (!reported.ok()) return fail(reported.message());
  report.print();
  return 0;
}

const CommandRegistration kRegistration(
    {"tflite_convert", "convert a frozen graph to TensorFlow Lite, float or int8 (tflite_convert)",
     &runTfliteConvert});

}  // namespace
}  // namespace gds::app
