// Declarative op-type patterns and a replace-with-callback helper, with the
// semantics of TensorFlow's OpTypePattern / GraphMatcher /
// ReplaceMatchingOpTypes (tools/graph_transforms/transform_utils.cc). They
// read a GraphDef only, so the graph transforms and the engine's inference
// rewrites share them:
// - a pattern is {op, inputs}; op is "*" (anything) or "A|B|C";
// - a pattern with no inputs matches a node whatever its inputs are;
//   otherwise the node's data inputs (control inputs are ignored) must match
//   the pattern's inputs one for one;
// - candidate heads are visited in execution order and a node joins at most
//   one match;
// - a replacement that drops a matched node still used outside the match is
//   cancelled (the original nodes are kept) unless allow_inconsistencies.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "graph.pb.h"
#include "model/status.h"

namespace gds::model {

using tensorflow::GraphDef;
using tensorflow::NodeDef;

// The node name of an input string ("^a:1" -> "a"): up to its first colon,
// as TensorFlow's NodeNameFromInput.
std::string nodeNameFromInput(const std::string& input);

struct OpTypePattern {
  OpTypePattern(std::string op_type, std::vector<OpTypePattern> input_patterns = {})
      : op(std::move(op_type)), inputs(std::move(input_patterns)) {}
  OpTypePattern(const char* op_type, std::vector<OpTypePattern> input_patterns = {})
      : op(op_type), inputs(std::move(input_patterns)) {}
  std::string op;
  std::vector<OpTypePattern> inputs;
  std::string debugString() const;
};

// A matched subgraph; `node` points into the GraphDef given to the matcher.
struct NodeMatch {
  const NodeDef* node = nullptr;
  std::vector<NodeMatch> inputs;
  const NodeDef& def() const { return *node; }
};

// True when `op` is named by the pattern's op ("*" or "A|B").
bool opMatches(std::string_view pattern_op, const std::string& op);

class GraphMatcher {
 public:
  explicit GraphMatcher(const GraphDef& graph);
  // Non-overlapping matches, heads in execution order.
  std::vector<NodeMatch> getOpTypeMatches(const OpTypePattern& pattern);

 private:
  bool doesMatch(int node, const OpTypePattern& pattern, NodeMatch* match) const;
  const GraphDef& graph_;
  std::unordered_map<std::string_view, int> index_;
  std::vector<int> order_;
  std::vector<char> matched_;
};

// Every distinct node of a match, head first (breadth first).
std::vector<const NodeDef*> matchedNodes(const NodeMatch& match);
// Appends copies of the match's nodes (to keep a match unchanged).
void copyOriginalMatch(const NodeMatch& match, std::vector<NodeDef>* new_nodes);

// input_nodes: matched nodes with an input from outside the match.
// output_nodes: matched nodes whose output is used outside the match.
using NodeGenerator = std::function<Status(const NodeMatch& match, const std::set<std::string>& input_nodes,
                                           const std::set<std::string>& output_nodes,
                                           std::vector<NodeDef>* new_nodes)>;

struct ReplaceOptions {
  bool allow_inconsistencies = false;
};

// Replaces each match by the nodes the generator returns, placed where the
// match's head was; other nodes are copied in their original order. A match
// the generator returns unchanged (copyOriginalMatch), or a cancelled one,
// keeps its nodes at their original positions.
Status replaceMatchingOpTypes(const GraphDef& in, const OpTypePattern& pattern, const NodeGenerator& generator,
                              const ReplaceOptions& options, GraphDef* out);

}  // namespace gds::model
