// Registers every built-in kernel family. Each family lives in its own file
// under engine/kernels/ and exposes one register function declared here.
#include "engine/kernel.h"

namespace gds::engine {

// Declarations of the family register functions (one line per family file).
void registerConvKernels(KernelRegistry& registry);         // conv.cc
void registerPoolingKernels(KernelRegistry& registry);      // pooling.cc
void registerBatchNormKernels(KernelRegistry& registry);    // batch_norm.cc
void registerResizeKernels(KernelRegistry& registry);       // resize.cc
void registerDequantizeKernels(KernelRegistry& registry);   // dequantize.cc
void registerRandomKernels(KernelRegistry& registry);       // random.cc
void registerAudioKernels(KernelRegistry& registry);        // audio.cc
void registerImageDecodeKernels(KernelRegistry& registry);  // image_decode.cc

void registerBuiltinKernels(KernelRegistry& registry) {
  (void)registry;
  // One call per family file.
  registerConvKernels(registry);
  registerPoolingKernels(registry);
  registerBatchNormKernels(registry);
  registerResizeKernels(registry);
  registerDequantizeKernels(registry);
  registerRandomKernels(registry);
  registerAudioKernels(registry);
  registerImageDecodeKernels(registry);
}

}  // namespace gds::engine
