// The windows of a convolution as rows of a GEMM operand (im2col), shared by
// the 8-bit GraphDef convolutions (conv.cc, uint8) and TFLite's int8 layers
// (tflite/fast_layer.cc).
#pragma once

#include <cstdint>
#include <cstring>

#include "engine/ops/conv_geometry.h"

namespace gds::engine::lowp {

// Output rows [row_begin, row_end) of s (row = (b * out_h + y) * out_w + x)
// as rows of filter_h * filter_w * in_c values in (fy, fx, c) order, the
// filter's, from `out` on (row row_begin first); cells outside the input
// hold pad_value (the input's zero point, so they add nothing).
template <typename T>
void im2colRows(const ops::ConvGeometry& s, const T* input, T pad_value, std::int64_t row_begin, std::int64_t row_end,
                T* out) {
  const std::int64_t k = s.filter_h * s.filter_w * s.in_c;
  for (std::int64_t r = row_begin; r < row_end; ++r) {
    const std::int64_t b = r / (s.out_h * s.out_w), oy = (r / s.out_w) % s.out_h, ox = r % s.out_w;
    T* o = out + (r - row_begin) * k;
    const std::int64_t ix0 = ox * s.stride_w - s.pad_left;
    // A window row wholly inside the input and undilated is one contiguous
    // run (the first layers' 3 channels would otherwise copy 3 bytes a call).
    const bool whole_rows = s.dilation_w == 1 && ix0 >= 0 && ix0 + s.filter_w <= s.in_w;
    for (std::int64_t fy = 0; fy < s.filter_h; ++fy) {
      const std::int64_t iy = oy * s.stride_h - s.pad_top + fy * s.dilation_h;
      if (whole_rows && iy >= 0 && iy < s.in_h) {
        std::memcpy(o, input + ((b * s.in_h + iy) * s.in_w + ix0) * s.in_c,
                    static_cast<std::size_t>(s.filter_w * s.in_c) * sizeof(T));
        o += s.filter_w * s.in_c;
        continue;
      }
      for (std::int64_t fx = 0; fx < s.filter_w; ++fx, o += s.in_c) {
        const std::int64_t ix = ix0 + fx * s.dilation_w;
        if (iy < 0 || iy >= s.in_h || ix < 0 || ix >= s.in_w)
          std::memset(o, static_cast<unsigned char>(pad_value), static_cast<std::size_t>(s.in_c) * sizeof(T));
        else
          std::memcpy(o, input + ((b * s.in_h + iy) * s.in_w + ix) * s.in_c,
                      static_cast<std::size_t>(s.in_c) * sizeof(T));
      }
    }
  }
}

}  // namespace gds::engine::lowp
