#include "ui/benchmark_run.h"

#include <algorithm>

#include "engine/rewrite/optimize_for_inference.h"

namespace gds::ui {

BenchmarkOutcome runBenchmarks(const BenchmarkSettings& settings, const BenchmarkObserver& observer) {
  BenchmarkOutcome out;
  out.inputs = settings.inputs.describe();
  auto cancelled = [&observer] { return observer.cancelled && observer.cancelled(); };
  auto report = [&observer](int done, int total, const std::string& text) {
    if (observer.progress) observer.progress(done, total, text);
  };
  auto finishCancelled = [&out] {
    out.cancelled = true;
    out.error = "cancelled";
    return out;
  };
  if (settings.variants.empty()) {
    out.error = "Choose at least one variant to run";
    return out;
  }

  auto feeds = makeFeeds(settings.inputs, settings.marks);
  if (!feeds.ok()) {
    out.error = feeds.error();
    return out;
  }
  std::vector<std::string> feed_names, fetches;
  for (const IoMark& m : settings.marks) (m.kind == IoMark::Kind::Input ? feed_names : fetches).push_back(m.name);

  // Progress in runs: warm-up + timed + statistics runs per variant.
  const int per_variant = settings.warmup_runs + 2 * std::max(settings.max_runs, 1);
  const int total = per_variant * static_cast<int>(settings.variants.size());
  for (size_t v = 0; v < settings.variants.size(); ++v) {
    const VariantSnapshot& snap = settings.variants[v];
    const std::string name = variantName(snap.kind).toStdString();
    const int base = per_variant * static_cast<int>(v);
    if (cancelled()) return finishCancelled();
    report(base, total, "Building " + name);

    BuildObserver observer;
    observer.cancelled = cancelled;
    observer.step = [&](int i, int n, const std::string& text) {
      report(base, total, name + ": step " + std::to_string(i + 1) + " of " + std::to_string(n) + ": " + text);
    };
    auto built = buildVariant(snap, observer);
    if (!built.ok()) {
      if (cancelled()) return finishCancelled();
      out.error = built.error();
      return out;
    }

    VariantBenchmark vb;
    vb.kind = snap.kind;
    vb.built = std::move(built).value();
    report(base, total, "Compiling " + name);
    engine::PlanOptions plan_options;
    plan_options.num_threads = settings.num_threads;
    plan_options.arithmetic = settings.arithmetic;
    engine::InferenceRewrites rewrites;
    rewrites.fold_and_fuse = settings.optimize_graph;
    rewrites.fuse_quantized = settings.optimize_graph;
    vb.optimize_graph = settings.optimize_graph;
    auto compiled = engine::compileForBenchmark(vb.built.graph, feed_names, fetches, plan_options, rewrites);
    if (!compiled.ok()) {
      out.error = name + ": " + compiled.error();
      return out;
    }
    auto& plan = compiled->plan;
    vb.init_seconds = compiled->init_seconds;
    vb.num_threads = plan->pool().numThreads();

    engine::BenchmarkOptions options;
    options.warmup_runs = settings.warmup_runs;
    options.max_num_runs = settings.max_runs;
    options.max_time_s = settings.max_time_s;
    options.cancelled = cancelled;
    options.graph_nodes = compiled->graph_nodes;
    options.fused_ops = compiled->fused_ops;
    options.progress = [&](const std::string& phase, int done) {
      int offset = 0;
      if (phase == "timing") offset = settings.warmup_runs;
      if (phase == "stats") offset = settings.warmup_runs + std::max(settings.max_runs, 1);
      report(base + offset + done, total, name + ": " + phase + " run " + std::to_string(done));
    };
    auto result = engine::runBenchmark(*plan, *feeds, options);
    if (!result.ok()) {
      if (cancelled()) return finishCancelled();
      out.error = name + ": " + result.error();
      return out;
    }
    vb.result = std::move(result).value();
    out.variants.push_back(std::move(vb));
  }
  if (settings.device) {
    runVariantsOnDevice(settings, feed_names, *feeds, &out, observer);
    if (cancelled()) return finishCancelled();
  }
  report(total, total, "Done");
  return out;
}

}  // namespace gds::ui
