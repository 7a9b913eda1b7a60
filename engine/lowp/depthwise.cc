#include "engine/lowp/depthwise.h"

#include <algorithm>
#include <cstring>

#include "engine/lowp/cpu.h"
#include "engine/lowp/depthwise_avx2.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GDS_DW_AVX2 1
#include <immintrin.h>
#endif

// GCC 12 warns falsely inside its AVX-512 headers.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace gds::engine::lowp {

namespace {

// The window taps [lo, hi) of one output coordinate that fall inside the input.
inline void validTaps(std::int64_t out, std::int64_t stride, std::int64_t pad, std::int64_t dilation,
                      std::int64_t filter, std::int64_t in, std::int64_t* lo, std::int64_t* hi) {
  const std::int64_t start = out * stride - pad;  // input coordinate of tap 0
  *lo = start >= 0 ? 0 : (-start + dilation - 1) / dilation;
  *hi = start >= in ? 0 : std::min(filter, (in - 1 - start) / dilation + 1);
  if (*hi < *lo) *hi = *lo;
}

void depthwiseRowsPlain(const ops::ConvGeometry& s, const std::uint8_t* input, std::int32_t input_zero,
                        const std::int8_t* filter, std::int64_t row_begin, std::int64_t row_end, std::int32_t* out) {
  const std::int64_t c_n = s.in_c;
  for (std::int64_t row = row_begin; row < row_end; ++row) {
    const std::int64_t n = row / s.out_h, oy = row % s.out_h;
    std::int64_t fy0, fy1;
    validTaps(oy, s.stride_h, s.pad_top, s.dilation_h, s.filter_h, s.in_h, &fy0, &fy1);
    for (std::int64_t ox = 0; ox < s.out_w; ++ox) {
      std::int64_t fx0, fx1;
      validTaps(ox, s.stride_w, s.pad_left, s.dilation_w, s.filter_w, s.in_w, &fx0, &fx1);
      std::int32_t* o = out + (row * s.out_w + ox) * c_n;
      std::fill(o, o + c_n, 0);
      for (std::int64_t fy = fy0; fy < fy1; ++fy) {
        const std::int64_t iy = oy * s.stride_h - s.pad_top + fy * s.dilation_h;
        for (std::int64_t fx = fx0; fx < fx1; ++fx) {
          const std::int64_t ix = ox * s.stride_w - s.pad_left + fx * s.dilation_w;
          const std::uint8_t* x = input + ((n * s.in_h + iy) * s.in_w + ix) * c_n;
          const std::int8_t* w = filter + (fy * s.filter_w + fx) * c_n;
          for (std::int64_t c = 0; c < c_n; ++c)
            o[c] += (static_cast<std::int32_t>(x[c]) - input_zero) * static_cast<std::int32_t>(w[c]);
        }
      }
    }
  }
}
#ifdef GDS_DW_AVX2
bool haveAvx2() { return cpuHasAvx2(); }
bool haveAvx512() { return cpuHasAvx512(); }

// Sixteen (or eight) channels of one tap: (x - zero) * w as int16 products
// widened into int32 accumulators.
__attribute__((target("avx2"))) inline void tap16(const std::uint8_t* x, const std::int8_t* w, __m256i zero16,
                                                  __m256i* acc0, __m256i* acc1) {
  const __m256i xv = _mm256_sub_epi16(
      _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x))), zero16);
  const __m256i wv = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w)));
  const __m256i prod = _mm256_mullo_epi16(xv, wv);
  *acc0 = _mm256_add_epi32(*acc0, _mm256_cvtepi16_epi32(_mm256_castsi256_si128(prod)));
  *acc1 = _mm256_add_epi32(*acc1, _mm256_cvtepi16_epi32(_mm256_extracti128_si256(prod, 1)));
}

__attribute__((target("avx2"))) inline void tap8(const std::uint8_t* x, const std::int8_t* w, __m128i zero16,
                                                 __m256i* acc) {
  const __m128i xv = _mm_sub_epi16(_mm_cvtepu8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(x))), zero16);
  const __m128i wv = _mm_cvtepi8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(w)));
  *acc = _mm256_add_epi32(*acc, _mm256_cvtepi16_epi32(_mm_mullo_epi16(xv, wv)));
}

// One output pixel of the depthwise loop: its window's valid taps, its
// first input cell and its accumulators.
struct DepthwisePixel {
  const std::uint8_t* image;  // this batch element's input
  std::int64_t fy0, fy1, fx0, fx1, iy0, ix0;
  std::int32_t* out;
};

template <typename Visit>
inline void forEachDepthwisePixel(const ops::ConvGeometry& s, const std::uint8_t* input, std::int64_t row_begin,
                                  std::int64_t row_end, std::int32_t* out, Visit visit) {
  for (std::int64_t row = row_begin; row < row_end; ++row) {
    const std::int64_t n = row / s.out_h, oy = row % s.out_h;
    DepthwisePixel px;
    validTaps(oy, s.stride_h, s.pad_top, s.dilation_h, s.filter_h, s.in_h, &px.fy0, &px.fy1);
    px.image = input + n * s.in_h * s.in_w * s.in_c;
    px.iy0 = oy * s.stride_h - s.pad_top;
    for (std::int64_t ox = 0; ox < s.out_w; ++ox) {
      validTaps(ox, s.stride_w, s.pad_left, s.dilation_w, s.filter_w, s.in_w, &px.fx0, &px.fx1);
      px.ix0 = ox * s.stride_w - s.pad_left;
      px.out = out + (row * s.out_w + ox) * s.in_c;
      visit(px);
    }
  }
}

// Output-stationary: each output pixel's accumulators stay in registers over
// its window; channels [c, in_c) sixteen, then eight at a time, then singly.
__attribute__((target("avx2"))) inline void depthwiseChannelsAvx2(const ops::ConvGeometry& s, const DepthwisePixel& px,
                                                                  const std::int8_t* filter, std::int32_t input_zero,
                                                                  std::int64_t c) {
  const std::int64_t c_n = s.in_c;
  const __m256i zero16 = _mm256_set1_epi16(static_cast<std::int16_t>(input_zero));
  const __m128i zero16_128 = _mm_set1_epi16(static_cast<std::int16_t>(input_zero));
  for (; c + 16 <= c_n; c += 16) {
    __m256i acc0 = _mm256_setzero_si256(), acc1 = _mm256_setzero_si256();
    for (std::int64_t fy = px.fy0; fy < px.fy1; ++fy) {
      const std::uint8_t* x_row = px.image + (px.iy0 + fy * s.dilation_h) * s.in_w * c_n + c;
      const std::int8_t* w_row = filter + fy * s.filter_w * c_n + c;
      for (std::int64_t fx = px.fx0; fx < px.fx1; ++fx)
        tap16(x_row + (px.ix0 + fx * s.dilation_w) * c_n, w_row + fx * c_n, zero16, &acc0, &acc1);
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(px.out + c), acc0);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(px.out + c + 8), acc1);
  }
  for (; c + 8 <= c_n; c += 8) {
    __m256i acc = _mm256_setzero_si256();
    for (std::int64_t fy = px.fy0; fy < px.fy1; ++fy) {
      const std::uint8_t* x_row = px.image + (px.iy0 + fy * s.dilation_h) * s.in_w * c_n + c;
      const std::int8_t* w_row = filter + fy * s.filter_w * c_n + c;
      for (std::int64_t fx = px.fx0; fx < px.fx1; ++fx)
        tap8(x_row + (px.ix0 + fx * s.dilation_w) * c_n, w_row + fx * c_n, zero16_128, &acc);
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(px.out + c), acc);
  }
  for (; c < c_n; ++c) {
    std::int32_t total = 0;
    for (std::int64_t fy = px.fy0; fy < px.fy1; ++fy)
      for (std::int64_t fx = px.fx0; fx < px.fx1; ++fx) {
        const std::int64_t iy = px.iy0 + fy * s.dilation_h, ix = px.ix0 + fx * s.dilation_w;
        total += (static_cast<std::int32_t>(px.image[(iy * s.in_w + ix) * c_n + c]) - input_zero) *
                 static_cast<std::int32_t>(filter[(fy * s.filter_w + fx) * c_n + c]);
      }
    px.out[c] = total;
  }
}

__attribute__((target("avx2"))) void depthwiseRowsAvx2(const ops::ConvGeometry& s, const std::uint8_t* input,
                                                       std::int32_t input_zero, const std::int8_t* filter,
                                                       std::int64_t row_begin, std::int64_t row_end,
                                                       std::int32_t* out) {
  forEachDepthwisePixel(s, input, row_begin, row_end, out, [&](const DepthwisePixel& px)
                                                               __attribute__((target("avx2"))) {
    depthwiseChannelsAvx2(s, px, filter, input_zero, 0);
  });
}

// Thirty-two channels at a time, the same int16 products and int32 sums;
// the remaining channels as above.
__attribute__((target("avx512f,avx512bw"))) void depthwiseRowsAvx512(const ops::ConvGeometry& s,
                                                                     const std::uint8_t* input,
                                                                     std::int32_t input_zero,
                                                                     const std::int8_t* filter,
                                                                     std::int64_t row_begin, std::int64_t row_end,
                                                                     std::int32_t* out) {
  const std::int64_t c_n = s.in_c;
  const __m512i zero16 = _mm512_set1_epi16(static_cast<std::int16_t>(input_zero));
  forEachDepthwisePixel(s, input, row_begin, row_end, out, [&](const DepthwisePixel& px)
                                                               __attribute__((target("avx512f,avx512bw"))) {
    std::int64_t c = 0;
    for (; c + 32 <= c_n; c += 32) {
      __m512i acc0 = _mm512_setzero_si512(), acc1 = _mm512_setzero_si512();
      for (std::int64_t fy = px.fy0; fy < px.fy1; ++fy) {
        const std::uint8_t* x_row = px.image + (px.iy0 + fy * s.dilation_h) * s.in_w * c_n + c;
        const std::int8_t* w_row = filter + fy * s.filter_w * c_n + c;
        for (std::int64_t fx = px.fx0; fx < px.fx1; ++fx) {
          const __m512i xv = _mm512_sub_epi16(
              _mm512_cvtepu8_epi16(_mm256_loadu_si256(
                  reinterpret_cast<const __m256i*>(x_row + (px.ix0 + fx * s.dilation_w) * c_n))),
              zero16);
          const __m512i wv =
              _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w_row + fx * c_n)));
          const __m512i prod = _mm512_mullo_epi16(xv, wv);
          acc0 = _mm512_add_epi32(acc0, _mm512_cvtepi16_epi32(_mm512_castsi512_si256(prod)));
          acc1 = _mm512_add_epi32(acc1, _mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64(prod, 1)));
        }
      }
      _mm512_storeu_si512(px.out + c, acc0);
      _mm512_storeu_si512(px.out + c + 16, acc1);
    }
    depthwiseChannelsAvx2(s, px, filter, input_zero, c);
  });
}

__attribute__((target("avx2"))) void depthwisePackedAvx2(const ops::ConvGeometry& s, const std::uint8_t* input,
                                                         const std::uint8_t* zero_row, std::int64_t pairs,
                                                         const std::int16_t* weights, const std::int32_t* start,
                                                         std::int64_t row_begin, std::int64_t row_end,
                                                         std::int32_t* out) {
  constexpr std::int64_t kLanes = depthwise_avx2::kLanes;
  const std::int64_t c_n = s.in_c;
  depthwise_avx2::forEachBlock<std::uint8_t>(
      s, input, zero_row, pairs, weights, start, kLanes, row_begin, row_end,
      [&](std::int64_t pixel, std::int64_t blk, std::int64_t count, __m256i acc0, __m256i acc1)
          __attribute__((target("avx2"))) {
            // Back to channel order: {0-3, 8-11} and {4-7, 12-15} -> 0-7, 8-15.
            struct {
              __m256i lo, hi;
            } channels = {_mm256_permute2x128_si256(acc0, acc1, 0x20), _mm256_permute2x128_si256(acc0, acc1, 0x31)};
            depthwise_avx2::storeFirst(out + pixel * c_n + blk * kLanes, channels,
                                       static_cast<std::size_t>(count) * sizeof(std::int32_t));
          });
}
#endif  // GDS_DW_AVX2

}  // namespace

bool depthwiseRowsFast(const ops::ConvGeometry& s, const std::uint8_t* input, std::int32_t input_zero,
                       const std::int8_t* filter, std::int64_t row_begin, std::int64_t row_end, std::int32_t* out) {
  if (s.out_c != 1 || input_zero < 0 || input_zero > 255) return false;
#ifdef GDS_DW_AVX2
  if (s.in_c >= 32 && haveAvx512()) {
    depthwiseRowsAvx512(s, input, input_zero, filter, row_begin, row_end, out);
    return true;
  }
  if (haveAvx2()) {
    depthwiseRowsAvx2(s, input, input_zero, filter, row_begin, row_end, out);
    return true;
  }
#endif
  depthwiseRowsPlain(s, input, input_zero, filter, row_begin, row_end, out);
  return true;
}

bool DepthwiseRowsAvx2::prepare(const ops::ConvGeometry& s, std::int32_t input_zero, const std::int8_t* filter,
                                bool constant) {
#ifdef GDS_DW_AVX2
  if (s.out_c != 1 || input_zero < 0 || input_zero > 255 || !haveAvx2() || (s.in_c >= 32 && haveAvx512()) ||
      s.filter_h * s.filter_w < 1)
    return false;
  const std::int64_t taps = s.filter_h * s.filter_w;
  const std::int64_t blocks = (s.in_c + depthwise_avx2::kLanes - 1) / depthwise_avx2::kLanes;
  if (!constant || source_ != filter || channels_ != s.in_c || taps_ != taps) {
    depthwise_avx2::packFilter(filter, taps, s.in_c, &weights_, &sums_);
    source_ = constant ? filter : nullptr;
    channels_ = s.in_c;
    taps_ = taps;
    pairs_ = (taps + 1) / 2;
    zero_ = -1;
  }
  if (zero_ != input_zero) {
    start_.assign(static_cast<std::size_t>(blocks * depthwise_avx2::kLanes), 0);
    for (std::int64_t c = 0; c < s.in_c; ++c)
      start_[static_cast<std::size_t>(c / depthwise_avx2::kLanes * depthwise_avx2::kLanes +
                                      depthwise_avx2::slot(c % depthwise_avx2::kLanes))] =
          -input_zero * sums_[static_cast<std::size_t>(c)];
    zero_row_.assign(start_.size(), static_cast<std::uint8_t>(input_zero));
    zero_ = input_zero;
  }
  return true;
#else
  (void)s;
  (void)input_zero;
  (void)filter;
  (void)constant;
  return false;
#endif
}

void DepthwiseRowsAvx2::run(const ops::ConvGeometry& s, const std::uint8_t* input, std::int64_t row_begin,
                            std::int64_t row_end, std::int32_t* out) const {
#ifdef GDS_DW_AVX2
  depthwisePackedAvx2(s, input, zero_row_.data(), pairs_, weights_.data(), start_.data(), row_begin, row_end, out);
#else
  (void)s;
  (void)input;
  (void)row_begin;
  (void)row_end;
  (void)out;
#endif
}
}  // namespace gds::engine::lowp
