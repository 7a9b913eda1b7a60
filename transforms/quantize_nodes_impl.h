// The pieces of quantize_nodes (quantize_nodes.cc, TensorFlow's passes) that
// its per-channel layers (quantize_nodes_per_channel.cc) share.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "graph.pb.h"
#include "model/status.h"

namespace gds::transforms::quantize_nodes_impl {

using tensorflow::GraphDef;
using tensorflow::NodeDef;

// "^a:1" -> "__hat__a__port__1" (TensorFlow's UniqueNodeNameFromInput).
std::string uniqueNodeNameFromInput(const std::string& input);
// A Dequantize (quint8, MIN_FIRST) of source's three outputs, named `name`.
NodeDef dequantizeNode(const std::string& name, const std::string& source);
// The dynamic-range quantization of one float input (TensorFlow's chain):
//   <prefix>/<input>/{reshape_dims, reduction_dims, reshape, min, max, quantize}
// appended to new_nodes; returns the QuantizeV2's name.
std::string appendInputQuantization(const std::string& prefix, const std::string& input,
                                    std::vector<NodeDef>* new_nodes);

// quantize_nodes(per_channel=true): each convolution / depthwise / MatMul
// with its bias and Relu/Relu6 as one QuantizedFused<Op> with per-channel
// qint8 weights. `chain_reshapes` receives the Reshape nodes of the input
// quantization chains, which the generic pass must leave alone. Op types in
// `ignored` (ignore_op) stay float.
Result<GraphDef> fusePerChannelLayers(const GraphDef& in, const std::set<std::string>& ignored,
                                      std::set<std::string>* chain_reshapes);

}  // namespace gds::transforms::quantize_nodes_impl
