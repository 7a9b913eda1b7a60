#include "engine/quantized/per_channel.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>

#include "engine/lowp/cpu.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GDS_PC_AVX2 1
#include <immintrin.h>
#endif

// The requantization's multiplies and adds must round separately, as the
// reference loop's do: no contraction into fused multiply-adds. GCC 12 also
// warns falsely inside its AVX-512 headers.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#elif defined(__clang__)
#pragma clang fp contract(off)
#endif

namespace gds::engine::quantized {

namespace {

inline std::uint8_t requantizeOne(const PerChannelRequantize& p, std::int32_t a, std::int64_t c) {
  const float x = std::min(std::max(static_cast<float>(a) * p.multiplier[c] + p.bias[c], p.clamp_lo), p.clamp_hi);
  const float t = x * p.scale;
  const float r = static_cast<float>(static_cast<std::int32_t>(t + (t >= 0.0f ? 0.5f : -0.5f))) - p.offset;
  return static_cast<std::uint8_t>(std::min(std::max(r, 0.0f), 255.0f));
}

#ifdef GDS_PC_AVX2
bool haveAvx2() { return lowp::cpuHasAvx2(); }

__attribute__((target("avx2"))) void channelExtremesAvx2(const std::int32_t* acc, std::int64_t rows,
                                                         std::int64_t channels, std::int32_t* amin,
                                                         std::int32_t* amax) {
  std::int64_t c = 0;
  // Thirty-two channels per pass over the rows: each row's two full cache
  // lines are used at once.
  for (; c + 32 <= channels; c += 32) {
    __m256i lo[4], hi[4];
    for (int j = 0; j < 4; ++j) {
      lo[j] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(amin + c + 8 * j));
      hi[j] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(amax + c + 8 * j));
    }
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::int32_t* a = acc + r * channels + c;
      for (int j = 0; j < 4; ++j) {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + 8 * j));
        lo[j] = _mm256_min_epi32(lo[j], v);
        hi[j] = _mm256_max_epi32(hi[j], v);
      }
    }
    for (int j = 0; j < 4; ++j) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(amin + c + 8 * j), lo[j]);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(amax + c + 8 * j), hi[j]);
    }
  }
  for (; c + 8 <= channels; c += 8) {
    __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(amin + c));
    __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(amax + c));
    for (std::int64_t r = 0; r < rows; ++r) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + r * channels + c));
      lo = _mm256_min_epi32(lo, v);
      hi = _mm256_max_epi32(hi, v);
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(amin + c), lo);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(amax + c), hi);
  }
  for (; c < channels; ++c)
    for (std::int64_t r = 0; r < rows; ++r) {
      amin[c] = std::min(amin[c], acc[r * channels + c]);
      amax[c] = std::max(amax[c], acc[r * channels + c]);
    }
}

// channelExtremesAvx2 with sixty-four channels (four 512-bit vectors, one
// cache line each) per pass over the rows.
__attribute__((target("avx512f"))) void channelExtremesAvx512(const std::int32_t* acc, std::int64_t rows,
                                                             std::int64_t channels, std::int32_t* amin,
                                                             std::int32_t* amax) {
  std::int64_t c = 0;
  for (; c + 64 <= channels; c += 64) {
    __m512i lo[4], hi[4];
    for (int j = 0; j < 4; ++j) {
      lo[j] = _mm512_loadu_si512(amin + c + 16 * j);
      hi[j] = _mm512_loadu_si512(amax + c + 16 * j);
    }
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::int32_t* a = acc + r * channels + c;
      for (int j = 0; j < 4; ++j) {
        const __m512i v = _mm512_loadu_si512(a + 16 * j);
        lo[j] = _mm512_min_epi32(lo[j], v);
        hi[j] = _mm512_max_epi32(hi[j], v);
      }
    }
    for (int j = 0; j < 4; ++j) {
      _mm512_storeu_si512(amin + c + 16 * j, lo[j]);
      _mm512_storeu_si512(amax + c + 16 * j, hi[j]);
    }
  }
  for (; c + 16 <= channels; c += 16) {
    __m512i lo = _mm512_loadu_si512(amin + c), hi = _mm512_loadu_si512(amax + c);
    for (std::int64_t r = 0; r < rows; ++r) {
      const __m512i v = _mm512_loadu_si512(acc + r * channels + c);
      lo = _mm512_min_epi32(lo, v);
      hi = _mm512_max_epi32(hi, v);
    }
    _mm512_storeu_si512(amin + c, lo);
    _mm512_storeu_si512(amax + c, hi);
  }
  for (; c < channels; ++c)
    for (std::int64_t r = 0; r < rows; ++r) {
      amin[c] = std::min(amin[c], acc[r * channels + c]);
      amax[c] = std::max(amax[c], acc[r * channels + c]);
    }
}

// When the rounded values and the offset are integers below 2^23 (always,
// for ranges that contain zero), subtracting them as int32 and narrowing
// with saturation (which clamps to [0, 255]) gives the float operations'
// results with fewer instructions.
bool integerTail(const PerChannelRequantize& p) {
  const float reach = std::max(std::fabs(p.clamp_lo), std::fabs(p.clamp_hi)) * std::fabs(p.scale);
  return reach < 4194304.0f && std::fabs(p.offset) < 4194304.0f && p.offset == std::round(p.offset);
}

// Eight results of requantizeOne; max_ps(lo, v) / min_ps(hi, v) are
// std::max(v, lo) / std::min(v, hi) including their NaN and signed-zero
// choices. kIntegerTail: integerTail(p) holds (offset_i is the offset).
template <bool kIntegerTail>
__attribute__((target("avx2"))) inline __m128i requantize8(const std::int32_t* a, const float* mult,
                                                           const float* bias, __m256 clamp_lo, __m256 clamp_hi,
                                                           __m256 scale, __m256 offset, __m256i offset_i) {
  const __m256 zero = _mm256_setzero_ps(), top = _mm256_set1_ps(255.0f);
  const __m256 half = _mm256_set1_ps(0.5f);
  __m256 x = _mm256_cvtepi32_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a)));
  x = _mm256_add_ps(_mm256_mul_ps(x, _mm256_loadu_ps(mult)), _mm256_loadu_ps(bias));
  x = _mm256_min_ps(clamp_hi, _mm256_max_ps(clamp_lo, x));
  const __m256 t = _mm256_mul_ps(x, scale);
  const __m256 up = _mm256_add_ps(t, half), down = _mm256_sub_ps(t, half);
  const __m256 rounded = _mm256_blendv_ps(down, up, _mm256_cmp_ps(t, zero, _CMP_GE_OQ));
  if (kIntegerTail) {
    // Signed saturation to int16, then unsigned to uint8: [0, 255].
    const __m256i q = _mm256_sub_epi32(_mm256_cvttps_epi32(rounded), offset_i);
    const __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
    return _mm_packus_epi16(words, words);
  }
  __m256 r = _mm256_sub_ps(_mm256_cvtepi32_ps(_mm256_cvttps_epi32(rounded)), offset);
  r = _mm256_min_ps(top, _mm256_max_ps(zero, r));
  const __m256i q = _mm256_cvttps_epi32(r);
  const __m128i words = _mm_packus_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
  return _mm_packus_epi16(words, words);
}

template <bool kIntegerTail>
__attribute__((target("avx2"))) void requantizeRowsAvx2(const PerChannelRequantize& p, const std::int32_t* acc,
                                                        std::int64_t rows, std::int64_t channels,
                                                        std::uint8_t* out) {
  const __m256 clamp_lo = _mm256_set1_ps(p.clamp_lo), clamp_hi = _mm256_set1_ps(p.clamp_hi);
  const __m256 scale = _mm256_set1_ps(p.scale), offset = _mm256_set1_ps(p.offset);
  const __m256i offset_i = _mm256_set1_epi32(kIntegerTail ? static_cast<std::int32_t>(p.offset) : 0);
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int32_t* a = acc + r * channels;
    std::uint8_t* o = out + r * channels;
    std::int64_t c = 0;
    for (; c + 8 <= channels; c += 8)
      _mm_storel_epi64(reinterpret_cast<__m128i*>(o + c), requantize8<kIntegerTail>(a + c, p.multiplier + c,
                                                                                    p.bias + c, clamp_lo, clamp_hi,
                                                                                    scale, offset, offset_i));
    for (; c < channels; ++c) o[c] = requantizeOne(p, a[c], c);
  }
}

bool haveAvx512() { return lowp::cpuHasAvx512(); }

// requantizeRowsAvx2 on sixteen values at a time, operation for operation
// (the pragma above keeps AVX-512's fused multiply-add out).
__attribute__((target("avx512f,avx512bw"))) void requantizeRowsAvx512(const PerChannelRequantize& p,
                                                                      const std::int32_t* acc, std::int64_t rows,
                                                                      std::int64_t channels, std::uint8_t* out) {
  const __m512 clamp_lo = _mm512_set1_ps(p.clamp_lo), clamp_hi = _mm512_set1_ps(p.clamp_hi);
  const __m512 scale = _mm512_set1_ps(p.scale), offset = _mm512_set1_ps(p.offset);
  const __m512 zero = _mm512_setzero_ps(), top = _mm512_set1_ps(255.0f), half = _mm512_set1_ps(0.5f);
  const bool integer_tail = integerTail(p);  // see requantize8
  const __m512i offset_i = _mm512_set1_epi32(static_cast<std::int32_t>(integer_tail ? p.offset : 0.0f));
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int32_t* a = acc + r * channels;
    std::uint8_t* o = out + r * channels;
    std::int64_t c = 0;
    for (; c + 16 <= channels; c += 16) {
      __m512 x = _mm512_cvtepi32_ps(_mm512_loadu_si512(a + c));
      x = _mm512_add_ps(_mm512_mul_ps(x, _mm512_loadu_ps(p.multiplier + c)), _mm512_loadu_ps(p.bias + c));
      x = _mm512_min_ps(clamp_hi, _mm512_max_ps(clamp_lo, x));
      const __m512 t = _mm512_mul_ps(x, scale);
      const __m512 rounded = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(t, zero, _CMP_GE_OQ), _mm512_sub_ps(t, half),
                                                  _mm512_add_ps(t, half));
      if (integer_tail) {
        // Unsigned saturation narrows what max(, 0) leaves: min(, 255).
        const __m512i q = _mm512_max_epi32(_mm512_sub_epi32(_mm512_cvttps_epi32(rounded), offset_i),
                                           _mm512_setzero_si512());
        _mm_storeu_si128(reinterpret_cast<__m128i*>(o + c), _mm512_cvtusepi32_epi8(q));
        continue;
      }
      __m512 v = _mm512_sub_ps(_mm512_cvtepi32_ps(_mm512_cvttps_epi32(rounded)), offset);
      v = _mm512_min_ps(top, _mm512_max_ps(zero, v));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o + c), _mm512_cvtepi32_epi8(_mm512_cvttps_epi32(v)));
    }
    for (; c + 8 <= channels; c += 8)
      _mm_storel_epi64(reinterpret_cast<__m128i*>(o + c),
                       requantize8<false>(a + c, p.multiplier + c, p.bias + c, _mm512_castps512_ps256(clamp_lo),
                                          _mm512_castps512_ps256(clamp_hi), _mm512_castps512_ps256(scale),
                                          _mm512_castps512_ps256(offset), _mm512_castsi512_si256(offset_i)));
    for (; c < channels; ++c) o[c] = requantizeOne(p, a[c], c);
  }
}

#endif  // GDS_PC_AVX2

}  // namespace

void channelExtremes(const std::int32_t* acc, std::int64_t rows, std::int64_t channels, std::int32_t* amin,
                     std::int32_t* amax) {
#ifdef GDS_PC_AVX2
  if (channels >= 16 && haveAvx512()) return channelExtremesAvx512(acc, rows, channels, amin, amax);
  if (haveAvx2()) return channelExtremesAvx2(acc, rows, channels, amin, amax);
#endif
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int32_t* a = acc + r * channels;
    for (std::int64_t c = 0; c < channels; ++c) {
      amin[c] = std::min(amin[c], a[c]);
      amax[c] = std::max(amax[c], a[c]);
    }
  }
}

void perChannelOutputRange(const std::int32_t* amin, const std::int32_t* amax, std::int64_t rows,
                           std::int64_t channels, const float* multiplier, const float* bias, float act_lo,
                           float act_hi, float* lo_out, float* hi_out) {
  float lo = 0.0f, hi = 0.0f;
  for (std::int64_t c = 0; rows > 0 && c < channels; ++c)
    for (const std::int32_t a : {amin[c], amax[c]}) {
      const float x = std::min(std::max(static_cast<float>(a) * multiplier[c] + bias[c], act_lo), act_hi);
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
  if (hi == lo) hi = lo + 1.0f;  // all zero: any range containing 0 is exact
  *lo_out = lo;
  *hi_out = hi;
}

void requantizeRows(const PerChannelRequantize& p, const std::int32_t* acc, std::int64_t rows,
                    std::int64_t channels, std::uint8_t* out) {
#ifdef GDS_PC_AVX2
  if (channels >= 16 && haveAvx512()) return requantizeRowsAvx512(p, acc, rows, channels, out);
  if (haveAvx2())
    return integerTail(p) ? requantizeRowsAvx2<true>(p, acc, rows, channels, out)
                          : requantizeRowsAvx2<false>(p, acc, rows, channels, out);
#endif
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < channels; ++c) out[r * channels + c] = requantizeOne(p, acc[r * channels + c], c);
}

}  // namespace gds::engine::quantized
