#include "app/kernel_environment.h"

#include <cstdio>
#include <cstdlib>

namespace gds::app {

namespace {

// Parses one variable's value; empty or null leaves the field automatic.
template <typename T, typename Parse>
void readVariable(const char* name, const char* value, Parse parse, std::optional<T>* field,
                  std::vector<std::string>* warnings) {
  if (value == nullptr || *value == '\0') return;
  Result<T> parsed = parse(value);
  if (parsed.ok()) {
    *field = *parsed;
    return;
  }
  if (warnings) warnings->push_back(std::string(name) + ": " + parsed.error() + "; ignored, choosing automatically");
}

}  // namespace

engine::KernelChoice kernelChoiceFrom(const char* cpu, const char* float_gemm, const char* quantized_gemm,
                                      std::vector<std::string>* warnings) {
  engine::KernelChoice c;
  readVariable("GDS_CPU", cpu, [](const std::string& v) { return engine::parseCpuLevel(v); }, &c.cpu, warnings);
  readVariable("GDS_FLOAT_GEMM", float_gemm, [](const std::string& v) { return engine::ops::parseGemmBackend(v); },
               &c.float_gemm, warnings);
  readVariable("GDS_QUANTIZED_GEMM", quantized_gemm,
               [](const std::string& v) -> Result<engine::lowp::GemmBackend> {
                 if (v == "auto") return Status::Error("'auto' is the default; unset the variable");
                 return engine::lowp::parseGemmBackend(v);
               },
               &c.quantized_gemm, warnings);
  return c;
}

void applyKernelEnvironment() {
  std::vector<std::string> warnings;
  const engine::KernelChoice choice = kernelChoiceFrom(std::getenv("GDS_CPU"), std::getenv("GDS_FLOAT_GEMM"),
                                                       std::getenv("GDS_QUANTIZED_GEMM"), &warnings);
  for (const auto& w : warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  const Status set = engine::setKernelChoice(choice);
  if (!set.ok()) std::fprintf(stderr, "warning: %s\n", set.message().c_str());
}

}  // namespace gds::app
