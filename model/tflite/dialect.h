// The TFLite dialect of GraphDef: how a TensorFlow Lite model is represented
// as a GraphDef, so that the viewer, summaries, transforms, the interpreter and
// the comparison work on it like on any graph (docs/architecture.md: the rest of the
// program never asks which format a graph came from). The reader
// (model/tflite/reader.h) produces it from a .tflite file, the writer
// (model/tflite/writer.h) serializes it back, and the converter
// (transforms/tflite/convert.h) produces it from a TensorFlow graph.
//
// Nodes
// - One node per operator, op type "tfl." + the lowercase builtin name, as
//   MLIR's TFL dialect spells them: tfl.conv_2d, tfl.depthwise_conv_2d,
//   tfl.fully_connected, tfl.add, tfl.quantize, ... (model/tflite/builtin_ops.cc
//   lists the supported ones). Custom operators are "tfl.custom" with attrs
//   custom_code (string), custom_options (the raw bytes) and
//   custom_options_format ("FLEXBUFFERS").
// - The node is named after its first output tensor; output k is "node:k".
//   Tensor names are TFLite's, made valid node names: a trailing ":<digits>"
//   is dropped ("serving_default_input:0" -> node "serving_default_input"),
//   other ':' and a leading '^' become '_', an empty name becomes
//   "tensor_<index>"; clashes get "_1", "_2", ... in a fixed order (operators
//   first, in execution order, then model inputs, then constants by tensor
//   index).
// - A model input (a subgraph input no operator produces) is a Placeholder
//   with attrs dtype and shape; a tensor with constant data is a Const with
//   attrs dtype and value (the data in tensor_content, little-endian; strings
//   in string_val). TensorFlow Lite's types map to DT_FLOAT, DT_HALF,
//   DT_BFLOAT16, DT_DOUBLE, DT_INT8, DT_UINT8, DT_INT16, DT_UINT16, DT_INT32,
//   DT_UINT32, DT_INT64, DT_UINT64, DT_BOOL, DT_STRING, DT_COMPLEX64,
//   DT_COMPLEX128, DT_RESOURCE and DT_VARIANT (model/tflite/types.h); a
//   quantized tensor keeps its storage type (DT_INT8, DT_UINT8, DT_INT32
//   bias, ...) and carries its quantization attrs.
// - An absent optional input (-1 in the file) reads the shared node
//   "tfl.no_value" (op tfl.no_value, as MLIR does), so input positions stay
//   right.
//
// Attrs of a tfl.* node
// - The builtin options, one attr per field of the operator's options table
//   in model/tflite/schema.fbs, named after the field: stride_w (int),
//   padding ("SAME"/"VALID"), fused_activation_function ("NONE", "RELU",
//   "RELU6", ...), depth_multiplier, keep_dims (bool), new_shape (list(int)),
//   beta (float), ... Enums are their names as strings; every field is
//   present (defaults filled in), so equal graphs write equal files.
// - _output_types: list(type), one per output.
// - _output_shapes: list(shape), one per output (TensorFlow's convention for
//   graphs written with add_shapes), the tensor's static shape.
//
// Attrs of any node (tfl.*, Placeholder, Const), per output tensor
// - _shape_signature: list(shape), one per output, present when the file
//   carries a shape_signature for any of them (-1 for free dimensions; an
//   unknown-rank entry stands for "none").
// - Quantization of output 0: _quantization_scale (list(float)),
//   _quantization_zero_point (list(int)), _quantized_dimension (int, only
//   when non-zero), _quantization_min / _quantization_max (list(float), when
//   the file has them). Output k > 0 uses the same names with the suffix
//   ":k" (_quantization_scale:1). real = scale * (q - zero_point).
// - _output_names: list(string), the TFLite tensor names of the outputs,
//   present when they differ from "node" (output 0) and "node:k" (k > 0).
// - _input_index (Placeholder): its position among the model's inputs.
// - _output_index: list(int), one per output, its position among the model's
//   outputs or -1.
//
// The model's SignatureDefs become LoadedModel::signatures (tensor names
// "node:port"); a file with more than one subgraph (WHILE/IF bodies) is
// refused for now.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "graph.pb.h"
#include "model/status.h"
#include "model/tensor.h"

namespace gds::model::tflite {

inline constexpr char kOpPrefix[] = "tfl.";
inline constexpr char kNoValueOp[] = "tfl.no_value";
inline constexpr char kNoValueNode[] = "tfl.no_value";
inline constexpr char kCustomOp[] = "tfl.custom";

inline constexpr char kOutputTypesAttr[] = "_output_types";
inline constexpr char kOutputShapesAttr[] = "_output_shapes";
inline constexpr char kShapeSignatureAttr[] = "_shape_signature";
inline constexpr char kOutputNamesAttr[] = "_output_names";
inline constexpr char kInputIndexAttr[] = "_input_index";
inline constexpr char kOutputIndexAttr[] = "_output_index";
inline constexpr char kScaleAttr[] = "_quantization_scale";
inline constexpr char kZeroPointAttr[] = "_quantization_zero_point";
inline constexpr char kQuantizedDimensionAttr[] = "_quantized_dimension";
inline constexpr char kMinAttr[] = "_quantization_min";
inline constexpr char kMaxAttr[] = "_quantization_max";

// Whether `op` is an op type of the dialect ("tfl." prefix).
bool isDialectOp(const std::string& op);
// Whether any node of the graph is a tfl.* op.
bool isDialectGraph(const tensorflow::GraphDef& graph);

// TensorFlow Lite's affine quantization of one tensor.
struct Quantization {
  std::vector<float> scale;
  std::vector<std::int64_t> zero_point;
  int quantized_dimension = 0;
  std::vector<float> min, max;

  bool empty() const { return scale.empty() && zero_point.empty() && min.empty() && max.empty(); }
  bool perChannel() const { return scale.size() > 1; }
  bool operator==(const Quantization& o) const {
    return scale == o.scale && zero_point == o.zero_point && quantized_dimension == o.quantized_dimension &&
           min == o.min && max == o.max;
  }
  std::string str() const;  // "scale=0.0235 zero_point=-128", "scale=[...] (8 per channel, dim 3)", "none"
};

// The attr name for output `port` ("_quantization_scale", "_quantization_scale:1").
std::string quantizationAttrName(const char* base, int port);
// Reads/writes the quantization attrs of output `port`; an empty
// Quantization removes them.
Quantization quantizationOf(const tensorflow::NodeDef& node, int port);
void setQuantization(tensorflow::NodeDef* node, int port, const Quantization& q);

// Number of outputs, dtype and static shape of output `port` as the dialect
// records them (_output_types/_output_shapes on tfl.* nodes; dtype, shape or
// value on Placeholder and Const). DT_INVALID / empty when unknown.
int outputCount(const tensorflow::NodeDef& node);
tensorflow::DataType outputType(const tensorflow::NodeDef& node, int port);
Shape outputShape(const tensorflow::NodeDef& node, int port, bool* known = nullptr);

// The TFLite tensor name of output `port` (_output_names, else "node" /
// "node:port").
std::string tensorName(const tensorflow::NodeDef& node, int port);

// A valid, unused node name for a TFLite tensor name (rules above); `taken`
// holds the names in use and receives the new one.
std::string nodeNameFor(const std::string& tensor_name, int tensor_index, std::unordered_set<std::string>* taken);

}  // namespace gds::model::tflite
