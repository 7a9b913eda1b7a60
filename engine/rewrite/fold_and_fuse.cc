// Constant folding and contraction fusion before a Plan compiles a graph
// (see fold_and_fuse.h). Follows grappler's constant_folding.cc (pure ops
// with constant inputs, fed nodes excluded) and remapper.cc (Conv2D /
// DepthwiseConv2dNative / MatMul + BiasAdd [+ Relu|Relu6] into _Fused*; batch
// normalization with constant statistics folded into the filter as
// fold_batch_norms / fold_old_batch_norms do).
#include "engine/rewrite/fold_and_fuse.h"

#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "engine/plan.h"
#include "engine/rewrite/fused_nodes.h"
#include "model/attr.h"
#include "model/conv_tail.h"
#include "model/graph.h"
#include "model/shape_inference.h"
#include "model/tensor.h"

namespace gds::engine {

namespace {

// Pure, deterministic ops worth computing once when their inputs are
// constants (the arithmetic of unfolded batch norms, weight reshapes, ...).
const std::unordered_set<std::string>& foldableOps() {
  static const std::unordered_set<std::string> ops = {
      "Identity", "StopGradient", "Add", "AddV2", "Sub", "Mul", "RealDiv", "Div", "Maximum", "Minimum",
      "Rsqrt", "Sqrt", "Reciprocal", "Square", "Neg", "Abs", "Exp", "Log", "Reshape", "ExpandDims",
      "Squeeze", "Transpose", "Cast", "Pack", "ConcatV2", "Concat", "Fill", "Shape", "Size", "Rank",
      "StridedSlice", "Slice", "Tile", "Pad", "Range", "Sum", "Prod", "Mean", "Max", "Min"};
  return ops;
}

bool isFloatNode(const tensorflow::NodeDef& n) {
  // A "T" of another kind reads as its proto default (not float), so findAttr.
  const tensorflow::AttrValue* t = model::findAttr(n, "T");
  return !t || t->type() == tensorflow::DT_FLOAT;
}

bool isNhwc(const tensorflow::NodeDef& n) {
  const tensorflow::AttrValue* format = model::findAttr(n, "data_format");
  return !format || format->s() == "NHWC";
}

// The working graph: the original nodes (borrowed) or their replacements.
struct Slot {
  const tensorflow::NodeDef* orig = nullptr;
  std::unique_ptr<tensorflow::NodeDef> replacement;
  bool removed = false;
  const tensorflow::NodeDef& def() const { return replacement ? *replacement : *orig; }
};

class Rewriter {
 public:
  Rewriter(const tensorflow::GraphDef& def, const model::Graph& g, const std::vector<std::string>& feeds,
           const std::vector<std::string>& fetches, const PlanOptions& options)
      : def_(def), g_(g), options_(options) {
    for (const auto& f : feeds) {
      model::TensorRef r = model::parseTensorName(f);
      const int i = g.find(r.node);
      if (i >= 0) {
        fed_tensor_.insert({i, r.port});
        fed_node_.insert(i);
      }
    }
    for (const auto& f : fetches) {
      model::TensorRef r = model::parseTensorName(f);
      const int i = g.find(r.node);
      if (i >= 0) {
        fetched_.insert(i);
        fetch_nodes_.push_back(i);
      }
    }
    slots_.resize(static_cast<size_t>(g.size()));
    for (int i = 0; i < g.size(); ++i) slots_[static_cast<size_t>(i)].orig = &g.node(i);
  }

  // True when the graph changed.
  bool run(FoldAndFuseStats* stats) {
    markNeeded();
    const int folded = fold();
    buildConsumers();
    fused_.assign(slots_.size(), 0);
    int fused = 0;
    for (int i : g_.topoOrder())
      if (needed_[static_cast<size_t>(i)] && !slots_[static_cast<size_t>(i)].removed && fuseFrom(i)) ++fused;
    if (stats) {
      stats->folded = folded;
      stats->fused = fused;
    }
    return folded > 0 || fused > 0 || absorbed_pads_ > 0;
  }

  // The nodes the fetches still need (in the original order), new constants
  // after the node they serve, and the fed nodes.
  std::shared_ptr<tensorflow::GraphDef> result() {
    std::unordered_map<std::string, int> by_name;
    std::vector<const tensorflow::NodeDef*> defs;
    for (size_t i = 0; i < slots_.size(); ++i) {
      if (slots_[i].removed) continue;
      by_name[slots_[i].def().name()] = static_cast<int>(defs.size());
      defs.push_back(&slots_[i].def());
    }
    for (const auto& c : new_consts_) {
      by_name[c->name()] = static_cast<int>(defs.size());
      defs.push_back(c.get());
    }
    std::vector<char> keep(defs.size(), 0);
    std::vector<int> stack;
    auto push = [&](const std::string& name) {
      auto it = by_name.find(name);
      if (it != by_name.end() && !keep[static_cast<size_t>(it->second)]) {
        keep[static_cast<size_t>(it->second)] = 1;
        stack.push_back(it->second);
      }
    };
    for (int i : fetch_nodes_) push(g_.name(i));
    for (int i : fed_node_) push(g_.name(i));
    while (!stack.empty()) {
      const tensorflow::NodeDef* n = defs[static_cast<size_t>(stack.back())];
      stack.pop_back();
      for (const auto& in : n->input()) {
        model::TensorRef r = model::parseTensorName(in);
        const int src = g_.find(r.node);
        // Edges from fed tensors are cut, as in Plan's pruning.
        if (src >= 0 && !r.control && fed_tensor_.count({src, r.port})) continue;
        if (src >= 0 && r.control && fed_node_.count(src) &&
            (g_.op(src) == "Placeholder" || g_.op(src) == "PlaceholderV2"))
          continue;
        push(r.node);
      }
    }
    auto out = std::make_shared<tensorflow::GraphDef>();
    *out->mutable_versions() = def_.versions();
    for (size_t i = 0; i < defs.size(); ++i)
      if (keep[i]) *out->add_node() = *defs[i];
    return out;
  }

 private:
  void markNeeded() {
    needed_.assign(static_cast<size_t>(g_.size()), 0);
    std::vector<int> stack;
    for (int i : fetch_nodes_) {
      if (!needed_[static_cast<size_t>(i)]) stack.push_back(i);
      needed_[static_cast<size_t>(i)] = 1;
    }
    while (!stack.empty()) {
      const int n = stack.back();
      stack.pop_back();
      for (const auto& in : g_.inputs(n)) {
        if (!in.control && fed_tensor_.count({in.node, in.port})) continue;
        if (!needed_[static_cast<size_t>(in.node)]) {
          needed_[static_cast<size_t>(in.node)] = 1;
          stack.push_back(in.node);
        }
      }
    }
  }

  // Replaces the constant nodes that non-constant nodes (or fetches) read by
  // Consts holding their values; returns how many nodes stopped running.
  int fold() {
    std::vector<char> constant(static_cast<size_t>(g_.size()), 0);
    for (int i : g_.topoOrder()) {
      if (!needed_[static_cast<size_t>(i)] || fed_node_.count(i)) continue;
      const std::string& op = g_.op(i);
      if (op != "Const" && (!foldableOps().count(op) || g_.inputs(i).empty())) continue;
      bool all = true;
      for (const auto& in : g_.inputs(i)) all = all && constant[static_cast<size_t>(in.node)];
      constant[static_cast<size_t>(i)] = all;
    }
    std::vector<int> frontier;
    int interior = 0;
    for (int i = 0; i < g_.size(); ++i) {
      if (!constant[static_cast<size_t>(i)] || g_.op(i) == "Const") continue;
      bool read_outside = fetched_.count(i) > 0;
      for (const auto& c : g_.consumers(i))
        read_outside = read_outside || (needed_[static_cast<size_t>(c.node)] && !constant[static_cast<size_t>(c.node)]);
      if (read_outside) frontier.push_back(i);
      else ++interior;
    }
    if (frontier.empty()) return 0;
    std::vector<std::string> names;
    for (int i : frontier) names.push_back(g_.name(i));
    PlanOptions sub = options_;
    sub.pool.reset();
    sub.num_threads = 1;
    auto plan = Plan::compile(def_, {}, names, sub);
    if (!plan.ok()) return 0;  // left to the real plan, which reports it
    auto values = (*plan)->run({});
    if (!values.ok()) return 0;
    for (size_t k = 0; k < frontier.size(); ++k) {
      const Tensor& v = (*values)[k];
      if (!v.valid() || v.dtype() == tensorflow::DT_STRING || v.dtype() == tensorflow::DT_RESOURCE) return 0;
    }
    for (size_t k = 0; k < frontier.size(); ++k) {
      // A huge computed constant (Fill, Tile) stays computed: storing it
      // would cost more memory than running it costs time.
      if ((*values)[k].bytes() > (std::size_t{64} << 20)) continue;
      Slot& s = slots_[static_cast<size_t>(frontier[k])];
      auto c = std::make_unique<tensorflow::NodeDef>();
      c->set_name(s.orig->name());
      c->set_op("Const");
      c->set_device(s.orig->device());
      const Tensor& v = (*values)[k];
      (*c->mutable_attr())["dtype"].set_type(v.dtype());
      model::encodeTensor(v.toHost(), (*c->mutable_attr())["value"].mutable_tensor());
      s.replacement = std::move(c);
    }
    // Interior constant nodes are no longer read: result() drops them.
    return static_cast<int>(frontier.size()) + interior;
  }

  void buildConsumers() {
    by_name_.clear();
    consumers_.assign(slots_.size(), {});
    control_consumers_.assign(slots_.size(), 0);
    for (size_t i = 0; i < slots_.size(); ++i) by_name_[slots_[i].def().name()] = static_cast<int>(i);
    for (size_t i = 0; i < slots_.size(); ++i) {
      if (!needed_[i]) continue;
      const auto& node = slots_[i].def();
      for (int k = 0; k < node.input_size(); ++k) {
        model::TensorRef r = model::parseTensorName(node.input(k));
        auto it = by_name_.find(r.node);
        if (it == by_name_.end()) continue;
        if (r.control) ++control_consumers_[static_cast<size_t>(it->second)];
        else consumers_[static_cast<size_t>(it->second)].push_back({static_cast<int>(i), r.port});
      }
    }
  }

  // The one node reading node i (port 0 only), or -1 when i is fed, fetched,
  // read by several nodes, another port, or a control edge.
  int soleConsumer(int i) const {
    const auto& c = consumers_[static_cast<size_t>(i)];
    if (fed_node_.count(i) || fetched_.count(i) || control_consumers_[static_cast<size_t>(i)] || c.size() != 1 ||
        c[0].second != 0 || fed_node_.count(c[0].first) || fused_[static_cast<size_t>(c[0].first)])
      return -1;
    return c[0].first;
  }

  // True when node i's output 0 and the tensor `input` have the same fully
  // known static shape (shape inference over the original graph).
  bool sameKnownShape(int i, const std::string& input) {
    model::TensorRef r = model::parseTensorName(input);
    const int j = g_.find(r.node);
    // A fed tensor's shape is only checked against a Placeholder's (Plan::run).
    if (j < 0 || (fed_node_.count(j) && (g_.op(j) != "Placeholder" || r.port != 0))) return false;
    if (!shapes_) shapes_ = std::make_unique<model::InferredShapes>(model::inferShapes(g_, options_.input_shapes));
    const model::TensorInfo& a = shapes_->at(i, 0);
    const model::TensorInfo& b = shapes_->at(j, r.port);
    return a.fullyKnown() && b.fullyKnown() && a.shape == b.shape && a.dtype == tensorflow::DT_FLOAT &&
           b.dtype == tensorflow::DT_FLOAT;
  }

  // The value of a Const named by an input string (nullopt otherwise).
  bool constValue(const std::string& input, model::HostTensor* value) const {
    model::TensorRef r = model::parseTensorName(input);
    auto it = by_name_.find(r.node);
    if (it == by_name_.end() || r.port != 0) return false;
    const tensorflow::NodeDef& n = slots_[static_cast<size_t>(it->second)].def();
    if (n.op() != "Const" || fed_node_.count(it->second)) return false;
    const tensorflow::AttrValue* a = model::findAttr(n, "value");
    if (!a) return false;
    auto t = model::decodeTensor(a->tensor());
    if (!t.ok() || t->dtype != tensorflow::DT_FLOAT) return false;
    *value = std::move(*t);
    return true;
  }

  // A float vector of `channels` values (shape [C], or [1, ..., 1, C]).
  bool channelVector(const std::string& input, std::int64_t channels, std::vector<float>* out) const {
    model::HostTensor t;
    if (!constValue(input, &t) || t.shape.empty() || t.shape.back() != channels || t.size() != channels) return false;
    out->assign(t.as<float>(), t.as<float>() + channels);
    return true;
  }

  std::string uniqueName(const std::string& base) {
    std::string name = base;
    for (int k = 1; by_name_.count(name) || used_names_.count(name); ++k) name = base + "_" + std::to_string(k);
    used_names_.insert(name);
    return name;
  }

  std::string addConst(const std::string& name, const model::HostTensor& value) {
    auto c = std::make_unique<tensorflow::NodeDef>();
    c->set_name(uniqueName(name));
    c->set_op("Const");
    (*c->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
    model::encodeTensor(value, (*c->mutable_attr())["value"].mutable_tensor());
    new_consts_.push_back(std::move(c));
    return new_consts_.back()->name();
  }

  // A VALID window op (Conv2D, DepthwiseConv2dNative, MaxPool) reading a Pad
  // of its spatial dimensions only, with constant paddings: the op pads
  // instead (EXPLICIT padding, TensorFlow's explicit_paddings [0, 0, top,
  // bottom, left, right, 0, 0]) and the padded copy is never made. A
  // convolution's padding cells are zeros, as Pad's; a max pool's padding
  // cells normally take no part, so the pool is told Pad's value
  // (_padding_value), which its padding cells then hold.
  void absorbPad(int h) {
    const tensorflow::NodeDef& op = slots_[static_cast<size_t>(h)].def();
    const bool pool = op.op() == "MaxPool";
    if (model::attrString(op, "padding") != "VALID" || !isNhwc(op) || !isFloatNode(op)) return;
    model::TensorRef r = model::parseTensorName(op.input(0));
    auto it = by_name_.find(r.node);
    if (it == by_name_.end() || r.port != 0) return;
    const int p = it->second;
    const tensorflow::NodeDef& pad = slots_[static_cast<size_t>(p)].def();
    if (pad.op() != "Pad" || pad.input_size() != 2 || !isFloatNode(pad) || fused_[static_cast<size_t>(p)] ||
        soleConsumer(p) != h)
      return;
    model::TensorRef pr = model::parseTensorName(pad.input(1));
    auto pit = by_name_.find(pr.node);
    if (pit == by_name_.end() || pr.port != 0) return;
    std::vector<std::int64_t> pads;
    if (!spatialPaddings(slots_[static_cast<size_t>(pit->second)].def(), &pads)) return;
    auto replaced = std::make_unique<tensorflow::NodeDef>(op);
    replaced->set_input(0, pad.input(0));
    (*replaced->mutable_attr())["padding"].set_s("EXPLICIT");
    auto* list = (*replaced->mutable_attr())["explicit_paddings"].mutable_list();
    list->clear_i();
    for (std::int64_t v : pads) list->add_i(v);
    if (pool) (*replaced->mutable_attr())["_padding_value"].set_f(0.0f);
    recordFusedNodes({&pad, &op}, op, replaced.get());
    slots_[static_cast<size_t>(h)].replacement = std::move(replaced);
    slots_[static_cast<size_t>(p)].removed = true;
    fused_[static_cast<size_t>(p)] = 1;
    ++absorbed_pads_;
  }

  // The walk's view of the working graph (model/conv_tail.h).
  class Tails : public model::TailGraph {
   public:
    explicit Tails(const Rewriter& r) : r_(r) {}
    const tensorflow::NodeDef& node(int i) const override { return r_.slots_[static_cast<size_t>(i)].def(); }
    int soleConsumer(int i) const override { return r_.soleConsumer(i); }
    int dataInput(int i, int k) const override {
      const tensorflow::NodeDef& n = node(i);
      if (k >= n.input_size() || n.input(k).empty() || n.input(k)[0] == '^') return -1;
      auto it = r_.by_name_.find(model::parseTensorName(n.input(k)).node);
      return it == r_.by_name_.end() ? -1 : it->second;
    }
    std::vector<float> constantChannels(int i, std::int64_t channels, bool) const override {
      std::vector<float> v;
      r_.channelVector(node(i).name(), channels, &v);
      return v;
    }
    bool onlyOutput0Read(int i) const override {
      if (r_.control_consumers_[static_cast<size_t>(i)]) return false;
      for (const auto& c : r_.consumers_[static_cast<size_t>(i)])
        if (c.second != 0) return false;
      return true;
    }

   private:
    const Rewriter& r_;
  };

  // The output channels of contraction `head` (from its filter when that is
  // a constant, else -1) and the filter.
  std::int64_t outputChannels(const tensorflow::NodeDef& head, bool transpose_b, model::HostTensor* filter,
                              bool* filter_const) const {
    *filter_const = constValue(head.input(1), filter);
    if (!*filter_const) return -1;
    const Shape& f = filter->shape;
    if (head.op() == "MatMul") return f.size() == 2 ? (transpose_b ? f[0] : f[1]) : -1;
    if (f.size() != 4) return -1;
    return head.op() == "DepthwiseConv2dNative" ? f[2] * f[3] : f[3];
  }

  // Tries to fuse the chain starting at contraction node h; true when done.
  bool fuseFrom(int h) {
    const std::string& head_op = slots_[static_cast<size_t>(h)].def().op();
    if (head_op == "Conv2D" || head_op == "DepthwiseConv2dNative" || head_op == "MaxPool") absorbPad(h);
    const tensorflow::NodeDef& head = slots_[static_cast<size_t>(h)].def();
    const bool matmul = head.op() == "MatMul";
    if (!model::isConvolutionOp(head.op()) || !isFloatNode(head) || head.input_size() < 2) return false;
    if (!matmul && !isNhwc(head)) return false;
    const bool transpose_b = matmul && model::attrBool(head, "transpose_b", false);
    model::HostTensor filter;
    bool filter_const = false;
    const std::int64_t channels = outputChannels(head, transpose_b, &filter, &filter_const);
    // grappler's remapper: bias adds, per-channel multiplies and batch norms
    // (not after a transposed MatMul, whose weights' channels are rows),
    // then a residual Add (convolutions), then Relu / Relu6.
    model::TailRules rules;
    rules.scale_steps = !transpose_b;
    if (!matmul) rules.residual = [&](int add, int chain) { return !residualAddend(add, chain).empty(); };
    const Tails tails(*this);
    const model::ConvTail tail = model::walkConvTail(tails, h, channels, rules);
    if (tail.steps.empty()) return false;
    if (tail.affine.scaled && !filter_const) return false;
    std::vector<int> chain = {h};
    for (int i : tail.nodes()) chain.push_back(i);
    const std::string addend = tail.residual >= 0 ? residualAddend(tail.residual, tail.steps.back().node) : "";
    const std::string activation = tail.activation >= 0 ? nodeAt(tail.activation).op() : "";
    replaceChain(chain, head, tail.affine, &filter, filter_const, channels, addend, activation);
    return true;
  }

  const tensorflow::NodeDef& nodeAt(int i) const { return slots_[static_cast<size_t>(i)].def(); }

  // The other operand of the Add at `add` whose one operand is `chain`, when
  // it has the chain's (statically known) shape; empty otherwise.
  std::string residualAddend(int add, int chain) {
    const tensorflow::NodeDef& n = nodeAt(add);
    const std::string& name = nodeAt(chain).name();
    const bool a = model::parseTensorName(n.input(0)).node == name, b = model::parseTensorName(n.input(1)).node == name;
    if (a == b) return "";
    const std::string other = n.input(a ? 1 : 0);
    return sameKnownShape(chain, other) ? other : "";
  }

  // Replaces the chain by one _Fused* node named after its last node: the
  // filter scaled per output channel when the tail scales, the tail's bias,
  // the residual addend, the activation.
  void replaceChain(const std::vector<int>& chain, const tensorflow::NodeDef& head, const model::ChannelAffine& affine,
                    model::HostTensor* filter, bool filter_const, std::int64_t channels, const std::string& addend,
                    const std::string& activation) {
    const tensorflow::NodeDef& last = nodeAt(chain.back());
    const bool matmul = head.op() == "MatMul";
    auto fused = std::make_unique<tensorflow::NodeDef>();
    fused->set_name(last.name());
    fused->set_op(matmul ? "_FusedMatMul"
                         : (head.op() == "DepthwiseConv2dNative" ? "_FusedDepthwiseConv2dNative" : "_FusedConv2D"));
    fused->set_device(head.device());
    *fused->mutable_attr() = head.attr();
    fused->add_input(head.input(0));
    if (affine.scaled && filter_const) {
      // Scale each output channel of the filter (the last dimension, or the
      // last two for depthwise: channel c * multiplier + m).
      float* w = filter->as<float>();
      const std::int64_t n = filter->size();
      for (std::int64_t i = 0; i < n; ++i) w[i] *= affine.scale[static_cast<size_t>(i % channels)];
      fused->add_input(addConst(last.name() + "/_fused_filter", *filter));
    } else {
      fused->add_input(head.input(1));
    }
    model::HostTensor bias_tensor = model::HostTensor::zeros(tensorflow::DT_FLOAT, {channels});
    std::copy(affine.bias.begin(), affine.bias.end(), bias_tensor.as<float>());
    fused->add_input(addConst(last.name() + "/_fused_bias", bias_tensor));
    if (!addend.empty()) fused->add_input(addend);
    std::set<std::string> controls;
    std::set<std::string> chain_names;
    for (int i : chain) chain_names.insert(nodeAt(i).name());
    for (int i : chain)
      for (const auto& in : nodeAt(i).input())
        if (!in.empty() && in[0] == '^' && !chain_names.count(in.substr(1))) controls.insert(in);
    for (const auto& c : controls) fused->add_input(c);
    auto& attrs = *fused->mutable_attr();
    attrs["num_args"].set_i(addend.empty() ? 1 : 2);
    auto* list = attrs["fused_ops"].mutable_list();
    list->add_s("BiasAdd");
    if (!addend.empty()) list->add_s("Add");
    if (!activation.empty()) list->add_s(activation);
    std::vector<const tensorflow::NodeDef*> replaced;
    for (int i : chain) replaced.push_back(&nodeAt(i));
    recordFusedNodes(replaced, head, fused.get());
    for (size_t k = 0; k + 1 < chain.size(); ++k) slots_[static_cast<size_t>(chain[k])].removed = true;
    for (int i : chain) fused_[static_cast<size_t>(i)] = 1;
    slots_[static_cast<size_t>(chain.back())].replacement = std::move(fused);
  }

  const tensorflow::GraphDef& def_;
  const model::Graph& g_;
  const PlanOptions& options_;
  std::set<std::pair<int, int>> fed_tensor_;
  std::set<int> fed_node_, fetched_;
  std::vector<int> fetch_nodes_;
  std::vector<char> needed_;
  std::vector<Slot> slots_;
  std::vector<std::unique_ptr<tensorflow::NodeDef>> new_consts_;
  std::unordered_map<std::string, int> by_name_;
  std::unordered_set<std::string> used_names_;
  std::vector<std::vector<std::pair<int, int>>> consumers_;  // (consumer slot, port read)
  std::vector<int> control_consumers_;
  std::vector<char> fused_;  // slots taken into a fused node
  int absorbed_pads_ = 0;
  std::unique_ptr<model::InferredShapes> shapes_;  // computed on first use
};

}  // namespace

bool spatialPaddings(const tensorflow::NodeDef& paddings, std::vector<std::int64_t>* pads) {
  const tensorflow::AttrValue* value = model::findAttr(paddings, "value");
  if (paddings.op() != "Const" || !value) return false;
  auto t = model::decodeTensor(value->tensor());
  if (!t.ok() || t->shape != Shape{4, 2}) return false;
  pads->clear();
  for (std::int64_t i = 0; i < 8; ++i) pads->push_back(static_cast<std::int64_t>(t->valueAt(i)));
  const auto& p = *pads;
  return !p[0] && !p[1] && !p[6] && !p[7] && *std::min_element(p.begin(), p.end()) >= 0;
}

std::shared_ptr<const tensorflow::GraphDef> foldAndFuse(const tensorflow::GraphDef& graph,
                                                        const std::vector<std::string>& feeds,
                                                        const std::vector<std::string>& fetches,
                                                        const PlanOptions& options, FoldAndFuseStats* stats) {
  if (stats) *stats = {};
  auto g = model::Graph::build(graph);
  if (!g.ok()) return nullptr;
  for (const auto& f : fetches)
    if (g->find(model::parseTensorName(f).node) < 0) return nullptr;
  for (const auto& f : feeds)
    if (g->find(model::parseTensorName(f).node) < 0) return nullptr;
  Rewriter rewriter(graph, *g, feeds, fetches, options);
  if (!rewriter.run(stats)) return nullptr;
  return rewriter.result();
}

}  // namespace gds::engine
