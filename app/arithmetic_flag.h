// --arithmetic (run, benchmark, compare, label_image): whose int8 arithmetic
// a .tflite model runs with (engine/lowp/requantize.h), and the other flag
// that chooses kernels, --winograd. Apart from flags.h, which knows nothing
// of the engine.
#pragma once

#include <string>

#include "app/flags.h"
#include "engine/lowp/requantize.h"
#include "model/status.h"

namespace gds::app {

// The arithmetic --<name> gives; the default one when the flag is empty.
Result<engine::lowp::Arithmetic> arithmeticFlag(const Flags& flags, const std::string& name = "arithmetic");
// The flag as every command lists it (name "arithmetic", or "arithmetic2" for
// compare's second run).
FlagSpec arithmeticFlagSpec(const std::string& name = "arithmetic", const std::string& default_value = "");
// --winograd (run, benchmark): whether float 3x3 convolutions may use
// Winograd's algorithm (PlanOptions::winograd).
FlagSpec winogradFlagSpec();

}  // namespace gds::app
