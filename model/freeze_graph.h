// Freezing a graph without TensorFlow: replaces the variables its outputs need
// by Consts holding their checkpoint values and drops everything the outputs
// do not need (initializers, savers, summaries, training ops), as
// tensorflow/python/tools/freeze_graph.py with
// graph_util.convert_variables_to_constants does.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model/checkpoint.h"
#include "graph.pb.h"
#include "model/status.h"

namespace tensorflow {
class MetaGraphDef;
}

namespace gds::model {

struct FreezeOptions {
  // Nodes to keep (with what they need). "name", "name:1" and "^name" are
  // accepted. Empty: for a SavedModel or MetaGraph, the outputs of
  // `signature` (else an error).
  std::vector<std::string> output_nodes;
  // Checkpoint prefix (see resolveCheckpointPrefix for accepted forms).
  // Empty: for a SavedModel, <dir>/variables/variables.
  std::string checkpoint;
  // SavedModel/MetaGraph signature that chooses the outputs when none are
  // given. Empty: "serving_default", else the only signature.
  std::string signature;
  bool clear_devices = true;  // freeze_graph.py's --clear_devices default
  // Variables (node names) to convert; empty = all. Denied ones stay variables.
  std::vector<std::string> variable_allowlist;
  std::vector<std::string> variable_denylist;
  // Object-based checkpoints: variable node -> checkpoint key, ahead of the
  // graph's restore ops and of names.
  std::map<std::string, std::string> variable_keys;
};

// The ops that hold a variable, which freezing makes a Const: Variable,
// VariableV2 and VarHandleOp.
bool isVariableOp(const std::string& op);
// The graph's first such node, or null when it reads no variable.
const tensorflow::NodeDef* firstVariable(const tensorflow::GraphDef& graph);

struct FrozenVariable {
  std::string node;            // the variable node, now a Const
  std::string op;              // Variable, VariableV2 or VarHandleOp
  std::string checkpoint_key;  // the tensor read from the checkpoint
  std::string slice;           // slice of that tensor ("" = whole tensor)
};

struct FreezeResult {
  tensorflow::GraphDef graph;
  std::vector<FrozenVariable> converted;  // in graph order
  std::vector<std::string> inputs;        // signature inputs (tensor names), if a signature chose outputs
  std::vector<std::string> outputs;       // the output node names used
  // When a signature chose the outputs: its (key, tensor) pairs in the
  // signature's order, the tensors named as in the frozen graph ("x:0").
  std::vector<std::pair<std::string, std::string>> signature_inputs, signature_outputs;
  std::string checkpoint_prefix;          // the prefix actually read
  std::vector<std::string> warnings;
  // TF2 SavedModel: what was frozen ("signature 'serving_default'"), the
  // concrete function, and the calls inlined / control-flow ops lowered.
  std::string frozen;
  std::string function;
  int inlined_calls = 0;
  int lowered_control_flow = 0;
};

// graph_util.extract_sub_graph: the nodes `dest_nodes` reach through data,
// control and colocation ("_class" = "loc:@x") edges, in their original
// order; library and versions copied. Errors name a missing node.
Result<tensorflow::GraphDef> extractSubGraph(const tensorflow::GraphDef& graph,
                                             const std::vector<std::string>& dest_nodes);

// Builds a Const value the way TensorFlow's make_tensor_proto does:
// tensor_content for numeric tensors of more than one element, the typed
// value field otherwise.
void makeTensorProto(const HostTensor& tensor, tensorflow::TensorProto* proto);

// Freezes `graph` with values from `checkpoint`. `meta` (may be null) gives
// the saver and signatures of a MetaGraph/SavedModel.
Result<FreezeResult> freezeGraph(const tensorflow::GraphDef& graph, const tensorflow::MetaGraphDef* meta,
                                 const CheckpointReader& checkpoint, const FreezeOptions& options);

}  // namespace gds::model
