// A Plan is a GraphDef compiled once for a fixed set of feeds and fetches and
// then run many times with new feed values (TensorFlow's Session::Run with a
// cached executor).
//
//   PlanOptions options;
//   options.num_threads = 2;
//   auto plan = compileForInference(graph, {"input"}, {"MobilenetV1/Predictions/Reshape_1"}, options);
//   if (!plan.ok()) return plan.status();            // names the node and op
//   auto outputs = (*plan)->run({input_tensor});     // one Tensor per fetch
//
// Plan::compile compiles exactly the graph it is given. To run a model for
// inference, call compileForInference (engine/rewrite/optimize_for_inference.h)
// instead: it applies the inference rewrites first (constant folding, fused
// float contractions, fused 8-bit layers: what grappler does before a
// TensorFlow session runs a graph; the rewrites never change what the
// fetches compute, and InferenceRewrites turns each off) and then calls
// Plan::compile. The CLI, the window and engine/eval/ use it; Plan::compile
// alone is for the rewrites themselves (constant folding runs a Plan).
//
// Compilation (engine/plan_compiler.cc)
// - Prunes the graph to the nodes the fetches need (data and control inputs).
// - Any tensor "node:port" (or "node", port 0) can be fed; its consumers read
//   the fed value and the producer is not run unless something else needs it.
// - Fetches are "node:port" or "node"; "^node" runs a node without fetching
//   anything (its result slot is an empty Tensor).
// - Creates one kernel per node from the KernelRegistry; an op without a
//   kernel or a dtype the kernel does not support is an error naming the node
//   and op with advice (strip_unused_nodes / remove_nodes). Kernels check
//   dtypes and the shapes known at compile time (Placeholder shape attrs,
//   PlanOptions::input_shapes, Const values) in their init.
// - A Placeholder that is needed but not fed is an error at compile time.
// - Const nodes become tensors borrowing the GraphDef's tensor_content bytes
//   (no copy). The GraphDef passed by reference must therefore outlive the
//   Plan; pass a shared_ptr to let the Plan keep it alive.
//
// Execution (engine/executor.cc)
// - Dataflow execution as TensorFlow's executor does it, including control
//   flow: Switch/Merge with dead-tensor propagation, while loops with frames
//   and iterations (Enter with frame_name/is_constant, Exit, NextIteration,
//   LoopCond). Nodes run one at a time; kernels use the plan's thread pool
//   for intra-op parallelism (num_threads == 1: no worker threads).
// - Intermediate buffers come from a pool keyed by size and go back to it
//   when their last consumer has run, so memory is reused by tensor
//   lifetime; peakBytes() reports the most bytes live at once.
// - run() is thread-safe (calls are serialized).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/kernel.h"
#include "engine/lowp/requantize.h"
#include "engine/tensor.h"
#include "engine/thread_pool.h"
#include "graph.pb.h"
#include "model/status.h"

namespace gds::engine {

struct PlanOptions {
  int num_threads = 1;             // intra-op threads; 1 = run on the caller, <= 0 = all cores
  bool reference_kernels = false;  // plain-loop reference kernels instead of optimized ones
  // Placeholder name -> shape used instead of its shape attr (the user's
  // choice of input shape; feeds are checked against it).
  std::map<std::string, Shape> input_shapes;
  // Share a pool between plans (num_threads is then ignored).
  std::shared_ptr<ThreadPool> pool;
  // Kernels to use (nullptr: builtinKernels(), engine/builtin_kernels.h).
  const KernelRegistry* registry = nullptr;
  // Let float 3x3 stride-1 convolutions with enough channels use Winograd's
  // algorithm: oneDNN's F(4x4, 3x3) or F(2x2, 3x3) where it has them
  // (AVX-512), else the engine's F(4x4, 3x3) on AVX2 (engine/ops/winograd.h); 1.4-2.7x faster
  // per layer; results differ from the direct convolution by rounding only
  // (a few 1e-6 relative).
  bool winograd = true;
  // Whose arithmetic the int8 kernels of a .tflite model follow: TensorFlow
  // Lite with its XNNPACK delegate (the default, as TensorFlow Lite runs an
  // int8 model on a phone), its built-in or its reference kernels, or Arm
  // NN's CpuRef (engine/lowp/requantize.h). Float graphs ignore it.
  lowp::Arithmetic arithmetic = lowp::kDefaultArithmetic;
  // Polled by the executor before each node runs (on the thread calling
  // Plan::run); once it returns true the run ends with the error
  // "cancelled", as a Cancel button or Ctrl+C asks. Every plan the eval
  // tools compile from these options (compare, calibrate, datasets) stops
  // the same way.
  std::function<bool()> cancelled;
};

// What the plan knows about one of its nodes (for profiles, FLOPs, the UI).
struct PlanNodeInfo {
  std::string name;                // NodeDef name ("feed:<tensor>" for a feed)
  std::string op;                  // op type ("_Feed" for a feed)
  int graph_index = -1;            // index in GraphDef.node(), -1 for a feed
  std::vector<std::string> inputs; // the NodeDef's inputs as written ("a:1", "^b")
  std::vector<DataType> output_types;   // DT_INVALID when unknown
  std::vector<Shape> output_shapes;     // static shapes, -1 dims unknown
  std::vector<bool> output_shape_known; // false: rank unknown
  std::string frame;               // "" for the root frame, else the while loop's frame name
};

// Per-node measurements of one run, indexed like Plan::nodes().
struct NodeRunStats {
  std::int64_t calls = 0;          // times executed (loop bodies run once per iteration)
  std::int64_t start_ns = -1;      // first start, relative to the start of the run
  std::int64_t duration_ns = 0;    // total over calls
  std::int64_t output_bytes = 0;   // bytes of the outputs of the last call
  double flops = 0;                // OpKernel::flops summed over calls (actual shapes)
  std::vector<Shape> input_shapes;   // of the last call
  std::vector<Shape> output_shapes;  // of the last call
};

struct RunProfile {
  std::int64_t total_ns = 0;        // wall time of the run
  std::int64_t peak_bytes = 0;      // most intermediate bytes live at once in this run
  std::int64_t allocated_bytes = 0; // sum of all output allocations in this run
  std::vector<NodeRunStats> nodes;  // indexed like Plan::nodes()
};

class Plan {
 public:
  static Result<std::unique_ptr<Plan>> compile(const tensorflow::GraphDef& graph, std::vector<std::string> feeds,
                                               std::vector<std::string> fetches, PlanOptions options = {});
  static Result<std::unique_ptr<Plan>> compile(std::shared_ptr<const tensorflow::GraphDef> graph,
                                               std::vector<std::string> feeds, std::vector<std::string> fetches,
                                               PlanOptions options = {});
  ~Plan();

  // feeds[i] is the value of feedNames()[i]; returns one tensor per fetch.
  // With a profile, per-node times are recorded (reuse one RunProfile across
  // runs: it is reset in place, which keeps the overhead to a few percent).
  // Errors name the node (kernel failures, CheckNumerics, a dead fetch) or
  // the feed (wrong dtype or shape).
  Result<std::vector<Tensor>> run(const std::vector<Tensor>& feeds, RunProfile* profile = nullptr);

  const std::vector<std::string>& feedNames() const { return feed_names_; }
  const std::vector<std::string>& fetchNames() const { return fetch_names_; }
  // Expected dtype/shape of feed i (shape dims -1 when free; known=false when the rank is free).
  DataType feedType(int i) const;
  Shape feedShape(int i, bool* known = nullptr) const;

  // Nodes in execution (topological) order; feeds first.
  const std::vector<PlanNodeInfo>& nodes() const { return infos_; }
  // OpKernel::flops of node i for the given shapes (0 for feeds, Const, control flow).
  double flops(int node, const std::vector<Shape>& inputs, const std::vector<Shape>& outputs) const;
  // Most bytes of intermediate tensors live at once, over all runs so far.
  std::int64_t peakBytes() const;
  // Bytes currently held by the buffer pool (live + free for reuse).
  std::int64_t poolBytes() const;
  const ThreadPool& pool() const { return *pool_; }
  std::int64_t runCount() const { return step_; }

  struct Impl;  // the compiled graph (engine/plan_impl.h)

 private:
  Plan();
  // `owner` (may be null) keeps `graph` alive; Const values borrow from it.
  static Result<std::unique_ptr<Plan>> compileImpl(const tensorflow::GraphDef& graph,
                                                   std::shared_ptr<const tensorflow::GraphDef> owner,
                                                   std::vector<std::string> feeds, std::vector<std::string> fetches,
                                                   PlanOptions options);
  std::unique_ptr<Impl> impl_;
  std::vector<std::string> feed_names_, fetch_names_;
  std::vector<PlanNodeInfo> infos_;
  std::shared_ptr<ThreadPool> pool_;
  std::int64_t step_ = 0;
  std::mutex run_mu_;
};

}  // namespace gds::engine
