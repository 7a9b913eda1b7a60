// TensorFlow Lite's float32 kernels (see tflite.h), after
// tensorflow/lite/kernels/internal/reference/{conv,depthwiseconv_float,
// fully_connected,pooling,softmax,reduce,resize_bilinear}.h.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "engine/ops/tflite.h"

namespace gds::engine::ops::tfl {

namespace {
inline float clampF(float v, float lo, float hi) { return std::min(std::max(v, lo), hi); }
}  // namespace

bool activationRange(const char* activation, float* act_min, float* act_max) {
  const std::string a = activation;
  const float inf = std::numeric_limits<float>::infinity();
  if (a == "NONE") {
    *act_min = -inf;
    *act_max = inf;
  } else if (a == "RELU") {
    *act_min = 0;
    *act_max = inf;
  } else if (a == "RELU6") {
    *act_min = 0;
    *act_max = 6;
  } else if (a == "RELU_N1_TO_1") {
    *act_min = -1;
    *act_max = 1;
  } else {
    return false;
  }
  return true;
}

void convReference(const FloatConvShape& s, const float* input, const float* filter, const float* bias, float act_min,
                   float act_max, float* output) {
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t oy = 0; oy < s.out_h; ++oy)
      for (std::int64_t ox = 0; ox < s.out_w; ++ox)
        for (std::int64_t oc = 0; oc < s.out_c; ++oc) {
          float total = 0.0f;
          for (std::int64_t fy = 0; fy < s.k_h; ++fy) {
            const std::int64_t iy = oy * s.stride_h - s.pad_top + fy * s.dil_h;
            if (iy < 0 || iy >= s.in_h) continue;
            for (std::int64_t fx = 0; fx < s.k_w; ++fx) {
              const std::int64_t ix = ox * s.stride_w - s.pad_left + fx * s.dil_w;
              if (ix < 0 || ix >= s.in_w) continue;
              const float* in = input + ((b * s.in_h + iy) * s.in_w + ix) * s.in_c;
              const float* f = filter + ((oc * s.k_h + fy) * s.k_w + fx) * s.in_c;
              for (std::int64_t ic = 0; ic < s.in_c; ++ic) total += in[ic] * f[ic];
            }
          }
          const float bias_value = bias ? bias[oc] : 0.0f;
          output[((b * s.out_h + oy) * s.out_w + ox) * s.out_c + oc] = clampF(total + bias_value, act_min, act_max);
        }
}

void depthwiseReference(const FloatConvShape& s, const float* input, const float* filter, const float* bias,
                        float act_min, float act_max, float* output) {
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t oy = 0; oy < s.out_h; ++oy)
      for (std::int64_t ox = 0; ox < s.out_w; ++ox)
        for (std::int64_t ic = 0; ic < s.in_c; ++ic)
          for (std::int64_t m = 0; m < s.depth_multiplier; ++m) {
            const std::int64_t oc = ic * s.depth_multiplier + m;
            float total = 0.0f;
            for (std::int64_t fy = 0; fy < s.k_h; ++fy) {
              const std::int64_t iy = oy * s.stride_h - s.pad_top + fy * s.dil_h;
              if (iy < 0 || iy >= s.in_h) continue;
              for (std::int64_t fx = 0; fx < s.k_w; ++fx) {
                const std::int64_t ix = ox * s.stride_w - s.pad_left + fx * s.dil_w;
                if (ix < 0 || ix >= s.in_w) continue;
                total += input[((b * s.in_h + iy) * s.in_w + ix) * s.in_c + ic] * filter[(fy * s.k_w + fx) * s.out_c + oc];
              }
            }
            const float bias_value = bias ? bias[oc] : 0.0f;
            output[((b * s.out_h + oy) * s.out_w + ox) * s.out_c + oc] = clampF(total + bias_value, act_min, act_max);
          }
}

void fullyConnectedReference(const float* input, const float* filter, const float* bias, std::int64_t batch,
                             std::int64_t depth, std::int64_t units, float act_min, float act_max, float* output) {
  for (std::int64_t b = 0; b < batch; ++b)
    for (std::int64_t u = 0; u < units; ++u) {
      float total = 0.0f;
      for (std::int64_t d = 0; d < depth; ++d) total += input[b * depth + d] * filter[u * depth + d];
      const float bias_value = bias ? bias[u] : 0.0f;
      output[b * units + u] = clampF(total + bias_value, act_min, act_max);
    }
}

namespace {
template <typename Reduce>
void poolLoop(const FloatConvShape& s, const float* input, float* output, Reduce reduce) {
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t oy = 0; oy < s.out_h; ++oy)
      for (std::int64_t ox = 0; ox < s.out_w; ++ox) {
        const std::int64_t y0 = oy * s.stride_h - s.pad_top, x0 = ox * s.stride_w - s.pad_left;
        const std::int64_t fy0 = std::max<std::int64_t>(0, -y0), fy1 = std::min(s.k_h, s.in_h - y0);
        const std::int64_t fx0 = std::max<std::int64_t>(0, -x0), fx1 = std::min(s.k_w, s.in_w - x0);
        for (std::int64_t c = 0; c < s.in_c; ++c)
          output[((b * s.out_h + oy) * s.out_w + ox) * s.in_c + c] = reduce([&](auto fn) {
            for (std::int64_t fy = fy0; fy < fy1; ++fy)
              for (std::int64_t fx = fx0; fx < fx1; ++fx)
                fn(input[((b * s.in_h + y0 + fy) * s.in_w + x0 + fx) * s.in_c + c]);
          });
      }
}
}  // namespace

void averagePoolReference(const FloatConvShape& s, float act_min, float act_max, const float* input, float* output) {
  poolLoop(s, input, output, [&](auto each) {
    float total = 0.0f;
    float count = 0.0f;
    each([&](float v) {
      total += v;
      count += 1.0f;
    });
    return count == 0.0f ? clampF(0.0f, act_min, act_max) : clampF(total / count, act_min, act_max);
  });
}

void maxPoolReference(const FloatConvShape& s, float act_min, float act_max, const float* input, float* output) {
  poolLoop(s, input, output, [&](auto each) {
    float m = std::numeric_limits<float>::lowest();
    each([&](float v) { m = std::max(m, v); });
    return clampF(m, act_min, act_max);
  });
}

void softmaxReference(const float* input, std::int64_t rows, std::int64_t depth, float beta, float* output) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* in = input + r * depth;
    float* out = output + r * depth;
    float max = std::numeric_limits<float>::lowest();
    for (std::int64_t j = 0; j < depth; ++j) max = std::max(max, in[j]);
    float sum = 0.0f;
    for (std::int64_t j = 0; j < depth; ++j) {
      out[j] = std::exp((in[j] - max) * beta);
      sum += out[j];
    }
    for (std::int64_t j = 0; j < depth; ++j) out[j] /= sum;
  }
}

void meanReference(const float* input, std::int64_t outer, std::int64_t inner, std::int64_t trailing, float* output) {
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t t = 0; t < trailing; ++t) {
      float total = 0.0f;
      for (std::int64_t i = 0; i < inner; ++i) total += input[(o * inner + i) * trailing + t];
      output[o * trailing + t] = inner > 0 ? total / static_cast<float>(inner) : 0.0f;
    }
}

namespace {
void interpolation(std::int64_t value, float scale, bool half_pixel_centers, std::int64_t size, float* scaled,
                   std::int64_t* lower, std::int64_t* upper) {
  *scaled = half_pixel_centers ? (static_cast<float>(value) + 0.5f) * scale - 0.5f : static_cast<float>(value) * scale;
  const float floor_value = std::floor(*scaled);
  *lower = std::max<std::int64_t>(static_cast<std::int64_t>(floor_value), 0);
  *upper = std::min<std::int64_t>(static_cast<std::int64_t>(std::ceil(*scaled)), size - 1);
}
}  // namespace

void resizeBilinearReference(const float* input, std::int64_t batch, std::int64_t in_h, std::int64_t in_w,
                             std::int64_t channels, std::int64_t out_h, std::int64_t out_w, bool align_corners,
                             bool half_pixel_centers, float* output) {
  float hs = static_cast<float>(in_h) / static_cast<float>(out_h);
  float ws = static_cast<float>(in_w) / static_cast<float>(out_w);
  if (align_corners && out_h > 1) hs = static_cast<float>(in_h - 1) / static_cast<float>(out_h - 1);
  if (align_corners && out_w > 1) ws = static_cast<float>(in_w - 1) / static_cast<float>(out_w - 1);
  for (std::int64_t b = 0; b < batch; ++b)
    for (std::int64_t y = 0; y < out_h; ++y) {
      float iy;
      std::int64_t y0, y1;
      interpolation(y, hs, half_pixel_centers, in_h, &iy, &y0, &y1);
      for (std::int64_t x = 0; x < out_w; ++x) {
        float ix;
        std::int64_t x0, x1;
        interpolation(x, ws, half_pixel_centers, in_w, &ix, &x0, &x1);
        const float dy = iy - static_cast<float>(y0), dx = ix - static_cast<float>(x0);
        for (std::int64_t c = 0; c < channels; ++c) {
          auto at = [&](std::int64_t yy, std::int64_t xx) { return input[((b * in_h + yy) * in_w + xx) * channels + c]; };
          output[((b * out_h + y) * out_w + x) * channels + c] =
              at(y0, x0) * (1 - dy) * (1 - dx) + at(y1, x0) * dy * (1 - dx) + at(y0, x1) * (1 - dy) * dx +
              at(y1, x1) * dy * dx;
        }
      }
    }
}

}  // namespace gds::engine::ops::tfl
