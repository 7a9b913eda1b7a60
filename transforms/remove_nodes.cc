// remove_nodes(op=..., max_inputs=1): deletes nodes of the given op types
// that have 1..max_inputs data inputs, rewiring their consumers to the first
// input ("x:1" keeps its port; "^n" becomes "^x"). Nodes named in
// --inputs/--outputs are kept. The result is the fixpoint TensorFlow's
// remove_nodes reaches by repeating ReplaceMatchingOpTypes (chains of removed
// nodes resolve to the first kept one), computed in one pass: TensorFlow's
// loop removes only one of the nodes that share an input per pass, which is
// quadratic on graphs where hundreds of Identity nodes read one tensor.
// Unlike TensorFlow, the kept nodes stay in their original order, and the
// other inputs of a removed node are never dropped from the graph.
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "transforms/builtin.h"
#include "transforms/transform_utils.h"

namespace gds::transforms {
namespace {

Result<GraphDef> removeNodes(const GraphDef& in, const TransformContext& ctx) {
  if (!ctx.has("op")) return ctx.error("expects at least one 'op' parameter, e.g. remove_nodes(op=Identity)");
  auto max_inputs = ctx.getOneInt("max_inputs", 1);
  if (!max_inputs.ok()) return max_inputs.status();
  if (*max_inputs < 1) return ctx.error("parameter 'max_inputs' must be at least 1, got " + std::to_string(*max_inputs));
  std::unordered_set<std::string> required = nodeNames(ctx.inputs);
  for (const auto& n : nodeNames(ctx.outputs)) required.insert(n);
  const auto& ops_list = ctx.list("op");
  const std::unordered_set<std::string> ops(ops_list.begin(), ops_list.end());

  std::unordered_set<std::string> names;
  names.reserve(static_cast<size_t>(in.node_size()) * 2);
  for (const auto& node : in.node()) names.insert(node.name());
  // Removed node -> its first data input, as written.
  std::unordered_map<std::string, std::string> target;
  for (const auto& node : in.node()) {
    if (!ops.count(node.op()) || required.count(node.name())) continue;
    int data = 0;
    std::string first;
    bool inputs_exist = true;
    for (const auto& input : node.input()) {
      if (!input.empty() && input[0] == '^') continue;
      if (data++ == 0) first = input;
      inputs_exist = inputs_exist && names.count(nodeNameFromInput(input));
    }
    if (data >= 1 && data <= *max_inputs && inputs_exist) target.emplace(node.name(), first);
  }
  if (target.empty()) return in;

  // Follows chains of removed nodes; "R" and "R:0" resolve, other ports of a
  // removed node are left as they are (TensorFlow renames only output 0).
  // Iterative: a chain is as long as the graph (30,000 Identity nodes in a
  // row), which a recursive walk turned into a stack overflow.
  std::unordered_map<std::string, std::string> resolved;
  auto resolve = [&](const std::string& start) -> Result<std::string> {
    auto done = resolved.find(start);
    if (done != resolved.end()) return done->second;
    // Walk down to a kept node (or a resolved one), then set every node of
    // the path to the answer.
    std::vector<std::string> path;
    std::unordered_set<std::string> on_path;
    std::string node = start;
    std::string answer;
    while (true) {
      if (!on_path.insert(node).second) return ctx.error("removed nodes form a cycle through '" + node + "'");
      path.push_back(node);
      const std::string& t = target.at(node);
      InputParts p = inputParts(t);
      if (target.count(p.node) && (p.suffix.empty() || p.suffix == ":0")) {
        auto hit = resolved.find(p.node);
        if (hit != resolved.end()) {
          answer = hit->second;
          break;
        }
        node = p.node;
        continue;
      }
      answer = t;
      break;
    }
    for (const auto& n : path) resolved[n] = answer;
    return answer;
  };

  GraphDef out;
  out.mutable_node()->Reserve(in.node_size() - static_cast<int>(target.size()));
  for (const auto& node : in.node()) {
    if (target.count(node.name())) continue;
    NodeDef* n = out.add_node();
    *n = node;
    for (std::string& input : *n->mutable_input()) {
      InputParts p = inputParts(input);
      if (!target.count(p.node)) continue;
      if (p.prefix == "^") {
        auto r = resolve(p.node);
        if (!r.ok()) return r.status();
        input = "^" + nodeNameFromInput(*r);
      } else if (p.suffix.empty() || p.suffix == ":0") {
        auto r = resolve(p.node);
        if (!r.ok()) return r.status();
        input = *r;
      }
    }
  }
  *out.mutable_library() = in.library();
  if (in.has_versions()) *out.mutable_versions() = in.versions();
  return out;
}

}  // namespace

TransformInfo removeNodesTransform() {
  return {"remove_nodes", "Removes nodes of the given op types, wiring their input through",
          {{"op", "op type to remove (repeatable)"}, {"max_inputs", "remove nodes with up to this many inputs (default 1)"}},
          removeNodes};
}

}  // namespace gds::transforms
