// Constant folding and contraction fusion before a Plan compiles a graph
// (see fold_and_fuse.h). Follows grappler's constant_folding.cc (pure ops
// with constant inputs, fed nodes excluded) and remapper.cc (Conv2D /
// DepthwiseConv2dNative / MatMul + BiasAdd [+ Relu|Relu6] into _Fused*; batch
// normalization with constant statistics folded into the filter as
// fold_batch_norms / fold_old_batch_norms do).
#include "engine/rewrite/fold_and_fuse.h"

#include <algorithm>

#include "engine/rewrite/fold_and_fuse_impl.h"
#include "engine/rewrite/fused_nodes.h"

namespace gds::engine {
namespace fold_and_fuse_impl {

Rewriter::Rewriter(const tensorflow::GraphDef& def, const model::Graph& g, const std::vector<std::string>& feeds,
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
bool Rewriter::run(FoldAndFuseStats* stats) {
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
std::shared_ptr<tensorflow::GraphDef> Rewriter::result() {
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

void Rewriter::markNeeded() {
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

void Rewriter::buildConsumers() {
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
int Rewriter::soleConsumer(int i) const {
  const auto& c = consumers_[static_cast<size_t>(i)];
  if (fed_node_.count(i) || fetched_.count(i) || control_consumers_[static_cast<size_t>(i)] || c.size() != 1 ||
      c[0].second != 0 || fed_node_.count(c[0].first) || fused_[static_cast<size_t>(c[0].first)])
    return -1;
  return c[0].first;
}

// True when node i's output 0 and the tensor `input` have the same fully
// known static shape (shape inference over the original graph).
bool Rewriter::sameKnownShape(int i, const std::string& input) {
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
bool Rewriter::constValue(const std::string& input, model::HostTensor* value) const {
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
bool Rewriter::channelVector(const std::string& input, std::int64_t channels, std::vector<float>* out) const {
  model::HostTensor t;
  if (!constValue(input, &t) || t.shape.empty() || t.shape.back() != channels || t.size() != channels) return false;
  out->assign(t.as<float>(), t.as<float>() + channels);
  return true;
}

std::string Rewriter::uniqueName(const std::string& base) {
  std::string name = base;
  for (int k = 1; by_name_.count(name) || used_names_.count(name); ++k) name = base + "_" + std::to_string(k);
  used_names_.insert(name);
  return name;
}

std::string Rewriter::addConst(const std::string& name, const model::HostTensor& value) {
  auto c = std::make_unique<tensorflow::NodeDef>();
  c->set_name(uniqueName(name));
  c->set_op("Const");
  (*c->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  model::encodeTensor(value, (*c->mutable_attr())["value"].mutable_tensor());
  new_consts_.push_back(std::move(c));
  return new_consts_.back()->name();
}

}  // namespace fold_and_fuse_impl

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
  fold_and_fuse_impl::Rewriter rewriter(graph, *g, feeds, fetches, options);
  if (!rewriter.run(stats)) return nullptr;
  return rewriter.result();
}

}  // namespace gds::engine
