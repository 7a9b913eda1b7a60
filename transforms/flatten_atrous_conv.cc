// flatten_atrous_conv: BatchToSpaceND(Conv2D|DepthwiseConv2dNative(
// SpaceToBatchND(x, block, pad), filter), block, crops) -- the way
// tf.nn.atrous_conv2d is written for runtimes without dilations -- becomes
// one convolution with the filter upsampled to (k-1)*rate+1 (zeros between
// taps) and SAME padding. The filter keeps its name and the convolution
// takes the BatchToSpaceND's name (TensorFlow's flatten_atrous.cc).
#include "transforms/builtin.h"
#include "transforms/transform_utils.h"

namespace gds::transforms {
namespace {

Result<GraphDef> flattenAtrousConv(const GraphDef& in, const TransformContext&) {
  GraphDef out;
  GDS_RETURN_IF_ERROR(replaceMatchingOpTypes(
      in,
      {"BatchToSpaceND",
       {{"Conv2D|DepthwiseConv2dNative", {{"SpaceToBatchND", {{"*"}, {"*"}, {"*"}}}, {"*"}}}, {"*"}, {"*"}}},
      [](const NodeMatch& match, const std::set<std::string>&, const std::set<std::string>&,
         std::vector<NodeDef>* new_nodes) {
        const NodeDef& b2s = match.def();
        const NodeDef& conv = match.inputs[0].def();
        const NodeDef& filter_node = match.inputs[0].inputs[1].def();
        const NodeDef& input = match.inputs[0].inputs[0].inputs[0].def();
        const NodeDef& block_node = match.inputs[0].inputs[0].inputs[1].def();
        auto keep = [&] {
          copyOriginalMatch(match, new_nodes);
          return Status::Ok();
        };
        if (block_node.op() != "Const" || filter_node.op() != "Const") return keep();
        auto block = tensorAttr(block_node);
        auto filter = floatTensorAttr(filter_node);
        if (!block.ok() || block->size() != 2 || !filter.ok() || filter->shape.size() != 4) return keep();
        const std::int64_t bh = static_cast<std::int64_t>(block->valueAt(0));
        const std::int64_t bw = static_cast<std::int64_t>(block->valueAt(1));
        if (bh < 1 || bw < 1) return keep();
        const std::int64_t fh = filter->shape[0], fw = filter->shape[1], ci = filter->shape[2], co = filter->shape[3];
        const std::int64_t uh = (fh - 1) * bh + 1, uw = (fw - 1) * bw + 1;
        model::HostTensor up = model::HostTensor::zeros(tensorflow::DT_FLOAT, {uh, uw, ci, co});
        const float* src = filter->as<float>();
        float* dst = up.as<float>();
        for (std::int64_t h = 0; h < fh; ++h)
          for (std::int64_t w = 0; w < fw; ++w)
            for (std::int64_t c = 0; c < ci * co; ++c)
              dst[((h * bh) * uw + w * bw) * ci * co + c] = src[(h * fw + w) * ci * co + c];
        NodeDef filter_out = makeConst(filter_node.name(), up);
        NodeDef flat;
        flat.set_name(b2s.name());
        flat.set_op(conv.op());
        flat.set_device(conv.device());
        flat.add_input(match.inputs[0].inputs[0].def().input(0));
        flat.add_input(filter_out.name());
        copyAttr(conv, "T", "T", &flat);
        copyAttr(conv, "strides", "strides", &flat);
        setStringAttr(&flat, "padding", "SAME");
        copyAttr(conv, "data_format", "data_format", &flat);
        if (conv.op() == "Conv2D") copyAttr(conv, "use_cudnn_on_gpu", "use_cudnn_on_gpu", &flat);
        new_nodes->push_back(input);
        new_nodes->push_back(std::move(filter_out));
        new_nodes->push_back(std::move(flat));
        return Status::Ok();
      },
      {}, &out));
  return out;
}

}  // namespace

TransformInfo flattenAtrousConvTransform() {
  return {"flatten_atrous_conv", "Turns SpaceToBatchND/conv/BatchToSpaceND atrous convolutions into one convolution",
          {}, flattenAtrousConv};
}

}  // namespace gds::transforms
