// The plain loop that specifies the 8-bit depthwise accumulation of
// depthwise.h; depthwise.cc computes the same bits with vector loops.
#include <algorithm>
#include <cstdint>

#include "engine/lowp/depthwise.h"

namespace gds::engine::lowp {

void depthwiseRowsReference(const ops::ConvGeometry& s, const std::uint8_t* input, std::int32_t input_zero,
                            const std::int8_t* filter, std::int64_t row_begin, std::int64_t row_end,
                            std::int32_t* out) {
  const std::int64_t mult = s.out_c, out_c = s.in_c * mult;
  if (mult == 1) {
    // Tap by tap over the output row: the valid output columns of each tap
    // are computed once, so the channel loop runs without bounds checks.
    for (std::int64_t row = row_begin; row < row_end; ++row) {
      const std::int64_t n = row / s.out_h, oy = row % s.out_h;
      std::int32_t* o_row = out + row * s.out_w * out_c;
      std::fill(o_row, o_row + s.out_w * out_c, 0);
      for (std::int64_t fy = 0; fy < s.filter_h; ++fy) {
        const std::int64_t iy = oy * s.stride_h - s.pad_top + fy * s.dilation_h;
        if (iy < 0 || iy >= s.in_h) continue;
        const std::uint8_t* in_row = input + (n * s.in_h + iy) * s.in_w * s.in_c;
        for (std::int64_t fx = 0; fx < s.filter_w; ++fx) {
          const std::int64_t shift = fx * s.dilation_w - s.pad_left;  // ix = ox * stride + shift
          std::int64_t ox_begin = shift >= 0 ? 0 : (-shift + s.stride_w - 1) / s.stride_w;
          std::int64_t ox_end = s.in_w - 1 - shift < 0 ? 0 : (s.in_w - 1 - shift) / s.stride_w + 1;
          ox_end = std::min(ox_end, s.out_w);
          // __restrict: the uint8/int8 pointers would otherwise alias the
          // accumulators and keep the channel loop from vectorizing.
          const std::int8_t* __restrict w = filter + (fy * s.filter_w + fx) * out_c;
          for (std::int64_t ox = ox_begin; ox < ox_end; ++ox) {
            const std::uint8_t* __restrict x = in_row + (ox * s.stride_w + shift) * s.in_c;
            std::int32_t* __restrict o = o_row + ox * out_c;
            for (std::int64_t c = 0; c < out_c; ++c)
              o[c] += (static_cast<std::int32_t>(x[c]) - input_zero) * static_cast<std::int32_t>(w[c]);
          }
        }
      }
    }
    return;
  }
  for (std::int64_t row = row_begin; row < row_end; ++row) {
    const std::int64_t n = row / s.out_h, oy = row % s.out_h;
    for (std::int64_t ox = 0; ox < s.out_w; ++ox) {
      std::int32_t* o = out + (row * s.out_w + ox) * out_c;
      std::fill(o, o + out_c, 0);
      ops::forEachWindowTap(s, n, oy, ox, [&](std::int64_t fy, std::int64_t fx, std::int64_t pixel) {
        const std::uint8_t* x = input + pixel * s.in_c;
        const std::int8_t* w = filter + (fy * s.filter_w + fx) * out_c;
        for (std::int64_t c = 0; c < s.in_c; ++c) {
          const std::int32_t xv = static_cast<std::int32_t>(x[c]) - input_zero;
          for (std::int64_t m = 0; m < mult; ++m) o[c * mult + m] += xv * static_cast<std::int32_t>(w[c * mult + m]);
        }
      });
    }
  }
}

}  // namespace gds::engine::lowp
