#include "engine/rewrite/optimize_for_inference.h"

#include <unordered_map>
#include <utility>

#include "model/graph.h"
#include "model/op_metadata.h"
#include "model/tensor.h"
#include "model/tflite/dialect.h"

namespace gds::engine {
namespace {

// TensorFlow Lite computes the DEQUANTIZE of a float16 constant (the
// float16 post-training mode's weights) once, at Prepare: here it becomes
// the float32 Const it computes, under its own name, so the layers read
// constant weights (packed once) and no run widens them again. Null when
// the graph has none.
std::shared_ptr<const tensorflow::GraphDef> widenFloat16Constants(const tensorflow::GraphDef& graph) {
  std::unordered_map<std::string, const tensorflow::NodeDef*> halves;
  for (const auto& n : graph.node()) {
    auto dtype = n.attr().find("dtype");
    if (n.op() == "Const" && dtype != n.attr().end() && dtype->second.type() == tensorflow::DT_HALF)
      halves[n.name()] = &n;
  }
  auto source = [&](const tensorflow::NodeDef& n) -> const tensorflow::NodeDef* {
    if (n.op() != "tfl.dequantize" || n.input_size() != 1) return nullptr;
    auto it = halves.find(n.input(0));
    return it == halves.end() ? nullptr : it->second;
  };
  auto out = std::make_shared<tensorflow::GraphDef>(graph);
  bool changed = false;
  for (auto& n : *out->mutable_node()) {
    const tensorflow::NodeDef* c = source(n);
    if (!c) continue;
    auto half = model::decodeTensor(c->attr().at("value").tensor());
    if (!half.ok()) continue;  // the DEQUANTIZE kernel reports it
    model::HostTensor wide = model::HostTensor::zeros(tensorflow::DT_FLOAT, half->shape);
    const std::uint16_t* h = half->as<std::uint16_t>();
    for (std::int64_t i = 0; i < half->size(); ++i) wide.as<float>()[i] = model::halfToFloat(h[i]);
    n.set_op("Const");
    n.clear_input();
    auto& attrs = *n.mutable_attr();
    attrs["dtype"].set_type(tensorflow::DT_FLOAT);
    model::encodeTensor(wide, attrs["value"].mutable_tensor());
    changed = true;
  }
  return changed ? out : nullptr;
}

}  // namespace

std::shared_ptr<const tensorflow::GraphDef> optimizeForInference(const tensorflow::GraphDef& graph,
                                                                  const std::vector<std::string>& feeds,
                                                                  const std::vector<std::string>& fetches,
                                                                  const PlanOptions& options,
                                                                  const InferenceRewrites& rewrites,
                                                                  InferenceRewriteStats* stats) {
  if (stats) *stats = {};
  // A TensorFlow Lite model runs as the file says, as TFLite's interpreter
  // runs it: folding would drop the quantization attrs that the dialect
  // keeps on the nodes it replaces (model/tflite/dialect.h). Only what its
  // interpreter computes once at Prepare is computed once here.
  if (model::tflite::isDialectGraph(graph)) return widenFloat16Constants(graph);
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
