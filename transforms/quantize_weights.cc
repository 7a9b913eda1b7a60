// quantize_weights(minimum_size=1024): float Consts with at least
// minimum_size elements are stored as 8-bit (quint8) with their float range,
// behind a Dequantize(MIN_FIRST) that keeps the Const's name, so the rest of
// the graph is unchanged (TensorFlow's quantize_weights.cc):
//   <n>_quantized_const, <n>_quantized_min, <n>_quantized_max -> Dequantize <n>.
// The range always includes 0; a degenerate range (min == max) is widened as
// TensorFlow does.
//
// per_channel=true (not in TensorFlow): weights read only as the filter of
// Conv2D / DepthwiseConv2dNative (multiplier 1) or the b of MatMul are stored
// as symmetric qint8 with one range per output channel, behind
// Dequantize(T=qint8, mode=SCALED, axis) (see quantize_per_channel.h); other
// constants keep TensorFlow's form.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "model/attr.h"
#include "transforms/builtin.h"
#include "transforms/quantize_per_channel.h"
#include "transforms/transform_utils.h"

namespace gds::transforms {
namespace {

// TensorFlow's FloatToQuantized<quint8> (quantization_utils.h).
std::uint8_t floatToQuint8(float input, float range_min, float range_max) {
  if (range_min == range_max) return 0;
  const double steps = 256.0;
  const double range = (static_cast<double>(range_max) - range_min) * (steps / (steps - 1.0));
  const double scale = steps / range;
  std::int64_t q = static_cast<std::int64_t>(std::round(input * scale) - std::round(range_min * scale));
  return static_cast<std::uint8_t>(std::clamp<std::int64_t>(q, 0, 255));
}

model::HostTensor scalar(float v) { return floatTensor({}, {v}); }

Result<GraphDef> quantizeWeights(const GraphDef& in, const TransformContext& ctx) {
  auto minimum_size = ctx.getOneInt("minimum_size", 1024);
  if (!minimum_size.ok()) return minimum_size.status();
  auto per_channel = ctx.getOneBool("per_channel", false);
  if (!per_channel.ok()) return per_channel.status();
  // Const name -> output-channel axis, when every consumer reads it as
  // weights with one (per_channel only).
  std::map<std::string, int> axes;
  if (*per_channel) {
    std::map<std::string, const NodeDef*> consts;
    for (const NodeDef& node : in.node())
      if (node.op() == "Const") consts[node.name()] = &node;
    std::map<std::string, int> votes;
    for (const NodeDef& node : in.node())
      for (int i = 0; i < node.input_size(); ++i) {
        const InputParts p = inputParts(node.input(i));
        auto c = consts.find(p.node);
        if (c == consts.end()) continue;
        int axis = -1;
        if (p.prefix.empty() && (p.suffix.empty() || p.suffix == ":0")) {
          bool known = false;
          const auto& value = c->second->attr().count("value") ? c->second->attr().at("value").tensor()
                                                                : tensorflow::TensorProto();
          const model::Shape shape = model::shapeFromProto(value.tensor_shape(), &known);
          if (known) axis = perChannelAxis(node, i, shape);
        }
        auto v = votes.find(p.node);
        if (v == votes.end()) votes[p.node] = axis;
        else if (v->second != axis) v->second = -1;
      }
    for (const auto& [name, axis] : votes)
      if (axis >= 0) axes[name] = axis;
  }
  GraphDef out;
  GDS_RETURN_IF_ERROR(replaceMatchingOpTypes(
      in, {"Const"},
      [&](const NodeMatch& match, const std::set<std::string>&, const std::set<std::string>&,
          std::vector<NodeDef>* new_nodes) {
        const NodeDef& node = match.def();
        const auto* dtype = model::findAttr(node, "dtype");
        if (!dtype) return Status::Error("no 'dtype' attribute for Const node '" + node.name() + "'");
        if (dtype->type() != tensorflow::DT_FLOAT ||
            model::protoElementCount(node.attr().count("value") ? node.attr().at("value").tensor()
                                                                : tensorflow::TensorProto()) < *minimum_size) {
          new_nodes->push_back(node);
          return Status::Ok();
        }
        auto tensor = floatTensorAttr(node);
        if (!tensor.ok()) return tensor.status();
        const float* values = tensor->as<float>();
        const std::int64_t n = tensor->size();
        if (ctx.cancelled()) return TransformContext::cancelledStatus();  // one large weight at a time
        auto axis = axes.find(node.name());
        if (axis != axes.end()) {
          std::int64_t inner = 1;
          for (std::size_t d = static_cast<std::size_t>(axis->second) + 1; d < tensor->shape.size(); ++d)
            inner *= tensor->shape[d];
          appendPerChannelDequantize(
              node.name(), quantizePerChannel(*tensor, tensor->shape[static_cast<std::size_t>(axis->second)], inner),
              axis->second, new_nodes);
          return Status::Ok();
        }
        float min = std::numeric_limits<float>::max(), max = std::numeric_limits<float>::lowest();
        for (std::int64_t i = 0; i < n; ++i) {
          min = std::min(min, values[i]);
          max = std::max(max, values[i]);
        }
        // Quantized ops need 0 to be exactly representable.
        min = std::min(min, 0.0f);
        max = std::max(max, 0.0f);
        if (min == max) {
          if (std::fabs(min) < 0.000001f) max = min + 1.0f;
          else if (min > 0) max = 2.0f * min;
          else max = min / 2.0f;
        }
        model::HostTensor q = model::HostTensor::zeros(tensorflow::DT_QUINT8, tensor->shape);
        std::uint8_t* qv = q.as<std::uint8_t>();
        for (std::int64_t i = 0; i < n; ++i) qv[i] = floatToQuint8(values[i], min, max);

        NodeDef const_node = makeConst(node.name() + "_quantized_const", q);
        NodeDef min_node = makeConst(node.name() + "_quantized_min", scalar(min));
        NodeDef max_node = makeConst(node.name() + "_quantized_max", scalar(max));
        NodeDef dequantize;
        dequantize.set_name(node.name());
        dequantize.set_op("Dequantize");
        setTypeAttr(&dequantize, "T", tensorflow::DT_QUINT8);
        setStringAttr(&dequantize, "mode", "MIN_FIRST");
        dequantize.add_input(const_node.name());
        dequantize.add_input(min_node.name());
        dequantize.add_input(max_node.name());
        new_nodes->push_back(std::move(const_node));
        new_nodes->push_back(std::move(min_node));
        new_nodes->push_back(std::move(max_node));
        new_nodes->push_back(std::move(dequantize));
        return Status::Ok();
      },
      {}, &out));
  return out;
}

}  // namespace

TransformInfo quantizeWeightsTransform() {
  return {"quantize_weights", "Stores large float constants as 8-bit with a Dequantize",
          {{"minimum_size", "only constants with at least this many elements (default 1024)"},
           {"per_channel", "convolution and MatMul weights as qint8 with one range per output channel (default false)"}}, quantizeWeights};
}

}  // namespace gds::transforms
