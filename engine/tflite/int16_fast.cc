// The 16x8 layers' fast loops (int16.h): the reference loops' sums, in an
// order a vector unit takes, exact because every partial sum fits.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/tflite/int16.h"

namespace gds::engine::tflite {

namespace {

// Products of an int16 and an int8 are within 2^22 in magnitude: 256 of
// them sum in int32 without overflow.
constexpr std::int64_t kBlock = 256;

// The dot product of n int16 values and n int8 weights, exact in int64.
__attribute__((target_clones("arch=skylake-avx512", "avx2", "default"))) std::int64_t dot(const std::int16_t* a,
                                                                              const std::int8_t* w, std::int64_t n) {
  std::int64_t total = 0;
  for (std::int64_t k = 0; k < n; k += kBlock) {
    const std::int64_t end = std::min(n, k + kBlock);
    std::int32_t acc = 0;
    for (std::int64_t i = k; i < end; ++i) acc += static_cast<std::int32_t>(a[i]) * static_cast<std::int32_t>(w[i]);
    total += acc;
  }
  return total;
}

// acc[c] += a[c] * w[c]: one depthwise window cell (depth multiplier 1).
__attribute__((target_clones("arch=skylake-avx512", "avx2", "default"))) void multiplyAdd(const std::int16_t* a,
                                                                               const std::int8_t* w, std::int64_t n,
                                                                               std::int32_t* acc) {
  for (std::int64_t c = 0; c < n; ++c) acc[c] += static_cast<std::int32_t>(a[c]) * static_cast<std::int32_t>(w[c]);
}

}  // namespace

void convFast(const ops::ConvGeometry& s, const Requant& r, const std::int16_t* input, const std::int8_t* filter,
              const std::int64_t* bias, std::int16_t* output, std::int64_t row_begin, std::int64_t row_end) {
  const std::int64_t k = s.filter_h * s.filter_w * s.in_c;
  const bool pointwise = s.filter_h == 1 && s.filter_w == 1 && s.pad_top == 0 && s.pad_left == 0;
  std::vector<std::int16_t> patch(static_cast<std::size_t>(pointwise ? 0 : k));
  for (std::int64_t row = row_begin; row < row_end; ++row) {
    const std::int64_t b = row / s.out_h, oy = row % s.out_h;
    for (std::int64_t ox = 0; ox < s.out_w; ++ox) {
      const std::int16_t* x;
      const std::int64_t y0 = oy * s.stride_h - s.pad_top, x0 = ox * s.stride_w - s.pad_left;
      if (pointwise) {
        x = input + ((b * s.in_h + y0) * s.in_w + x0) * s.in_c;
      } else {
        // The window as the filter's [h][w][in] row; cells outside the input
        // are 0 (the input zero point), adding nothing as in the reference.
        std::int16_t* p = patch.data();
        for (std::int64_t fy = 0; fy < s.filter_h; ++fy) {
          const std::int64_t iy = y0 + fy * s.dilation_h;
          for (std::int64_t fx = 0; fx < s.filter_w; ++fx, p += s.in_c) {
            const std::int64_t ix = x0 + fx * s.dilation_w;
            if (iy < 0 || iy >= s.in_h || ix < 0 || ix >= s.in_w) std::fill(p, p + s.in_c, std::int16_t{0});
            else std::copy_n(input + ((b * s.in_h + iy) * s.in_w + ix) * s.in_c, s.in_c, p);
          }
        }
        x = patch.data();
      }
      std::int16_t* out = output + ((b * s.out_h + oy) * s.out_w + ox) * s.out_c;
      for (std::int64_t oc = 0; oc < s.out_c; ++oc) {
        std::int64_t acc = dot(x, filter + oc * k, k);
        if (bias) acc += bias[oc];
        out[oc] = requantizeOne16(r, acc, oc);
      }
    }
  }
}

void depthwiseFast(const ops::ConvGeometry& s, const Requant& r, const std::int16_t* input, const std::int8_t* filter,
                   const std::int64_t* bias, std::int16_t* output, std::int64_t row_begin, std::int64_t row_end) {
  if (s.out_c != 1 || s.filter_h * s.filter_w > kBlock) {
    depthwiseReference(s, r, input, filter, bias, output, row_begin, row_end);
    return;
  }
  const std::int64_t channels = s.in_c;
  std::vector<std::int32_t> acc(static_cast<std::size_t>(channels));
  for (std::int64_t row = row_begin; row < row_end; ++row) {
    const std::int64_t b = row / s.out_h, oy = row % s.out_h;
    for (std::int64_t ox = 0; ox < s.out_w; ++ox) {
      std::fill(acc.begin(), acc.end(), 0);
      ops::forEachWindowTap(s, b, oy, ox, [&](std::int64_t fy, std::int64_t fx, std::int64_t pixel) {
        multiplyAdd(input + pixel * channels, filter + (fy * s.filter_w + fx) * channels, channels, acc.data());
      });
      std::int16_t* out = output + ((b * s.out_h + oy) * s.out_w + ox) * channels;
      for (std::int64_t c = 0; c < channels; ++c)
        out[c] = requantizeOne16(r, acc[static_cast<std::size_t>(c)] + (bias ? bias[c] : 0), c);
    }
  }
}

void fullyConnectedFast(const Requant& r, const std::int16_t* input, const std::int8_t* filter,
                        const std::int64_t* bias, std::int64_t depth, std::int64_t units, std::int16_t* output,
                        std::int64_t row_begin, std::int64_t row_end) {
  for (std::int64_t b = row_begin; b < row_end; ++b)
    for (std::int64_t u = 0; u < units; ++u) {
      std::int64_t acc = dot(input + b * depth, filter + u * depth, depth);
      if (bias) acc += bias[u];
      output[b * units + u] = requantizeOne16(r, acc, u);
    }
}

}  // namespace gds::engine::tflite
