// The compiled form of a Plan, shared by the compiler (engine/
// plan_compiler.cc), the executor (engine/executor.cc) and Plan itself
// (engine/plan.cc); not for use outside them.
//
// Nodes are in topological order (loop back edges from NextIteration
// ignored), feeds first. Every node runs in a static frame: the root, or the
// frame of a while loop (TensorFlow's ControlFlowInfo), whose nodes own
// consecutive input slots in each iteration's state.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/buffer_pool.h"
#include "engine/kernel.h"
#include "engine/plan.h"
#include "engine/tensor.h"
#include "engine/thread_pool.h"
#include "model/graph.h"
#include "graph.pb.h"
#include "model/status.h"

namespace gds::engine {

enum class NodeKind { Feed, Const, Kernel, Switch, Merge, Enter, Exit, NextIteration, LoopCond };

// The control-flow ops the executor runs itself (and their Ref forms); every
// other op is a Kernel.
NodeKind nodeKindOf(const std::string& op);

// "node 'name' (Op)", the prefix of every error about a node.
std::string nodeLabel(const tensorflow::NodeDef& node);

struct InEdge {
  int src;    // plan node
  int port;   // -1 for control
  bool back;  // from a NextIteration (loop back edge)
};
struct OutEdge {
  int dst;
  int slot;  // data input index of dst; -1 for control
};

struct PlanNode {
  NodeKind kind = NodeKind::Kernel;
  const tensorflow::NodeDef* def = nullptr;  // null for feeds
  std::unique_ptr<OpKernel> kernel;
  Tensor value;         // Const value
  int feed_index = -1;  // Feed
  int frame = 0;        // static frame the node runs in
  int local = 0;        // index within the frame
  int slot_base = 0;    // first input slot within the frame
  int num_data = 0, num_control = 0;
  int num_outputs = 1;
  std::vector<InEdge> inputs;                 // data inputs first (in order), then control
  std::vector<std::vector<OutEdge>> outs;     // per output port
  std::vector<OutEdge> control_outs;
  std::vector<std::vector<int>> fetch_slots;  // per port: indices into the fetch list
  // Enter
  int child_frame = -1;
  bool is_constant = false;
};

struct StaticFrame {
  std::string name;
  int parent = -1;
  std::int64_t parallel_iterations = 10;
  std::vector<int> nodes;  // plan nodes running in this frame
  int num_slots = 0;
  std::vector<int> initial_pending;  // per local node
};

struct Plan::Impl {
  std::shared_ptr<const tensorflow::GraphDef> owned_graph;
  const tensorflow::GraphDef* graph = nullptr;
  std::vector<PlanNode> nodes;  // topological order (back edges ignored)
  std::vector<StaticFrame> frames;
  std::vector<std::pair<int, int>> fetches;  // (node, port); port -1 for targets
  std::vector<int> feed_nodes;
  std::vector<DataType> feed_types;
  std::vector<Shape> feed_shapes;
  std::vector<bool> feed_shape_known;
  std::shared_ptr<BufferPool> buffers = std::make_shared<BufferPool>();
  bool reference = false;
  bool has_control_flow = false;
  std::function<bool()> cancelled;  // PlanOptions::cancelled
};

// Compiles `def` (indexed as `graph`) into im and infos (engine/
// plan_compiler.cc); errors name the node, feed or fetch.
Status compilePlan(const tensorflow::GraphDef& def, const model::Graph& graph, const std::vector<std::string>& feeds,
                   const std::vector<std::string>& fetches, const PlanOptions& options, Plan::Impl& im,
                   std::vector<PlanNodeInfo>& infos);

// One run of the compiled graph (engine/executor.cc): results get one tensor
// per fetch; errors name the node or the fetch.
Status executePlan(Plan::Impl& im, const std::vector<PlanNodeInfo>& infos, const ThreadPool& pool,
                   std::int64_t step, RunProfile* profile, const std::vector<Tensor>& feeds,
                   std::vector<Tensor>* results);

}  // namespace gds::engine
