// TFLite's MultiplyByQuantizedMultiplier (int8.h's
// multiplyByQuantizedMultiplier) in the form the vector loops compute, on
// one value and on eight AVX2 lanes, for the int8 fast paths (fast.cc and
// fast_layer.cc, where the AVX2 GEMM's blocks are requantized).
// Internal: include only from translation units that dispatch on
// cpuHasAvx2() before calling the AVX2 functions.
#pragma once

#include <algorithm>
#include <cstdint>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GDS_TFL_AVX2 1
#include <immintrin.h>
#endif

namespace gds::engine::tflite {

inline std::int8_t clampToInt8(std::int32_t v, std::int32_t lo, std::int32_t hi) {
  return static_cast<std::int8_t>(std::min(std::max(v, lo), hi));
}

// MultiplyByQuantizedMultiplier(x, multiplier, shift) for a multiplier >= 0
// (quantizeMultiplier makes no other), in the form the vector loops compute:
// SaturatingRoundingDoublingHighMul's (ab + nudge) / 2^31, truncated toward
// zero, is floor((ab + 2^30) / 2^31) for either sign of ab (for ab < 0 the
// nudge 1 - 2^30 and the 2^31 - 1 that turns truncation into flooring add up
// to 2^30), and it never saturates (only INT32_MIN * INT32_MIN would). Then
// RoundingDivideByPOT by the right shift, as gemmlowp's.
struct Mbqm {
  std::int32_t multiplier = 0, left = 0, right = 0, mask = 0, half = 0;
};


inline Mbqm mbqmParams(std::int32_t multiplier, int shift) {
  Mbqm m;
  m.multiplier = multiplier;
  m.left = shift > 0 ? shift : 0;
  m.right = shift > 0 ? 0 : -shift;
  m.mask = static_cast<std::int32_t>((std::int64_t{1} << m.right) - 1);
  m.half = m.mask >> 1;
  return m;
}

inline std::int32_t mbqm(std::int32_t x, std::int32_t multiplier, std::int32_t left, std::int32_t right,
                         std::int32_t mask, std::int32_t half) {
  const auto shifted = static_cast<std::int32_t>(static_cast<std::uint32_t>(x) << left);
  const std::int64_t ab = static_cast<std::int64_t>(shifted) * multiplier;
  const auto high = static_cast<std::int32_t>((ab + (std::int64_t{1} << 30)) >> 31);
  const std::int32_t threshold = half + (high < 0 ? 1 : 0);
  return (high >> right) + ((high & mask) > threshold ? 1 : 0);
}

inline std::int32_t mbqm(std::int32_t x, const Mbqm& m) {
  return mbqm(x, m.multiplier, m.left, m.right, m.mask, m.half);
}

inline bool validMultiplier(std::int32_t multiplier, int shift) { return multiplier >= 0 && shift <= 31 && shift >= -31; }

#ifdef GDS_TFL_AVX2

// mbqm on eight lanes: _mm256_mul_epi32 forms the 64-bit products of the
// even lanes, and of the odd ones once shifted down; the floor division by
// 2^31 keeps bits 31..62 of each (a logical shift gives the same low 32 bits
// as an arithmetic one).
__attribute__((target("avx2"))) inline __m256i mbqm8(__m256i x, __m256i multiplier, __m256i left, __m256i right,
                                                      __m256i mask, __m256i half) {
  x = _mm256_sllv_epi32(x, left);
  const __m256i nudge = _mm256_set1_epi64x(std::int64_t{1} << 30);
  const __m256i even = _mm256_add_epi64(_mm256_mul_epi32(x, multiplier), nudge);
  const __m256i odd =
      _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), _mm256_srli_epi64(multiplier, 32)), nudge);
  const __m256i high = _mm256_blend_epi32(_mm256_srli_epi64(even, 31), _mm256_slli_epi64(odd, 1), 0xAA);
  const __m256i threshold = _mm256_sub_epi32(half, _mm256_srai_epi32(high, 31));
  const __m256i round_up = _mm256_cmpgt_epi32(_mm256_and_si256(high, mask), threshold);
  return _mm256_sub_epi32(_mm256_srav_epi32(high, right), round_up);
}

struct Mbqm8 {
  __m256i multiplier, left, right, mask, half;
};

__attribute__((target("avx2"))) inline Mbqm8 broadcast(const Mbqm& m) {
  return {_mm256_set1_epi32(m.multiplier), _mm256_set1_epi32(m.left), _mm256_set1_epi32(m.right),
          _mm256_set1_epi32(m.mask), _mm256_set1_epi32(m.half)};
}

__attribute__((target("avx2"))) inline __m256i mbqm8(__m256i x, const Mbqm8& m) {
  return mbqm8(x, m.multiplier, m.left, m.right, m.mask, m.half);
}

// Eight int32 values already in [-128, 127] stored as int8.
__attribute__((target("avx2"))) inline void store8(std::int8_t* out, __m256i v) {
  const __m128i p16 = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(out), _mm_packs_epi16(p16, p16));
}

__attribute__((target("avx2"))) inline __m256i load8(const std::int8_t* in) {
  return _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(in)));
}

__attribute__((target("avx2"))) inline __m256i loadI32(const std::int32_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}
__attribute__((target("avx2"))) inline __m256i loadI64(const std::int64_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

// Values x with |x << left| < 2^29 (kNarrowLimit) take a shorter form of
// mbqm8 with fewer shifts (which AVX2 CPUs issue on fewer ports than adds):
//  - the doubled value 2 (x << left) still fits int32, and the 64-bit
//    2 (x << left) * multiplier + 2^31 has floor((ab + 2^30) / 2^31), the
//    doubling high multiply, as its high half, so no shift aligns it;
//  - |high| <= 2^29, so RoundingDivideByPOT's rounding is one addition with
//    no overflow: (high + 2^(right-1) - (high < 0)) >> right rounds halves
//    away from zero as the remainder comparison does (right >= 1; right = 0
//    adds nothing).
// Per lane: multiplier (even lanes' values used), odd (lane 2i+1's
// multiplier in lane 2i), left1 = left + 1, round = 2^(right-1) (0 when
// right = 0), negative = -1 (0 when right = 0), right. kShiftLeft: some
// left shift is not 0 (else x + x doubles).
template <bool kShiftLeft>
__attribute__((target("avx2"))) inline __m256i mbqm8Narrow(__m256i x, __m256i multiplier, __m256i odd_multiplier,
                                                            __m256i left1, __m256i round, __m256i negative,
                                                            __m256i right) {
  const __m256i x2 = kShiftLeft ? _mm256_sllv_epi32(x, left1) : _mm256_add_epi32(x, x);
  const __m256i nudge = _mm256_set1_epi64x(std::int64_t{1} << 31);
  const __m256i even = _mm256_add_epi64(_mm256_mul_epi32(x2, multiplier), nudge);
  const __m256i odd = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x2, 32), odd_multiplier), nudge);
  const __m256i high = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
  const __m256i below = _mm256_and_si256(_mm256_cmpgt_epi32(_mm256_setzero_si256(), high), negative);
  return _mm256_srav_epi32(_mm256_add_epi32(_mm256_add_epi32(high, round), below), right);
}

#endif  // GDS_TFL_AVX2

// The bound of mbqm8Narrow: |x << left| below it.
constexpr std::int64_t kNarrowLimit = std::int64_t{1} << 29;

// mbqm8Narrow's per-lane constants for one channel.
struct MbqmNarrow {
  std::int32_t left1 = 1, round = 0, negative = 0;
};
inline MbqmNarrow mbqmNarrowParams(const Mbqm& m) {
  MbqmNarrow n;
  n.left1 = m.left + 1;
  n.round = m.right > 0 ? static_cast<std::int32_t>(std::int64_t{1} << (m.right - 1)) : 0;
  n.negative = m.right > 0 ? -1 : 0;
  return n;
}

}  // namespace gds::engine::tflite
