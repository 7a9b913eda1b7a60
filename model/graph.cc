#include "model/graph.h"

#include <algorithm>
#include <deque>

namespace gds::model {

std::string TensorRef::str() const {
  if (control) return "^" + node;
  if (port == 0) return node;
  return node + ":" + std::to_string(port);
}

TensorRef parseTensorName(std::string_view input) {
  TensorRef ref;
  if (!input.empty() && input[0] == '^') {
    ref.control = true;
    ref.node = std::string(input.substr(1));
    return ref;
  }
  size_t colon = input.rfind(':');
  if (colon != std::string_view::npos && colon + 1 < input.size()) {
    bool digits = true;
    int port = 0;
    for (size_t i = colon + 1; i < input.size(); ++i) {
      char c = input[i];
      if (c < '0' || c > '9' || port > 100000000) {
        digits = false;
        break;
      }
      port = port * 10 + (c - '0');
    }
    if (digits) {
      ref.node = std::string(input.substr(0, colon));
      ref.port = port;
      return ref;
    }
  }
  ref.node = std::string(input);
  return ref;
}

std::string_view nodeNameOf(std::string_view input) {
  if (!input.empty() && input[0] == '^') input.remove_prefix(1);
  size_t colon = input.rfind(':');
  if (colon != std::string_view::npos && colon + 1 < input.size() &&
      std::all_of(input.begin() + colon + 1, input.end(), [](char c) { return c >= '0' && c <= '9'; }))
    input = input.substr(0, colon);
  return input;
}

int dataInputCount(const tensorflow::NodeDef& node) {
  int data = 0;
  for (const auto& in : node.input()) data += in.empty() || in[0] != '^';
  return data;
}

Result<std::vector<int>> executionOrder(const tensorflow::GraphDef& def) {
  const int n = def.node_size();
  std::unordered_map<std::string_view, int> index;
  index.reserve(static_cast<size_t>(n) * 2);
  for (int i = 0; i < n; ++i) index[def.node(i).name()] = i;  // last duplicate wins, as in TF's std::map
  std::vector<int> pending(n, 0), ready, order;
  std::vector<std::vector<int>> outputs(n);
  for (int i = 0; i < n; ++i) {
    const auto& node = def.node(i);
    const std::string& op = node.op();
    if (op == "Merge" || op == "RefMerge" || op == "_XlaMerge") {
      int controls = 0;
      for (const auto& in : node.input())
        if (!in.empty() && in[0] == '^') ++controls;
      pending[i] = controls + 1;
    } else {
      pending[i] = node.input_size();
    }
    if (node.input_size() == 0) {
      ready.push_back(i);
      continue;
    }
    for (const auto& in : node.input()) {
      // TF splits at the first ':' here (NodeNameFromInput).
      std::string_view name(in);
      if (!name.empty() && name[0] == '^') name.remove_prefix(1);
      name = name.substr(0, name.find(':'));
      auto it = index.find(name);
      if (it == index.end())
        return Status::Error("node '" + node.name() + "': unknown input node '" + in + "'");
      outputs[it->second].push_back(i);
    }
  }
  order.reserve(n);
  while (!ready.empty()) {
    int o = ready.back();
    ready.pop_back();
    order.push_back(o);
    for (int out : outputs[o])
      if (--pending[out] == 0) ready.push_back(out);
  }
  if (static_cast<int>(order.size()) < n)
    return Status::Error(std::to_string(n - static_cast<int>(order.size())) + " nodes in a cycle");
  return order;
}

int Graph::find(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? -1 : it->second;
}

int Graph::observedOutputs(int i) const {
  int n = 1;
  for (const auto& c : consumers_[i])
    if (c.port >= 0) n = std::max(n, c.port + 1);
  return n;
}

Result<Graph> Graph::build(const tensorflow::GraphDef& def) {
  Graph g;
  g.def_ = &def;
  const int n = def.node_size();
  g.by_name_.reserve(static_cast<size_t>(n) * 2);
  g.inputs_.resize(n);
  g.consumers_.resize(n);
  for (int i = 0; i < n; ++i) {
    const auto& node = def.node(i);
    if (node.name().empty()) return Status::Error("node #" + std::to_string(i) + " (op " + node.op() + ") has no name");
    auto [it, inserted] = g.by_name_.emplace(node.name(), i);
    if (!inserted)
      return Status::Error("duplicate node name '" + node.name() + "' (nodes #" + std::to_string(it->second) +
                           " and #" + std::to_string(i) + ")");
  }
  for (int i = 0; i < n; ++i) {
    const auto& node = def.node(i);
    auto& ins = g.inputs_[i];
    ins.reserve(node.input_size());
    for (int k = 0; k < node.input_size(); ++k) {
      const std::string& text = node.input(k);
      bool control = !text.empty() && text[0] == '^';
      std::string_view name = nodeNameOf(text);
      int port = 0;
      if (!control && name.size() < text.size()) {
        // Digits only (nodeNameOf checked); reject ports that overflow int.
        const std::string digits = text.substr(name.size() + 1);
        if (digits.size() > 9)
          return Status::Error("node '" + node.name() + "' input " + std::to_string(k) + " ('" + text +
                               "') has an output port that is too large");
        port = std::stoi(digits);
      }
      int src = g.find(name);
      if (src < 0)
        return Status::Error("node '" + node.name() + "' input " + std::to_string(k) + " ('" + text +
                             "') names a node that does not exist");
      ins.push_back({src, control ? 0 : port, control});
      g.consumers_[src].push_back({i, k, control ? -1 : port});
      if (control) ++g.control_edges_;
    }
  }
  // Kahn's algorithm in node order; edges out of NextIteration are loop back
  // edges in TensorFlow's control flow and do not count.
  std::vector<int> pending(n, 0);
  for (int i = 0; i < n; ++i)
    for (const auto& in : g.inputs_[i])
      if (def.node(in.node).op() != "NextIteration" && def.node(in.node).op() != "RefNextIteration") ++pending[i];
  std::deque<int> ready;
  for (int i = 0; i < n; ++i)
    if (pending[i] == 0) ready.push_back(i);
  g.topo_.reserve(n);
  while (!ready.empty()) {
    int i = ready.front();
    ready.pop_front();
    g.topo_.push_back(i);
    bool back = def.node(i).op() == "NextIteration" || def.node(i).op() == "RefNextIteration";
    if (back) continue;
    // A node may consume the same producer several times; each edge counted once above.
    for (const auto& c : g.consumers_[i])
      if (--pending[c.node] == 0) ready.push_back(c.node);
  }
  if (static_cast<int>(g.topo_.size()) != n) {
    // Report one cycle: walk back along unfinished inputs until a node repeats.
    int start = -1;
    for (int i = 0; i < n && start < 0; ++i)
      if (pending[i] > 0) start = i;
    std::vector<int> seen_at(n, -1);
    std::vector<int> path;
    int cur = start;
    while (cur >= 0 && seen_at[cur] < 0) {
      seen_at[cur] = static_cast<int>(path.size());
      path.push_back(cur);
      int next = -1;
      for (const auto& in : g.inputs_[cur]) {
        const std::string& op = def.node(in.node).op();
        if (pending[in.node] > 0 && op != "NextIteration" && op != "RefNextIteration") {
          next = in.node;
          break;
        }
      }
      cur = next;
    }
    std::string cycle;
    if (cur >= 0) {
      for (size_t k = path.size(); k-- > static_cast<size_t>(seen_at[cur]);) cycle += def.node(path[k]).name() + " -> ";
      cycle += def.node(path.back()).name();
    }
    int stuck = n - static_cast<int>(g.topo_.size());
    return Status::Error("graph has a cycle (" + std::to_string(stuck) + " nodes cannot be ordered)" +
                         (cycle.empty() ? std::string() : ": " + cycle));
  }
  return g;
}

}  // namespace gds::model
