// TensorFlow function libraries: functions and OpDefs by name, the output
// index of "node:output_arg:index", the CPU implementation selector, argument
// types, and the inlining entry point (the Inliner itself is in
// functions_inline.cc and functions_lower.cc).
#include "model/functions.h"

#include <algorithm>
#include <deque>
#include <unordered_set>

#include "model/attr.h"
#include "model/functions_impl.h"
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
using functions_impl::attrString;

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

bool sameArgTypes(const google::protobuf::RepeatedPtrField<tensorflow::OpDef::ArgDef>& a,
                  const google::protobuf::RepeatedPtrField<tensorflow::OpDef::ArgDef>& b) {
  if (a.size() != b.size()) return false;
  for (int i = 0; i < a.size(); ++i)
    if (a[i].type() != b[i].type() || a[i].type_attr() != b[i].type_attr() ||
        a[i].number_attr() != b[i].number_attr() || a[i].type_list_attr() != b[i].type_list_attr())
      return false;
  return true;
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

Result<InlineResult> inlineFunctions(const tensorflow::GraphDef& graph, const InlineOptions& options) {
  functions_impl::Inliner inliner(graph, options);
  return inliner.run();
}

}  // namespace gds::model
