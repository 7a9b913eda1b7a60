// The fast path of TFLite's int8 element-wise ops, QUANTIZE, the pools and
// the requantization of the GEMM layers (Requantizer), see fast.h;
// the convolution, depthwise and fully connected layers are in
// fast_layer.cc.
#include "engine/tflite/fast.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "engine/lowp/cpu.h"
#include "engine/lowp/requantize.h"
#include "engine/tflite/multiplier.h"

namespace gds::engine::tflite {

namespace {

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

// requantizeRowAvx2 through mbqm8Narrow (every value within its bound), on
// `rows` rows; returns where each row's scalar tail starts.
template <bool kShiftLeft>
__attribute__((target("avx2"))) std::int64_t requantizeRowsNarrowAvx2(
    const std::int32_t* acc, const std::int32_t* bias, std::int64_t channels, const std::int32_t* multiplier,
    const std::int32_t* odd_multiplier, const std::int32_t* left1, const std::int32_t* round,
    const std::int32_t* negative, const std::int32_t* right, std::int32_t offset, std::int32_t lo, std::int32_t hi,
    std::int64_t rows, std::int8_t* out) {
  const __m256i voffset = _mm256_set1_epi32(offset), vlo = _mm256_set1_epi32(lo), vhi = _mm256_set1_epi32(hi);
  const __m256i zero = _mm256_setzero_si256();
  std::int64_t c = 0;
  // One pass over the rows (a call per row costs as much as a short row).
  for (std::int64_t i = 0; i < rows; ++i, acc += channels, out += channels)
    for (c = 0; c + 8 <= channels; c += 8) {
      __m256i x = loadI32(acc + c);
      x = _mm256_add_epi32(x, bias ? loadI32(bias + c) : zero);
      x = mbqm8Narrow<kShiftLeft>(x, loadI32(multiplier + c), loadI32(odd_multiplier + c), loadI32(left1 + c),
                                  loadI32(round + c), loadI32(negative + c), loadI32(right + c));
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

// quantizeReference's kDouble form: each half of the floats widened to
// double, divided by the double scale, rounded half away from zero.
__attribute__((target("avx2"))) std::int64_t quantizeDoubleAvx2(const float* in, std::int64_t n, float scale,
                                                                std::int32_t zero_point, std::int8_t* out) {
  const __m256d vscale = _mm256_set1_pd(static_cast<double>(scale)), half = _mm256_set1_pd(0.5);
  const __m256d neg_half = _mm256_set1_pd(-0.5), one = _mm256_set1_pd(1.0);
  const __m256d big = _mm256_set1_pd(1024.0), neg_big = _mm256_set1_pd(-1024.0);
  const __m256i zp = _mm256_set1_epi32(zero_point);
  const __m256i lo = _mm256_set1_epi32(-128), hi = _mm256_set1_epi32(127);
  auto round4 = [&](__m128 x) __attribute__((target("avx2"))) {
    const __m256d v = _mm256_div_pd(_mm256_cvtps_pd(x), vscale);
    const __m256d t = _mm256_round_pd(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __m256d d = _mm256_sub_pd(v, t);
    __m256d r = _mm256_add_pd(t, _mm256_and_pd(_mm256_cmp_pd(d, half, _CMP_GE_OQ), one));
    r = _mm256_sub_pd(r, _mm256_and_pd(_mm256_cmp_pd(d, neg_half, _CMP_LE_OQ), one));
    r = _mm256_andnot_pd(_mm256_cmp_pd(v, v, _CMP_UNORD_Q), _mm256_min_pd(_mm256_max_pd(r, neg_big), big));
    return _mm256_cvttpd_epi32(r);
  };
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(in + i);
    const __m256i q = _mm256_set_m128i(round4(_mm256_extractf128_ps(v, 1)), round4(_mm256_castps256_ps128(v)));
    store8(out + i, _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(q, zp), lo), hi));
  }
  return i;
}

// quantizeReference's kXnnpack form: x * inv_scale clamped in float to the
// int8 range less the zero point, rounded to nearest even.
__attribute__((target("avx2"))) std::int64_t quantizeXnnpackAvx2(const float* in, std::int64_t n, float inv_scale,
                                                                 std::int32_t zero_point, std::int8_t* out) {
  const __m256 vscale = _mm256_set1_ps(inv_scale);
  const __m256 lo = _mm256_set1_ps(static_cast<float>(-128 - zero_point));
  const __m256 hi = _mm256_set1_ps(static_cast<float>(127 - zero_point));
  const __m256i zp = _mm256_set1_epi32(zero_point);
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(_mm256_loadu_ps(in + i), vscale), lo), hi);
    store8(out + i, _mm256_add_epi32(_mm256_cvtps_epi32(v), zp));
  }
  return i;
}

#endif  // GDS_TFL_AVX2

}  // namespace

Requantizer::Requantizer(const Requant& r, std::int64_t channels, std::int64_t accumulator_bound)
    : channels_(channels),
      accumulator_bound_(accumulator_bound),
      output_offset_(r.output_offset),
      act_min_(r.act_min),
      act_max_(r.act_max),
      rounding_(r.rounding) {
  const auto n = static_cast<std::size_t>(channels);
  if (r.rounding == Rounding::kFp32) {
    if (r.scale.size() != 1 && r.scale.size() != n) {
      fallback_ = true;
      requant_ = r;
      return;
    }
    scale_.resize(n);
    for (std::size_t c = 0; c < n; ++c) scale_[c] = r.scale[r.scale.size() == 1 ? 0 : c];
    return;
  }
  if (r.rounding == Rounding::kSingle) {
    bool usable = r.shift.size() == r.multiplier.size() && (r.multiplier.size() == 1 || r.multiplier.size() == n);
    for (std::size_t k = 0; usable && k < r.shift.size(); ++k) usable = r.shift[k] >= -31 && r.shift[k] <= 30;
    if (!usable) {
      fallback_ = true;
      requant_ = r;
      return;
    }
    multiplier_.resize(n);
    single_add_.resize(n);
    single_shift_.resize(n);
    single_correction_.resize(n);
    for (std::size_t c = 0; c < n; ++c) {
      const std::size_t k = r.multiplier.size() == 1 ? 0 : c;
      const int t = 31 - r.shift[k];
      multiplier_[c] = r.multiplier[k];
      single_shift_[c] = t;
      single_add_[c] = static_cast<std::int64_t>((std::uint64_t{1} << 63) + (std::uint64_t{1} << (t - 1)));
      single_correction_[c] = static_cast<std::int32_t>(static_cast<std::uint32_t>(std::uint64_t{1} << (63 - t)));
    }
    const std::size_t groups = n / 8;
    for (auto* v : {&add_even_, &add_odd_, &shift_even_, &shift_odd_}) v->resize(groups * 4);
    for (std::size_t g = 0; g < groups; ++g)
      for (std::size_t j = 0; j < 4; ++j) {
        add_even_[g * 4 + j] = single_add_[g * 8 + 2 * j];
        add_odd_[g * 4 + j] = single_add_[g * 8 + 2 * j + 1];
        shift_even_[g * 4 + j] = single_shift_[g * 8 + 2 * j];
        shift_odd_[g * 4 + j] = single_shift_[g * 8 + 2 * j + 1];
      }
    return;
  }
  bool usable = r.shift.size() == r.multiplier.size() && (r.multiplier.size() == 1 || r.multiplier.size() == n);
  for (std::size_t k = 0; usable && k < r.multiplier.size(); ++k) usable = validMultiplier(r.multiplier[k], r.shift[k]);
  if (!usable) {
    fallback_ = true;
    requant_ = r;
    return;
  }
  for (auto* v : {&multiplier_, &left_, &right_, &mask_, &half_, &odd_multiplier_, &left1_, &round_, &negative_})
    v->resize(n);
  for (std::size_t c = 0; c < n; ++c) {
    const std::size_t k = r.multiplier.size() == 1 ? 0 : c;
    const Mbqm m = mbqmParams(r.multiplier[k], r.shift[k]);
    const MbqmNarrow narrow = mbqmNarrowParams(m);
    multiplier_[c] = m.multiplier;
    left_[c] = m.left;
    right_[c] = m.right;
    mask_[c] = m.mask;
    half_[c] = m.half;
    left1_[c] = narrow.left1;
    round_[c] = narrow.round;
    negative_[c] = narrow.negative;
    max_left_ = std::max(max_left_, m.left);
  }
  for (std::size_t c = 0; c + 1 < n; c += 2) odd_multiplier_[c] = multiplier_[c + 1];
}

bool Requantizer::narrow(const std::int32_t* bias) const {
  if (fallback_ || rounding_ != Rounding::kDouble || accumulator_bound_ <= 0 || !lowp::cpuHasAvx2()) return false;
  std::int64_t largest = accumulator_bound_;
  if (bias) {
    std::int64_t b = 0;
    for (std::int64_t c = 0; c < channels_; ++c) b = std::max(b, std::abs(static_cast<std::int64_t>(bias[c])));
    largest += b;
  }
  return largest < (kNarrowLimit >> max_left_);
}

namespace {

#ifdef GDS_TFL_AVX2
// Rounding::kSingle on eight channels (see Requantizer's members).
__attribute__((target("avx2"))) std::int64_t requantizeRowSingleAvx2(
    const std::int32_t* acc, const std::int32_t* bias, std::int64_t channels, const std::int32_t* multiplier,
    const std::int64_t* add_even, const std::int64_t* add_odd, const std::int64_t* shift_even,
    const std::int64_t* shift_odd, const std::int32_t* correction, std::int32_t offset, std::int32_t lo,
    std::int32_t hi, std::int8_t* out) {
  const __m256i voffset = _mm256_set1_epi32(offset), vlo = _mm256_set1_epi32(lo), vhi = _mm256_set1_epi32(hi);
  std::int64_t c = 0;
  for (; c + 8 <= channels; c += 8) {
    __m256i x = loadI32(acc + c);
    if (bias) x = _mm256_add_epi32(x, loadI32(bias + c));
    const __m256i m = loadI32(multiplier + c);
    // Even channels c, c+2, ... in the 64-bit lanes; odd ones shifted down.
    const std::int64_t g = c / 2;
    const __m256i even =
        _mm256_srlv_epi64(_mm256_add_epi64(_mm256_mul_epi32(x, m), loadI64(add_even + g)), loadI64(shift_even + g));
    const __m256i odd = _mm256_srlv_epi64(
        _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), _mm256_srli_epi64(m, 32)), loadI64(add_odd + g)),
        loadI64(shift_odd + g));
    __m256i r = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
    r = _mm256_sub_epi32(r, loadI32(correction + c));
    r = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(r, voffset), vlo), vhi);
    store8(out + c, r);
  }
  return c;
}

// Rounding::kFp32 on eight channels: XNNPACK's fp32 requantization.
__attribute__((target("avx2"))) std::int64_t requantizeRowFp32Avx2(const std::int32_t* acc, const std::int32_t* bias,
                                                                   std::int64_t channels, const float* scale,
                                                                   std::int32_t offset, std::int32_t lo, std::int32_t hi,
                                                                   std::int8_t* out) {
  const __m256i voffset = _mm256_set1_epi32(offset);
  const __m256 vlo = _mm256_set1_ps(static_cast<float>(lo - offset));
  const __m256 vhi = _mm256_set1_ps(static_cast<float>(hi - offset));
  std::int64_t c = 0;
  for (; c + 8 <= channels; c += 8) {
    __m256i x = loadI32(acc + c);
    if (bias) x = _mm256_add_epi32(x, loadI32(bias + c));
    __m256 f = _mm256_mul_ps(_mm256_cvtepi32_ps(x), _mm256_loadu_ps(scale + c));
    f = _mm256_min_ps(_mm256_max_ps(f, vlo), vhi);
    store8(out + c, _mm256_add_epi32(_mm256_cvtps_epi32(f), voffset));
  }
  return c;
}
#endif

// The row loop both single-rounding and fp32 requantizers share: per row,
// the AVX2 kernel takes what it can (avx2(a, o) returns the channels done),
// the scalar step scalar(biased accumulator, channel) the rest.
template <typename Avx2Row, typename Scalar>
void requantizeEachRow(const std::int32_t* acc, const std::int32_t* bias, std::int64_t rows, std::int64_t channels,
                       std::int8_t* output, [[maybe_unused]] Avx2Row avx2, Scalar scalar) {
  for (std::int64_t i = 0; i < rows; ++i) {
    const std::int32_t* a = acc + i * channels;
    std::int8_t* o = output + i * channels;
    std::int64_t c = 0;
#ifdef GDS_TFL_AVX2
    if (lowp::cpuHasAvx2()) c = avx2(a, o);
#endif
    for (; c < channels; ++c) {
      // Wrapping add, as the kernels' int32 arithmetic does.
      const std::int32_t x = bias ? static_cast<std::int32_t>(static_cast<std::uint32_t>(a[c]) +
                                                              static_cast<std::uint32_t>(bias[c]))
                                  : a[c];
      o[c] = scalar(x, static_cast<std::size_t>(c));
    }
  }
}

}  // namespace

void Requantizer::runSingle(const std::int32_t* acc, const std::int32_t* bias, std::int64_t rows,
                            std::int8_t* output) const {
  requantizeEachRow(
      acc, bias, rows, channels_, output,
      [&](const std::int32_t* a, std::int8_t* o) -> std::int64_t {
#ifdef GDS_TFL_AVX2
        return requantizeRowSingleAvx2(a, bias, channels_, multiplier_.data(), add_even_.data(), add_odd_.data(),
                                       shift_even_.data(), shift_odd_.data(), single_correction_.data(),
                                       output_offset_, act_min_, act_max_, o);
#else
        (void)a, (void)o;
        return 0;
#endif
      },
      [&](std::int32_t x, std::size_t k) {
        const lowp::FixedMultiplier m{multiplier_[k], 31 - static_cast<int>(single_shift_[k])};
        return clampToInt8(lowp::multiplySingleRounding(x, m) + output_offset_, act_min_, act_max_);
      });
}

void Requantizer::runFp32(const std::int32_t* acc, const std::int32_t* bias, std::int64_t rows,
                          std::int8_t* output) const {
  requantizeEachRow(
      acc, bias, rows, channels_, output,
      [&](const std::int32_t* a, std::int8_t* o) -> std::int64_t {
#ifdef GDS_TFL_AVX2
        return requantizeRowFp32Avx2(a, bias, channels_, scale_.data(), output_offset_, act_min_, act_max_, o);
#else
        (void)a, (void)o;
        return 0;
#endif
      },
      [&](std::int32_t x, std::size_t k) {
        return lowp::xnnRequantizeFp32(x, scale_[k], output_offset_, act_min_, act_max_);
      });
}

void Requantizer::run(const std::int32_t* acc, const std::int32_t* bias, std::int64_t rows,
                      std::int8_t* output) const {
  if (fallback_) {
    requantizeRows(requant_, acc, bias, rows, channels_, output);
    return;
  }
  if (rounding_ == Rounding::kSingle) {
    runSingle(acc, bias, rows, output);
    return;
  }
  if (rounding_ == Rounding::kFp32) {
    runFp32(acc, bias, rows, output);
    return;
  }
  const std::int64_t channels = channels_;
  std::int64_t tail = 0;  // each row's channels [tail, channels) by the scalar loop
#ifdef GDS_TFL_AVX2
  const bool avx2 = lowp::cpuHasAvx2();
  if (avx2 && narrow(bias))
    tail = (max_left_ > 0 ? requantizeRowsNarrowAvx2<true> : requantizeRowsNarrowAvx2<false>)(
        acc, bias, channels, multiplier_.data(), odd_multiplier_.data(), left1_.data(), round_.data(),
        negative_.data(), right_.data(), output_offset_, act_min_, act_max_, rows, output);
  else if (avx2)
    for (std::int64_t i = 0; i < rows; ++i)
      tail = requantizeRowAvx2(acc + i * channels, bias, channels, multiplier_.data(), left_.data(), right_.data(),
                               mask_.data(), half_.data(), output_offset_, act_min_, act_max_, output + i * channels);
#endif
  for (std::int64_t i = 0; i < rows; ++i) {
    const std::int32_t* a = acc + i * channels;
    std::int8_t* o = output + i * channels;
    for (std::int64_t c = tail; c < channels; ++c) {
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
  if (lowp::cpuHasAvx2()) i = binaryAvx2(op, p, m1, m2, mo, a, a_scalar, b, b_scalar, n, output);
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
  if (lowp::cpuHasAvx2()) i = rescaleAvx2(r, m, input, n, output);
#endif
  for (; i < n; ++i)
    output[i] = clampToInt8(r.output_zp + mbqm(static_cast<std::int32_t>(input[i]) - r.input_zp, m), r.act_min,
                            r.act_max);
}

void quantizeFast(const float* input, std::int64_t n, float scale, std::int32_t zero_point, std::int8_t* output,
                  QuantizeForm form) {
  std::int64_t i = 0;
#ifdef GDS_TFL_AVX2
  if (lowp::cpuHasAvx2() && zero_point >= -128 && zero_point <= 127) {
    if (form == QuantizeForm::kFloat) i = quantizeAvx2(input, n, scale, zero_point, output);
    else if (form == QuantizeForm::kDouble) i = quantizeDoubleAvx2(input, n, scale, zero_point, output);
    else i = quantizeXnnpackAvx2(input, n, 1.0f / scale, zero_point, output);
  }
#endif
  if (i < n) quantizeReference(input + i, n - i, scale, zero_point, output + i, form);
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
void poolRows(const ops::ConvGeometry& s, const Reduction& reduction, const std::int8_t* input, std::int64_t row_begin,
              std::int64_t row_end, std::int8_t* output) {
  using Acc = typename Reduction::Acc;
  const std::int64_t channels = s.in_c;
  std::vector<Acc> accumulators(static_cast<std::size_t>(channels));
  Acc* acc = accumulators.data();
  for (std::int64_t row = row_begin; row < row_end; ++row) {
    const std::int64_t b = row / s.out_h, oy = row % s.out_h;
    std::int64_t fy0, fy1;
    poolTaps(oy, s.stride_h, s.pad_top, s.filter_h, s.in_h, &fy0, &fy1);
    for (std::int64_t ox = 0; ox < s.out_w; ++ox) {
      std::int64_t fx0, fx1;
      poolTaps(ox, s.stride_w, s.pad_left, s.filter_w, s.in_w, &fx0, &fx1);
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

void maxPoolRows(const ops::ConvGeometry& s, std::int32_t act_min, std::int32_t act_max, const std::int8_t* input,
                 std::int64_t row_begin, std::int64_t row_end, std::int8_t* output) {
  const MaxReduction reduction{static_cast<std::int8_t>(std::max<std::int32_t>(act_min, -128)),
                               static_cast<std::int8_t>(std::min<std::int32_t>(act_max, 127))};
  poolRows(s, reduction, input, row_begin, row_end, output);
}

void averagePoolRows(const ops::ConvGeometry& s, std::int32_t act_min, std::int32_t act_max, const std::int8_t* input,
                     std::int64_t row_begin, std::int64_t row_end, std::int8_t* output) {
  poolRows(s, AverageReduction{act_min, act_max}, input, row_begin, row_end, output);
}

}  // namespace gds::engine::tflite
