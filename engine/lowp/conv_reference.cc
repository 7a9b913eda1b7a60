// The plain loop that specifies the 8-bit convolution of conv.h; tests run
// conv2D on every backend against it.
#include <cstdint>

#include "engine/lowp/conv.h"

namespace gds::engine::lowp {

void conv2DReference(const ops::ConvGeometry& s, const std::uint8_t* input, std::int32_t input_zero,
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

}  // namespace gds::engine::lowp
