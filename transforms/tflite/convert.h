// TensorFlow GraphDef -> TFLite dialect GraphDef (model/tflite/dialect.h), as
// TensorFlow's tflite_convert does it for frozen graphs: the inference
// rewrites first (strip to the chosen inputs and outputs, Identity removal,
// constant folding, batch-norm folding: transforms/tflite/prepare.h), then one
// TFLite builtin per TensorFlow op or fused chain (Conv2D + BiasAdd + Relu6 ->
// CONV_2D with a bias and a fused activation, ...: transforms/tflite/lower.h),
// then, for --quantize=int8, TensorFlow Lite's full-integer scheme with
// ranges calibrated on representative inputs (transforms/tflite/quantize.h).
// The result is written with model/tflite/writer.h and runs in gdstudio once
// the engine has kernels for the dialect.
//
//   ConvertOptions options;
//   options.inputs = {"input"};
//   options.outputs = {"MobilenetV1/Predictions/Reshape_1"};
//   auto converted = convertToTflite(frozen, options);
//   if (!converted.ok()) return converted.status();  // names the node and op
//   model::tflite::saveTflite(converted->graph, "model.tflite");
//
// Dialect nodes keep the TensorFlow names of the tensors they compute (a
// fused chain is named after its last node), so the float graph and the
// exported model can be compared layer by layer by name.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/tensor.h"
#include "model/io.h"
#include "graph.pb.h"
#include "model/status.h"
#include "model/tensor.h"
#include "transforms/tflite/convert_options.h"

namespace gds::transforms::tflite {

struct ConvertResult {
  tensorflow::GraphDef graph;     // the TFLite dialect graph
  tensorflow::GraphDef prepared;  // the TensorFlow graph after the inference rewrites
  std::vector<std::string> inputs, outputs;  // model input/output tensor names in `prepared` ("node:0")
  // The model's output tensors in `graph` ("node:k"), in the order of `outputs`
  // (an output read through an Identity is the tensor before it).
  std::vector<std::string> graph_outputs;
  std::map<std::string, TensorRange> ranges;  // int8: calibrated range by tensor name
  // int8 calibrated on samples: what they showed of each tensor, by tensor
  // name (the range above is options.calibration_method's reading of it).
  std::map<std::string, TensorStatistics> statistics;
  int fake_quant_nodes = 0;                    // FakeQuant nodes whose ranges were taken
  std::vector<std::string> notes;             // what the converter did that the user should know
};

Result<ConvertResult> convertToTflite(const tensorflow::GraphDef& graph, const ConvertOptions& options);

// The model's output tensors as the written file names them, for running the
// file read back: an output array read through an Identity gives its tensor
// the array's name (as TensorFlow's converter does), the others keep
// graph_outputs' names.
std::vector<std::string> fileOutputs(const ConvertResult& converted);

// tflite_convert --saved_model_dir: the signature `signature_key` of a
// SavedModel frozen (model::freeze, a TF1 or TF2 SavedModel), its inputs and
// outputs filling options->inputs and options->outputs where those are
// empty, and that signature, to record in the .tflite once
// convertedSignatures has renamed its tensors.
struct FrozenSavedModel {
  tensorflow::GraphDef graph;
  std::vector<model::Signature> signatures;
};
Result<FrozenSavedModel> freezeSavedModel(const model::LoadedModel& saved_model, const std::string& signature_key,
                                          ConvertOptions* options);

// tflite_convert --keras_model_file: a Keras model's signature (model/io.h:
// its input layers' Placeholders, its output layers' tensors, by the layers'
// names) fills options->inputs and options->outputs where those are empty,
// as TensorFlow's TFLiteConverter.from_keras_model takes the model's inputs
// and outputs; returns that signature, to record as for a SavedModel.
std::vector<model::Signature> kerasModelArrays(const model::LoadedModel& keras, ConvertOptions* options);

// Signatures of the source model named as the converted model names its
// tensors: inputs keep their node names ("node:0"), outputs become the
// converter's output tensors (ConvertResult::graph_outputs). A signature
// with an output the conversion does not produce is left out. A frozen graph
// (no signatures) gets serving_default keyed by its input and output nodes.
std::vector<model::Signature> convertedSignatures(std::vector<model::Signature> signatures,
                                                  const ConvertResult& converted);

}  // namespace gds::transforms::tflite
