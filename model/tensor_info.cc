#include "model/tensor_info.h"

namespace gds::model {

bool TensorInfo::fullyKnown() const {
  if (!known_rank) return false;
  for (auto d : shape)
    if (d < 0) return false;
  return true;
}

std::int64_t TensorInfo::elements() const { return fullyKnown() ? numElements(shape) : -1; }

std::string TensorInfo::shapeText() const { return known_rank ? shapeString(shape) : "<unknown>"; }

std::string TensorInfo::str() const {
  return (dtype == tensorflow::DT_INVALID ? std::string("?") : dtypeName(dtype)) + shapeText();
}

TensorInfo TensorInfo::unknown(tensorflow::DataType dtype) { return TensorInfo{dtype, false, {}}; }
TensorInfo TensorInfo::ranked(tensorflow::DataType dtype, Shape shape) {
  for (auto& d : shape)
    if (d < 0) d = -1;
  return TensorInfo{dtype, true, std::move(shape)};
}

const TensorInfo& InferredShapes::at(int node, int port) const {
  static const TensorInfo kUnknown;
  if (node < 0 || node >= static_cast<int>(outputs.size()) || port < 0 ||
      port >= static_cast<int>(outputs[node].size()))
    return kUnknown;
  return outputs[node][port];
}

}  // namespace gds::model
