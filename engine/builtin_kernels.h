// The registry of every kernel the engine has (engine/kernels/ and
// engine/quantized/kernels/), made on first use; the default of
// PlanOptions::registry.
#pragma once

#include "engine/kernel.h"

namespace gds::engine {

const KernelRegistry& builtinKernels();

}  // namespace gds::engine
