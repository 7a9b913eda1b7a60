// One cap on the engine's own run-time dispatch (KernelChoice::cpu).
#include "engine/cpu_features.h"

#include <gtest/gtest.h>

#include <string>

#include "engine/kernel_choice.h"

#include "engine/lowp/cpu.h"
#include "engine/lowp/gemm.h"

namespace gds::engine {
namespace {

CpuFeatures everything() {
  CpuFeatures f;
  f.avx2 = f.avx512 = f.avx512_vnni = true;
  return f;
}

TEST(CpuFeatures, ParsesTheLevels) {
  EXPECT_EQ(CpuLevel::kGeneric, *parseCpuLevel("generic"));
  EXPECT_EQ(CpuLevel::kAvx2, *parseCpuLevel("avx2"));
  EXPECT_EQ(CpuLevel::kAvx2, *parseCpuLevel("AVX2"));
  EXPECT_EQ(CpuLevel::kAvx512, *parseCpuLevel("avx512"));
  Result<CpuLevel> bad = parseCpuLevel("sse9");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ("'sse9' is not a CPU level (expected generic, avx2 or avx512)", bad.error());
  EXPECT_STREQ("avx2", cpuLevelName(CpuLevel::kAvx2));
}

TEST(CpuFeatures, CapTurnsOffWhatIsAbove) {
  const CpuFeatures avx2 = capCpuFeatures(everything(), CpuLevel::kAvx2);
  EXPECT_TRUE(avx2.avx2);
  EXPECT_FALSE(avx2.avx512);
  EXPECT_FALSE(avx2.avx512_vnni);
  const CpuFeatures generic = capCpuFeatures(everything(), CpuLevel::kGeneric);
  EXPECT_FALSE(generic.avx2 || generic.avx512 || generic.avx512_vnni);
  const CpuFeatures all = capCpuFeatures(everything(), CpuLevel::kAvx512);
  EXPECT_TRUE(all.avx2 && all.avx512 && all.avx512_vnni);
  // A cap never adds a feature the CPU lacks.
  CpuFeatures only_avx2;
  only_avx2.avx2 = true;
  const CpuFeatures capped = capCpuFeatures(only_avx2, CpuLevel::kAvx512);
  EXPECT_TRUE(capped.avx2);
  EXPECT_FALSE(capped.avx512);
}

// The choice is the process's, one switch: a backend per scope, restored
// after; the CPU cap fixed once kernels have read the features; an
// unavailable backend refused without changing anything.
TEST(KernelChoice, OneSwitchScopedAndChecked) {
  const KernelChoice before = kernelChoice();
  {
    ScopedKernelChoice reference(lowp::GemmBackend::kReference);
    ASSERT_TRUE(reference.status().ok()) << reference.status().message();
    EXPECT_EQ(lowp::GemmBackend::kReference, lowp::defaultGemmBackend());
    EXPECT_EQ(lowp::GemmBackend::kReference, *kernelChoice().quantized_gemm);
    EXPECT_EQ(before.cpu, kernelChoice().cpu);
    ScopedKernelChoice eigen(ops::GemmBackend::kEigen);
    ASSERT_TRUE(eigen.status().ok());
    EXPECT_EQ(ops::GemmBackend::kEigen, ops::gemmBackend());
    EXPECT_EQ(lowp::GemmBackend::kReference, lowp::defaultGemmBackend());
    EXPECT_EQ("quantized_gemm=reference", describe(KernelChoice{std::nullopt, std::nullopt, lowp::GemmBackend::kReference}));
  }
  EXPECT_EQ(before.float_gemm, kernelChoice().float_gemm);
  EXPECT_EQ(before.quantized_gemm, kernelChoice().quantized_gemm);
  (void)cpuFeatures();  // kernels have read the features: the cap is fixed
  KernelChoice other = before;
  other.cpu = before.cpu == CpuLevel::kGeneric ? CpuLevel::kAvx2 : CpuLevel::kGeneric;
  other.quantized_gemm = lowp::GemmBackend::kReference;
  const Status refused = setKernelChoice(other);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("since kernels read the CPU's features; set it before the first plan"),
            std::string::npos)
      << refused.message();
  EXPECT_EQ(before.quantized_gemm, kernelChoice().quantized_gemm);  // nothing changed
  if (!lowp::dnnlAvailable()) {
    ScopedKernelChoice dnnl(lowp::GemmBackend::kDnnl);
    EXPECT_FALSE(dnnl.status().ok());
    EXPECT_NE(dnnl.status().message().find("8-bit GEMM backend 'dnnl' is not available here"), std::string::npos);
    EXPECT_EQ(before.quantized_gemm, kernelChoice().quantized_gemm);
  }
}

TEST(CpuFeatures, DispatchFollowsTheCappedFeatures) {
  // Whatever GDS_CPU this test runs under, the engine's checks agree with
  // cpuFeatures() and never exceed the CPU.
  const CpuFeatures& used = cpuFeatures();
  const CpuFeatures cpu = detectedCpuFeatures();
  EXPECT_LE(used.avx2, cpu.avx2);
  EXPECT_LE(used.avx512, cpu.avx512);
  EXPECT_EQ(used.avx2, lowp::cpuHasAvx2());
  EXPECT_EQ(used.avx512, lowp::cpuHasAvx512());
  EXPECT_EQ(used.avx2, lowp::avx2GemmAvailable());
  if (!used.avx512_vnni) {
    EXPECT_FALSE(lowp::dnnlAvailable());
  }
  if (kernelChoice().cpu == CpuLevel::kAvx2) {
    EXPECT_FALSE(used.avx512);
    EXPECT_FALSE(lowp::dnnlAvailable());
  }
}

}  // namespace
}  // namespace gds::engine
