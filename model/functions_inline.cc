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

}  // namespace gds::model::functions_impl
