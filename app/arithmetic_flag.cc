#include "app/arithmetic_flag.h"

namespace gds::app {

Result<engine::lowp::Arithmetic> arithmeticFlag(const Flags& flags, const std::string& name) {
  const std::string v = flags.str(name);
  if (v.empty()) return engine::lowp::kDefaultArithmetic;
  engine::lowp::Arithmetic a;
  if (!engine::lowp::parseArithmetic(v, &a))
    return Status::Error("--" + name + " must be " + engine::lowp::arithmeticChoices() + ", got '" + v + "'");
  return a;
}

FlagSpec arithmeticFlagSpec(const std::string& name, const std::string& default_value) {
  return {name, FlagSpec::Type::String,
          default_value.empty() ? engine::lowp::arithmeticName(engine::lowp::kDefaultArithmetic) : default_value,
          "whose int8 arithmetic a .tflite model runs with: tflite-xnnpack (TensorFlow Lite with its XNNPACK "
          "delegate, its default on phones and Linux), tflite-builtin (its built-in kernels, no delegate), "
          "tflite-reference (its reference kernels) or armnn (Arm NN's CpuRef); see docs/user-guide.md"};
}

FlagSpec winogradFlagSpec() {
  return {"winograd", FlagSpec::Type::Bool, "true",
          "let float 3x3 stride-1 convolutions with 64+ channels use Winograd's algorithm (oneDNN's F(4x4,3x3) "
          "or F(2x2,3x3) on AVX-512, gdstudio's F(4x4,3x3) on AVX2; faster; rounding differs from the direct "
          "convolution by a few 1e-6 relative)"};
}

}  // namespace gds::app
