// Pooling, normalization, resizing, padding and space<->batch math on raw
// buffers (see engine/ops/nn.h for the TensorFlow rules).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "engine/ops/nn.h"
#include "engine/thread_pool.h"

namespace gds::engine::ops {

namespace {

void parallelRows(const ThreadPool* pool, std::int64_t n, double cost,
                  const std::function<void(std::int64_t, std::int64_t)>& fn) {
  if (pool && pool->numThreads() > 1) pool->parallelFor(n, cost, fn);
  else fn(0, n);
}

template <bool kMax>
void poolRows(const Pool2DShape& s, const float* __restrict__ input, float* __restrict__ output,
              std::int64_t row_begin, std::int64_t row_end) {
  const std::int64_t c = s.channels;
  for (std::int64_t row = row_begin; row < row_end; ++row) {
    const std::int64_t oy = row % s.out_h;
    const std::int64_t n = row / s.out_h;
    const std::int64_t y0 = oy * s.stride_h - s.pad_top;
    const std::int64_t ylo = std::max<std::int64_t>(0, y0);
    const std::int64_t yhi = std::min(s.in_h, y0 + s.window_h);
    for (std::int64_t ox = 0; ox < s.out_w; ++ox) {
      const std::int64_t x0 = ox * s.stride_w - s.pad_left;
      const std::int64_t xlo = std::max<std::int64_t>(0, x0);
      const std::int64_t xhi = std::min(s.in_w, x0 + s.window_w);
      float* __restrict__ out = output + (row * s.out_w + ox) * c;
      // A window reaching into the padding starts from the padding's value
      // when padding cells take part.
      const bool padded = yhi - ylo < s.window_h || xhi - xlo < s.window_w;
      const float init = kMax ? (s.pad_takes_part && padded ? s.pad_value : -std::numeric_limits<float>::infinity())
                              : 0.0f;
      for (std::int64_t ch = 0; ch < c; ++ch) out[ch] = init;
      for (std::int64_t y = ylo; y < yhi; ++y)
        for (std::int64_t x = xlo; x < xhi; ++x) {
          const float* __restrict__ in = input + ((n * s.in_h + y) * s.in_w + x) * c;
          if (kMax) {
            for (std::int64_t ch = 0; ch < c; ++ch) out[ch] = std::max(out[ch], in[ch]);
          } else {
            for (std::int64_t ch = 0; ch < c; ++ch) out[ch] += in[ch];
          }
        }
      if (!kMax) {
        const std::int64_t count = std::max<std::int64_t>(0, yhi - ylo) * std::max<std::int64_t>(0, xhi - xlo);
        const float inv = count > 0 ? 1.0f / static_cast<float>(count) : 0.0f;
        for (std::int64_t ch = 0; ch < c; ++ch) out[ch] *= inv;
      }
    }
  }
}

}  // namespace

void maxPool(const Pool2DShape& s, const float* input, float* output, const ThreadPool* pool) {
  parallelRows(pool, s.batch * s.out_h, static_cast<double>(s.out_w * s.channels * s.window_h * s.window_w),
               [&](std::int64_t b, std::int64_t e) { poolRows<true>(s, input, output, b, e); });
}

void avgPool(const Pool2DShape& s, const float* input, float* output, const ThreadPool* pool) {
  parallelRows(pool, s.batch * s.out_h, static_cast<double>(s.out_w * s.channels * s.window_h * s.window_w),
               [&](std::int64_t b, std::int64_t e) { poolRows<false>(s, input, output, b, e); });
}

void channelAffine(const float* x, std::int64_t outer, std::int64_t channels, std::int64_t inner,
                   const float* scale, const float* shift, float* y, const ThreadPool* pool) {
  parallelRows(pool, outer, static_cast<double>(channels * inner), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t o = b; o < e; ++o) {
      const float* __restrict__ src = x + o * channels * inner;
      float* __restrict__ dst = y + o * channels * inner;
      if (inner == 1) {
        for (std::int64_t c = 0; c < channels; ++c) dst[c] = src[c] * scale[c] + shift[c];
      } else {
        for (std::int64_t c = 0; c < channels; ++c) {
          const float a = scale[c], sh = shift[c];
          for (std::int64_t i = 0; i < inner; ++i) dst[c * inner + i] = src[c * inner + i] * a + sh;
        }
      }
    }
  });
}

void biasAdd(const float* x, std::int64_t outer, std::int64_t channels, std::int64_t inner, const float* bias,
             float* y, const ThreadPool* pool) {
  parallelRows(pool, outer, static_cast<double>(channels * inner), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t o = b; o < e; ++o) {
      const float* __restrict__ src = x + o * channels * inner;
      float* __restrict__ dst = y + o * channels * inner;
      if (inner == 1) {
        for (std::int64_t c = 0; c < channels; ++c) dst[c] = src[c] + bias[c];
      } else {
        for (std::int64_t c = 0; c < channels; ++c)
          for (std::int64_t i = 0; i < inner; ++i) dst[c * inner + i] = src[c * inner + i] + bias[c];
      }
    }
  });
}

void biasActivation(float* data, std::int64_t rows, std::int64_t channels, const float* bias, Activation act,
                    const ThreadPool* pool, const float* addend) {
  if (!bias && !addend && act == Activation::kNone) return;
  parallelRows(pool, rows, static_cast<double>(channels), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t r = b; r < e; ++r) {
      float* __restrict__ row = data + r * channels;
      if (bias)
        for (std::int64_t c = 0; c < channels; ++c) row[c] += bias[c];
      if (addend)
        for (std::int64_t c = 0; c < channels; ++c) row[c] += addend[r * channels + c];
      if (act == Activation::kRelu)
        for (std::int64_t c = 0; c < channels; ++c) row[c] = std::max(row[c], 0.0f);
      else if (act == Activation::kRelu6)
        for (std::int64_t c = 0; c < channels; ++c) row[c] = std::min(std::max(row[c], 0.0f), 6.0f);
    }
  });
}

void channelMoments(const float* x, std::int64_t outer, std::int64_t channels, std::int64_t inner, float* mean,
                    float* variance) {
  std::vector<double> sum(static_cast<size_t>(channels), 0.0), sq(static_cast<size_t>(channels), 0.0);
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t c = 0; c < channels; ++c)
      for (std::int64_t i = 0; i < inner; ++i) sum[c] += x[(o * channels + c) * inner + i];
  const double count = static_cast<double>(outer * inner);
  for (std::int64_t c = 0; c < channels; ++c) mean[c] = count > 0 ? static_cast<float>(sum[c] / count) : 0.0f;
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t c = 0; c < channels; ++c)
      for (std::int64_t i = 0; i < inner; ++i) {
        const double d = x[(o * channels + c) * inner + i] - static_cast<double>(mean[c]);
        sq[c] += d * d;
      }
  for (std::int64_t c = 0; c < channels; ++c) variance[c] = count > 0 ? static_cast<float>(sq[c] / count) : 0.0f;
}

void batchNormCoefficients(std::int64_t channels, const float* gamma, const float* beta, const float* mean,
                           const float* variance, float epsilon, float* scale, float* shift) {
  for (std::int64_t c = 0; c < channels; ++c) {
    const float a = (gamma ? gamma[c] : 1.0f) / std::sqrt(variance[c] + epsilon);
    scale[c] = a;
    shift[c] = (beta ? beta[c] : 0.0f) - mean[c] * a;
  }
}

void lrn(const float* input, std::int64_t rows, std::int64_t depth, std::int64_t depth_radius, float bias,
         float alpha, float beta, float* output) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* in = input + r * depth;
    float* out = output + r * depth;
    for (std::int64_t d = 0; d < depth; ++d) {
      const std::int64_t lo = std::max<std::int64_t>(0, d - depth_radius);
      const std::int64_t hi = std::min<std::int64_t>(depth, d + depth_radius + 1);
      float sum = 0.0f;
      for (std::int64_t j = lo; j < hi; ++j) sum += in[j] * in[j];
      const float denom = bias + alpha * sum;
      out[d] = in[d] / std::pow(denom, beta);
    }
  }
}

float resizeScale(std::int64_t in, std::int64_t out, bool align_corners) {
  return (align_corners && out > 1) ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                                    : static_cast<float>(in) / static_cast<float>(out);
}

namespace {
struct Interp {
  std::int64_t lower, upper;
  float lerp;
};
std::vector<Interp> interpolationWeights(std::int64_t out_size, std::int64_t in_size, float scale, bool half_pixel) {
  std::vector<Interp> w(static_cast<size_t>(out_size));
  for (std::int64_t i = 0; i < out_size; ++i) {
    const float in = half_pixel ? (static_cast<float>(i) + 0.5f) * scale - 0.5f : static_cast<float>(i) * scale;
    const float in_f = std::floor(in);
    w[i].lower = std::max(static_cast<std::int64_t>(in_f), std::int64_t{0});
    w[i].upper = std::min(static_cast<std::int64_t>(std::ceil(in)), in_size - 1);
    w[i].lerp = in - in_f;
  }
  return w;
}

template <typename T>
void resizeBilinearFrom(const T* input, std::int64_t batch, std::int64_t in_h, std::int64_t in_w,
                        std::int64_t channels, std::int64_t out_h, std::int64_t out_w, bool align_corners,
                        bool half_pixel_centers, float* output) {
  const auto ys = interpolationWeights(out_h, in_h, resizeScale(in_h, out_h, align_corners), half_pixel_centers);
  const auto xs = interpolationWeights(out_w, in_w, resizeScale(in_w, out_w, align_corners), half_pixel_centers);
  for (std::int64_t n = 0; n < batch; ++n)
    for (std::int64_t y = 0; y < out_h; ++y) {
      const T* top = input + (n * in_h + ys[y].lower) * in_w * channels;
      const T* bottom = input + (n * in_h + ys[y].upper) * in_w * channels;
      const float yl = ys[y].lerp;
      for (std::int64_t x = 0; x < out_w; ++x) {
        const float xl = xs[x].lerp;
        const T* tl = top + xs[x].lower * channels;
        const T* tr = top + xs[x].upper * channels;
        const T* bl = bottom + xs[x].lower * channels;
        const T* br = bottom + xs[x].upper * channels;
        float* out = output + ((n * out_h + y) * out_w + x) * channels;
        for (std::int64_t c = 0; c < channels; ++c) {
          const float ftl = static_cast<float>(tl[c]), ftr = static_cast<float>(tr[c]);
          const float fbl = static_cast<float>(bl[c]), fbr = static_cast<float>(br[c]);
          const float t = ftl + (ftr - ftl) * xl;
          const float b = fbl + (fbr - fbl) * xl;
          out[c] = t + (b - t) * yl;
        }
      }
    }
}
}  // namespace

void resizeBilinear(const float* input, std::int64_t batch, std::int64_t in_h, std::int64_t in_w,
                    std::int64_t channels, std::int64_t out_h, std::int64_t out_w, bool align_corners,
                    bool half_pixel_centers, float* output) {
  resizeBilinearFrom(input, batch, in_h, in_w, channels, out_h, out_w, align_corners, half_pixel_centers, output);
}

void resizeBilinear(const std::uint8_t* input, std::int64_t batch, std::int64_t in_h, std::int64_t in_w,
                    std::int64_t channels, std::int64_t out_h, std::int64_t out_w, bool align_corners,
                    bool half_pixel_centers, float* output) {
  resizeBilinearFrom(input, batch, in_h, in_w, channels, out_h, out_w, align_corners, half_pixel_centers, output);
}

namespace {
std::int64_t nearestIndex(std::int64_t out, std::int64_t in_size, float scale, bool align_corners, bool half_pixel) {
  const float v = half_pixel ? (static_cast<float>(out) + 0.5f) * scale : static_cast<float>(out) * scale;
  std::int64_t i = std::min(align_corners ? static_cast<std::int64_t>(std::round(v)) : static_cast<std::int64_t>(std::floor(v)),
                            in_size - 1);
  if (half_pixel) i = std::max<std::int64_t>(0, i);
  return i;
}
}  // namespace

void resizeNearest(const void* input, std::size_t element_size, std::int64_t batch, std::int64_t in_h,
                   std::int64_t in_w, std::int64_t channels, std::int64_t out_h, std::int64_t out_w,
                   bool align_corners, bool half_pixel_centers, void* output) {
  const float sh = resizeScale(in_h, out_h, align_corners);
  const float sw = resizeScale(in_w, out_w, align_corners);
  const auto* in = static_cast<const unsigned char*>(input);
  auto* out = static_cast<unsigned char*>(output);
  const std::size_t pixel = element_size * static_cast<std::size_t>(channels);
  for (std::int64_t n = 0; n < batch; ++n)
    for (std::int64_t y = 0; y < out_h; ++y) {
      const std::int64_t iy = nearestIndex(y, in_h, sh, align_corners, half_pixel_centers);
      for (std::int64_t x = 0; x < out_w; ++x) {
        const std::int64_t ix = nearestIndex(x, in_w, sw, align_corners, half_pixel_centers);
        std::memcpy(out + static_cast<std::size_t>((n * out_h + y) * out_w + x) * pixel,
                    in + static_cast<std::size_t>((n * in_h + iy) * in_w + ix) * pixel, pixel);
      }
    }
}

namespace {
// Source index for padded position p (may be outside [0, size)).
std::int64_t mirrorIndex(std::int64_t p, std::int64_t size, bool reflect) {
  const std::int64_t offset = reflect ? 1 : 0;
  while (p < 0 || p >= size) {
    if (p < 0) p = -p - 1 + offset;
    else p = 2 * size - p - 1 - offset;
  }
  return p;
}
}  // namespace

void mirrorPad4D(const float* input, const std::int64_t in_shape[4], const std::int64_t pads[4][2], bool reflect,
                 float* output) {
  std::int64_t out_shape[4];
  for (int d = 0; d < 4; ++d) out_shape[d] = in_shape[d] + pads[d][0] + pads[d][1];
  std::vector<std::int64_t> map3(static_cast<size_t>(out_shape[3]));
  for (std::int64_t i = 0; i < out_shape[3]; ++i) map3[i] = mirrorIndex(i - pads[3][0], in_shape[3], reflect);
  float* out = output;
  for (std::int64_t a = 0; a < out_shape[0]; ++a) {
    const std::int64_t ia = mirrorIndex(a - pads[0][0], in_shape[0], reflect);
    for (std::int64_t b = 0; b < out_shape[1]; ++b) {
      const std::int64_t ib = mirrorIndex(b - pads[1][0], in_shape[1], reflect);
      for (std::int64_t c = 0; c < out_shape[2]; ++c) {
        const std::int64_t ic = mirrorIndex(c - pads[2][0], in_shape[2], reflect);
        const float* row = input + ((ia * in_shape[1] + ib) * in_shape[2] + ic) * in_shape[3];
        for (std::int64_t d = 0; d < out_shape[3]; ++d) *out++ = row[map3[d]];
      }
    }
  }
}

namespace {
// Shared walk: for every (batch-of-output/input, spatial position) pair of
// the "batched" tensor, find the position in the "space" tensor.
// space_shape = [batch, S..., rest], batched_shape = [batch * prod(block), B..., rest].
// to_batched: copy space -> batched (zero outside), else batched -> space (skip outside).
void spaceBatchWalk(const unsigned char* src, unsigned char* dst, std::size_t element_size,
                    const std::vector<std::int64_t>& space_shape, const std::vector<std::int64_t>& batched_shape,
                    const std::vector<std::int64_t>& block, const std::vector<std::int64_t>& offset_before,
                    bool to_batched) {
  const size_t m = block.size();
  std::int64_t rest = 1;
  for (size_t i = 1 + m; i < space_shape.size(); ++i) rest *= space_shape[i];
  const std::size_t rest_bytes = static_cast<std::size_t>(rest) * element_size;
  const std::int64_t space_batch = space_shape[0];
  const std::int64_t batched_batch = batched_shape[0];
  std::vector<std::int64_t> pos(m, 0), off(m, 0);
  std::int64_t batched_spatial = 1;
  for (size_t i = 0; i < m; ++i) batched_spatial *= batched_shape[1 + i];
  for (std::int64_t ob = 0; ob < batched_batch; ++ob) {
    const std::int64_t b = ob % space_batch;
    std::int64_t block_index = ob / space_batch;
    for (size_t i = m; i-- > 0;) {
      off[i] = block_index % block[i];
      block_index /= block[i];
    }
    for (std::int64_t sp = 0; sp < batched_spatial; ++sp) {
      std::int64_t t = sp;
      for (size_t i = m; i-- > 0;) {
        pos[i] = t % batched_shape[1 + i];
        t /= batched_shape[1 + i];
      }
      bool inside = true;
      std::int64_t space_index = b;
      for (size_t i = 0; i < m; ++i) {
        const std::int64_t p = pos[i] * block[i] + off[i] - offset_before[i];
        if (p < 0 || p >= space_shape[1 + i]) inside = false;
        space_index = space_index * space_shape[1 + i] + (inside ? p : 0);
      }
      const std::size_t batched_byte = static_cast<std::size_t>(ob * batched_spatial + sp) * rest_bytes;
      if (to_batched) {
        if (inside) std::memcpy(dst + batched_byte, src + static_cast<std::size_t>(space_index) * rest_bytes, rest_bytes);
        else std::memset(dst + batched_byte, 0, rest_bytes);
      } else if (inside) {
        std::memcpy(dst + static_cast<std::size_t>(space_index) * rest_bytes, src + batched_byte, rest_bytes);
      }
    }
  }
}
}  // namespace

void spaceToBatch(const void* input, std::size_t element_size, const std::vector<std::int64_t>& in_shape,
                  const std::vector<std::int64_t>& block, const std::vector<std::int64_t>& pad_before,
                  const std::vector<std::int64_t>& out_shape, void* output) {
  spaceBatchWalk(static_cast<const unsigned char*>(input), static_cast<unsigned char*>(output), element_size,
                 in_shape, out_shape, block, pad_before, true);
}

void batchToSpace(const void* input, std::size_t element_size, const std::vector<std::int64_t>& in_shape,
                  const std::vector<std::int64_t>& block, const std::vector<std::int64_t>& crop_before,
                  const std::vector<std::int64_t>& out_shape, void* output) {
  spaceBatchWalk(static_cast<const unsigned char*>(input), static_cast<unsigned char*>(output), element_size,
                 out_shape, in_shape, block, crop_before, false);
}

}  // namespace gds::engine::ops
