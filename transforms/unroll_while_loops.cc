// unroll_while_loops(max_iterations=10000, max_nodes=500000): replaces every TensorFlow 1.x
// while loop (an Enter/Merge/Switch/LoopCond/NextIteration/Exit frame, as
// tf.while_loop and tf.nn.dynamic_rnn build it and as lowering a TF2 While
// leaves it) whose number of iterations constants decide by that many copies
// of its body, then rewrites the TensorArray and TensorList ops the copies
// read and write at constant positions into Unpack, Identity and Pack of the
// element tensors. The result holds only dataflow ops, which TensorFlow
// Lite's builtins and every 8-bit path know (tf.nn.static_rnn's form).
//
// The trip count is found by running the loop's condition and the loop
// variables it reads (a counter, a bound) on the interpreter, starting from
// the constants that enter the loop; a condition that reads data is refused
// with the node it reads. Copies are named "<loop scope>/step_<k>/<rest>" so
// that each iteration is a scope of its own in the graph view; an Exit keeps
// its name (an Identity of the last iteration's value), so what follows the
// loop is unchanged. Needs --outputs (constants are folded between the two
// rewrites so that positions become constants). Loops inside loops are
// refused, and so is a graph the copies would grow by more than max_nodes.
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "engine/rewrite/optimize_for_inference.h"
#include "model/attr.h"
#include "model/graph.h"
#include "model/shape_inference.h"
#include "transforms/builtin.h"
#include "transforms/transform_utils.h"

namespace gds::transforms {
namespace {

using model::Graph;

bool isOp(const Graph& g, int i, const char* op) { return g.op(i) == op; }
std::string tensorName(const std::string& node, int port) { return model::TensorRef{node, port, false}.str(); }

// A loop variable: Merge(Enter, NextIteration) -> Switch(., LoopCond) ->
// output 1 into the body, output 0 into Exit.
struct LoopVar {
  int merge = -1, enter = -1, next = -1, sw = -1, exit = -1;
};

struct Frame {
  std::string name;
  int parent = 0;
  std::vector<int> nodes;  // in topological order, Exits included
  std::vector<int> enters;
  std::vector<LoopVar> vars;
  int loop_cond = -1;
};

// TensorFlow's ControlFlowInfo: Enter moves its consumers into the frame
// it names, Exit back to the parent. Frame 0 is the graph itself.
struct Frames {
  std::vector<Frame> frames;
  std::vector<int> of;           // frame of each node
  std::vector<int> enter_child;  // the frame an Enter opens, else -1
};

Frames findFrames(const Graph& g) {
  Frames f;
  f.frames.push_back(Frame{});
  f.of.assign(static_cast<std::size_t>(g.size()), 0);
  f.enter_child.assign(static_cast<std::size_t>(g.size()), -1);
  std::map<std::pair<int, std::string>, int> ids;
  for (int i : g.topoOrder()) {
    int frame = -1;
    for (const auto& in : g.inputs(i)) {
      if (isOp(g, in.node, "NextIteration")) continue;  // back edge
      int src = f.of[static_cast<std::size_t>(in.node)];
      if (isOp(g, in.node, "Enter")) src = f.enter_child[static_cast<std::size_t>(in.node)];
      else if (isOp(g, in.node, "Exit")) src = f.frames[static_cast<std::size_t>(src)].parent;
      if (frame < 0 || !in.control) frame = src;
      if (!in.control) break;
    }
    if (frame < 0) frame = 0;
    f.of[static_cast<std::size_t>(i)] = frame;
    if (isOp(g, i, "Enter")) {
      const std::string name = model::attrString(g.node(i), "frame_name");
      auto key = std::make_pair(frame, name);
      auto it = ids.find(key);
      if (it == ids.end()) {
        Frame fr;
        fr.name = name;
        fr.parent = frame;
        f.frames.push_back(fr);
        it = ids.emplace(key, static_cast<int>(f.frames.size() - 1)).first;
      }
      f.enter_child[static_cast<std::size_t>(i)] = it->second;
      f.frames[static_cast<std::size_t>(it->second)].enters.push_back(i);
    }
  }
  for (int i : g.topoOrder()) {
    const int frame = f.of[static_cast<std::size_t>(i)];
    if (frame != 0) f.frames[static_cast<std::size_t>(frame)].nodes.push_back(i);
  }
  return f;
}

std::string loopLabel(const Frame& fr) { return "the while loop '" + fr.name + "'"; }

// Merges, Switches, Exits and the LoopCond of each loop.
Status findLoopVars(const Graph& g, const Frames& frames, Frame* fr, int id) {
  std::map<int, int> var_of_merge;
  for (int i : fr->nodes) {
    if (isOp(g, i, "LoopCond")) {
      if (fr->loop_cond >= 0) return Status::Error(loopLabel(*fr) + " has two LoopCond nodes");
      fr->loop_cond = i;
    }
    if (!isOp(g, i, "Merge")) continue;
    LoopVar v;
    v.merge = i;
    for (const auto& in : g.inputs(i)) {
      if (in.control) continue;
      if (isOp(g, in.node, "Enter") && frames.enter_child[static_cast<std::size_t>(in.node)] == id) v.enter = in.node;
      else if (isOp(g, in.node, "NextIteration")) v.next = in.node;
    }
    if (v.enter < 0 || v.next < 0)
      return Status::Error("node '" + g.name(i) + "' (Merge) of " + loopLabel(*fr) +
                           " does not merge an Enter with a NextIteration");
    var_of_merge[i] = static_cast<int>(fr->vars.size());
    fr->vars.push_back(v);
  }
  if (fr->loop_cond < 0) return Status::Error(loopLabel(*fr) + " has no LoopCond");
  for (int i : fr->nodes) {
    if (isOp(g, i, "Switch")) {
      const auto& ins = g.inputs(i);
      auto it = ins.empty() ? var_of_merge.end() : var_of_merge.find(ins[0].node);
      if (it == var_of_merge.end())
        return Status::Error("node '" + g.name(i) + "' (Switch) of " + loopLabel(*fr) +
                             " does not switch a loop variable; gdstudio unrolls loops without tf.cond inside");
      fr->vars[static_cast<std::size_t>(it->second)].sw = i;
    }
  }
  for (int i : fr->nodes)
    if (isOp(g, i, "Exit")) {
      const auto& ins = g.inputs(i);
      bool found = false;
      for (auto& v : fr->vars)
        if (!ins.empty() && ins[0].node == v.sw) v.exit = i, found = true;
      if (!found) return Status::Error("node '" + g.name(i) + "' (Exit) of " + loopLabel(*fr) + " reads no loop variable");
    }
  return Status::Ok();
}

// How the body's references resolve in one iteration.
class Unroller {
 public:
  Unroller(const Graph& g, const Frames& frames, int id, std::unordered_set<std::string>* names)
      : g_(g), frames_(frames), id_(id), fr_(frames.frames[static_cast<std::size_t>(id)]), names_(names) {
    for (std::size_t k = 0; k < fr_.vars.size(); ++k) {
      var_of_[fr_.vars[k].merge] = static_cast<int>(k);
      if (fr_.vars[k].sw >= 0) var_of_[fr_.vars[k].sw] = static_cast<int>(k);
    }
    scope_ = fr_.name;
    const std::string suffix = "/while_context";
    if (scope_.size() > suffix.size() && scope_.compare(scope_.size() - suffix.size(), suffix.size(), suffix) == 0)
      scope_.resize(scope_.size() - suffix.size());
  }

  Result<std::int64_t> tripCount(std::int64_t max_iterations);
  // *node_budget: how many nodes the copies may still add.
  Status emit(std::int64_t trips, std::int64_t* node_budget, GraphDef* out);

 private:
  bool inFrame(int i) const { return frames_.of[static_cast<std::size_t>(i)] == id_; }
  bool isEnter(int i) const { return frames_.enter_child[static_cast<std::size_t>(i)] == id_; }
  // The data input of an Enter that is a loop-invariant constant, as a tensor name.
  std::string enterInput(int enter) const { return g_.node(enter).input(0); }
  // In-frame nodes the given tensors need, stopping at loop variables and
  // Enters, in topological order; the variables reached go to *vars.
  Result<std::vector<int>> cone(const std::vector<int>& roots, std::set<int>* vars) const;
  std::string cloneName(int node, std::int64_t k);

  const Graph& g_;
  const Frames& frames_;
  int id_;
  const Frame& fr_;
  std::unordered_set<std::string>* names_;
  std::map<int, int> var_of_;  // Merge/Switch node -> variable
  std::string scope_;
};

Result<std::vector<int>> Unroller::cone(const std::vector<int>& roots, std::set<int>* vars) const {
  std::set<int> seen;
  std::vector<int> stack(roots);
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    if (seen.count(i)) continue;
    auto v = var_of_.find(i);
    if (v != var_of_.end()) {
      if (vars) vars->insert(v->second);
      continue;
    }
    if (isEnter(i) || !inFrame(i)) continue;
    if (isOp(g_, i, "LoopCond") || isOp(g_, i, "NextIteration") || isOp(g_, i, "Exit"))
      return Status::Error("node '" + g_.name(i) + "' (" + g_.op(i) + ") of " + loopLabel(fr_) +
                           " is read inside the loop's body");
    seen.insert(i);
    for (const auto& in : g_.inputs(i))
      if (!in.control) stack.push_back(in.node);
  }
  std::vector<int> order;
  for (int i : fr_.nodes)
    if (seen.count(i)) order.push_back(i);
  return order;
}

Result<std::int64_t> Unroller::tripCount(std::int64_t max_iterations) {
  // The condition and, transitively, the variables it reads and their updates.
  std::set<int> vars;
  auto cond = cone({g_.inputs(fr_.loop_cond).at(0).node}, &vars);
  if (!cond.ok()) return cond.status();
  std::set<int> nodes(cond->begin(), cond->end());
  for (std::set<int> done; done != vars;) {
    std::set<int> todo;
    for (int v : vars)
      if (!done.count(v)) todo.insert(v);
    for (int v : todo) {
      done.insert(v);
      auto c = cone({g_.inputs(fr_.vars[static_cast<std::size_t>(v)].next).at(0).node}, &vars);
      if (!c.ok()) return c.status();
      nodes.insert(c->begin(), c->end());
    }
  }
  const std::string cond_name = g_.node(fr_.loop_cond).input(0);
  auto notConstant = [&](const std::string& what) {
    return Status::Error(loopLabel(fr_) + " runs while '" + cond_name + "' holds, which depends on '" + what +
                         "', not a constant: its number of iterations is not fixed, so it cannot be unrolled "
                         "(give the model's inputs static shapes, and no sequence lengths)");
  };
  // The program: a Placeholder per variable, the Consts entering the loop.
  auto program = std::make_shared<GraphDef>();
  std::vector<std::string> feeds;
  std::vector<model::HostTensor> values;
  std::map<int, std::string> var_feed;
  auto constOf = [&](const std::string& tensor) -> std::optional<model::HostTensor> {
    const int src = g_.find(model::nodeNameOf(tensor));
    if (src < 0 || g_.op(src) != "Const" || model::parseTensorName(tensor).port != 0) return std::nullopt;
    auto t = tensorAttr(g_.node(src));
    if (!t.ok()) return std::nullopt;
    return *t;
  };
  for (int v : vars) {
    const LoopVar& lv = fr_.vars[static_cast<std::size_t>(v)];
    auto init = constOf(enterInput(lv.enter));
    if (!init) return notConstant(std::string(model::nodeNameOf(enterInput(lv.enter))));
    NodeDef* p = program->add_node();
    p->set_name("var" + std::to_string(v));
    p->set_op("Placeholder");
    setTypeAttr(p, "dtype", init->dtype);
    feeds.push_back(p->name());
    values.push_back(*init);
    var_feed[v] = p->name();
  }
  std::map<int, std::string> enter_const;
  auto ref = [&](const Graph::Input& r) -> Result<std::string> {
    auto v = var_of_.find(r.node);
    if (v != var_of_.end()) return var_feed.at(v->second);
    if (isEnter(r.node)) {
      auto it = enter_const.find(r.node);
      if (it != enter_const.end()) return it->second;
      auto c = constOf(enterInput(r.node));
      if (!c) return notConstant(std::string(model::nodeNameOf(enterInput(r.node))));
      const std::string name = "enter" + std::to_string(enter_const.size());
      *program->add_node() = makeConst(name, *c);
      return enter_const[r.node] = name;
    }
    if (!inFrame(r.node)) {
      if (g_.op(r.node) != "Const") return notConstant(g_.name(r.node));
      if (!enter_const.count(r.node)) {
        *program->add_node() = g_.node(r.node);
        enter_const[r.node] = g_.name(r.node);
      }
      return tensorName(g_.name(r.node), r.port);
    }
    return tensorName(g_.name(r.node), r.port);
  };
  for (int i : fr_.nodes) {
    if (!nodes.count(i)) continue;
    NodeDef node = g_.node(i);
    node.clear_input();
    node.clear_device();
    for (const auto& in : g_.inputs(i)) {
      if (in.control) continue;
      auto r = ref(in);
      if (!r.ok()) return r.status();
      node.add_input(*r);
    }
    *program->add_node() = std::move(node);
  }
  std::vector<std::string> fetches;
  auto fetchOf = [&](int node) -> Result<std::string> {
    const auto& in = g_.inputs(node).at(0);
    return ref(in);
  };
  auto c = fetchOf(fr_.loop_cond);
  if (!c.ok()) return c.status();
  fetches.push_back(*c);
  for (int v : vars) {
    auto n = fetchOf(fr_.vars[static_cast<std::size_t>(v)].next);
    if (!n.ok()) return n.status();
    fetches.push_back(*n);
  }
  auto plan = engine::compileForInference(program, feeds, fetches);
  if (!plan.ok()) return Status::Error(loopLabel(fr_) + ": its condition cannot be evaluated: " + plan.error());
  for (std::int64_t k = 0;; ++k) {
    std::vector<engine::Tensor> in;
    for (const auto& v : values) in.push_back(engine::Tensor::fromHost(v));
    auto out = (*plan)->run(in);
    if (!out.ok()) return Status::Error(loopLabel(fr_) + ": its condition cannot be evaluated: " + out.error());
    const model::HostTensor pred = (*out)[0].toHost();
    if (pred.size() != 1) return Status::Error(loopLabel(fr_) + ": its condition '" + cond_name + "' is not a scalar");
    if (pred.valueAt(0) == 0) return k;
    if (k >= max_iterations)
      return Status::Error(loopLabel(fr_) + " runs more than " + std::to_string(max_iterations) +
                           " iterations (max_iterations)");
    for (std::size_t j = 0; j < values.size(); ++j) values[j] = (*out)[j + 1].toHost();
  }
}

std::string Unroller::cloneName(int node, std::int64_t k) {
  const std::string& name = g_.name(node);
  const std::string step = "step_" + std::to_string(k);
  if (name.size() > scope_.size() + 1 && name.compare(0, scope_.size() + 1, scope_ + "/") == 0)
    return claimName(scope_ + "/" + step + name.substr(scope_.size()), names_);
  return claimName(name + "/" + step, names_);
}

Status Unroller::emit(std::int64_t trips, std::int64_t* node_budget, GraphDef* out) {
  std::vector<int> roots;
  for (const auto& v : fr_.vars) roots.push_back(g_.inputs(v.next).at(0).node);
  auto body = cone(roots, nullptr);
  if (!body.ok()) return body.status();
  const std::int64_t adds = trips * static_cast<std::int64_t>(body->size());
  if (adds > *node_budget)
    return Status::Error("unrolling " + loopLabel(fr_) + " would add " + std::to_string(adds) + " nodes (" +
                         std::to_string(trips) + " iterations of " + std::to_string(body->size()) +
                         "), more than max_nodes allows");
  *node_budget -= adds;
  std::vector<std::string> values;
  for (const auto& v : fr_.vars) values.push_back(enterInput(v.enter));
  std::map<int, std::string> clone;
  auto ref = [&](const Graph::Input& r) -> Result<std::string> {
    auto v = var_of_.find(r.node);
    if (v != var_of_.end()) {
      if (r.node == fr_.vars[static_cast<std::size_t>(v->second)].sw && r.port != 1)
        return Status::Error("node '" + g_.name(r.node) + "' (Switch) of " + loopLabel(fr_) +
                             ": its output 0 feeds more than an Exit");
      return values[static_cast<std::size_t>(v->second)];
    }
    if (isEnter(r.node)) {
      if (model::attrBool(g_.node(r.node), "is_constant", false)) return enterInput(r.node);
      return Status::Error("node '" + g_.name(r.node) + "' (Enter) of " + loopLabel(fr_) +
                           " is read by the body but is not a loop variable nor constant");
    }
    auto c = clone.find(r.node);
    if (c != clone.end()) return tensorName(c->second, r.port);
    if (inFrame(r.node))
      return Status::Error("node '" + g_.name(r.node) + "' (" + g_.op(r.node) + ") of " + loopLabel(fr_) +
                           " is read by the body but belongs to the loop's condition");
    return tensorName(g_.name(r.node), r.port);
  };
  for (std::int64_t k = 0; k < trips; ++k) {
    clone.clear();
    for (int i : *body) clone[i] = cloneName(i, k);
    for (int i : *body) {
      NodeDef node = g_.node(i);
      node.set_name(clone[i]);
      node.clear_input();
      for (const auto& in : g_.inputs(i)) {
        if (in.control) {
          // Control edges inside the loop only place a node in its frame.
          if (!inFrame(in.node) && !isEnter(in.node)) node.add_input("^" + g_.name(in.node));
          continue;
        }
        auto r = ref(in);
        if (!r.ok()) return r.status();
        node.add_input(*r);
      }
      *out->add_node() = std::move(node);
    }
    std::vector<std::string> next;
    for (const auto& v : fr_.vars) {
      const auto& in = g_.inputs(v.next).at(0);
      auto r = ref(in);
      if (!r.ok()) return r.status();
      next.push_back(*r);
    }
    values = std::move(next);
  }
  for (std::size_t k = 0; k < fr_.vars.size(); ++k) {
    const LoopVar& v = fr_.vars[k];
    if (v.exit < 0) continue;
    NodeDef exit;
    exit.set_name(g_.name(v.exit));
    exit.set_op("Identity");
    exit.add_input(values[k]);
    copyAttr(g_.node(v.exit), "T", "T", &exit);
    *out->add_node() = std::move(exit);
  }
  return Status::Ok();
}

// --- TensorArray / TensorList elements --------------------------------------

const std::set<std::string>& arrayOps() {
  static const std::set<std::string> ops = {
      "TensorArrayV3",        "TensorArrayScatterV3", "TensorArrayReadV3",    "TensorArrayWriteV3",
      "TensorArrayGatherV3",  "TensorArraySizeV3",    "TensorListReserve",    "TensorListFromTensor",
      "TensorListGetItem",    "TensorListSetItem",    "TensorListStack",      "TensorListGather",
      "TensorListLength",     "TensorListPushBack",   "EmptyTensorList",      "TensorArrayCloseV3"};
  return ops;
}

// The element tensors of an array at one point of its history.
struct Elements {
  std::vector<std::string> items;  // "" where nothing was written
  bool fixed = true;               // a TensorArray/Reserve size, else grows
  int root = -1;                   // the node that made the array
};

class ArrayResolver {
 public:
  // `final`: no loop remains, every array op must resolve; otherwise one
  // whose array or length is not known yet waits for the next round.
  ArrayResolver(const GraphDef& graph, bool final) : graph_(graph), final_(final) {}
  // Arrays that flow into a loop not unrolled yet are left as they are.
  Result<GraphDef> run();

 private:
  Result<std::vector<std::int64_t>> positions(int node, int input) const;
  std::string where(int i) const { return "node '" + g_->name(i) + "' (" + g_->op(i) + ")"; }
  Result<std::shared_ptr<Elements>> stateOf(int node, int input) const;
  Result<std::string> itemAt(int node, const Elements& e, std::int64_t k) const;
  Status unpack(int node, int value_input, const char* type_attr, std::vector<std::string>* items);
  // One node in topological order: Identity and other ops pass arrays on or
  // refuse them; array ops make, write or read one.
  Status visit(int i);
  Status passOn(int i);
  Status makeArray(int i);
  Status writeArray(int i, const Elements& s);
  Status readArray(int i, const Elements& s);
  void keep(int i, const std::string& tensor, std::shared_ptr<Elements> e);
  GraphDef rewritten() const;  // the graph with the resolved nodes replaced or removed

  const GraphDef& graph_;
  bool final_;
  std::optional<Graph> g_;
  model::InferredShapes shapes_;
  std::unordered_map<std::string, std::shared_ptr<Elements>> state_;  // keyed by tensor
  std::unordered_set<std::string> handles_;                           // TensorArray handles
  std::set<int> removed_;
  std::map<int, NodeDef> replaced_;
  std::map<int, int> root_of_;  // rewritten node -> the array it belongs to
  std::set<int> deferred_;      // arrays a remaining loop reads
};

// Which input of an array op is the array (its flow for TensorArrays), -1
// for the ops that make one.
int arrayInput(const std::string& op) {
  if (op == "TensorArrayScatterV3" || op == "TensorArrayWriteV3") return 3;
  if (op == "TensorArrayReadV3" || op == "TensorArrayGatherV3") return 2;
  if (op == "TensorArraySizeV3" || op == "TensorArrayCloseV3") return 1;
  if (op == "TensorArrayV3" || op == "TensorListReserve" || op == "EmptyTensorList" || op == "TensorListFromTensor")
    return -1;
  return 0;  // TensorList reads and writes
}

Result<std::vector<std::int64_t>> ArrayResolver::positions(int node, int input) const {
  int port = 0;
  int src = -1;
  int k = 0;
  for (const auto& in : g_->inputs(node))
    if (!in.control && k++ == input) src = in.node, port = in.port;
  if (src < 0 || g_->op(src) != "Const" || port != 0)
    return Status::Error(where(node) + ": its position (input " + std::to_string(input) +
                         ") is not a constant; only arrays read and written at fixed positions are unrolled");
  auto t = tensorAttr(g_->node(src));
  if (!t.ok()) return t.status();
  std::vector<std::int64_t> out;
  for (std::int64_t j = 0; j < t->size(); ++j) out.push_back(static_cast<std::int64_t>(t->valueAt(j)));
  return out;
}

Result<std::shared_ptr<Elements>> ArrayResolver::stateOf(int node, int input) const {
  const std::string& name = g_->node(node).input(input);
  auto ref = model::parseTensorName(name);
  auto it = state_.find(tensorName(ref.node, ref.port));
  if (it == state_.end())
    return Status::Error(where(node) + " reads '" + name + "', an array gdstudio cannot follow to where it was made");
  return it->second;
}

Result<std::string> ArrayResolver::itemAt(int node, const Elements& e, std::int64_t k) const {
  if (k < 0 || k >= static_cast<std::int64_t>(e.items.size()) || e.items[static_cast<std::size_t>(k)].empty())
    return Status::Error(where(node) + " reads position " + std::to_string(k) + " of an array of " +
                         std::to_string(e.items.size()) + " where nothing was written");
  return e.items[static_cast<std::size_t>(k)];
}

// The node becomes an Unpack of its value input along dimension 0 (it keeps
// its name: its old outputs were the array, read only by ops this removes).
Status ArrayResolver::unpack(int node, int value_input, const char* type_attr, std::vector<std::string>* items) {
  const auto ref = model::parseTensorName(g_->node(node).input(value_input));
  const int src = g_->find(ref.node);
  const model::TensorInfo& info = shapes_.at(src, ref.port);
  if (!info.known_rank || info.shape.empty() || info.shape[0] < 0)
    return Status::Error(where(node) + ": the length of '" + g_->node(node).input(value_input) +
                         "' (its dimension 0) is not known; give the model's inputs static shapes");
  NodeDef u;
  u.set_name(g_->name(node));
  u.set_op("Unpack");
  u.add_input(g_->node(node).input(value_input));
  copyAttr(g_->node(node), type_attr, "T", &u);
  (*u.mutable_attr())["num"].set_i(info.shape[0]);
  (*u.mutable_attr())["axis"].set_i(0);
  replaced_[node] = u;
  items->clear();
  for (std::int64_t k = 0; k < info.shape[0]; ++k) items->push_back(tensorName(u.name(), static_cast<int>(k)));
  return Status::Ok();
}

Result<GraphDef> ArrayResolver::run() {
  auto built = Graph::build(graph_);
  if (!built.ok()) return built.status();
  g_.emplace(std::move(*built));
  shapes_ = model::inferShapes(*g_);
  const Frames frames = findFrames(*g_);
  // An array op reading what a loop not unrolled yet computes waits too.
  auto fromLoop = [&](int i) {
    for (const auto& in : g_->inputs(i))
      if (!in.control && frames.of[static_cast<std::size_t>(in.node)] != 0 &&
          !state_.count(tensorName(g_->name(in.node), in.port)))
        return true;
    return false;
  };
  for (int i : g_->topoOrder()) {
    if (frames.of[static_cast<std::size_t>(i)] != 0) continue;  // inside a loop not unrolled yet
    if (arrayOps().count(g_->op(i)) && fromLoop(i)) continue;
    Status visited = visit(i);
    if (!visited.ok()) {
      if (final_) return visited;
      // Not resolvable yet: the whole array waits for the next round.
      auto r = root_of_.find(i);
      if (r != root_of_.end()) deferred_.insert(r->second);
      replaced_.erase(i);
      removed_.erase(i);
    }
  }
  return rewritten();
}

void ArrayResolver::keep(int i, const std::string& tensor, std::shared_ptr<Elements> e) {
  if (e->root < 0) e->root = i;
  root_of_[i] = e->root;
  state_[tensor] = std::move(e);
}

Status ArrayResolver::visit(int i) {
  const std::string& op = g_->op(i);
  if (!arrayOps().count(op)) return passOn(i);
  if (arrayInput(op) < 0) return makeArray(i);
  // The array this op reads (its flow for a TensorArray), whose root it joins.
  auto found = stateOf(i, arrayInput(op));
  if (!found.ok()) return found.status();
  const std::shared_ptr<Elements> s = *found;
  root_of_[i] = s->root;
  if (op == "TensorArrayScatterV3" || op == "TensorArrayWriteV3" || op == "TensorListSetItem" ||
      op == "TensorListPushBack")
    return writeArray(i, *s);
  return readArray(i, *s);
}

// An Identity of an array is the array; any other op reading one is refused
// (an Enter defers the array to the round that unrolls its loop).
Status ArrayResolver::passOn(int i) {
  const std::string& op = g_->op(i);
  const std::string& name = g_->name(i);
  if (op == "Identity" && g_->node(i).input_size() > 0) {
    const auto r = model::parseTensorName(g_->node(i).input(0));
    const std::string t = tensorName(r.node, r.port);
    if (handles_.count(t)) handles_.insert(name), removed_.insert(i);
    auto it = state_.find(t);
    if (it != state_.end()) keep(i, name, it->second), removed_.insert(i);
    return Status::Ok();
  }
  for (const auto& in : g_->inputs(i)) {
    if (in.control) continue;
    const std::string t = tensorName(g_->name(in.node), in.port);
    auto it = state_.find(t);
    if (op == "Enter" && it != state_.end()) {
      deferred_.insert(it->second->root);  // unrolled in a later round
      return Status::Ok();
    }
    if (it != state_.end() || handles_.count(t))
      return Status::Error(where(i) + " reads the array '" + t + "'; gdstudio follows arrays only through "
                           "TensorArray and TensorList reads, writes, scatters, gathers and stacks");
  }
  return Status::Ok();
}

Status ArrayResolver::makeArray(int i) {
  const std::string& op = g_->op(i);
  const std::string& name = g_->name(i);
  auto e = std::make_shared<Elements>();
  if (op == "TensorArrayV3" || op == "TensorListReserve") {
    const bool ta = op == "TensorArrayV3";
    auto n = positions(i, ta ? 0 : 1);
    if (!n.ok()) return n.status();
    // TensorFlow refuses a negative TensorArray size; a list's -1 means none reserved.
    if (ta && n->at(0) < 0)
      return Status::Error(where(i) + ": its size is " + std::to_string(n->at(0)) + "; a TensorArray needs one >= 0");
    e->items.assign(static_cast<std::size_t>(std::max<std::int64_t>(0, n->at(0))), "");
    if (ta) e->fixed = !model::attrBool(g_->node(i), "dynamic_size", false), handles_.insert(name);
    keep(i, ta ? name + ":1" : name, e);
    removed_.insert(i);
  } else if (op == "EmptyTensorList") {
    e->fixed = false;
    keep(i, name, e);
    removed_.insert(i);
  } else {  // TensorListFromTensor
    GDS_RETURN_IF_ERROR(unpack(i, 0, "element_dtype", &e->items));
    keep(i, name, e);
  }
  return Status::Ok();
}

Status ArrayResolver::writeArray(int i, const Elements& s) {
  const std::string& op = g_->op(i);
  auto e = std::make_shared<Elements>(s);
  // A push appends even to a list of reserved size.
  const bool push = op == "TensorListPushBack";
  auto put = [&](std::int64_t k, const std::string& item, const char* verb) -> Status {
    if (k < 0 || (e->fixed && !push && k >= static_cast<std::int64_t>(e->items.size())))
      return Status::Error(where(i) + " " + verb + " position " + std::to_string(k) + " of an array of " +
                           std::to_string(e->items.size()));
    if (k >= static_cast<std::int64_t>(e->items.size())) e->items.resize(static_cast<std::size_t>(k + 1));
    e->items[static_cast<std::size_t>(k)] = item;
    return Status::Ok();
  };
  if (op == "TensorArrayScatterV3") {
    auto idx = positions(i, 1);
    if (!idx.ok()) return idx.status();
    std::vector<std::string> items;
    GDS_RETURN_IF_ERROR(unpack(i, 2, "T", &items));
    for (std::size_t j = 0; j < idx->size() && j < items.size(); ++j)
      GDS_RETURN_IF_ERROR(put((*idx)[j], items[j], "scatters to"));
  } else if (push) {
    GDS_RETURN_IF_ERROR(put(static_cast<std::int64_t>(e->items.size()), g_->node(i).input(1), "writes"));
    removed_.insert(i);
  } else {  // TensorArrayWriteV3, TensorListSetItem
    auto idx = positions(i, 1);
    if (!idx.ok()) return idx.status();
    GDS_RETURN_IF_ERROR(put(idx->at(0), g_->node(i).input(2), "writes"));
    removed_.insert(i);
  }
  keep(i, g_->name(i), e);
  return Status::Ok();
}

Status ArrayResolver::readArray(int i, const Elements& s) {
  const std::string& op = g_->op(i);
  const std::string& name = g_->name(i);
  const char* dtype = op.rfind("TensorArray", 0) == 0 ? "dtype" : "element_dtype";
  if (op == "TensorArrayReadV3" || op == "TensorListGetItem") {
    auto idx = positions(i, 1);
    if (!idx.ok()) return idx.status();
    auto item = itemAt(i, s, idx->at(0));
    if (!item.ok()) return item.status();
    NodeDef n;
    n.set_name(name);
    n.set_op("Identity");
    n.add_input(*item);
    copyAttr(g_->node(i), dtype, "T", &n);
    replaced_[i] = n;
  } else if (op == "TensorArrayGatherV3" || op == "TensorListGather" || op == "TensorListStack") {
    std::vector<std::int64_t> idx;
    if (op == "TensorListStack") {
      for (std::size_t k = 0; k < s.items.size(); ++k) idx.push_back(static_cast<std::int64_t>(k));
    } else {
      auto p = positions(i, 1);
      if (!p.ok()) return p.status();
      idx = *p;
    }
    if (idx.empty()) return Status::Error(where(i) + " stacks an empty array");
    NodeDef n;
    n.set_name(name);
    n.set_op("Pack");
    for (std::int64_t k : idx) {
      auto item = itemAt(i, s, k);
      if (!item.ok()) return item.status();
      n.add_input(*item);
    }
    copyAttr(g_->node(i), dtype, "T", &n);
    (*n.mutable_attr())["N"].set_i(static_cast<std::int64_t>(idx.size()));
    (*n.mutable_attr())["axis"].set_i(0);
    replaced_[i] = n;
  } else if (op == "TensorArraySizeV3" || op == "TensorListLength") {
    model::HostTensor size = model::HostTensor::zeros(tensorflow::DT_INT32, {});
    *size.as<std::int32_t>() = static_cast<std::int32_t>(s.items.size());
    replaced_[i] = makeConst(name, size);
  } else if (op == "TensorArrayCloseV3") {
    removed_.insert(i);
  }
  return Status::Ok();
}

GraphDef ArrayResolver::rewritten() const {
  auto isDeferred = [&](int i) {
    auto r = root_of_.find(i);
    return r != root_of_.end() && deferred_.count(r->second);
  };
  GraphDef out = graph_;
  out.clear_node();
  std::unordered_set<std::string> gone;
  for (int i : removed_)
    if (!isDeferred(i)) gone.insert(g_->name(i));
  for (int i = 0; i < g_->size(); ++i) {
    if (removed_.count(i) && !isDeferred(i)) continue;
    auto r = isDeferred(i) ? replaced_.end() : replaced_.find(i);
    NodeDef node = r != replaced_.end() ? r->second : g_->node(i);
    auto* inputs = node.mutable_input();
    for (int k = inputs->size() - 1; k >= 0; --k)
      if (!inputs->Get(k).empty() && inputs->Get(k)[0] == '^' && gone.count(inputs->Get(k).substr(1)))
        inputs->DeleteSubrange(k, 1);
    *out.add_node() = std::move(node);
  }
  return out;
}

bool hasLoopsOrArrays(const GraphDef& graph) {
  for (const auto& node : graph.node())
    if (node.op() == "Enter" || arrayOps().count(node.op())) return true;
  return false;
}

// Unrolls every loop whose iteration count is known now; the first
// refusal when none is.
Result<GraphDef> unrollReadyLoops(const GraphDef& in, const TransformContext& ctx, std::int64_t max_iterations,
                                  std::int64_t* node_budget, bool* any) {
  auto g = Graph::build(in);
  if (!g.ok()) return g.status();
  Frames frames = findFrames(*g);
  std::unordered_set<std::string> names;
  for (const auto& node : in.node()) names.insert(node.name());
  GraphDef unrolled = in;
  unrolled.clear_node();
  std::vector<char> drop(static_cast<std::size_t>(g->size()), 0);
  std::optional<Status> first_refusal;
  *any = false;
  for (int id = 1; id < static_cast<int>(frames.frames.size()); ++id) {
    Frame& fr = frames.frames[static_cast<std::size_t>(id)];
    if (fr.parent != 0) {
      if (!first_refusal)
        first_refusal = Status::Error(loopLabel(fr) + " runs inside " +
                                      loopLabel(frames.frames[static_cast<std::size_t>(fr.parent)]) +
                                      "; gdstudio unrolls only loops that hold no loop");
      continue;
    }
    GDS_RETURN_IF_ERROR(findLoopVars(*g, frames, &fr, id));
    Unroller unroller(*g, frames, id, &names);
    auto trips = unroller.tripCount(max_iterations);
    if (!trips.ok()) {
      // Its bound may come from a loop before it: the next round.
      if (!first_refusal) first_refusal = trips.status();
      continue;
    }
    GDS_RETURN_IF_ERROR(unroller.emit(*trips, node_budget, &unrolled));
    for (int i : fr.nodes) drop[static_cast<std::size_t>(i)] = 1;
    for (int i : fr.enters) drop[static_cast<std::size_t>(i)] = 1;
    *any = true;
    if (ctx.cancelled()) return TransformContext::cancelledStatus();
  }
  if (!*any && first_refusal) return *first_refusal;
  for (int i = 0; i < g->size(); ++i)
    if (!drop[static_cast<std::size_t>(i)]) *unrolled.add_node() = g->node(i);
  return unrolled;
}

bool hasLoops(const GraphDef& graph) {
  for (const auto& node : graph.node())
    if (node.op() == "Enter") return true;
  return false;
}

Result<GraphDef> unrollWhileLoops(const GraphDef& in, const TransformContext& ctx) {
  auto max_iterations = ctx.getOneInt("max_iterations", 10000);
  if (!max_iterations.ok()) return max_iterations.status();
  auto max_nodes = ctx.getOneInt("max_nodes", 500000);
  if (!max_nodes.ok()) return max_nodes.status();
  std::int64_t node_budget = *max_nodes;
  if (ctx.outputs.empty()) return ctx.error("needs --outputs: constants are folded between unrolling and arrays");
  if (!hasLoopsOrArrays(in)) return in;
  TransformContext fold("fold_constants", ctx.inputs, ctx.outputs, {});
  fold.cancel_check = ctx.cancel_check;
  GraphDef graph = in;
  // Rounds: a loop whose bound is the length of what an earlier loop
  // computes (stacked recurrent layers) is unrolled once that one is and
  // its arrays are resolved. Positions are computed from the loop
  // counters: constants are folded before arrays are resolved.
  for (;;) {
    auto folded = foldConstantsTransform().fn(graph, fold);
    if (!folded.ok()) return ctx.error(folded.error());
    const bool loops = hasLoops(*folded);
    auto resolved = ArrayResolver(*folded, !loops).run();
    if (!resolved.ok()) return ctx.error(resolved.error());
    if (!loops) return std::move(*resolved);
    // What the resolved arrays stack has a shape now: the next loop's bound.
    auto refolded = foldConstantsTransform().fn(*resolved, fold);
    if (!refolded.ok()) return ctx.error(refolded.error());
    bool any = false;
    auto unrolled = unrollReadyLoops(*refolded, ctx, *max_iterations, &node_budget, &any);
    if (!unrolled.ok()) return ctx.error(unrolled.error());
    graph = std::move(*unrolled);
  }
}

}  // namespace

TransformInfo unrollWhileLoopsTransform() {
  return {"unroll_while_loops",
          "Unrolls TensorFlow 1.x while loops whose iteration count constants decide, and their arrays",
          {{"max_iterations", "refuse a loop that runs more iterations than this (default 10000)"},
           {"max_nodes", "refuse to add more nodes than this in all (default 500000)"}},
          unrollWhileLoops};
}

}  // namespace gds::transforms
