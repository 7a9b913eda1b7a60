// foldAndFuse's pad absorption: a Pad of the spatial dimensions taken into
// the VALID convolution or max pool that reads it.
#include <algorithm>

#include "engine/rewrite/fold_and_fuse_impl.h"
#include "engine/rewrite/fused_nodes.h"

namespace gds::engine {
namespace fold_and_fuse_impl {

// A VALID window op (Conv2D, DepthwiseConv2dNative, MaxPool) reading a Pad
// of its spatial dimensions only, with constant paddings: the op pads
// instead (EXPLICIT padding, TensorFlow's explicit_paddings [0, 0, top,
// bottom, left, right, 0, 0]) and the padded copy is never made. A
// convolution's padding cells are zeros, as Pad's; a max pool's padding
// cells normally take no part, so the pool is told Pad's value
// (_padding_value), which its padding cells then hold.
void Rewriter::absorbPad(int h) {
  const tensorflow::NodeDef& op = slots_[static_cast<size_t>(h)].def();
  const bool pool = op.op() == "MaxPool";
  if (model::attrString(op, "padding") != "VALID" || !isNhwc(op) || !isFloatNode(op)) return;
  model::TensorRef r = model::parseTensorName(op.input(0));
  auto it = by_name_.find(r.node);
  if (it == by_name_.end() || r.port != 0) return;
  const int p = it->second;
  const tensorflow::NodeDef& pad = slots_[static_cast<size_t>(p)].def();
  if (pad.op() != "Pad" || pad.input_size() != 2 || !isFloatNode(pad) || fused_[static_cast<size_t>(p)] ||
      soleConsumer(p) != h)
    return;
  model::TensorRef pr = model::parseTensorName(pad.input(1));
  auto pit = by_name_.find(pr.node);
  if (pit == by_name_.end() || pr.port != 0) return;
  std::vector<std::int64_t> pads;
  if (!spatialPaddings(slots_[static_cast<size_t>(pit->second)].def(), &pads)) return;
  auto replaced = std::make_unique<tensorflow::NodeDef>(op);
  replaced->set_input(0, pad.input(0));
  (*replaced->mutable_attr())["padding"].set_s("EXPLICIT");
  auto* list = (*replaced->mutable_attr())["explicit_paddings"].mutable_list();
  list->clear_i();
  for (std::int64_t v : pads) list->add_i(v);
  if (pool) (*replaced->mutable_attr())["_padding_value"].set_f(0.0f);
  recordFusedNodes({&pad, &op}, op, replaced.get());
  slots_[static_cast<size_t>(h)].replacement = std::move(replaced);
  slots_[static_cast<size_t>(p)].removed = true;
  fused_[static_cast<size_t>(p)] = 1;
  ++absorbed_pads_;
}

}  // namespace fold_and_fuse_impl

bool spatialPaddings(const tensorflow::NodeDef& paddings, std::vector<std::int64_t>* pads) {
  const tensorflow::AttrValue* value = model::findAttr(paddings, "value");
  if (paddings.op() != "Const" || !value) return false;
  auto t = model::decodeTensor(value->tensor());
  if (!t.ok() || t->shape != Shape{4, 2}) return false;
  pads->clear();
  for (std::int64_t i = 0; i < 8; ++i) pads->push_back(static_cast<std::int64_t>(t->valueAt(i)));
  const auto& p = *pads;
  return !p[0] && !p[1] && !p[6] && !p[7] && *std::min_element(p.begin(), p.end()) >= 0;
}

}  // namespace gds::engine
