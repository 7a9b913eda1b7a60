#include "engine/kernel_choice.h"

#include <atomic>

namespace gds::engine {

namespace {

// The float and 8-bit overrides as set (-1: none); the GEMM units keep the
// backends themselves.
std::atomic<int> g_float{-1};
std::atomic<int> g_quantized{-1};

}  // namespace

Status setKernelChoice(const KernelChoice& choice) {
  if (choice.float_gemm && !ops::gemmBackendAvailable(*choice.float_gemm))
    return Status::Error(std::string("float GEMM backend '") + ops::gemmBackendName(*choice.float_gemm) +
                         "' is not built in");
  if (choice.quantized_gemm) {
    auto parsed = lowp::parseGemmBackend(lowp::gemmBackendName(*choice.quantized_gemm));
    if (!parsed.ok()) return parsed.status();
  }
  if (!setCpuCap(choice.cpu)) {
    const auto cap = cpuCap();
    return Status::Error(std::string("the CPU cap is ") + (cap ? cpuLevelName(*cap) : "none") +
                         " since kernels read the CPU's features; set it before the first plan");
  }
  if (choice.float_gemm) ops::setGemmBackend(*choice.float_gemm);
  else ops::resetGemmBackend();
  g_float.store(choice.float_gemm ? static_cast<int>(*choice.float_gemm) : -1);
  if (choice.quantized_gemm) lowp::setDefaultGemmBackend(*choice.quantized_gemm);
  else lowp::resetDefaultGemmBackend();
  g_quantized.store(choice.quantized_gemm ? static_cast<int>(*choice.quantized_gemm) : -1);
  return Status::Ok();
}

KernelChoice kernelChoice() {
  KernelChoice c;
  c.cpu = cpuCap();
  if (const int f = g_float.load(); f >= 0) c.float_gemm = static_cast<ops::GemmBackend>(f);
  if (const int q = g_quantized.load(); q >= 0) c.quantized_gemm = static_cast<lowp::GemmBackend>(q);
  return c;
}

std::string describe(const KernelChoice& choice) {
  std::string out;
  auto add = [&](const std::string& field) { out += (out.empty() ? "" : " ") + field; };
  if (choice.cpu) add(std::string("cpu=") + cpuLevelName(*choice.cpu));
  if (choice.float_gemm) add(std::string("float_gemm=") + ops::gemmBackendName(*choice.float_gemm));
  if (choice.quantized_gemm) add(std::string("quantized_gemm=") + lowp::gemmBackendName(*choice.quantized_gemm));
  return out;
}

ScopedKernelChoice::ScopedKernelChoice(const KernelChoice& choice)
    : previous_(kernelChoice()), status_(setKernelChoice(choice)) {}

ScopedKernelChoice::ScopedKernelChoice(ops::GemmBackend float_gemm) : previous_(kernelChoice()) {
  KernelChoice c = previous_;
  c.float_gemm = float_gemm;
  status_ = setKernelChoice(c);
}

ScopedKernelChoice::ScopedKernelChoice(lowp::GemmBackend quantized_gemm) : previous_(kernelChoice()) {
  KernelChoice c = previous_;
  c.quantized_gemm = quantized_gemm;
  status_ = setKernelChoice(c);
}

ScopedKernelChoice::~ScopedKernelChoice() {
  if (status_.ok()) (void)setKernelChoice(previous_);
}

}  // namespace gds::engine
