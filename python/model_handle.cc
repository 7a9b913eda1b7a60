#include "python/model_handle.h"

#include <algorithm>

#include "engine/rewrite/optimize_for_inference.h"
#include "model/graph.h"
#include "model/shape_inference.h"
#include "python/calls.h"

namespace gds::python {
namespace {

// Plans kept per model: each holds its buffers, so a few recent ones only.
constexpr std::size_t kMaxCachedPlans = 4;

TensorSpec specOf(const model::TensorSummary& t) {
  return {t.name, t.dtype, t.known_rank, t.shape, t.quantization};
}

}  // namespace

ModelHandle::ModelHandle(model::LoadedModel loaded, std::vector<transforms::StepRecord> steps,
                         std::vector<std::string> outputs)
    : loaded_(std::make_shared<const model::LoadedModel>(std::move(loaded))),
      steps_(std::move(steps)),
      declared_outputs_(std::move(outputs)) {}

std::shared_ptr<const tensorflow::GraphDef> ModelHandle::graph() const {
  return std::shared_ptr<const tensorflow::GraphDef>(loaded_, &loaded_->graph);
}

Result<std::shared_ptr<const model::Summary>> ModelHandle::summary() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!summary_) {
    auto s = model::summarizeModel(*loaded_);
    if (!s.ok()) return s.status().withContext(loaded_->path);
    summary_ = std::make_shared<const model::Summary>(std::move(s).value());
  }
  return summary_;
}

Result<std::vector<TensorSpec>> ModelHandle::inputs() const {
  auto summary = this->summary();
  if (!summary.ok()) return summary.status();
  std::vector<TensorSpec> specs;
  for (const auto& t : (*summary)->input_tensors) specs.push_back(specOf(t));
  if (!specs.empty()) return specs;
  for (const auto& n : (*summary)->inputs) specs.push_back({n.name, n.dtype, n.known_rank, n.shape, ""});
  return specs;
}

Result<std::vector<TensorSpec>> ModelHandle::outputs() const {
  auto summary = this->summary();
  if (!summary.ok()) return summary.status();
  std::vector<TensorSpec> specs;
  if (declared_outputs_.empty())
    for (const auto& t : (*summary)->output_tensors) specs.push_back(specOf(t));
  if (!specs.empty()) return specs;
  std::vector<std::string> names = declared_outputs_;
  if (names.empty())
    for (const auto& [name, op] : (*summary)->outputs) names.push_back(name);
  // Their dtypes and shapes, as shape inference knows them statically.
  auto graph = model::Graph::build(loaded_->graph);
  if (!graph.ok()) return graph.status().withContext(loaded_->path);
  const model::InferredShapes shapes = model::inferShapes(*graph);
  for (const std::string& name : names) {
    const model::TensorRef ref = model::parseTensorName(name);
    const int node = graph->find(ref.node);
    const model::TensorInfo info = node < 0 ? model::TensorInfo::unknown() : shapes.at(node, ref.port);
    specs.push_back({name, info.dtype, info.known_rank, info.shape, ""});
  }
  return specs;
}

Result<std::shared_ptr<engine::Plan>> ModelHandle::plan(const std::vector<std::string>& feeds,
                                                        const std::vector<std::string>& fetches,
                                                        const engine::PlanOptions& options) const {
  PlanKey key{feeds, fetches, options.num_threads, options.reference_kernels, options.winograd,
              static_cast<int>(options.arithmetic)};
  std::lock_guard<std::mutex> lock(plans_mu_);
  auto it = plans_.find(key);
  if (it != plans_.end()) {
    it->second.second = ++plan_uses_;
    return it->second.first;
  }
  engine::PlanOptions with_cancel = options;
  with_cancel.cancelled = cancelledOnThisThread;
  auto compiled = engine::compileForInference(graph(), feeds, fetches, with_cancel);
  if (!compiled.ok()) return compiled.status().withContext(loaded_->path);
  std::shared_ptr<engine::Plan> plan = std::move(compiled).value();
  if (plans_.size() >= kMaxCachedPlans) {
    auto oldest = std::min_element(plans_.begin(), plans_.end(),
                                   [](const auto& a, const auto& b) { return a.second.second < b.second.second; });
    plans_.erase(oldest);
  }
  plans_.emplace(std::move(key), std::make_pair(plan, ++plan_uses_));
  return plan;
}

model::LoadedModel derivedModel(const model::LoadedModel& origin, tensorflow::GraphDef graph) {
  model::LoadedModel derived;
  derived.path = origin.path;
  derived.file = origin.file;
  derived.kind = model::ModelKind::GraphDef;
  derived.graph = std::move(graph);
  return derived;
}

}  // namespace gds::python
