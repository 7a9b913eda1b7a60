// The 8-bit kernels of GraphDefs (engine/quantized/kernels/): TensorFlow's
// quantized ops, Dequantize, the per-channel fused layers of quantize_nodes
// and the nodes the inference rewrite's 8-bit fusion makes.
#pragma once

#include "engine/kernel.h"

namespace gds::engine {

void registerQuantizedKernels(KernelRegistry& registry);

}  // namespace gds::engine
