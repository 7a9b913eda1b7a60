// TensorFlow function libraries (FunctionDefLibrary): looking functions up,
// resolving their bodies' "node:output_arg:index" references, and inlining
// calls into the graph the way TensorFlow's runtime does before it runs a
// graph (common_runtime/inline_function_utils.cc, lower_function_call_op.cc,
// lower_if_op.cc, lower_while_op.cc, lower_case_op.cc):
//
//   PartitionedCall / StatefulPartitionedCall / a node whose op is a library
//   function -> the function's body, its nodes renamed "<call node>/<node>",
//   arguments wired to the call's inputs, the call's outputs to the body's
//   returns, the call's control edges to NoOps ("input_control_node",
//   "output_control_node") that keep TensorFlow's side-effect order;
//   If/StatelessIf -> Switch/Merge around two branch calls; While/StatelessWhile
//   -> Enter/Merge/Switch/LoopCond/NextIteration/Exit around cond and body
//   calls; Case/StatelessCase -> _SwitchN/Merge around one call per branch;
//   the calls these create are inlined in turn.
//
// Inlining is iterative (one level per round), bounded in depth and in graph
// size, and reports a function that calls itself (directly or through
// others), a call to a missing function or mismatched argument counts by
// node and function name.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "graph.pb.h"
#include "model/status.h"

namespace gds::model {

class FunctionLibrary {
 public:
  // `op_defs` (may be null): OpDefs that are authoritative for the ops they
  // list, e.g. a MetaGraphDef's stripped_op_list.
  explicit FunctionLibrary(const tensorflow::FunctionDefLibrary& library,
                           const tensorflow::OpList* op_defs = nullptr);

  const tensorflow::FunctionDef* find(const std::string& name) const;
  bool empty() const { return by_name_.empty(); }
  int size() const { return static_cast<int>(by_name_.size()); }
  const tensorflow::OpDef* opDef(const std::string& op) const;

  // The function `node` calls and the attrs it is instantiated with:
  // PartitionedCall/StatefulPartitionedCall ("f"), or a node whose op names a
  // library function (its own attrs). False for any other node.
  bool callTarget(const tensorflow::NodeDef& node, std::string* function,
                  const google::protobuf::Map<std::string, tensorflow::AttrValue>** attrs) const;

  // Every function `node` refers to through func attrs (calls, If/While/Case
  // branches, nested NameAttrLists), or through its op.
  std::vector<std::string> referencedFunctions(const tensorflow::NodeDef& node) const;
  // `name` and every function it reaches, each once, `name` first.
  std::vector<std::string> reachable(const std::string& name) const;

  // Flat output index of output argument `arg`, element `index`, of `node`
  // (a FunctionDef body's "node:arg:index"). Sets *warning when the op is
  // unknown and `arg` is taken to be its first output argument.
  Result<int> outputIndex(const tensorflow::NodeDef& node, const std::string& arg, int index,
                          std::string* warning) const;

  // TensorFlow's implementation selector: for a function that declares
  // api_implements with a preferred device other than the CPU, the library
  // function implementing the same API for the CPU with the same argument
  // and result types (e.g. Keras' LSTM/GRU: a While loop instead of CudnnRNN).
  const tensorflow::FunctionDef* cpuImplementation(const tensorflow::FunctionDef& function) const;

 private:
  const tensorflow::FunctionDefLibrary* library_;
  std::unordered_map<std::string, const tensorflow::FunctionDef*> by_name_;
  std::unordered_map<std::string, const tensorflow::OpDef*> op_defs_;
};

// Resolves a function's argument and result types for the given
// instantiation attrs (a type, or a type attr). Errors name the function.
Result<std::vector<tensorflow::DataType>> argumentTypes(const tensorflow::FunctionDef& function,
                                                        const google::protobuf::Map<std::string, tensorflow::AttrValue>& attrs,
                                                        bool outputs);

struct InlineOptions {
  // Inline PartitionedCall, StatefulPartitionedCall and direct function calls.
  bool inline_calls = true;
  // Lower If/StatelessIf, While/StatelessWhile and Case/StatelessCase.
  bool lower_control_flow = true;
  // Replace a call to a GPU implementation by the library's CPU one.
  bool prefer_cpu_implementation = true;
  // Calls (or lowered ops) replaced by an IdentityN (a NoOp when they have no
  // outputs) of the same name, so their outputs stay fetchable by name.
  std::set<std::string> keep_fetchable;
  // Keep the library functions the result still refers to (else no library).
  bool keep_library = false;
  // Limits: nesting levels, and nodes in the graph being built.
  int max_depth = 64;
  std::int64_t max_nodes = 2000000;
  // OpDefs authoritative for the ops they list (MetaInfoDef.stripped_op_list).
  const tensorflow::OpList* op_defs = nullptr;
};

// One call or functional control-flow node that was replaced.
struct InlinedNode {
  std::string node;      // its name; its body nodes are named "<node>/<body node>"
  std::string op;        // e.g. StatefulPartitionedCall, While, or a function name (direct call)
  std::string function;  // the function inlined (calls), "" for lowered control flow
  std::string requested; // the function the call named, when a CPU implementation replaced it
  std::string parent;    // the call or lowered node it came from ("" = the graph itself)
};

struct InlineResult {
  tensorflow::GraphDef graph;
  std::vector<InlinedNode> inlined;  // in the order they were processed
  std::vector<std::string> warnings;
};

// Inlines every call (and lowers functional control flow) in `graph`,
// recursively, with the library in graph.library().
Result<InlineResult> inlineFunctions(const tensorflow::GraphDef& graph, const InlineOptions& options = {});

// True for the ops inlineFunctions lowers.
bool isFunctionalControlFlow(const std::string& op);
// True for PartitionedCall and StatefulPartitionedCall.
bool isPartitionedCall(const std::string& op);

}  // namespace gds::model
