// rename_attribute(old_attribute_name, new_attribute_name, op_name=*):
// renames an attribute on every node, or on nodes of one op type.
#include "model/attr.h"
#include "transforms/builtin.h"

namespace gds::transforms {
namespace {

Result<GraphDef> renameAttribute(const GraphDef& in, const TransformContext& ctx) {
  if (ctx.count("old_attribute_name") != 1 || ctx.count("new_attribute_name") != 1)
    return ctx.error(
        "expects exactly one 'old_attribute_name' and one 'new_attribute_name' parameter, e.g. "
        "rename_attribute(old_attribute_name=foo, new_attribute_name=bar)");
  if (ctx.count("op_name") > 1)
    return ctx.error("expects a single 'op_name' parameter, but found " + std::to_string(ctx.count("op_name")));
  const std::string from = ctx.list("old_attribute_name")[0];
  const std::string to = ctx.list("new_attribute_name")[0];
  const std::string op = ctx.has("op_name") ? ctx.list("op_name")[0] : "*";
  GraphDef out = in;
  for (auto& node : *out.mutable_node()) {
    if (op != "*" && op != node.op()) continue;
    const auto* found = model::findAttr(node, from);
    if (!found) continue;
    tensorflow::AttrValue value = *found;
    node.mutable_attr()->erase(from);
    (*node.mutable_attr())[to] = std::move(value);
  }
  return out;
}

}  // namespace

TransformInfo renameAttributeTransform() {
  return {"rename_attribute",
          "Renames an attribute on all nodes, or on nodes of one op type",
          {{"old_attribute_name", "attribute to rename"},
           {"new_attribute_name", "its new name"},
           {"op_name", "op type to restrict to (default *: all)"}},
          renameAttribute};
}

}  // namespace gds::transforms
