// Registers every 8-bit kernel family; each file of this folder exposes one
// register function declared here.
#include "engine/quantized/kernels/register.h"

namespace gds::engine {

void registerDequantizeKernels(KernelRegistry& registry);           // dequantize.cc
void registerQuantizedNNKernels(KernelRegistry& registry);          // nn.cc
void registerQuantizedFusedKernels(KernelRegistry& registry);       // fused.cc
void registerQuantizedArrayKernels(KernelRegistry& registry);       // array.cc
void registerQuantizedPerChannelKernels(KernelRegistry& registry);  // per_channel.cc

void registerQuantizedKernels(KernelRegistry& registry) {
  registerDequantizeKernels(registry);
  registerQuantizedNNKernels(registry);
  registerQuantizedFusedKernels(registry);
  registerQuantizedArrayKernels(registry);
  registerQuantizedPerChannelKernels(registry);
}

}  // namespace gds::engine
