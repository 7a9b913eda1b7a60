// The engine's kernel choice (engine/kernel_choice.h) from the environment,
// the one place gdstudio reads it:
//   GDS_CPU=generic|avx2|avx512           cap the engine's own CPU dispatch
//   GDS_FLOAT_GEMM=eigen|onednn           float GEMM and convolution backend
//   GDS_QUANTIZED_GEMM=reference|gemmlowp|avx2|dnnl   8-bit GEMM backend
// Unset or empty: automatic. A value that cannot be used is a warning naming
// the variable, and automatic is used for it.
#pragma once

#include <string>
#include <vector>

#include "engine/kernel_choice.h"

namespace gds::app {

// The choice the three values give (each may be null); `warnings` gets one
// line per value it could not use.
engine::KernelChoice kernelChoiceFrom(const char* cpu, const char* float_gemm, const char* quantized_gemm,
                                      std::vector<std::string>* warnings);

// Reads the variables and sets the choice, printing "warning: ..." lines to
// stderr: what a program does first, before any plan.
void applyKernelEnvironment();

}  // namespace gds::app
