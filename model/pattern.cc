#include "model/pattern.h"

#include <unordered_set>

#include <google/protobuf/util/message_differencer.h>

#include "model/graph.h"

namespace gds::model {

std::string nodeNameFromInput(const std::string& input) {
  size_t start = !input.empty() && input[0] == '^' ? 1 : 0;
  size_t colon = input.find(':', start);
  return input.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
}

std::string OpTypePattern::debugString() const {
  std::string s = "{" + op + ", {";
  for (const auto& in : inputs) s += in.debugString() + ",";
  return s + "}}";
}

bool opMatches(std::string_view pattern_op, const std::string& op) {
  if (pattern_op == "*") return true;
  size_t start = 0;
  while (start <= pattern_op.size()) {
    size_t bar = pattern_op.find('|', start);
    std::string_view alt = pattern_op.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start);
    if (alt == op) return true;
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  return false;
}

GraphMatcher::GraphMatcher(const GraphDef& graph) : graph_(graph) {
  const int n = graph.node_size();
  index_.reserve(static_cast<size_t>(n) * 2);
  for (int i = 0; i < n; ++i) index_.emplace(graph.node(i).name(), i);
  auto order = executionOrder(graph);
  if (order.ok()) {
    order_ = std::move(order.value());
  } else {
    // A cycle or a dangling input: visit the nodes in file order instead
    // (TensorFlow would drop the unsortable ones from matching).
    order_.resize(n);
    for (int i = 0; i < n; ++i) order_[i] = i;
  }
  matched_.assign(n, 0);
}

bool GraphMatcher::doesMatch(int node, const OpTypePattern& pattern, NodeMatch* match) const {
  if (matched_[node]) return false;
  const NodeDef& def = graph_.node(node);
  if (!opMatches(pattern.op, def.op())) return false;
  match->node = &def;
  if (pattern.inputs.empty()) return true;
  int data_inputs = 0;
  for (const auto& in : def.input())
    if (!in.empty() && in[0] != '^') ++data_inputs;
  if (data_inputs != static_cast<int>(pattern.inputs.size())) return false;
  size_t k = 0;
  for (const auto& in : def.input()) {
    if (in.empty() || in[0] == '^') continue;
    auto it = index_.find(std::string_view(nodeNameFromInput(in)));
    if (it == index_.end()) return false;
    match->inputs.emplace_back();
    if (!doesMatch(it->second, pattern.inputs[k], &match->inputs.back())) return false;
    ++k;
  }
  return true;
}

std::vector<NodeMatch> GraphMatcher::getOpTypeMatches(const OpTypePattern& pattern) {
  std::vector<NodeMatch> matches;
  for (int i : order_) {
    if (matched_[i]) continue;
    NodeMatch match;
    if (!doesMatch(i, pattern, &match)) continue;
    for (const NodeDef* n : matchedNodes(match)) matched_[index_.at(n->name())] = 1;
    matches.push_back(std::move(match));
  }
  return matches;
}

std::vector<const NodeDef*> matchedNodes(const NodeMatch& match) {
  std::vector<const NodeDef*> out;
  std::unordered_set<const NodeDef*> seen;
  std::vector<const NodeMatch*> current = {&match};
  while (!current.empty()) {
    std::vector<const NodeMatch*> next;
    for (const NodeMatch* m : current) {
      if (!seen.insert(m->node).second) continue;
      out.push_back(m->node);
      for (const auto& in : m->inputs) next.push_back(&in);
    }
    current = std::move(next);
  }
  return out;
}

void copyOriginalMatch(const NodeMatch& match, std::vector<NodeDef>* new_nodes) {
  for (const NodeDef* n : matchedNodes(match)) new_nodes->push_back(*n);
}

namespace {

// True when `generated` is exactly the matched nodes (in any order).
bool sameNodes(const std::vector<const NodeDef*>& matched, const std::vector<NodeDef>& generated) {
  if (matched.size() != generated.size()) return false;
  std::unordered_map<std::string_view, const NodeDef*> by_name;
  for (const NodeDef* n : matched) by_name.emplace(n->name(), n);
  for (const auto& g : generated) {
    auto it = by_name.find(g.name());
    if (it == by_name.end()) return false;
    const NodeDef& o = *it->second;
    if (o.op() != g.op() || o.device() != g.device() || o.input_size() != g.input_size() ||
        o.attr_size() != g.attr_size())
      return false;
    for (int i = 0; i < o.input_size(); ++i)
      if (o.input(i) != g.input(i)) return false;
    if (!google::protobuf::util::MessageDifferencer::Equals(o, g)) return false;
  }
  return true;
}

}  // namespace

Status replaceMatchingOpTypes(const GraphDef& in, const OpTypePattern& pattern, const NodeGenerator& generator,
                              const ReplaceOptions& options, GraphDef* out) {
  GraphMatcher matcher(in);
  std::vector<NodeMatch> matches = matcher.getOpTypeMatches(pattern);

  std::unordered_map<std::string_view, const NodeMatch*> by_head;
  for (const auto& m : matches) by_head.emplace(m.node->name(), &m);
  // Consumers of every node, by name.
  std::unordered_map<std::string, std::vector<const NodeDef*>> consumers;
  if (!matches.empty()) {
    consumers.reserve(static_cast<size_t>(in.node_size()) * 2);
    for (const auto& node : in.node())
      for (const auto& input : node.input()) consumers[nodeNameFromInput(input)].push_back(&node);
  }

  // Generate every replacement first (heads in node order, as TensorFlow
  // calls the generator), then lay the graph out. A match whose replacement
  // is its own nodes unchanged keeps them where they were (TensorFlow moves
  // them next to the head).
  std::unordered_map<std::string_view, std::vector<NodeDef>> replacements;
  std::unordered_set<std::string_view> replaced;  // nodes of changed matches
  for (const auto& node : in.node()) {
    auto head = by_head.find(node.name());
    if (head == by_head.end()) continue;
    const NodeMatch& match = *head->second;
    std::vector<const NodeDef*> nodes = matchedNodes(match);
    std::unordered_set<std::string_view> lookup;
    for (const NodeDef* n : nodes) lookup.insert(n->name());
    std::set<std::string> input_nodes, output_nodes;
    for (const NodeDef* n : nodes) {
      for (const auto& input : n->input())
        if (!lookup.count(nodeNameFromInput(input))) input_nodes.insert(n->name());
      auto c = consumers.find(n->name());
      if (c == consumers.end()) continue;
      for (const NodeDef* user : c->second)
        if (!lookup.count(user->name())) output_nodes.insert(n->name());
    }
    std::vector<NodeDef> new_nodes;
    GDS_RETURN_IF_ERROR(generator(match, input_nodes, output_nodes, &new_nodes));
    if (!options.allow_inconsistencies) {
      std::unordered_set<std::string> new_names;
      for (const auto& n : new_nodes) new_names.insert(n.name());
      bool dropped = false;
      for (const auto& needed : output_nodes)
        if (!new_names.count(needed)) dropped = true;
      if (dropped) continue;  // cancelled: the original nodes stay
    }
    if (sameNodes(nodes, new_nodes)) continue;
    for (const NodeDef* n : nodes) replaced.insert(n->name());
    replacements.emplace(node.name(), std::move(new_nodes));
  }

  GraphDef result;
  result.mutable_node()->Reserve(in.node_size());
  for (const auto& node : in.node()) {
    auto r = replacements.find(node.name());
    if (r != replacements.end()) {
      for (auto& n : r->second) *result.add_node() = std::move(n);
    } else if (!replaced.count(node.name())) {
      *result.add_node() = node;
    }
  }
  *result.mutable_library() = in.library();
  if (in.has_versions()) *result.mutable_versions() = in.versions();
  *out = std::move(result);
  return Status::Ok();
}

}  // namespace gds::model
