// From a device runtime's per-operator rows back to the graph the user sees.
// A .tflite's operators are read with model/tflite (the dialect graph names
// each operator's node after its first output tensor, and the exporter,
// transforms/tflite/convert.h, names that tensor after the TensorFlow node
// computing it, the last node of a fused chain), so an operator's node is
// the desktop graph's node of the same name. The rows name operators as
// each runtime does: benchmark_model by operator index ("[...]:3") or, in
// older builds, by output tensor ("[x/Relu6]"); Arm NN's TfLite parser by
// "<Layer>:<subgraph>:<operator>" ("Conv2D:0:3", "Conv2D:0:3:RELU" for a
// fused activation); gdstudio by node name.
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "device/device_profile.h"
#include "graph.pb.h"
#include "model/status.h"

namespace gds::device {

struct TfliteOperator {
  int index = 0;
  std::string type;                 // "CONV_2D" (builtin name), "CUSTOM"
  std::string node;                 // the dialect graph's node ("MobilenetV1/.../Relu6")
  std::vector<std::string> outputs; // the tensor names as the file has them
};

class OperatorMap {
 public:
  OperatorMap() = default;
  // The operators of a .tflite (its bytes; `name` for errors).
  static Result<OperatorMap> fromTflite(const std::string& bytes, const std::string& name);
  // The tfl.* nodes of a dialect graph, in operator order.
  static OperatorMap fromDialectGraph(const tensorflow::GraphDef& graph);

  const std::vector<TfliteOperator>& operators() const { return ops_; }
  // The operator whose output tensor is `tensor` (-1: none).
  int operatorWithOutput(const std::string& tensor) const;

 private:
  std::vector<TfliteOperator> ops_;
};

// Arm NN TfLiteParser layer names: "Conv2D:0:3" and "Conv2D:0:3:RELU" -> 3,
// a merged layer "merged-Squeeze:0:29-with-Reshape:0:30" -> 30; -1 for
// layers it did not make from an operator (inputs, copies, ...).
int armnnLayerOperator(const std::string& layer_name);

// Sets op_index (from the row's tensor name when the runtime gave none) and
// `node` of every row: the operator's node when `graph_nodes` has it. A row
// whose index names no operator of that type (a delegate's kernel) is
// credited to none. `graph_nodes` empty: every operator's node.
void creditOperators(const OperatorMap& map, const std::unordered_set<std::string>& graph_nodes,
                     DeviceProfile* profile);
// Rows named after graph nodes (the gdstudio runtime): `node` is the name
// when `graph_nodes` has it, or the layer an 8-bit node was made from
// ("conv_eightbit/..." -> "conv").
void creditNodes(const std::unordered_set<std::string>& graph_nodes, DeviceProfile* profile);

}  // namespace gds::device
