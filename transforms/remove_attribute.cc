// remove_attribute(attribute_name, op_name=*): deletes an attribute from
// every node, or from nodes of one op type (TensorFlow compares op_name with
// the op type, not the node name).
#include "transforms/builtin.h"

namespace gds::transforms {
namespace {

Result<GraphDef> removeAttribute(const GraphDef& in, const TransformContext& ctx) {
  if (ctx.count("attribute_name") != 1)
    return ctx.error("expects exactly one 'attribute_name' parameter, e.g. remove_attribute(op_name=Mul, attribute_name=foo)");
  if (ctx.count("op_name") > 1)
    return ctx.error("expects a single 'op_name' parameter, but found " + std::to_string(ctx.count("op_name")));
  const std::string attribute = ctx.list("attribute_name")[0];
  const std::string op = ctx.has("op_name") ? ctx.list("op_name")[0] : "*";
  GraphDef out = in;
  for (auto& node : *out.mutable_node())
    if (op == "*" || op == node.op()) node.mutable_attr()->erase(attribute);
  return out;
}

}  // namespace

TransformInfo removeAttributeTransform() {
  return {"remove_attribute",
          "Deletes an attribute from all nodes, or from nodes of one op type",
          {{"attribute_name", "attribute to delete"}, {"op_name", "op type to restrict to (default *: all)"}},
          removeAttribute};
}

}  // namespace gds::transforms
