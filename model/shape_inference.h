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

namespace gds::model {

// What is statically known about one output tensor.
struct TensorInfo {
  tensorflow::DataType dtype = tensorflow::DT_INVALID;  // DT_INVALID: unknown
  bool known_rank = false;
  Shape shape;  // valid when known_rank; -1 marks an unknown dimension

  bool fullyKnown() const;          // known rank and every dimension >= 0
  std::int64_t elements() const;    // -1 unless fullyKnown()
  // PartialTensorShape::DebugString spelling: "[1,?,3]", "<unknown>".
  std::string shapeText() const;
  std::string str() const;          // "float[1,?,3]", "int32<unknown>", "?[2]"
  static TensorInfo unknown(tensorflow::DataType dtype = tensorflow::DT_INVALID);
  static TensorInfo ranked(tensorflow::DataType dtype, Shape shape);
};

// Placeholder name -> shape chosen by the user (overrides the shape attr).
using ShapeOverrides = std::map<std::string, Shape>;

struct InferredShapes {
  // outputs[node index][port]; every node has at least one entry.
  std::vector<std::vector<TensorInfo>> outputs;
  // Small integer constants known statically (Const, Shape of a fully known
  // tensor, Pack of such scalars), keyed by node index and port; used by
  // Reshape, ExpandDims, ConcatV2, Pad, reductions, ...
  std::map<std::pair<int, int>, std::vector<std::int64_t>> int_values;

  // The info for node:port; an unknown TensorInfo when out of range.
  const TensorInfo& at(int node, int port = 0) const;
};

// The most outputs one node may have: a corrupt count attr (num_split,
// num, N) or port ("a:99999999") must not allocate millions of entries.
constexpr int kMaxNodeOutputs = 4096;

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
