// The corpus models the TensorFlow Lite tests export (tflite_convert_test,
// tflite_run_test, tflite_armnn_layers_test): which file, where the exported
// model starts and ends, and which data folder feeds and calibrates it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "engine/tensor.h"
#include "graph.pb.h"
#include "model/tensor.h"
#include "transforms/tflite/convert.h"

namespace gds::transforms::tflite {

struct ExportedCorpusModel {
  std::string name;                        // file under models/
  std::vector<std::string> inputs;         // --input_arrays (Mfcc: after the audio front end)
  std::vector<model::Shape> input_shapes;  // --input_shapes (empty: the Placeholder's)
  std::string output;                      // --output_arrays
  std::string data;                        // folder under data/: the samples and the calibration
  // The softmax's input for the models whose int8 output is compared with
  // Arm NN through it (tflite_run_test); empty when the output itself is
  // within one step.
  std::string logits;
};

// MobileNet v1 0.25/128, MobileNet v1 1.0/224 (random weights),
// inception_mini, kws_ds_cnn_s and kws_cnn_s, in that order.
const std::vector<ExportedCorpusModel>& exportedCorpus();
// The keyword LSTM and CRNN (TensorFlow 1.x dynamic_rnn while loops, which
// the converter unrolls): kws_lstm_s reads 25 MFCC frames, kws_crnn_s 49.
const std::vector<ExportedCorpusModel>& recurrentCorpus();

// The converter's options for the model's inputs, shapes and output (float).
ConvertOptions corpusConvertOptions(const ExportedCorpusModel& m);

// The model's inputs for the first `limit` files (all by default) of its data folder, as the
// converter's calibration reads them (images normalized with mean and std
// 127.5; WAV clips through the graph's own front end up to Mfcc).
std::vector<std::vector<engine::Tensor>> corpusSamples(const ExportedCorpusModel& m, const tensorflow::GraphDef& graph,
                                                       std::size_t limit = 1000);

}  // namespace gds::transforms::tflite
