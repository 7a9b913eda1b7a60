// Plan compilation (pruning, feeds, kernels, static frames) and the dataflow
// executor. Control flow follows TensorFlow's executor
// (tensorflow/core/common_runtime/executor.cc, propagator_state.cc): every
// node runs in a frame instance and iteration; Enter moves values into a
// child frame (constant Enters into every iteration), Exit back to the
// parent, NextIteration to the next iteration; a node with a dead input
// produces dead outputs without running, Merge fires on its first live input
// (or dead when all data inputs are dead), and a dead NextIteration stops
// the loop.
#include "engine/plan.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <set>
#include <unordered_map>

#include "engine/buffer_pool.h"
#include "engine/rewrite/fold_and_fuse.h"
#include "engine/rewrite/quantized_fusion.h"
#include "model/graph.h"

namespace gds::engine {
namespace {

using Clock = std::chrono::steady_clock;

std::string label(const tensorflow::NodeDef& node) { return "node '" + node.name() + "' (" + node.op() + ")"; }

DataType attrType(const tensorflow::NodeDef& node, const char* name, DataType fallback = tensorflow::DT_INVALID) {
  auto it = node.attr().find(name);
  if (it == node.attr().end() || it->second.value_case() != tensorflow::AttrValue::kType) return fallback;
  return model::baseDtype(it->second.type());
}

bool isOneOf(const std::string& op, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (op == n) return true;
  return false;
}

enum class Kind { Feed, Const, Kernel, Switch, Merge, Enter, Exit, NextIteration, LoopCond };

Kind kindOf(const std::string& op) {
  if (op == "Const") return Kind::Const;
  if (op == "Switch" || op == "RefSwitch") return Kind::Switch;
  if (op == "Merge" || op == "RefMerge") return Kind::Merge;
  if (op == "Enter" || op == "RefEnter") return Kind::Enter;
  if (op == "Exit" || op == "RefExit") return Kind::Exit;
  if (op == "NextIteration" || op == "RefNextIteration") return Kind::NextIteration;
  if (op == "LoopCond") return Kind::LoopCond;
  return Kind::Kernel;
}

}  // namespace

std::vector<DataType> outputTypesFromAttrs(const tensorflow::NodeDef& node, int num_outputs,
                                           const std::vector<DataType>& input_types) {
  const std::string& op = node.op();
  const DataType kFloat = tensorflow::DT_FLOAT;
  DataType t = attrType(node, "T");
  if (t == tensorflow::DT_INVALID) t = attrType(node, "dtype");
  if (t == tensorflow::DT_INVALID && !input_types.empty()) t = input_types[0];
  std::vector<DataType> out(static_cast<size_t>(std::max(num_outputs, 0)), t);
  auto fill = [&](std::initializer_list<DataType> types) {
    size_t i = 0;
    for (DataType d : types)
      if (i < out.size()) out[i++] = d;
  };
  if (isOneOf(op, {"Shape", "Size", "ShapeN"})) {
    std::fill(out.begin(), out.end(), attrType(node, "out_type", tensorflow::DT_INT32));
  } else if (op == "Rank") {
    fill({tensorflow::DT_INT32});
  } else if (isOneOf(op, {"ArgMax", "ArgMin"})) {
    fill({attrType(node, "output_type", tensorflow::DT_INT64)});
  } else if (op == "Cast") {
    fill({attrType(node, "DstT")});
  } else if (isOneOf(op, {"Less", "Greater", "LessEqual", "GreaterEqual", "Equal", "NotEqual", "LogicalAnd",
                          "LogicalOr", "LogicalNot", "IsNan", "IsInf", "IsFinite", "LoopCond"})) {
    fill({tensorflow::DT_BOOL});
  } else if (isOneOf(op, {"Merge", "RefMerge"})) {
    fill({t, tensorflow::DT_INT32});
  } else if (op == "DecodeWav") {
    fill({kFloat, tensorflow::DT_INT32});
  } else if (isOneOf(op, {"AudioSpectrogram", "Mfcc", "ResizeBilinear"})) {
    fill({kFloat});
  } else if (op == "DecodeJpeg") {
    fill({tensorflow::DT_UINT8});
  } else if (op == "DecodePng") {
    fill({attrType(node, "dtype", tensorflow::DT_UINT8)});
  } else if (op == "TensorArrayV3") {
    fill({tensorflow::DT_RESOURCE, kFloat});
  } else if (isOneOf(op, {"TensorArrayWriteV3", "TensorArrayScatterV3"})) {
    fill({kFloat});
  } else if (op == "TensorArraySizeV3") {
    fill({tensorflow::DT_INT32});
  } else if (isOneOf(op, {"TensorArrayReadV3", "TensorArrayGatherV3"})) {
    fill({attrType(node, "dtype")});
  } else if (op == "Range") {
    fill({attrType(node, "Tidx", tensorflow::DT_INT32)});
  } else if (op == "Dequantize") {
    fill({attrType(node, "dtype", kFloat)});
  } else if (op == "QuantizeV2") {
    fill({t, kFloat, kFloat});
  } else if (op == "RequantizationRange") {
    fill({kFloat, kFloat});
  } else if (isOneOf(op, {"FusedBatchNormV2", "FusedBatchNormV3"})) {
    DataType u = attrType(node, "U", kFloat);
    std::fill(out.begin(), out.end(), u);
    if (!out.empty()) out[0] = t;
  } else if (op == "IdentityN") {
    auto it = node.attr().find("T");
    if (it != node.attr().end())
      for (int i = 0; i < it->second.list().type_size() && i < num_outputs; ++i)
        out[static_cast<size_t>(i)] = model::baseDtype(static_cast<DataType>(it->second.list().type(i)));
  } else if (op.rfind("Quantized", 0) == 0 || op == "Requantize") {
    DataType q = attrType(node, "out_type", attrType(node, "Toutput", t));
    std::fill(out.begin(), out.end(), kFloat);
    if (!out.empty()) out[0] = q;
  } else {
    DataType o = attrType(node, "out_type");
    if (o != tensorflow::DT_INVALID && !out.empty()) out[0] = o;
  }
  return out;
}

Result<Tensor> constTensor(const tensorflow::NodeDef& node, std::shared_ptr<const void> owner) {
  auto it = node.attr().find("value");
  if (it == node.attr().end() || it->second.value_case() != tensorflow::AttrValue::kTensor)
    return Status::Error(label(node) + ": missing tensor attr 'value'");
  const tensorflow::TensorProto& proto = it->second.tensor();
  DataType dtype = model::baseDtype(proto.dtype());
  bool known = true;
  Shape shape = model::shapeFromProto(proto.tensor_shape(), &known);
  std::int64_t n = model::numElements(shape);
  std::size_t esize = model::dtypeSize(dtype);
  if (known && n >= 0 && esize > 0 && !proto.tensor_content().empty() &&
      proto.tensor_content().size() == static_cast<std::size_t>(n) * esize) {
    return Tensor::borrow(dtype, shape, proto.tensor_content().data(), std::move(owner));
  }
  auto host = model::decodeTensor(proto);
  if (!host.ok()) return Status::Error(label(node) + ": " + host.error());
  return Tensor::fromHost(*host);
}

// ---------------------------------------------------------------------------
// Compiled structure.

namespace {

struct InEdge {
  int src;       // plan node
  int port;      // -1 for control
  bool back;     // from a NextIteration (loop back edge)
};
struct OutEdge {
  int dst;
  int slot;      // data input index of dst; -1 for control
};

struct Node {
  Kind kind = Kind::Kernel;
  const tensorflow::NodeDef* def = nullptr;  // null for feeds
  std::unique_ptr<OpKernel> kernel;
  Tensor value;                       // Const value
  int feed_index = -1;                // Feed
  int frame = 0;                      // static frame the node runs in
  int local = 0;                      // index within the frame
  int slot_base = 0;                  // first input slot within the frame
  int num_data = 0, num_control = 0;
  int num_outputs = 1;
  std::vector<InEdge> inputs;         // data inputs first (in order), then control
  std::vector<std::vector<OutEdge>> outs;  // per output port
  std::vector<OutEdge> control_outs;
  std::vector<std::vector<int>> fetch_slots;  // per port: indices into the fetch list
  // Enter
  int child_frame = -1;
  bool is_constant = false;
  bool profiled_flops = false;
};

struct StaticFrame {
  std::string name;
  int parent = -1;
  std::int64_t parallel_iterations = 10;
  std::vector<int> nodes;  // plan nodes running in this frame
  int num_slots = 0;
  std::vector<int> initial_pending;  // per local node
};

struct Entry {
  Tensor tensor;
  bool dead = false;
};

struct IterState {
  std::vector<int> pending;
  std::vector<int> dead_count;
  std::vector<std::uint8_t> flags;  // kAnyDead, kMergeLive, kFired
  std::vector<int> merge_index;
  std::vector<Tensor> slots;
};
constexpr std::uint8_t kAnyDead = 1, kMergeLive = 2, kFired = 4;

struct FrameInst {
  int frame = 0;
  FrameInst* parent = nullptr;
  std::int64_t parent_iter = 0;
  std::vector<std::unique_ptr<IterState>> iters;
  std::vector<std::pair<int, Entry>> constants;  // constant Enter values
  std::map<std::pair<std::int64_t, int>, std::unique_ptr<FrameInst>> children;
  std::vector<int> dead_exits;
  std::set<int> live_exits;
  bool dead_exits_flushed = false;
};

struct Ready {
  FrameInst* frame;
  std::int64_t iter;
  int node;
};

class InitImpl : public KernelInit {
 public:
  InitImpl(const Node& n, const std::vector<Node>& nodes, const std::vector<PlanNodeInfo>& infos, bool reference,
           bool winograd)
      : n_(n), nodes_(nodes), infos_(infos), reference_(reference), winograd_(winograd) {}
  const tensorflow::NodeDef& node() const override { return *n_.def; }
  int numInputs() const override { return n_.num_data; }
  DataType inputType(int i) const override {
    const InEdge* e = edge(i);
    if (!e) return tensorflow::DT_INVALID;
    const auto& types = infos_[static_cast<size_t>(e->src)].output_types;
    return static_cast<size_t>(e->port) < types.size() ? types[static_cast<size_t>(e->port)] : tensorflow::DT_INVALID;
  }
  bool inputShape(int i, Shape* shape) const override {
    const InEdge* e = edge(i);
    if (!e) return false;
    const auto& info = infos_[static_cast<size_t>(e->src)];
    size_t p = static_cast<size_t>(e->port);
    if (p >= info.output_shapes.size() || !info.output_shape_known[p]) return false;
    *shape = info.output_shapes[p];
    return true;
  }
  const Tensor* constantInput(int i) const override {
    const InEdge* e = edge(i);
    if (!e) return nullptr;
    const Node& src = nodes_[static_cast<size_t>(e->src)];
    return src.kind == Kind::Const && src.value.valid() ? &src.value : nullptr;
  }
  bool referenceKernels() const override { return reference_; }
  bool winogradAllowed() const override { return winograd_; }

 private:
  const InEdge* edge(int i) const {
    if (i < 0 || i >= n_.num_data) return nullptr;
    const InEdge& e = n_.inputs[static_cast<size_t>(i)];
    if (e.back || e.src < 0) return nullptr;
    return &e;
  }
  const Node& n_;
  const std::vector<Node>& nodes_;
  const std::vector<PlanNodeInfo>& infos_;
  bool reference_;
  bool winograd_;
};

}  // namespace

struct Plan::Impl {
  std::shared_ptr<const tensorflow::GraphDef> owned_graph;
  const tensorflow::GraphDef* graph = nullptr;
  std::vector<Node> nodes;  // topological order (back edges ignored)
  std::vector<StaticFrame> frames;
  std::vector<std::pair<int, int>> fetches;  // (node, port); port -1 for targets
  std::vector<int> feed_nodes;
  std::vector<DataType> feed_types;
  std::vector<Shape> feed_shapes;
  std::vector<bool> feed_shape_known;
  std::shared_ptr<BufferPool> buffers = std::make_shared<BufferPool>();
  bool reference = false;
  bool has_control_flow = false;
};

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
  const Node& n = impl_->nodes[static_cast<size_t>(node)];
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
  if (options.optimize_graph) {
    options.optimize_graph = false;
    if (auto rewritten = rewriteForInference(def, feeds, fetches, options))
      return compile(std::move(rewritten), std::move(feeds), std::move(fetches), std::move(options));
  }
  if (options.fuse_quantized) {
    options.fuse_quantized = false;
    if (std::shared_ptr<const tensorflow::GraphDef> fused =
            fuseQuantizedLayers(def, feeds, fetches, nullptr, options.input_shapes))
      return compile(std::move(fused), std::move(feeds), std::move(fetches), std::move(options));
  }
  auto graph_or = model::Graph::build(def);
  if (!graph_or.ok()) return graph_or.status();
  const model::Graph& g = *graph_or;
  const KernelRegistry& registry = options.registry ? *options.registry : KernelRegistry::global();

  std::unique_ptr<Plan> plan(new Plan());
  Impl& im = *plan->impl_;
  im.graph = &def;
  // A plan of a rewritten graph (engine/rewrite/fold_and_fuse.h) owns that graph.
  im.owned_graph = std::move(owner);
  im.reference = options.reference_kernels;
  plan->feed_names_ = feeds;
  plan->fetch_names_ = fetches;
  if (fetches.empty()) return Status::Error("Plan::compile: no fetches given (name at least one output node)");

  // Feeds: (graph node, port) -> feed index.
  std::map<std::pair<int, int>, int> fed;
  for (size_t i = 0; i < feeds.size(); ++i) {
    model::TensorRef r = model::parseTensorName(feeds[i]);
    int idx = g.find(r.node);
    if (r.control || idx < 0)
      return Status::Error("feed '" + feeds[i] + "': no node named '" + r.node + "' in the graph");
    if (!fed.emplace(std::make_pair(idx, r.port), static_cast<int>(i)).second)
      return Status::Error("feed '" + feeds[i] + "' is given twice");
  }

  // Control edges out of a fed Placeholder come from its feed instead, as in
  // TensorFlow's FeedInputs rewrite (quantize_nodes adds "^input" to Consts).
  auto fedControl = [&](const model::Graph::Input& in) -> int {
    if (!in.control) return -1;
    const std::string& op = g.op(in.node);
    if (op != "Placeholder" && op != "PlaceholderV2") return -1;
    auto fit = fed.find({in.node, 0});
    return fit == fed.end() ? -1 : fit->second;
  };

  // Prune: walk back from the fetches; edges from fed tensors stop the walk.
  std::vector<char> needed(static_cast<size_t>(g.size()), 0);
  std::vector<int> stack;
  struct FetchRef { int node; int port; int feed; };
  std::vector<FetchRef> fetch_refs;
  for (const std::string& f : fetches) {
    model::TensorRef r = model::parseTensorName(f);
    int idx = g.find(r.node);
    if (idx < 0) return Status::Error("fetch '" + f + "': no node named '" + r.node + "' in the graph");
    auto fit = fed.find({idx, r.port});
    if (!r.control && fit != fed.end()) {
      fetch_refs.push_back({idx, r.port, fit->second});
      continue;
    }
    fetch_refs.push_back({idx, r.control ? -1 : r.port, -1});
    if (!needed[static_cast<size_t>(idx)]) {
      needed[static_cast<size_t>(idx)] = 1;
      stack.push_back(idx);
    }
  }
  while (!stack.empty()) {
    int n = stack.back();
    stack.pop_back();
    for (const auto& in : g.inputs(n)) {
      if (!in.control && fed.count({in.node, in.port})) continue;
      if (fedControl(in) >= 0) continue;
      if (!needed[static_cast<size_t>(in.node)]) {
        needed[static_cast<size_t>(in.node)] = 1;
        stack.push_back(in.node);
      }
    }
  }

  // Plan nodes: feeds, then the needed graph nodes in topological order
  // (Kahn's algorithm; edges from NextIteration are loop back edges).
  std::vector<int> graph_to_plan(static_cast<size_t>(g.size()), -1);
  std::vector<int> order;
  {
    std::vector<int> indeg(static_cast<size_t>(g.size()), 0);
    std::vector<std::vector<int>> succ(static_cast<size_t>(g.size()));
    for (int n = 0; n < g.size(); ++n) {
      if (!needed[static_cast<size_t>(n)]) continue;
      for (const auto& in : g.inputs(n)) {
        if (!in.control && fed.count({in.node, in.port})) continue;
        if (fedControl(in) >= 0) continue;
        if (kindOf(g.op(in.node)) == Kind::NextIteration) continue;
        ++indeg[static_cast<size_t>(n)];
        succ[static_cast<size_t>(in.node)].push_back(n);
      }
    }
    std::vector<int> ready;
    for (int n = g.size() - 1; n >= 0; --n)
      if (needed[static_cast<size_t>(n)] && indeg[static_cast<size_t>(n)] == 0) ready.push_back(n);
    while (!ready.empty()) {
      int n = ready.back();
      ready.pop_back();
      order.push_back(n);
      for (int s : succ[static_cast<size_t>(n)])
        if (--indeg[static_cast<size_t>(s)] == 0) ready.push_back(s);
    }
    int total = static_cast<int>(std::count(needed.begin(), needed.end(), 1));
    if (static_cast<int>(order.size()) != total) {
      for (int n = 0; n < g.size(); ++n)
        if (needed[static_cast<size_t>(n)] && indeg[static_cast<size_t>(n)] > 0)
          return Status::Error(label(g.node(n)) + ": part of a cycle that is not a while loop "
                               "(only NextIteration may feed back)");
    }
  }

  const size_t num_feeds = feeds.size();
  im.nodes.resize(num_feeds + order.size());
  plan->infos_.resize(im.nodes.size());
  for (size_t i = 0; i < num_feeds; ++i) {
    Node& n = im.nodes[i];
    n.kind = Kind::Feed;
    n.feed_index = static_cast<int>(i);
    im.feed_nodes.push_back(static_cast<int>(i));
    PlanNodeInfo& info = plan->infos_[i];
    info.name = "feed:" + feeds[i];
    info.op = "_Feed";
  }
  for (size_t k = 0; k < order.size(); ++k) {
    size_t pi = num_feeds + k;
    graph_to_plan[static_cast<size_t>(order[k])] = static_cast<int>(pi);
    Node& n = im.nodes[pi];
    n.def = &g.node(order[k]);
    n.kind = kindOf(n.def->op());
    PlanNodeInfo& info = plan->infos_[pi];
    info.name = n.def->name();
    info.op = n.def->op();
    info.graph_index = order[k];
    info.inputs.assign(n.def->input().begin(), n.def->input().end());
    if (n.kind != Kind::Kernel && n.kind != Kind::Const) im.has_control_flow = true;
  }
  // Edges.
  for (size_t k = 0; k < order.size(); ++k) {
    Node& n = im.nodes[num_feeds + k];
    std::vector<InEdge> data, control;
    for (const auto& in : g.inputs(order[k])) {
      if (!in.control) {
        auto fit = fed.find({in.node, in.port});
        if (fit != fed.end()) {
          data.push_back({fit->second, 0, false});
          continue;
        }
      }
      if (int feed = fedControl(in); feed >= 0) {
        control.push_back({feed, -1, false});
        continue;
      }
      int src = graph_to_plan[static_cast<size_t>(in.node)];
      bool back = kindOf(g.op(in.node)) == Kind::NextIteration;
      if (in.control) control.push_back({src, -1, back});
      else data.push_back({src, in.port, back});
    }
    n.num_data = static_cast<int>(data.size());
    n.num_control = static_cast<int>(control.size());
    n.inputs = std::move(data);
    n.inputs.insert(n.inputs.end(), control.begin(), control.end());
  }

  // Feed types and shapes from the fed node's definition.
  for (size_t i = 0; i < num_feeds; ++i) {
    model::TensorRef r = model::parseTensorName(feeds[i]);
    const tensorflow::NodeDef& fd = g.node(g.find(r.node));
    auto types = outputTypesFromAttrs(fd, r.port + 1, {});
    DataType t = types.empty() ? tensorflow::DT_INVALID : types.back();
    Shape shape;
    bool known = false;
    auto ov = options.input_shapes.find(fd.name());
    if (ov != options.input_shapes.end()) {
      shape = ov->second;
      known = true;
    } else if ((fd.op() == "Placeholder" || fd.op() == "PlaceholderWithDefault") && r.port == 0) {
      auto it = fd.attr().find("shape");
      if (it != fd.attr().end() && it->second.value_case() == tensorflow::AttrValue::kShape) {
        shape = model::shapeFromProto(it->second.shape(), &known);
        // TensorFlow's Placeholder shape function: graphs up to version 21
        // cannot tell a scalar shape attr from "unknown", so it is unknown.
        if (known && shape.empty() && fd.op() == "Placeholder" && def.versions().producer() <= 21) known = false;
      }
    }
    im.feed_types.push_back(t);
    im.feed_shapes.push_back(shape);
    im.feed_shape_known.push_back(known);
    PlanNodeInfo& info = plan->infos_[i];
    info.output_types = {t};
    info.output_shapes = {shape};
    info.output_shape_known = {known};
    im.nodes[i].num_outputs = 1;
  }

  // Static frames (TensorFlow's ControlFlowInfo): Enter moves its consumers
  // into the child frame named frame_name, Exit back to the parent.
  im.frames.push_back(StaticFrame{});
  std::map<std::pair<int, std::string>, int> frame_ids;
  for (size_t i = 0; i < im.nodes.size(); ++i) {
    Node& n = im.nodes[i];
    int frame = -1;
    for (const InEdge& e : n.inputs) {
      if (e.back || e.src < 0) continue;
      const Node& src = im.nodes[static_cast<size_t>(e.src)];
      int f = src.frame;
      if (src.kind == Kind::Enter) f = src.child_frame;
      else if (src.kind == Kind::Exit) f = im.frames[static_cast<size_t>(src.frame)].parent;
      if (f < 0)
        return Status::Error(label(*n.def) + ": takes an input from Exit node '" + src.def->name() +
                             "' outside of any while loop");
      if (frame < 0) frame = f;
      else if (frame != f)
        return Status::Error(label(*n.def) + ": its inputs come from different while-loop frames ('" +
                             im.frames[static_cast<size_t>(frame)].name + "' and '" +
                             im.frames[static_cast<size_t>(f)].name + "')");
    }
    if (frame < 0) frame = 0;
    n.frame = frame;
    if (n.kind == Kind::Enter) {
      auto it = n.def->attr().find("frame_name");
      if (it == n.def->attr().end() || it->second.s().empty())
        return Status::Error(label(*n.def) + ": missing attr 'frame_name'");
      auto key = std::make_pair(frame, it->second.s());
      auto fit = frame_ids.find(key);
      if (fit == frame_ids.end()) {
        StaticFrame sf;
        sf.name = it->second.s();
        sf.parent = frame;
        auto pit = n.def->attr().find("parallel_iterations");
        if (pit != n.def->attr().end() && pit->second.i() > 0) sf.parallel_iterations = pit->second.i();
        im.frames.push_back(sf);
        fit = frame_ids.emplace(key, static_cast<int>(im.frames.size() - 1)).first;
      }
      n.child_frame = fit->second;
      auto cit = n.def->attr().find("is_constant");
      n.is_constant = cit != n.def->attr().end() && cit->second.b();
    }
    StaticFrame& sf = im.frames[static_cast<size_t>(frame)];
    n.local = static_cast<int>(sf.nodes.size());
    n.slot_base = sf.num_slots;
    sf.num_slots += n.num_data;
    sf.nodes.push_back(static_cast<int>(i));
    plan->infos_[i].frame = sf.name;
  }

  // Ops without a kernel first: for a training graph that is the actionable
  // error, more than an unfed label Placeholder.
  for (size_t i = num_feeds; i < im.nodes.size(); ++i) {
    const Node& n = im.nodes[i];
    const std::string& op = n.def->op();
    if (n.kind == Kind::Kernel && !registry.hasOp(op) &&
        isOneOf(op, {"VariableV2", "Variable", "VarHandleOp", "ReadVariableOp", "VarIsInitializedOp"}))
      return Status::Error(label(*n.def) + ": no kernel for op '" + op +
                           "': the graph reads variables; freeze it first (gdstudio freeze, with its checkpoint) "
                           "so the weights become Consts");
    if (n.kind == Kind::Kernel && !registry.hasOp(op))
      return Status::Error(label(*n.def) + ": no kernel for op '" + op +
                           "' in the interpreter; if the node is not needed for inference, remove it "
                           "(strip_unused_nodes with the right inputs/outputs, or remove_nodes(op=" + op + "))");
  }

  // Kernels, output types and static shapes, in topological order.
  for (size_t i = num_feeds; i < im.nodes.size(); ++i) {
    Node& n = im.nodes[i];
    PlanNodeInfo& info = plan->infos_[i];
    const std::string& op = n.def->op();
    InitImpl init(n, im.nodes, plan->infos_, options.reference_kernels, options.winograd);
    if (n.kind == Kind::Const) {
      auto value = constTensor(*n.def, im.owned_graph);
      if (!value.ok()) return value.status();
      n.value = std::move(value).value();
      n.num_outputs = 1;
      info.output_types = {n.value.dtype()};
      info.output_shapes = {n.value.shape()};
      info.output_shape_known = {true};
    } else {
      if (op == "Placeholder")
        return Status::Error(label(*n.def) + ": must be fed: it is a Placeholder of type " +
                             model::dtypeName(attrType(*n.def, "dtype")) +
                             " that the fetches need; add it to the inputs");
      if (n.kind == Kind::Switch && n.num_data != 2)
        return Status::Error(label(*n.def) + ": expects 2 inputs (data, pred), has " + std::to_string(n.num_data));
      if ((n.kind == Kind::Enter || n.kind == Kind::Exit || n.kind == Kind::NextIteration ||
           n.kind == Kind::LoopCond) && n.num_data != 1)
        return Status::Error(label(*n.def) + ": expects 1 input, has " + std::to_string(n.num_data));
      if (n.kind == Kind::Merge && n.num_data < 1)
        return Status::Error(label(*n.def) + ": expects at least 1 input");
      if (n.kind == Kind::Kernel) {
        if (!registry.hasOp(op))
          return Status::Error(label(*n.def) + ": no kernel for op '" + op +
                               "' in the interpreter; if the node is not needed for inference, remove it "
                               "(strip_unused_nodes with the right inputs/outputs, or remove_nodes(op=" + op + "))");
        DataType t = init.typeAttr();
        const KernelFactory* factory = registry.find(op, t);
        if (!factory)
          return Status::Error(label(*n.def) + ": op '" + op + "' has no kernel for dtype " + model::dtypeName(t) +
                               "; convert the graph to a supported type or remove the node (remove_nodes)");
        n.kernel = (*factory)();
        Status s = n.kernel->init(init);
        if (!s.ok()) {
          if (s.message().rfind("node '", 0) == 0) return s;
          return Status::Error(label(*n.def) + ": " + s.message());
        }
        n.num_outputs = std::max(1, n.kernel->numOutputs(init));
      } else {
        n.num_outputs = (n.kind == Kind::Switch || n.kind == Kind::Merge) ? 2 : 1;
      }
      std::vector<DataType> in_types;
      for (int k = 0; k < n.num_data; ++k) in_types.push_back(init.inputType(k));
      std::vector<DataType> types;
      if (n.kernel) types = n.kernel->outputTypes(init);
      if (static_cast<int>(types.size()) != n.num_outputs) types = outputTypesFromAttrs(*n.def, n.num_outputs, in_types);
      info.output_types = types;
      info.output_shapes.assign(static_cast<size_t>(n.num_outputs), Shape{});
      info.output_shape_known.assign(static_cast<size_t>(n.num_outputs), false);
      std::vector<Shape> shapes;
      if (n.kernel && n.kernel->inferShapes(init, &shapes) && static_cast<int>(shapes.size()) == n.num_outputs) {
        info.output_shapes = shapes;
        info.output_shape_known.assign(shapes.size(), true);
      } else if (n.kind == Kind::Enter || n.kind == Kind::Exit || n.kind == Kind::Switch ||
                 (n.kind == Kind::Merge && n.num_data > 0 && !n.inputs[0].back)) {
        Shape s;
        if (init.inputShape(0, &s)) {
          for (int p = 0; p < (n.kind == Kind::Switch ? 2 : 1); ++p) {
            info.output_shapes[static_cast<size_t>(p)] = s;
            info.output_shape_known[static_cast<size_t>(p)] = true;
          }
        }
      }
      if (n.kind == Kind::Merge) {
        info.output_shapes[1] = {};
        info.output_shape_known[1] = true;
      }
    }
  }

  // Output edges; check ports exist.
  for (auto& n : im.nodes) {
    n.outs.assign(static_cast<size_t>(n.num_outputs), {});
    n.fetch_slots.assign(static_cast<size_t>(n.num_outputs), {});
  }
  for (size_t i = 0; i < im.nodes.size(); ++i) {
    Node& n = im.nodes[i];
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      const InEdge& e = n.inputs[k];
      Node& src = im.nodes[static_cast<size_t>(e.src)];
      if (e.port < 0) {
        src.control_outs.push_back({static_cast<int>(i), -1});
        continue;
      }
      if (e.port >= src.num_outputs)
        return Status::Error(label(*n.def) + ": input " + std::to_string(k) + " reads output " +
                             std::to_string(e.port) + " of '" + plan->infos_[static_cast<size_t>(e.src)].name +
                             "', which has " + std::to_string(src.num_outputs) + " output(s)");
      src.outs[static_cast<size_t>(e.port)].push_back({static_cast<int>(i), static_cast<int>(k)});
    }
  }
  for (size_t j = 0; j < fetch_refs.size(); ++j) {
    const FetchRef& f = fetch_refs[j];
    int pn = f.feed >= 0 ? f.feed : graph_to_plan[static_cast<size_t>(f.node)];
    int port = f.feed >= 0 ? 0 : f.port;
    Node& n = im.nodes[static_cast<size_t>(pn)];
    int out_frame = n.kind == Kind::Exit ? im.frames[static_cast<size_t>(n.frame)].parent
                    : (n.kind == Kind::Enter ? n.child_frame : n.frame);
    if (out_frame != 0 && port >= 0)
      return Status::Error("fetch '" + fetches[j] + "' is inside while loop '" +
                           im.frames[static_cast<size_t>(std::max(out_frame, n.frame))].name +
                           "'; fetch the loop's Exit outputs instead");
    if (port >= n.num_outputs)
      return Status::Error("fetch '" + fetches[j] + "': node has only " + std::to_string(n.num_outputs) + " output(s)");
    im.fetches.push_back({pn, port});
    if (port >= 0) n.fetch_slots[static_cast<size_t>(port)].push_back(static_cast<int>(j));
  }

  // Initial pending counts per frame: every input must arrive; a Merge waits
  // for its control inputs and one live data input.
  for (auto& sf : im.frames) {
    sf.initial_pending.resize(sf.nodes.size());
    for (size_t l = 0; l < sf.nodes.size(); ++l) {
      const Node& n = im.nodes[static_cast<size_t>(sf.nodes[l])];
      sf.initial_pending[l] = n.kind == Kind::Merge ? n.num_control : n.num_data + n.num_control;
    }
  }

  plan->pool_ = options.pool ? options.pool : std::make_shared<ThreadPool>(options.num_threads);
  return plan;
}

// ---------------------------------------------------------------------------
// Execution.

namespace {

class ContextImpl : public KernelContext {
 public:
  ContextImpl(const Node& node, const ThreadPool& pool, BufferPool& buffers, std::int64_t step, bool reference)
      : node_(node), pool_(pool), buffers_(buffers), step_(step), reference_(reference) {}
  const tensorflow::NodeDef& node() const override { return *node_.def; }
  int numInputs() const override { return static_cast<int>(inputs.size()); }
  const Tensor& input(int i) const override { return *inputs[static_cast<size_t>(i)]; }
  int numOutputs() const override { return static_cast<int>(outputs.size()); }
  Tensor* allocateOutput(int i, DataType dtype, const Shape& shape) override {
    Tensor& out = outputs[static_cast<size_t>(i)];
    std::int64_t n = model::numElements(shape);
    std::size_t esize = model::dtypeSize(dtype);
    if (esize == 0 || n < 0) {
      out = Tensor(dtype, shape);
    } else {
      out = Tensor::fromStorage(dtype, shape, buffers_.get(static_cast<std::size_t>(n) * esize));
    }
    return &out;
  }
  void setOutput(int i, Tensor tensor) override { outputs[static_cast<size_t>(i)] = std::move(tensor); }
  // Each consumer's input slot holds its own reference, as do fetched
  // results, feeds and constants: a slot that is the buffer's sole owner is
  // this node's to reuse.
  Tensor* forwardInputOrAllocateOutput(int input, int output, DataType dtype, const Shape& shape) override {
    Tensor* in = inputs[static_cast<size_t>(input)];
    if (in->dtype() == dtype && in->soleOwner() && in->numElements() == model::numElements(shape)) {
      Tensor& out = outputs[static_cast<size_t>(output)];
      out = in->reshaped(shape);
      return &out;
    }
    return allocateOutput(output, dtype, shape);
  }
  const ThreadPool& pool() const override { return pool_; }
  std::int64_t step() const override { return step_; }
  bool referenceKernels() const override { return reference_; }

  std::vector<Tensor*> inputs;
  std::vector<Tensor> outputs;

 private:
  const Node& node_;
  const ThreadPool& pool_;
  BufferPool& buffers_;
  std::int64_t step_;
  bool reference_;
};

bool shapeCompatible(const Shape& actual, const Shape& expected) {
  if (actual.size() != expected.size()) return false;
  for (size_t i = 0; i < actual.size(); ++i)
    if (expected[i] >= 0 && actual[i] != expected[i]) return false;
  return true;
}

class Executor {
 public:
  Executor(Plan::Impl& im, const std::vector<PlanNodeInfo>& infos, const ThreadPool& pool, std::int64_t step,
           RunProfile* profile)
      : im_(im), infos_(infos), pool_(pool), step_(step), profile_(profile) {}

  Status run(const std::vector<Tensor>& feeds, std::vector<Tensor>* results) {
    feeds_ = &feeds;
    results_ = results;
    results->assign(im_.fetches.size(), Tensor());
    fetched_.assign(im_.fetches.size(), 0);
    start_ = Clock::now();
    root_.frame = 0;
    newIteration(&root_);
    // Sources of the root frame.
    const StaticFrame& rf = im_.frames[0];
    for (size_t l = rf.nodes.size(); l-- > 0;)
      if (rf.initial_pending[l] == 0 && im_.nodes[static_cast<size_t>(rf.nodes[l])].kind != Kind::Merge)
        ready_.push_back({&root_, 0, rf.nodes[l]});
    for (;;) {
      while (!ready_.empty()) {
        Ready r = ready_.back();
        ready_.pop_back();
        GDS_RETURN_IF_ERROR(process(r));
      }
      if (!flushDeadExits(&root_)) break;
    }
    for (size_t j = 0; j < im_.fetches.size(); ++j) {
      if (im_.fetches[j].second < 0) continue;
      const std::string& name = infos_[static_cast<size_t>(im_.fetches[j].first)].name;
      if (fetched_[j] == 2)
        return Status::Error("fetch '" + name + "' is dead: it lies on a branch of a Switch that was not taken");
      if (fetched_[j] == 0)
        return Status::Error("fetch '" + name + "' was not computed (a while loop did not finish or an input "
                             "never arrived)");
    }
    return Status::Ok();
  }

 private:
  IterState* newIteration(FrameInst* f) {
    const StaticFrame& sf = im_.frames[static_cast<size_t>(f->frame)];
    auto it = std::make_unique<IterState>();
    it->pending = sf.initial_pending;
    it->dead_count.assign(sf.nodes.size(), 0);
    it->flags.assign(sf.nodes.size(), 0);
    it->merge_index.assign(sf.nodes.size(), -1);
    it->slots.resize(static_cast<size_t>(sf.num_slots));
    f->iters.push_back(std::move(it));
    std::int64_t iter = static_cast<std::int64_t>(f->iters.size()) - 1;
    IterState* state = f->iters.back().get();
    // Nodes of the frame without inputs from inside it (only possible for
    // the root frame) start right away; constant Enter values reach every
    // iteration.
    if (iter > 0)
      for (auto& [enter, entry] : f->constants) deliverOutputs(enter, f, iter, entry, 0, true);
    return state;
  }

  IterState* iteration(FrameInst* f, std::int64_t iter) {
    while (static_cast<std::int64_t>(f->iters.size()) <= iter) newIteration(f);
    return f->iters[static_cast<size_t>(iter)].get();
  }

  FrameInst* child(FrameInst* f, std::int64_t iter, int static_frame) {
    auto key = std::make_pair(iter, static_frame);
    auto it = f->children.find(key);
    if (it != f->children.end()) return it->second.get();
    auto c = std::make_unique<FrameInst>();
    c->frame = static_frame;
    c->parent = f;
    c->parent_iter = iter;
    FrameInst* raw = c.get();
    f->children.emplace(key, std::move(c));
    all_frames_.push_back(raw);
    iteration(raw, 0);
    return raw;
  }

  // Delivers one input (data slot or control) to node dst in (f, iter).
  void deliver(FrameInst* f, std::int64_t iter, int dst, int slot, const Tensor* value, bool dead) {
    const Node& n = im_.nodes[static_cast<size_t>(dst)];
    IterState* st = iteration(f, iter);
    size_t l = static_cast<size_t>(n.local);
    if (n.kind == Kind::Merge) {
      if (slot < 0) {
        if (dead) st->flags[l] |= kAnyDead;
        if (--st->pending[l] == 0) maybeFireMerge(f, iter, dst, st);
        return;
      }
      if (!dead) {
        if (st->flags[l] & (kMergeLive | kFired)) return;  // first live input wins
        st->flags[l] |= kMergeLive;
        st->merge_index[l] = slot;
        st->slots[static_cast<size_t>(n.slot_base + slot)] = *value;
      } else {
        ++st->dead_count[l];
      }
      if (st->pending[l] == 0) maybeFireMerge(f, iter, dst, st);
      return;
    }
    if (dead) st->flags[l] |= kAnyDead;
    else if (slot >= 0) st->slots[static_cast<size_t>(n.slot_base + slot)] = *value;
    if (--st->pending[l] == 0) ready_.push_back({f, iter, dst});
  }

  void maybeFireMerge(FrameInst* f, std::int64_t iter, int dst, IterState* st) {
    const Node& n = im_.nodes[static_cast<size_t>(dst)];
    size_t l = static_cast<size_t>(n.local);
    if (st->flags[l] & kFired) return;
    if ((st->flags[l] & kMergeLive) || st->dead_count[l] == n.num_data) {
      st->flags[l] |= kFired;
      ready_.push_back({f, iter, dst});
    }
  }

  // Sends output `port` of node src (run in frame f, iteration iter) to its
  // consumers; `only_data` skips control edges (used when re-sending
  // constant Enter values to a new iteration).
  void deliverOutputs(int src, FrameInst* f, std::int64_t iter, const Entry& e, int port, bool only_data,
                      bool node_dead = false) {
    const Node& n = im_.nodes[static_cast<size_t>(src)];
    FrameInst* tf = f;
    std::int64_t ti = iter;
    if (n.kind == Kind::Enter) {
      if (only_data) {
        ti = iter;  // f is already the child frame
      } else {
        tf = child(f, iter, n.child_frame);
        ti = 0;
      }
    } else if (n.kind == Kind::Exit) {
      tf = f->parent;
      ti = f->parent_iter;
    } else if (n.kind == Kind::NextIteration) {
      ti = iter + 1;
    }
    const auto& outs = n.outs[static_cast<size_t>(port)];
    for (size_t k = 0; k < outs.size(); ++k) deliver(tf, ti, outs[k].dst, outs[k].slot, &e.tensor, e.dead);
    if (!only_data && port == 0)
      for (const OutEdge& c : n.control_outs) deliver(tf, ti, c.dst, -1, nullptr, node_dead);
  }

  void propagate(int src, FrameInst* f, std::int64_t iter, std::vector<Entry>& outputs, bool node_dead) {
    const Node& n = im_.nodes[static_cast<size_t>(src)];
    if (n.kind == Kind::NextIteration && outputs[0].dead) return;  // the loop ends here
    if (n.kind == Kind::Exit) {
      if (outputs[0].dead) {
        f->dead_exits.push_back(src);
        return;
      }
      f->live_exits.insert(src);
    }
    FrameInst* out_frame = n.kind == Kind::Exit ? f->parent : (n.kind == Kind::Enter ? nullptr : f);
    if (out_frame == &root_) {
      for (size_t p = 0; p < outputs.size(); ++p)
        for (int j : n.fetch_slots[p]) {
          fetched_[static_cast<size_t>(j)] = outputs[p].dead ? 2 : 1;
          if (!outputs[p].dead) (*results_)[static_cast<size_t>(j)] = outputs[p].tensor;
        }
    }
    if (n.kind == Kind::Enter) {
      FrameInst* c = child(f, iter, n.child_frame);
      if (n.is_constant) {
        c->constants.push_back({src, outputs[0]});
        for (std::int64_t k = 1; k < static_cast<std::int64_t>(c->iters.size()); ++k)
          deliverOutputs(src, c, k, outputs[0], 0, true);
      }
    }
    bool any_control = !n.control_outs.empty();
    for (size_t p = 0; p < outputs.size(); ++p) {
      if (n.outs[p].empty() && !(p == 0 && any_control)) continue;
      deliverOutputs(src, f, iter, outputs[p], static_cast<int>(p), false, node_dead);
    }
  }

  // When everything has stopped, Exits of frames that only ever saw dead
  // values pass deadness to the parent frame (TensorFlow's dead_exits).
  bool flushDeadExits(FrameInst* root) {
    (void)root;
    bool any = false;
    for (FrameInst* f : all_frames_) {
      if (f->dead_exits_flushed) continue;
      f->dead_exits_flushed = true;
      std::set<int> done;
      for (int x : f->dead_exits) {
        if (f->live_exits.count(x) || !done.insert(x).second) continue;
        Entry dead{Tensor(), true};
        deliverOutputs(x, f, 0, dead, 0, false, true);
        any = true;
      }
    }
    return any;
  }

  Status process(const Ready& r) {
    const Node& n = im_.nodes[static_cast<size_t>(r.node)];
    IterState* st = r.frame->iters[static_cast<size_t>(r.iter)].get();
    size_t l = static_cast<size_t>(n.local);
    std::vector<Entry> outputs(static_cast<size_t>(n.num_outputs));
    Tensor* slots = st->slots.data() + n.slot_base;
    bool dead = (st->flags[l] & kAnyDead) != 0;
    Clock::time_point t0;
    if (profile_) t0 = Clock::now();

    switch (n.kind) {
      case Kind::Feed:
        outputs[0].tensor = (*feeds_)[static_cast<size_t>(n.feed_index)];
        break;
      case Kind::Const:
        if (dead) outputs[0].dead = true;
        else outputs[0].tensor = n.value;
        break;
      case Kind::Enter: case Kind::Exit: case Kind::NextIteration: case Kind::LoopCond:
        outputs[0].dead = dead;
        if (!dead) outputs[0].tensor = std::move(slots[0]);
        break;
      case Kind::Switch: {
        if (dead) {
          outputs[0].dead = outputs[1].dead = true;
          slots[0] = Tensor();
          slots[1] = Tensor();
          break;
        }
        const Tensor& pred = slots[1];
        if (pred.dtype() != tensorflow::DT_BOOL || pred.numElements() != 1)
          return Status::Error(label(*n.def) + ": pred must be a bool scalar, got " + pred.debugString(2));
        int taken = pred.data<bool>()[0] ? 1 : 0;
        outputs[static_cast<size_t>(taken)].tensor = std::move(slots[0]);
        outputs[static_cast<size_t>(1 - taken)].dead = true;
        slots[1] = Tensor();
        break;
      }
      case Kind::Merge: {
        bool live = (st->flags[l] & kMergeLive) != 0 && !(st->flags[l] & kAnyDead);
        if (!live) {
          outputs[0].dead = outputs[1].dead = true;
          break;
        }
        int k = st->merge_index[l];
        outputs[0].tensor = std::move(slots[k]);
        outputs[1].tensor = Tensor::scalar<std::int32_t>(tensorflow::DT_INT32, k);
        for (int s = 0; s < n.num_data; ++s) slots[s] = Tensor();
        break;
      }
      case Kind::Kernel: {
        if (dead) {
          for (auto& o : outputs) o.dead = true;
          for (int s = 0; s < n.num_data; ++s) slots[s] = Tensor();
          break;
        }
        ContextImpl ctx(n, pool_, *im_.buffers, step_, im_.reference);
        ctx.inputs.resize(static_cast<size_t>(n.num_data));
        for (int s = 0; s < n.num_data; ++s) ctx.inputs[static_cast<size_t>(s)] = &slots[s];
        ctx.outputs.resize(static_cast<size_t>(n.num_outputs));
        Status s = n.kernel->compute(ctx);
        if (!s.ok()) {
          if (s.message().rfind("node '", 0) == 0) return s;
          return Status::Error(label(*n.def) + ": " + s.message());
        }
        if (profile_) recordShapes(r.node, ctx);
        for (int k = 0; k < n.num_data; ++k) slots[k] = Tensor();
        for (size_t p = 0; p < outputs.size(); ++p) {
          if (!ctx.outputs[p].valid() && (!n.outs[p].empty() || !n.fetch_slots[p].empty()))
            return Status::Error(label(*n.def) + ": kernel did not produce output " + std::to_string(p));
          outputs[p].tensor = std::move(ctx.outputs[p]);
        }
        break;
      }
    }
    if (profile_) {
      auto t1 = Clock::now();
      NodeRunStats& ns = profile_->nodes[static_cast<size_t>(r.node)];
      // A node visited only to pass deadness on did no work: not a call.
      const bool did_work = !dead && n.kind != Kind::Feed;
      if (did_work && ns.calls == 0)
        ns.start_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t0 - start_).count();
      if (did_work) ++ns.calls;
      ns.duration_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count();
      std::int64_t bytes = 0;
      for (const auto& o : outputs)
        if (!o.dead) bytes += static_cast<std::int64_t>(o.tensor.bytes());
      ns.output_bytes = bytes;
      if (n.kind != Kind::Kernel) {
        ns.output_shapes.resize(outputs.size());
        for (size_t i = 0; i < outputs.size(); ++i) ns.output_shapes[i] = outputs[i].tensor.shape();
      }
    }
    // A Switch is dead only when its inputs are; its untaken output is dead
    // but control edges from it still carry a live signal.
    bool node_dead = n.kind == Kind::Switch ? dead : outputs[0].dead;
    propagate(r.node, r.frame, r.iter, outputs, node_dead);
    return Status::Ok();
  }

  void recordShapes(int node, const ContextImpl& ctx) {
    NodeRunStats& ns = profile_->nodes[static_cast<size_t>(node)];
    ns.input_shapes.resize(ctx.inputs.size());
    for (size_t i = 0; i < ctx.inputs.size(); ++i) ns.input_shapes[i] = ctx.inputs[i]->shape();
    ns.output_shapes.resize(ctx.outputs.size());
    for (size_t i = 0; i < ctx.outputs.size(); ++i) ns.output_shapes[i] = ctx.outputs[i].shape();
    ns.flops += im_.nodes[static_cast<size_t>(node)].kernel->flops(ns.input_shapes, ns.output_shapes);
  }

  Plan::Impl& im_;
  const std::vector<PlanNodeInfo>& infos_;
  const ThreadPool& pool_;
  std::int64_t step_;
  RunProfile* profile_;
  const std::vector<Tensor>* feeds_ = nullptr;
  std::vector<Tensor>* results_ = nullptr;
  std::vector<char> fetched_;
  Clock::time_point start_;
  FrameInst root_;
  std::vector<FrameInst*> all_frames_;
  std::vector<Ready> ready_;
};

}  // namespace

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
  {
    Executor ex(im, infos_, *pool_, step_, profile);
    s = ex.run(feeds, &results);
  }
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
