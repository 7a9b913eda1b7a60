#include "transforms/conv_weights.h"

#include "model/attr.h"

namespace gds::transforms {

namespace {
bool transposeB(const tensorflow::NodeDef& op) {
  return model::attrBool(op, "transpose_b", false);
}
}  // namespace

std::int64_t outputChannels(const tensorflow::NodeDef& op, const model::HostTensor& w) {
  if (op.op() == "Conv2D") return w.shape.size() == 4 ? w.shape[3] : -1;
  if (op.op() == "DepthwiseConv2dNative") return w.shape.size() == 4 ? w.shape[2] * w.shape[3] : -1;
  if (op.op() == "MatMul") return w.shape.size() == 2 ? w.shape[transposeB(op) ? 0 : 1] : -1;
  return -1;
}

bool channelsLast(const tensorflow::NodeDef& op) {
  const auto* format = model::findAttr(op, "data_format");
  return !format || format->s().empty() || format->s() == "NHWC";
}

Result<model::HostTensor> scaleWeights(const tensorflow::NodeDef& op, const model::HostTensor& weights,
                                       const std::vector<float>& scale) {
  const std::int64_t cols = outputChannels(op, weights);
  if (cols <= 0) return Status::Error("weights of '" + op.name() + "' do not have the shape " + op.op() + " expects");
  if (static_cast<std::int64_t>(scale.size()) != cols && scale.size() != 1)
    return Status::Error("scale for '" + op.name() + "' has " + std::to_string(scale.size()) +
                         " entries; expected " + std::to_string(cols));
  model::HostTensor out = weights;
  float* v = out.as<float>();
  const std::int64_t n = out.size();
  if (scale.size() == 1) {
    for (std::int64_t i = 0; i < n; ++i) v[i] *= scale[0];
  } else if (op.op() == "MatMul" && transposeB(op)) {
    const std::int64_t k = weights.shape[1];  // [N,K]: one row per output channel
    for (std::int64_t i = 0; i < n; ++i) v[i] *= scale[static_cast<size_t>(i / k)];
  } else {
    for (std::int64_t i = 0; i < n; ++i) v[i] *= scale[static_cast<size_t>(i % cols)];
  }
  return out;
}

}  // namespace gds::transforms
