// The summary as JSON (the CLI's --format=json and the window's export):
// every field of Summary, TF2 signatures and TFLite model tensors included.
#include <string>

#include "model/summary.h"
#include "model/summary_impl.h"

namespace gds::model {

using summary_impl::tfTypeName;

nlohmann::json toJson(const Summary& s) {
  using nlohmann::json;
  auto node = [](const SummaryNode& n) {
    json j = {{"name", n.name}, {"op", n.op}, {"dtype", tfTypeName(n.dtype)}};
    j["shape"] = n.has_shape && n.known_rank ? json(n.shape) : json(nullptr);
    return j;
  };
  json j;
  j["path"] = s.path;
  j["file_bytes"] = s.file_bytes;
  j["node_count"] = s.node_count;
  j["inputs"] = json::array();
  for (const auto& n : s.inputs) j["inputs"].push_back(node(n));
  j["variables"] = json::array();
  for (const auto& n : s.variables) j["variables"].push_back(node(n));
  j["outputs"] = json::array();
  for (const auto& [name, op] : s.outputs) j["outputs"].push_back({{"name", name}, {"op", op}});
  j["op_types"] = json::object();
  for (const auto& [op, count] : s.op_types) j["op_types"][op] = count;
  j["const_parameters"] = s.const_parameters;
  j["variable_parameters"] = s.variable_parameters;
  j["variable_shape_parameters"] = s.variable_shape_parameters;
  j["const_bytes"] = s.const_bytes;
  j["variable_bytes"] = s.variable_bytes;
  j["control_edges"] = s.control_edges;
  j["devices"] = s.devices;
  j["flops"] = s.flops;
  j["flops_by_type"] = s.flops_by_type;
  j["flops_unknown_nodes"] = s.flops_unknown_nodes;
  j["flops_batch_one"] = s.flops_batch_one;
  auto suggestions = [](const std::vector<Suggestion>& list) {
    json a = json::array();
    for (const auto& sug : list)
      a.push_back({{"name", sug.name}, {"op", sug.op}, {"likely", sug.likely},
                   {"auxiliary", auxiliaryKindName(sug.auxiliary)}, {"path_length", sug.path_length}});
    return a;
  };
  j["suggested_inputs"] = suggestions(s.suggested_inputs);
  j["suggested_outputs"] = suggestions(s.suggested_outputs);
  j["auxiliary_nodes"] = s.auxiliary_nodes;
  j["warnings"] = s.warnings;
  j["signature_keys"] = s.signature_keys;
  j["object_based"] = s.object_based;
  if (s.object_based) {
    j["tensorflow_version"] = s.tensorflow_version;
    j["functions"] = s.functions;
    j["keras_model"] = s.keras_model;
    j["signatures"] = json::array();
    for (const auto& sig : s.signatures) {
      json js = {{"key", sig.key}, {"method", sig.method}, {"function", sig.function}};
      for (const char* part : {"inputs", "outputs", "variables"}) {
        const auto& nodes = std::string(part) == "inputs" ? sig.inputs : std::string(part) == "outputs" ? sig.outputs : sig.variables;
        js[part] = json::array();
        for (const auto& n : nodes) js[part].push_back(node(n));
      }
      js["variable_parameters"] = sig.variable_parameters;
      js["functions"] = sig.functions;
      js["op_types"] = json::object();
      for (const auto& [op, count] : sig.op_types) js["op_types"][op] = count;
      j["signatures"].push_back(std::move(js));
    }
  }
  if (!s.input_tensors.empty() || !s.output_tensors.empty()) {
    auto tensor = [](const TensorSummary& t) {
      json e = {{"name", t.name}, {"dtype", tfTypeName(t.dtype)}};
      e["shape"] = t.known_rank ? json(t.shape) : json(nullptr);
      e["quantization"] = t.quantization.empty() ? json(nullptr) : json(t.quantization);
      return e;
    };
    j["input_tensors"] = json::array();
    for (const auto& t : s.input_tensors) j["input_tensors"].push_back(tensor(t));
    j["output_tensors"] = json::array();
    for (const auto& t : s.output_tensors) j["output_tensors"].push_back(tensor(t));
  }
  return j;
}

}  // namespace gds::model
