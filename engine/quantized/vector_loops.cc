#include "engine/quantized/vector_loops.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "engine/lowp/cpu.h"
#include "engine/quantized/quantization.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GDS_HAVE_AVX2_PATH 1
#include <immintrin.h>
#endif

// Every multiply and add here must round separately, as the scalar formulas
// they reproduce do: no contraction into fused multiply-adds (AVX-512 has
// them). GCC 12 also warns falsely inside its AVX-512 headers.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#elif defined(__clang__)
#pragma clang fp contract(off)
#endif

namespace gds::engine::quantized {

namespace {

inline std::uint8_t quantizeOne(float x, float scale, float offset) {
  // As QuantizeParams<quint8>::apply.
  float v = std::round(x * scale) - offset;
  v = std::max(v, 0.0f);
  v = std::min(v, 255.0f);
  return static_cast<std::uint8_t>(static_cast<std::int32_t>(v));
}

#ifdef GDS_HAVE_AVX2_PATH
bool haveAvx2() { return lowp::cpuHasAvx2(); }
bool haveAvx512() { return lowp::cpuHasAvx512(); }

// The AVX-512 versions below compute the same formulas as the AVX2 ones,
// operation for operation, on 16 values at a time.
__attribute__((target("avx512f,avx512bw"))) std::int64_t quantizeAvx512(const float* input, std::int64_t count,
                                                                        float scale, float offset,
                                                                        std::uint8_t* output) {
  const __m512 vscale = _mm512_set1_ps(scale);
  const __m512 limit = _mm512_set1_ps(4194304.0f), neg_limit = _mm512_set1_ps(-4194304.0f);
  const __m512 half = _mm512_set1_ps(0.5f), neg_half = _mm512_set1_ps(-0.5f), one = _mm512_set1_ps(1.0f);
  const __m512 voffset = _mm512_set1_ps(offset), zero = _mm512_setzero_ps(), top = _mm512_set1_ps(255.0f);
  std::int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    __m512 p = _mm512_mul_ps(_mm512_loadu_ps(input + i), vscale);
    p = _mm512_min_ps(_mm512_max_ps(p, neg_limit), limit);
    const __m512 t = _mm512_cvtepi32_ps(_mm512_cvttps_epi32(p));
    const __m512 d = _mm512_sub_ps(p, t);
    __m512 r = _mm512_mask_add_ps(t, _mm512_cmp_ps_mask(d, half, _CMP_GE_OQ), t, one);
    r = _mm512_mask_sub_ps(r, _mm512_cmp_ps_mask(d, neg_half, _CMP_LE_OQ), r, one);
    __m512 v = _mm512_sub_ps(r, voffset);
    v = _mm512_min_ps(_mm512_max_ps(v, zero), top);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(output + i), _mm512_cvtepi32_epi8(_mm512_cvttps_epi32(v)));
  }
  return i;
}

// min_ps(v, lo) is (v < lo ? v : lo) and max_ps(v, hi) is (v > hi ? v : hi),
// minMaxFloat's own comparisons (a NaN never replaces the running value).
__attribute__((target("avx512f"))) std::int64_t lookupSumAvx512(const std::uint8_t* a, const float* ta,
                                                                 const std::uint8_t* b, const float* tb, std::int64_t n,
                                                                 float* out, float* lo, float* hi) {
  __m512 vlo = _mm512_set1_ps(*lo), vhi = _mm512_set1_ps(*hi);
  std::int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    const __m512i ia = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + j)));
    const __m512i ib = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + j)));
    const __m512 v = _mm512_add_ps(_mm512_i32gather_ps(ia, ta, 4), _mm512_i32gather_ps(ib, tb, 4));
    _mm512_storeu_ps(out + j, v);
    vlo = _mm512_min_ps(v, vlo);
    vhi = _mm512_max_ps(v, vhi);
  }
  alignas(64) float l[16], h[16];
  _mm512_store_ps(l, vlo);
  _mm512_store_ps(h, vhi);
  for (int k = 0; k < 16; ++k) {
    *lo = l[k] < *lo ? l[k] : *lo;
    *hi = h[k] > *hi ? h[k] : *hi;
  }
  return j;
}

__attribute__((target("avx512f,avx512bw"))) std::int64_t affineBiasAddAvx512(const AffineBiasAdd& f,
                                                                             const std::uint8_t* in,
                                                                             const std::uint32_t* bias, std::int64_t n,
                                                                             std::int32_t* out) {
  const __m512 o = _mm512_set1_ps(f.o), s = _mm512_set1_ps(f.s), scale = _mm512_set1_ps(f.scale);
  const __m512 c = _mm512_set1_ps(f.c), half = _mm512_set1_ps(0.5f), neg_half = _mm512_set1_ps(-0.5f);
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512 limit = _mm512_set1_ps(4194304.0f), neg_limit = _mm512_set1_ps(-4194304.0f);
  const __m512 low = _mm512_set1_ps(-2.147483648e+09f), high = _mm512_set1_ps(+2.147483520e+09f);
  std::int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    const __m512i v = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + j)));
    const __m512 x = _mm512_add_ps(o, _mm512_mul_ps(_mm512_cvtepi32_ps(v), s));
    __m512 p = _mm512_mul_ps(x, scale);
    p = _mm512_min_ps(_mm512_max_ps(p, neg_limit), limit);
    const __m512 t = _mm512_cvtepi32_ps(_mm512_cvttps_epi32(p));
    const __m512 d = _mm512_sub_ps(p, t);
    __m512 r = _mm512_mask_add_ps(t, _mm512_cmp_ps_mask(d, half, _CMP_GE_OQ), t, one);
    r = _mm512_mask_sub_ps(r, _mm512_cmp_ps_mask(d, neg_half, _CMP_LE_OQ), r, one);
    __m512 q = _mm512_sub_ps(r, c);
    q = _mm512_min_ps(_mm512_max_ps(q, low), high);
    const __m512i sum = _mm512_add_epi32(_mm512_cvttps_epi32(q), _mm512_loadu_si512(bias + j));
    _mm512_storeu_si512(out + j, sum);
  }
  return j;
}

__attribute__((target("avx512f,avx512bw"))) std::int64_t affineDequantizeAvx512(const AffineDequantize& f,
                                                                                const std::uint8_t* in, std::int64_t n,
                                                                                float* out) {
  const __m512d a = _mm512_set1_pd(f.a), b = _mm512_set1_pd(f.b);
  std::int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    const __m512i v = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + j)));
    const __m512d lo = _mm512_cvtepi32_pd(_mm512_castsi512_si256(v));
    const __m512d hi = _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(v, 1));
    _mm256_storeu_ps(out + j, _mm512_cvtpd_ps(_mm512_add_pd(a, _mm512_mul_pd(lo, b))));
    _mm256_storeu_ps(out + j + 8, _mm512_cvtpd_ps(_mm512_add_pd(a, _mm512_mul_pd(hi, b))));
  }
  return j;
}

// round(p) half away from zero as trunc(p) +- 1 when the fraction reaches
// one half: exact for |p| < 2^22. Larger products are clamped to +-2^22
// first, which cannot change the result after the offset (at most 255 in
// magnitude) and the clamp to [0, 255]. A NaN product gives 0, as the scalar
// conversion does on x86.
__attribute__((target("avx2"))) std::int64_t quantizeAvx2(const float* input, std::int64_t count, float scale,
                                                          float offset, std::uint8_t* output) {
  const __m256 vscale = _mm256_set1_ps(scale);
  const __m256 limit = _mm256_set1_ps(4194304.0f), neg_limit = _mm256_set1_ps(-4194304.0f);
  const __m256 half = _mm256_set1_ps(0.5f), neg_half = _mm256_set1_ps(-0.5f), one = _mm256_set1_ps(1.0f);
  const __m256 voffset = _mm256_set1_ps(offset), zero = _mm256_setzero_ps(), top = _mm256_set1_ps(255.0f);
  std::int64_t i = 0;
  for (; i + 32 <= count; i += 32) {
    __m256i q[4];
    for (int k = 0; k < 4; ++k) {
      __m256 p = _mm256_mul_ps(_mm256_loadu_ps(input + i + 8 * k), vscale);
      p = _mm256_min_ps(_mm256_max_ps(p, neg_limit), limit);
      const __m256 t = _mm256_cvtepi32_ps(_mm256_cvttps_epi32(p));
      const __m256 d = _mm256_sub_ps(p, t);
      __m256 r = _mm256_add_ps(t, _mm256_and_ps(_mm256_cmp_ps(d, half, _CMP_GE_OQ), one));
      r = _mm256_sub_ps(r, _mm256_and_ps(_mm256_cmp_ps(d, neg_half, _CMP_LE_OQ), one));
      __m256 v = _mm256_sub_ps(r, voffset);
      v = _mm256_min_ps(_mm256_max_ps(v, zero), top);
      q[k] = _mm256_cvttps_epi32(v);
    }
    // 4 x 8 int32 in [0, 255] -> 32 bytes in order (packs work per 128-bit lane).
    const __m256i w01 = _mm256_packus_epi32(q[0], q[1]);
    const __m256i w23 = _mm256_packus_epi32(q[2], q[3]);
    __m256i b = _mm256_packus_epi16(w01, w23);
    b = _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(output + i), b);
  }
  return i;
}

// _mm256_min_ps(v, lo) is v < lo ? v : lo, exactly the scalar rule
// (a NaN element never replaces the current value).
__attribute__((target("avx2"))) std::int64_t minMaxAvx2(const float* data, std::int64_t count, float* lo, float* hi) {
  __m256 vlo = _mm256_set1_ps(*lo), vhi = _mm256_set1_ps(*hi);
  std::int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m256 v = _mm256_loadu_ps(data + i);
    vlo = _mm256_min_ps(v, vlo);
    vhi = _mm256_max_ps(v, vhi);
  }
  alignas(32) float l[8], h[8];
  _mm256_store_ps(l, vlo);
  _mm256_store_ps(h, vhi);
  for (int j = 0; j < 8; ++j) {
    *lo = l[j] < *lo ? l[j] : *lo;
    *hi = h[j] > *hi ? h[j] : *hi;
  }
  return i;
}
__attribute__((target("avx2"))) std::int64_t affineDequantizeAvx2(const AffineDequantize& f, const std::uint8_t* in,
                                                                  std::int64_t n, float* out) {
  const __m256d a = _mm256_set1_pd(f.a), b = _mm256_set1_pd(f.b);
  std::int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(in + j)));
    const __m256d lo = _mm256_cvtepi32_pd(_mm256_castsi256_si128(v));
    const __m256d hi = _mm256_cvtepi32_pd(_mm256_extracti128_si256(v, 1));
    // Multiply, then add: two roundings, as the scalar double code.
    const __m128 flo = _mm256_cvtpd_ps(_mm256_add_pd(a, _mm256_mul_pd(lo, b)));
    const __m128 fhi = _mm256_cvtpd_ps(_mm256_add_pd(a, _mm256_mul_pd(hi, b)));
    _mm256_storeu_ps(out + j, _mm256_set_m128(fhi, flo));
  }
  return j;
}

__attribute__((target("avx2"))) std::int64_t affineBiasAddAvx2(const AffineBiasAdd& f, const std::uint8_t* in,
                                                               const std::uint32_t* bias, std::int64_t n,
                                                               std::int32_t* out) {
  const __m256 o = _mm256_set1_ps(f.o), s = _mm256_set1_ps(f.s), scale = _mm256_set1_ps(f.scale);
  const __m256 c = _mm256_set1_ps(f.c), half = _mm256_set1_ps(0.5f), neg_half = _mm256_set1_ps(-0.5f);
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 limit = _mm256_set1_ps(4194304.0f), neg_limit = _mm256_set1_ps(-4194304.0f);
  const __m256 low = _mm256_set1_ps(-2.147483648e+09f), high = _mm256_set1_ps(+2.147483520e+09f);
  std::int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(in + j)));
    const __m256 x = _mm256_add_ps(o, _mm256_mul_ps(_mm256_cvtepi32_ps(v), s));
    __m256 p = _mm256_mul_ps(x, scale);
    p = _mm256_min_ps(_mm256_max_ps(p, neg_limit), limit);
    const __m256 t = _mm256_cvtepi32_ps(_mm256_cvttps_epi32(p));
    const __m256 d = _mm256_sub_ps(p, t);
    __m256 r = _mm256_add_ps(t, _mm256_and_ps(_mm256_cmp_ps(d, half, _CMP_GE_OQ), one));
    r = _mm256_sub_ps(r, _mm256_and_ps(_mm256_cmp_ps(d, neg_half, _CMP_LE_OQ), one));
    __m256 q = _mm256_sub_ps(r, c);
    q = _mm256_min_ps(_mm256_max_ps(q, low), high);
    const __m256i sum =
        _mm256_add_epi32(_mm256_cvttps_epi32(q), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bias + j)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + j), sum);
  }
  return j;
}
#endif

}  // namespace

bool affineDequantizeMatches(const AffineDequantize& f, const float table[256]) {
#ifdef GDS_HAVE_AVX2_PATH
  if (!haveAvx2()) return false;
  std::uint8_t levels[256];
  for (int v = 0; v < 256; ++v) levels[v] = static_cast<std::uint8_t>(v);
  float got[256];
  affineDequantizeRow(f, levels, 256, got);
  return std::memcmp(got, table, sizeof(got)) == 0;
#else
  (void)f;
  (void)table;
  return false;
#endif
}

void affineDequantizeRow(const AffineDequantize& f, const std::uint8_t* in, std::int64_t n, float* out) {
#ifdef GDS_HAVE_AVX2_PATH
  // Only used after affineDequantizeMatches; the tail goes through the same
  // vector code on a padded copy, so every value has the checked formula.
  std::int64_t j = haveAvx512() ? affineDequantizeAvx512(f, in, n, out) : 0;
  j += affineDequantizeAvx2(f, in + j, n - j, out + j);
  if (j < n) {
    std::uint8_t pad_in[8] = {};
    float pad_out[8];
    std::memcpy(pad_in, in + j, static_cast<std::size_t>(n - j));
    affineDequantizeAvx2(f, pad_in, 8, pad_out);
    std::memcpy(out + j, pad_out, static_cast<std::size_t>(n - j) * sizeof(float));
  }
#else
  (void)f;
  (void)in;
  (void)n;
  (void)out;
#endif
}

bool affineBiasAddMatches(const AffineBiasAdd& f, const std::int32_t table[256]) {
#ifdef GDS_HAVE_AVX2_PATH
  if (!haveAvx2()) return false;
  std::uint8_t levels[256];
  std::uint32_t zeros[256] = {};
  for (int v = 0; v < 256; ++v) levels[v] = static_cast<std::uint8_t>(v);
  std::int32_t got[256];
  affineBiasAddRow(f, levels, zeros, 256, got);
  return std::memcmp(got, table, sizeof(got)) == 0;
#else
  (void)f;
  (void)table;
  return false;
#endif
}

void affineBiasAddRow(const AffineBiasAdd& f, const std::uint8_t* in, const std::uint32_t* bias, std::int64_t n,
                      std::int32_t* out) {
#ifdef GDS_HAVE_AVX2_PATH
  // Only used after affineBiasAddMatches; the tail as above.
  std::int64_t j = haveAvx512() ? affineBiasAddAvx512(f, in, bias, n, out) : 0;
  j += affineBiasAddAvx2(f, in + j, bias + j, n - j, out + j);
  if (j < n) {
    std::uint8_t pad_in[8] = {};
    std::uint32_t pad_bias[8] = {};
    std::int32_t pad_out[8];
    std::memcpy(pad_in, in + j, static_cast<std::size_t>(n - j));
    std::memcpy(pad_bias, bias + j, static_cast<std::size_t>(n - j) * sizeof(std::uint32_t));
    affineBiasAddAvx2(f, pad_in, pad_bias, 8, pad_out);
    std::memcpy(out + j, pad_out, static_cast<std::size_t>(n - j) * sizeof(std::int32_t));
  }
#else
  (void)f;
  (void)in;
  (void)bias;
  (void)n;
  (void)out;
#endif
}

void minMaxFloat(const float* data, std::int64_t count, float* min_value, float* max_value) {
  float lo = std::numeric_limits<float>::max(), hi = std::numeric_limits<float>::lowest();
  std::int64_t i = 0;
#ifdef GDS_HAVE_AVX2_PATH
  if (haveAvx2()) i = minMaxAvx2(data, count, &lo, &hi);
#endif
  for (; i < count; ++i) {
    lo = data[i] < lo ? data[i] : lo;
    hi = data[i] > hi ? data[i] : hi;
  }
  *min_value = lo;
  *max_value = hi;
}

GDS_VECTOR_CLONES void clampU8(std::uint8_t* data, std::int64_t n, std::uint8_t low, std::uint8_t high) {
  for (std::int64_t j = 0; j < n; ++j) {
    const std::uint8_t v = data[j] < low ? low : data[j];
    data[j] = v > high ? high : v;
  }
}

void lookupSumRow(const std::uint8_t* a, const float* ta, const std::uint8_t* b, const float* tb, std::int64_t n,
                  float* out, float* min_value, float* max_value) {
  float lo = std::numeric_limits<float>::max(), hi = std::numeric_limits<float>::lowest();
  std::int64_t j = 0;
#ifdef GDS_HAVE_AVX2_PATH
  if (haveAvx512()) j = lookupSumAvx512(a, ta, b, tb, n, out, &lo, &hi);
#endif
  for (; j < n; ++j) {
    out[j] = ta[a[j]] + tb[b[j]];
    lo = out[j] < lo ? out[j] : lo;
    hi = out[j] > hi ? out[j] : hi;
  }
  *min_value = lo;
  *max_value = hi;
}

void quantizeMinFirstU8(const float* input, std::int64_t count, float scale, float offset, std::uint8_t* output) {
  std::int64_t i = 0;
#ifdef GDS_HAVE_AVX2_PATH
  if (haveAvx512()) i = quantizeAvx512(input, count, scale, offset, output);
  if (haveAvx2()) i += quantizeAvx2(input + i, count - i, scale, offset, output + i);
#endif
  for (; i < count; ++i) output[i] = quantizeOne(input[i], scale, offset);
}

void biasAddRow(const std::uint8_t* in, const std::int32_t* table, const std::uint32_t* bias, std::int64_t n,
                std::int32_t* out) {
  // Plain loads: AVX2 gathers are slower than scalar lookups on CPUs with
  // the Gather Data Sampling mitigation.
  for (std::int64_t j = 0; j < n; ++j)
    out[j] = static_cast<std::int32_t>(static_cast<std::uint32_t>(table[in[j]]) + bias[j]);
}

void lookupRow(const std::uint8_t* in, const float* table, std::int64_t n, float* out) {
  for (std::int64_t j = 0; j < n; ++j) out[j] = table[in[j]];
}

}  // namespace gds::engine::quantized
