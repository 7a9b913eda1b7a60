// Static shape and dtype inference over a Graph, following the shape
// functions TensorFlow registers in tensorflow/core/ops/*.cc for the common
// inference ops. Anything it cannot determine is reported as unknown (a -1
// dimension or an unknown rank), never guessed.
//
//   auto shapes = inferShapes(graph, {{"input", {1, 224, 224, 3}}});
//   const TensorInfo& t = shapes.at(graph.find("conv/Conv2D"), 0);
//   if (t.known_rank) ... t.shape ... t.dtype
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/graph.h"
#include "model/tensor.h"
#include "model/tensor_info.h"

namespace gds::model {

// Number of outputs a node has according to its op's output args in
// model/op_metadata.pbtxt and the node's attrs (Split: num_split,
// QuantizeV2: 3, FusedBatchNormV3: 6, ...), at least the number the graph
// consumes (all of it when the op is not known).
int outputCount(const Graph& graph, int node);

// Runs in topological order. Never fails: malformed attrs give unknown
// shapes. Overrides naming nodes that are not Placeholders are ignored.
InferredShapes inferShapes(const Graph& graph, const ShapeOverrides& overrides = {});

// Parses "1,224,224,3" (TF's --input_layer_shape spelling; -1 or ? for an
// unknown dim; empty for a scalar).
Result<Shape> parseShape(const std::string& text);

}  // namespace gds::model
