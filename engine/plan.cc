// Plan's public side: compile (the phases are in engine/plan_compiler.cc)
// and run (feed checks and profiles around engine/executor.cc).
#include "engine/plan.h"

#include <chrono>
#include <utility>

#include "engine/plan_impl.h"
#include "model/graph.h"

namespace gds::engine {

namespace {

using Clock = std::chrono::steady_clock;

bool shapeCompatible(const Shape& actual, const Shape& expected) {
  if (actual.size() != expected.size()) return false;
  for (size_t i = 0; i < actual.size(); ++i)
    if (expected[i] >= 0 && actual[i] != expected[i]) return false;
  return true;
}

}  // namespace

Plan::Plan() : impl_(std::make_unique<Impl>()) {}
Plan::~Plan() = default;

DataType Plan::feedType(int i) const { return impl_->feed_types[static_cast<size_t>(i)]; }
Shape Plan::feedShape(int i, bool* known) const {
  if (known) *known = impl_->feed_shape_known[static_cast<size_t>(i)];
  return impl_->feed_shapes[static_cast<size_t>(i)];
}
std::int64_t Plan::peakBytes() const { return impl_->buffers->peakBytes(); }
std::int64_t Plan::poolBytes() const { return impl_->buffers->totalBytes(); }

double Plan::flops(int node, const std::vector<Shape>& inputs, const std::vector<Shape>& outputs) const {
  if (node < 0 || static_cast<size_t>(node) >= impl_->nodes.size()) return 0;
  const PlanNode& n = impl_->nodes[static_cast<size_t>(node)];
  return n.kernel ? n.kernel->flops(inputs, outputs) : 0;
}

Result<std::unique_ptr<Plan>> Plan::compile(std::shared_ptr<const tensorflow::GraphDef> graph,
                                            std::vector<std::string> feeds, std::vector<std::string> fetches,
                                            PlanOptions options) {
  if (!graph) return Status::Error("Plan::compile: no graph");
  const tensorflow::GraphDef& ref = *graph;
  return compileImpl(ref, std::move(graph), std::move(feeds), std::move(fetches), std::move(options));
}

Result<std::unique_ptr<Plan>> Plan::compile(const tensorflow::GraphDef& def, std::vector<std::string> feeds,
                                            std::vector<std::string> fetches, PlanOptions options) {
  return compileImpl(def, nullptr, std::move(feeds), std::move(fetches), std::move(options));
}

Result<std::unique_ptr<Plan>> Plan::compileImpl(const tensorflow::GraphDef& def,
                                                std::shared_ptr<const tensorflow::GraphDef> owner,
                                                std::vector<std::string> feeds, std::vector<std::string> fetches,
                                                PlanOptions options) {
  auto graph_or = model::Graph::build(def);
  if (!graph_or.ok()) return graph_or.status();
  std::unique_ptr<Plan> plan(new Plan());
  Impl& im = *plan->impl_;
  im.graph = &def;
  // A plan of a rewritten graph (engine/rewrite/) owns that graph.
  im.owned_graph = std::move(owner);
  im.reference = options.reference_kernels;
  im.cancelled = options.cancelled;
  plan->feed_names_ = feeds;
  plan->fetch_names_ = fetches;
  GDS_RETURN_IF_ERROR(compilePlan(def, *graph_or, plan->feed_names_, plan->fetch_names_, options, im, plan->infos_));
  plan->pool_ = options.pool ? options.pool : std::make_shared<ThreadPool>(options.num_threads);
  return plan;
}

Result<std::vector<Tensor>> Plan::run(const std::vector<Tensor>& feeds, RunProfile* profile) {
  std::lock_guard<std::mutex> lock(run_mu_);
  Impl& im = *impl_;
  if (feeds.size() != feed_names_.size())
    return Status::Error("Plan::run: got " + std::to_string(feeds.size()) + " feed value(s) for " +
                         std::to_string(feed_names_.size()) + " feed(s)");
  for (size_t i = 0; i < feeds.size(); ++i) {
    const Tensor& t = feeds[i];
    if (!t.valid()) return Status::Error("feed '" + feed_names_[i] + "': no value given");
    DataType want = im.feed_types[i];
    if (want != tensorflow::DT_INVALID && t.dtype() != want)
      return Status::Error("feed '" + feed_names_[i] + "': expected dtype " + model::dtypeName(want) + ", got " +
                           model::dtypeName(t.dtype()));
    if (im.feed_shape_known[i] && !shapeCompatible(t.shape(), im.feed_shapes[i]))
      return Status::Error("feed '" + feed_names_[i] + "': expected shape " + model::shapeString(im.feed_shapes[i]) +
                           ", got " + model::shapeString(t.shape()));
  }
  ++step_;
  if (profile) {
    // Reset in place so a profile reused across runs keeps its capacity
    // (profiling stays cheap: no allocation per node).
    profile->total_ns = profile->peak_bytes = profile->allocated_bytes = 0;
    if (profile->nodes.size() != im.nodes.size()) profile->nodes.assign(im.nodes.size(), NodeRunStats());
    for (auto& ns : profile->nodes) {
      ns.calls = 0;
      ns.start_ns = -1;
      ns.duration_ns = ns.output_bytes = 0;
      ns.flops = 0;
    }
  }
  im.buffers->resetWindow();
  auto t0 = Clock::now();
  std::vector<Tensor> results;
  Status s;
  s = executePlan(im, infos_, *pool_, step_, profile, feeds, &results);
  if (profile) {
    profile->total_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
    profile->peak_bytes = im.buffers->windowPeakBytes();
    profile->allocated_bytes = im.buffers->windowAllocatedBytes();
  }
  if (!s.ok()) return s;
  // A fetched Const borrows the graph's bytes without owning them; the
  // caller may keep the result longer than the graph (or the plan holding a
  // rewritten graph), so such outputs get a buffer of their own.
  for (Tensor& t : results)
    if (t.borrowedWithoutOwner()) t = t.copy();
  return results;
}

}  // namespace gds::engine
