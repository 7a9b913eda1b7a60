// Times every transform and TensorFlow's fp32 optimization pipeline on the
// largest graphs of the corpus, next to a peer measured in the same run
// (copying the GraphDef, the least any pure transform must do), and on the
// graph doubled in size to show how the cost grows (~2x for O(n log n)).
//
//   build/bench/bench_transforms [--graph=FILE] [--runs=N]
// (default graph: $GDS_SHARED_DIR or ../shared, models/tfnet_inception_v3_hub.meta)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "model/graph.h"
#include "model/io.h"
#include "model/summary.h"
#include "transforms/pipeline.h"

using namespace gds;

namespace {

double bestMs(int runs, const std::function<void()>& fn) {
  double best = 1e30;
  for (int i = 0; i < runs; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    fn();
    best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

// The graph twice: the copy's names (and inputs) get a prefix.
tensorflow::GraphDef doubled(const tensorflow::GraphDef& g) {
  tensorflow::GraphDef out = g;
  for (const auto& n : g.node()) {
    auto* c = out.add_node();
    *c = n;
    c->set_name("copy/" + n.name());
    for (auto& in : *c->mutable_input()) in = (in[0] == '^' ? "^copy/" + in.substr(1) : "copy/" + in);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path;
  int runs = 3;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--graph=", 8) == 0) path = argv[i] + 8;
    else if (std::strncmp(argv[i], "--runs=", 7) == 0) runs = std::max(1, std::atoi(argv[i] + 7));
  }
  if (path.empty()) {
    const char* shared = std::getenv("GDS_SHARED_DIR");
    path = std::string(shared ? shared : "../shared") + "/models/tfnet_inception_v3_hub.meta";
  }
  auto loaded = model::load(path);
  if (!loaded.ok()) {
    std::fprintf(stderr, "error: %s\n", loaded.error().c_str());
    return 1;
  }
  const tensorflow::GraphDef& graph = loaded->graph;
  auto index = model::Graph::build(graph);
  if (!index.ok()) {
    std::fprintf(stderr, "error: %s: %s\n", path.c_str(), index.error().c_str());
    return 1;
  }
  model::Summary summary = model::summarize(*index);
  std::vector<std::string> inputs, outputs;
  for (const auto& in : summary.inputs) inputs.push_back(in.name);
  for (const auto& out : summary.outputs) outputs.push_back(out.first);
  const tensorflow::GraphDef big = doubled(graph);
  std::vector<std::string> big_inputs = inputs, big_outputs = outputs;
  for (const auto& s : inputs) big_inputs.push_back("copy/" + s);
  for (const auto& s : outputs) big_outputs.push_back("copy/" + s);

  std::printf("graph: %s, %d nodes, %zu inputs, %zu outputs; best of %d runs\n\n", path.c_str(), graph.node_size(),
              inputs.size(), outputs.size(), runs);
  const double copy_ms = bestMs(runs, [&] { tensorflow::GraphDef c = graph; });
  const double copy_big_ms = bestMs(runs, [&] { tensorflow::GraphDef c = big; });
  std::printf("%-32s %10s %10s %10s %12s %8s\n", "transform", "ms", "x copy", "2n ms", "2n/n ratio", "nodes");
  std::printf("%-32s %10.2f %10.2f %10.2f %12.2f %8d\n", "(peer: copy GraphDef)", copy_ms, 1.0, copy_big_ms,
              copy_big_ms / copy_ms, graph.node_size());

  transforms::PipelineOptions options;
  options.compute_diff = false;
  const std::vector<std::string> steps = {
      "add_default_attributes", "backport_concatv2", "flatten_atrous_conv", "fold_batch_norms",
      "fold_constants(ignore_errors=true)", "fold_old_batch_norms", "fuse_pad_and_conv", "fuse_resize_and_conv",
      "fuse_resize_pad_and_conv", "merge_duplicate_nodes", "obfuscate_names", "quantize_weights",
      "remove_attribute(attribute_name=_class)", "remove_control_dependencies", "remove_device",
      "remove_nodes(op=Identity, op=CheckNumerics)", "rename_attribute(old_attribute_name=T, new_attribute_name=T2)",
      "rename_op(old_op_name=Relu, new_op_name=Relu6)", "round_weights", "set_device(device=\"/cpu:0\")",
      "sort_by_execution_order", "strip_unused_nodes"};
  auto timePipeline = [&](const std::string& text, const tensorflow::GraphDef& g, const std::vector<std::string>& in,
                          const std::vector<std::string>& out, int* nodes_after) {
    return bestMs(runs, [&] {
      auto r = transforms::applyTransforms(g, text, in, out, options);
      if (!r.ok()) {
        std::fprintf(stderr, "error: %s\n", r.error().c_str());
        std::exit(1);
      }
      *nodes_after = r->graph.node_size();
    });
  };
  for (const auto& step : steps) {
    int nodes = 0, big_nodes = 0;
    double ms = timePipeline(step, graph, inputs, outputs, &nodes);
    double big_ms = timePipeline(step, big, big_inputs, big_outputs, &big_nodes);
    std::printf("%-32.32s %10.2f %10.2f %10.2f %12.2f %8d\n", step.c_str(), ms, ms / copy_ms, big_ms, big_ms / ms, nodes);
  }
  const std::string fp32 =
      "strip_unused_nodes(type=float) fold_constants(ignore_errors=true) fold_batch_norms fold_old_batch_norms";
  int nodes = 0, big_nodes = 0;
  double ms = timePipeline(fp32, graph, inputs, outputs, &nodes);
  double big_ms = timePipeline(fp32, big, big_inputs, big_outputs, &big_nodes);
  std::printf("\nfp32 pipeline (%s)\n%-32s %10.2f %10.2f %10.2f %12.2f %8d\n", fp32.c_str(), "whole pipeline", ms,
              ms / copy_ms, big_ms, big_ms / ms, nodes);
  options.compute_diff = true;
  double diff_ms = timePipeline(fp32, graph, inputs, outputs, &nodes);
  std::printf("%-32s %10.2f %10.2f\n", "whole pipeline + SummaryDiffs", diff_ms, diff_ms / copy_ms);
  std::printf("\ntarget: whole fp32 pipeline on the 11k-node graph under 1000 ms: %s\n", ms < 1000 ? "met" : "NOT met");
  return 0;
}
