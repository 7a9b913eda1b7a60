// Calibration for TensorFlow Lite's full-integer quantization: what
// representative inputs, run through the prepared float graph in gdstudio's
// interpreter, show of every tensor the converter quantizes. TensorFlow
// Lite's calibrator keeps the smallest minimum and the largest maximum over
// all samples (tensorflow/lite/tools/optimize/calibration), the default; the
// other methods of TensorFlow's quantizer read the same statistics
// (transforms/tflite/calibration_method.h).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/eval/dataset.h"
#include "engine/tensor.h"
#include "graph.pb.h"
#include "model/status.h"
#include "transforms/tflite/convert_options.h"

namespace gds::transforms::tflite {

// Runs each sample (values for `feeds`, in order) through `graph` and
// returns what it showed of every tensor in `tensors` ("node:k"): range and
// histogram (num_bins per sample, transforms/tflite/calibration_method.h).
// Errors name the sample and the node; `cancelled` (optional) is polled
// between nodes and ends the calibration with the error "cancelled".
// `progress` (may be empty) is called before each sample.
Result<std::map<std::string, TensorStatistics>> calibrationStatistics(
    const tensorflow::GraphDef& graph, const std::vector<std::string>& feeds, const std::vector<std::string>& tensors,
    const std::vector<std::vector<engine::Tensor>>& samples, int num_bins = 512, int num_threads = 1,
    const std::function<bool()>& cancelled = {}, const CalibrationProgress& progress = {});

// Values of the model inputs `inputs` (node names of `graph`) for each file,
// as `gdstudio compare --dataset` reads files: when every input is a
// Placeholder, each file feeds it (engine::loadSample: images resized and
// normalized, .npy as stored); when the inputs are inner nodes (Mfcc of a
// keyword-spotting graph), the file feeds the graph's own Placeholder and the
// inputs' values are computed by running the graph up to them.
Result<std::vector<std::vector<engine::Tensor>>> calibrationSamples(const tensorflow::GraphDef& graph,
                                                                    const std::vector<std::string>& inputs,
                                                                    const std::vector<std::string>& files,
                                                                    const engine::ImagePreprocess& preprocess,
                                                                    int num_threads = 1);

// The model inputs the converter takes: options.inputs, else the graph's
// Placeholders in graph order.
std::vector<std::string> converterInputs(const tensorflow::GraphDef& graph, const ConvertOptions& options);

// tflite_convert --calibration_data: every file of the folder `dir`
// (engine::openDataset) as a sample for converterInputs, read by
// calibrationSamples: images resized to the input's shape (the one shape of
// options.input_shapes when it gives one, [N, H, W, C]) and normalized as
// (x - mean) / std_dev. A colour image for a one-channel input is an error
// naming the file unless `grayscale` (ranges taken on photos decoloured
// without asking would mislead), as is a .npy of another shape.
Result<std::vector<std::vector<engine::Tensor>>> calibrationFolder(const tensorflow::GraphDef& graph,
                                                                   const ConvertOptions& options,
                                                                   const std::string& dir, float mean, float std_dev,
                                                                   bool grayscale = false);

}  // namespace gds::transforms::tflite
