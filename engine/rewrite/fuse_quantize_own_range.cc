// quantize_nodes' quantization of a float tensor with its own range
// (Reshape -> Min, Max -> QuantizeV2) and the stages after it as one
// _QuantizeV2OwnRange.
#include "engine/rewrite/quantized_fusion_impl.h"

namespace gds::engine::quantized_fusion_impl {

// quantize_nodes' input quantization: Reshape(x, [-1]) -> Min/Max over
// axis 0 -> QuantizeV2(x, min, max) to quint8, then the same stages as
// after a GEMM (a float op's output, e.g. a DepthwiseConv2dNative's, going
// into QuantizedBiasAdd -> Requantize -> QuantizedRelu6).
bool ChainFinder::findQuantize(int q, Chain* chain) {
  std::vector<int> range_nodes;
  if (!ownRangeQuantize(q, &range_nodes)) return false;
  Chain c;
  c.head = q;
  c.members = range_nodes;
  c.members.push_back(q);
  const int tail = extend(&c, q, false);
  return accept(std::move(c), tail, chain);
}

}  // namespace gds::engine::quantized_fusion_impl
