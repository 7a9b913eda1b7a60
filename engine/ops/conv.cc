// Convolution math on raw buffers: reference loops and the optimized paths.
#include <algorithm>
#include <cstring>
#include <functional>

#include "engine/ops/conv.h"
#include "engine/ops/gemm.h"
#include "engine/thread_pool.h"

namespace gds::engine::ops {

void conv2dReference(const ConvGeometry& s, const float* input, const float* filter, float* output) {
  for (std::int64_t n = 0; n < s.batch; ++n)
    for (std::int64_t oy = 0; oy < s.out_h; ++oy)
      for (std::int64_t ox = 0; ox < s.out_w; ++ox)
        for (std::int64_t oc = 0; oc < s.out_c; ++oc) {
          double sum = 0.0;
          forEachWindowTap(s, n, oy, ox, [&](std::int64_t ky, std::int64_t kx, std::int64_t pixel) {
            for (std::int64_t ic = 0; ic < s.in_c; ++ic)
              sum += static_cast<double>(input[pixel * s.in_c + ic]) *
                     filter[((ky * s.filter_w + kx) * s.in_c + ic) * s.out_c + oc];
          });
          output[((n * s.out_h + oy) * s.out_w + ox) * s.out_c + oc] = static_cast<float>(sum);
        }
}

namespace {

// Writes the patch rows [row_begin, row_end) (row = output pixel) of width
// filter_h * filter_w * in_c into `patches`.
void im2col(const ConvGeometry& s, const float* input, float* patches, std::int64_t row_begin,
            std::int64_t row_end) {
  const std::int64_t c = s.in_c;
  const std::int64_t k = s.filter_h * s.filter_w * c;
  for (std::int64_t row = row_begin; row < row_end; ++row) {
    const std::int64_t ox = row % s.out_w;
    const std::int64_t oy = (row / s.out_w) % s.out_h;
    const std::int64_t n = row / (s.out_w * s.out_h);
    float* dst = patches + (row - row_begin) * k;
    for (std::int64_t ky = 0; ky < s.filter_h; ++ky) {
      const std::int64_t iy = oy * s.stride_h - s.pad_top + ky * s.dilation_h;
      if (iy < 0 || iy >= s.in_h) {
        std::memset(dst, 0, sizeof(float) * static_cast<size_t>(s.filter_w * c));
        dst += s.filter_w * c;
        continue;
      }
      const float* src_row = input + (n * s.in_h + iy) * s.in_w * c;
      if (s.dilation_w == 1) {
        // Contiguous run of filter_w pixels, clipped at the borders.
        const std::int64_t ix0 = ox * s.stride_w - s.pad_left;
        const std::int64_t lo = std::max<std::int64_t>(0, -ix0);
        const std::int64_t hi = std::min<std::int64_t>(s.filter_w, s.in_w - ix0);
        if (lo > 0) std::memset(dst, 0, sizeof(float) * static_cast<size_t>(lo * c));
        if (hi > lo)
          std::memcpy(dst + lo * c, src_row + (ix0 + lo) * c, sizeof(float) * static_cast<size_t>((hi - lo) * c));
        const std::int64_t tail_begin = std::max(hi, lo);
        if (tail_begin < s.filter_w)
          std::memset(dst + tail_begin * c, 0, sizeof(float) * static_cast<size_t>((s.filter_w - tail_begin) * c));
        dst += s.filter_w * c;
        continue;
      }
      for (std::int64_t kx = 0; kx < s.filter_w; ++kx) {
        const std::int64_t ix = ox * s.stride_w - s.pad_left + kx * s.dilation_w;
        if (ix < 0 || ix >= s.in_w) std::memset(dst, 0, sizeof(float) * static_cast<size_t>(c));
        else std::memcpy(dst, src_row + ix * c, sizeof(float) * static_cast<size_t>(c));
        dst += c;
      }
    }
  }
}

void parallelRows(const ThreadPool* pool, std::int64_t n, double cost,
                  const std::function<void(std::int64_t, std::int64_t)>& fn) {
  if (pool && pool->numThreads() > 1) pool->parallelFor(n, cost, fn);
  else fn(0, n);
}

}  // namespace

void conv2dOptimized(const ConvGeometry& s, const float* input, const float* filter, float* output,
                     const ThreadPool* pool, std::vector<float>* scratch) {
  const std::int64_t rows = s.batch * s.out_h * s.out_w;
  const std::int64_t k = s.filter_h * s.filter_w * s.in_c;
  if (rows == 0 || s.out_c == 0) return;
  // 1x1, stride 1, no padding: the input already is the patch matrix.
  if (s.filter_h == 1 && s.filter_w == 1 && s.stride_h == 1 && s.stride_w == 1 && s.pad_top == 0 &&
      s.pad_left == 0 && s.out_h == s.in_h && s.out_w == s.in_w) {
    gemm(input, filter, output, rows, s.out_c, k, false, false, pool);
    return;
  }
  // Patch rows in chunks so the patch matrix stays a few MB (cache friendly
  // and bounded memory); each chunk is one GEMM.
  const std::int64_t budget = std::int64_t{1} << 20;  // floats per chunk
  const std::int64_t chunk = std::max<std::int64_t>(1, std::min<std::int64_t>(rows, budget / std::max<std::int64_t>(k, 1)));
  std::vector<float> local;
  std::vector<float>& patches = scratch ? *scratch : local;
  if (static_cast<std::int64_t>(patches.size()) < chunk * k) patches.resize(static_cast<size_t>(chunk * k));
  for (std::int64_t begin = 0; begin < rows; begin += chunk) {
    const std::int64_t end = std::min(rows, begin + chunk);
    float* p = patches.data();
    parallelRows(pool, end - begin, static_cast<double>(k),
                 [&](std::int64_t b, std::int64_t e) { im2col(s, input, p + b * k, begin + b, begin + e); });
    gemm(p, filter, output + begin * s.out_c, end - begin, s.out_c, k, false, false, pool);
  }
}

void depthwiseConv2dReference(const ConvGeometry& s, const float* input, const float* filter, float* output) {
  const std::int64_t mult = s.out_c;
  const std::int64_t oc_total = s.in_c * mult;
  for (std::int64_t n = 0; n < s.batch; ++n)
    for (std::int64_t oy = 0; oy < s.out_h; ++oy)
      for (std::int64_t ox = 0; ox < s.out_w; ++ox)
        for (std::int64_t c = 0; c < s.in_c; ++c)
          for (std::int64_t m = 0; m < mult; ++m) {
            double sum = 0.0;
            forEachWindowTap(s, n, oy, ox, [&](std::int64_t ky, std::int64_t kx, std::int64_t pixel) {
              sum += static_cast<double>(input[pixel * s.in_c + c]) *
                     filter[((ky * s.filter_w + kx) * s.in_c + c) * mult + m];
            });
            output[((n * s.out_h + oy) * s.out_w + ox) * oc_total + c * mult + m] = static_cast<float>(sum);
          }
}

namespace {

// One output pixel's valid filter taps (multiplier 1).
struct DepthwiseTaps {
  const float* in_base;  // input at the window's top-left corner (may point outside; only valid taps are read)
  const float* filter;
  std::int64_t c_in, in_w, filter_w, dilation_h, dilation_w;
  std::int64_t ky_lo, ky_hi, kx_lo, kx_hi;
};

// Channels [c0, c0 + count) (count <= B) accumulated in registers across
// all taps, then stored once.
template <int B>
inline void depthwiseBlock(const DepthwiseTaps& t, std::int64_t c0, std::int64_t count, float* __restrict__ out) {
  float acc[B] = {};
  for (std::int64_t ky = t.ky_lo; ky < t.ky_hi; ++ky)
    for (std::int64_t kx = t.kx_lo; kx < t.kx_hi; ++kx) {
      const float* __restrict__ in = t.in_base + (ky * t.dilation_h * t.in_w + kx * t.dilation_w) * t.c_in + c0;
      const float* __restrict__ w = t.filter + (ky * t.filter_w + kx) * t.c_in + c0;
      if (count == B) {
        for (int j = 0; j < B; ++j) acc[j] += in[j] * w[j];
      } else {
        for (std::int64_t j = 0; j < count; ++j) acc[j] += in[j] * w[j];
      }
    }
  for (std::int64_t j = 0; j < count; ++j) out[c0 + j] = acc[j];
}

void depthwiseRows(const ConvGeometry& s, const float* __restrict__ input, const float* __restrict__ filter,
                   float* __restrict__ output, std::int64_t row_begin, std::int64_t row_end) {
  const std::int64_t c_in = s.in_c;
  const std::int64_t mult = s.out_c;
  const std::int64_t oc_total = c_in * mult;
  for (std::int64_t row = row_begin; row < row_end; ++row) {  // row = (n, oy)
    const std::int64_t oy = row % s.out_h;
    const std::int64_t n = row / s.out_h;
    // Filter rows inside the image for this output row.
    std::int64_t ky_lo = 0, ky_hi = s.filter_h;
    while (ky_lo < ky_hi && oy * s.stride_h - s.pad_top + ky_lo * s.dilation_h < 0) ++ky_lo;
    while (ky_hi > ky_lo && oy * s.stride_h - s.pad_top + (ky_hi - 1) * s.dilation_h >= s.in_h) --ky_hi;
    for (std::int64_t ox = 0; ox < s.out_w; ++ox) {
      float* __restrict__ out = output + (row * s.out_w + ox) * oc_total;
      std::int64_t kx_lo = 0, kx_hi = s.filter_w;
      while (kx_lo < kx_hi && ox * s.stride_w - s.pad_left + kx_lo * s.dilation_w < 0) ++kx_lo;
      while (kx_hi > kx_lo && ox * s.stride_w - s.pad_left + (kx_hi - 1) * s.dilation_w >= s.in_w) --kx_hi;
      const float* in_base = input + (n * s.in_h + oy * s.stride_h - s.pad_top) * s.in_w * c_in +
                             (ox * s.stride_w - s.pad_left) * c_in;
      if (mult == 1) {
        const DepthwiseTaps taps{in_base, filter, c_in, s.in_w, s.filter_w, s.dilation_h, s.dilation_w,
                                 ky_lo, ky_hi, kx_lo, kx_hi};
        std::int64_t c0 = 0;
        for (; c0 + 32 <= c_in; c0 += 32) depthwiseBlock<32>(taps, c0, 32, out);
        if (c0 + 16 <= c_in) {
          depthwiseBlock<16>(taps, c0, 16, out);
          c0 += 16;
        }
        if (c0 + 8 <= c_in) {
          depthwiseBlock<8>(taps, c0, 8, out);
          c0 += 8;
        }
        if (c0 < c_in) depthwiseBlock<8>(taps, c0, c_in - c0, out);
        continue;
      }
      for (std::int64_t j = 0; j < oc_total; ++j) out[j] = 0.0f;
      for (std::int64_t ky = ky_lo; ky < ky_hi; ++ky)
        for (std::int64_t kx = kx_lo; kx < kx_hi; ++kx) {
          const float* __restrict__ in = in_base + (ky * s.dilation_h * s.in_w + kx * s.dilation_w) * c_in;
          const float* __restrict__ w = filter + (ky * s.filter_w + kx) * oc_total;
          for (std::int64_t c = 0; c < c_in; ++c) {
            const float v = in[c];
            for (std::int64_t m = 0; m < mult; ++m) out[c * mult + m] += v * w[c * mult + m];
          }
        }
    }
  }
}

}  // namespace

void depthwiseConv2dOptimized(const ConvGeometry& s, const float* input, const float* filter, float* output,
                              const ThreadPool* pool) {
  const std::int64_t rows = s.batch * s.out_h;
  const double cost = static_cast<double>(s.out_w * s.in_c * s.out_c * s.filter_h * s.filter_w) * 2.0;
  parallelRows(pool, rows, cost,
               [&](std::int64_t b, std::int64_t e) { depthwiseRows(s, input, filter, output, b, e); });
}

void nchwToNhwc(const float* in, float* out, std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w) {
  for (std::int64_t b = 0; b < n; ++b)
    for (std::int64_t ch = 0; ch < c; ++ch)
      for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x)
          out[((b * h + y) * w + x) * c + ch] = in[((b * c + ch) * h + y) * w + x];
}

void nhwcToNchw(const float* in, float* out, std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t c) {
  for (std::int64_t b = 0; b < n; ++b)
    for (std::int64_t y = 0; y < h; ++y)
      for (std::int64_t x = 0; x < w; ++x)
        for (std::int64_t ch = 0; ch < c; ++ch)
          out[((b * c + ch) * h + y) * w + x] = in[((b * h + y) * w + x) * c + ch];
}

}  // namespace gds::engine::ops
