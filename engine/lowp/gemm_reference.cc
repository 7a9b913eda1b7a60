// The reference backend of the 8-bit GEMM (GemmBackend::kReference): the
// plain loop that specifies what gemmlowp and oneDNN compute.
#include <cstdint>

#include "engine/lowp/gemm.h"

namespace gds::engine::lowp {

void referenceGemm(const GemmLhs& lhs, const std::uint8_t* b, std::int64_t ldb, std::int32_t b_zero,
                   std::int64_t n, std::int32_t* c, std::int64_t ldc) {
  // Unsigned arithmetic: the int32 result wraps exactly as the optimized
  // backends' 32-bit accumulators do.
  for (std::int64_t i = 0; i < lhs.m; ++i) {
    const std::uint8_t* a_row = lhs.data + i * lhs.lda;
    for (std::int64_t j = 0; j < n; ++j) {
      std::uint32_t total = 0;
      for (std::int64_t p = 0; p < lhs.k; ++p) {
        const std::int32_t av = static_cast<std::int32_t>(a_row[p]) - lhs.zero_point;
        const std::int32_t bv = static_cast<std::int32_t>(b[p * ldb + j]) - b_zero;
        total += static_cast<std::uint32_t>(av) * static_cast<std::uint32_t>(bv);
      }
      c[i * ldc + j] = static_cast<std::int32_t>(total);
    }
  }
}

}  // namespace gds::engine::lowp
