#include "engine/quantized/ops.h"

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "engine/quantized/vector_loops.h"
#include "engine/thread_pool.h"

namespace gds::engine::quantized {

// --------------------------------------------------------------- BiasAdd

template <typename T>
void biasAddTables(float input_min, float input_max, const T* bias, std::int64_t channels, float bias_min,
                   float bias_max, BiasAddTables* tables) {
  outputRangeForQuantizedBiasAdd(input_min, input_max, bias_min, bias_max, &tables->output_min,
                                 &tables->output_max);
  const std::int32_t zero = floatToQuantized<std::int32_t>(0.0f, tables->output_min, tables->output_max);
  const DequantizeParams<T> input_q2f(input_min, input_max);
  const DequantizeParams<T> bias_q2f(bias_min, bias_max);
  const QuantizeParams<std::int32_t> f2q(tables->output_min, tables->output_max);
  const int lowest = static_cast<int>(std::numeric_limits<T>::lowest());
  for (int v = 0; v < 256; ++v) tables->table[v] = f2q.apply(input_q2f.apply(static_cast<T>(v + lowest)));
  tables->bias_total.resize(static_cast<std::size_t>(channels));
  for (std::int64_t c = 0; c < channels; ++c)
    tables->bias_total[static_cast<std::size_t>(c)] =
        static_cast<std::uint32_t>(f2q.apply(bias_q2f.apply(bias[c]))) + static_cast<std::uint32_t>(zero);
}

template <typename T>
void biasAdd(const T* input, std::int64_t count, float input_min, float input_max, const T* bias,
             std::int64_t channels, float bias_min, float bias_max, std::int32_t* output, float* output_min,
             float* output_max) {
  BiasAddTables t;
  biasAddTables(input_min, input_max, bias, channels, bias_min, bias_max, &t);
  *output_min = t.output_min;
  *output_max = t.output_max;
  const int lowest = static_cast<int>(std::numeric_limits<T>::lowest());
  const std::int64_t rows = channels > 0 ? count / channels : 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    const T* in = input + r * channels;
    std::int32_t* out = output + r * channels;
    for (std::int64_t c = 0; c < channels; ++c)
      out[c] = static_cast<std::int32_t>(static_cast<std::uint32_t>(t.table[static_cast<int>(in[c]) - lowest]) +
                                         t.bias_total[static_cast<std::size_t>(c)]);
  }
}

template void biasAddTables<std::uint8_t>(float, float, const std::uint8_t*, std::int64_t, float, float,
                                          BiasAddTables*);
template void biasAddTables<std::int8_t>(float, float, const std::int8_t*, std::int64_t, float, float,
                                         BiasAddTables*);
template void biasAdd<std::uint8_t>(const std::uint8_t*, std::int64_t, float, float, const std::uint8_t*,
                                    std::int64_t, float, float, std::int32_t*, float*, float*);
template void biasAdd<std::int8_t>(const std::int8_t*, std::int64_t, float, float, const std::int8_t*,
                                   std::int64_t, float, float, std::int32_t*, float*, float*);
// ---------------------------------------------------------------- Clamp

template <typename T>
void clampQuantized(const T* input, std::int64_t count, T low, T high, T* output) {
  for (std::int64_t i = 0; i < count; ++i) output[i] = std::min(std::max(input[i], low), high);
}
template void clampQuantized<std::uint8_t>(const std::uint8_t*, std::int64_t, std::uint8_t, std::uint8_t,
                                           std::uint8_t*);
template void clampQuantized<std::int32_t>(const std::int32_t*, std::int64_t, std::int32_t, std::int32_t,
                                           std::int32_t*);

// -------------------------------------------------------------- Pooling

namespace {
// Calls window(out, b, y0, y1, x0, x1) for every output pixel of the pool:
// the pixel's channel bytes and the input rows [y0, y1) and columns
// [x0, x1) its window covers; rows of output pixels split over the pool.
template <typename Window>
void forEachPoolWindow(const ops::Pool2DShape& s, std::uint8_t* output, const ThreadPool* pool, Window window) {
  const ops::Pool2DShape shape = s;  // a local copy: stores through bytes cannot change it
  const std::int64_t rows = shape.batch * shape.out_h;
  auto run = [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t row = r0; row < r1; ++row) {
      const std::int64_t b = row / shape.out_h;
      const std::int64_t oy = row % shape.out_h;
      const std::int64_t y0 = std::max<std::int64_t>(0, oy * shape.stride_h - shape.pad_top);
      const std::int64_t y1 = std::min(shape.in_h, oy * shape.stride_h - shape.pad_top + shape.window_h);
      for (std::int64_t ox = 0; ox < shape.out_w; ++ox) {
        const std::int64_t x0 = std::max<std::int64_t>(0, ox * shape.stride_w - shape.pad_left);
        const std::int64_t x1 = std::min(shape.in_w, ox * shape.stride_w - shape.pad_left + shape.window_w);
        window(output + ((b * shape.out_h + oy) * shape.out_w + ox) * shape.channels, b, y0, y1, x0, x1);
      }
    }
  };
  if (pool && pool->numThreads() > 1) {
    pool->parallelFor(rows, static_cast<double>(shape.out_w * shape.window_h * shape.window_w * shape.channels), run);
  } else {
    run(0, rows);
  }
}

// out[c] = max(out[c], in[c]): a function of its own, so that the compiler
// knows the byte pointers alias nothing else and vectorizes.
void maxInto(std::uint8_t* __restrict out, const std::uint8_t* __restrict in, std::int64_t n) {
  for (std::int64_t c = 0; c < n; ++c) out[c] = in[c] > out[c] ? in[c] : out[c];
}
}  // namespace

void maxPoolU8(const ops::Pool2DShape& s, const std::uint8_t* input, std::uint8_t* output, const ThreadPool* pool) {
  // The maximum is kept in the output bytes themselves (an empty window
  // gives 0), so the channel loop runs on whole vectors of bytes.
  const std::int64_t in_h = s.in_h, in_w = s.in_w, channels = s.channels;
  forEachPoolWindow(s, output, pool,
                    [&](std::uint8_t* out, std::int64_t b, std::int64_t y0, std::int64_t y1, std::int64_t x0,
                        std::int64_t x1) {
                      std::memset(out, 0, static_cast<std::size_t>(channels));
                      for (std::int64_t y = y0; y < y1; ++y)
                        for (std::int64_t x = x0; x < x1; ++x)
                          maxInto(out, input + ((b * in_h + y) * in_w + x) * channels, channels);
                    });
}

void avgPoolU8(const ops::Pool2DShape& s, const std::uint8_t* input, std::uint8_t* output, const ThreadPool* pool) {
  // TensorFlow's integer mean of the valid cells (an empty window gives 0).
  const std::int64_t in_h = s.in_h, in_w = s.in_w, channels = s.channels;
  forEachPoolWindow(s, output, pool,
                    [&](std::uint8_t* out, std::int64_t b, std::int64_t y0, std::int64_t y1, std::int64_t x0,
                        std::int64_t x1) {
                      thread_local std::vector<std::int32_t> acc;
                      acc.assign(static_cast<std::size_t>(channels), 0);
                      for (std::int64_t y = y0; y < y1; ++y)
                        for (std::int64_t x = x0; x < x1; ++x) {
                          const std::uint8_t* in = input + ((b * in_h + y) * in_w + x) * channels;
                          for (std::int64_t c = 0; c < channels; ++c) acc[static_cast<std::size_t>(c)] += in[c];
                        }
                      const std::int32_t count = static_cast<std::int32_t>((y1 - y0) * (x1 - x0));
                      for (std::int64_t c = 0; c < channels; ++c) {
                        const std::int32_t v = count > 0 ? acc[static_cast<std::size_t>(c)] / count : 0;
                        out[c] = static_cast<std::uint8_t>(std::min(std::max(v, 0), 255));
                      }
                    });
}

// ------------------------------------------------------- Broadcast walks

namespace {
// Calls fn(out_index, x_index, y_index) for every output element.
template <typename Fn>
void broadcastWalk(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& xs,
                   const std::vector<std::int64_t>& ys, Fn fn) {
  const std::size_t rank = shape.size();
  std::int64_t total = 1;
  for (std::int64_t d : shape) total *= d;
  if (total == 0) return;
  if (rank == 0) {
    fn(0, 0, 0);
    return;
  }
  std::vector<std::int64_t> idx(rank, 0);
  std::int64_t xi = 0, yi = 0;
  const std::int64_t inner = shape[rank - 1];
  const std::int64_t xs_in = xs[rank - 1], ys_in = ys[rank - 1];
  for (std::int64_t o = 0; o < total; o += inner) {
    for (std::int64_t j = 0; j < inner; ++j) fn(o + j, xi + j * xs_in, yi + j * ys_in);
    // advance the outer index
    for (std::size_t d = rank - 1; d-- > 0;) {
      ++idx[d];
      xi += xs[d];
      yi += ys[d];
      if (idx[d] < shape[d]) break;
      xi -= xs[d] * shape[d];
      yi -= ys[d] * shape[d];
      idx[d] = 0;
    }
  }
}
}  // namespace

void mulU8(const std::uint8_t* x, std::int32_t x_zero, const std::uint8_t* y, std::int32_t y_zero,
           const std::vector<std::int64_t>& out_shape, const std::vector<std::int64_t>& x_strides,
           const std::vector<std::int64_t>& y_strides, std::int32_t* output) {
  broadcastWalk(out_shape, x_strides, y_strides, [&](std::int64_t o, std::int64_t xi, std::int64_t yi) {
    const std::int32_t a = static_cast<std::int32_t>(x[xi]) - x_zero;
    const std::int32_t b = static_cast<std::int32_t>(y[yi]) - y_zero;
    output[o] = static_cast<std::int32_t>(static_cast<std::uint32_t>(a) * static_cast<std::uint32_t>(b));
  });
}

void addOutputRange(float min_x, float max_x, float min_y, float max_y, float* min_z, float* max_z) {
  const float smallest_min = std::min(min_x, min_y);
  const float largest_max = std::max(max_x, max_y);
  const float biggest_range = std::max(std::abs(smallest_min), std::abs(largest_max));
  const float output_range = (biggest_range * (1 << 14));
  *min_z = -output_range;
  *max_z = output_range;
}

void addTableLinear(float min_in, float max_in, float min_out, float max_out, std::int32_t table[256]) {
  const float v0 = quantizedToFloat<std::uint8_t>(0, min_in, max_in);
  const float v1 = quantizedToFloat<std::uint8_t>(1, min_in, max_in);
  const std::int64_t q0 = floatToQuantizedUnclamped<std::int32_t>(v0, min_out, max_out);
  const std::int64_t q1 = floatToQuantizedUnclamped<std::int32_t>(v1, min_out, max_out);
  const std::int32_t mult = static_cast<std::int32_t>(q1 - q0);
  for (int v = 0; v < 256; ++v) {
    std::int64_t q = q0 + static_cast<std::int64_t>(v) * mult;
    q = std::max<std::int64_t>(q, std::numeric_limits<std::int32_t>::min());
    q = std::min<std::int64_t>(q, std::numeric_limits<std::int32_t>::max());
    table[v] = static_cast<std::int32_t>(q);
  }
}

void addU8(const std::uint8_t* x, const std::int32_t x_table[256], const std::uint8_t* y,
           const std::int32_t y_table[256], const std::vector<std::int64_t>& out_shape,
           const std::vector<std::int64_t>& x_strides, const std::vector<std::int64_t>& y_strides,
           std::int32_t* output) {
  broadcastWalk(out_shape, x_strides, y_strides, [&](std::int64_t o, std::int64_t xi, std::int64_t yi) {
    output[o] = static_cast<std::int32_t>(static_cast<std::uint32_t>(x_table[x[xi]]) +
                                          static_cast<std::uint32_t>(y_table[y[yi]]));
  });
}

// --------------------------------------------------------- Resize bilinear

namespace detail {

Lerp lerpCache(std::int64_t out_size, std::int64_t in_size, float scale, bool half_pixel, int resolution) {
  Lerp c;
  c.lower.resize(static_cast<std::size_t>(out_size));
  c.upper.resize(static_cast<std::size_t>(out_size));
  c.lerp.resize(static_cast<std::size_t>(out_size));
  c.ilerp.resize(static_cast<std::size_t>(out_size));
  for (std::int64_t i = 0; i < out_size; ++i) {
    const float in = half_pixel ? (static_cast<float>(i) + 0.5f) * scale - 0.5f : static_cast<float>(i) * scale;
    const float in_f = std::floor(in);
    const std::size_t k = static_cast<std::size_t>(i);
    c.lower[k] = std::max(static_cast<std::int64_t>(in_f), static_cast<std::int64_t>(0));
    c.upper[k] = std::min(static_cast<std::int64_t>(std::ceil(in)), in_size - 1);
    c.lower[k] = std::min(c.lower[k], c.upper[k]);
    c.lerp[k] = in - in_f;
    // static_cast<T_SCALE>((in - in_f) * (1 << resolution)): float product, truncated.
    c.ilerp[k] = static_cast<std::int64_t>((in - in_f) * static_cast<float>(1 << resolution));
  }
  return c;
}

}  // namespace detail

namespace {

using detail::Lerp;
using detail::lerpCache;

template <typename T, int kResolution>
void resizeFixed(const ResizeShape& s, const T* input, T* output) {
  const Lerp xs = lerpCache(s.out_w, s.in_w, s.width_scale, s.half_pixel_centers, kResolution);
  const Lerp ys = lerpCache(s.out_h, s.in_h, s.height_scale, s.half_pixel_centers, kResolution);
  const std::int64_t mult = static_cast<std::int64_t>(1) << kResolution;
  const std::int64_t row = s.in_w * s.channels;
  for (std::int64_t b = 0; b < s.batch; ++b) {
    const T* in_b = input + b * s.in_h * row;
    for (std::int64_t y = 0; y < s.out_h; ++y) {
      const T* lo = in_b + ys.lower[static_cast<std::size_t>(y)] * row;
      const T* hi = in_b + ys.upper[static_cast<std::size_t>(y)] * row;
      const std::int64_t yl = ys.ilerp[static_cast<std::size_t>(y)];
      T* out = output + (b * s.out_h + y) * s.out_w * s.channels;
      for (std::int64_t x = 0; x < s.out_w; ++x) {
        const std::int64_t xl = xs.lower[static_cast<std::size_t>(x)] * s.channels;
        const std::int64_t xu = xs.upper[static_cast<std::size_t>(x)] * s.channels;
        const std::int64_t xf = xs.ilerp[static_cast<std::size_t>(x)];
        for (std::int64_t c = 0; c < s.channels; ++c) {
          const std::int64_t tl = lo[xl + c], tr = lo[xu + c], bl = hi[xl + c], br = hi[xu + c];
          const std::int64_t top = tl * mult + (tr - tl) * xf;
          const std::int64_t bottom = bl * mult + (br - bl) * xf;
          const std::int64_t v = top + (bottom - top) / mult * yl;  // truncating division, as in C++
          out[x * s.channels + c] = static_cast<T>(static_cast<std::int32_t>((v + mult / 2) / mult));
        }
      }
    }
  }
}
}  // namespace

void resizeBilinearU8(const ResizeShape& s, const std::uint8_t* input, std::uint8_t* output) {
  if (s.out_h == s.in_h && s.out_w == s.in_w) {
    std::memcpy(output, input, static_cast<std::size_t>(s.batch * s.in_h * s.in_w * s.channels));
    return;
  }
  resizeFixed<std::uint8_t, 7>(s, input, output);
}

void resizeBilinearI32(const ResizeShape& s, const std::int32_t* input, std::int32_t* output) {
  if (s.out_h == s.in_h && s.out_w == s.in_w) {
    std::memcpy(output, input, static_cast<std::size_t>(s.batch * s.in_h * s.in_w * s.channels) * 4);
    return;
  }
  resizeFixed<std::int32_t, 30>(s, input, output);
}

// ------------------------------------------------------------ QuantizeV2

template <typename T>
bool quantizeV2(const float* input, std::int64_t count, std::int64_t stride, float input_min, float input_max,
                const QuantizeV2Options& o, T* output, float* output_min, float* output_max) {
  if (input_max < input_min) return false;
  // Nudge a too-small range apart and make sure it contains zero.
  float min_range = std::min(0.0f, input_min);
  const float epsilon = std::max(1.0f, std::max(std::fabs(input_min), std::fabs(input_max))) * o.ensure_minimum_range;
  float max_range = std::max(0.0f, std::max(input_max, min_range + epsilon));
  const double t_min = static_cast<double>(std::numeric_limits<T>::min());
  const double t_max = static_cast<double>(std::numeric_limits<T>::max());
  if (o.mode == QuantizeMode::kMinFirst) {
    const QuantizeParams<T> f2q(min_range, max_range);
    if constexpr (std::is_same_v<T, std::uint8_t>) {
      if (stride == 1) {
        quantizeMinFirstU8(input, count, f2q.range_scale, f2q.range_min_scaled - f2q.lowest(), output);
        *output_min = min_range;
        *output_max = max_range;
        return true;
      }
    }
    for (std::int64_t i = 0; i < count; ++i) output[i * stride] = f2q.apply(input[i * stride]);
  } else if (o.mode == QuantizeMode::kMinCombined) {
    const float scale_factor = static_cast<float>((t_max - t_min) / (max_range - min_range));
    if (std::numeric_limits<T>::is_signed) {
      const float half_range = static_cast<float>((t_max - t_min + 1) / 2.0f);
      for (std::int64_t i = 0; i < count; ++i) {
        const float v = std::min(std::max(input[i * stride], min_range), max_range);
        output[i * stride] = static_cast<T>(std::round((v - min_range) * scale_factor - half_range));
      }
    } else {
      for (std::int64_t i = 0; i < count; ++i) {
        const float v = std::min(std::max(input[i * stride], min_range), max_range);
        output[i * stride] = static_cast<T>((v - min_range) * scale_factor + 0.5f);
      }
    }
  } else {
    const int min_output_value = static_cast<int>(std::numeric_limits<T>::min()) + (o.narrow_range ? 1 : 0);
    const int max_output_value = static_cast<int>(std::numeric_limits<T>::max());
    const float from_min = (min_output_value * min_range > 0) ? min_output_value / min_range
                                                               : std::numeric_limits<float>::max();
    const float from_max = (max_output_value * max_range > 0) ? max_output_value / max_range
                                                               : std::numeric_limits<float>::max();
    const float scale_factor = std::min(from_min, from_max);
    min_range = min_output_value / scale_factor;
    max_range = max_output_value / scale_factor;
    for (std::int64_t i = 0; i < count; ++i) {
      const float v = std::min(std::max(input[i * stride], min_range), max_range) * scale_factor;
      // HALF_TO_EVEN: nearbyint in the default rounding mode.
      const float r = o.round_mode == RoundMode::kHalfToEven ? std::nearbyint(v) : std::round(v);
      output[i * stride] = static_cast<T>(r);
    }
  }
  *output_min = min_range;
  *output_max = max_range;
  return true;
}

template bool quantizeV2<std::uint8_t>(const float*, std::int64_t, std::int64_t, float, float,
                                       const QuantizeV2Options&, std::uint8_t*, float*, float*);
template bool quantizeV2<std::int8_t>(const float*, std::int64_t, std::int64_t, float, float,
                                      const QuantizeV2Options&, std::int8_t*, float*, float*);
template bool quantizeV2<std::uint16_t>(const float*, std::int64_t, std::int64_t, float, float,
                                        const QuantizeV2Options&, std::uint16_t*, float*, float*);
template bool quantizeV2<std::int16_t>(const float*, std::int64_t, std::int64_t, float, float,
                                       const QuantizeV2Options&, std::int16_t*, float*, float*);
template bool quantizeV2<std::int32_t>(const float*, std::int64_t, std::int64_t, float, float,
                                       const QuantizeV2Options&, std::int32_t*, float*, float*);

void requantize32ToS8(const std::int32_t* input, std::int64_t count, float min_in, float max_in, float min_out,
                      float max_out, std::int8_t* output) {
  const EigenRequantizer<std::int32_t, std::int8_t> r(min_in, max_in, min_out, max_out);
  for (std::int64_t i = 0; i < count; ++i) output[i] = r(input[i]);
}

}  // namespace gds::engine::quantized
