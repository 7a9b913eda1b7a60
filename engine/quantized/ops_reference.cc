// The plain loops that specify the 8-bit ops of ops.h whose fast paths
// (ops.cc) compute the same bits differently; tests run both.
#include <cstdint>

#include "engine/quantized/ops.h"

namespace gds::engine::quantized {

// ---------------------------------------------------------------- Conv2D

void conv2DReference(const ops::Conv2DShape& s, const std::uint8_t* input, std::int32_t input_zero,
                     const std::uint8_t* filter, std::int32_t filter_zero, std::int32_t* output) {
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t oy = 0; oy < s.out_h; ++oy)
      for (std::int64_t ox = 0; ox < s.out_w; ++ox)
        for (std::int64_t oc = 0; oc < s.out_c; ++oc) {
          std::uint32_t total = 0;  // wraps like an int32 accumulator
          for (std::int64_t fy = 0; fy < s.filter_h; ++fy) {
            const std::int64_t iy = oy * s.stride_h - s.pad_top + fy * s.dilation_h;
            for (std::int64_t fx = 0; fx < s.filter_w; ++fx) {
              const std::int64_t ix = ox * s.stride_w - s.pad_left + fx * s.dilation_w;
              const bool inside = iy >= 0 && iy < s.in_h && ix >= 0 && ix < s.in_w;
              for (std::int64_t ic = 0; ic < s.in_c; ++ic) {
                const std::int32_t iv =
                    inside ? static_cast<std::int32_t>(input[((b * s.in_h + iy) * s.in_w + ix) * s.in_c + ic]) -
                                 input_zero
                           : 0;
                const std::int32_t fv =
                    static_cast<std::int32_t>(filter[((fy * s.filter_w + fx) * s.in_c + ic) * s.out_c + oc]) -
                    filter_zero;
                total += static_cast<std::uint32_t>(iv) * static_cast<std::uint32_t>(fv);
              }
            }
          }
          output[((b * s.out_h + oy) * s.out_w + ox) * s.out_c + oc] = static_cast<std::int32_t>(total);
        }
}

// --------------------------------------------------------------- BiasAdd

template <typename T>
void biasAddReference(const T* input, std::int64_t count, float input_min, float input_max, const T* bias,
                      std::int64_t channels, float bias_min, float bias_max, std::int32_t* output,
                      float* output_min, float* output_max) {
  outputRangeForQuantizedBiasAdd(input_min, input_max, bias_min, bias_max, output_min, output_max);
  const std::int32_t zero = floatToQuantized<std::int32_t>(0.0f, *output_min, *output_max);
  const DequantizeParams<T> input_q2f(input_min, input_max);
  const DequantizeParams<T> bias_q2f(bias_min, bias_max);
  const QuantizeParams<std::int32_t> f2q(*output_min, *output_max);
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int32_t a = f2q.apply(input_q2f.apply(input[i]));
    const std::int32_t b = f2q.apply(bias_q2f.apply(bias[i % channels]));
    output[i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(a) +
                                          (static_cast<std::uint32_t>(b) + static_cast<std::uint32_t>(zero)));
  }
}

template void biasAddReference<std::uint8_t>(const std::uint8_t*, std::int64_t, float, float, const std::uint8_t*,
                                             std::int64_t, float, float, std::int32_t*, float*, float*);
template void biasAddReference<std::int8_t>(const std::int8_t*, std::int64_t, float, float, const std::int8_t*,
                                            std::int64_t, float, float, std::int32_t*, float*, float*);

// --------------------------------------------------------- Resize bilinear

void resizeBilinearU8Reference(const ResizeShape& s, const std::uint8_t* input, float min, float max,
                               std::uint8_t* output) {
  const detail::Lerp xs = detail::lerpCache(s.out_w, s.in_w, s.width_scale, s.half_pixel_centers, 0);
  const detail::Lerp ys = detail::lerpCache(s.out_h, s.in_h, s.height_scale, s.half_pixel_centers, 0);
  const std::int64_t row = s.in_w * s.channels;
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t y = 0; y < s.out_h; ++y) {
      const std::uint8_t* lo = input + b * s.in_h * row + ys.lower[static_cast<std::size_t>(y)] * row;
      const std::uint8_t* hi = input + b * s.in_h * row + ys.upper[static_cast<std::size_t>(y)] * row;
      const float yl = ys.lerp[static_cast<std::size_t>(y)];
      for (std::int64_t x = 0; x < s.out_w; ++x) {
        const std::int64_t xl = xs.lower[static_cast<std::size_t>(x)] * s.channels;
        const std::int64_t xu = xs.upper[static_cast<std::size_t>(x)] * s.channels;
        const float xf = xs.lerp[static_cast<std::size_t>(x)];
        for (std::int64_t c = 0; c < s.channels; ++c) {
          const float tl = quantizedToFloat<std::uint8_t>(lo[xl + c], min, max);
          const float tr = quantizedToFloat<std::uint8_t>(lo[xu + c], min, max);
          const float bl = quantizedToFloat<std::uint8_t>(hi[xl + c], min, max);
          const float br = quantizedToFloat<std::uint8_t>(hi[xu + c], min, max);
          const float top = tl + (tr - tl) * xf;
          const float bottom = bl + (br - bl) * xf;
          output[((b * s.out_h + y) * s.out_w + x) * s.channels + c] =
              floatToQuantized<std::uint8_t>(top + (bottom - top) * yl, min, max);
        }
      }
    }
}

}  // namespace gds::engine::quantized
