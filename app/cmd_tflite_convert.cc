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

int runTfliteConvert(int argc, char** argv) {
  Flags flags("tflite_convert", kUsage, convertFlags());
  if (auto exit_code = flags.parseCommand(argc, argv)) return *exit_code;
  const std::string graph_file = flags.str("graph_def_file"), saved_model = flags.str("saved_model_dir");
  if (graph_file.empty() == saved_model.empty())
    return fail("give exactly one of --graph_def_file=FROZEN.pb and --saved_model_dir=DIR");
  const std::string output = flags.str("output_file");

  transforms::tflite::ConvertOptions options;
  options.inputs = flags.list("input_arrays");
  options.outputs = flags.list("output_arrays");
  if (!flags.str("input_shapes").empty()) {
    for (const std::string& text : splitString(flags.str("input_shapes"), ':')) {
      auto shape = model::parseShape(text);
      if (!shape.ok()) return fail("--input_shapes: '" + text + "': " + shape.error());
      options.input_shapes.push_back(*shape);
    }
    if (!options.inputs.empty() && options.input_shapes.size() != options.inputs.size())
      return fail("--input_shapes gives " + std::to_string(options.input_shapes.size()) + " shapes for " +
                  std::to_string(options.inputs.size()) + " --input_arrays (separate the shapes with ':')");
  }
  const std::string quantize = flags.str("quantize");
  if (!quantize.empty() && quantize != "int8") return fail("--quantize must be int8, got '" + quantize + "'");
  options.quantize = quantize == "int8" ? transforms::tflite::Quantize::Int8 : transforms::tflite::Quantize::None;
  if (options.quantize == transforms::tflite::Quantize::Int8 && flags.str("calibration_data").empty())
    return fail("--quantize=int8 needs --calibration_data=DIR (representative inputs for the activation ranges)");
  if (options.quantize == transforms::tflite::Quantize::None && !flags.str("calibration_data").empty())
    return fail("--calibration_data is for --quantize=int8");
  auto in_type = ioType(flags, "inference_input_type");
  auto out_type = ioType(flags, "inference_output_type");
  if (!in_type.ok()) return fail(in_type.error());
  if (!out_type.ok()) return fail(out_type.error());
  options.inference_input_type = *in_type;
  options.inference_output_type = *out_type;
  options.per_channel_fully_connected = !flags.boolean("disable_per_channel_quantization_for_dense_layers");
  auto threads = flags.numThreads();
  if (!threads.ok()) return fail(threads.error());
  auto mean = flags.number("input_mean");
  auto std_dev = flags.number("input_std");
  if (!mean.ok() || !std_dev.ok()) return fail("--input_mean and --input_std must be numbers");
  if (*std_dev == 0) return fail("--input_std must not be 0");
  options.num_threads = static_cast<int>(*threads);

  // The frozen graph.
  tensorflow::GraphDef graph;
  std::vector<model::Signature> signatures;
  if (!saved_model.empty()) {
    model::LoadOptions load;
    load.tags = splitString(flags.str("saved_model_tag_set"), ',');
    auto loaded = model::load(saved_model, load);
    if (!loaded.ok()) return fail(loaded.error());
    auto frozen = transforms::tflite::freezeSavedModel(*loaded, flags.str("saved_model_signature_key"), &options);
    if (!frozen.ok()) return fail(frozen.error());
    graph = std::move(frozen->graph);
    signatures = std::move(frozen->signatures);
  } else {
    auto loaded = model::load(graph_file);
    if (!loaded.ok()) return fail(loaded.error());
    if (loaded->kind == model::ModelKind::TFLite) return fail(graph_file + " is already a TensorFlow Lite model");
    graph = std::move(loaded->graph);
  }

  std::string calibration_note;
  if (options.quantize == transforms::tflite::Quantize::Int8) {
    auto dataset = engine::openDataset(flags.str("calibration_data"));
    if (!dataset.ok()) return fail("--calibration_data: " + dataset.error());
    std::vector<std::string> files;
    for (const std::string& f : dataset->files) files.push_back(dataset->dir + "/" + f);
    std::vector<std::string> inputs = options.inputs;
    if (inputs.empty())
      for (const auto& n : graph.node())
        if (n.op() == "Placeholder") inputs.push_back(n.name());
    engine::ImagePreprocess preprocess;
    preprocess.mean = static_cast<float>(*mean);
    preprocess.std_dev = static_cast<float>(*std_dev);
    if (options.input_shapes.size() == 1 && options.input_shapes[0].size() == 4) {
      preprocess.height = options.input_shapes[0][1];
      preprocess.width = options.input_shapes[0][2];
    }
    auto samples = transforms::tflite::calibrationSamples(graph, inputs, files, preprocess, options.num_threads);
    if (!samples.ok()) return fail("--calibration_data: " + samples.error());
    options.calibration = std::move(*samples);
    calibration_note = "Calibrated on " + std::to_string(files.size()) + " inputs from " + flags.str("calibration_data");
  }

  auto converted = transforms::tflite::convertToTflite(graph, options);
  if (!converted.ok()) return fail(converted.error());
  model::tflite::WriteOptions write;
  write.signatures = transforms::tflite::convertedSignatures(std::move(signatures), *converted);
  model::tflite::WriteStats stats;
  Status saved = model::tflite::saveTflite(converted->graph, output, write, &stats);
  if (!saved.ok()) return fail(saved.message());

  for (const std::string& note : converted->notes) std::printf("Note: %s\n", note.c_str());
  std::map<std::string, int> ops;
  for (const auto& n : converted->graph.node())
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
  const auto bytes = std::filesystem::file_size(output, ec);
  std::printf("Wrote %s (%llu bytes)\n", output.c_str(), static_cast<unsigned long long>(ec ? 0 : bytes));
  return 0;
}

const CommandRegistration kRegistration(
    {"tflite_convert", "convert a frozen graph to TensorFlow Lite, float or int8 (tflite_convert)",
     &runTfliteConvert});

}  // namespace
}  // namespace gds::app
