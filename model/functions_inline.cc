// Function inlining (common_runtime/inline_function_utils.cc): a call's
// body copied into the graph under "<call node>/", arguments wired to the
// call's inputs, its outputs and control edges rewired to the body's
// returns; the Inliner's rounds, and the rewiring of the consumers.
#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/attr.h"
#include "model/functions_impl.h"
#include "model/graph.h"

namespace gds::model::functions_impl {
namespace {

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

}  // namespace

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

// One call being inlined: the function and the caller's attrs, the call's
// inputs, and the names its body takes in the graph.
struct Inliner::Inlining {
  NodeDef caller;
  int caller_chain = -1;
  std::string fname;
  const FunctionDef* fdef = nullptr;
  AttrMap attrs;  // copied: the caller may be gone from nodes_ by the time they are read
  InlinedNode record;
  std::vector<std::string> data_inputs, control_inputs;
  std::vector<DataType> in_types, out_types;
  std::string prefix;                                     // "<caller>/" (or "<caller>_k/" on a clash)
  std::unordered_set<std::string> reserved;               // the body's names in the graph
  std::unordered_map<std::string, const NodeDef*> body;   // by name in the function
  std::unordered_map<std::string, int> arg_index;         // argument name -> position
  std::vector<std::string> arg_tensor;                    // what each argument reads in the graph
  std::string input_control;                              // gates the body on the caller's control inputs
  std::unordered_map<std::string, NodeDef> substituted;   // body nodes with the caller's attrs substituted
  int chain = -1;
};

// The function the call runs (its CPU implementation when asked), refusing
// a recursive one.
Status Inliner::chooseFunction(Inlining& c) {
  const NodeDef& caller = c.caller;
  const AttrMap* inst = nullptr;
  lib_.callTarget(caller, &c.fname, &inst);
  if (c.fname.empty())
    return Status::Error("node '" + caller.name() + "' (" + caller.op() + ") has no function attr 'f'");
  c.fdef = lib_.find(c.fname);
  if (!c.fdef)
    return Status::Error("node '" + caller.name() + "' (" + caller.op() + ") calls function '" + c.fname +
                         "', which is not in the function library");
  c.attrs = *inst;
  c.record = InlinedNode{caller.name(), caller.op(), c.fname, "", parentNode(c.caller_chain)};
  if (options_.prefer_cpu_implementation) {
    const std::string device = attrString(c.fdef->attr(), "api_preferred_device");
    if (const FunctionDef* cpu = lib_.cpuImplementation(*c.fdef)) {
      c.record.requested = c.fname;
      c.fdef = cpu;
      c.fname = c.fdef->signature().name();
      c.record.function = c.fname;
    } else if (!device.empty() && device != "CPU" && warned_.insert(c.fname).second) {
      result_.warnings.push_back("function '" + c.fname + "' is meant for " + device +
                                 " and the library has no CPU implementation of '" +
                                 attrString(c.fdef->attr(), "api_implements") + "'; it is inlined as it is");
    }
  }
  for (int k = c.caller_chain; k >= 0; k = chains_[static_cast<size_t>(k)].parent)
    if (chains_[static_cast<size_t>(k)].function == c.fname)
      return Status::Error("function '" + c.fname + "' calls itself (" + chainText(c.caller_chain, c.fname) +
                           ", at node '" + caller.name() + "'); recursive functions cannot be inlined");
  return Status::Ok();
}

// The call's inputs against the function's arguments and results.
Status Inliner::checkArguments(Inlining& c) {
  const NodeDef& caller = c.caller;
  const auto& sig = c.fdef->signature();
  for (const auto& in : caller.input()) {
    if (!in.empty() && in[0] == '^') c.control_inputs.push_back(in.substr(1));
    else c.data_inputs.push_back(canonical(in));
  }
  auto in_types = argumentTypes(*c.fdef, c.attrs, false);
  if (!in_types.ok()) return in_types.status().withContext("node '" + caller.name() + "'");
  auto out_types = argumentTypes(*c.fdef, c.attrs, true);
  if (!out_types.ok()) return out_types.status().withContext("node '" + caller.name() + "'");
  c.in_types = std::move(*in_types);
  c.out_types = std::move(*out_types);
  if (c.data_inputs.size() != c.in_types.size()) {
    std::string names;
    for (const auto& a : sig.input_arg()) names += (names.empty() ? "" : ", ") + a.name();
    return Status::Error("node '" + caller.name() + "' passes " + std::to_string(c.data_inputs.size()) +
                         " inputs to function '" + c.fname + "', which takes " + std::to_string(c.in_types.size()) +
                         (names.empty() ? "" : " (" + names + ")"));
  }
  if (const AttrValue* tout = findAttr(caller, "Tout");
      tout && isPartitionedCall(caller.op()) && tout->list().type_size() != static_cast<int>(c.out_types.size()))
    return Status::Error("node '" + caller.name() + "' expects " + std::to_string(tout->list().type_size()) +
                         " outputs from function '" + c.fname + "', which returns " +
                         std::to_string(c.out_types.size()));
  return budget(c.fdef->node_def_size() + 4,
                "inlining function '" + c.fname + "' at node '" + caller.name() + "'");
}

// Body node names: "<caller>/<node>", with another prefix in the rare case
// the graph already holds such names.
Status Inliner::nameBody(Inlining& c) {
  for (int k = 0;; ++k) {
    c.prefix = (k == 0 ? c.caller.name() : c.caller.name() + "_" + std::to_string(k)) + "/";
    bool clash = false;
    for (const auto& n : c.fdef->node_def())
      if (index_.count(c.prefix + n.name())) {
        clash = true;
        break;
      }
    if (!clash) break;
  }
  for (const auto& n : c.fdef->node_def()) {
    if (!c.body.emplace(n.name(), &n).second)
      return Status::Error("function '" + c.fname + "' has two nodes named '" + n.name() + "'");
    c.reserved.insert(c.prefix + n.name());
  }
  const auto& sig = c.fdef->signature();
  for (int a = 0; a < sig.input_arg_size(); ++a) c.arg_index.emplace(sig.input_arg(a).name(), a);
  return Status::Ok();
}

// The caller's control inputs gate the whole body (input_control_node);
// arguments then pass through Identity nodes that wait for it, as
// TensorFlow's do.
void Inliner::gateOnControlInputs(Inlining& c) {
  c.arg_tensor = c.data_inputs;
  if (c.control_inputs.empty()) return;
  const auto& sig = c.fdef->signature();
  c.input_control = uniqueName(c.prefix + "input_control_node", c.reserved);
  NodeDef noop = makeNode(c.input_control, "NoOp");
  for (const auto& in : c.control_inputs) noop.add_input("^" + in);
  add(std::move(noop), c.chain);
  for (size_t a = 0; a < c.arg_tensor.size(); ++a) {
    NodeDef id = makeNode(uniqueName(c.prefix + "input/" + sig.input_arg(static_cast<int>(a)).name(), c.reserved),
                          "Identity");
    id.add_input(c.arg_tensor[a]);
    id.add_input("^" + c.input_control);
    (*id.mutable_attr())["T"].set_type(c.in_types[a]);
    c.arg_tensor[a] = id.name();
    add(std::move(id), c.chain);
  }
}

// A reference of the body ("arg", "node:out:0", "^node") as the graph names it.
Result<std::string> Inliner::resolveBodyRef(const Inlining& c, const std::string& ref, const std::string& reader) {
  auto where = [&] { return "function '" + c.fname + "': " + reader + " reads '" + ref + "'"; };
  if (!ref.empty() && ref[0] == '^') {
    std::string name = ref.substr(1);
    if (auto a = c.arg_index.find(name); a != c.arg_index.end())
      return "^" + std::string(nodeNameOf(c.arg_tensor[static_cast<size_t>(a->second)]));
    if (c.body.count(name)) return "^" + c.prefix + name;
    return Status::Error(where() + ", which is neither an argument nor a node of the function");
  }
  std::vector<std::string> parts = splitColons(ref);
  if (auto a = c.arg_index.find(parts[0]); a != c.arg_index.end()) {
    int k = 0;
    if (parts.size() > 2 || (parts.size() == 2 && (!parseNonNegative(parts[1], &k) || k != 0)))
      return Status::Error(where() + ": argument '" + parts[0] + "' is a single tensor");
    return c.arg_tensor[static_cast<size_t>(a->second)];
  }
  auto b = c.body.find(parts[0]);
  if (b == c.body.end()) return Status::Error(where() + ", which is neither an argument nor a node of the function");
  int port = 0;
  if (parts.size() == 3) {
    int k = 0;
    if (!parseNonNegative(parts[2], &k)) return Status::Error(where() + ": bad output index");
    auto s = c.substituted.find(parts[0]);
    const NodeDef& producer = s != c.substituted.end() ? s->second : *b->second;
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
  return tensorName(c.prefix + parts[0], port);
}

// The body's nodes into the graph: attrs first (output counts may depend on
// them), then inputs, frames, colocation and debug info.
Status Inliner::copyBody(Inlining& c) {
  for (const auto& n : c.fdef->node_def()) {
    NodeDef copy = n;
    for (auto& [k, v] : *copy.mutable_attr())
      GDS_RETURN_IF_ERROR(substitutePlaceholders(&v, c.attrs, c.fname, n.name(), k));
    c.substituted.emplace(n.name(), std::move(copy));
  }
  for (const auto& n : c.fdef->node_def()) {
    NodeDef copy = c.substituted.at(n.name());
    const bool had_inputs = copy.input_size() > 0;
    bool had_control = false;
    for (int k = 0; k < copy.input_size(); ++k) {
      auto r = resolveBodyRef(c, copy.input(k), "node '" + n.name() + "'");
      if (!r.ok()) return r.status();
      if (copy.input(k)[0] == '^') had_control = true;
      copy.set_input(k, *r);
    }
    copy.set_name(c.prefix + n.name());
    // Loop frames stay unique per inlined copy (uniquify_frame_names).
    if (copy.op() == "Enter" || copy.op() == "RefEnter")
      if (auto it = copy.mutable_attr()->find("frame_name"); it != copy.mutable_attr()->end())
        it->second.set_s(c.prefix + it->second.s());
    if (auto cls = copy.mutable_attr()->find("_class"); cls != copy.mutable_attr()->end())
      for (auto& s : *cls->second.mutable_list()->mutable_s()) {
        if (s.rfind("loc:@", 0) != 0) continue;
        std::string target = s.substr(5);
        if (c.body.count(target)) s = "loc:@" + c.prefix + target;
        else if (auto a = c.arg_index.find(target); a != c.arg_index.end())
          s = "loc:@" + std::string(nodeNameOf(c.arg_tensor[static_cast<size_t>(a->second)]));
      }
    // Nodes without inputs, and calls, run only when the call would have
    // (forwarding the execution frame, as InlineFunctionBody does).
    if (!c.input_control.empty() && (!had_inputs || (isCall(copy) && !had_control)))
      copy.add_input("^" + c.input_control);
    if (!copy.has_experimental_debug_info()) {
      copy.mutable_experimental_debug_info()->add_original_node_names(n.name());
      copy.mutable_experimental_debug_info()->add_original_func_names(c.fname);
    }
    add(std::move(copy), c.chain);
  }
  return Status::Ok();
}

// What replaces the call for its consumers: each output's tensor, and what
// its control consumers wait for (TF2 calls, and the branch calls of lowered
// control flow, finish when their control outputs have run; other calls
// when their data outputs have).
Result<Inliner::Replaced> Inliner::replacement(const Inlining& c) {
  const auto& sig = c.fdef->signature();
  Replaced r;
  r.function = c.fname;
  r.outputs = sig.output_arg_size();
  r.prefix = c.prefix;
  r.input_control = c.input_control;
  for (const auto& out : sig.output_arg()) {
    auto ret = c.fdef->ret().find(out.name());
    if (ret == c.fdef->ret().end())
      return Status::Error("function '" + c.fname + "': output '" + out.name() + "' has no return value");
    auto t = resolveBodyRef(c, ret->second, "return value '" + out.name() + "'");
    if (!t.ok()) return t.status();
    r.outputs_to.push_back(*t);
  }
  const AttrValue* multi = findAttr(c.caller, kMultiDeviceAttr);
  if (!isPartitionedCall(c.caller.op()) && !(multi && multi->b())) {
    for (const auto& t : r.outputs_to) r.control_sources.push_back(std::string(nodeNameOf(t)));
    return r;
  }
  std::vector<std::string> names(sig.control_output().begin(), sig.control_output().end());
  if (names.empty())
    for (const auto& [k, v] : c.fdef->control_ret()) names.push_back(k);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  for (const auto& k : names) {
    auto it = c.fdef->control_ret().find(k);
    if (it == c.fdef->control_ret().end())
      return Status::Error("function '" + c.fname + "': control output '" + k + "' has no node");
    if (!c.body.count(it->second))
      return Status::Error("function '" + c.fname + "': control output '" + k + "' names '" + it->second +
                           "', which is not a node of the function");
    r.control_sources.push_back(c.prefix + it->second);
  }
  return r;
}

Status Inliner::inlineCall(int ci) {
  Inlining c;
  c.caller = nodes_[static_cast<size_t>(ci)];
  c.caller_chain = chain_[static_cast<size_t>(ci)];
  GDS_RETURN_IF_ERROR(chooseFunction(c));
  GDS_RETURN_IF_ERROR(checkArguments(c));
  GDS_RETURN_IF_ERROR(nameBody(c));
  c.chain = static_cast<int>(chains_.size());
  chains_.push_back({c.fname, c.caller.name(), c.caller_chain});
  remove(ci);
  gateOnControlInputs(c);
  GDS_RETURN_IF_ERROR(copyBody(c));
  auto r = replacement(c);
  if (!r.ok()) return r.status();
  result_.inlined.push_back(c.record);
  return finishReplacement(ci, std::move(*r), c.out_types);
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

}  // namespace gds::model::functions_impl
