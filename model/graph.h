// Read-only index over a GraphDef: nodes by name, parsed inputs, consumers of
// each output and a topological order. Validation reports duplicate names,
// inputs that name missing nodes and cycles (TensorFlow loops, whose back
// edges come from NextIteration nodes, are legal).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "graph.pb.h"
#include "model/status.h"

namespace gds::model {

// A parsed input string: "node", "node:port" or "^node" (control).
struct TensorRef {
  std::string node;
  int port = 0;
  bool control = false;
  std::string str() const;  // canonical TensorFlow spelling ("a", "a:1", "^a")
};
TensorRef parseTensorName(std::string_view input);
// The node name an input refers to ("^a" -> "a", "a:1" -> "a").
std::string_view nodeNameOf(std::string_view input);
// How many of the node's inputs are data inputs (not "^control" ones).
int dataInputCount(const tensorflow::NodeDef& node);

// Node indices in the order TensorFlow's SortByExecutionOrder
// (graph_transforms/transform_utils.cc) emits them: a LIFO ready list seeded
// with input-less nodes, Merge nodes ready after one data input. Used where
// output must match TensorFlow's tools line for line (summarize
// --print_structure, sort_by_execution_order). Errors: unknown input node,
// or "<n> nodes in a cycle".
Result<std::vector<int>> executionOrder(const tensorflow::GraphDef& def);

class Graph {
 public:
  struct Input {
    int node;      // index of the producing node
    int port;      // output port (0 for control inputs)
    bool control;
  };
  struct Consumer {
    int node;         // index of the consuming node
    int input_index;  // which of its inputs
    int port;         // which output of the producer it reads (-1 for control)
  };

  // Builds the index. The GraphDef must outlive the Graph.
  static Result<Graph> build(const tensorflow::GraphDef& def);

  const tensorflow::GraphDef& def() const { return *def_; }
  int size() const { return static_cast<int>(inputs_.size()); }
  const tensorflow::NodeDef& node(int i) const { return def_->node(i); }
  const std::string& name(int i) const { return def_->node(i).name(); }
  const std::string& op(int i) const { return def_->node(i).op(); }
  int find(std::string_view name) const;  // -1 when absent
  const std::vector<Input>& inputs(int i) const { return inputs_[i]; }
  const std::vector<Consumer>& consumers(int i) const { return consumers_[i]; }
  // Number of data outputs consumed so far (max port + 1), at least 1.
  int observedOutputs(int i) const;
  // Producers before consumers; NextIteration back edges are ignored.
  const std::vector<int>& topoOrder() const { return topo_; }
  int controlEdgeCount() const { return control_edges_; }

 private:
  const tensorflow::GraphDef* def_ = nullptr;
  std::unordered_map<std::string_view, int> by_name_;
  std::vector<std::vector<Input>> inputs_;
  std::vector<std::vector<Consumer>> consumers_;
  std::vector<int> topo_;
  int control_edges_ = 0;
};

}  // namespace gds::model
