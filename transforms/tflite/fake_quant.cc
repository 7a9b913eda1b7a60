#include "transforms/tflite/fake_quant.h"

#include <unordered_map>

#include "model/attr.h"
#include "model/graph.h"
#include "model/tensor.h"

namespace gds::transforms::tflite {
namespace {

bool isFakeQuant(const std::string& op) {
  return op == "FakeQuantWithMinMaxArgs" || op == "FakeQuantWithMinMaxVars";
}

// A scalar Const's value.
Result<float> scalarConst(const std::unordered_map<std::string, const tensorflow::NodeDef*>& nodes,
                          const tensorflow::NodeDef& fq, int input) {
  const std::string name(model::nodeNameOf(fq.input(input)));
  auto it = nodes.find(name);
  const tensorflow::AttrValue* value = it == nodes.end() ? nullptr : model::findAttr(*it->second, "value");
  if (!value || it->second->op() != "Const")
    return Status::Error("FakeQuant node '" + fq.name() + "': its " + (input == 1 ? "min" : "max") + " ('" + name +
                         "') is not a constant; freeze the graph first");
  auto host = model::decodeTensor(value->tensor());
  if (!host.ok() || host->size() != 1)
    return Status::Error("FakeQuant node '" + fq.name() + "': its " + (input == 1 ? "min" : "max") +
                         " is not one number");
  return static_cast<float>(host->valueAt(0));
}

}  // namespace

Result<FakeQuantRanges> takeFakeQuantRanges(tensorflow::GraphDef* graph) {
  std::unordered_map<std::string, const tensorflow::NodeDef*> nodes;
  for (const auto& n : graph->node()) nodes.emplace(n.name(), &n);
  FakeQuantRanges out;
  std::unordered_map<std::string, std::string> bypass;  // FakeQuant node -> the tensor it wraps ("node:port")
  for (const auto& n : graph->node()) {
    if (!isFakeQuant(n.op()) || n.input_size() < 1) continue;
    const model::TensorRef x = model::parseTensorName(n.input(0));
    auto producer = nodes.find(x.node);
    if (producer != nodes.end() && producer->second->op() == "Const") continue;  // weights: folded
    const auto* bits = model::findAttr(n, "num_bits");
    if (bits && bits->i() != 8)
      return Status::Error("FakeQuant node '" + n.name() + "' quantizes to " + std::to_string(bits->i()) +
                           " bits; TensorFlow Lite's quantized types are 8 bits");
    TensorRange r;
    if (n.op() == "FakeQuantWithMinMaxArgs") {
      const auto* lo = model::findAttr(n, "min");
      const auto* hi = model::findAttr(n, "max");
      r.min = lo ? lo->f() : -6.0f;  // the op's defaults
      r.max = hi ? hi->f() : 6.0f;
    } else {
      if (n.input_size() < 3) return Status::Error("FakeQuant node '" + n.name() + "' has no min and max inputs");
      auto lo = scalarConst(nodes, n, 1);
      if (!lo.ok()) return lo.status();
      auto hi = scalarConst(nodes, n, 2);
      if (!hi.ok()) return hi.status();
      r = {*lo, *hi};
    }
    if (!(r.min <= r.max))
      return Status::Error("FakeQuant node '" + n.name() + "' has min " + std::to_string(r.min) + " above max " +
                           std::to_string(r.max));
    const std::string wrapped = x.node + ":" + std::to_string(x.port);
    out.ranges[wrapped] = r;
    bypass[n.name()] = wrapped;
  }
  // Each FakeQuant becomes an Identity of what it wraps (the lowering reads
  // through Identity), so a FakeQuant named as an output keeps its name.
  for (auto& n : *graph->mutable_node()) {
    auto it = bypass.find(n.name());
    if (it == bypass.end()) continue;
    out.ranges.emplace(n.name() + ":0", out.ranges.at(it->second));
    const std::string wrapped = n.input(0);
    n.set_op("Identity");
    n.clear_input();
    n.add_input(wrapped);
    n.mutable_attr()->clear();
    (*n.mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
    ++out.removed;
  }
  return out;
}

}  // namespace gds::transforms::tflite
