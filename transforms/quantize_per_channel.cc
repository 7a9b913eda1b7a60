#include "transforms/quantize_per_channel.h"

#include <algorithm>
#include <cmath>

#include "model/attr.h"
#include "transforms/transform_utils.h"

namespace gds::transforms {

PerChannelWeights quantizePerChannel(const model::HostTensor& weights, std::int64_t channels, std::int64_t inner) {
  // Element i belongs to channel (i / inner) % channels: the layout of a
  // tensor split on one axis, with `inner` elements after that axis.
  const float* w = weights.as<float>();
  const std::int64_t n = weights.size();
  PerChannelWeights out;
  std::vector<float> m(static_cast<std::size_t>(channels), 0.0f);
  auto channel = [&](std::int64_t i) { return static_cast<std::size_t>((i / inner) % channels); };
  for (std::int64_t i = 0; i < n; ++i) m[channel(i)] = std::max(m[channel(i)], std::fabs(w[i]));
  for (float& v : m)
    if (v == 0.0f) v = 1.0f;  // an all-zero channel: any scale represents it exactly
  out.values = model::HostTensor::zeros(tensorflow::DT_QINT8, weights.shape);
  std::int8_t* q = out.values.as<std::int8_t>();
  for (std::int64_t i = 0; i < n; ++i) {
    // Dequantize SCALED: scale = max(min / -128, max / 127) = m / 127.
    const float scale = m[channel(i)] / 127.0f;
    const float r = std::round(w[i] / scale);
    q[i] = static_cast<std::int8_t>(std::clamp(r, -127.0f, 127.0f));
  }
  for (float v : m) {
    out.min.push_back(-v);
    out.max.push_back(v);
  }
  return out;
}

int perChannelAxis(const tensorflow::NodeDef& consumer, int input_index, const model::Shape& shape) {
  if (input_index != 1) return -1;
  const std::string& op = consumer.op();
  if (op == "Conv2D" && shape.size() == 4) return 3;
  if (op == "DepthwiseConv2dNative" && shape.size() == 4 && shape[3] == 1) return 2;
  if (op == "MatMul" && shape.size() == 2) {
    return model::attrBool(consumer, "transpose_b", false) ? 0 : 1;
  }
  return -1;
}

void appendPerChannelDequantize(const std::string& name, const PerChannelWeights& weights, int axis,
                                std::vector<tensorflow::NodeDef>* nodes) {
  const std::int64_t channels = static_cast<std::int64_t>(weights.min.size());
  nodes->push_back(makeConst(name + "_quantized_const", weights.values));
  nodes->push_back(makeConst(name + "_quantized_min", floatTensor({channels}, weights.min)));
  nodes->push_back(makeConst(name + "_quantized_max", floatTensor({channels}, weights.max)));
  tensorflow::NodeDef dequantize;
  dequantize.set_name(name);
  dequantize.set_op("Dequantize");
  setTypeAttr(&dequantize, "T", tensorflow::DT_QINT8);
  setStringAttr(&dequantize, "mode", "SCALED");
  (*dequantize.mutable_attr())["axis"].set_i(axis);
  dequantize.add_input(name + "_quantized_const");
  dequantize.add_input(name + "_quantized_min");
  dequantize.add_input(name + "_quantized_max");
  nodes->push_back(std::move(dequantize));
}

}  // namespace gds::transforms
