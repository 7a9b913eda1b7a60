// sort_by_execution_order: reorders nodes so every node follows its inputs
// (TensorFlow's SortByExecutionOrder: Kahn's algorithm, LIFO ready list,
// Merge waits for one data input).
#include "transforms/builtin.h"
#include "transforms/transform_utils.h"

namespace gds::transforms {
namespace {

Result<GraphDef> sortByExecutionOrder(const GraphDef& in, const TransformContext& ctx) {
  auto order = executionOrder(in);
  if (!order.ok()) return ctx.error(order.error());
  GraphDef out;
  out.mutable_node()->Reserve(in.node_size());
  for (int i : *order) *out.add_node() = in.node(i);
  *out.mutable_library() = in.library();
  if (in.has_versions()) *out.mutable_versions() = in.versions();
  return out;
}

}  // namespace

TransformInfo sortByExecutionOrderTransform() {
  return {"sort_by_execution_order", "Orders nodes so that inputs come before the nodes using them", {},
          sortByExecutionOrder};
}

}  // namespace gds::transforms
