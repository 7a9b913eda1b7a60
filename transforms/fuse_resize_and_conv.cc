// fuse_resize_and_conv: Conv2D(ResizeBilinear(x, size), filter) becomes
// FusedResizeAndPadConv2D(x, size, "<conv>_dummy_paddings", filter) with
// all-zero int32 [4,2] paddings and mode REFLECT (TensorFlow's
// fuse_convolutions.cc).
#include "transforms/builtin.h"
#include "transforms/transform_utils.h"

namespace gds::transforms {
namespace {

Result<GraphDef> fuseResizeAndConv(const GraphDef& in, const TransformContext&) {
  GraphDef out;
  GDS_RETURN_IF_ERROR(replaceMatchingOpTypes(
      in, {"Conv2D", {{"ResizeBilinear"}, {"*"}}},
      [](const NodeMatch& match, const std::set<std::string>&, const std::set<std::string>&,
         std::vector<NodeDef>* new_nodes) {
        const NodeDef& conv = match.def();
        const NodeDef& resize = match.inputs[0].def();
        if (resize.input_size() < 2) {
          copyOriginalMatch(match, new_nodes);
          return Status::Ok();
        }
        new_nodes->push_back(match.inputs[1].def());  // weights
        model::HostTensor zeros = model::HostTensor::zeros(tensorflow::DT_INT32, {4, 2});
        NodeDef paddings = makeConst(conv.name() + "_dummy_paddings", zeros);
        NodeDef fused;
        fused.set_name(conv.name());
        fused.set_op("FusedResizeAndPadConv2D");
        fused.set_device(conv.device());
        fused.add_input(resize.input(0));
        fused.add_input(resize.input(1));
        fused.add_input(paddings.name());
        fused.add_input(conv.input(1));
        copyAttr(resize, "align_corners", "resize_align_corners", &fused);
        setStringAttr(&fused, "mode", "REFLECT");
        copyAttr(conv, "T", "T", &fused);
        copyAttr(conv, "padding", "padding", &fused);
        copyAttr(conv, "strides", "strides", &fused);
        new_nodes->push_back(std::move(paddings));
        new_nodes->push_back(std::move(fused));
        return Status::Ok();
      },
      {}, &out));
  return out;
}

}  // namespace

TransformInfo fuseResizeAndConvTransform() {
  return {"fuse_resize_and_conv", "Fuses ResizeBilinear + Conv2D into FusedResizeAndPadConv2D", {},
          fuseResizeAndConv};
}

}  // namespace gds::transforms
