// The kernels of the TensorFlow Lite dialect's ops (engine/tflite/kernels/):
// what a .tflite file's operators run as, float32 and int8.
#pragma once

#include "engine/kernel.h"

namespace gds::engine {

void registerTfliteKernels(KernelRegistry& registry);

}  // namespace gds::engine
