#include "device/operator_map.h"

#include <cctype>

#include "model/tflite/builtin_ops.h"
#include "model/tflite/dialect.h"
#include "model/tflite/reader.h"

namespace gds::device {

OperatorMap OperatorMap::fromDialectGraph(const tensorflow::GraphDef& graph) {
  OperatorMap m;
  for (const auto& n : graph.node()) {
    if (n.op().rfind(model::tflite::kOpPrefix, 0) != 0 || n.op() == model::tflite::kNoValueOp) continue;
    TfliteOperator op;
    op.index = static_cast<int>(m.ops_.size());
    const auto* builtin = model::tflite::builtinByOpType(n.op());
    op.type = builtin ? builtin->name : "CUSTOM";
    op.node = n.name();
    auto names = n.attr().find("_output_names");
    if (names != n.attr().end() && names->second.list().s_size() > 0) {
      for (const auto& s : names->second.list().s()) op.outputs.push_back(s);
    } else {
      op.outputs.push_back(n.name());
    }
    m.ops_.push_back(std::move(op));
  }
  return m;
}

Result<OperatorMap> OperatorMap::fromTflite(const std::string& bytes, const std::string& name) {
  auto model = model::tflite::readTflite(bytes, name);
  if (!model.ok()) return model.status();
  return fromDialectGraph(model->graph);
}

int OperatorMap::operatorWithOutput(const std::string& tensor) const {
  for (const auto& op : ops_)
    for (const auto& o : op.outputs)
      if (o == tensor) return op.index;
  return -1;
}

int armnnLayerOperator(const std::string& name) {
  // Arm NN's optimizer merges a layer into the next ("merged-Squeeze:0:29-
  // with-Reshape:0:30", OptimizeConsecutiveReshapes and friends): the time
  // goes to the layer that remains.
  const std::size_t with = name.rfind("-with-");
  const std::string layer_name = name.rfind("merged-", 0) == 0 && with != std::string::npos ? name.substr(with + 6) : name;
  // <Layer>:<subgraph>:<operator>[:suffix]
  const std::size_t a = layer_name.find(':');
  if (a == std::string::npos || a == 0) return -1;
  const std::size_t b = layer_name.find(':', a + 1);
  if (b == std::string::npos) return -1;
  const std::size_t c = layer_name.find(':', b + 1);
  const std::string subgraph = layer_name.substr(a + 1, b - a - 1);
  const std::string op = layer_name.substr(b + 1, c == std::string::npos ? std::string::npos : c - b - 1);
  auto digits = [](const std::string& s) {
    if (s.empty() || s.size() > 9) return false;
    for (char ch : s)
      if (!std::isdigit(static_cast<unsigned char>(ch))) return false;
    return true;
  };
  if (subgraph != "0" || !digits(op)) return -1;
  return std::stoi(op);
}

void creditOperators(const OperatorMap& map, const std::unordered_set<std::string>& graph_nodes,
                     DeviceProfile* profile) {
  const auto& ops = map.operators();
  for (auto& row : profile->ops) {
    if (row.op_index < 0 && row.name.size() > 2 && row.name.front() == '[' && row.name.back() == ']') {
      // Older benchmark_model builds: "[first output, ...]".
      std::string first = row.name.substr(1, row.name.size() - 2);
      first = first.substr(0, first.find(", "));
      row.op_index = map.operatorWithOutput(first);
    }
    const bool known = row.op_index >= 0 && row.op_index < static_cast<int>(ops.size());
    // benchmark_model names a delegate's kernel by its own node index, past
    // the model's operators or on one of another type: not an operator.
    if (known && !row.name.empty() && row.name.front() == '[' && row.type.rfind(ops[static_cast<std::size_t>(row.op_index)].type, 0) != 0)
      row.op_index = -1;
    else if (!known)
      row.op_index = -1;
    row.node.clear();
    if (row.op_index < 0) continue;
    const std::string& node = ops[static_cast<std::size_t>(row.op_index)].node;
    if (graph_nodes.empty() || graph_nodes.count(node)) row.node = node;
  }
}

void creditNodes(const std::unordered_set<std::string>& graph_nodes, DeviceProfile* profile) {
  for (auto& row : profile->ops) {
    row.node = graph_nodes.empty() || graph_nodes.count(row.name) ? row.name : "";
    if (!row.node.empty()) continue;
    // quantize_nodes names what it makes of layer X "X_eightbit/..." or
    // "X/eightbit..." (tools/graph_transforms/quantize_nodes.cc).
    for (const char* mark : {"_eightbit", "/eightbit"}) {
      const std::size_t at = row.name.find(mark);
      if (at != std::string::npos && graph_nodes.count(row.name.substr(0, at))) row.node = row.name.substr(0, at);
    }
  }
}

}  // namespace gds::device
