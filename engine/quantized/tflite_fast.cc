// The fast path of TFLite's int8 layers (see tflite_fast.h).
#include "engine/quantized/tflite_fast.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "engine/ops/conv.h"
#include "engine/quantized/conv_dnnl.h"
#include "engine/quantized/depthwise_avx2.h"
#include "engine/quantized/gemm.h"
#include "engine/quantized/ops.h"
#include "engine/quantized/per_channel.h"
#include "engine/quantized/vector_loops.h"
#include "engine/thread_pool.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GDS_TFL_AVX2 1
#include <immintrin.h>
#endif

namespace gds::engine::quantized::tfl {

namespace {

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

Mbqm mbqmParams(std::int32_t multiplier, int shift) {
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

bool validMultiplier(std::int32_t multiplier, int shift) { return multiplier >= 0 && shift <= 31 && shift >= -31; }

std::int8_t binaryOne(BinaryOp op, const BinaryParams& p, const Mbqm& m1, const Mbqm& m2, const Mbqm& mo,
                      std::int8_t a, std::int8_t b) {
  const std::int32_t x = p.input1_offset + a;
  const std::int32_t y = p.input2_offset + b;
  std::int32_t out;
  if (op == BinaryOp::kMul) {
    out = p.output_offset + mbqm(x * y, mo);
  } else {
    const std::int32_t sx = mbqm(x * (1 << p.left_shift), m1);
    const std::int32_t sy = mbqm(y * (1 << p.left_shift), m2);
    out = mbqm(op == BinaryOp::kAdd ? sx + sy : sx - sy, mo) + p.output_offset;
  }
  return clampToInt8(out, p.act_min, p.act_max);
}

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

__attribute__((target("avx2"))) std::int64_t requantizeRowAvx2(const std::int32_t* acc, const std::int32_t* bias,
                                                               std::int64_t channels, const std::int32_t* multiplier,
                                                               const std::int32_t* left, const std::int32_t* right,
                                                               const std::int32_t* mask, const std::int32_t* half,
                                                               std::int32_t offset, std::int32_t lo, std::int32_t hi,
                                                               std::int8_t* out) {
  const __m256i voffset = _mm256_set1_epi32(offset), vlo = _mm256_set1_epi32(lo), vhi = _mm256_set1_epi32(hi);
  std::int64_t c = 0;
  for (; c + 8 <= channels; c += 8) {
    __m256i x = loadI32(acc + c);
    if (bias) x = _mm256_add_epi32(x, loadI32(bias + c));
    x = mbqm8(x, loadI32(multiplier + c), loadI32(left + c), loadI32(right + c), loadI32(mask + c), loadI32(half + c));
    x = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(x, voffset), vlo), vhi);
    store8(out + c, x);
  }
  return c;
}

__attribute__((target("avx2"))) std::int64_t binaryAvx2(BinaryOp op, const BinaryParams& p, const Mbqm& m1,
                                                        const Mbqm& m2, const Mbqm& mo, const std::int8_t* a,
                                                        bool a_scalar, const std::int8_t* b, bool b_scalar,
                                                        std::int64_t n, std::int8_t* out) {
  const __m256i off1 = _mm256_set1_epi32(p.input1_offset), off2 = _mm256_set1_epi32(p.input2_offset);
  const __m256i out_off = _mm256_set1_epi32(p.output_offset);
  const __m256i lo = _mm256_set1_epi32(p.act_min), hi = _mm256_set1_epi32(p.act_max);
  const __m128i left_shift = _mm_cvtsi32_si128(p.left_shift);
  const Mbqm8 v1 = broadcast(m1), v2 = broadcast(m2), vo = broadcast(mo);
  const __m256i a_splat = _mm256_set1_epi32(a[0]), b_splat = _mm256_set1_epi32(b[0]);
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i x = _mm256_add_epi32(a_scalar ? a_splat : load8(a + i), off1);
    const __m256i y = _mm256_add_epi32(b_scalar ? b_splat : load8(b + i), off2);
    __m256i r;
    if (op == BinaryOp::kMul) {
      r = _mm256_add_epi32(mbqm8(_mm256_mullo_epi32(x, y), vo), out_off);
    } else {
      const __m256i sx = mbqm8(_mm256_sll_epi32(x, left_shift), v1);
      const __m256i sy = mbqm8(_mm256_sll_epi32(y, left_shift), v2);
      const __m256i raw = op == BinaryOp::kAdd ? _mm256_add_epi32(sx, sy) : _mm256_sub_epi32(sx, sy);
      r = _mm256_add_epi32(mbqm8(raw, vo), out_off);
    }
    store8(out + i, _mm256_min_epi32(_mm256_max_epi32(r, lo), hi));
  }
  return i;
}

__attribute__((target("avx2"))) std::int64_t rescaleAvx2(const Rescale& r, const Mbqm& m, const std::int8_t* in,
                                                         std::int64_t n, std::int8_t* out) {
  const __m256i in_zp = _mm256_set1_epi32(r.input_zp), out_zp = _mm256_set1_epi32(r.output_zp);
  const __m256i lo = _mm256_set1_epi32(r.act_min), hi = _mm256_set1_epi32(r.act_max);
  const Mbqm8 vm = broadcast(m);
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i v = _mm256_add_epi32(mbqm8(_mm256_sub_epi32(load8(in + i), in_zp), vm), out_zp);
    store8(out + i, _mm256_min_epi32(_mm256_max_epi32(v, lo), hi));
  }
  return i;
}

// round(x / scale) half away from zero: the truncation plus one where the
// (exact) fraction is at least one half; NaN gives 0 as the scalar loop's
// conversion does, and values beyond int8 are clamped before converting.
__attribute__((target("avx2"))) std::int64_t quantizeAvx2(const float* in, std::int64_t n, float scale,
                                                          std::int32_t zero_point, std::int8_t* out) {
  const __m256 vscale = _mm256_set1_ps(scale), half = _mm256_set1_ps(0.5f), neg_half = _mm256_set1_ps(-0.5f);
  const __m256 one = _mm256_set1_ps(1.0f), big = _mm256_set1_ps(1024.0f), neg_big = _mm256_set1_ps(-1024.0f);
  const __m256i zp = _mm256_set1_epi32(zero_point);
  const __m256i lo = _mm256_set1_epi32(-128), hi = _mm256_set1_epi32(127);
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_div_ps(_mm256_loadu_ps(in + i), vscale);
    const __m256 t = _mm256_round_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __m256 d = _mm256_sub_ps(v, t);
    __m256 r = _mm256_add_ps(t, _mm256_and_ps(_mm256_cmp_ps(d, half, _CMP_GE_OQ), one));
    r = _mm256_sub_ps(r, _mm256_and_ps(_mm256_cmp_ps(d, neg_half, _CMP_LE_OQ), one));
    r = _mm256_andnot_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q), _mm256_min_ps(_mm256_max_ps(r, neg_big), big));
    const __m256i q = _mm256_add_epi32(_mm256_cvttps_epi32(r), zp);
    store8(out + i, _mm256_min_epi32(_mm256_max_epi32(q, lo), hi));
  }
  return i;
}

#endif  // GDS_TFL_AVX2

}  // namespace

Requantizer::Requantizer(const Requant& r, std::int64_t channels)
    : channels_(channels), output_offset_(r.output_offset), act_min_(r.act_min), act_max_(r.act_max) {
  const auto n = static_cast<std::size_t>(channels);
  bool usable = r.shift.size() == r.multiplier.size() && (r.multiplier.size() == 1 || r.multiplier.size() == n);
  for (std::size_t k = 0; usable && k < r.multiplier.size(); ++k) usable = validMultiplier(r.multiplier[k], r.shift[k]);
  if (!usable) {
    fallback_ = true;
    requant_ = r;
    return;
  }
  multiplier_.resize(n);
  left_.resize(n);
  right_.resize(n);
  mask_.resize(n);
  half_.resize(n);
  for (std::size_t c = 0; c < n; ++c) {
    const std::size_t k = r.multiplier.size() == 1 ? 0 : c;
    const Mbqm m = mbqmParams(r.multiplier[k], r.shift[k]);
    multiplier_[c] = m.multiplier;
    left_[c] = m.left;
    right_[c] = m.right;
    mask_[c] = m.mask;
    half_[c] = m.half;
  }
}

void Requantizer::run(const std::int32_t* acc, const std::int32_t* bias, std::int64_t rows,
                      std::int8_t* output) const {
  if (fallback_) {
    requantizeRows(requant_, acc, bias, rows, channels_, output);
    return;
  }
  const std::int64_t channels = channels_;
#ifdef GDS_TFL_AVX2
  const bool avx2 = cpuHasAvx2();
#endif
  for (std::int64_t i = 0; i < rows; ++i) {
    const std::int32_t* a = acc + i * channels;
    std::int8_t* o = output + i * channels;
    std::int64_t c = 0;
#ifdef GDS_TFL_AVX2
    if (avx2)
      c = requantizeRowAvx2(a, bias, channels, multiplier_.data(), left_.data(), right_.data(), mask_.data(),
                            half_.data(), output_offset_, act_min_, act_max_, o);
#endif
    for (; c < channels; ++c) {
      const std::int32_t x = bias ? static_cast<std::int32_t>(static_cast<std::uint32_t>(a[c]) +
                                                              static_cast<std::uint32_t>(bias[c]))
                                  : a[c];
      const auto k = static_cast<std::size_t>(c);
      o[c] = clampToInt8(mbqm(x, multiplier_[k], left_[k], right_[k], mask_[k], half_[k]) + output_offset_, act_min_,
                         act_max_);
    }
  }
}

void binaryFast(BinaryOp op, const BinaryParams& p, const std::int8_t* a, bool a_scalar, const std::int8_t* b,
                bool b_scalar, std::int64_t n, std::int8_t* output) {
  if (!validMultiplier(p.input1_multiplier, p.input1_shift) || !validMultiplier(p.input2_multiplier, p.input2_shift) ||
      !validMultiplier(p.output_multiplier, p.output_shift) || p.left_shift < 0 || p.left_shift > 23) {
    for (std::int64_t i = 0; i < n; ++i) output[i] = binaryElement(op, p, a[a_scalar ? 0 : i], b[b_scalar ? 0 : i]);
    return;
  }
  const Mbqm m1 = mbqmParams(p.input1_multiplier, p.input1_shift);
  const Mbqm m2 = mbqmParams(p.input2_multiplier, p.input2_shift);
  const Mbqm mo = mbqmParams(p.output_multiplier, p.output_shift);
  std::int64_t i = 0;
#ifdef GDS_TFL_AVX2
  if (cpuHasAvx2()) i = binaryAvx2(op, p, m1, m2, mo, a, a_scalar, b, b_scalar, n, output);
#endif
  for (; i < n; ++i) output[i] = binaryOne(op, p, m1, m2, mo, a[a_scalar ? 0 : i], b[b_scalar ? 0 : i]);
}

void rescaleFast(const Rescale& r, const std::int8_t* input, std::int64_t n, std::int8_t* output) {
  if (!validMultiplier(r.multiplier, r.shift)) {
    rescaleReference(r, input, n, output);
    return;
  }
  const Mbqm m = mbqmParams(r.multiplier, r.shift);
  std::int64_t i = 0;
#ifdef GDS_TFL_AVX2
  if (cpuHasAvx2()) i = rescaleAvx2(r, m, input, n, output);
#endif
  for (; i < n; ++i)
    output[i] = clampToInt8(r.output_zp + mbqm(static_cast<std::int32_t>(input[i]) - r.input_zp, m), r.act_min,
                            r.act_max);
}

void quantizeFast(const float* input, std::int64_t n, float scale, std::int32_t zero_point, std::int8_t* output) {
  std::int64_t i = 0;
#ifdef GDS_TFL_AVX2
  if (cpuHasAvx2() && zero_point >= -128 && zero_point <= 127) i = quantizeAvx2(input, n, scale, zero_point, output);
#endif
  if (i < n) quantizeReference(input + i, n - i, scale, zero_point, output + i);
}

namespace {
// The window taps [lo, hi) of output coordinate o that fall inside the input.
inline void poolTaps(std::int64_t o, std::int64_t stride, std::int64_t pad, std::int64_t k, std::int64_t in,
                     std::int64_t* lo, std::int64_t* hi) {
  const std::int64_t start = o * stride - pad;
  *lo = std::max<std::int64_t>(0, -start);
  *hi = std::max(*lo, std::min(k, in - start));
}

// One walk over the pool windows of output rows [row_begin, row_end) for
// both pools: per output cell, Reduction's accumulators (one per channel)
// start at kInit, take every window tap inside the input (accumulate) and
// become the int8 outputs (store, given the number of taps).
template <typename Reduction>
void poolRows(const ConvShape& s, const Reduction& reduction, const std::int8_t* input, std::int64_t row_begin,
              std::int64_t row_end, std::int8_t* output) {
  using Acc = typename Reduction::Acc;
  const std::int64_t channels = s.in_c;
  std::vector<Acc> accumulators(static_cast<std::size_t>(channels));
  Acc* acc = accumulators.data();
  for (std::int64_t row = row_begin; row < row_end; ++row) {
    const std::int64_t b = row / s.out_h, oy = row % s.out_h;
    std::int64_t fy0, fy1;
    poolTaps(oy, s.stride_h, s.pad_top, s.k_h, s.in_h, &fy0, &fy1);
    for (std::int64_t ox = 0; ox < s.out_w; ++ox) {
      std::int64_t fx0, fx1;
      poolTaps(ox, s.stride_w, s.pad_left, s.k_w, s.in_w, &fx0, &fx1);
      std::fill(acc, acc + channels, Reduction::kInit);
      for (std::int64_t fy = fy0; fy < fy1; ++fy)
        for (std::int64_t fx = fx0; fx < fx1; ++fx)
          Reduction::accumulate(
              input + ((b * s.in_h + oy * s.stride_h - s.pad_top + fy) * s.in_w + ox * s.stride_w - s.pad_left + fx) *
                          channels,
              channels, acc);
      const auto count = static_cast<std::int32_t>((fy1 - fy0) * (fx1 - fx0));
      reduction.store(acc, channels, count, output + (row * s.out_w + ox) * channels);
    }
  }
}

// The max of the taps, clamped to the fused activation's range.
struct MaxReduction {
  using Acc = std::int8_t;
  static constexpr Acc kInit = std::numeric_limits<std::int8_t>::lowest();
  std::int8_t lo, hi;
  static void accumulate(const std::int8_t* __restrict x, std::int64_t channels, Acc* __restrict acc) {
    for (std::int64_t c = 0; c < channels; ++c) acc[c] = std::max(acc[c], x[c]);
  }
  void store(const Acc* __restrict acc, std::int64_t channels, std::int32_t, std::int8_t* __restrict o) const {
    for (std::int64_t c = 0; c < channels; ++c) o[c] = std::min(std::max(acc[c], lo), hi);
  }
};

// The sum of the taps divided by their count (cells outside the input not
// counted) with the pools' rounding division, halves away from zero.
struct AverageReduction {
  using Acc = std::int32_t;
  static constexpr Acc kInit = 0;
  std::int32_t act_min, act_max;
  static void accumulate(const std::int8_t* __restrict x, std::int64_t channels, Acc* __restrict acc) {
    for (std::int64_t c = 0; c < channels; ++c) acc[c] += x[c];
  }
  void store(const Acc* __restrict acc, std::int64_t channels, std::int32_t count, std::int8_t* __restrict o) const {
    for (std::int64_t c = 0; c < channels; ++c) {
      const std::int32_t v =
          count == 0 ? 0 : acc[c] > 0 ? (acc[c] + count / 2) / count : (acc[c] - count / 2) / count;
      o[c] = clampToInt8(v, act_min, act_max);
    }
  }
};

}  // namespace

void maxPoolRows(const ConvShape& s, std::int32_t act_min, std::int32_t act_max, const std::int8_t* input,
                 std::int64_t row_begin, std::int64_t row_end, std::int8_t* output) {
  const MaxReduction reduction{static_cast<std::int8_t>(std::max<std::int32_t>(act_min, -128)),
                               static_cast<std::int8_t>(std::min<std::int32_t>(act_max, 127))};
  poolRows(s, reduction, input, row_begin, row_end, output);
}

void averagePoolRows(const ConvShape& s, std::int32_t act_min, std::int32_t act_max, const std::int8_t* input,
                     std::int64_t row_begin, std::int64_t row_end, std::int8_t* output) {
  poolRows(s, AverageReduction{act_min, act_max}, input, row_begin, row_end, output);
}

// The AVX2 depthwise layer (channel multiplier 1) with TFLite's
// requantization and clamp on the accumulators in registers: the shared
// core of depthwise_avx2.h on the int8 input as it is (its zero point is
// -input_offset), the requantization constants in the core's slot order.
class DepthwiseAvx2 {
 public:
  static constexpr std::int64_t kLanes = depthwise_avx2::kLanes;
  // Per block of channels, kLanes each in slot order: the starting
  // accumulators (offset * sum w + bias) and the requantization's
  // multiplier, left shift, right shift, mask and half.
  static constexpr int kParams = 6;

  // False (nothing prepared) where the layer is not this kernel's: channel
  // multiplier other than 1, an input zero point outside int8, multipliers
  // the vector requantization cannot take, no AVX2.
  bool prepare(const ConvShape& s, const Requant& r, const std::int8_t* filter) {
    if (source_ == filter && requant_ == &r && channels_ == s.in_c && taps_ == s.k_h * s.k_w) return ready_;
    source_ = filter;
    requant_ = &r;
    channels_ = s.in_c;
    taps_ = s.k_h * s.k_w;
    ready_ = false;
#ifdef GDS_TFL_AVX2
    const auto c_n = static_cast<std::size_t>(s.in_c);
    if (!cpuHasAvx2() || s.depth_multiplier != 1 || s.out_c != s.in_c || taps_ < 1) return false;
    if (r.input_offset < -127 || r.input_offset > 128) return false;
    if (r.shift.size() != r.multiplier.size() || (r.multiplier.size() != 1 && r.multiplier.size() != c_n))
      return false;
    for (std::size_t k = 0; k < r.multiplier.size(); ++k)
      if (!validMultiplier(r.multiplier[k], r.shift[k])) return false;
    blocks_ = (s.in_c + kLanes - 1) / kLanes;
    pairs_ = (taps_ + 1) / 2;
    depthwise_avx2::packFilter(filter, taps_, s.in_c, &weights_, &offset_sum_);
    params_.assign(static_cast<std::size_t>(blocks_ * kParams * kLanes), 0);
    for (std::int64_t c = 0; c < s.in_c; ++c) {
      offset_sum_[static_cast<std::size_t>(c)] *= r.input_offset;
      const std::size_t k = r.multiplier.size() == 1 ? 0 : static_cast<std::size_t>(c);
      const Mbqm m = mbqmParams(r.multiplier[k], r.shift[k]);
      std::int32_t* p = params_.data() + c / kLanes * kParams * kLanes + lane(c % kLanes);
      const std::int32_t values[kParams] = {0, m.multiplier, m.left, m.right, m.mask, m.half};
      for (int j = 0; j < kParams; ++j) p[j * kLanes] = values[j];
    }
    zero_row_.assign(static_cast<std::size_t>(blocks_ * kLanes), static_cast<std::int8_t>(-r.input_offset));
    ready_ = true;
#endif
    return ready_;
  }

  // Output rows [row_begin, row_end) (row = batch * out_h + y). setBias
  // first, once per run.
  void setBias(const std::int32_t* bias) {
    for (std::int64_t c = 0; c < channels_; ++c)
      params_[static_cast<std::size_t>(c / kLanes * kParams * kLanes + lane(c % kLanes))] =
          static_cast<std::int32_t>(static_cast<std::uint32_t>(offset_sum_[static_cast<std::size_t>(c)]) +
                                    static_cast<std::uint32_t>(bias ? bias[c] : 0));
  }
  void run(const ConvShape& s, const Requant& r, const std::int8_t* input, std::int64_t row_begin,
           std::int64_t row_end, std::int8_t* output) const;

 private:
  static std::int64_t lane(std::int64_t c) { return depthwise_avx2::slot(c); }

  const std::int8_t* source_ = nullptr;
  const Requant* requant_ = nullptr;
  std::int64_t channels_ = 0, taps_ = 0, blocks_ = 0, pairs_ = 0;
  bool ready_ = false;
  std::vector<std::int16_t> weights_;
  std::vector<std::int32_t> params_;
  std::vector<std::int32_t> offset_sum_;  // per channel: offset * sum w
  std::vector<std::int8_t> zero_row_;
};

struct FastLayer::State {
  std::vector<std::uint8_t> input;    // x + 128
  std::vector<std::uint8_t> weights;  // w + 128 (conv, fully connected)
  const std::int8_t* weights_source = nullptr;
  std::unique_ptr<GemmRhs> rhs;
  Conv2DState conv;
  std::vector<std::int32_t> acc;
  const Requant* requant_source = nullptr;
  Requantizer requantizer;
  Avx2Gemm gemm;  // the AVX2 path's packed weights
  const std::int8_t* gemm_source = nullptr;
  std::int32_t gemm_weight_offset = 0;
  DepthwiseAvx2 depthwise;  // the AVX2 depthwise path's weights and constants

  // The requantizer for r's values on `channels` channels (r is the layer's
  // own, fixed after its init).
  const Requantizer& requantizerFor(const Requant& r, std::int64_t channels) {
    if (requant_source != &r || requantizer.channels() != channels) {
      requantizer = Requantizer(r, channels);
      requant_source = &r;
    }
    return requantizer;
  }
};

FastLayer::FastLayer(Kind kind) : kind_(kind), state_(std::make_unique<State>()) {}
FastLayer::~FastLayer() = default;

namespace {

void shiftInput(const std::int8_t* x, std::int64_t n, std::vector<std::uint8_t>* out) {
  out->resize(static_cast<std::size_t>(n));
  // Through plain restrict pointers: the compiler then vectorizes the loop
  // (byte stores through the vector could alias x).
  const std::int8_t* __restrict in = x;
  std::uint8_t* __restrict o = out->data();
  for (std::int64_t i = 0; i < n; ++i) o[i] = static_cast<std::uint8_t>(static_cast<int>(in[i]) + 128);
}

// The rows x channels accumulators of `acc`, bias added and requantized into
// output, on rows [begin, end).
GemmEpilogue requantizer(const Requantizer& q, const std::int32_t* acc, const std::int32_t* bias,
                         std::int8_t* output) {
  return [&q, acc, bias, output](std::int64_t begin, std::int64_t end) {
    q.run(acc + begin * q.channels(), bias, end - begin, output + begin * q.channels());
  };
}

}  // namespace

namespace {

// Rows per block of the AVX2 path: 20 tiles of 5 (the packed block of
// activations stays in L2, the accumulators in L1/L2 for the requantization).
constexpr std::int64_t kBlockRows = 100;

// TFLite's window of output rows [r0, r1) (row = (b * out_h + y) * out_w +
// x) as rows of k_h * k_w * in_c values, (fy, fx, c) order like the filter's;
// cells outside the input hold the input zero point (they then add nothing).
void im2colRows(const ConvShape& s, const std::int8_t* input, std::int8_t zero, std::int64_t r0, std::int64_t r1,
                std::int8_t* out) {
  const std::int64_t k = s.k_h * s.k_w * s.in_c;
  for (std::int64_t r = r0; r < r1; ++r) {
    const std::int64_t b = r / (s.out_h * s.out_w), oy = (r / s.out_w) % s.out_h, ox = r % s.out_w;
    std::int8_t* o = out + (r - r0) * k;
    for (std::int64_t fy = 0; fy < s.k_h; ++fy) {
      const std::int64_t iy = oy * s.stride_h - s.pad_top + fy * s.dil_h;
      for (std::int64_t fx = 0; fx < s.k_w; ++fx, o += s.in_c) {
        const std::int64_t ix = ox * s.stride_w - s.pad_left + fx * s.dil_w;
        if (iy < 0 || iy >= s.in_h || ix < 0 || ix >= s.in_w)
          std::memset(o, zero, static_cast<std::size_t>(s.in_c));
        else
          std::memcpy(o, input + ((b * s.in_h + iy) * s.in_w + ix) * s.in_c, static_cast<std::size_t>(s.in_c));
      }
    }
  }
}

// rows x gemm.n() accumulators of `a` (or of the windows of `input` when
// `conv` is set) in blocks of rows over the pool, each block requantized
// into output while in cache.
void gemmBlocks(const Avx2Gemm& gemm, const Requantizer& q, const ConvShape* conv, const std::int8_t* a,
                std::int64_t rows, std::int64_t lda, std::int32_t a_offset, const std::int32_t* bias,
                std::int8_t* output, const ThreadPool* pool) {
  const std::int64_t n = gemm.n(), k = gemm.k();
  // Smaller blocks when there are fewer than one per thread (ResNet's 7 x 7
  // layers), in multiples of the GEMM's 5-row tiles.
  const std::int64_t threads = pool ? pool->numThreads() : 1;
  const std::int64_t per_thread = ((rows + threads - 1) / threads + 4) / 5 * 5;
  const std::int64_t block_rows = std::max<std::int64_t>(5, std::min(kBlockRows, per_thread));
  const std::int64_t blocks = (rows + block_rows - 1) / block_rows;
  auto work = [&](std::int64_t b0, std::int64_t b1) {
    thread_local std::vector<std::int32_t> acc;
    thread_local std::vector<std::int8_t> patches;
    acc.resize(static_cast<std::size_t>(block_rows * n));
    for (std::int64_t blk = b0; blk < b1; ++blk) {
      const std::int64_t r0 = blk * block_rows, r1 = std::min(rows, r0 + block_rows);
      const std::int8_t* rows_a = a + r0 * lda;
      std::int64_t ld = lda;
      if (conv) {
        patches.resize(static_cast<std::size_t>(block_rows * k));
        im2colRows(*conv, a, static_cast<std::int8_t>(-a_offset), r0, r1, patches.data());
        rows_a = patches.data();
        ld = k;
      }
      gemm.run(rows_a, r1 - r0, ld, a_offset, acc.data());
      q.run(acc.data(), bias, r1 - r0, output + r0 * n);
    }
  };
  const double cost = static_cast<double>(block_rows * n * k) / 8;
  if (pool && pool->numThreads() > 1 && blocks > 1) pool->parallelFor(blocks, cost, work);
  else work(0, blocks);
}

}  // namespace

#ifdef GDS_TFL_AVX2
namespace {

template <int kPairs>
__attribute__((target("avx2"))) void depthwiseRowsAvx2(const ConvShape& s, const std::int8_t* input,
                                                       const std::int8_t* zero_row, std::int64_t pairs,
                                                       const std::int16_t* weights, const std::int32_t* params,
                                                       const Requant& r, std::int64_t row_begin, std::int64_t row_end,
                                                       std::int8_t* output) {
  constexpr std::int64_t kLanes = DepthwiseAvx2::kLanes;
  const __m256i out_offset = _mm256_set1_epi32(r.output_offset);
  const __m256i lo = _mm256_set1_epi32(r.act_min), hi = _mm256_set1_epi32(r.act_max);
  depthwise_avx2::Window w;
  w.in_h = s.in_h;
  w.in_w = s.in_w;
  w.channels = s.in_c;
  w.k_h = s.k_h;
  w.k_w = s.k_w;
  w.stride_h = s.stride_h;
  w.stride_w = s.stride_w;
  w.dil_h = s.dil_h;
  w.dil_w = s.dil_w;
  w.pad_top = s.pad_top;
  w.pad_left = s.pad_left;
  w.out_h = s.out_h;
  w.out_w = s.out_w;
  const std::int64_t c_n = s.in_c;
  depthwise_avx2::forEachBlock<std::int8_t, kPairs>(
      w, input, zero_row, pairs, weights, params, DepthwiseAvx2::kParams * kLanes, row_begin, row_end,
      [&](std::int64_t pixel, std::int64_t blk, std::int64_t count, __m256i acc0, __m256i acc1)
          __attribute__((target("avx2"))) {
            const std::int32_t* q = params + blk * DepthwiseAvx2::kParams * kLanes + 16;  // multiplier, left, right, mask, half
            acc0 = mbqm8(acc0, loadI32(q), loadI32(q + 16), loadI32(q + 32), loadI32(q + 48), loadI32(q + 64));
            acc1 = mbqm8(acc1, loadI32(q + 8), loadI32(q + 24), loadI32(q + 40), loadI32(q + 56), loadI32(q + 72));
            acc0 = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(acc0, out_offset), lo), hi);
            acc1 = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(acc1, out_offset), lo), hi);
            const __m256i words = _mm256_packs_epi32(acc0, acc1);  // channels 0-7 | 8-15
            const __m128i bytes = _mm_packs_epi16(_mm256_castsi256_si128(words), _mm256_extracti128_si256(words, 1));
            std::int8_t* out = output + pixel * c_n + blk * kLanes;
            if (count == kLanes) {
              _mm_storeu_si128(reinterpret_cast<__m128i*>(out), bytes);
              return;
            }
            alignas(16) std::int8_t result[kLanes];
            _mm_store_si128(reinterpret_cast<__m128i*>(result), bytes);
            std::memcpy(out, result, static_cast<std::size_t>(count));
          });
}

}  // namespace
#endif  // GDS_TFL_AVX2

void DepthwiseAvx2::run(const ConvShape& s, const Requant& r, const std::int8_t* input, std::int64_t row_begin,
                        std::int64_t row_end, std::int8_t* output) const {
#ifdef GDS_TFL_AVX2
  if (pairs_ == 5)
    depthwiseRowsAvx2<5>(s, input, zero_row_.data(), pairs_, weights_.data(), params_.data(), r, row_begin, row_end,
                         output);
  else
    depthwiseRowsAvx2<0>(s, input, zero_row_.data(), pairs_, weights_.data(), params_.data(), r, row_begin, row_end,
                         output);
#else
  (void)s;
  (void)r;
  (void)input;
  (void)row_begin;
  (void)row_end;
  (void)output;
#endif
}

void FastLayer::conv(const ConvShape& s, const Requant& r, const std::int8_t* input, const std::int8_t* filter,
                     const std::int32_t* bias, std::int8_t* output, const ThreadPool* pool) {
  State& st = *state_;
  const GemmBackend backend = defaultGemmBackend();
  const std::int64_t rows = s.batch * s.out_h * s.out_w;
  if (kind_ == Kind::kConv && backend == GemmBackend::kAvx2 && Avx2Gemm::available()) {
    // The avx2 backend (no VNNI here for oneDNN; gemmlowp's portable build
    // has no AVX2 kernel) on the int8 values as they are, with TFLite's
    // [out_c][k] filter packed directly, im2col by block of rows.
    const std::int64_t k = s.k_h * s.k_w * s.in_c;
    if (st.gemm_source != filter || st.gemm.n() != s.out_c || st.gemm.k() != k || st.gemm_weight_offset != 0) {
      st.gemm.packWeights(filter, s.out_c, k, 0);
      st.gemm_source = filter;
      st.gemm_weight_offset = 0;
    }
    last_ = "avx2";
    const bool pointwise = s.k_h == 1 && s.k_w == 1 && s.stride_h == 1 && s.stride_w == 1 && s.pad_top == 0 &&
                           s.pad_left == 0 && s.out_h == s.in_h && s.out_w == s.in_w;
    gemmBlocks(st.gemm, st.requantizerFor(r, s.out_c), pointwise ? nullptr : &s, input, rows, s.in_c, r.input_offset,
               bias, output, pool);
    return;
  }
  if (kind_ == Kind::kDepthwise && backend != GemmBackend::kDnnl && st.depthwise.prepare(s, r, filter)) {
    // Without oneDNN's VNNI kernels: the fused AVX2 depthwise pass on the
    // int8 input as it is.
    last_ = "avx2";
    st.depthwise.setBias(bias);
    auto band = [&](std::int64_t begin, std::int64_t end) { st.depthwise.run(s, r, input, begin, end, output); };
    const double cost = static_cast<double>(s.out_w * s.out_c * s.k_h * s.k_w) / 8;
    if (pool) pool->parallelFor(s.batch * s.out_h, cost, band);
    else band(0, s.batch * s.out_h);
    return;
  }
  shiftInput(input, s.batch * s.in_h * s.in_w * s.in_c, &st.input);
  const std::int32_t input_zero = 128 - r.input_offset;
  ops::Conv2DShape c;
  c.batch = s.batch;
  c.in_h = s.in_h;
  c.in_w = s.in_w;
  c.in_c = s.in_c;
  c.filter_h = s.k_h;
  c.filter_w = s.k_w;
  c.out_c = kind_ == Kind::kDepthwise ? s.depth_multiplier : s.out_c;
  c.stride_h = s.stride_h;
  c.stride_w = s.stride_w;
  c.dilation_h = s.dil_h;
  c.dilation_w = s.dil_w;
  c.pad_top = s.pad_top;
  c.pad_left = s.pad_left;
  c.out_h = s.out_h;
  c.out_w = s.out_w;
  st.acc.resize(static_cast<std::size_t>(rows * s.out_c));
  std::int32_t* acc = st.acc.data();
  const GemmEpilogue epilogue = requantizer(st.requantizerFor(r, s.out_c), acc, bias, output);
  const int threads = pool ? pool->numThreads() : 1;
  if (kind_ == Kind::kDepthwise) {
    // TFLite's depthwise filter [1, kh, kw, in_c * multiplier] is the
    // engine's [kh, kw, in_c, multiplier].
    if (backend == GemmBackend::kDnnl) {
      const DnnlConv2D* dnnl =
          st.conv.dnnlFor({s.batch, s.in_h, s.in_w, s.in_c, threads, reinterpret_cast<std::int64_t>(filter)},
                          [&] { return DnnlConv2D::create(c, filter, 0, true, threads); });
      if (dnnl) {
        last_ = "dnnl";
        dnnl->run(st.input.data(), input_zero, acc, pool, epilogue);
        return;
      }
    }
    last_ = "loop";
    const std::uint8_t* x = st.input.data();
    auto band = [&](std::int64_t begin, std::int64_t end) {
      if (!depthwiseRowsFast(c, x, input_zero, filter, begin, end, acc))
        depthwiseRowsReference(c, x, input_zero, filter, begin, end, acc);
      epilogue(begin * s.out_w, end * s.out_w);
    };
    const double cost = static_cast<double>(s.out_w * s.out_c * s.k_h * s.k_w);
    if (pool) pool->parallelFor(s.batch * s.out_h, cost, band);
    else band(0, s.batch * s.out_h);
    return;
  }
  // TFLite's conv filter [out_c, kh, kw, in_c] is the transposed (n x k)
  // GEMM operand.
  const std::int64_t k = s.k_h * s.k_w * s.in_c;
  if (!st.rhs || st.weights_source != filter || st.rhs->n() != s.out_c || st.rhs->k() != k) {
    shiftInput(filter, k * s.out_c, &st.weights);
    st.rhs = std::make_unique<GemmRhs>(st.weights.data(), k, s.out_c, k, true, 128);
    st.weights_source = filter;
  }
  st.conv.weights_constant = true;
  last_ = gemmBackendName(backend);
  conv2D(backend, c, st.input.data(), input_zero, *st.rhs, acc, pool, &st.conv, epilogue);
}

void FastLayer::fullyConnected(const Requant& r, const std::int8_t* input, const std::int8_t* weights,
                               const std::int32_t* bias, std::int64_t batch, std::int64_t depth, std::int64_t units,
                               std::int8_t* output, const ThreadPool* pool) {
  State& st = *state_;
  if (defaultGemmBackend() == GemmBackend::kAvx2 && Avx2Gemm::available()) {
    if (st.gemm_source != weights || st.gemm.n() != units || st.gemm.k() != depth ||
        st.gemm_weight_offset != r.filter_offset) {
      st.gemm.packWeights(weights, units, depth, r.filter_offset);
      st.gemm_source = weights;
      st.gemm_weight_offset = r.filter_offset;
    }
    last_ = "avx2";
    gemmBlocks(st.gemm, st.requantizerFor(r, units), nullptr, input, batch, depth, r.input_offset, bias, output, pool);
    return;
  }
  shiftInput(input, batch * depth, &st.input);
  const std::int32_t weight_zero = 128 - r.filter_offset;
  if (!st.rhs || st.weights_source != weights || st.rhs->n() != units || st.rhs->k() != depth ||
      st.rhs->zeroPoint() != weight_zero) {
    shiftInput(weights, depth * units, &st.weights);
    st.rhs = std::make_unique<GemmRhs>(st.weights.data(), depth, units, depth, true, weight_zero);
    st.weights_source = weights;
  }
  st.acc.resize(static_cast<std::size_t>(batch * units));
  GemmLhs lhs;
  lhs.data = st.input.data();
  lhs.m = batch;
  lhs.k = depth;
  lhs.lda = depth;
  lhs.zero_point = 128 - r.input_offset;
  const GemmBackend backend = defaultGemmBackend();
  last_ = gemmBackendName(backend);
  gemm(backend, lhs, *st.rhs, st.acc.data(), units, pool,
       requantizer(st.requantizerFor(r, units), st.acc.data(), bias, output));
}

}  // namespace gds::engine::quantized::tfl
