// Registers every kernel family of engine/kernels/. Each family lives in its
// own file and exposes one register function declared here (explicit calls,
// so a static library drops nothing).
#include "engine/kernels/register.h"

namespace gds::engine {

// Declarations of the family register functions (one line per family file).
void registerBasicKernels(KernelRegistry& registry);          // basic_ops.cc
void registerElementwiseKernels(KernelRegistry& registry);    // elementwise.cc
void registerShapeKernels(KernelRegistry& registry);          // shape_ops.cc
void registerArrayKernels(KernelRegistry& registry);          // array_ops.cc
void registerReductionKernels(KernelRegistry& registry);      // reduction.cc
void registerControlFlowKernels(KernelRegistry& registry);    // control_flow.cc
void registerTensorArrayKernels(KernelRegistry& registry);    // tensor_array.cc
void registerTensorListKernels(KernelRegistry& registry);     // tensor_list.cc
void registerConvKernels(KernelRegistry& registry);           // conv.cc
void registerConvTransposeKernels(KernelRegistry& registry);  // conv_transpose.cc
void registerPoolingKernels(KernelRegistry& registry);        // pooling.cc
void registerBatchNormKernels(KernelRegistry& registry);      // batch_norm.cc
void registerResizeKernels(KernelRegistry& registry);         // resize.cc
void registerRandomKernels(KernelRegistry& registry);         // random.cc
void registerAudioKernels(KernelRegistry& registry);          // audio.cc
void registerImageDecodeKernels(KernelRegistry& registry);    // image_decode.cc
void registerImmutableConstKernels(KernelRegistry& registry); // immutable_const.cc
void registerPrintKernels(KernelRegistry& registry);          // print.cc
void registerFakeQuantKernels(KernelRegistry& registry);      // fake_quant.cc

void registerKernels(KernelRegistry& registry) {
  registerBasicKernels(registry);
  registerElementwiseKernels(registry);
  registerShapeKernels(registry);
  registerArrayKernels(registry);
  registerReductionKernels(registry);
  registerControlFlowKernels(registry);
  registerTensorArrayKernels(registry);
  registerTensorListKernels(registry);
  registerConvKernels(registry);
  registerConvTransposeKernels(registry);
  registerPoolingKernels(registry);
  registerBatchNormKernels(registry);
  registerResizeKernels(registry);
  registerRandomKernels(registry);
  registerAudioKernels(registry);
  registerImageDecodeKernels(registry);
  registerImmutableConstKernels(registry);
  registerPrintKernels(registry);
  registerFakeQuantKernels(registry);
}

}  // namespace gds::engine
