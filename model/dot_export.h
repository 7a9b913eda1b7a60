// DOT text of a graph, in two modes:
// - graphToDot: exactly what TensorFlow's tensorflow/tools/quantization/
//   graph_to_dot.py writes: `digraph graphname {`, per node
//   `  "<name>" [label="<op>"];` followed by `  "<input>" -> "<name>";` for
//   each input with a leading ^ and any :port removed, then `}`.
// - richDot: names, op types, output shapes, category colours and one
//   cluster per name scope, for reading in any Graphviz viewer, in the graph
//   view's colours (model/op_colours.h).
// Plain text, no Qt: `gdstudio dot` works in a build without the window.
#pragma once

#include <string>

#include "model/graph.h"

namespace gds::model {

std::string graphToDot(const tensorflow::GraphDef& graph);
std::string richDot(const Graph& graph, bool left_to_right = false);

}  // namespace gds::model
