// rename_node(old_node_name, new_node_name): renames one node and every
// input that refers to it (keeping ports and control markers).
#include "transforms/builtin.h"
#include "transforms/transform_utils.h"

namespace gds::transforms {
namespace {

Result<GraphDef> renameNode(const GraphDef& in, const TransformContext& ctx) {
  if (ctx.count("old_node_name") != 1 || ctx.count("new_node_name") != 1)
    return ctx.error(
        "expects exactly one 'old_node_name' and one 'new_node_name' parameter, e.g. "
        "rename_node(old_node_name=super/deep/output, new_node_name=output)");
  const std::string from = ctx.list("old_node_name")[0];
  const std::string to = ctx.list("new_node_name")[0];
  bool found = false;
  for (const auto& node : in.node()) {
    if (node.name() == to) return ctx.error("a node is already named '" + to + "'");
    if (node.name() == from) found = true;
  }
  if (!found) return ctx.error("no node named '" + from + "' in the graph");
  GraphDef out = in;
  for (auto& node : *out.mutable_node()) {
    if (node.name() == from) node.set_name(to);
    for (std::string& input : *node.mutable_input()) {
      InputParts p = inputParts(input);
      if (p.node == from) input = p.prefix + to + p.suffix;
    }
  }
  return out;
}

}  // namespace

TransformInfo renameNodeTransform() {
  return {"rename_node", "Renames a node and the inputs that refer to it",
          {{"old_node_name", "node to rename"}, {"new_node_name", "its new name"}}, renameNode};
}

}  // namespace gds::transforms
