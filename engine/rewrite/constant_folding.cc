// foldAndFuse's constant folding (grappler's constant_folding.cc): pure ops
// whose inputs are all constants run once, in a plan of their own, and
// become Consts; fed nodes are never constant.
#include "engine/rewrite/fold_and_fuse_impl.h"

namespace gds::engine::fold_and_fuse_impl {

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

}  // namespace

// Replaces the constant nodes that non-constant nodes (or fetches) read by
// Consts holding their values; returns how many nodes stopped running.
int Rewriter::fold() {
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

}  // namespace gds::engine::fold_and_fuse_impl
