// The registry of every kernel the engine has (engine/kernels/,
// engine/quantized/kernels/ and engine/tflite/kernels/), made on first use;
// the default of PlanOptions::registry.
#pragma once

#include "engine/kernel.h"

namespace gds::engine {

const KernelRegistry& builtinKernels();

}  // namespace gds::engine
