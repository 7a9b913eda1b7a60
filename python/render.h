// Model.render: the graph as `gdstudio dot --rich` writes it (names, op
// types, shapes, category colours, one cluster per name scope) laid out and
// drawn by Graphviz's library (libgvc), without Qt, so notebooks and CI
// scripts need no display. The window's scene (collapsed scopes, weight
// badges) is Qt Widgets code and stays in graphview/.
#pragma once

#include <string>

#include "graph.pb.h"
#include "model/status.h"

namespace gds::python {

// `format`: "svg" (text), "png" or "pdf" (bytes), or "dot" (the DOT text
// itself). Errors name the format and what Graphviz reported.
Result<std::string> renderGraph(const tensorflow::GraphDef& graph, const std::string& format, bool left_to_right);

}  // namespace gds::python
