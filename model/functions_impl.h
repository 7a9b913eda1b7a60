// The inliner's private half, shared by functions.cc (the library and the
// entry point), functions_inline.cc (calls replaced by function bodies) and
// functions_lower.cc (If, While and Case lowered to Switch/Merge loops):
// the Inliner class and the name helpers its two halves use.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/functions.h"
#include "model/graph.h"
#include "graph.pb.h"
#include "model/status.h"

namespace gds::model::functions_impl {

using AttrMap = google::protobuf::Map<std::string, tensorflow::AttrValue>;
using tensorflow::AttrValue;
using tensorflow::DataType;
using tensorflow::FunctionDef;
using tensorflow::NodeDef;

inline std::string attrString(const AttrMap& attrs, const std::string& name) {
  auto it = attrs.find(name);
  return it == attrs.end() || it->second.value_case() != AttrValue::kS ? std::string() : it->second.s();
}

inline std::string tensorName(const std::string& node, int port) {
  return port == 0 ? node : node + ":" + std::to_string(port);
}

inline std::string canonical(const std::string& input) {
  TensorRef r = parseTensorName(input);
  return r.control ? "^" + r.node : tensorName(r.node, r.port);
}

constexpr const char* kMultiDeviceAttr = "_lower_as_multi_device_function";

// The graph being rewritten: nodes by index (removed ones marked dead), a name
// index, and for every node the chain of calls its body came from.
class Inliner {
 public:
  Inliner(const tensorflow::GraphDef& graph, const InlineOptions& options)
      : graph_(graph), lib_(graph.library(), options.op_defs), options_(options) {}

  Result<InlineResult> run();

 private:
  struct Chain {
    std::string function;  // "" for lowered control flow
    std::string node;      // the call or lowered node
    int parent = -1;
  };
  // What replaced a call or lowered node, for its consumers.
  struct Replaced {
    int outputs = 0;
    std::string function;
    std::vector<std::string> outputs_to;  // tensor per output
    std::vector<std::string> control_sources;  // what its control consumers wait for
    std::string input_control;                 // its input_control_node, if any
    std::string control_node;                  // created on demand
    std::string prefix;
  };

  bool isCandidate(const NodeDef& n) const {
    if (options_.inline_calls) {
      std::string f;
      const AttrMap* a = nullptr;
      if (lib_.callTarget(n, &f, &a)) return true;
    }
    return options_.lower_control_flow && isFunctionalControlFlow(n.op());
  }
  bool isCall(const NodeDef& n) const {
    std::string f;
    const AttrMap* a = nullptr;
    return lib_.callTarget(n, &f, &a) || n.op() == "SymbolicGradient";
  }

  int add(NodeDef node, int chain) {
    int i = static_cast<int>(nodes_.size());
    index_[node.name()] = i;
    nodes_.push_back(std::move(node));
    alive_.push_back(1);
    chain_.push_back(chain);
    ++alive_count_;
    return i;
  }
  void remove(int i) {
    if (!alive_[static_cast<size_t>(i)]) return;
    alive_[static_cast<size_t>(i)] = 0;
    index_.erase(nodes_[static_cast<size_t>(i)].name());
    --alive_count_;
  }
  std::string uniqueName(const std::string& base, const std::unordered_set<std::string>& reserved = {}) const {
    auto taken = [&](const std::string& n) { return index_.count(n) || reserved.count(n); };
    if (!taken(base)) return base;
    for (int k = 1;; ++k) {
      std::string n = base + "_" + std::to_string(k);
      if (!taken(n)) return n;
    }
  }
  std::string chainText(int chain, const std::string& last) const {
    std::vector<std::string> names{last};
    for (int c = chain; c >= 0; c = chains_[static_cast<size_t>(c)].parent)
      if (!chains_[static_cast<size_t>(c)].function.empty()) names.push_back(chains_[static_cast<size_t>(c)].function);
    std::string s;
    for (auto it = names.rbegin(); it != names.rend(); ++it) s += (s.empty() ? "" : " -> ") + *it;
    return s;
  }
  std::string parentNode(int chain) const { return chain < 0 ? "" : chains_[static_cast<size_t>(chain)].node; }

  Status budget(std::int64_t more, const std::string& what) const {
    if (alive_count_ + more > options_.max_nodes)
      return Status::Error(what + " would make the graph larger than " + std::to_string(options_.max_nodes) +
                           " nodes");
    return Status::Ok();
  }

  NodeDef makeNode(const std::string& name, const std::string& op) const {
    NodeDef n;
    n.set_name(name);
    n.set_op(op);
    return n;
  }

  Status inlineCall(int i);
  // inlineCall's phases (functions_inline.cc).
  struct Inlining;
  Status chooseFunction(Inlining& c);
  Status checkArguments(Inlining& c);
  Status nameBody(Inlining& c);
  void gateOnControlInputs(Inlining& c);
  Result<std::string> resolveBodyRef(const Inlining& c, const std::string& ref, const std::string& reader);
  Status copyBody(Inlining& c);
  Result<Replaced> replacement(const Inlining& c);
  Status lowerIf(int i);
  Status lowerWhile(int i);
  Status lowerCase(int i);
  Status finishReplacement(int i, Replaced r, const std::vector<DataType>& output_types);
  Status rewriteInputs();
  Result<std::string> resolveData(const std::string& input);
  Result<std::string> resolveControl(const std::string& node);

  const tensorflow::GraphDef& graph_;
  FunctionLibrary lib_;
  const InlineOptions& options_;
  std::vector<NodeDef> nodes_;
  std::vector<char> alive_;
  std::vector<int> chain_;
  std::unordered_map<std::string, int> index_;
  std::vector<Chain> chains_;
  std::unordered_map<std::string, Replaced> replaced_;  // this round
  std::int64_t alive_count_ = 0;
  InlineResult result_;
  std::set<std::string> warned_;
};

}  // namespace gds::model::functions_impl
