// TensorFlow's own tflite_convert flags (TF 1.x with --enable_v1_converter,
// and TF 2.x; tensorflow/lite/python/tflite_convert.py) that gdstudio's
// tflite_convert takes beside its own, so that a command line from
// TensorFlow's documentation runs unchanged: each does what TensorFlow does
// (--inference_type=INT8 with --mean_values/--std_dev_values and FakeQuant or
// --default_ranges_* ranges, --output_format=GRAPHVIZ_DOT, --dump_graphviz_dir,
// --conversion_summary_dir, ...), is accepted where TensorFlow's behaviour is
// gdstudio's only one (--drop_control_dependency, --experimental_new_converter,
// --enable_v1_converter, ...), or is refused with the gdstudio flag that does
// the job (--post_training_quantize: --quantize=int8).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/flags.h"
#include "graph.pb.h"
#include "model/status.h"
#include "transforms/tflite/convert.h"

namespace gds::app {

// The flags, for the command's flag table.
std::vector<FlagSpec> tensorflowConverterFlags();
// Flags TensorFlow 1.x's tflite_convert reports by their new names
// (_check_tf1_flags): --input_file is --graph_def_file, ...
std::vector<std::pair<std::string, std::string>> tensorflowRenamedFlags();

struct TensorFlowConverterFlags {
  bool graphviz_dot = false;  // --output_format=GRAPHVIZ_DOT
  // --inference_type: DT_FLOAT, DT_INT8 (TensorFlow's INT8) or DT_UINT8
  // (UINT8, QUANTIZED_UINT8); --inference_input_type in TensorFlow's
  // spelling (DT_INVALID when not given).
  tensorflow::DataType inference_type = tensorflow::DT_FLOAT;
  tensorflow::DataType inference_input_type = tensorflow::DT_INVALID;
  std::vector<double> mean_values, std_dev_values;
  std::optional<std::pair<double, double>> default_ranges;
  bool select_tf_ops = false, builtins_int8 = false;
  // --target_ops=EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8: 16x8.
  bool int16x8 = false;
  // --post_training_quantize --quantize_to_float16: TensorFlow 1.x's float16 weights.
  bool float16 = false;
  // --post_training_quantize alone: TensorFlow 1.x's dynamic-range quantization.
  bool dynamic_range = false;
  std::string dump_graphviz_dir;
  bool dump_graphviz_video = false;
  std::string conversion_summary_dir;
  std::vector<std::string> notes;  // said once the flags are read
};

// Reads and checks the flags with TensorFlow's rules (its error texts where
// it has one); an unhonourable flag is an error naming the gdstudio flag
// that does its job.
Result<TensorFlowConverterFlags> parseTensorFlowConverterFlags(const Flags& flags);

// --inference_type=INT8: the options for TensorFlow 1.x's quantization
// without calibration. `inputs` is the number of model inputs (for
// --mean_values/--std_dev_values).
Status applyInferenceType(const TensorFlowConverterFlags& tf, std::size_t inputs,
                          transforms::tflite::ConvertOptions& options);

// --dump_graphviz_dir (toco_AT_IMPORT.dot, toco_AFTER_TRANSFORMATIONS.dot and,
// with --dump_graphviz_video, one file per stage) and --conversion_summary_dir
// (toco_conversion_summary.html). Returns the files written.
Result<std::vector<std::string>> writeConversionDumps(const TensorFlowConverterFlags& tf,
                                                      const tensorflow::GraphDef& imported,
                                                      const transforms::tflite::ConvertResult& converted,
                                                      const std::string& output_file);

}  // namespace gds::app
