// The kernels of engine/kernels/: every op family but the 8-bit ones
// (engine/quantized/kernels/register.h) and TensorFlow Lite's
// (engine/tflite/kernels/register.h). engine/builtin_kernels.h puts them
// in one registry.
#pragma once

#include "engine/kernel.h"

namespace gds::engine {

void registerKernels(KernelRegistry& registry);

}  // namespace gds::engine
