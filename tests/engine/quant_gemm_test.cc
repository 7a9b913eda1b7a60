// The 8-bit GEMM backends produce the same int32 accumulators as the plain
// reference loop, bit for bit, for every zero point and shape.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

#include "engine/kernel_choice.h"
#include "engine/lowp/gemm.h"
#include "engine/thread_pool.h"

namespace gds::engine::lowp {
namespace {

struct Case {
  std::int64_t m, n, k;
  std::int32_t a_zero, b_zero;
};

std::vector<std::uint8_t> randomBytes(std::size_t count, std::mt19937& rng) {
  std::uniform_int_distribution<int> dist(0, 255);
  std::vector<std::uint8_t> v(count);
  for (auto& x : v) x = static_cast<std::uint8_t>(dist(rng));
  return v;
}

std::vector<GemmBackend> backends() {
  std::vector<GemmBackend> list = {GemmBackend::kGemmlowp};
  if (avx2GemmAvailable()) list.push_back(GemmBackend::kAvx2);
  if (dnnlAvailable()) list.push_back(GemmBackend::kDnnl);
  return list;
}

void expectBackendsMatchReference(const Case& c, const ThreadPool* pool, std::mt19937& rng) {
  const std::int64_t lda = c.k + 3;  // a padded leading dimension
  std::vector<std::uint8_t> a = randomBytes(static_cast<std::size_t>(c.m * lda), rng);
  std::vector<std::uint8_t> b = randomBytes(static_cast<std::size_t>(c.k * c.n), rng);
  GemmLhs lhs{a.data(), c.m, c.k, lda, c.a_zero};
  GemmRhs rhs(b.data(), c.k, c.n, c.n, false, c.b_zero);
  std::vector<std::int32_t> expected(static_cast<std::size_t>(c.m * c.n));
  referenceGemm(lhs, b.data(), c.n, c.b_zero, c.n, expected.data(), c.n);
  for (GemmBackend backend : backends()) {
    std::vector<std::int32_t> got(expected.size(), 12345);
    gemm(backend, lhs, rhs, got.data(), c.n, pool);
    ASSERT_EQ(expected, got) << gemmBackendName(backend) << " m=" << c.m << " n=" << c.n << " k=" << c.k
                             << " zeros=" << c.a_zero << "," << c.b_zero;
  }
}

TEST(QuantGemm, ReferenceLoopComputesOffsetProducts) {
  // A = [[1, 2], [3, 4]] with zero 1, B = [[5, 6], [7, 8]] with zero 5.
  const std::uint8_t a[] = {1, 2, 3, 4};
  const std::uint8_t b[] = {5, 6, 7, 8};
  std::int32_t c[4];
  referenceGemm(GemmLhs{a, 2, 2, 2, 1}, b, 2, 5, 2, c, 2);
  // (A-1) = [[0,1],[2,3]], (B-5) = [[0,1],[2,3]]
  EXPECT_EQ(2, c[0]);
  EXPECT_EQ(3, c[1]);
  EXPECT_EQ(6, c[2]);
  EXPECT_EQ(11, c[3]);
}

TEST(QuantGemm, BackendsAreBitIdenticalToReference) {
  std::mt19937 rng(42);
  const Case cases[] = {
      {1, 1, 1, 0, 0},        {1, 10, 7, 128, 128},   {7, 3, 33, 255, 0},      {17, 19, 64, 3, 250},
      {64, 64, 576, 117, 141}, {49, 130, 147, 0, 255}, {200, 16, 27, 255, 255}, {5, 1000, 1024, 90, 129},
      {33, 9, 1, 12, 200},
  };
  for (const Case& c : cases) expectBackendsMatchReference(c, nullptr, rng);
}

TEST(QuantGemm, ZeroPointsOutsideUint8FallBackAndStayExact) {
  // Ranges that do not contain zero give zero points outside [0, 255].
  std::mt19937 rng(3);
  expectBackendsMatchReference({9, 11, 40, -255, 30}, nullptr, rng);
  expectBackendsMatchReference({9, 11, 40, 20, 300}, nullptr, rng);
  // The avx2 backend's int16 operands: b - zero reaches -32767 (fits) and
  // 255 + 32513 (does not fit: gemmlowp's turn); the same for a.
  expectBackendsMatchReference({9, 21, 41, 32767, 255 - 32767 + 255}, nullptr, rng);
  expectBackendsMatchReference({6, 17, 33, -32513, 32768}, nullptr, rng);
}

TEST(QuantGemm, OutputLeadingDimensionIsKeptAndPaddingUntouched) {
  std::mt19937 rng(21);
  const std::int64_t m = 23, n = 37, k = 129, ldc = n + 5;
  std::vector<std::uint8_t> a = randomBytes(static_cast<std::size_t>(m * k), rng);
  std::vector<std::uint8_t> b = randomBytes(static_cast<std::size_t>(k * n), rng);
  GemmLhs lhs{a.data(), m, k, k, 77};
  GemmRhs rhs(b.data(), k, n, n, false, 140);
  std::vector<std::int32_t> expected(static_cast<std::size_t>(m * ldc), -7);
  referenceGemm(lhs, b.data(), n, 140, n, expected.data(), ldc);
  for (GemmBackend backend : backends()) {
    std::vector<std::int32_t> got(expected.size(), -7);
    gemm(backend, lhs, rhs, got.data(), ldc, nullptr);
    EXPECT_EQ(expected, got) << gemmBackendName(backend);
  }
}

TEST(QuantGemm, Avx2BackendPacksOnlyZeroPointsThatFitInt16) {
  if (!avx2GemmAvailable()) GTEST_SKIP() << "no AVX2 here";
  const std::vector<std::uint8_t> b(12, 200);
  EXPECT_FALSE(GemmRhs(b.data(), 3, 4, 4, false, 128).avx2().empty());
  EXPECT_FALSE(GemmRhs(b.data(), 3, 4, 4, false, 32767).avx2().empty());  // 0 - 32767
  EXPECT_TRUE(GemmRhs(b.data(), 3, 4, 4, false, 32768).avx2().empty());
  EXPECT_TRUE(GemmRhs(b.data(), 3, 4, 4, false, -32513).avx2().empty());  // 255 + 32513
  EXPECT_EQ(GemmBackend::kAvx2, *parseGemmBackend("avx2"));
}

TEST(QuantGemm, LargeAccumulatorsAreExact) {
  // |sum| reaches 255 * 255 * 4096 > 2^24: any float rounding would show.
  const std::int64_t m = 4, n = 8, k = 4096;
  std::vector<std::uint8_t> a(static_cast<std::size_t>(m * k), 255), b(static_cast<std::size_t>(k * n), 0);
  for (std::int64_t i = 0; i < k; i += 7) a[static_cast<std::size_t>(i)] = 1;
  GemmLhs lhs{a.data(), m, k, k, 0};
  GemmRhs rhs(b.data(), k, n, n, false, 255);
  std::vector<std::int32_t> expected(static_cast<std::size_t>(m * n));
  referenceGemm(lhs, b.data(), n, 255, n, expected.data(), n);
  EXPECT_EQ(-255 * 255 * 4096, expected[n]);
  for (GemmBackend backend : backends()) {
    std::vector<std::int32_t> got(expected.size());
    gemm(backend, lhs, rhs, got.data(), n, nullptr);
    EXPECT_EQ(expected, got) << gemmBackendName(backend);
  }
}

TEST(QuantGemm, TransposedRhsIsRepacked) {
  const std::uint8_t bt[] = {1, 2, 3, 4, 5, 6};  // n=2 rows of k=3
  GemmRhs rhs(bt, 3, 2, 3, true, 0);
  const std::uint8_t expected[] = {1, 4, 2, 5, 3, 6};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(expected[i], rhs.u8()[i]);
}

TEST(QuantGemm, ThreadedRunsMatchAndEpilogueSeesEveryRowOnce) {
  ThreadPool pool(2);
  std::mt19937 rng(11);
  expectBackendsMatchReference({301, 37, 75, 100, 140}, &pool, rng);
  const std::int64_t m = 1000, n = 8, k = 16;
  std::vector<std::uint8_t> a = randomBytes(static_cast<std::size_t>(m * k), rng);
  std::vector<std::uint8_t> b = randomBytes(static_cast<std::size_t>(k * n), rng);
  GemmRhs rhs(b.data(), k, n, n, false, 7);
  std::vector<std::int32_t> c(static_cast<std::size_t>(m * n));
  std::vector<int> seen(static_cast<std::size_t>(m), 0);
  gemm(defaultGemmBackend(), GemmLhs{a.data(), m, k, k, 9}, rhs, c.data(), n, &pool,
       [&](std::int64_t r0, std::int64_t r1) {
         for (std::int64_t r = r0; r < r1; ++r) seen[static_cast<std::size_t>(r)] += 1;
       });
  for (int s : seen) EXPECT_EQ(1, s);
}

TEST(QuantGemm, BackendNames) {
  EXPECT_EQ(GemmBackend::kGemmlowp, *parseGemmBackend("gemmlowp"));
  EXPECT_EQ(GemmBackend::kReference, *parseGemmBackend("reference"));
  Result<GemmBackend> bad = parseGemmBackend("cublas");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ("unknown 8-bit GEMM backend 'cublas' (expected reference, gemmlowp, avx2, dnnl or auto)", bad.error());
  {
    ScopedKernelChoice reference(GemmBackend::kReference);
    EXPECT_EQ(GemmBackend::kReference, defaultGemmBackend());
  }
  if (!kernelChoice().quantized_gemm) {
    EXPECT_EQ(dnnlAvailable()        ? GemmBackend::kDnnl
              : avx2GemmAvailable() ? GemmBackend::kAvx2
                                    : GemmBackend::kGemmlowp,
              *parseGemmBackend("auto"));
  }
}

}  // namespace
}  // namespace gds::engine::lowp
