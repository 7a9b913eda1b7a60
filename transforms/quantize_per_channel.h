// Per-channel 8-bit weights, the option behind quantize_weights(per_channel=
// true) and quantize_nodes(per_channel=true). Weights are symmetric qint8 per
// output channel, in the form TensorFlow's Dequantize(T=qint8, mode=SCALED,
// axis=a) reads: min = -m, max = m with m = max |w| of the channel, so the
// scale is m / 127 and q = round(w / scale) lies in [-127, 127] (TensorFlow
// Lite's per-channel convention). A folded batch norm scales each output
// channel of a convolution differently; one range per tensor then wastes most
// of the 256 levels on the small channels, one per channel does not.
#pragma once

#include <string>
#include <vector>

#include "graph.pb.h"
#include "model/tensor.h"

namespace gds::transforms {

struct PerChannelWeights {
  model::HostTensor values;  // DT_QINT8, the weights' shape
  std::vector<float> min, max;  // one per channel: -m, m
};

// Element i belongs to channel (i / inner) % channels (an axis of size
// `channels` followed by `inner` elements).
// Weights must be DT_FLOAT.
PerChannelWeights quantizePerChannel(const model::HostTensor& weights, std::int64_t channels, std::int64_t inner);

// The output-channel axis of a weight tensor read as input `input_index` of
// `consumer`, when the per-channel form applies: Conv2D filter (axis 3),
// DepthwiseConv2dNative filter with channel multiplier 1 (axis 2), MatMul b
// (axis 1, or 0 with transpose_b). -1 otherwise.
int perChannelAxis(const tensorflow::NodeDef& consumer, int input_index, const model::Shape& weight_shape);

// Dequantize(T=qint8, mode=SCALED, axis) named `name` reading the three Consts
// <name>_quantized_const, _quantized_min and _quantized_max, which are
// appended first.
void appendPerChannelDequantize(const std::string& name, const PerChannelWeights& weights, int axis,
                                std::vector<tensorflow::NodeDef>* nodes);

}  // namespace gds::transforms
