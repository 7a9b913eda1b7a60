#include "model/functions.h"

#include <algorithm>
#include <deque>
#include <unordered_set>

#include "model/attr.h"
#include "model/graph.h"
#include "model/op_metadata.h"
#include "model/tensor.h"

namespace gds::model {
namespace {

using AttrMap = google::protobuf::Map<std::string, tensorflow::AttrValue>;
using tensorflow::AttrValue;
using tensorflow::DataType;
using tensorflow::FunctionDef;
using tensorflow::NodeDef;

std::string attrString(const AttrMap& attrs, const std::string& name) {
  auto it = attrs.find(name);
  return it == attrs.end() || it->second.value_case() != AttrValue::kS ? std::string() : it->second.s();
}

// Output arguments of ops the op metadata does not describe and whose
// outputs are not a single argument (TensorFlow's op registrations), and
// the sizes of variadic outputs that precede others. A count names the attr
// that sizes a variadic argument: number_attr, or "list:" + a type-list attr.
struct OutputArg {
  const char* name;
  const char* count;
};
const std::map<std::string, std::vector<OutputArg>>& builtinOutputArgs() {
  static const std::map<std::string, std::vector<OutputArg>> table = {
      {"CudnnRNNV2", {{"output", ""}, {"output_h", ""}, {"output_c", ""}, {"reserve_space", ""}, {"host_reserved", ""}}},
      {"CudnnRNNV3", {{"output", ""}, {"output_h", ""}, {"output_c", ""}, {"reserve_space", ""}, {"host_reserved", ""}}},
      {"CudnnRNNBackpropV2",
       {{"input_backprop", ""}, {"input_h_backprop", ""}, {"input_c_backprop", ""}, {"params_backprop", ""}}},
      {"CudnnRNNBackpropV3",
       {{"input_backprop", ""}, {"input_h_backprop", ""}, {"input_c_backprop", ""}, {"params_backprop", ""}}},
      {"StatelessRandomGetKeyCounterAlg", {{"key", ""}, {"counter", ""}, {"alg", ""}}},
      {"TensorListPopBack", {{"output_handle", ""}, {"tensor", ""}}},
      {"UniqueV2", {{"y", ""}, {"idx", ""}}},
      {"UniqueWithCounts", {{"y", ""}, {"idx", ""}, {"count", ""}}},
      {"FusedBatchNormGradV3",
       {{"x_backprop", ""}, {"scale_backprop", ""}, {"offset_backprop", ""}, {"reserve_space_4", ""},
        {"reserve_space_5", ""}}},
      {"ParseExample",
       {{"sparse_indices", "Nsparse"}, {"sparse_values", "list:sparse_types"}, {"sparse_shapes", "Nsparse"},
        {"dense_values", "list:Tdense"}}},
  };
  return table;
}

// Ops whose outputs are one list argument, whatever its name.
bool singleListOutput(const std::string& op) {
  return isPartitionedCall(op) || isFunctionalControlFlow(op) || op == "IdentityN" || op == "_SwitchN" ||
         op == "SymbolicGradient";
}

// Number of tensors an OpDef argument stands for in `node`.
Result<int> argCount(const tensorflow::OpDef::ArgDef& arg, const NodeDef& node) {
  if (!arg.number_attr().empty()) {
    const AttrValue* n = findAttr(node, arg.number_attr());
    if (!n || n->value_case() != AttrValue::kI || n->i() < 0 || n->i() > (1 << 24))
      return Status::Error("attr '" + arg.number_attr() + "' (size of output '" + arg.name() +
                           "') is missing or out of range");
    return static_cast<int>(n->i());
  }
  if (!arg.type_list_attr().empty()) {
    const AttrValue* l = findAttr(node, arg.type_list_attr());
    if (!l) return Status::Error("attr '" + arg.type_list_attr() + "' (types of output '" + arg.name() + "') is missing");
    return l->list().type_size();
  }
  return 1;
}

Result<int> indexInArgs(const google::protobuf::RepeatedPtrField<tensorflow::OpDef::ArgDef>& args, const NodeDef& node,
                        const std::string& arg, int index) {
  int flat = 0;
  for (const auto& a : args) {
    auto count = argCount(a, node);
    if (a.name() == arg) {
      if (count.ok() && index >= *count)
        return Status::Error("output '" + arg + "' has " + std::to_string(*count) + " tensors, index " +
                             std::to_string(index) + " asked for");
      return flat + index;
    }
    if (!count.ok()) return count.status();
    flat += *count;
  }
  std::string names;
  for (const auto& a : args) names += (names.empty() ? "" : ", ") + a.name();
  return Status::Error("op " + node.op() + " has no output '" + arg + "' (its outputs: " + names + ")");
}

// "a:b:c" -> {"a", "b", "c"}.
std::vector<std::string> splitColons(const std::string& s) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t c = s.find(':', start);
    parts.push_back(s.substr(start, c == std::string::npos ? std::string::npos : c - start));
    if (c == std::string::npos) break;
    start = c + 1;
  }
  return parts;
}

bool parseNonNegative(const std::string& s, int* v) {
  if (s.empty() || s.size() > 9 || !std::all_of(s.begin(), s.end(), ::isdigit)) return false;
  *v = std::stoi(s);
  return true;
}

std::string tensorName(const std::string& node, int port) {
  return port == 0 ? node : node + ":" + std::to_string(port);
}

std::string canonical(const std::string& input) {
  TensorRef r = parseTensorName(input);
  return r.control ? "^" + r.node : tensorName(r.node, r.port);
}

bool sameArgTypes(const google::protobuf::RepeatedPtrField<tensorflow::OpDef::ArgDef>& a,
                  const google::protobuf::RepeatedPtrField<tensorflow::OpDef::ArgDef>& b) {
  if (a.size() != b.size()) return false;
  for (int i = 0; i < a.size(); ++i)
    if (a[i].type() != b[i].type() || a[i].type_attr() != b[i].type_attr() ||
        a[i].number_attr() != b[i].number_attr() || a[i].type_list_attr() != b[i].type_list_attr())
      return false;
  return true;
}

// Replaces attr placeholders ("$T" in a FunctionDef body) by the values the
// function is instantiated with, inside func attrs too.
Status substitutePlaceholders(AttrValue* value, const AttrMap& attrs, const std::string& function,
                              const std::string& node, const std::string& attr_name) {
  switch (value->value_case()) {
    case AttrValue::kPlaceholder: {
      auto it = attrs.find(value->placeholder());
      if (it == attrs.end())
        return Status::Error("function '" + function + "': node '" + node + "' attr '" + attr_name +
                             "' refers to attr '" + value->placeholder() + "', which the call does not set");
      AttrValue copy = it->second;
      *value = std::move(copy);
      return Status::Ok();
    }
    case AttrValue::kFunc:
      for (auto& [k, v] : *value->mutable_func()->mutable_attr())
        GDS_RETURN_IF_ERROR(substitutePlaceholders(&v, attrs, function, node, attr_name + "." + k));
      return Status::Ok();
    case AttrValue::kList:
      for (auto& f : *value->mutable_list()->mutable_func())
        for (auto& [k, v] : *f.mutable_attr())
          GDS_RETURN_IF_ERROR(substitutePlaceholders(&v, attrs, function, node, attr_name + "." + k));
      return Status::Ok();
    default:
      return Status::Ok();
  }
}

void collectFuncs(const AttrValue& v, std::vector<std::string>* out) {
  if (v.value_case() == AttrValue::kFunc) {
    out->push_back(v.func().name());
    for (const auto& [k, a] : v.func().attr()) collectFuncs(a, out);
  } else if (v.value_case() == AttrValue::kList) {
    for (const auto& f : v.list().func()) {
      out->push_back(f.name());
      for (const auto& [k, a] : f.attr()) collectFuncs(a, out);
    }
  }
}

constexpr const char* kMultiDeviceAttr = "_lower_as_multi_device_function";

}  // namespace

bool isFunctionalControlFlow(const std::string& op) {
  return op == "If" || op == "StatelessIf" || op == "While" || op == "StatelessWhile" || op == "Case" ||
         op == "StatelessCase";
}

bool isPartitionedCall(const std::string& op) { return op == "PartitionedCall" || op == "StatefulPartitionedCall"; }

FunctionLibrary::FunctionLibrary(const tensorflow::FunctionDefLibrary& library, const tensorflow::OpList* op_defs)
    : library_(&library) {
  for (const auto& f : library.function()) by_name_.emplace(f.signature().name(), &f);
  if (op_defs)
    for (const auto& op : op_defs->op()) op_defs_.emplace(op.name(), &op);
}

const FunctionDef* FunctionLibrary::find(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

const tensorflow::OpDef* FunctionLibrary::opDef(const std::string& op) const {
  auto it = op_defs_.find(op);
  return it == op_defs_.end() ? nullptr : it->second;
}

bool FunctionLibrary::callTarget(const NodeDef& node, std::string* function, const AttrMap** attrs) const {
  if (isPartitionedCall(node.op())) {
    const AttrValue* f = findAttr(node, "f");
    if (!f || f->value_case() != AttrValue::kFunc) {
      *function = "";
      *attrs = &node.attr();
      return true;  // a call without a function: reported by the inliner
    }
    *function = f->func().name();
    *attrs = &f->func().attr();
    return true;
  }
  if (by_name_.count(node.op())) {
    *function = node.op();
    *attrs = &node.attr();
    return true;
  }
  return false;
}

std::vector<std::string> FunctionLibrary::referencedFunctions(const NodeDef& node) const {
  std::vector<std::string> out;
  if (by_name_.count(node.op())) out.push_back(node.op());
  for (const auto& [k, v] : node.attr()) collectFuncs(v, &out);
  return out;
}

std::vector<std::string> FunctionLibrary::reachable(const std::string& name) const {
  std::vector<std::string> order;
  std::unordered_set<std::string> seen;
  std::deque<std::string> todo{name};
  while (!todo.empty()) {
    std::string f = todo.front();
    todo.pop_front();
    if (!seen.insert(f).second) continue;
    const FunctionDef* def = find(f);
    if (!def) continue;
    order.push_back(f);
    for (const auto& n : def->node_def())
      for (auto& g : referencedFunctions(n)) todo.push_back(std::move(g));
  }
  return order;
}

Result<int> FunctionLibrary::outputIndex(const NodeDef& node, const std::string& arg, int index,
                                         std::string* warning) const {
  const std::string& op = node.op();
  if (singleListOutput(op)) return index;
  if (const FunctionDef* f = find(op)) return indexInArgs(f->signature().output_arg(), node, arg, index);
  if (const tensorflow::OpDef* def = opDef(op)) return indexInArgs(def->output_arg(), node, arg, index);
  if (const auto* outs = OpRegistry::instance().outputArgs(op); outs && !outs->empty()) {
    int flat = 0;
    for (const auto& out : *outs) {
      const bool variadic = out.is_list;
      const std::string& name = out.name;
      if (name == arg) {
        if (!variadic && index != 0)
          return Status::Error("op " + op + " output '" + arg + "' is a single tensor, index " +
                               std::to_string(index) + " asked for");
        return flat + index;
      }
      if (variadic) break;  // its size is unknown here; fall through to the table
      ++flat;
    }
  }
  auto table = builtinOutputArgs().find(op);
  if (table != builtinOutputArgs().end()) {
    int flat = 0;
    for (const auto& a : table->second) {
      int count = 1;
      std::string rule = a.count;
      if (!rule.empty()) {
        bool list = rule.rfind("list:", 0) == 0;
        const AttrValue* v = findAttr(node, list ? rule.substr(5) : rule);
        if (!v || (!list && (v->i() < 0 || v->i() > (1 << 24))))
          return Status::Error("op " + op + ": attr '" + (list ? rule.substr(5) : rule) + "' is missing or out of range");
        count = list ? v->list().type_size() : static_cast<int>(v->i());
      }
      if (arg == a.name) {
        if (index >= count)
          return Status::Error("op " + op + " output '" + arg + "' has " + std::to_string(count) + " tensors");
        return flat + index;
      }
      flat += count;
    }
    return Status::Error("op " + op + " has no output '" + arg + "'");
  }
  if (const auto* meta = OpRegistry::instance().find(op); meta && meta->outputs_size() > 0)
    return Status::Error("op " + op + ": cannot tell which output '" + arg + ":" + std::to_string(index) +
                         "' is (it follows an output whose size is not known here)");
  if (warning)
    *warning = "op " + op + " is not known; its output '" + arg + "' is taken to be its first output";
  return index;
}

const FunctionDef* FunctionLibrary::cpuImplementation(const FunctionDef& function) const {
  std::string api = attrString(function.attr(), "api_implements");
  std::string device = attrString(function.attr(), "api_preferred_device");
  if (api.empty() || device.empty() || device == "CPU") return nullptr;
  for (const auto& f : library_->function()) {
    if (&f == &function) continue;
    if (attrString(f.attr(), "api_implements") != api || attrString(f.attr(), "api_preferred_device") != "CPU")
      continue;
    if (sameArgTypes(f.signature().input_arg(), function.signature().input_arg()) &&
        sameArgTypes(f.signature().output_arg(), function.signature().output_arg()))
      return &f;
  }
  return nullptr;
}

Result<std::vector<DataType>> argumentTypes(const FunctionDef& function, const AttrMap& attrs, bool outputs) {
  const auto& args = outputs ? function.signature().output_arg() : function.signature().input_arg();
  std::vector<DataType> types;
  for (const auto& a : args) {
    if (!a.number_attr().empty() || !a.type_list_attr().empty())
      return Status::Error("function '" + function.signature().name() + "': " + (outputs ? "output" : "argument") +
                           " '" + a.name() + "' is a list of tensors, which calls cannot be inlined with");
    if (a.type() != tensorflow::DT_INVALID) {
      types.push_back(a.type());
      continue;
    }
    auto it = attrs.find(a.type_attr());
    if (a.type_attr().empty() || it == attrs.end() || it->second.value_case() != AttrValue::kType)
      return Status::Error("function '" + function.signature().name() + "': the type of " +
                           (outputs ? "output" : "argument") + " '" + a.name() + "' (attr '" + a.type_attr() +
                           "') is not set by the call");
    types.push_back(it->second.type());
  }
  return types;
}

namespace {

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

Result<InlineResult> Inliner::run() {
  nodes_.reserve(static_cast<size_t>(graph_.node_size()));
  for (const auto& n : graph_.node()) {
    if (index_.count(n.name())) return Status::Error("duplicate node name '" + n.name() + "'");
    add(n, -1);
  }
  for (int round = 0;; ++round) {
    std::vector<int> candidates;
    for (int i = 0; i < static_cast<int>(nodes_.size()); ++i)
      if (alive_[static_cast<size_t>(i)] && isCandidate(nodes_[static_cast<size_t>(i)])) candidates.push_back(i);
    if (candidates.empty()) break;
    if (round >= options_.max_depth) {
      const NodeDef& n = nodes_[static_cast<size_t>(candidates[0])];
      return Status::Error("function calls are nested more than " + std::to_string(options_.max_depth) +
                           " levels deep at node '" + n.name() + "' (" + chainText(chain_[static_cast<size_t>(candidates[0])], n.op()) + ")");
    }
    replaced_.clear();
    for (int i : candidates) {
      const std::string op = nodes_[static_cast<size_t>(i)].op();
      Status s;
      if (op == "If" || op == "StatelessIf") s = lowerIf(i);
      else if (op == "While" || op == "StatelessWhile") s = lowerWhile(i);
      else if (op == "Case" || op == "StatelessCase") s = lowerCase(i);
      else s = inlineCall(i);
      GDS_RETURN_IF_ERROR(s);
    }
    GDS_RETURN_IF_ERROR(rewriteInputs());
  }

  tensorflow::GraphDef& out = result_.graph;
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (alive_[i]) *out.add_node() = std::move(nodes_[i]);
  if (graph_.has_versions()) *out.mutable_versions() = graph_.versions();
  if (options_.keep_library && graph_.has_library()) {
    // Keep only the functions the result still reaches.
    std::unordered_set<std::string> keep;
    for (const auto& n : out.node())
      for (const auto& f : lib_.referencedFunctions(n))
        for (const auto& g : lib_.reachable(f)) keep.insert(g);
    for (const auto& f : graph_.library().function())
      if (keep.count(f.signature().name())) *out.mutable_library()->add_function() = f;
    for (const auto& g : graph_.library().gradient())
      if (keep.count(g.function_name())) *out.mutable_library()->add_gradient() = g;
  }
  return std::move(result_);
}

Status Inliner::inlineCall(int ci) {
  NodeDef caller = nodes_[static_cast<size_t>(ci)];
  const int caller_chain = chain_[static_cast<size_t>(ci)];
  std::string fname;
  const AttrMap* inst = nullptr;
  lib_.callTarget(caller, &fname, &inst);
  if (fname.empty())
    return Status::Error("node '" + caller.name() + "' (" + caller.op() + ") has no function attr 'f'");
  const FunctionDef* fdef = lib_.find(fname);
  if (!fdef)
    return Status::Error("node '" + caller.name() + "' (" + caller.op() + ") calls function '" + fname +
                         "', which is not in the function library");
  AttrMap attrs = *inst;  // the caller may be gone from nodes_ by the time they are read
  InlinedNode record{caller.name(), caller.op(), fname, "", parentNode(caller_chain)};
  if (options_.prefer_cpu_implementation) {
    if (const FunctionDef* cpu = lib_.cpuImplementation(*fdef)) {
      record.requested = fname;
      fdef = cpu;
      fname = fdef->signature().name();
      record.function = fname;
    } else if (!attrString(fdef->attr(), "api_preferred_device").empty() &&
               attrString(fdef->attr(), "api_preferred_device") != "CPU" && warned_.insert(fname).second) {
      result_.warnings.push_back("function '" + fname + "' is meant for " +
                                 attrString(fdef->attr(), "api_preferred_device") +
                                 " and the library has no CPU implementation of '" +
                                 attrString(fdef->attr(), "api_implements") + "'; it is inlined as it is");
    }
  }
  for (int c = caller_chain; c >= 0; c = chains_[static_cast<size_t>(c)].parent)
    if (chains_[static_cast<size_t>(c)].function == fname)
      return Status::Error("function '" + fname + "' calls itself (" + chainText(caller_chain, fname) +
                           ", at node '" + caller.name() + "'); recursive functions cannot be inlined");

  const auto& sig = fdef->signature();
  std::vector<std::string> data_inputs, control_inputs;
  for (const auto& in : caller.input()) {
    if (!in.empty() && in[0] == '^') control_inputs.push_back(in.substr(1));
    else data_inputs.push_back(canonical(in));
  }
  auto in_types = argumentTypes(*fdef, attrs, false);
  if (!in_types.ok()) return in_types.status().withContext("node '" + caller.name() + "'");
  auto out_types = argumentTypes(*fdef, attrs, true);
  if (!out_types.ok()) return out_types.status().withContext("node '" + caller.name() + "'");
  if (data_inputs.size() != in_types->size()) {
    std::string names;
    for (const auto& a : sig.input_arg()) names += (names.empty() ? "" : ", ") + a.name();
    return Status::Error("node '" + caller.name() + "' passes " + std::to_string(data_inputs.size()) +
                         " inputs to function '" + fname + "', which takes " + std::to_string(in_types->size()) +
                         (names.empty() ? "" : " (" + names + ")"));
  }
  if (const AttrValue* tout = findAttr(caller, "Tout"); tout && isPartitionedCall(caller.op()) &&
                                                        tout->list().type_size() != static_cast<int>(out_types->size()))
    return Status::Error("node '" + caller.name() + "' expects " + std::to_string(tout->list().type_size()) +
                         " outputs from function '" + fname + "', which returns " +
                         std::to_string(out_types->size()));
  GDS_RETURN_IF_ERROR(budget(fdef->node_def_size() + 4, "inlining function '" + fname + "' at node '" + caller.name() + "'"));

  // Body node names: "<caller>/<node>", with another prefix in the rare case
  // the graph already holds such names.
  std::string prefix;
  for (int k = 0;; ++k) {
    prefix = (k == 0 ? caller.name() : caller.name() + "_" + std::to_string(k)) + "/";
    bool clash = false;
    for (const auto& n : fdef->node_def())
      if (index_.count(prefix + n.name())) {
        clash = true;
        break;
      }
    if (!clash) break;
  }
  std::unordered_set<std::string> reserved;
  std::unordered_map<std::string, const NodeDef*> body;
  for (const auto& n : fdef->node_def()) {
    if (!body.emplace(n.name(), &n).second)
      return Status::Error("function '" + fname + "' has two nodes named '" + n.name() + "'");
    reserved.insert(prefix + n.name());
  }
  std::unordered_map<std::string, int> arg_index;
  for (int a = 0; a < sig.input_arg_size(); ++a) arg_index.emplace(sig.input_arg(a).name(), a);

  const int chain = static_cast<int>(chains_.size());
  chains_.push_back({fname, caller.name(), caller_chain});
  remove(ci);

  // The caller's control inputs gate the whole body (input_control_node).
  std::string input_control;
  std::vector<std::string> arg_tensor = data_inputs;
  if (!control_inputs.empty()) {
    input_control = uniqueName(prefix + "input_control_node", reserved);
    NodeDef noop = makeNode(input_control, "NoOp");
    for (const auto& c : control_inputs) noop.add_input("^" + c);
    add(std::move(noop), chain);
    // Arguments pass through Identity nodes that wait for it, as TensorFlow's do.
    for (size_t a = 0; a < arg_tensor.size(); ++a) {
      NodeDef id = makeNode(uniqueName(prefix + "input/" + sig.input_arg(static_cast<int>(a)).name(), reserved), "Identity");
      id.add_input(arg_tensor[a]);
      id.add_input("^" + input_control);
      (*id.mutable_attr())["T"].set_type((*in_types)[a]);
      arg_tensor[a] = id.name();
      add(std::move(id), chain);
    }
  }

  // Resolves a reference of the body ("arg", "node:out:0", "^node").
  std::unordered_map<std::string, NodeDef> substituted;
  auto resolve = [&](const std::string& ref, const std::string& reader) -> Result<std::string> {
    auto where = [&] { return "function '" + fname + "': " + reader + " reads '" + ref + "'"; };
    if (!ref.empty() && ref[0] == '^') {
      std::string name = ref.substr(1);
      if (auto a = arg_index.find(name); a != arg_index.end())
        return "^" + std::string(nodeNameOf(arg_tensor[static_cast<size_t>(a->second)]));
      if (body.count(name)) return "^" + prefix + name;
      return Status::Error(where() + ", which is neither an argument nor a node of the function");
    }
    std::vector<std::string> parts = splitColons(ref);
    if (auto a = arg_index.find(parts[0]); a != arg_index.end()) {
      int k = 0;
      if (parts.size() > 2 || (parts.size() == 2 && (!parseNonNegative(parts[1], &k) || k != 0)))
        return Status::Error(where() + ": argument '" + parts[0] + "' is a single tensor");
      return arg_tensor[static_cast<size_t>(a->second)];
    }
    auto b = body.find(parts[0]);
    if (b == body.end())
      return Status::Error(where() + ", which is neither an argument nor a node of the function");
    int port = 0;
    if (parts.size() == 3) {
      int k = 0;
      if (!parseNonNegative(parts[2], &k)) return Status::Error(where() + ": bad output index");
      auto s = substituted.find(parts[0]);
      const NodeDef& producer = s != substituted.end() ? s->second : *b->second;
      std::string warning;
      auto index = lib_.outputIndex(producer, parts[1], k, &warning);
      if (!index.ok()) return Status::Error(where() + ": " + index.error());
      if (!warning.empty() && warned_.insert(warning).second) result_.warnings.push_back(warning);
      port = *index;
    } else if (parts.size() == 2) {
      if (!parseNonNegative(parts[1], &port)) return Status::Error(where() + ": bad output index");
    } else if (parts.size() != 1) {
      return Status::Error(where() + ": expected 'node:output:index'");
    }
    return tensorName(prefix + parts[0], port);
  };

  // Attrs first (output counts may depend on them), then inputs.
  for (const auto& n : fdef->node_def()) {
    NodeDef copy = n;
    for (auto& [k, v] : *copy.mutable_attr()) GDS_RETURN_IF_ERROR(substitutePlaceholders(&v, attrs, fname, n.name(), k));
    substituted.emplace(n.name(), std::move(copy));
  }
  for (const auto& n : fdef->node_def()) {
    NodeDef copy = substituted.at(n.name());
    const bool had_inputs = copy.input_size() > 0;
    bool had_control = false;
    for (int k = 0; k < copy.input_size(); ++k) {
      auto r = resolve(copy.input(k), "node '" + n.name() + "'");
      if (!r.ok()) return r.status();
      if (copy.input(k)[0] == '^') had_control = true;
      copy.set_input(k, *r);
    }
    copy.set_name(prefix + n.name());
    // Loop frames stay unique per inlined copy (uniquify_frame_names).
    if (copy.op() == "Enter" || copy.op() == "RefEnter")
      if (auto it = copy.mutable_attr()->find("frame_name"); it != copy.mutable_attr()->end())
        it->second.set_s(prefix + it->second.s());
    if (auto cls = copy.mutable_attr()->find("_class"); cls != copy.mutable_attr()->end())
      for (auto& s : *cls->second.mutable_list()->mutable_s()) {
        if (s.rfind("loc:@", 0) != 0) continue;
        std::string target = s.substr(5);
        if (body.count(target)) s = "loc:@" + prefix + target;
        else if (auto a = arg_index.find(target); a != arg_index.end())
          s = "loc:@" + std::string(nodeNameOf(arg_tensor[static_cast<size_t>(a->second)]));
      }
    // Nodes without inputs, and calls, run only when the call would have
    // (forwarding the execution frame, as InlineFunctionBody does).
    if (!input_control.empty() && (!had_inputs || (isCall(copy) && !had_control))) copy.add_input("^" + input_control);
    if (!copy.has_experimental_debug_info()) {
      copy.mutable_experimental_debug_info()->add_original_node_names(n.name());
      copy.mutable_experimental_debug_info()->add_original_func_names(fname);
    }
    add(std::move(copy), chain);
  }

  Replaced r;
  r.function = fname;
  r.outputs = sig.output_arg_size();
  r.prefix = prefix;
  r.input_control = input_control;
  for (const auto& out : sig.output_arg()) {
    auto ret = fdef->ret().find(out.name());
    if (ret == fdef->ret().end())
      return Status::Error("function '" + fname + "': output '" + out.name() + "' has no return value");
    auto t = resolve(ret->second, "return value '" + out.name() + "'");
    if (!t.ok()) return t.status();
    r.outputs_to.push_back(*t);
  }
  // TF2 calls (and the branch calls of lowered control flow) finish when
  // their control outputs have run; other calls when their data outputs have.
  const AttrValue* multi = findAttr(caller, kMultiDeviceAttr);
  if (isPartitionedCall(caller.op()) || (multi && multi->b())) {
    std::vector<std::string> names(sig.control_output().begin(), sig.control_output().end());
    if (names.empty())
      for (const auto& [k, v] : fdef->control_ret()) names.push_back(k);
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    for (const auto& k : names) {
      auto it = fdef->control_ret().find(k);
      if (it == fdef->control_ret().end())
        return Status::Error("function '" + fname + "': control output '" + k + "' has no node");
      if (!body.count(it->second))
        return Status::Error("function '" + fname + "': control output '" + k + "' names '" + it->second +
                             "', which is not a node of the function");
      r.control_sources.push_back(prefix + it->second);
    }
  } else {
    for (const auto& t : r.outputs_to) r.control_sources.push_back(std::string(nodeNameOf(t)));
  }
  result_.inlined.push_back(record);
  return finishReplacement(ci, std::move(r), *out_types);
}

// Registers what replaced node `i` and, when asked, keeps its name fetchable.
Status Inliner::finishReplacement(int i, Replaced r, const std::vector<DataType>& output_types) {
  const NodeDef& old = nodes_[static_cast<size_t>(i)];
  std::string name = old.name();
  remove(i);
  if (options_.keep_fetchable.count(name)) {
    // An IdentityN (NoOp without outputs) of the same name: its outputs and
    // its completion stay addressable by name.
    replaced_.emplace(name, r);
    auto control = resolveControl(name);
    if (!control.ok()) return control.status();
    NodeDef keep = makeNode(name, r.outputs_to.empty() ? "NoOp" : "IdentityN");
    for (const auto& t : r.outputs_to) keep.add_input(t);
    if (!control->empty()) keep.add_input("^" + *control);
    if (!r.outputs_to.empty())
      for (DataType t : output_types) (*keep.mutable_attr())["T"].mutable_list()->add_type(t);
    add(std::move(keep), chain_[static_cast<size_t>(i)]);
    // Its consumers still read the outputs directly and wait for the control
    // node, so the IdentityN itself is only for fetching.
    return Status::Ok();
  }
  replaced_.emplace(name, std::move(r));
  return Status::Ok();
}

Result<std::string> Inliner::resolveData(const std::string& input) {
  TensorRef ref = parseTensorName(input);
  std::string node = ref.node;
  int port = ref.port;
  for (size_t steps = 0; steps <= replaced_.size(); ++steps) {
    auto it = replaced_.find(node);
    if (it == replaced_.end()) break;
    const Replaced& r = it->second;
    if (port < 0 || port >= static_cast<int>(r.outputs_to.size()))
      return Status::Error("output " + std::to_string(port) + " of '" + node + "' is read, but " +
                           (r.function.empty() ? std::string("it") : "function '" + r.function + "'") + " has " +
                           std::to_string(r.outputs_to.size()) + " outputs");
    TensorRef next = parseTensorName(r.outputs_to[static_cast<size_t>(port)]);
    node = next.node;
    port = next.port;
  }
  return tensorName(node, port);
}

Result<std::string> Inliner::resolveControl(const std::string& start) {
  std::string node = start;
  for (size_t steps = 0; steps <= replaced_.size(); ++steps) {
    auto it = replaced_.find(node);
    if (it == replaced_.end()) return node;
    Replaced& r = it->second;
    if (r.control_node.empty()) {
      // output_control_node: waits for what the call's completion means.
      std::string name = uniqueName(r.prefix.empty() ? node + "/output_control_node" : r.prefix + "output_control_node");
      NodeDef noop = makeNode(name, "NoOp");
      std::vector<std::string> sources = r.control_sources;
      if (sources.empty() && !r.input_control.empty()) sources.push_back(r.input_control);
      r.control_node = name;
      for (const auto& s : sources) {
        auto resolved = resolveControl(s);
        if (!resolved.ok()) return resolved.status();
        noop.add_input("^" + *resolved);
      }
      int chain = -1;
      add(std::move(noop), chain);
    }
    node = r.control_node;
  }
  return node;
}

Status Inliner::rewriteInputs() {
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (!alive_[i]) continue;
    bool changed = false;
    for (int k = 0; k < nodes_[i].input_size(); ++k) {
      const std::string in = nodes_[i].input(k);
      if (in.empty()) continue;
      TensorRef ref = parseTensorName(in);
      if (!replaced_.count(ref.node)) continue;
      // (resolveControl may add an output_control_node: no reference into
      // nodes_ is held across it.)
      Result<std::string> r = ref.control ? resolveControl(ref.node) : resolveData(in);
      if (!r.ok()) return r.status().withContext("node '" + nodes_[i].name() + "'");
      nodes_[i].set_input(k, ref.control ? "^" + *r : *r);
      changed = true;
    }
    if (!changed) continue;
    NodeDef& n = nodes_[i];
    // Rewiring can repeat a control input; keep the first.
    std::unordered_set<std::string> seen;
    int w = 0;
    for (int k = 0; k < n.input_size(); ++k) {
      const std::string in = n.input(k);
      if (!in.empty() && in[0] == '^' && !seen.insert(in).second) continue;
      n.set_input(w++, in);
    }
    while (n.input_size() > w) n.mutable_input()->RemoveLast();
  }
  return Status::Ok();
}

// Shared by the three lowerings: reads the node's inputs and a type list attr.
struct LoweringInputs {
  std::vector<std::string> data;
  std::vector<std::string> control;
};
LoweringInputs splitInputs(const NodeDef& n) {
  LoweringInputs r;
  for (const auto& in : n.input()) {
    if (!in.empty() && in[0] == '^') r.control.push_back(in.substr(1));
    else r.data.push_back(canonical(in));
  }
  return r;
}
Result<std::vector<DataType>> typeList(const NodeDef& n, const std::string& attr, size_t expected) {
  const AttrValue* v = findAttr(n, attr);
  if (!v) return Status::Error("node '" + n.name() + "' (" + n.op() + ") has no attr '" + attr + "'");
  std::vector<DataType> types;
  for (int t : v->list().type()) types.push_back(static_cast<DataType>(t));
  if (expected != static_cast<size_t>(-1) && types.size() != expected)
    return Status::Error("node '" + n.name() + "' (" + n.op() + "): attr '" + attr + "' lists " +
                         std::to_string(types.size()) + " types for " + std::to_string(expected) + " tensors");
  return types;
}
Result<tensorflow::NameAttrList> funcAttr(const NodeDef& n, const std::string& attr) {
  const AttrValue* v = findAttr(n, attr);
  if (!v || v->value_case() != AttrValue::kFunc)
    return Status::Error("node '" + n.name() + "' (" + n.op() + ") has no function attr '" + attr + "'");
  return v->func();
}

Status Inliner::lowerIf(int i) {
  NodeDef n = nodes_[static_cast<size_t>(i)];
  const int chain = chain_[static_cast<size_t>(i)];
  LoweringInputs in = splitInputs(n);
  if (in.data.empty()) return Status::Error("node '" + n.name() + "' (" + n.op() + ") has no condition input");
  if (const AttrValue* tcond = findAttr(n, "Tcond"); tcond && tcond->type() != tensorflow::DT_BOOL)
    return Status::Error("node '" + n.name() + "' (" + n.op() + "): its condition is " + dtypeName(tcond->type()) +
                         "; only bool conditions can be lowered to Switch/Merge");
  auto tin = typeList(n, "Tin", in.data.size() - 1);
  if (!tin.ok()) return tin.status();
  auto tout = typeList(n, "Tout", static_cast<size_t>(-1));
  if (!tout.ok()) return tout.status();
  auto then_fn = funcAttr(n, "then_branch");
  if (!then_fn.ok()) return then_fn.status();
  auto else_fn = funcAttr(n, "else_branch");
  if (!else_fn.ok()) return else_fn.status();
  GDS_RETURN_IF_ERROR(budget(static_cast<std::int64_t>(in.data.size() + tout->size()) + 8, "lowering node '" + n.name() + "'"));
  const std::string cond = in.data[0];
  const std::string p = n.name() + "/";
  auto boolAttr = [](NodeDef* x, DataType t) { (*x->mutable_attr())["T"].set_type(t); };

  NodeDef sw = makeNode(uniqueName(p + "switch_pred"), "Switch");
  sw.add_input(cond);
  sw.add_input(cond);
  for (const auto& c : in.control) sw.add_input("^" + c);
  boolAttr(&sw, tensorflow::DT_BOOL);
  std::string switch_pred = sw.name();
  add(std::move(sw), chain);
  std::string pivot[2];
  for (int b = 0; b < 2; ++b) {
    NodeDef piv = makeNode(uniqueName(p + (b ? "pivot_t" : "pivot_f")), "Identity");
    piv.add_input(tensorName(switch_pred, b));
    boolAttr(&piv, tensorflow::DT_BOOL);
    pivot[b] = piv.name();
    add(std::move(piv), chain);
  }
  const int new_chain = static_cast<int>(chains_.size());
  chains_.push_back({"", n.name(), chain});
  NodeDef call[2] = {makeNode("", else_fn->name()), makeNode("", then_fn->name())};
  for (size_t a = 1; a < in.data.size(); ++a) {
    NodeDef s = makeNode(uniqueName(p + "switch_" + std::to_string(a - 1)), "Switch");
    s.add_input(in.data[a]);
    s.add_input(cond);
    boolAttr(&s, (*tin)[a - 1]);
    call[0].add_input(tensorName(s.name(), 0));
    call[1].add_input(tensorName(s.name(), 1));
    add(std::move(s), chain);
  }
  const tensorflow::NameAttrList* fns[2] = {&*else_fn, &*then_fn};
  std::string call_name[2];
  for (int b = 1; b >= 0; --b) {
    call[b].set_name(uniqueName(p + (b ? "then" : "else")));
    call[b].add_input("^" + pivot[b]);
    *call[b].mutable_attr() = fns[b]->attr();
    (*call[b].mutable_attr())[kMultiDeviceAttr].set_b(true);
    call_name[b] = call[b].name();
    if (!lib_.find(fns[b]->name()))
      return Status::Error("node '" + n.name() + "' (" + n.op() + ") branch calls function '" + fns[b]->name() +
                           "', which is not in the function library");
    add(std::move(call[b]), new_chain);
  }
  Replaced r;
  for (size_t j = 0; j < tout->size(); ++j) {
    NodeDef m = makeNode(uniqueName(p + "output_" + std::to_string(j)), "Merge");
    m.add_input(tensorName(call_name[1], static_cast<int>(j)));
    m.add_input(tensorName(call_name[0], static_cast<int>(j)));
    boolAttr(&m, (*tout)[j]);
    (*m.mutable_attr())["N"].set_i(2);
    r.outputs_to.push_back(m.name());
    add(std::move(m), chain);
  }
  NodeDef executed = makeNode(uniqueName(p + "branch_executed"), "Merge");
  executed.add_input(pivot[1]);
  executed.add_input(pivot[0]);
  executed.add_input("^" + call_name[1]);
  executed.add_input("^" + call_name[0]);
  boolAttr(&executed, tensorflow::DT_BOOL);
  (*executed.mutable_attr())["N"].set_i(2);
  r.control_node = executed.name();
  add(std::move(executed), chain);
  r.outputs = static_cast<int>(tout->size());
  result_.inlined.push_back({n.name(), n.op(), "", "", parentNode(chain)});
  return finishReplacement(i, std::move(r), *tout);
}

Status Inliner::lowerWhile(int i) {
  NodeDef n = nodes_[static_cast<size_t>(i)];
  const int chain = chain_[static_cast<size_t>(i)];
  LoweringInputs in = splitInputs(n);
  auto types = typeList(n, "T", in.data.size());
  if (!types.ok()) return types.status();
  auto cond_fn = funcAttr(n, "cond");
  if (!cond_fn.ok()) return cond_fn.status();
  auto body_fn = funcAttr(n, "body");
  if (!body_fn.ok()) return body_fn.status();
  for (const auto* f : {&*cond_fn, &*body_fn})
    if (!lib_.find(f->name()))
      return Status::Error("node '" + n.name() + "' (" + n.op() + ") calls function '" + f->name() +
                           "', which is not in the function library");
  std::int64_t parallel = 10;
  if (const AttrValue* pi = findAttr(n, "parallel_iterations")) parallel = pi->i();
  if (parallel < 1)
    return Status::Error("node '" + n.name() + "' (" + n.op() + "): parallel_iterations must be > 0, got " +
                         std::to_string(parallel));
  const size_t count = in.data.size();
  auto isResource = [&](size_t k) { return (*types)[k] == tensorflow::DT_RESOURCE; };
  size_t first_value = count;
  for (size_t k = 0; k < count; ++k)
    if (!isResource(k)) {
      first_value = k;
      break;
    }
  if (first_value == count)
    return Status::Error("node '" + n.name() + "' (" + n.op() + ") has no loop variable that is not a resource");
  GDS_RETURN_IF_ERROR(budget(static_cast<std::int64_t>(count) * 5 + 8, "lowering node '" + n.name() + "'"));
  const std::string p = n.name() + "/";
  auto setT = [](NodeDef* x, DataType t) { (*x->mutable_attr())["T"].set_type(t); };

  std::string control_inputs;
  if (!in.control.empty()) {
    NodeDef c = makeNode(uniqueName(p + "LoopControlInputs"), "NoOp");
    for (const auto& s : in.control) c.add_input("^" + s);
    control_inputs = c.name();
    add(std::move(c), chain);
  }
  std::vector<std::string> enter(count), merge(count), sw(count), exit_(count);
  for (size_t k = 0; k < count; ++k) {
    NodeDef e = makeNode(uniqueName(p + "enter_" + std::to_string(k)), "Enter");
    e.add_input(in.data[k]);
    if (!control_inputs.empty()) e.add_input("^" + control_inputs);
    setT(&e, (*types)[k]);
    (*e.mutable_attr())["frame_name"].set_s(n.name());
    (*e.mutable_attr())["parallel_iterations"].set_i(parallel);
    (*e.mutable_attr())["is_constant"].set_b(isResource(k));
    enter[k] = e.name();
    add(std::move(e), chain);
  }
  // Merge inputs: Enter, then NextIteration (named now, added below).
  std::vector<std::string> next(count);
  for (size_t k = 0; k < count; ++k) {
    if (isResource(k)) continue;
    next[k] = uniqueName(p + "next_iteration_" + std::to_string(k));
    NodeDef m = makeNode(uniqueName(p + "merge_" + std::to_string(k)), "Merge");
    m.add_input(enter[k]);
    m.add_input(next[k]);
    setT(&m, (*types)[k]);
    (*m.mutable_attr())["N"].set_i(2);
    merge[k] = m.name();
    add(std::move(m), chain);
    index_[next[k]] = -1;  // reserve the name
  }
  const int new_chain = static_cast<int>(chains_.size());
  chains_.push_back({"", n.name(), chain});
  NodeDef cond = makeNode(uniqueName(p + "cond"), cond_fn->name());
  for (size_t k = 0; k < count; ++k) cond.add_input(isResource(k) ? enter[k] : merge[k]);
  cond.add_input("^" + merge[first_value]);
  *cond.mutable_attr() = cond_fn->attr();
  (*cond.mutable_attr())[kMultiDeviceAttr].set_b(true);
  std::string cond_name = cond.name();
  add(std::move(cond), new_chain);
  NodeDef loop_cond = makeNode(uniqueName(p + "LoopCond"), "LoopCond");
  loop_cond.add_input(cond_name);
  std::string loop_cond_name = loop_cond.name();
  add(std::move(loop_cond), chain);
  for (size_t k = 0; k < count; ++k) {
    if (isResource(k)) continue;
    NodeDef s = makeNode(uniqueName(p + "switch_" + std::to_string(k)), "Switch");
    s.add_input(merge[k]);
    s.add_input(loop_cond_name);
    setT(&s, (*types)[k]);
    sw[k] = s.name();
    add(std::move(s), chain);
  }
  NodeDef body_control = makeNode(uniqueName(p + "loop_body_control"), "Identity");
  body_control.add_input(tensorName(sw[first_value], 1));
  setT(&body_control, (*types)[first_value]);
  std::string body_control_name = body_control.name();
  add(std::move(body_control), chain);
  NodeDef body = makeNode(uniqueName(p + "body"), body_fn->name());
  for (size_t k = 0; k < count; ++k) body.add_input(isResource(k) ? enter[k] : tensorName(sw[k], 1));
  body.add_input("^" + body_control_name);
  *body.mutable_attr() = body_fn->attr();
  (*body.mutable_attr())[kMultiDeviceAttr].set_b(true);
  std::string body_name = body.name();
  add(std::move(body), new_chain);
  Replaced r;
  NodeDef executed = makeNode(uniqueName(p + "LoopExecuted"), "NoOp");
  for (size_t k = 0; k < count; ++k) {
    if (isResource(k)) {
      // A resource output is the resource that went in (never read in practice).
      r.outputs_to.push_back(in.data[k]);
      continue;
    }
    NodeDef x = makeNode(uniqueName(p + "exit_" + std::to_string(k)), "Exit");
    x.add_input(sw[k]);
    setT(&x, (*types)[k]);
    exit_[k] = x.name();
    executed.add_input("^" + x.name());
    r.outputs_to.push_back(x.name());
    add(std::move(x), chain);
    index_.erase(next[k]);
    NodeDef ni = makeNode(next[k], "NextIteration");
    ni.add_input(tensorName(body_name, static_cast<int>(k)));
    ni.add_input("^" + body_name);
    setT(&ni, (*types)[k]);
    add(std::move(ni), chain);
  }
  r.control_node = executed.name();
  add(std::move(executed), chain);
  r.outputs = static_cast<int>(count);
  result_.inlined.push_back({n.name(), n.op(), "", "", parentNode(chain)});
  return finishReplacement(i, std::move(r), *types);
}

Status Inliner::lowerCase(int i) {
  NodeDef n = nodes_[static_cast<size_t>(i)];
  const int chain = chain_[static_cast<size_t>(i)];
  LoweringInputs in = splitInputs(n);
  if (in.data.empty()) return Status::Error("node '" + n.name() + "' (" + n.op() + ") has no branch_index input");
  auto tin = typeList(n, "Tin", in.data.size() - 1);
  if (!tin.ok()) return tin.status();
  auto tout = typeList(n, "Tout", static_cast<size_t>(-1));
  if (!tout.ok()) return tout.status();
  const AttrValue* branches = findAttr(n, "branches");
  if (!branches || branches->list().func_size() == 0)
    return Status::Error("node '" + n.name() + "' (" + n.op() + ") has no branch functions (attr 'branches')");
  const int nb = branches->list().func_size();
  for (const auto& f : branches->list().func())
    if (!lib_.find(f.name()))
      return Status::Error("node '" + n.name() + "' (" + n.op() + ") calls function '" + f.name() +
                           "', which is not in the function library");
  GDS_RETURN_IF_ERROR(budget(static_cast<std::int64_t>(in.data.size() + tout->size() + 2 * static_cast<size_t>(nb)) + 4,
                             "lowering node '" + n.name() + "'"));
  const std::string p = n.name() + "/";
  const std::string index = in.data[0];
  auto switchN = [&](const std::string& name, const std::string& data, DataType t) {
    NodeDef s = makeNode(uniqueName(name), "_SwitchN");
    s.add_input(data);
    s.add_input(index);
    (*s.mutable_attr())["T"].set_type(t);
    (*s.mutable_attr())["num_outs"].set_i(nb);
    return s;
  };
  NodeDef bi = switchN(p + "branch_index", index, tensorflow::DT_INT32);
  for (const auto& c : in.control) bi.add_input("^" + c);
  std::string branch_index = bi.name();
  add(std::move(bi), chain);
  std::vector<std::string> pivots;
  for (int b = 0; b < nb; ++b) {
    NodeDef piv = makeNode(uniqueName(p + "pivot_" + std::to_string(b)), "Identity");
    piv.add_input(tensorName(branch_index, b));
    (*piv.mutable_attr())["T"].set_type(tensorflow::DT_INT32);
    pivots.push_back(piv.name());
    add(std::move(piv), chain);
  }
  std::vector<NodeDef> calls(static_cast<size_t>(nb));
  for (size_t a = 1; a < in.data.size(); ++a) {
    NodeDef s = switchN(p + "switch_" + std::to_string(a - 1), in.data[a], (*tin)[a - 1]);
    for (int b = 0; b < nb; ++b) calls[static_cast<size_t>(b)].add_input(tensorName(s.name(), b));
    add(std::move(s), chain);
  }
  const int new_chain = static_cast<int>(chains_.size());
  chains_.push_back({"", n.name(), chain});
  std::vector<std::string> call_names;
  for (int b = 0; b < nb; ++b) {
    NodeDef& c = calls[static_cast<size_t>(b)];
    const auto& fn = branches->list().func(b);
    c.set_name(uniqueName(p + "branch" + std::to_string(b)));
    c.set_op(fn.name());
    c.add_input("^" + pivots[static_cast<size_t>(b)]);
    *c.mutable_attr() = fn.attr();
    (*c.mutable_attr())[kMultiDeviceAttr].set_b(true);
    call_names.push_back(c.name());
    add(std::move(c), new_chain);
  }
  Replaced r;
  for (size_t j = 0; j < tout->size(); ++j) {
    NodeDef m = makeNode(uniqueName(p + "merge_" + std::to_string(j)), "Merge");
    for (const auto& c : call_names) m.add_input(tensorName(c, static_cast<int>(j)));
    (*m.mutable_attr())["T"].set_type((*tout)[j]);
    (*m.mutable_attr())["N"].set_i(nb);
    r.outputs_to.push_back(m.name());
    add(std::move(m), chain);
  }
  NodeDef executed = makeNode(uniqueName(p + "branch_executed"), "Merge");
  for (const auto& piv : pivots) executed.add_input(piv);
  for (const auto& c : call_names) executed.add_input("^" + c);
  (*executed.mutable_attr())["T"].set_type(tensorflow::DT_INT32);
  (*executed.mutable_attr())["N"].set_i(nb);
  r.control_node = executed.name();
  add(std::move(executed), chain);
  r.outputs = static_cast<int>(tout->size());
  result_.inlined.push_back({n.name(), n.op(), "", "", parentNode(chain)});
  return finishReplacement(i, std::move(r), *tout);
}

}  // namespace

Result<InlineResult> inlineFunctions(const tensorflow::GraphDef& graph, const InlineOptions& options) {
  Inliner inliner(graph, options);
  return inliner.run();
}

}  // namespace gds::model
