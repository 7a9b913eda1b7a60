// Plan compilation: the nodes of a graph that the fetches need become plan
// nodes (engine/plan_impl.h) with kernels, edges, while-loop frames and
// static output types and shapes, in the phases PlanCompiler::run calls in
// order.
#include <algorithm>
#include <map>
#include <utility>

#include "engine/allocation.h"
#include "engine/builtin_kernels.h"
#include "engine/plan_impl.h"
#include "model/attr.h"
#include "model/op_metadata.h"
#include "model/shape_inference.h"

namespace gds::engine {

NodeKind nodeKindOf(const std::string& op) {
  if (op == "Const") return NodeKind::Const;
  if (op == "Switch" || op == "RefSwitch") return NodeKind::Switch;
  if (op == "Merge" || op == "RefMerge") return NodeKind::Merge;
  if (op == "Enter" || op == "RefEnter") return NodeKind::Enter;
  if (op == "Exit" || op == "RefExit") return NodeKind::Exit;
  if (op == "NextIteration" || op == "RefNextIteration") return NodeKind::NextIteration;
  if (op == "LoopCond") return NodeKind::LoopCond;
  return NodeKind::Kernel;
}

std::string nodeLabel(const tensorflow::NodeDef& node) { return "node '" + node.name() + "' (" + node.op() + ")"; }

namespace {

DataType attrType(const tensorflow::NodeDef& node, const char* name) {
  return model::baseDtype(model::attrType(node, name));
}

class InitImpl : public KernelInit {
 public:
  InitImpl(const PlanNode& n, const std::vector<PlanNode>& nodes, const std::vector<PlanNodeInfo>& infos, bool reference,
           bool winograd, lowp::Arithmetic arithmetic, const model::Graph& graph)
      : n_(n), nodes_(nodes), infos_(infos), reference_(reference), winograd_(winograd), arithmetic_(arithmetic),
        graph_(graph) {}
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
    const PlanNode& src = nodes_[static_cast<size_t>(e->src)];
    return src.kind == NodeKind::Const && src.value.valid() ? &src.value : nullptr;
  }
  bool referenceKernels() const override { return reference_; }
  bool winogradAllowed() const override { return winograd_; }
  lowp::Arithmetic arithmetic() const override { return arithmetic_; }
  const tensorflow::NodeDef* inputProducer(int i, int* port) const override {
    if (i < 0 || i >= n_.num_data || i >= n_.def->input_size()) return nullptr;
    const model::TensorRef r = model::parseTensorName(n_.def->input(i));
    const int idx = graph_.find(r.node);
    if (r.control || idx < 0) return nullptr;
    *port = r.port;
    return &graph_.node(idx);
  }

 private:
  const InEdge* edge(int i) const {
    if (i < 0 || i >= n_.num_data) return nullptr;
    const InEdge& e = n_.inputs[static_cast<size_t>(i)];
    if (e.back || e.src < 0) return nullptr;
    return &e;
  }
  const PlanNode& n_;
  const std::vector<PlanNode>& nodes_;
  const std::vector<PlanNodeInfo>& infos_;
  bool reference_;
  bool winograd_;
  lowp::Arithmetic arithmetic_;
  const model::Graph& graph_;
};

// Compiles one graph into a Plan's Impl and node infos; run() calls the
// phases in order, each relying on the ones before it.
class PlanCompiler {
 public:
  PlanCompiler(const tensorflow::GraphDef& def, const model::Graph& g, const std::vector<std::string>& feeds,
               const std::vector<std::string>& fetches, const PlanOptions& options, Plan::Impl& im,
               std::vector<PlanNodeInfo>& infos)
      : def_(def), g_(g), feeds_(feeds), fetches_(fetches), options_(options),
        registry_(options.registry ? *options.registry : builtinKernels()), im_(im), infos_(infos) {}

  Status run() {
    if (fetches_.empty()) return Status::Error("Plan::compile: no fetches given (name at least one output node)");
    GDS_RETURN_IF_ERROR(resolveFeeds());
    GDS_RETURN_IF_ERROR(pruneToFetches());
    GDS_RETURN_IF_ERROR(orderTopologically());
    createNodes();
    connectInputs();
    typeFeeds();
    GDS_RETURN_IF_ERROR(assignFrames());
    GDS_RETURN_IF_ERROR(checkKernelsExist());
    for (size_t i = feeds_.size(); i < im_.nodes.size(); ++i) GDS_RETURN_IF_ERROR(initNode(i));
    GDS_RETURN_IF_ERROR(connectOutputs());
    GDS_RETURN_IF_ERROR(connectFetches());
    countInitialPending();
    return Status::Ok();
  }

 private:
  // Feeds: (graph node, port) -> feed index.
  Status resolveFeeds() {
    for (size_t i = 0; i < feeds_.size(); ++i) {
      model::TensorRef r = model::parseTensorName(feeds_[i]);
      int idx = g_.find(r.node);
      if (r.control || idx < 0)
        return Status::Error("feed '" + feeds_[i] + "': no node named '" + r.node + "' in the graph");
      if (!fed_.emplace(std::make_pair(idx, r.port), static_cast<int>(i)).second)
        return Status::Error("feed '" + feeds_[i] + "' is given twice");
    }
    return Status::Ok();
  }

  // Control edges out of a fed Placeholder come from its feed instead, as in
  // TensorFlow's FeedInputs rewrite (quantize_nodes adds "^input" to Consts):
  // the feed index, or -1.
  int fedControl(const model::Graph::Input& in) const {
    if (!in.control) return -1;
    const std::string& op = g_.op(in.node);
    if (op != "Placeholder" && op != "PlaceholderV2") return -1;
    auto fit = fed_.find({in.node, 0});
    return fit == fed_.end() ? -1 : fit->second;
  }
  // True when input `in` is cut from the graph by a feed.
  bool fedInput(const model::Graph::Input& in) const {
    return (!in.control && fed_.count({in.node, in.port})) || fedControl(in) >= 0;
  }

  // Prune: walk back from the fetches; edges from fed tensors stop the walk.
  Status pruneToFetches() {
    needed_.assign(static_cast<size_t>(g_.size()), 0);
    std::vector<int> stack;
    for (const std::string& f : fetches_) {
      model::TensorRef r = model::parseTensorName(f);
      int idx = g_.find(r.node);
      if (idx < 0) return Status::Error("fetch '" + f + "': no node named '" + r.node + "' in the graph");
      auto fit = fed_.find({idx, r.port});
      if (!r.control && fit != fed_.end()) {
        fetch_refs_.push_back({idx, r.port, fit->second});
        continue;
      }
      fetch_refs_.push_back({idx, r.control ? -1 : r.port, -1});
      if (!needed_[static_cast<size_t>(idx)]) {
        needed_[static_cast<size_t>(idx)] = 1;
        stack.push_back(idx);
      }
    }
    while (!stack.empty()) {
      int n = stack.back();
      stack.pop_back();
      for (const auto& in : g_.inputs(n)) {
        if (fedInput(in)) continue;
        if (!needed_[static_cast<size_t>(in.node)]) {
          needed_[static_cast<size_t>(in.node)] = 1;
          stack.push_back(in.node);
        }
      }
    }
    return Status::Ok();
  }

  // The needed graph nodes in topological order (Kahn's algorithm; edges
  // from NextIteration are loop back edges).
  Status orderTopologically() {
    std::vector<int> indeg(static_cast<size_t>(g_.size()), 0);
    std::vector<std::vector<int>> succ(static_cast<size_t>(g_.size()));
    for (int n = 0; n < g_.size(); ++n) {
      if (!needed_[static_cast<size_t>(n)]) continue;
      for (const auto& in : g_.inputs(n)) {
        if (fedInput(in)) continue;
        if (nodeKindOf(g_.op(in.node)) == NodeKind::NextIteration) continue;
        ++indeg[static_cast<size_t>(n)];
        succ[static_cast<size_t>(in.node)].push_back(n);
      }
    }
    std::vector<int> ready;
    for (int n = g_.size() - 1; n >= 0; --n)
      if (needed_[static_cast<size_t>(n)] && indeg[static_cast<size_t>(n)] == 0) ready.push_back(n);
    while (!ready.empty()) {
      int n = ready.back();
      ready.pop_back();
      order_.push_back(n);
      for (int s : succ[static_cast<size_t>(n)])
        if (--indeg[static_cast<size_t>(s)] == 0) ready.push_back(s);
    }
    int total = static_cast<int>(std::count(needed_.begin(), needed_.end(), 1));
    if (static_cast<int>(order_.size()) != total) {
      for (int n = 0; n < g_.size(); ++n)
        if (needed_[static_cast<size_t>(n)] && indeg[static_cast<size_t>(n)] > 0)
          return Status::Error(nodeLabel(g_.node(n)) + ": part of a cycle that is not a while loop "
                               "(only NextIteration may feed back)");
    }
    return Status::Ok();
  }

  // Plan nodes: the feeds, then the needed graph nodes in order.
  void createNodes() {
    const size_t num_feeds = feeds_.size();
    graph_to_plan_.assign(static_cast<size_t>(g_.size()), -1);
    im_.nodes.resize(num_feeds + order_.size());
    infos_.resize(im_.nodes.size());
    for (size_t i = 0; i < num_feeds; ++i) {
      PlanNode& n = im_.nodes[i];
      n.kind = NodeKind::Feed;
      n.feed_index = static_cast<int>(i);
      im_.feed_nodes.push_back(static_cast<int>(i));
      PlanNodeInfo& info = infos_[i];
      info.name = "feed:" + feeds_[i];
      info.op = "_Feed";
    }
    for (size_t k = 0; k < order_.size(); ++k) {
      size_t pi = num_feeds + k;
      graph_to_plan_[static_cast<size_t>(order_[k])] = static_cast<int>(pi);
      PlanNode& n = im_.nodes[pi];
      n.def = &g_.node(order_[k]);
      n.kind = nodeKindOf(n.def->op());
      PlanNodeInfo& info = infos_[pi];
      info.name = n.def->name();
      info.op = n.def->op();
      info.graph_index = order_[k];
      info.inputs.assign(n.def->input().begin(), n.def->input().end());
      if (n.kind != NodeKind::Kernel && n.kind != NodeKind::Const) im_.has_control_flow = true;
    }
  }

  // In-edges of every graph node: data inputs in order, then control.
  void connectInputs() {
    for (size_t k = 0; k < order_.size(); ++k) {
      PlanNode& n = im_.nodes[feeds_.size() + k];
      std::vector<InEdge> data, control;
      for (const auto& in : g_.inputs(order_[k])) {
        if (!in.control) {
          auto fit = fed_.find({in.node, in.port});
          if (fit != fed_.end()) {
            data.push_back({fit->second, 0, false});
            continue;
          }
        }
        if (int feed = fedControl(in); feed >= 0) {
          control.push_back({feed, -1, false});
          continue;
        }
        int src = graph_to_plan_[static_cast<size_t>(in.node)];
        bool back = nodeKindOf(g_.op(in.node)) == NodeKind::NextIteration;
        if (in.control) control.push_back({src, -1, back});
        else data.push_back({src, in.port, back});
      }
      n.num_data = static_cast<int>(data.size());
      n.num_control = static_cast<int>(control.size());
      n.inputs = std::move(data);
      n.inputs.insert(n.inputs.end(), control.begin(), control.end());
    }
  }

  // Feed types and shapes from the fed node's definition.
  void typeFeeds() {
    for (size_t i = 0; i < feeds_.size(); ++i) {
      model::TensorRef r = model::parseTensorName(feeds_[i]);
      const tensorflow::NodeDef& fd = g_.node(g_.find(r.node));
      auto types = model::outputDtypes(fd, r.port + 1, {});
      DataType t = types.empty() ? tensorflow::DT_INVALID : types.back();
      Shape shape;
      bool known = false;
      auto ov = options_.input_shapes.find(fd.name());
      if (ov != options_.input_shapes.end()) {
        shape = ov->second;
        known = true;
      } else if ((fd.op() == "Placeholder" || fd.op() == "PlaceholderWithDefault") && r.port == 0) {
        if (const auto* declared = model::attrShape(fd, "shape")) {
          shape = model::shapeFromProto(*declared, &known);
          // TensorFlow's Placeholder shape function: graphs up to version 21
          // cannot tell a scalar shape attr from "unknown", so it is unknown.
          if (known && shape.empty() && fd.op() == "Placeholder" && def_.versions().producer() <= 21) known = false;
        }
      }
      im_.feed_types.push_back(t);
      im_.feed_shapes.push_back(shape);
      im_.feed_shape_known.push_back(known);
      PlanNodeInfo& info = infos_[i];
      info.output_types = {t};
      info.output_shapes = {shape};
      info.output_shape_known = {known};
      im_.nodes[i].num_outputs = 1;
    }
  }

  // Static frames (TensorFlow's ControlFlowInfo): Enter moves its consumers
  // into the child frame named frame_name, Exit back to the parent.
  Status assignFrames() {
    im_.frames.push_back(StaticFrame{});
    std::map<std::pair<int, std::string>, int> frame_ids;
    for (size_t i = 0; i < im_.nodes.size(); ++i) {
      PlanNode& n = im_.nodes[i];
      int frame = -1;
      for (const InEdge& e : n.inputs) {
        if (e.back || e.src < 0) continue;
        const PlanNode& src = im_.nodes[static_cast<size_t>(e.src)];
        int f = src.frame;
        if (src.kind == NodeKind::Enter) f = src.child_frame;
        else if (src.kind == NodeKind::Exit) f = im_.frames[static_cast<size_t>(src.frame)].parent;
        if (f < 0)
          return Status::Error(nodeLabel(*n.def) + ": takes an input from Exit node '" + src.def->name() +
                               "' outside of any while loop");
        if (frame < 0) frame = f;
        else if (frame != f)
          return Status::Error(nodeLabel(*n.def) + ": its inputs come from different while-loop frames ('" +
                               im_.frames[static_cast<size_t>(frame)].name + "' and '" +
                               im_.frames[static_cast<size_t>(f)].name + "')");
      }
      if (frame < 0) frame = 0;
      n.frame = frame;
      if (n.kind == NodeKind::Enter) {
        const std::string frame_name = model::attrString(*n.def, "frame_name");
        if (frame_name.empty()) return Status::Error(nodeLabel(*n.def) + ": missing attr 'frame_name'");
        auto key = std::make_pair(frame, frame_name);
        auto fit = frame_ids.find(key);
        if (fit == frame_ids.end()) {
          StaticFrame sf;
          sf.name = frame_name;
          sf.parent = frame;
          const std::int64_t parallel = model::attrInt(*n.def, "parallel_iterations", 0);
          if (parallel > 0) sf.parallel_iterations = parallel;
          im_.frames.push_back(sf);
          fit = frame_ids.emplace(key, static_cast<int>(im_.frames.size() - 1)).first;
        }
        n.child_frame = fit->second;
        n.is_constant = model::attrBool(*n.def, "is_constant", false);
      }
      StaticFrame& sf = im_.frames[static_cast<size_t>(frame)];
      n.local = static_cast<int>(sf.nodes.size());
      n.slot_base = sf.num_slots;
      sf.num_slots += n.num_data;
      sf.nodes.push_back(static_cast<int>(i));
      infos_[i].frame = sf.name;
    }
    return Status::Ok();
  }

  Status noKernelError(const PlanNode& n) const {
    const std::string& op = n.def->op();
    return Status::Error(nodeLabel(*n.def) + ": no kernel for op '" + op +
                         "' in the interpreter; if the node is not needed for inference, remove it "
                         "(strip_unused_nodes with the right inputs/outputs, or remove_nodes(op=" + op + "))");
  }

  // Ops without a kernel first: for a training graph that is the actionable
  // error, more than an unfed label Placeholder.
  Status checkKernelsExist() const {
    for (size_t i = feeds_.size(); i < im_.nodes.size(); ++i) {
      const PlanNode& n = im_.nodes[i];
      const std::string& op = n.def->op();
      if (n.kind != NodeKind::Kernel || registry_.hasOp(op)) continue;
      if (op == "VariableV2" || op == "Variable" || op == "VarHandleOp" || op == "ReadVariableOp" ||
          op == "VarIsInitializedOp")
        return Status::Error(nodeLabel(*n.def) + ": no kernel for op '" + op +
                             "': the graph reads variables; freeze it first (gdstudio freeze, with its checkpoint) "
                             "so the weights become Consts");
      return noKernelError(n);
    }
    return Status::Ok();
  }

  // Node i's kernel (or Const value), output types and static shapes; nodes
  // are initialized in topological order, so their inputs' are known.
  Status initNode(size_t i) {
    PlanNode& n = im_.nodes[i];
    PlanNodeInfo& info = infos_[i];
    if (n.kind == NodeKind::Const) {
      auto value = constTensor(*n.def, im_.owned_graph);
      if (!value.ok()) return value.status();
      n.value = std::move(value).value();
      n.num_outputs = 1;
      info.output_types = {n.value.dtype()};
      info.output_shapes = {n.value.shape()};
      info.output_shape_known = {true};
      return Status::Ok();
    }
    InitImpl init(n, im_.nodes, infos_, options_.reference_kernels, options_.winograd, options_.arithmetic, g_);
    GDS_RETURN_IF_ERROR(checkInputCount(n));
    if (n.kind == NodeKind::Kernel) {
      GDS_RETURN_IF_ERROR(createKernel(n, init));
      n.num_outputs = std::max(1, n.kernel->numOutputs(init));
      if (n.num_outputs > model::kMaxNodeOutputs)
        return Status::Error(nodeLabel(*n.def) + ": has " + std::to_string(n.num_outputs) + " outputs; at most " +
                             std::to_string(model::kMaxNodeOutputs) + " are supported");
    } else {
      n.num_outputs = (n.kind == NodeKind::Switch || n.kind == NodeKind::Merge) ? 2 : 1;
    }
    std::vector<DataType> in_types;
    for (int k = 0; k < n.num_data; ++k) in_types.push_back(init.inputType(k));
    std::vector<DataType> types;
    if (n.kernel) types = n.kernel->outputTypes(init);
    if (static_cast<int>(types.size()) != n.num_outputs) types = model::outputDtypes(*n.def, n.num_outputs, in_types);
    info.output_types = types;
    inferShapes(n, init, &info);
    return Status::Ok();
  }

  // What control-flow nodes (and an unfed Placeholder) need to be run.
  Status checkInputCount(const PlanNode& n) const {
    if (n.def->op() == "Placeholder")
      return Status::Error(nodeLabel(*n.def) + ": must be fed: it is a Placeholder of type " +
                           model::dtypeName(attrType(*n.def, "dtype")) +
                           " that the fetches need; add it to the inputs");
    if (n.kind == NodeKind::Switch && n.num_data != 2)
      return Status::Error(nodeLabel(*n.def) + ": expects 2 inputs (data, pred), has " + std::to_string(n.num_data));
    if ((n.kind == NodeKind::Enter || n.kind == NodeKind::Exit || n.kind == NodeKind::NextIteration ||
         n.kind == NodeKind::LoopCond) && n.num_data != 1)
      return Status::Error(nodeLabel(*n.def) + ": expects 1 input, has " + std::to_string(n.num_data));
    if (n.kind == NodeKind::Merge && n.num_data < 1)
      return Status::Error(nodeLabel(*n.def) + ": expects at least 1 input");
    // Kernels read the inputs their op declares: a node with fewer (or more)
    // than the op's input args is refused here, as TensorFlow's importer does.
    if (n.kind == NodeKind::Kernel)
      if (std::string wrong = model::OpRegistry::instance().inputCountError(n.def->op(), n.num_data); !wrong.empty())
        return Status::Error(nodeLabel(*n.def) + ": " + wrong);
    return Status::Ok();
  }

  // The registry's kernel for the node's op and dtype, initialized.
  Status createKernel(PlanNode& n, const InitImpl& init) const {
    const std::string& op = n.def->op();
    if (!registry_.hasOp(op)) return noKernelError(n);
    DataType t = init.typeAttr();
    const KernelFactory* factory = registry_.find(op, t);
    if (!factory)
      return Status::Error(nodeLabel(*n.def) + ": op '" + op + "' has no kernel for dtype " + model::dtypeName(t) +
                           "; convert the graph to a supported type or remove the node (remove_nodes)");
    n.kernel = (*factory)();
    Status s;
    // Kernels that prepare their constant inputs (packed weights, tables)
    // allocate here: sizes beyond the memory budget are this node's error.
    try {
      s = n.kernel->init(init);
    } catch (const AllocationRefused& e) {
      s = Status::Error(e.what());
    }
    if (!s.ok()) {
      if (s.message().rfind("node '", 0) == 0) return s;
      return Status::Error(nodeLabel(*n.def) + ": " + s.message());
    }
    return Status::Ok();
  }

  // Static output shapes: the kernel's, else a control-flow node passes its
  // data input's on (Merge's second output is the scalar value_index).
  void inferShapes(const PlanNode& n, const InitImpl& init, PlanNodeInfo* info) const {
    info->output_shapes.assign(static_cast<size_t>(n.num_outputs), Shape{});
    info->output_shape_known.assign(static_cast<size_t>(n.num_outputs), false);
    std::vector<Shape> shapes;
    if (n.kernel && n.kernel->inferShapes(init, &shapes) && static_cast<int>(shapes.size()) == n.num_outputs) {
      info->output_shapes = shapes;
      info->output_shape_known.assign(shapes.size(), true);
    } else if (n.kind == NodeKind::Enter || n.kind == NodeKind::Exit || n.kind == NodeKind::Switch ||
               (n.kind == NodeKind::Merge && n.num_data > 0 && !n.inputs[0].back)) {
      Shape s;
      if (init.inputShape(0, &s)) {
        for (int p = 0; p < (n.kind == NodeKind::Switch ? 2 : 1); ++p) {
          info->output_shapes[static_cast<size_t>(p)] = s;
          info->output_shape_known[static_cast<size_t>(p)] = true;
        }
      }
    }
    if (n.kind == NodeKind::Merge) {
      info->output_shapes[1] = {};
      info->output_shape_known[1] = true;
    }
  }

  // Output edges; checks that every port read exists.
  Status connectOutputs() {
    for (auto& n : im_.nodes) {
      n.outs.assign(static_cast<size_t>(n.num_outputs), {});
      n.fetch_slots.assign(static_cast<size_t>(n.num_outputs), {});
    }
    for (size_t i = 0; i < im_.nodes.size(); ++i) {
      PlanNode& n = im_.nodes[i];
      for (size_t k = 0; k < n.inputs.size(); ++k) {
        const InEdge& e = n.inputs[k];
        PlanNode& src = im_.nodes[static_cast<size_t>(e.src)];
        if (e.port < 0) {
          src.control_outs.push_back({static_cast<int>(i), -1});
          continue;
        }
        if (e.port >= src.num_outputs)
          return Status::Error(nodeLabel(*n.def) + ": input " + std::to_string(k) + " reads output " +
                               std::to_string(e.port) + " of '" + infos_[static_cast<size_t>(e.src)].name +
                               "', which has " + std::to_string(src.num_outputs) + " output(s)");
        src.outs[static_cast<size_t>(e.port)].push_back({static_cast<int>(i), static_cast<int>(k)});
      }
    }
    return Status::Ok();
  }

  // Where each fetch comes from; fetches must be outside while loops.
  Status connectFetches() {
    for (size_t j = 0; j < fetch_refs_.size(); ++j) {
      const FetchRef& f = fetch_refs_[j];
      int pn = f.feed >= 0 ? f.feed : graph_to_plan_[static_cast<size_t>(f.node)];
      int port = f.feed >= 0 ? 0 : f.port;
      PlanNode& n = im_.nodes[static_cast<size_t>(pn)];
      int out_frame = n.kind == NodeKind::Exit ? im_.frames[static_cast<size_t>(n.frame)].parent
                      : (n.kind == NodeKind::Enter ? n.child_frame : n.frame);
      if (out_frame != 0 && port >= 0)
        return Status::Error("fetch '" + fetches_[j] + "' is inside while loop '" +
                             im_.frames[static_cast<size_t>(std::max(out_frame, n.frame))].name +
                             "'; fetch the loop's Exit outputs instead");
      if (port >= n.num_outputs)
        return Status::Error("fetch '" + fetches_[j] + "': node has only " + std::to_string(n.num_outputs) +
                             " output(s)");
      im_.fetches.push_back({pn, port});
      if (port >= 0) n.fetch_slots[static_cast<size_t>(port)].push_back(static_cast<int>(j));
    }
    return Status::Ok();
  }

  // Initial pending counts per frame: every input must arrive; a Merge waits
  // for its control inputs and one live data input.
  void countInitialPending() {
    for (auto& sf : im_.frames) {
      sf.initial_pending.resize(sf.nodes.size());
      for (size_t l = 0; l < sf.nodes.size(); ++l) {
        const PlanNode& n = im_.nodes[static_cast<size_t>(sf.nodes[l])];
        sf.initial_pending[l] = n.kind == NodeKind::Merge ? n.num_control : n.num_data + n.num_control;
      }
    }
  }

  struct FetchRef {
    int node;
    int port;  // -1: a target ("^node")
    int feed;  // >= 0: the fetch is a fed tensor
  };

  const tensorflow::GraphDef& def_;
  const model::Graph& g_;
  const std::vector<std::string>& feeds_;
  const std::vector<std::string>& fetches_;
  const PlanOptions& options_;
  const KernelRegistry& registry_;
  Plan::Impl& im_;
  std::vector<PlanNodeInfo>& infos_;
  std::map<std::pair<int, int>, int> fed_;  // (graph node, port) -> feed index
  std::vector<char> needed_;                // per graph node
  std::vector<FetchRef> fetch_refs_;
  std::vector<int> order_;                  // needed graph nodes, topologically
  std::vector<int> graph_to_plan_;
};

}  // namespace

Status compilePlan(const tensorflow::GraphDef& def, const model::Graph& graph, const std::vector<std::string>& feeds,
                   const std::vector<std::string>& fetches, const PlanOptions& options, Plan::Impl& im,
                   std::vector<PlanNodeInfo>& infos) {
  return PlanCompiler(def, graph, feeds, fetches, options, im, infos).run();
}

}  // namespace gds::engine
