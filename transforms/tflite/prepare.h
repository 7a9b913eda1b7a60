// The inference rewrites the converter applies before lowering, as
// TensorFlow's converter does for a frozen graph: strip to the chosen inputs
// and outputs (a non-Placeholder input becomes a Placeholder), remove
// Identity/CheckNumerics/StopGradient, fold constants, fold batch norms
// (FusedBatchNorm(V2/V3), BatchNormWithGlobalNormalization and the Mul/Add
// chains of frozen slim graphs), fold constants again. The inputs get static
// shapes (a free batch dimension becomes 1) before the folding, so the
// Shape/Size/Rank of every statically shaped tensor and what is computed
// from them become constants, as in TensorFlow's converter.
#pragma once

#include <string>
#include <vector>

#include "graph.pb.h"
#include "model/status.h"
#include "model/tensor.h"
#include "transforms/tflite/convert_options.h"

namespace gds::transforms::tflite {

struct PreparedGraph {
  tensorflow::GraphDef graph;
  std::vector<std::string> inputs;       // Placeholder node names, in the user's order
  std::vector<model::Shape> input_shapes;  // static
  std::vector<tensorflow::DataType> input_types;
  std::vector<bool> free_batch;          // dimension 0 of the input was free (-1)
  std::vector<std::string> outputs;      // tensor names "node:k"
  std::vector<std::string> notes;
};

// Errors name the input or output array that is not in the graph, or the
// input whose shape is not known (give --input_shapes).
Result<PreparedGraph> prepareForTflite(const tensorflow::GraphDef& graph, const ConvertOptions& options);

}  // namespace gds::transforms::tflite
