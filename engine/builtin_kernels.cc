#include "engine/builtin_kernels.h"

#include "engine/kernels/register.h"
#include "engine/quantized/kernels/register.h"
#include "engine/tflite/kernels/register.h"

namespace gds::engine {

const KernelRegistry& builtinKernels() {
  static const KernelRegistry* registry = [] {
    auto* r = new KernelRegistry();
    registerKernels(*r);
    registerQuantizedKernels(*r);
    registerTfliteKernels(*r);
    return r;
  }();
  return *registry;
}

}  // namespace gds::engine
