// gdstudio tflite_convert: TensorFlow's tflite_convert for frozen graphs and
// TF1 SavedModels, with its flags (--graph_def_file --output_file
// --input_arrays --output_arrays --input_shapes --saved_model_dir), plus
// full-integer int8 export calibrated on a folder of representative inputs
// (--quantize=int8 --calibration_data=DIR), which TensorFlow's command line
// never had. The converter is transforms/tflite/convert.h; the file is written
// by model/tflite/writer.h.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "app/flags.h"
#include "engine/eval/dataset.h"
#include "model/io.h"
#include "model/shape_inference.h"
#include "model/tflite/builtin_ops.h"
#include "model/tflite/dialect.h"
#include "model/tflite/writer.h"
#include "transforms/tflite/calibrate.h"
#include "transforms/tflite/convert.h"

namespace gds::app {
namespace {

const char* kUsage =
    "Usage: gdstudio tflite_convert --output_file=OUT.tflite (--graph_def_file=FROZEN.pb | --saved_model_dir=DIR)\n"
    "                               [--input_arrays=a,b --output_arrays=c --input_shapes=1,224,224,3:1,10]\n"
    "                               [--quantize=int8 --calibration_data=DIR [--input_mean=127.5 --input_std=127.5]\n"
    "                                --inference_input_type=float|int8 --inference_output_type=float|int8]\n\n"
    "Converts a frozen TensorFlow graph (or a TF1 SavedModel, frozen on the way) to a TensorFlow Lite model, as\n"
    "TensorFlow's tflite_convert does: it strips the graph to the input and output arrays, removes Identity nodes,\n"
    "folds constants and batch norms, and maps each op (or fused chain such as Conv2D + BiasAdd + Relu6) to a\n"
    "TensorFlow Lite builtin. An op without one is an error naming the node and op, and nothing is written.\n\n"
    "--quantize=int8 writes TensorFlow Lite's full-integer model: int8 weights per output channel, int8\n"
    "activations with ranges observed on the representative inputs of --calibration_data (a folder as\n"
    "`gdstudio compare --dataset` reads it: images resized to the input's shape and normalized as\n"
    "(x - input_mean) / input_std, .npy tensors, or, when the input arrays are inner nodes such as Mfcc, files fed\n"
    "to the graph's own input, e.g. WAV clips), int32 biases, float inputs and outputs with QUANTIZE/DEQUANTIZE at\n"
    "the edges unless --inference_input_type/--inference_output_type=int8.";

std::vector<FlagSpec> convertFlags() {
  using T = FlagSpec::Type;
  return {
      {"graph_def_file", T::String, "", "frozen GraphDef (.pb or .pbtxt) to convert", kPath},
      {"saved_model_dir", T::String, "", "TF1 SavedModel directory to freeze and convert", kPath},
      {"saved_model_tag_set", T::String, "serve", "SavedModel: tags of the meta graph, comma separated"},
      {"saved_model_signature_key", T::String, "serving_default",
       "SavedModel: signature whose inputs and outputs are the model's (unless --input_arrays/--output_arrays)"},
      {"output_file", T::String, "", "where to write the .tflite", kRequired | kPath},
      {"input_arrays", T::String, "", "input nodes, comma separated (default: the Placeholders)"},
      {"output_arrays", T::String, "", "output nodes, comma separated (default: the nodes nothing consumes)"},
      {"input_shapes", T::String, "",
       "shape per input, colon separated, e.g. 1,224,224,3:1,10 (default: the Placeholder's, batch 1)"},
      {"quantize", T::String, "", "int8: TensorFlow Lite's full-integer quantization (needs --calibration_data)"},
      {"calibration_data", T::String, "", "folder of representative inputs for --quantize=int8", kPath},
      {"input_mean", T::Float, "127.5", "calibration images: subtracted from the pixels"},
      {"input_std", T::Float, "127.5", "calibration images: the pixels are divided by this"},
      {"inference_input_type", T::String, "float", "int8 models: float (QUANTIZE at the input) or int8"},
      {"inference_output_type", T::String, "float", "int8 models: float (DEQUANTIZE at the output) or int8"},
      {"disable_per_channel_quantization_for_dense_layers", T::Bool, "true",
       "int8: one weight scale per FULLY_CONNECTED layer (TensorFlow Lite's scheme until 2024, which Arm NN 20.08, "
       "NNAPI and older TFLite Micro need); =false gives one per output channel"},
      {"num_threads", T::Int, "1", "threads for the calibration runs: -1 or 0 all cores, N threads"},
  };
}

Result<tensorflow::DataType> ioType(const Flags& flags, const std::string& name) {
  const std::string v = flags.str(name);
  if (v == "float" || v == "float32" || v == "FLOAT32") return tensorflow::DT_FLOAT;
  if (v == "int8" || v == "INT8") return tensorflow::DT_INT8;
  return Status::Error("--" + name + " must be float or int8, got '" + v + "'");
}

// What the command line asks for, checked: the flags as the command uses
// them. A new flag lands here and in parseConvertFlags.
struct ConvertArgs {
  std::string graph_file, saved_model;  // exactly one
  std::string tag_set, signature_key;   // SavedModel
  std::string output;
  std::string calibration_data;
  double input_mean = 127.5, input_std = 127.5;
  transforms::tflite::ConvertOptions options;
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
  const std::string quantize = flags.str("quantize");
  if (!quantize.empty() && quantize != "int8") return Status::Error("--quantize must be int8, got '" + quantize + "'");
  options.quantize = quantize == "int8" ? Quantize::Int8 : Quantize::None;
  a.calibration_data = flags.str("calibration_data");
  if (options.quantize == Quantize::Int8 && a.calibration_data.empty())
    return Status::Error(
        "--quantize=int8 needs --calibration_data=DIR (representative inputs for the activation ranges)");
  if (options.quantize == Quantize::None && !a.calibration_data.empty())
    return Status::Error("--calibration_data is for --quantize=int8");
  auto in_type = ioType(flags, "inference_input_type");
  auto out_type = ioType(flags, "inference_output_type");
  if (!in_type.ok()) return in_type.status();
  if (!out_type.ok()) return out_type.status();
  options.inference_input_type = *in_type;
  options.inference_output_type = *out_type;
  options.per_channel_fully_connected = !flags.boolean("disable_per_channel_quantization_for_dense_layers");
  return Status::Ok();
}

Result<ConvertArgs> parseConvertFlags(const Flags& flags) {
  ConvertArgs a;
  a.graph_file = flags.str("graph_def_file");
  a.saved_model = flags.str("saved_model_dir");
  if (a.graph_file.empty() == a.saved_model.empty())
    return Status::Error("give exactly one of --graph_def_file=FROZEN.pb and --saved_model_dir=DIR");
  a.output = flags.str("output_file");
  a.tag_set = flags.str("saved_model_tag_set");
  a.signature_key = flags.str("saved_model_signature_key");
  a.options.inputs = flags.list("input_arrays");
  a.options.outputs = flags.list("output_arrays");
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

Result<ConvertInput> loadConvertInput(ConvertArgs& a) {
  if (!a.saved_model.empty()) return freezeSavedModel(a);
  auto loaded = model::load(a.graph_file);
  if (!loaded.ok()) return loaded.status();
  if (loaded->kind == model::ModelKind::TFLite)
    return Status::Error(a.graph_file + " is already a TensorFlow Lite model");
  ConvertInput in;
  in.graph = std::move(loaded->graph);
  return in;
}

// --quantize=int8: the activation ranges observed on --calibration_data.
// Returns the line that reports it.
Result<std::string> calibrate(ConvertArgs& a, const tensorflow::GraphDef& graph) {
  auto samples = transforms::tflite::calibrationFolder(graph, a.options, a.calibration_data,
                                                       static_cast<float>(a.input_mean),
                                                       static_cast<float>(a.input_std));
  if (!samples.ok()) return Status::Error("--calibration_data: " + samples.error());
  a.options.calibration = std::move(*samples);
  return "Calibrated on " + std::to_string(a.options.calibration.size()) + " inputs from " + a.calibration_data;
}

// The converter's notes, the operators by builtin, the file's sizes.
void printConverted(const ConvertArgs& a, const transforms::tflite::ConvertResult& converted,
                    const model::tflite::WriteStats& stats, const std::string& calibration_note) {
  for (const std::string& note : converted.notes) std::printf("Note: %s\n", note.c_str());
  std::map<std::string, int> ops;
  for (const auto& n : converted.graph.node())
    if (model::tflite::isDialectOp(n.op()) && n.op() != model::tflite::kNoValueOp) {
      const auto* b = model::tflite::builtinByOpType(n.op());
      ++ops[b ? b->name : n.op()];
    }
  std::string op_text;
  for (const auto& [name, count] : ops) op_text += (op_text.empty() ? "" : ", ") + std::to_string(count) + " " + name;
  std::printf("Operators: %d (%s)\n", stats.operators, op_text.c_str());
  std::printf("Tensors: %d, buffers: %d (%d shared), constant bytes: %llu\n", stats.tensors, stats.buffers,
              stats.shared_buffers, static_cast<unsigned long long>(stats.constant_bytes));
  if (!calibration_note.empty()) std::printf("%s\n", calibration_note.c_str());
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(a.output, ec);
  std::printf("Wrote %s (%llu bytes)\n", a.output.c_str(), static_cast<unsigned long long>(ec ? 0 : bytes));
}

int runTfliteConvert(int argc, char** argv) {
  Flags flags("tflite_convert", kUsage, convertFlags());
  if (auto exit_code = flags.parseCommand(argc, argv)) return *exit_code;
  auto args = parseConvertFlags(flags);
  if (!args.ok()) return fail(args.error());
  auto input = loadConvertInput(*args);
  if (!input.ok()) return fail(input.error());
  std::string calibration_note;
  if (args->options.quantize == transforms::tflite::Quantize::Int8) {
    auto calibrated = calibrate(*args, input->graph);
    if (!calibrated.ok()) return fail(calibrated.error());
    calibration_note = *calibrated;
  }
  auto converted = transforms::tflite::convertToTflite(input->graph, args->options);
  if (!converted.ok()) return fail(converted.error());
  model::tflite::WriteOptions write;
  write.signatures = transforms::tflite::convertedSignatures(std::move(input->signatures), *converted);
  model::tflite::WriteStats stats;
  Status saved = model::tflite::saveTflite(converted->graph, args->output, write, &stats);
  if (!saved.ok()) return fail(saved.message());
  printConverted(*args, *converted, stats, calibration_note);
  return 0;
}

const CommandRegistration kRegistration(
    {"tflite_convert", "convert a frozen graph to TensorFlow Lite, float or int8 (tflite_convert)",
     &runTfliteConvert});

}  // namespace
}  // namespace gds::app
