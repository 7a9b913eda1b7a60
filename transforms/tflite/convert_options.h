// What a TensorFlow Lite conversion is asked for (transforms/tflite/convert.h
// runs it): the model's inputs, outputs and shapes, the quantization and its
// calibration. Below the converter's phases (prepare, calibrate, quantize,
// fake_quant), which read it, and the driver that calls them.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/tensor.h"
#include "types.pb.h"
#include "model/status.h"
#include "model/tensor.h"
#include "transforms/tflite/calibration_method.h"

namespace gds::transforms::tflite {

// None: float32. Int8: full integer (calibrated). Float16: float16 weights
// read through DEQUANTIZE, float32 arithmetic (transforms/tflite/float16.h).
// Dynamic: int8 weights, float activations, hybrid kernels
// (transforms/tflite/dynamic_range.h). Int16x8: full integer with int16
// activations and int8 weights (TensorFlow's
// EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8, calibrated).
enum class Quantize { None, Int8, Float16, Dynamic, Int16x8 };
// "int8", "float16", "dynamic", "int16x8"; "" and "none" are None. Errors
// name the choices.
Result<Quantize> parseQuantize(const std::string& text);
const char* quantizeName(Quantize q);  // "float32", "int8", "float16", "dynamic", "int16x8"
// Whether activations are integers (int8 or 16x8): calibrated modes.
inline bool fullInteger(Quantize q) { return q == Quantize::Int8 || q == Quantize::Int16x8; }

// Called before each calibration sample runs (done = samples finished).
using CalibrationProgress = std::function<void(int done, int total)>;

struct ConvertOptions {
  // --input_arrays: node names (any node; a non-Placeholder becomes the
  // model's input and what computes it is dropped). Empty: the Placeholders.
  std::vector<std::string> inputs;
  // --output_arrays: node names (port 0) or tensor names "node:k". Empty: the
  // nodes nothing consumes.
  std::vector<std::string> outputs;
  // --input_shapes, one per input (empty: the Placeholder's shape; a free
  // batch dimension becomes 1, as TensorFlow's converter does).
  std::vector<model::Shape> input_shapes;

  Quantize quantize = Quantize::None;
  // Representative inputs for full-integer modes: one vector per sample, a tensor
  // per input in `inputs` order (values of the graph's input tensors).
  std::vector<std::vector<engine::Tensor>> calibration;
  // How the samples' values become each tensor's range
  // (transforms/tflite/calibration_method.h); min/max by default.
  CalibrationOptions calibration_method;
  // Without calibration samples, TensorFlow 1.x's quantization
  // (tflite_convert --inference_type=INT8): each activation's range from the
  // FakeQuant node after it (quantization-aware training,
  // transforms/tflite/fake_quant.h), each input's from input_ranges
  // (--mean_values/--std_dev_values: [(qmin - mean) / std, (qmax - mean) /
  // std]), and every other tensor `default_range` (--default_ranges_min/max,
  // "dummy quantization"); a tensor with none is an error naming it.
  std::vector<std::optional<TensorRange>> input_ranges;  // one per input, or empty
  std::optional<TensorRange> default_range;
  // Model input and output types for int8: DT_FLOAT (QUANTIZE/DEQUANTIZE at
  // the edges) or DT_INT8; for 16x8 DT_FLOAT or DT_INT16.
  tensorflow::DataType inference_input_type = tensorflow::DT_FLOAT;
  tensorflow::DataType inference_output_type = tensorflow::DT_FLOAT;
  // FULLY_CONNECTED weights per tensor (operator_property.cc; TensorFlow's
  // converter until 2024, and what Arm NN 20.08, NNAPI and TFLite Micro
  // before 2024 run) or per output channel (TensorFlow's converter since).
  bool per_channel_fully_connected = false;
  // int8 and 16x8: operators kept float (selective quantization; TensorFlow's
  // QuantizationDebugOptions denylisted_nodes and denylisted_ops): nodes of
  // the converted model by name (the tensor each computes: the last node of
  // a fused chain), operators by builtin name ("CONV_2D").
  std::vector<std::string> float_nodes, float_ops;
  // int8: an operator without an int8 form (CAST, DIV, ...) stays float
  // between DEQUANTIZE and QUANTIZE, as TensorFlow's converter leaves it
  // with TFLITE_BUILTINS among the supported ops; true refuses it
  // (supported_ops=[TFLITE_BUILTINS_INT8], --target_ops=TFLITE_BUILTINS_INT8,
  // and TensorFlow 1.x's --inference_type=INT8).
  bool int8_only = false;
  // What an earlier conversion of the same graph with the same `calibration`
  // samples saw (its ConvertResult::statistics): the ranges are read from
  // them instead of running the samples again. The accuracy budget converts
  // one graph once per candidate, which differs only in float_nodes.
  std::shared_ptr<const std::map<std::string, TensorStatistics>> calibrated;
  int num_threads = 1;  // for the calibration runs
  CalibrationProgress calibration_progress;  // may be empty
  // Polled between the calibration runs' nodes (engine::PlanOptions::cancelled):
  // true ends the conversion with the error "cancelled".
  std::function<bool()> cancelled;
};

}  // namespace gds::transforms::tflite
