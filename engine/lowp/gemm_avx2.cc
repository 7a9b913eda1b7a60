// The exact AVX2 8-bit GEMM (gemm_avx2.h): products of int16 pairs summed by
// vpmaddwd into int32 (each pair sum is at most 2 * 32767^2 < 2^31, so
// nothing saturates), added up in int32.
//
// Blocking: weights packed once into panels of 16 output channels,
// [k pairs][16][2] int16; activations packed per block of rows into tiles of
// 5 rows, [5][k pairs][2]; a 5 x 16 tile of accumulators lives in 10
// registers; K is cut into blocks that keep a weight panel in L1.
#include "engine/lowp/gemm_avx2.h"

#include <algorithm>
#include <cstring>

#include "engine/cpu_features.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GDS_GEMM_AVX2 1
#include <immintrin.h>
#endif

namespace gds::engine::lowp {

namespace {
constexpr std::int64_t kMr = 5, kNr = 16;
// K pairs per block: a 16-column panel of 512 pairs is 32 KB.
constexpr std::int64_t kKcPairs = 512;

// Packs value(j, i) (output channel j, depth i, already offset) into panels
// of kNr channels, [panel][k pair][kNr][2]; missing channels and the odd K
// tail are zeros.
template <typename Value>
void packPanels(std::int64_t n, std::int64_t k, const Value& value, std::vector<std::int16_t>* packed) {
  const std::int64_t k_pairs = (k + 1) / 2;
  const std::int64_t panels = (n + kNr - 1) / kNr;
  packed->assign(static_cast<std::size_t>(panels * k_pairs * kNr * 2), 0);
  for (std::int64_t p = 0; p < panels; ++p) {
    std::int16_t* panel = packed->data() + p * k_pairs * kNr * 2;
    for (std::int64_t j = 0; j < kNr && p * kNr + j < n; ++j) {
      std::int16_t* out = panel + j * 2;
      for (std::int64_t i = 0; i < k; ++i) out[(i / 2) * kNr * 2 + (i % 2)] = value(p * kNr + j, i);
    }
  }
}
}  // namespace

bool Avx2Gemm::available() {
#ifdef GDS_GEMM_AVX2
  return cpuFeatures().avx2;
#else
  return false;
#endif
}

void Avx2Gemm::packWeights(const std::int8_t* w, std::int64_t n, std::int64_t k, std::int32_t offset) {
  n_ = n;
  k_ = k;
  k_pairs_ = (k + 1) / 2;
  packPanels(
      n, k, [&](std::int64_t j, std::int64_t i) { return static_cast<std::int16_t>(w[j * k + i] + offset); },
      &packed_);
}

void Avx2Gemm::packWeights(const std::uint8_t* b, std::int64_t k, std::int64_t n, std::int64_t ldb, bool transposed,
                           std::int32_t offset) {
  n_ = n;
  k_ = k;
  k_pairs_ = (k + 1) / 2;
  packPanels(
      n, k,
      [&](std::int64_t j, std::int64_t i) {
        return static_cast<std::int16_t>((transposed ? b[j * ldb + i] : b[i * ldb + j]) + offset);
      },
      &packed_);
}

#ifdef GDS_GEMM_AVX2
namespace {

// c[rows][cols] (+)= a tile [5][kpairs][2] x b panel [kpairs][16][2]. The
// ten accumulators, two weight vectors, the broadcast and the product take
// 14 of the 16 registers.
__attribute__((target("avx2"))) void kernel5x16(const std::int16_t* a, const std::int16_t* b, std::int64_t kpairs,
                                                 std::int32_t* c, std::int64_t ldc, bool accumulate, std::int64_t rows,
                                                 std::int64_t cols) {
  __m256i c00 = _mm256_setzero_si256(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00,
          c40 = c00, c41 = c00;
  // Row r's pairs start at a + r * kpairs * 2.
  const auto* pairs = reinterpret_cast<const std::int32_t*>(a);
  for (std::int64_t i = 0; i < kpairs; ++i, ++pairs, b += kNr * 2) {
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 16));
#define GDS_ROW(r)                                                \
  {                                                               \
    const __m256i x = _mm256_set1_epi32(pairs[r * kpairs]);       \
    c##r##0 = _mm256_add_epi32(c##r##0, _mm256_madd_epi16(x, b0)); \
    c##r##1 = _mm256_add_epi32(c##r##1, _mm256_madd_epi16(x, b1)); \
  }
    GDS_ROW(0) GDS_ROW(1) GDS_ROW(2) GDS_ROW(3) GDS_ROW(4)
#undef GDS_ROW
  }
  alignas(32) std::int32_t tile[kMr][kNr];
  const __m256i sums[kMr][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}, {c40, c41}};
  for (std::int64_t r = 0; r < rows; ++r) {
    std::int32_t* out = c + r * ldc;
    if (cols == kNr) {
      for (int h = 0; h < 2; ++h) {
        __m256i v = sums[r][h];
        if (accumulate) v = _mm256_add_epi32(v, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(out + h * 8)));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + h * 8), v);
      }
      continue;
    }
    _mm256_store_si256(reinterpret_cast<__m256i*>(tile[r]), sums[r][0]);
    _mm256_store_si256(reinterpret_cast<__m256i*>(tile[r] + 8), sums[r][1]);
    for (std::int64_t j = 0; j < cols; ++j)
      out[j] = accumulate ? static_cast<std::int32_t>(static_cast<std::uint32_t>(out[j]) +
                                                      static_cast<std::uint32_t>(tile[r][j]))
                          : tile[r][j];
  }
}

// Rows [0, rows) of a (leading dimension lda), K pairs [kp0, kp1), offset
// added, into tiles of 5 rows, each row's kp pairs contiguous
// ([tile][5][kp][2]); missing rows and the odd K tail are zeros.
template <typename T>
__attribute__((target("avx2"))) void packRows(const T* a, std::int64_t lda, std::int64_t rows, std::int64_t k,
                                               std::int32_t offset, std::int64_t kp0, std::int64_t kp1,
                                               std::int16_t* out) {
  const std::int64_t tiles = (rows + kMr - 1) / kMr, kp = kp1 - kp0;
  const std::int64_t k0 = kp0 * 2, count = std::min(k, kp1 * 2) - k0;  // values present in the block
  const auto off = static_cast<std::int16_t>(offset);
  for (std::int64_t row = 0; row < tiles * kMr; ++row) {
    std::int16_t* __restrict dst = out + row * kp * 2;
    if (row >= rows) {
      std::fill(dst, dst + kp * 2, std::int16_t{0});
      continue;
    }
    const T* __restrict src = a + row * lda + k0;
    for (std::int64_t i = 0; i < count; ++i)
      dst[i] = static_cast<std::int16_t>(static_cast<std::int16_t>(src[i]) + off);
    for (std::int64_t i = count; i < kp * 2; ++i) dst[i] = 0;
  }
}

}  // namespace
#endif

template <typename T>
void Avx2Gemm::runAny(const T* a, std::int64_t rows, std::int64_t lda, std::int32_t a_offset, std::int32_t* c,
                      std::int64_t ldc) const {
#ifdef GDS_GEMM_AVX2
  if (ldc == 0) ldc = n_;
  thread_local std::vector<std::int16_t> packed_a;
  const std::int64_t panels = (n_ + kNr - 1) / kNr;
  const std::int64_t tiles = (rows + kMr - 1) / kMr;
  for (std::int64_t kp0 = 0; kp0 < k_pairs_; kp0 += kKcPairs) {
    const std::int64_t kp1 = std::min(k_pairs_, kp0 + kKcPairs), kp = kp1 - kp0;
    packed_a.resize(static_cast<std::size_t>(tiles * kp * kMr * 2));
    packRows(a, lda, rows, k_, a_offset, kp0, kp1, packed_a.data());
    for (std::int64_t p = 0; p < panels; ++p) {
      const std::int16_t* b = packed_.data() + (p * k_pairs_ + kp0) * kNr * 2;
      const std::int64_t cols = std::min(kNr, n_ - p * kNr);
      for (std::int64_t t = 0; t < tiles; ++t)
        kernel5x16(packed_a.data() + t * kp * kMr * 2, b, kp, c + t * kMr * ldc + p * kNr, ldc, kp0 > 0,
                   std::min(kMr, rows - t * kMr), cols);
    }
  }
#else
  (void)a;
  (void)rows;
  (void)lda;
  (void)a_offset;
  (void)c;
  (void)ldc;
#endif
}

void Avx2Gemm::run(const std::int8_t* a, std::int64_t rows, std::int64_t lda, std::int32_t a_offset, std::int32_t* c,
                   std::int64_t ldc) const {
  runAny(a, rows, lda, a_offset, c, ldc);
}

void Avx2Gemm::run(const std::uint8_t* a, std::int64_t rows, std::int64_t lda, std::int32_t a_offset,
                   std::int32_t* c, std::int64_t ldc) const {
  runAny(a, rows, lda, a_offset, c, ldc);
}

}  // namespace gds::engine::lowp
