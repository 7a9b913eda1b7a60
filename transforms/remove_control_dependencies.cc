// remove_control_dependencies: drops every "^node" control input.
#include "transforms/builtin.h"

namespace gds::transforms {
namespace {

Result<GraphDef> removeControlDependencies(const GraphDef& in, const TransformContext&) {
  GraphDef out = in;
  for (auto& node : *out.mutable_node()) {
    auto* inputs = node.mutable_input();
    int kept = 0;
    for (int i = 0; i < inputs->size(); ++i)
      if (inputs->Get(i).empty() || inputs->Get(i)[0] != '^') inputs->Mutable(kept++)->swap(*inputs->Mutable(i));
    while (inputs->size() > kept) inputs->RemoveLast();
  }
  return out;
}

}  // namespace

TransformInfo removeControlDependenciesTransform() {
  return {"remove_control_dependencies", "Removes all control inputs", {}, removeControlDependencies};
}

}  // namespace gds::transforms
