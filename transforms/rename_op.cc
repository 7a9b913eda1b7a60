// rename_op(old_op_name, new_op_name): changes the op type of every node of
// one type.
#include "transforms/builtin.h"

namespace gds::transforms {
namespace {

Result<GraphDef> renameOp(const GraphDef& in, const TransformContext& ctx) {
  if (ctx.count("old_op_name") != 1 || ctx.count("new_op_name") != 1)
    return ctx.error(
        "expects exactly one 'old_op_name' and one 'new_op_name' parameter, e.g. "
        "rename_op(old_op_name=Mul, new_op_name=Multiply)");
  const std::string from = ctx.list("old_op_name")[0];
  const std::string to = ctx.list("new_op_name")[0];
  GraphDef out = in;
  for (auto& node : *out.mutable_node())
    if (node.op() == from) node.set_op(to);
  return out;
}

}  // namespace

TransformInfo renameOpTransform() {
  return {"rename_op", "Changes the op type of every node of one type",
          {{"old_op_name", "op type to rename"}, {"new_op_name", "new op type"}}, renameOp};
}

}  // namespace gds::transforms
