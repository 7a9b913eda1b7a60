// A residual sum of two 8-bit tensors as quantize_nodes leaves a float
// Add/AddV2 (ResNet's shortcuts), with its own-range quantization and
// stages, as one _QuantizedAddOwnRange.
#include "engine/rewrite/quantized_fusion_impl.h"

namespace gds::engine::quantized_fusion_impl {

// The same quantization of a residual sum of two 8-bit tensors, as
// quantize_nodes leaves a float Add/AddV2 (ResNet's shortcuts):
//   x = Add(Dequantize(a, a_min, a_max), Dequantize(b, b_min, b_max))
// with a and b of the same fully known shape, each Dequantize read by the
// Add only, and x only by the quantization.
bool ChainFinder::findAdd(int q, Chain* chain) {
  std::vector<int> range_nodes;
  if (!ownRangeQuantize(q, &range_nodes)) return false;
  const int add = dataInputs(q)[0].node;
  const std::string& op = g_.op(add);
  if ((op != "Add" && op != "AddV2") || fed_.count(add) || fetched_.count(add) ||
      used_[static_cast<std::size_t>(add)] ||
      typeAttrOr(g_.node(add), "T", tensorflow::DT_FLOAT) != tensorflow::DT_FLOAT)
    return false;
  std::vector<int> anchored;
  if (!anchoredConsts(add, q, range_nodes, &anchored)) return false;
  const auto in = dataInputs(add);
  if (in.size() != 2 || in[0].node == in[1].node) return false;
  Chain c;
  c.head = add;
  for (const auto& d : in) {
    if (d.port != 0 || !isPlainDequantize(d.node) || fed_.count(d.node) || fetched_.count(d.node) ||
        used_[static_cast<std::size_t>(d.node)] || soleConsumer(d.node) != add)
      return false;
    const NodeDef& deq = g_.node(d.node);
    for (int i = 0; i < 3; ++i) c.extra_inputs.push_back(deq.input(i));
    c.add_modes.push_back(stringAttrOr(deq, "mode", "MIN_COMBINED"));
    c.members.push_back(d.node);
  }
  const model::TensorInfo& a = shapes().at(dataInputs(in[0].node)[0].node, dataInputs(in[0].node)[0].port);
  const model::TensorInfo& b = shapes().at(dataInputs(in[1].node)[0].node, dataInputs(in[1].node)[0].port);
  if (!a.fullyKnown() || !b.fullyKnown() || a.shape != b.shape) return false;
  c.add_op = op;
  c.quantize = q;
  c.members.insert(c.members.end(), anchored.begin(), anchored.end());
  c.members.push_back(add);
  c.members.insert(c.members.end(), range_nodes.begin(), range_nodes.end());
  c.members.push_back(q);
  const int tail = extend(&c, q, false);
  return accept(std::move(c), tail, chain);
}

}  // namespace gds::engine::quantized_fusion_impl
