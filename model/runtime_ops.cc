#include "model/runtime_ops.h"

#include "model/attr.h"
#include "model/tensor.h"

#include <algorithm>
#include <cstddef>
#include <sstream>

namespace gds::model {
namespace data {
extern const char tensorflow_mobile_ops[];
extern const std::size_t tensorflow_mobile_ops_size;
extern const char tflite_builtin_ops[];
extern const std::size_t tflite_builtin_ops_size;
}  // namespace data

namespace {

// Lines without comments and surrounding blanks, with their line numbers.
std::vector<std::pair<int, std::string>> dataLines(const char* text, std::size_t size) {
  std::vector<std::pair<int, std::string>> out;
  std::istringstream in(std::string(text, size));
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    line.erase(0, line.find_first_not_of(" \t\r"));
    line.erase(line.find_last_not_of(" \t\r") + 1);
    if (!line.empty()) out.emplace_back(number, line);
  }
  return out;
}

tensorflow::DataType nodeDtype(const tensorflow::NodeDef& node) {
  for (const char* key : {"T", "dtype"})
    if (const auto* t = findAttr(node, key); t && t->value_case() == tensorflow::AttrValue::kType) return t->type();
  return tensorflow::DT_INVALID;
}

}  // namespace

Result<RuntimeOps> tensorflowMobileOps() {
  RuntimeOps r;
  r.name = "tensorflow_mobile";
  r.title = "TensorFlow Mobile, the TensorFlow 1.12 makefile and Android build";
  r.source = "resources/ops/tensorflow_mobile_ops.txt";
  for (const auto& [number, line] : dataLines(data::tensorflow_mobile_ops, data::tensorflow_mobile_ops_size)) {
    if (line.find_first_of(" \t") != std::string::npos)
      return Status::Error(r.source + ":" + std::to_string(number) + ": expected one op name, got '" + line + "'");
    r.ops[line] = "";
  }
  return r;
}

Result<RuntimeOps> tfliteBuiltinOps() {
  RuntimeOps r;
  r.name = "tflite";
  r.title = "TensorFlow Lite builtin operators, no Flex delegate";
  r.source = "resources/ops/tflite_builtin_ops.txt";
  for (const auto& [number, line] : dataLines(data::tflite_builtin_ops, data::tflite_builtin_ops_size)) {
    std::istringstream fields(line);
    std::string op, builtin, extra;
    fields >> op >> builtin;
    if (builtin.empty() || (fields >> extra))
      return Status::Error(r.source + ":" + std::to_string(number) + ": expected '<op> <builtin>', got '" + line + "'");
    r.ops[op] = builtin;
  }
  return r;
}

NodeSupport checkNode(const RuntimeOps& runtime, const tensorflow::NodeDef& node) {
  NodeSupport s;
  auto it = runtime.ops.find(node.op());
  if (it == runtime.ops.end()) {
    if (runtime.name == "tflite")
      s.detail = "not a builtin operator: needs the Flex delegate (Select TensorFlow ops) or a custom op";
    else
      s.detail = "No OpKernel was registered to support Op '" + node.op() + "'";
    return s;
  }
  auto types = runtime.dtypes.find(node.op());
  const tensorflow::DataType dtype = nodeDtype(node);
  if (types != runtime.dtypes.end() && dtype != tensorflow::DT_INVALID && !types->second.count(dtype)) {
    s.detail = "no kernel for " + node.op() + " with T=" + dtypeName(dtype);
    return s;
  }
  if (it->second.rfind("=", 0) == 0) {
    s.verdict = OpVerdict::NotNeeded;
    s.detail = it->second.substr(1);
    return s;
  }
  s.verdict = OpVerdict::Runs;
  s.detail = it->second;
  return s;
}

RuntimeCheck checkGraph(const RuntimeOps& runtime, const tensorflow::GraphDef& graph) {
  RuntimeCheck out;
  out.nodes.reserve(static_cast<size_t>(graph.node_size()));
  std::map<std::string, int> missing_ops;
  for (const auto& node : graph.node()) {
    out.nodes.push_back(checkNode(runtime, node));
    switch (out.nodes.back().verdict) {
      case OpVerdict::Runs: ++out.runs; break;
      case OpVerdict::NotNeeded: ++out.not_needed; break;
      case OpVerdict::Missing:
        ++out.missing;
        ++missing_ops[node.op()];
        break;
    }
  }
  out.missing_ops.assign(missing_ops.begin(), missing_ops.end());
  std::stable_sort(out.missing_ops.begin(), out.missing_ops.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return out;
}

const char* verdictName(OpVerdict verdict) {
  switch (verdict) {
    case OpVerdict::Runs: return "runs";
    case OpVerdict::NotNeeded: return "not needed";
    default: return "missing";
  }
}

}  // namespace gds::model
