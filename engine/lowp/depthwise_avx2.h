// The AVX2 core of the 8-bit depthwise layers with channel multiplier 1,
// shared by TFLite's int8 layers (tflite/fast_layer.cc: int8 input,
// requantized in the same pass) and the GraphDef layers (depthwise.cc:
// uint8 input, int32 accumulators). Include only from translation units that
// dispatch on cpuHasAvx2() themselves.
//
// Sixteen channels per step: the 8-bit values of two window taps are widened
// to int16 and interleaved so that one vpmaddwd multiplies and adds both
// taps into int32 (|x * w| <= 255 * 128, a pair sum fits easily).
// vpunpck*wd interleaves within 128-bit lanes, so the two accumulators hold
// channels {0-3, 8-11} and {4-7, 12-15} (slot(c) maps a channel to its
// place); weights and per-channel constants are stored in that order.
//
// The input zero point leaves the inner loop: sum (x - zero) * w over the
// valid taps is sum x * w - zero * sum w when every tap outside the input
// reads the zero point, so those taps read a row filled with it and
// -zero * sum w (plus a bias) starts the accumulators. The sums are exact,
// so the accumulators equal the reference loops'.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "engine/ops/conv_geometry.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GDS_DEPTHWISE_AVX2 1
#include <immintrin.h>
#endif

namespace gds::engine::lowp::depthwise_avx2 {

constexpr std::int64_t kLanes = 16;

// The accumulator slot of channel c (0-15) of a block: 0-7 the first
// accumulator's, 8-15 the second's.
inline std::int64_t slot(std::int64_t c) { return (c & 3) + ((c & 4) ? 8 : 0) + ((c & 8) ? 4 : 0); }

// filter [taps][channels] as [block][tap pair][slot][2] int16 (zeros for
// missing channels and the odd tap), and each channel's sum of weights.
inline void packFilter(const std::int8_t* filter, std::int64_t taps, std::int64_t channels,
                       std::vector<std::int16_t>* packed, std::vector<std::int32_t>* sums) {
  const std::int64_t blocks = (channels + kLanes - 1) / kLanes, pairs = (taps + 1) / 2;
  packed->assign(static_cast<std::size_t>(blocks * pairs * 2 * kLanes), 0);
  sums->assign(static_cast<std::size_t>(channels), 0);
  for (std::int64_t c = 0; c < channels; ++c)
    for (std::int64_t t = 0; t < taps; ++t) {
      const std::int8_t w = filter[t * channels + c];
      (*sums)[static_cast<std::size_t>(c)] += w;
      (*packed)[static_cast<std::size_t>((((c / kLanes) * pairs + t / 2) * kLanes + slot(c % kLanes)) * 2 + t % 2)] =
          w;
    }
}

#ifdef GDS_DEPTHWISE_AVX2

// Sixteen channels of one output pixel: `pairs` pairs of tap pointers (16
// readable bytes each from `offset`), weights [pairs][16][2], the starting
// accumulators start[16] in slot order. kPairs > 0 fixes the count so the
// 3 x 3 window's loop unrolls.
template <typename T, int kPairs>
__attribute__((target("avx2"))) inline void accumulate16(const T* const* taps, std::int64_t offset, std::int64_t pairs,
                                                         const std::int16_t* w, const std::int32_t* start,
                                                         __m256i* acc0_out, __m256i* acc1_out) {
  __m256i acc0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(start));
  __m256i acc1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(start + 8));
  const std::int64_t n = kPairs > 0 ? kPairs : pairs;
  for (std::int64_t p = 0; p < n; ++p, w += 32) {
    const __m128i b0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(taps[2 * p] + offset));
    const __m128i b1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(taps[2 * p + 1] + offset));
    __m256i x0, x1;
    if constexpr (std::is_signed_v<T>) {
      x0 = _mm256_cvtepi8_epi16(b0);
      x1 = _mm256_cvtepi8_epi16(b1);
    } else {
      x0 = _mm256_cvtepu8_epi16(b0);
      x1 = _mm256_cvtepu8_epi16(b1);
    }
    acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(_mm256_unpacklo_epi16(x0, x1),
                                                    _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w))));
    acc1 = _mm256_add_epi32(acc1, _mm256_madd_epi16(_mm256_unpackhi_epi16(x0, x1),
                                                    _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 16))));
  }
  *acc0_out = acc0;
  *acc1_out = acc1;
}

// The loop of forEachBlock below, kPairs > 0 fixing the pair count.
template <typename T, int kPairs, typename Finish>
__attribute__((target("avx2"))) void forEachBlockOf(const ops::ConvGeometry& s, const T* input, const T* zero_row,
                                                  std::int64_t pairs, const std::int16_t* weights,
                                                  const std::int32_t* start, std::int64_t start_stride,
                                                  std::int64_t row_begin, std::int64_t row_end, Finish&& finish) {
  const std::int64_t c_n = s.in_c, full = c_n / kLanes, tail = c_n % kLanes, taps = s.filter_h * s.filter_w;
  thread_local std::vector<const T*> ptrs, tail_ptrs;
  thread_local std::vector<T> tail_in;
  ptrs.resize(static_cast<std::size_t>(pairs * 2));
  tail_ptrs.resize(static_cast<std::size_t>(pairs * 2));
  tail_in.resize(static_cast<std::size_t>(pairs * 2 * kLanes));
  const T** tap = ptrs.data();
  // Where a window lies inside the input, a tap is the window's corner plus
  // a fixed offset, with no bounds to check.
  const std::int64_t span_w = (s.filter_w - 1) * s.dilation_w, span_h = (s.filter_h - 1) * s.dilation_h;
  thread_local std::vector<std::int64_t> offsets;
  offsets.resize(static_cast<std::size_t>(taps));
  for (std::int64_t fy = 0, t = 0; fy < s.filter_h; ++fy)
    for (std::int64_t fx = 0; fx < s.filter_w; ++fx, ++t)
      offsets[static_cast<std::size_t>(t)] = (fy * s.dilation_h * s.in_w + fx * s.dilation_w) * c_n;
  for (std::int64_t row = row_begin; row < row_end; ++row) {
    const std::int64_t b = row / s.out_h, oy = row % s.out_h;
    const T* image = input + b * s.in_h * s.in_w * c_n;
    const std::int64_t iy0 = oy * s.stride_h - s.pad_top;
    const bool rows_inside = iy0 >= 0 && iy0 + span_h < s.in_h;
    for (std::int64_t ox = 0; ox < s.out_w; ++ox) {
      const std::int64_t ix0 = ox * s.stride_w - s.pad_left;
      if (rows_inside && ix0 >= 0 && ix0 + span_w < s.in_w) {
        const T* corner = image + (iy0 * s.in_w + ix0) * c_n;
        for (std::int64_t t = 0; t < taps; ++t) tap[t] = corner + offsets[static_cast<std::size_t>(t)];
      } else {
        for (std::int64_t fy = 0, t = 0; fy < s.filter_h; ++fy) {
          const std::int64_t iy = iy0 + fy * s.dilation_h;
          for (std::int64_t fx = 0; fx < s.filter_w; ++fx, ++t) {
            const std::int64_t ix = ix0 + fx * s.dilation_w;
            tap[t] = iy < 0 || iy >= s.in_h || ix < 0 || ix >= s.in_w ? zero_row : image + (iy * s.in_w + ix) * c_n;
          }
        }
      }
      if (taps % 2) tap[taps] = zero_row;  // its weights are zero
      const std::int64_t pixel = row * s.out_w + ox;
      __m256i acc0, acc1;
      for (std::int64_t blk = 0; blk < full; ++blk) {
        accumulate16<T, kPairs>(tap, blk * kLanes, pairs, weights + blk * pairs * 2 * kLanes, start + blk * start_stride,
                                &acc0, &acc1);
        finish(pixel, blk, kLanes, acc0, acc1);
      }
      if (tail) {
        // The last channels through a copy: a 16-byte load could pass the
        // end of the input.
        for (std::int64_t t = 0; t < pairs * 2; ++t) {
          T* dst = tail_in.data() + t * kLanes;
          std::memcpy(dst, tap[t] + full * kLanes, static_cast<std::size_t>(tail));
          tail_ptrs[static_cast<std::size_t>(t)] = dst;
        }
        accumulate16<T, kPairs>(tail_ptrs.data(), 0, pairs, weights + full * pairs * 2 * kLanes,
                                start + full * start_stride, &acc0, &acc1);
        finish(pixel, full, tail, acc0, acc1);
      }
    }
  }
}

// Output rows [row_begin, row_end) (row = batch * out_h + y; the batch
// elements one after another) of the depthwise layer s (in_c channels, the
// filter's window): for each output pixel and block of 16 channels,
// finish(pixel, block, count, acc0, acc1) with the block's accumulators
// (count < 16 for a last partial block). weights: packFilter's, `pairs` tap
// pairs; start: the starting accumulators, block b's at start + b *
// start_stride in slot order; zero_row: the zero point on a whole number of
// blocks of channels. The 3 x 3 window's five pairs take an unrolled loop.
template <typename T, typename Finish>
__attribute__((target("avx2"))) void forEachBlock(const ops::ConvGeometry& s, const T* input, const T* zero_row,
                                                  std::int64_t pairs, const std::int16_t* weights,
                                                  const std::int32_t* start, std::int64_t start_stride,
                                                  std::int64_t row_begin, std::int64_t row_end, Finish&& finish) {
  if (pairs == 5)
    forEachBlockOf<T, 5>(s, input, zero_row, pairs, weights, start, start_stride, row_begin, row_end, finish);
  else
    forEachBlockOf<T, 0>(s, input, zero_row, pairs, weights, start, start_stride, row_begin, row_end, finish);
}

// The first `bytes` bytes of v at out: a whole vector store when that is
// all of v, else a copy (the last channels of a row: nothing past out +
// bytes may be written).
template <typename Vector>
inline void storeFirst(void* out, const Vector& v, std::size_t bytes) {
  if (bytes == sizeof(Vector)) std::memcpy(out, &v, sizeof(Vector));
  else std::memcpy(out, &v, bytes);
}

#endif  // GDS_DEPTHWISE_AVX2

}  // namespace gds::engine::lowp::depthwise_avx2
