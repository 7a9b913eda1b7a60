// What TensorFlow's summarize_graph tells about a graph
// (tensorflow/tools/graph_transforms/summarize_graph_main.cc), with the same
// rules for inputs, outputs and parameter counts, plus a FLOPs estimate with
// benchmark_model's rule, parameter bytes, file size and node count.
//
//   auto m = load(path);                       // model/io.h
//   auto g = Graph::build(m->graph);           // model/graph.h
//   Summary s = summarize(*g, {m->path, m->file_bytes});
//   std::cout << formatSummaryText(s);          // summarize_graph's lines
//   nlohmann::json j = toJson(s);
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/auxiliary.h"
#include "model/graph.h"
#include "model/io.h"
#include "model/shape_inference.h"

namespace gds::model {

// A Placeholder (possible input) or Variable/VariableV2 node.
struct SummaryNode {
  std::string name;
  std::string op;
  tensorflow::DataType dtype = tensorflow::DT_INVALID;  // the "dtype" attr
  bool has_shape = false;   // the node has a "shape" attr
  bool known_rank = false;  // ... and its rank is known
  Shape shape;              // -1 for unknown dims
};

// One possible input (Placeholder) or output, ranked for a person choosing
// what to feed and fetch. Not part of summarize_graph's output.
struct Suggestion {
  std::string name;
  std::string op;
  // A real data input (not a flag, a captured variable or an auxiliary node)
  // with most of the graph downstream; an output at an end of the main path.
  bool likely = false;
  AuxiliaryKind auxiliary = AuxiliaryKind::None;
  // Inputs: the longest data path from here to an output; outputs: the
  // longest data path from an input to here; auxiliary nodes not counted.
  int path_length = 0;
};

// A model input or output tensor with what the graph records about it:
// dtype, static shape and quantization (graphs read from .tflite files and
// the TFLite dialect carry them per tensor, see model/tflite/dialect.h).
struct TensorSummary {
  std::string name;  // tensor name as the model file spells it
  tensorflow::DataType dtype = tensorflow::DT_INVALID;
  bool known_rank = false;
  Shape shape;
  std::string quantization;  // "scale=0.0235 zero_point=-128", "" when none
};

struct SummaryOptions {
  std::string path;             // shown in the suggested benchmark command
  std::int64_t file_bytes = 0;  // size of the file the graph came from
  ShapeOverrides input_shapes;  // user's input shapes, used for FLOPs
};

// A signature of a TF2 SavedModel: what its function takes and returns, the
// variables it captures, and the ops of the functions it runs.
struct SignatureSummary {
  std::string key;
  std::string method;
  std::string function;
  std::vector<SummaryNode> inputs;     // named by the signature's keys
  std::vector<SummaryNode> outputs;
  std::vector<SummaryNode> variables;  // captured variables, in argument order
  std::int64_t variable_parameters = 0;  // elements, by the variables' shapes
  int functions = 0;                     // functions it reaches (itself included)
  std::vector<std::pair<std::string, int>> op_types;  // over those functions, count descending
};

struct Summary {
  std::string path;
  std::int64_t file_bytes = 0;
  int node_count = 0;
  std::vector<SummaryNode> inputs;     // Placeholder nodes, in graph order
  std::vector<SummaryNode> variables;  // Variable and VariableV2 nodes
  // Nodes nothing consumes (data or control) that are not Const, Assign,
  // NoOp or Placeholder: (name, op), in graph order.
  std::vector<std::pair<std::string, std::string>> outputs;
  // Elements of Const (resp. Variable/VariableV2) "value" tensors that decode.
  std::int64_t const_parameters = 0;
  std::int64_t variable_parameters = 0;
  // Elements declared by the "shape" attr of VariableV2/Variable/VarHandleOp
  // (summarize_graph's variable count is 0 for them: they have no value).
  std::int64_t variable_shape_parameters = 0;
  std::int64_t const_bytes = 0;     // bytes of those Const tensors (strings: their lengths)
  std::int64_t variable_bytes = 0;  // bytes declared by the variables' shape and dtype
  // The model's parameters: constants' elements and variables' declared
  // shapes (a variable's values are in its checkpoint, not in the graph).
  std::int64_t parameters() const { return const_parameters + variable_shape_parameters; }
  std::int64_t parameterBytes() const { return const_bytes + variable_bytes; }
  int control_edges = 0;
  std::map<std::string, int> devices;  // device -> node count (non-empty devices)
  // Op type -> count over the graph and its function library, ordered as
  // summarize_graph prints them (count descending).
  std::vector<std::pair<std::string, int>> op_types;
  // FLOPs with benchmark_model's rule: Conv2D/QuantizedConv2D
  // out_elems*kh*kw*in_depth*2, MatMul/QuantizedMatMul out_elems*K*2,
  // DepthwiseConv2dNative out_elems*kh*kw*2; their fused and per-channel
  // 8-bit forms and the TFLite dialect's conv_2d, depthwise_conv_2d and
  // fully_connected likewise (countsForFlops).
  std::int64_t flops = 0;
  std::map<std::string, std::int64_t> flops_by_type;
  // Such nodes whose shapes are not statically known (not counted).
  std::vector<std::string> flops_unknown_nodes;
  // Inputs whose unknown batch (first) dimension FLOPs counted as 1, as
  // benchmark_model runs them; a user's shape for the input overrides it.
  std::vector<std::string> flops_batch_one;
  // Every possible input (Placeholders) and output above, ranked: likely
  // ones first, then by path length; auxiliary ones last.
  std::vector<Suggestion> suggested_inputs, suggested_outputs;
  int auxiliary_nodes = 0;  // see model/auxiliary.h
  // Const nodes whose value does not decode (skipped, as TensorFlow does).
  std::vector<std::string> warnings;
  // MetaGraph/SavedModel: the signature keys (not "__saved_model_init_op").
  std::vector<std::string> signature_keys;
  // TF2 SavedModel: its signatures replace the outer graph's plumbing in the
  // text report.
  bool object_based = false;
  std::string tensorflow_version;
  int functions = 0;  // in the library
  std::vector<SignatureSummary> signatures;
  // "Sequential: Conv1D conv1d, Flatten flatten, Dense dense" when the
  // SavedModel is a Keras model.
  std::string keras_model;
  // The model's input and output tensors with dtype, shape and quantization,
  // for graphs that record them per tensor (_output_types and quantization
  // attrs); empty for other graphs.
  std::vector<TensorSummary> input_tensors;
  std::vector<TensorSummary> output_tensors;
};

Summary summarize(const Graph& graph, const SummaryOptions& options = {});
// Loads nothing: builds the index of model.graph and summarizes it.
Result<Summary> summarizeModel(const LoadedModel& model, const ShapeOverrides& input_shapes = {});

// summarize_graph's output for the summary (its lines and order), with the
// suggested command for `gdstudio benchmark`, followed by the extra lines
// (node count, file size, parameter bytes, FLOPs, the input and output
// tensors with quantization when the graph records them, the likely inputs
// and outputs and a benchmark command with only those).
std::string formatSummaryText(const Summary& summary);
// --print_structure: "name (Op): [in1, in2]" per node in TensorFlow's
// execution order, Consts with ", value=<Tensor DebugString>".
Result<std::string> formatStructure(const tensorflow::GraphDef& graph);

nlohmann::json toJson(const Summary& summary);

// The ops a FLOPs estimate counts (benchmark_model's CalculateFlops rule:
// convolutions and matrix products only), in every form they take: the
// graph's (Conv2D, QuantizedConv2D, the per-channel QuantizedFused*, the
// TFLite dialect's) and the engine's fused kernels (_FusedConv2D,
// _FusedQuantizedConv2D, ...), which count as the contraction they replaced.
bool countsForFlops(const std::string& op);

// tensorflow::strings::HumanReadableNum: 999, 1.00k, 23.85M, 1.20B, 1E+15...
std::string humanReadableNum(std::int64_t value);
// PartialTensorShape::DebugString: "[1,?,3]", "<unknown>".
std::string partialShapeText(bool known_rank, const Shape& shape);
// Tensor::DebugString(3) for a TensorProto, or an error when it does not decode.
Result<std::string> tensorDebugString(const tensorflow::TensorProto& tensor, int max_values = 3);

}  // namespace gds::model
