#include "ui/node_properties.h"

#include <algorithm>

#include "model/attr.h"
#include "model/op_metadata.h"
#include "ui/attr_format.h"

namespace gds::ui {

NodeProperties describeNode(const model::Graph& graph, int node) {
  NodeProperties p;
  const tensorflow::NodeDef& def = graph.node(node);
  p.name = def.name();
  p.op = def.op();
  p.device = def.device();
  p.category = model::categoryName(model::OpRegistry::instance().category(def.op()));
  for (const std::string& in : def.input()) {
    model::TensorRef ref = model::parseTensorName(in);
    p.inputs.push_back({in, ref.node, ref.control});
  }
  for (const auto& c : graph.consumers(node)) {
    const std::string& consumer = graph.name(c.node);
    std::string text = c.port < 0 ? "^" + consumer : consumer;
    if (c.port > 0) text += " (reads :" + std::to_string(c.port) + ")";
    p.consumers.push_back({text, consumer, c.port < 0});
  }
  std::vector<std::string> keys;
  for (const auto& kv : def.attr()) keys.push_back(kv.first);
  std::sort(keys.begin(), keys.end());
  for (const auto& k : keys) p.attrs.emplace_back(k, formatAttr(def.attr().at(k)));
  if (const auto* value = model::findAttr(def, "value"); value && value->has_tensor())
    p.tensors.push_back({"value", def.name()});
  // Weights: Const inputs (through one Identity, as frozen slim graphs read them).
  for (const auto& in : graph.inputs(node)) {
    if (in.control) continue;
    int src = in.node;
    if (graph.op(src) == "Identity" && !graph.inputs(src).empty() && !graph.inputs(src)[0].control)
      src = graph.inputs(src)[0].node;
    if (graph.op(src) != "Const") continue;
    const auto& attrs = graph.node(src).attr();
    auto it = attrs.find("value");
    if (it == attrs.end() || !it->second.has_tensor()) continue;
    bool seen = std::any_of(p.tensors.begin(), p.tensors.end(), [&](const TensorSource& t) { return t.node == graph.name(src); });
    if (!seen) p.tensors.push_back({graph.name(src), graph.name(src)});
  }
  return p;
}

}  // namespace gds::ui
