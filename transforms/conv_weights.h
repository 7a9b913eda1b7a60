// Per-output-channel scaling of convolution and MatMul weights, shared by
// fold_batch_norms and fold_old_batch_norms.
#pragma once

#include <vector>

#include "graph.pb.h"
#include "model/status.h"
#include "model/tensor.h"

namespace gds::transforms {

// Number of output channels the weights of `op` produce: Conv2D HWIO -> O,
// DepthwiseConv2dNative HWCM -> C*M, MatMul [K,N] -> N ([N,K] when
// transpose_b). -1 when the weights' rank does not fit the op.
std::int64_t outputChannels(const tensorflow::NodeDef& op, const model::HostTensor& weights);

// True when a per-channel vector applied to the op's output broadcasts over
// its channels (NHWC convolutions and MatMul; not NCHW).
bool channelsLast(const tensorflow::NodeDef& op);

// weights scaled so that op(x, result) == op(x, weights) * scale per output
// channel. `scale` has outputChannels() entries (or 1, applied to all).
Result<model::HostTensor> scaleWeights(const tensorflow::NodeDef& op, const model::HostTensor& weights,
                                       const std::vector<float>& scale);

}  // namespace gds::transforms
