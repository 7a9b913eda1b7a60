// An 8-bit GEMM layer as quantize_nodes leaves it: QuantizedConv2D or
// QuantizedMatMul, then its stages (Requantize, QuantizedBiasAdd, an
// QuantizedAdd of a constant, QuantizedRelu/Relu6, a final Dequantize) as
// one _FusedQuantizedConv2D / _FusedQuantizedMatMul.
#include "engine/rewrite/quantized_fusion_impl.h"

namespace gds::engine::quantized_fusion_impl {

bool ChainFinder::find(int head, Chain* chain) {
  const std::string& op = g_.op(head);
  if (op != "QuantizedConv2D" && op != "QuantizedMatMul") return false;
  if (used_[static_cast<std::size_t>(head)] || fed_.count(head) || fetched_.count(head)) return false;
  if (dataInputs(head).size() != 6) return false;
  Chain c;
  c.head = head;
  c.members.push_back(head);
  const int cur = extend(&c, head, true);
  if (c.stages.empty()) return false;
  return accept(std::move(c), cur, chain);
}

}  // namespace gds::engine::quantized_fusion_impl
