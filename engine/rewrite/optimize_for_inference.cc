#include "engine/rewrite/optimize_for_inference.h"

#include <utility>

#include "model/graph.h"
#include "model/op_metadata.h"
#include "model/tflite/dialect.h"

namespace gds::engine {

std::shared_ptr<const tensorflow::GraphDef> optimizeForInference(const tensorflow::GraphDef& graph,
                                                                  const std::vector<std::string>& feeds,
                                                                  const std::vector<std::string>& fetches,
                                                                  const PlanOptions& options,
                                                                  const InferenceRewrites& rewrites,
                                                                  InferenceRewriteStats* stats) {
  if (stats) *stats = {};
  // A TensorFlow Lite model runs as the file says, as TFLite's interpreter
  // runs it: folding would drop the quantization attrs that the dialect
  // keeps on the nodes it replaces (model/tflite/dialect.h).
  if (model::tflite::isDialectGraph(graph)) return nullptr;
  // The rewrites read the inputs each op declares: a graph with a node that
  // has fewer or more runs as it is, and Plan::compile names that node if
  // the fetches need it.
  const model::OpRegistry& registry = model::OpRegistry::instance();
  for (const auto& node : graph.node())
    if (!registry.inputCountError(node.op(), model::dataInputCount(node)).empty()) return nullptr;
  std::shared_ptr<const tensorflow::GraphDef> folded;
  if (rewrites.fold_and_fuse)
    folded = foldAndFuse(graph, feeds, fetches, options, stats ? &stats->fold_and_fuse : nullptr);
  if (!rewrites.fuse_quantized) return folded;
  // The 8-bit fusion looks at what folding left (it keeps every node, so the
  // order of the two passes only matters for the work they do).
  std::shared_ptr<const tensorflow::GraphDef> fused = fuseQuantizedLayers(
      folded ? *folded : graph, feeds, fetches, stats ? &stats->quantized : nullptr, options.input_shapes);
  return fused ? fused : folded;
}

Result<std::unique_ptr<Plan>> compileForInference(const tensorflow::GraphDef& graph, std::vector<std::string> feeds,
                                                  std::vector<std::string> fetches, PlanOptions options,
                                                  const InferenceRewrites& rewrites) {
  if (auto rewritten = optimizeForInference(graph, feeds, fetches, options, rewrites))
    return Plan::compile(std::move(rewritten), std::move(feeds), std::move(fetches), std::move(options));
  return Plan::compile(graph, std::move(feeds), std::move(fetches), std::move(options));
}

Result<std::unique_ptr<Plan>> compileForInference(std::shared_ptr<const tensorflow::GraphDef> graph,
                                                  std::vector<std::string> feeds, std::vector<std::string> fetches,
                                                  PlanOptions options, const InferenceRewrites& rewrites) {
  if (graph)
    if (auto rewritten = optimizeForInference(*graph, feeds, fetches, options, rewrites)) graph = std::move(rewritten);
  return Plan::compile(std::move(graph), std::move(feeds), std::move(fetches), std::move(options));
}

}  // namespace gds::engine
