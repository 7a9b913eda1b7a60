// What shape inference knows about tensors: one output's dtype and shape
// (TensorInfo) and every node's outputs (InferredShapes). The shape
// functions (model/shape_fns/) fill them; model/shape_inference.h runs them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "types.pb.h"
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

}  // namespace gds::model
