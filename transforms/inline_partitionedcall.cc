// inline_partitionedcall: replaces PartitionedCall and StatefulPartitionedCall
// nodes (and direct calls of library functions) by the bodies of the
// functions they call, recursively, as TensorFlow's runtime inlines them
// (model/functions.h: arguments wired to the call's inputs, body nodes named
// "<call>/<node>", control edges kept through NoOps). TensorFlow's Graph
// Transform Tool registers this name for PartitionedCall alone, one level
// deep; here nested calls are inlined too. The library stays (the pipeline
// keeps the input's, as transform_graph does): If/While bodies still use it
// unless lower_control_flow.
#include "model/functions.h"
#include "model/graph.h"
#include "transforms/builtin.h"

namespace gds::transforms {
namespace {

Result<GraphDef> inlinePartitionedCall(const GraphDef& in, const TransformContext& context) {
  model::InlineOptions options;
  auto lower = context.getOneBool("lower_control_flow", false);
  if (!lower.ok()) return lower.status();
  options.lower_control_flow = *lower;
  // Calls named by --outputs stay fetchable (an IdentityN of their name).
  for (const auto& o : context.outputs) options.keep_fetchable.insert(std::string(model::nodeNameOf(o)));
  auto result = model::inlineFunctions(in, options);
  if (!result.ok()) return context.error(result.error());
  return std::move(result->graph);
}

}  // namespace

TransformInfo inlinePartitionedCallTransform() {
  return {"inline_partitionedcall",
          "Inlines the functions PartitionedCall/StatefulPartitionedCall nodes call, recursively",
          {{"lower_control_flow", "also lower If/While/Case to Switch/Merge/Enter/Exit form (default false)"}},
          inlinePartitionedCall};
}

}  // namespace gds::transforms
