// Which kernels the engine runs, chosen in one place for the process: a cap
// on the CPU features of its own dispatch, the float GEMM backend and the
// 8-bit GEMM backend. The engine reads no environment variable: programs
// (gdstudio, the Python module, the tests, the benches) make a KernelChoice
// from GDS_CPU, GDS_FLOAT_GEMM and GDS_QUANTIZED_GEMM
// (app/kernel_environment.h) and set it before the first plan compiles.
// What a single run chooses (reference kernels, Winograd, whose int8
// arithmetic) is in PlanOptions instead. Every backend gives the same 8-bit
// bits; float backends differ by rounding only.
#pragma once

#include <optional>
#include <string>

#include "engine/cpu_features.h"
#include "engine/lowp/gemm.h"
#include "engine/ops/gemm.h"
#include "model/status.h"

namespace gds::engine {

struct KernelChoice {
  // generic, avx2 or avx512; none: what the CPU has. Fixed once a kernel has
  // read the CPU's features (cpuFeatures()).
  std::optional<CpuLevel> cpu;
  // eigen or onednn; none: oneDNN where built in.
  std::optional<ops::GemmBackend> float_gemm;
  // reference, gemmlowp, avx2 or dnnl; none: the fastest this CPU has.
  std::optional<lowp::GemmBackend> quantized_gemm;
};

// Makes `choice` the process's. Changes nothing and says why when the CPU
// cap would change after kernels read the features, or a backend is not
// available (not built in, or not on this CPU).
Status setKernelChoice(const KernelChoice& choice);
KernelChoice kernelChoice();

// "cpu=avx2 float_gemm=eigen quantized_gemm=dnnl" of the fields set ("" when
// none): what a benchmark log says it ran with.
std::string describe(const KernelChoice& choice);

// A choice for a scope (tests, benches), the previous one restored after.
// The constructors change one backend and keep the rest.
class ScopedKernelChoice {
 public:
  explicit ScopedKernelChoice(const KernelChoice& choice);
  explicit ScopedKernelChoice(ops::GemmBackend float_gemm);
  explicit ScopedKernelChoice(lowp::GemmBackend quantized_gemm);
  ~ScopedKernelChoice();
  ScopedKernelChoice(const ScopedKernelChoice&) = delete;
  ScopedKernelChoice& operator=(const ScopedKernelChoice&) = delete;
  // Whether the choice was taken (false: an unavailable backend; nothing changed).
  const Status& status() const { return status_; }

 private:
  KernelChoice previous_;
  Status status_;
};

}  // namespace gds::engine
