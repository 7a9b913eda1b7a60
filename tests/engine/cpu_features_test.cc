// GDS_CPU: one cap on the engine's own run-time dispatch.
#include "engine/cpu_features.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

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
  EXPECT_EQ("GDS_CPU='sse9' is not a CPU level (expected generic, avx2 or avx512)", bad.error());
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

TEST(CpuFeatures, EnvironmentValueCapsOrWarns) {
  std::string warning;
  EXPECT_FALSE(cpuFeaturesFor("avx2", everything(), &warning).avx512);
  EXPECT_TRUE(warning.empty());
  EXPECT_TRUE(cpuFeaturesFor(nullptr, everything(), &warning).avx512);
  EXPECT_TRUE(cpuFeaturesFor("", everything(), &warning).avx512);
  EXPECT_TRUE(warning.empty());
  // A bad value is ignored (no cap) with a warning that names the variable.
  const CpuFeatures f = cpuFeaturesFor("avx-2", everything(), &warning);
  EXPECT_TRUE(f.avx512_vnni);
  EXPECT_EQ("GDS_CPU='avx-2' is not a CPU level (expected generic, avx2 or avx512); ignored, using every feature of "
            "this CPU",
            warning);
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
  const char* env = std::getenv("GDS_CPU");
  if (env && std::string(env) == "avx2") {
    EXPECT_FALSE(used.avx512);
    EXPECT_FALSE(lowp::dnnlAvailable());
  }
}

}  // namespace
}  // namespace gds::engine
