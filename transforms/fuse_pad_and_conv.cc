// fuse_pad_and_conv: Conv2D(MirrorPad(x, paddings), filter) becomes
// FusedPadConv2D(x, paddings, filter) named after the Conv2D, with the
// MirrorPad's mode (TensorFlow's fuse_convolutions.cc).
#include "transforms/builtin.h"
#include "transforms/transform_utils.h"

namespace gds::transforms {
namespace {

Result<GraphDef> fusePadAndConv(const GraphDef& in, const TransformContext&) {
  GraphDef out;
  GDS_RETURN_IF_ERROR(replaceMatchingOpTypes(
      in, {"Conv2D", {{"MirrorPad", {{"*"}, {"*"}}}, {"*"}}},
      [](const NodeMatch& match, const std::set<std::string>&, const std::set<std::string>&,
         std::vector<NodeDef>* new_nodes) {
        const NodeDef& conv = match.def();
        const NodeDef& pad = match.inputs[0].def();
        new_nodes->push_back(match.inputs[1].def());  // weights
        new_nodes->push_back(match.inputs[0].inputs[0].def());  // input
        new_nodes->push_back(match.inputs[0].inputs[1].def());  // paddings
        NodeDef fused;
        fused.set_name(conv.name());
        fused.set_op("FusedPadConv2D");
        fused.set_device(conv.device());
        fused.add_input(pad.input(0));
        fused.add_input(pad.input(1));
        fused.add_input(conv.input(1));
        copyAttr(pad, "mode", "mode", &fused);
        copyAttr(conv, "T", "T", &fused);
        copyAttr(conv, "padding", "padding", &fused);
        copyAttr(conv, "strides", "strides", &fused);
        new_nodes->push_back(std::move(fused));
        return Status::Ok();
      },
      {}, &out));
  return out;
}

}  // namespace

TransformInfo fusePadAndConvTransform() {
  return {"fuse_pad_and_conv", "Fuses MirrorPad + Conv2D into FusedPadConv2D", {}, fusePadAndConv};
}

}  // namespace gds::transforms
