// fuse_resize_pad_and_conv: Conv2D(MirrorPad(ResizeBilinear(x, size),
// paddings), filter) becomes FusedResizeAndPadConv2D(x, size, paddings,
// filter) named after the Conv2D (TensorFlow's fuse_convolutions.cc).
#include "transforms/builtin.h"
#include "transforms/transform_utils.h"

namespace gds::transforms {
namespace {

Result<GraphDef> fuseResizePadAndConv(const GraphDef& in, const TransformContext&) {
  GraphDef out;
  GDS_RETURN_IF_ERROR(replaceMatchingOpTypes(
      in, {"Conv2D", {{"MirrorPad", {{"ResizeBilinear"}, {"*"}}}, {"*"}}},
      [](const NodeMatch& match, const std::set<std::string>&, const std::set<std::string>&,
         std::vector<NodeDef>* new_nodes) {
        const NodeDef& conv = match.def();
        const NodeDef& pad = match.inputs[0].def();
        const NodeDef& resize = match.inputs[0].inputs[0].def();
        if (resize.input_size() < 2) {
          copyOriginalMatch(match, new_nodes);
          return Status::Ok();
        }
        new_nodes->push_back(match.inputs[1].def());            // weights
        new_nodes->push_back(match.inputs[0].inputs[1].def());  // paddings
        NodeDef fused;
        fused.set_name(conv.name());
        fused.set_op("FusedResizeAndPadConv2D");
        fused.set_device(conv.device());
        fused.add_input(resize.input(0));
        fused.add_input(resize.input(1));
        fused.add_input(pad.input(1));
        fused.add_input(conv.input(1));
        copyAttr(resize, "align_corners", "resize_align_corners", &fused);
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

TransformInfo fuseResizePadAndConvTransform() {
  return {"fuse_resize_pad_and_conv", "Fuses ResizeBilinear + MirrorPad + Conv2D into FusedResizeAndPadConv2D", {},
          fuseResizePadAndConv};
}

}  // namespace gds::transforms
