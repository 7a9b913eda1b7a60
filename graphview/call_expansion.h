// Function calls drawn as name scopes. A TF2 graph is a handful of
// StatefulPartitionedCall nodes whose layers live in the function library;
// the view shows each call's body inside a scope named after the call, as
// TensorFlow names the nodes it inlines ("<call>/<body node>"), so the graph
// reads as layers. The call node itself stays (an IdentityN of the same
// name, model/functions.h), so everything keyed by the graph's node names
// (selection, marks, overlays) still finds it; the body's nodes are shown
// only, they are not part of the document's graph.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "graph.pb.h"

namespace gds::graphview {

struct CallExpansion {
  // The graph to draw: `def` itself when it calls no library function (or
  // when its calls cannot be inlined: the plain graph is drawn then).
  std::shared_ptr<const tensorflow::GraphDef> graph;
  // Scope path of each expanded call -> the function whose body it holds.
  std::map<std::string, std::string> functions;
};

CallExpansion expandCalls(std::shared_ptr<const tensorflow::GraphDef> def);

}  // namespace gds::graphview
