// im2colRows (engine/lowp/im2col.h), shared by the 8-bit GraphDef
// convolutions and TFLite's int8 layers, against the definition written
// out cell by cell: padding on every side, strides, dilation, window rows
// wholly inside the input (copied as one run) and partly outside, few and
// many channels, and a row range starting inside the image.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "engine/lowp/im2col.h"

namespace gds::engine {
namespace {

template <typename T>
std::vector<T> im2colByCell(const ops::ConvGeometry& s, const std::vector<T>& input, T pad, std::int64_t r0,
                            std::int64_t r1) {
  std::vector<T> out;
  for (std::int64_t r = r0; r < r1; ++r) {
    const std::int64_t b = r / (s.out_h * s.out_w), oy = (r / s.out_w) % s.out_h, ox = r % s.out_w;
    for (std::int64_t fy = 0; fy < s.filter_h; ++fy)
      for (std::int64_t fx = 0; fx < s.filter_w; ++fx)
        for (std::int64_t c = 0; c < s.in_c; ++c) {
          const std::int64_t iy = oy * s.stride_h - s.pad_top + fy * s.dilation_h;
          const std::int64_t ix = ox * s.stride_w - s.pad_left + fx * s.dilation_w;
          const bool inside = iy >= 0 && iy < s.in_h && ix >= 0 && ix < s.in_w;
          out.push_back(inside ? input[static_cast<std::size_t>(((b * s.in_h + iy) * s.in_w + ix) * s.in_c + c)]
                               : pad);
        }
  }
  return out;
}

TEST(QuantIm2col, RowsEqualTheWindowsCellByCell) {
  struct Case {
    std::string name;
    std::int64_t h, w, c, k, stride, dil, pad;
  };
  const std::vector<Case> cases = {
      {"3x3 stride 2, 3 channels (a first layer)", 15, 13, 3, 3, 2, 1, 1},
      {"7x7 stride 2 padded 3, 3 channels", 20, 17, 3, 7, 2, 1, 3},
      {"3x3 dilated 2, padded 2", 9, 10, 5, 3, 1, 2, 2},
      {"3x3 valid, 64 channels", 6, 7, 64, 3, 1, 1, 0},
      {"5x5 wider than the input", 3, 4, 2, 5, 1, 1, 2},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::int64_t out_h = (c.h + 2 * c.pad - c.dil * (c.k - 1) - 1) / c.stride + 1;
    const std::int64_t out_w = (c.w + 2 * c.pad - c.dil * (c.k - 1) - 1) / c.stride + 1;
    // batch, input, filter, stride, dilation, padding, output (two images).
    const ops::ConvGeometry s{2, c.h, c.w, c.c, c.k, c.k, 1, c.stride, c.stride,
                              c.dil, c.dil, c.pad, c.pad, out_h, out_w};
    std::vector<std::uint8_t> input(static_cast<std::size_t>(s.batch * c.h * c.w * c.c));
    for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<std::uint8_t>(i * 7 + 1);
    std::vector<std::int8_t> signed_input(input.begin(), input.end());
    const std::int64_t rows = s.batch * s.out_h * s.out_w, k = c.k * c.k * c.c;
    // All rows, and a range starting mid-image.
    for (const auto& [r0, r1] : {std::pair<std::int64_t, std::int64_t>{0, rows}, {s.out_w + 1, rows - 2}}) {
      std::vector<std::uint8_t> got(static_cast<std::size_t>((r1 - r0) * k), 0xAB);
      lowp::im2colRows<std::uint8_t>(s, input.data(), 200, r0, r1, got.data());
      EXPECT_EQ(got, im2colByCell<std::uint8_t>(s, input, 200, r0, r1)) << "rows " << r0 << "-" << r1;
      std::vector<std::int8_t> got8(got.size(), 0x55);
      lowp::im2colRows<std::int8_t>(s, signed_input.data(), -7, r0, r1, got8.data());
      EXPECT_EQ(got8, im2colByCell<std::int8_t>(s, signed_input, -7, r0, r1)) << "int8, rows " << r0 << "-" << r1;
    }
  }
}

}  // namespace
}  // namespace gds::engine
