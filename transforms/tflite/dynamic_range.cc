#include "transforms/tflite/dynamic_range.h"

#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "model/graph.h"
#include "model/tensor.h"
#include "model/tflite/dialect.h"
#include "transforms/tflite/quantize.h"
#include "transforms/transform_utils.h"

namespace gds::transforms::tflite {
namespace {

namespace mt = gds::model::tflite;
using tensorflow::NodeDef;

// How an operator's weights (input 1) are quantized; kNone: they stay.
enum class Weights { kNone, kConv, kDepthwise, kDense };

Weights weightsOf(const NodeDef& n) {
  if (n.op() == "tfl.conv_2d") return Weights::kConv;
  if (n.op() == "tfl.depthwise_conv_2d") return Weights::kDepthwise;
  if (n.op() == "tfl.fully_connected") return Weights::kDense;
  return Weights::kNone;
}

}  // namespace

Result<tensorflow::GraphDef> quantizeWeightsDynamicRange(const tensorflow::GraphDef& graph) {
  std::unordered_map<std::string, const NodeDef*> by_name;
  std::unordered_set<std::string> names;
  for (const NodeDef& n : graph.node()) {
    by_name[n.name()] = &n;
    names.insert(n.name());
  }
  // Which kind of weight slot reads each constant, and whether anything
  // else (another slot, another kind) reads it too.
  std::map<std::string, Weights> kind;
  std::unordered_set<std::string> shared;
  for (const NodeDef& n : graph.node()) {
    if (!mt::isDialectOp(n.op())) continue;
    const Weights w = weightsOf(n);
    for (int i = 0; i < n.input_size(); ++i) {
      const std::string producer(model::nodeNameOf(n.input(i)));
      if (i == 1 && w != Weights::kNone) {
        auto [it, fresh] = kind.emplace(producer, w);
        if (!fresh && it->second != w) shared.insert(producer);
      } else {
        shared.insert(producer);
      }
    }
  }
  tensorflow::GraphDef out;
  *out.mutable_versions() = graph.versions();
  *out.mutable_library() = graph.library();
  // The int8 constant that replaces each quantized weight, by (name, kind),
  // and the int8 constants by the float one they come from.
  std::map<std::pair<std::string, Weights>, std::string> int8_name;
  std::map<std::string, std::vector<NodeDef>> int8_consts;
  for (const auto& [name, w] : kind) {
    const NodeDef* c = by_name.count(name) ? by_name.at(name) : nullptr;
    if (!c || c->op() != "Const" || c->attr().count(mt::kScaleAttr)) continue;
    auto value = tensorAttr(*c);
    if (!value.ok()) return Status::Error("node '" + name + "': " + value.error());
    if (value->dtype != tensorflow::DT_FLOAT || value->size() < kDynamicRangeMinElements) continue;
    const bool depthwise = w == Weights::kDepthwise, per_channel = w != Weights::kDense;
    std::vector<float> scales;
    const model::HostTensor q =
        symmetricWeights(*value, weightHalfRanges(*value, per_channel, depthwise), per_channel, depthwise, &scales);
    mt::Quantization wq;
    wq.scale = scales;
    wq.zero_point.assign(scales.size(), 0);
    wq.quantized_dimension = depthwise ? static_cast<int>(value->shape.size()) - 1 : 0;
    const bool in_place = !shared.count(name);
    NodeDef q_const = makeConst(in_place ? name : claimName(name + "_int8", &names), q);
    // Replaced in place, the constant keeps its TFLite tensor name.
    if (in_place)
      for (const char* key : {mt::kOutputNamesAttr, mt::kShapeSignatureAttr})
        if (c->attr().count(key)) (*q_const.mutable_attr())[key] = c->attr().at(key);
    mt::setQuantization(&q_const, 0, wq);
    int8_name[{name, w}] = q_const.name();
    int8_consts[name].push_back(std::move(q_const));
  }
  for (const NodeDef& n : graph.node()) {
    // A quantized weight: its int8 form in its place (after the float one
    // when that one stays for other readers).
    auto q = int8_consts.find(n.name());
    if (q != int8_consts.end()) {
      const bool kept = q->second.front().name() != n.name();
      if (kept) *out.add_node() = n;
      for (NodeDef& c : q->second) *out.add_node() = std::move(c);
      continue;
    }
    NodeDef copy = n;
    const Weights w = mt::isDialectOp(n.op()) ? weightsOf(n) : Weights::kNone;
    if (w != Weights::kNone && n.input_size() > 1) {
      auto it = int8_name.find({std::string(model::nodeNameOf(n.input(1))), w});
      if (it != int8_name.end()) {
        copy.set_input(1, it->second);
        if (w == Weights::kDense) (*copy.mutable_attr())["asymmetric_quantize_inputs"].set_b(true);
      }
    }
    *out.add_node() = std::move(copy);
  }
  return out;
}

}  // namespace gds::transforms::tflite
