// The loops TensorFlow Lite's reference kernels share between int8 and
// 16x8 (int16 activations, int8 weights): which input cells a convolution,
// depthwise convolution, fully connected layer or pool reads, with the
// accumulator type and the requantization left to the caller
// (int8_reference.cc, int16_reference.cc; the pool window also
// float32_reference.cc), and the integer bilinear resize.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

#include "engine/ops/conv_geometry.h"
#include "engine/tflite/int8.h"

namespace gds::engine::tflite::loops {

// reference_integer_ops::ConvPerChannel: cells outside the input add
// nothing; store(acc, out_channel, output_index) with the bias added. The
// output rows (batch x out_h) from row_begin to row_end (-1: all), so that
// callers may split the rows between threads.
template <typename Acc, typename In, typename Bias, typename Store>
void conv(const ops::ConvGeometry& s, std::int32_t input_offset, const In* input, const std::int8_t* filter,
          const Bias* bias, Store store, std::int64_t row_begin = 0, std::int64_t row_end = -1) {
  if (row_end < 0) row_end = s.batch * s.out_h;
  for (std::int64_t row = row_begin; row < row_end; ++row) {
    const std::int64_t b = row / std::max<std::int64_t>(s.out_h, 1), oy = row % std::max<std::int64_t>(s.out_h, 1);
      for (std::int64_t ox = 0; ox < s.out_w; ++ox)
        for (std::int64_t oc = 0; oc < s.out_c; ++oc) {
          Acc acc = 0;
          ops::forEachWindowTap(s, b, oy, ox, [&](std::int64_t fy, std::int64_t fx, std::int64_t pixel) {
            const In* in = input + pixel * s.in_c;
            const std::int8_t* f = filter + ((oc * s.filter_h + fy) * s.filter_w + fx) * s.in_c;
            for (std::int64_t ic = 0; ic < s.in_c; ++ic)
              acc += static_cast<std::int32_t>(f[ic]) * (static_cast<std::int32_t>(in[ic]) + input_offset);
          });
          if (bias) acc += bias[oc];
          store(acc, oc, ((b * s.out_h + oy) * s.out_w + ox) * s.out_c + oc);
        }
  }
}

// reference_integer_ops::DepthwiseConvPerChannel (s.out_c is the depth
// multiplier), over the output rows as conv.
template <typename Acc, typename In, typename Bias, typename Store>
void depthwise(const ops::ConvGeometry& s, std::int32_t input_offset, const In* input, const std::int8_t* filter,
               const Bias* bias, Store store, std::int64_t row_begin = 0, std::int64_t row_end = -1) {
  const std::int64_t channels = s.outputChannels(true);
  if (row_end < 0) row_end = s.batch * s.out_h;
  for (std::int64_t row = row_begin; row < row_end; ++row) {
    const std::int64_t b = row / std::max<std::int64_t>(s.out_h, 1), oy = row % std::max<std::int64_t>(s.out_h, 1);
      for (std::int64_t ox = 0; ox < s.out_w; ++ox)
        for (std::int64_t ic = 0; ic < s.in_c; ++ic)
          for (std::int64_t m = 0; m < s.out_c; ++m) {
            const std::int64_t oc = ic * s.out_c + m;
            Acc acc = 0;
            ops::forEachWindowTap(s, b, oy, ox, [&](std::int64_t fy, std::int64_t fx, std::int64_t pixel) {
              const std::int32_t in = input[pixel * s.in_c + ic];
              const std::int32_t f = filter[(fy * s.filter_w + fx) * channels + oc];
              acc += f * (in + input_offset);
            });
            if (bias) acc += bias[oc];
            store(acc, oc, ((b * s.out_h + oy) * s.out_w + ox) * channels + oc);
          }
  }
}

// reference_integer_ops::FullyConnected: input [batch, depth], filter
// [units, depth].
template <typename Acc, typename In, typename Bias, typename Store>
void fullyConnected(std::int32_t input_offset, std::int32_t filter_offset, const In* input, const std::int8_t* filter,
                    const Bias* bias, std::int64_t batch, std::int64_t depth, std::int64_t units, Store store) {
  for (std::int64_t b = 0; b < batch; ++b)
    for (std::int64_t u = 0; u < units; ++u) {
      Acc acc = 0;
      for (std::int64_t d = 0; d < depth; ++d)
        acc += (static_cast<std::int32_t>(filter[u * depth + d]) + filter_offset) *
               (static_cast<std::int32_t>(input[b * depth + d]) + input_offset);
      if (bias) acc += bias[u];
      store(acc, u, b * units + u);
    }
}

// The window of every output cell of a pool: reduce(each) gets a function
// that calls its argument on every input value inside the input.
template <typename T, typename Reduce>
void pool(const ops::ConvGeometry& s, const T* input, T* output, Reduce reduce) {
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t oy = 0; oy < s.out_h; ++oy)
      for (std::int64_t ox = 0; ox < s.out_w; ++ox) {
        const std::int64_t y0 = oy * s.stride_h - s.pad_top, x0 = ox * s.stride_w - s.pad_left;
        const std::int64_t fy0 = std::max<std::int64_t>(0, -y0), fy1 = std::min(s.filter_h, s.in_h - y0);
        const std::int64_t fx0 = std::max<std::int64_t>(0, -x0), fx1 = std::min(s.filter_w, s.in_w - x0);
        for (std::int64_t c = 0; c < s.in_c; ++c)
          output[((b * s.out_h + oy) * s.out_w + ox) * s.in_c + c] = reduce([&](auto fn) {
            for (std::int64_t fy = fy0; fy < fy1; ++fy)
              for (std::int64_t fx = fx0; fx < fx1; ++fx) fn(input[((b * s.in_h + y0 + fy) * s.in_w + x0 + fx) * s.in_c + c]);
          });
      }
}

// The average pool's rounding: "acc > 0 ? (acc + n/2)/n : (acc - n/2)/n".
inline std::int32_t divideRounding(std::int32_t acc, std::int32_t n) {
  return acc > 0 ? (acc + n / 2) / n : (acc - n / 2) / n;
}

// reference_integer_ops::AveragePool and MaxPool on the stored values of an
// int8 or int16 tensor (input and output share their quantization), clamped
// to [act_min, act_max]; cells outside the input are not counted.
template <typename T>
void averagePool(const ops::ConvGeometry& s, std::int32_t act_min, std::int32_t act_max, const T* input, T* output) {
  pool(s, input, output, [&](auto each) {
    std::int32_t acc = 0, count = 0;
    each([&](T v) {
      acc += v;
      ++count;
    });
    return static_cast<T>(std::min(std::max(count == 0 ? 0 : divideRounding(acc, count), act_min), act_max));
  });
}

template <typename T>
void maxPool(const ops::ConvGeometry& s, std::int32_t act_min, std::int32_t act_max, const T* input, T* output) {
  pool(s, input, output, [&](auto each) {
    std::int32_t m = std::numeric_limits<T>::lowest();
    each([&](T v) { m = std::max<std::int32_t>(m, v); });
    return static_cast<T>(std::min(std::max(m, act_min), act_max));
  });
}

// MEAN's loop (MeanParams, int8.h): each group's sum in int32, as
// TensorFlow Lite's int32 accumulator holds it, less the zero points, the
// multiplier, the bias, clamped to T; an empty group writes 0.
template <typename T>
void mean(const MeanParams& p, const T* input, std::int64_t outer, std::int64_t inner, std::int64_t trailing,
          T* output) {
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t t = 0; t < trailing; ++t) {
      if (p.count <= 0) {
        output[o * trailing + t] = 0;
        continue;
      }
      std::uint32_t sum = 0;  // wraps as int32 does in TensorFlow Lite
      for (std::int64_t i = 0; i < inner; ++i)
        sum += static_cast<std::uint32_t>(static_cast<std::int32_t>(input[(o * inner + i) * trailing + t]));
      auto acc = static_cast<std::int32_t>(sum);
      if (!p.spatial) acc = static_cast<std::int32_t>(acc - static_cast<std::int64_t>(p.input_zp) * p.count);
      acc = multiplyByQuantizedMultiplier(acc, p.multiplier, p.shift) + p.bias;
      output[o * trailing + t] = static_cast<T>(std::clamp<std::int32_t>(
          acc, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
    }
}

// reference_ops::ResizeBilinearInteger: 10-bit fixed-point positions and
// weights, the four taps summed in int64 and rounded half away from zero.
// NHWC.
inline void interpolationInteger(std::int64_t value, std::int32_t scale_10, bool half_pixel_centers,
                                 std::int64_t size, std::int32_t* scaled, std::int64_t* lower, std::int64_t* upper) {
  if (half_pixel_centers)
    *scaled = static_cast<std::int32_t>(value) * scale_10 + scale_10 / 2 - (1 << 9);
  else
    *scaled = static_cast<std::int32_t>(value) * scale_10;
  *lower = std::max<std::int64_t>(*scaled / (1 << 10), 0);
  *upper = std::min<std::int64_t>((*scaled + (1 << 10) - 1) / (1 << 10), size - 1);
}

template <typename T>
void resizeBilinear(const T* input, std::int64_t batch, std::int64_t in_h, std::int64_t in_w, std::int64_t channels,
                    std::int64_t out_h, std::int64_t out_w, bool align_corners, bool half_pixel_centers, T* output) {
  auto scale10 = [&](std::int64_t in, std::int64_t out) {
    if (align_corners && out > 1)
      return static_cast<std::int32_t>(((1 << 10) * (in - 1) + (out - 1) / 2) / (out - 1));
    return static_cast<std::int32_t>(((1 << 10) * in + out / 2) / out);
  };
  const std::int32_t hs = scale10(in_h, out_h), ws = scale10(in_w, out_w);
  for (std::int64_t b = 0; b < batch; ++b)
    for (std::int64_t y = 0; y < out_h; ++y) {
      std::int32_t iy;
      std::int64_t y0, y1;
      interpolationInteger(y, hs, half_pixel_centers, in_h, &iy, &y0, &y1);
      for (std::int64_t x = 0; x < out_w; ++x) {
        std::int32_t ix;
        std::int64_t x0, x1;
        interpolationInteger(x, ws, half_pixel_centers, in_w, &ix, &x0, &x1);
        for (std::int64_t c = 0; c < channels; ++c) {
          auto at = [&](std::int64_t yy, std::int64_t xx) {
            return static_cast<std::int64_t>(input[((b * in_h + yy) * in_w + xx) * channels + c]);
          };
          const std::int64_t dy = iy - (1 << 10) * y0, dx = ix - (1 << 10) * x0;
          const std::int64_t o = at(y0, x0) * ((1 << 10) - dy) * ((1 << 10) - dx) +
                                 at(y1, x0) * dy * ((1 << 10) - dx) + at(y0, x1) * ((1 << 10) - dy) * dx +
                                 at(y1, x1) * dy * dx;
          const std::int64_t round = o > 0 ? (1 << 19) : -(1 << 19);
          output[((b * out_h + y) * out_w + x) * channels + c] = static_cast<T>((o + round) / (1 << 20));
        }
      }
    }
}

}  // namespace gds::engine::tflite::loops
