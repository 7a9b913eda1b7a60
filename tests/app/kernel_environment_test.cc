// GDS_CPU, GDS_FLOAT_GEMM and GDS_QUANTIZED_GEMM as the engine's kernel choice.
#include "app/kernel_environment.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/test_util.h"

namespace gds::app {
namespace {

TEST(KernelEnvironment, ValuesChooseAndBadOnesWarn) {
  std::vector<std::string> warnings;
  const engine::KernelChoice all = kernelChoiceFrom("AVX2", "eigen", "gemmlowp", &warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(engine::CpuLevel::kAvx2, *all.cpu);
  EXPECT_EQ(engine::ops::GemmBackend::kEigen, *all.float_gemm);
  EXPECT_EQ(engine::lowp::GemmBackend::kGemmlowp, *all.quantized_gemm);
  EXPECT_EQ("cpu=avx2 float_gemm=eigen quantized_gemm=gemmlowp", engine::describe(all));

  const engine::KernelChoice none = kernelChoiceFrom(nullptr, "", nullptr, &warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_FALSE(none.cpu || none.float_gemm || none.quantized_gemm);

  // Each bad value is ignored with a warning naming its variable.
  const engine::KernelChoice bad = kernelChoiceFrom("avx-2", "mkl", "fast", &warnings);
  EXPECT_FALSE(bad.cpu || bad.float_gemm || bad.quantized_gemm);
  ASSERT_EQ(3u, warnings.size());
  EXPECT_EQ("GDS_CPU: 'avx-2' is not a CPU level (expected generic, avx2 or avx512); ignored, choosing automatically",
            warnings[0]);
  EXPECT_EQ("GDS_FLOAT_GEMM: unknown float GEMM backend 'mkl' (expected eigen or onednn); ignored, choosing "
            "automatically",
            warnings[1]);
  EXPECT_EQ("GDS_QUANTIZED_GEMM: unknown 8-bit GEMM backend 'fast' (expected reference, gemmlowp, avx2, dnnl or "
            "auto); ignored, choosing automatically",
            warnings[2]);
}

// The command reads them: a bad value is a warning on stderr, the command
// still runs.
TEST(KernelEnvironment, TheCommandWarnsAndRuns) {
  auto r = test::runProgram("env", {"GDS_QUANTIZED_GEMM=fast", test::gdstudioPath(), "--version"});
  EXPECT_EQ(0, r.exit_code);
  EXPECT_NE(r.err.find("warning: GDS_QUANTIZED_GEMM: unknown 8-bit GEMM backend 'fast'"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gds::app
