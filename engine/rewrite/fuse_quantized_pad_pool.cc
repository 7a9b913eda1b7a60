// The float Pad quantize_nodes leaves before an 8-bit max pool (Keras
// ResNets): Dequantize -> Pad -> own-range quantization -> QuantizedMaxPool
// as one _QuantizedPadMaxPool.
#include "engine/rewrite/quantized_fusion_impl.h"

#include "engine/rewrite/fold_and_fuse.h"

namespace gds::engine::quantized_fusion_impl {

// Keras ResNets pad before their first max pool, which quantize_nodes
// leaves in float around the 8-bit pool:
//   Dequantize(a) -> Pad(spatial, zeros) -> own-range QuantizeV2 ->
//   QuantizedMaxPool (VALID)
// with every intermediate read by the next op only.
bool ChainFinder::findPadPool(int pool, Chain* chain) {
  const NodeDef& pn = g_.node(pool);
  if (pn.op() != "QuantizedMaxPool" || used_[static_cast<std::size_t>(pool)] || fed_.count(pool)) return false;
  if (typeAttrOr(pn, "T", tensorflow::DT_QUINT8) != tensorflow::DT_QUINT8 ||
      model::attrString(pn, "padding") != "VALID" || !pn.attr().count("ksize") || !pn.attr().count("strides"))
    return false;
  const auto pool_in = dataInputs(pool);
  if (pool_in.size() != 3) return false;
  const int q = pool_in[0].node;
  if (!readsTriple(pool, q, {0, 1, 2}, {0, 1, 2}) || fetched_.count(q) || soleConsumer(q) != pool) return false;
  std::vector<int> range_nodes;
  if (!ownRangeQuantize(q, &range_nodes)) return false;
  const int pad = dataInputs(q)[0].node;
  const NodeDef& padn = g_.node(pad);
  if (padn.op() != "Pad" || fed_.count(pad) || fetched_.count(pad) || used_[static_cast<std::size_t>(pad)] ||
      typeAttrOr(padn, "T", tensorflow::DT_FLOAT) != tensorflow::DT_FLOAT)
    return false;
  std::vector<int> anchored;
  if (!anchoredConsts(pad, q, range_nodes, &anchored)) return false;
  const auto pad_in = dataInputs(pad);
  if (pad_in.size() != 2 || pad_in[0].port != 0) return false;
  std::vector<std::int64_t> p;
  if (!spatialPaddings(g_.node(pad_in[1].node), &p)) return false;
  const int deq = pad_in[0].node;
  if (!isPlainDequantize(deq) || fed_.count(deq) || fetched_.count(deq) || used_[static_cast<std::size_t>(deq)] ||
      soleConsumer(deq) != pad)
    return false;
  Chain c;
  c.head = deq;
  c.pool = pool;
  c.quantize = q;
  c.pads = {p[2], p[3], p[4], p[5]};
  c.dequantize_mode = stringAttrOr(g_.node(deq), "mode", "MIN_COMBINED");
  for (int i = 0; i < 3; ++i) c.extra_inputs.push_back(g_.node(deq).input(i));
  c.members = {deq, pad};
  c.members.insert(c.members.end(), anchored.begin(), anchored.end());
  c.members.insert(c.members.end(), range_nodes.begin(), range_nodes.end());
  c.members.push_back(q);
  c.members.push_back(pool);
  return accept(std::move(c), pool, chain);
}

}  // namespace gds::engine::quantized_fusion_impl
