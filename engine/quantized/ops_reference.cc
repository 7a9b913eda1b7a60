// The plain loops that specify the 8-bit ops of ops.h whose fast paths
// (ops.cc) compute the same bits differently; tests run both.
#include <cstdint>

#include "engine/quantized/ops.h"

namespace gds::engine::quantized {

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
