#include "transforms/pipeline.h"

#include <chrono>

#include "model/graph.h"
#include "transforms/transform_utils.h"

namespace gds::transforms {
namespace {

std::optional<model::Summary> summaryOf(const GraphDef& graph) {
  auto g = model::Graph::build(graph);
  if (!g.ok()) return std::nullopt;
  return model::summarize(*g);
}

}  // namespace

std::string StepRecord::summaryLine() const {
  if (diff) return model::formatDiffCompact(*diff);
  return "nodes " + std::to_string(nodes_before) + " -> " + std::to_string(nodes_after) + " (" +
         (nodes_after >= nodes_before ? "+" : "") + std::to_string(nodes_after - nodes_before) + ")";
}

Result<StepResult> applyStep(const GraphDef& graph, const TransformStep& step, const std::vector<std::string>& inputs,
                             const std::vector<std::string>& outputs, const PipelineOptions& options,
                             const model::Summary* before_summary) {
  const TransformRegistry& registry = options.registry ? *options.registry : TransformRegistry::builtin();
  GDS_RETURN_IF_ERROR(validateSteps({step}, registry));
  const TransformInfo* info = registry.find(step.name);
  auto ignore = ignoreErrors(step);
  if (!ignore.ok()) return ignore.status();

  StepResult result;
  StepRecord& record = result.record;
  record.name = step.name;
  record.params = step.params;
  record.text = step.text();
  record.nodes_before = graph.node_size();

  TransformContext ctx(step.name, inputs, outputs, step.params);
  ctx.params.erase("ignore_errors");
  ctx.cancel_check = options.cancelled;
  if (ctx.cancelled()) return TransformContext::cancelledStatus();
  const auto start = std::chrono::steady_clock::now();
  Result<GraphDef> out = info->fn(graph, ctx);
  record.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Whatever the transform returned once cancelled (an error, or a graph it
  // finished anyway) is dropped, and ignore_errors does not apply.
  if (ctx.cancelled()) return TransformContext::cancelledStatus();
  if (!out.ok()) {
    std::string message = out.error();
    if (message.rfind(step.name + ":", 0) != 0) message = step.name + ": " + message;
    if (!*ignore) return Status::Error(message);
    record.ignored_error = true;
    record.message = step.name + ": Ignoring error " + message.substr(step.name.size() + 2);
    result.graph = graph;
  } else {
    result.graph = std::move(out.value());
  }
  // TensorFlow keeps the input's function library and rejects dangling inputs.
  *result.graph.mutable_library() = graph.library();
  Status valid = checkInputsExist(result.graph);
  if (!valid.ok()) return Status::Error(step.name + ": " + valid.message());
  record.nodes_after = result.graph.node_size();

  if (options.compute_diff) {
    std::optional<model::Summary> before;
    if (!before_summary) before = summaryOf(graph);
    result.summary = summaryOf(result.graph);
    const model::Summary* b = before_summary ? before_summary : (before ? &*before : nullptr);
    if (b && result.summary) record.diff = model::diffGraphs(graph, *b, result.graph, *result.summary);
  }
  return result;
}

Result<PipelineResult> applyPipeline(const GraphDef& graph, const std::vector<TransformStep>& steps,
                                     const std::vector<std::string>& inputs, const std::vector<std::string>& outputs,
                                     const PipelineOptions& options, const PipelineObserver& observer) {
  const TransformRegistry& registry = options.registry ? *options.registry : TransformRegistry::builtin();
  GDS_RETURN_IF_ERROR(validateSteps(steps, registry));
  PipelineResult result;
  result.graph = graph;
  std::optional<model::Summary> summary;
  if (options.compute_diff) summary = summaryOf(graph);
  for (const auto& step : steps) {
    if (options.cancelled && options.cancelled()) return TransformContext::cancelledStatus();
    if (observer.before) observer.before(step);
    auto r = applyStep(result.graph, step, inputs, outputs, options, summary ? &*summary : nullptr);
    if (!r.ok()) return r.status();
    result.graph = std::move(r->graph);
    summary = std::move(r->summary);
    if (observer.after) observer.after(r->record);
    result.steps.push_back(std::move(r->record));
  }
  return result;
}

Result<PipelineResult> applyTransforms(const GraphDef& graph, const std::string& transforms,
                                       const std::vector<std::string>& inputs, const std::vector<std::string>& outputs,
                                       const PipelineOptions& options, const PipelineObserver& observer) {
  const TransformRegistry& registry = options.registry ? *options.registry : TransformRegistry::builtin();
  auto steps = parseTransforms(transforms, registry);
  if (!steps.ok()) return steps.status();
  return applyPipeline(graph, *steps, inputs, outputs, options, observer);
}

std::string eightBitPipeline(const std::vector<std::string>& inputs, const std::vector<std::string>& input_shapes,
                             bool per_channel) {
  // strip_unused_nodes takes one default shape, or name/shape_for_name pairs
  // when there are several inputs.
  std::string strip = "strip_unused_nodes(type=float";
  std::vector<std::pair<std::string, std::string>> shaped;
  for (size_t i = 0; i < inputs.size() && i < input_shapes.size(); ++i)
    if (!input_shapes[i].empty()) shaped.emplace_back(inputs[i], input_shapes[i]);
  if (shaped.size() == 1 && inputs.size() == 1) {
    strip += ", shape=\"" + shaped[0].second + "\"";
  } else {
    for (const auto& [name, shape] : shaped) strip += ", name=" + name + ", shape_for_name=\"" + shape + "\"";
  }
  strip += ")";
  return "add_default_attributes " + strip +
         " remove_nodes(op=Identity, op=CheckNumerics) fold_constants(ignore_errors=true) fold_batch_norms"
         " fold_old_batch_norms " +
         (per_channel ? "quantize_weights(per_channel=true) quantize_nodes(per_channel=true)"
                      : "quantize_weights quantize_nodes") +
         " strip_unused_nodes sort_by_execution_order";
}

}  // namespace gds::transforms
