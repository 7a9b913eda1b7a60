// What the properties panel shows for one node, independent of widgets:
// op, name, device, inputs and consumers (with the node each refers to),
// attributes formatted by type, and the constant tensors it holds or reads.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "model/graph.h"

namespace gds::ui {

struct NodeLink {
  std::string text;  // as written in the GraphDef ("conv:1", "^init")
  std::string node;  // the node it refers to
  bool control = false;
};

// A tensor the panel can show: the node's own `value` attr, or a Const input.
struct TensorSource {
  std::string label;  // "value" or the input's node name
  std::string node;   // node holding the tensor attr
};

struct NodeProperties {
  std::string name, op, device, category;
  std::vector<NodeLink> inputs;
  std::vector<NodeLink> consumers;  // one per consuming node and port, in graph order
  std::vector<std::pair<std::string, std::string>> attrs;  // key (sorted), formatted value
  std::vector<TensorSource> tensors;
};

NodeProperties describeNode(const model::Graph& graph, int node);

}  // namespace gds::ui
