// TensorFlow's quantized number format (quantization_utils.h) and Dequantize:
// exact values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "engine/quantized/dequantize.h"
#include "engine/quantized/quantization.h"

namespace gds::engine::quantized {
namespace {

TEST(QuantMath, FloatToQuantizedMatchesTensorFlowValues) {
  EXPECT_EQ(0, floatToQuantized<std::uint8_t>(0.0f, 0.0f, 1.0f));
  EXPECT_EQ(0, floatToQuantized<std::uint8_t>(0.0f, 0.0f, 2.0f));
  EXPECT_EQ(128, floatToQuantized<std::uint8_t>(0.5f, 0.0f, 1.0f));
  EXPECT_EQ(128, floatToQuantized<std::uint8_t>(1.0f, 0.0f, 2.0f));
  EXPECT_EQ(255, floatToQuantized<std::uint8_t>(1.0f, 0.0f, 1.0f));
  EXPECT_EQ(255, floatToQuantized<std::uint8_t>(2.0f, 0.0f, 2.0f));
  EXPECT_EQ(0, floatToQuantized<std::uint8_t>(-128.0f, -128.0f, 127.0f));
  EXPECT_EQ(128, floatToQuantized<std::uint8_t>(0.0f, -128.0f, 127.0f));
  EXPECT_EQ(255, floatToQuantized<std::uint8_t>(127.0f, -128.0f, 127.0f));
  EXPECT_EQ(0, floatToQuantized<std::uint8_t>(1.0f, 1.0f, 256.0f));
  EXPECT_EQ(127, floatToQuantized<std::uint8_t>(128.0f, 1.0f, 256.0f));
  EXPECT_EQ(255, floatToQuantized<std::uint8_t>(256.0f, 1.0f, 256.0f));
  // Saturation.
  EXPECT_EQ(255, floatToQuantized<std::uint8_t>(7.0f, 0.0f, 1.0f));
  EXPECT_EQ(0, floatToQuantized<std::uint8_t>(-7.0f, 0.0f, 1.0f));
  EXPECT_EQ(std::numeric_limits<std::int32_t>::min(), floatToQuantized<std::int32_t>(-128.0f, -128.0f, 128.0f));
  EXPECT_EQ(0, floatToQuantized<std::int32_t>(0.0f, -128.0f, 128.0f));
  EXPECT_EQ(std::numeric_limits<std::int32_t>::max(), floatToQuantized<std::int32_t>(128.0f, -128.0f, 128.0f));
  EXPECT_EQ(-128, floatToQuantized<std::int8_t>(-1.0f, -1.0f, 1.0f));
  EXPECT_EQ(127, floatToQuantized<std::int8_t>(1.0f, -1.0f, 1.0f));
}

TEST(QuantMath, ZeroPointMayLeaveTheTypeRange) {
  // A range that does not contain zero: the unclamped zero point is negative.
  EXPECT_EQ(-255, floatToQuantizedUnclamped<std::uint8_t>(0.0f, 1.0f, 2.0f));
  EXPECT_EQ(0, floatToQuantizedUnclamped<std::uint8_t>(0.0f, 0.0f, 6.0f));
  EXPECT_EQ(128, floatToQuantizedUnclamped<std::uint8_t>(0.0f, -1.0f, 1.0f));
  // Empty range: the lowest value (TensorFlow's convention).
  EXPECT_EQ(0, floatToQuantizedUnclamped<std::uint8_t>(5.0f, 3.0f, 3.0f));
}

TEST(QuantMath, QuantizedToFloatRoundTripsWithinOneStep) {
  const float ranges[][2] = {{0.0f, 1.0f}, {-1.0f, 1.0f}, {-128.0f, 127.0f}, {-0.3f, 6.2f}, {1.0f, 256.0f}};
  for (const auto& r : ranges) {
    const float step = (r[1] - r[0]) / 255.0f;
    for (int q = 0; q < 256; ++q) {
      const float f = quantizedToFloat<std::uint8_t>(static_cast<std::uint8_t>(q), r[0], r[1]);
      EXPECT_NEAR(r[0] + q * step, f, step) << q;
      // TensorFlow's rounding of range_min can move a round trip by one level.
      EXPECT_LE(std::abs(q - floatToQuantized<std::uint8_t>(f, r[0], r[1])), 1) << q;
    }
  }
  EXPECT_EQ(3.0f, quantizedToFloat<std::uint8_t>(200, 3.0f, 3.0f));
  // For [-1, 1], range_min / scale = -127.49999 rounds to -127, so every
  // level comes back one higher: TensorFlow's own behaviour.
  EXPECT_EQ(1, floatToQuantized<std::uint8_t>(quantizedToFloat<std::uint8_t>(0, -1.0f, 1.0f), -1.0f, 1.0f));
  // The exact double-precision formula with TensorFlow's float-rounded minimum.
  EXPECT_FLOAT_EQ(0.0f, quantizedToFloat<std::uint8_t>(0, 0.0f, 1.0f));
  EXPECT_FLOAT_EQ(1.0f, quantizedToFloat<std::uint8_t>(255, 0.0f, 1.0f));
  EXPECT_FLOAT_EQ(-128.0f, quantizedToFloat<std::int32_t>(std::numeric_limits<std::int32_t>::min(), -128.0f, 128.0f));
}

TEST(QuantMath, RangeForMultiplication) {
  float min_c = 0, max_c = 0;
  quantizationRangeForMultiplication<std::uint8_t, std::uint8_t, std::int32_t>(0.0f, 255.0f, -1.0f, 1.0f, &min_c,
                                                                                &max_c);
  const float level = 1.0f * (2.0f / 255.0f);
  EXPECT_FLOAT_EQ(level * -2147483648.0f, min_c);
  EXPECT_FLOAT_EQ(level * 2147483647.0f, max_c);
  float bmin = 0, bmax = 0;
  outputRangeForQuantizedBiasAdd(-2.0f, 1.0f, -0.5f, 3.0f, &bmin, &bmax);
  EXPECT_EQ(3.0f * 131072.0f, bmax);
  EXPECT_EQ(-3.0f * 131072.0f, bmin);
}

TEST(QuantMath, EigenPathConstantsAreFloat) {
  // QUANTIZE_WITH_EIGEN(0.5, [0, 1]) -> round(127.5) = 128.
  QuantizeParams<std::uint8_t> q(0.0f, 1.0f);
  EXPECT_EQ(255.0f, q.range_scale);
  EXPECT_EQ(128, q.apply(0.5f));
  EXPECT_EQ(0, q.apply(-3.0f));
  EXPECT_EQ(255, q.apply(3.0f));
  QuantizeParams<std::uint8_t> q2(-1.0f, 1.0f);
  EXPECT_EQ(127.5f, q2.range_scale);
  EXPECT_EQ(-128.0f, q2.range_min_scaled);  // round(-127.5) away from zero
  EXPECT_EQ(128, q2.apply(0.0f));
  DequantizeParams<std::uint8_t> d(-1.0f, 1.0f);
  EXPECT_FLOAT_EQ(2.0f / 255.0f, d.range_scale);
  EXPECT_EQ(d.offset() + 128.0f * d.range_scale, d.apply(128));
  // qint32 bounds stay convertible to int32.
  QuantizeParams<std::int32_t> q32(-1.0f, 1.0f);
  EXPECT_EQ(2147483520, q32.apply(100.0f));
  EXPECT_EQ(std::numeric_limits<std::int32_t>::min(), q32.apply(-100.0f));
  // Requantizing quint8 values into a wide symmetric int32 range and back.
  EigenRequantizer<std::uint8_t, std::int32_t> up(0.0f, 1.0f, -131072.0f, 131072.0f);
  EXPECT_EQ(0, up(0));
}

TEST(QuantMath, FixedPointRequantizeMatchesFloatWithinOneLevel) {
  std::mt19937 rng(7);
  // Realistic uses: the int32 values lie around the output range (as after
  // RequantizationRange); far outside it the 64-bit product would wrap, in
  // TensorFlow as here.
  const float ranges[][4] = {{-1.0f, 1.0f, -1.0f, 1.0f},   {-1.0f, 1.0f, -255.0f, 255.0f},
                             {-1000.0f, 1000.0f, 0.0f, 6.0f}, {-3e6f, 3e6f, -2.5f, 7.25f},
                             {-0.001f, 0.001f, -1e-6f, 2e-6f}};
  for (const auto& r : ranges) {
    Requantize32To8 requant(r[0], r[1], r[2], r[3]);
    const float lo = r[2] - (r[3] - r[2]), hi = r[3] + (r[3] - r[2]);
    const std::int64_t qlo = std::max<std::int64_t>(floatToQuantizedUnclamped<std::int32_t>(lo, r[0], r[1]),
                                                    std::numeric_limits<std::int32_t>::min());
    const std::int64_t qhi = std::min<std::int64_t>(floatToQuantizedUnclamped<std::int32_t>(hi, r[0], r[1]),
                                                    std::numeric_limits<std::int32_t>::max());
    std::uniform_int_distribution<std::int64_t> dist(qlo, qhi);
    for (int i = 0; i < 2000; ++i) {
      const std::int32_t x = static_cast<std::int32_t>(dist(rng));
      const int expected = requantizeInNewRange<std::int32_t, std::uint8_t>(x, r[0], r[1], r[2], r[3]);
      EXPECT_LE(std::abs(expected - static_cast<int>(requant(x))), 1) << x;
    }
  }
}

TEST(QuantMath, FixedPointRequantizeExactValues) {
  // Input range symmetric [-R, R] with R = 2^31 levels of 1/2^24 each.
  const float in_max = 128.0f;
  Requantize32To8 requant(-in_max, in_max, 0.0f, 255.0f);
  // int32 zero is real 0 -> uint8 0 in [0, 255].
  EXPECT_EQ(0, requant(0));
  // 2^31 - 1 is real 128 -> 128 in [0, 255].
  EXPECT_EQ(128, requant(std::numeric_limits<std::int32_t>::max()));
  EXPECT_EQ(0, requant(std::numeric_limits<std::int32_t>::min()));
  // 1.5 real = 1.5 * 2^24 -> round half up -> 2.
  EXPECT_EQ(2, requant(static_cast<std::int32_t>(1.5 * (1 << 24))));
  std::int32_t in[4] = {0, static_cast<std::int32_t>(10 * (1 << 24)), static_cast<std::int32_t>(-5 * (1 << 24)),
                        std::numeric_limits<std::int32_t>::max()};
  std::uint8_t out[4];
  requant.apply(in, 4, out);
  EXPECT_EQ(0, out[0]);
  EXPECT_EQ(10, out[1]);
  EXPECT_EQ(0, out[2]);
  EXPECT_EQ(128, out[3]);
}

TEST(QuantMath, RequantizationRangeTakesTheUsedRangeAndKeepsZero) {
  const std::int32_t data[] = {1 << 24, 3 << 24, 2 << 24};
  float lo = 0, hi = 0;
  requantizationRange(data, 3, -128.0f, 128.0f, &lo, &hi);
  EXPECT_EQ(0.0f, lo);  // min(0, 1.0)
  EXPECT_NEAR(3.0f, hi, 1e-6);
  const std::int32_t neg[] = {-(2 << 24), 1 << 24};
  requantizationRange(neg, 2, -128.0f, 128.0f, &lo, &hi);
  EXPECT_NEAR(-2.0f, lo, 1e-6);
  EXPECT_NEAR(1.0f, hi, 1e-6);
  const std::int32_t all_negative[] = {-(2 << 24), -(1 << 24)};
  requantizationRange(all_negative, 2, -128.0f, 128.0f, &lo, &hi);
  EXPECT_NEAR(-2.0f, lo, 1e-6);
  EXPECT_EQ(0.0f, hi);
}

TEST(QuantMath, DequantizeModes) {
  const std::vector<std::uint8_t> q = {0, 128, 255};
  std::vector<float> out(3);
  float lo = 0, hi = 255;
  dequantize(q.data(), QuantizedType::kQUInt8, 1, 1, 3, QuantizeMode::kMinCombined, &lo, &hi, false, out.data());
  EXPECT_EQ(out, (std::vector<float>{0, 128, 255}));
  // MIN_FIRST, [-1, 1]: scale 2/255; min / float(scale) = -127.49999... so the
  // rounded min is -127 steps (TF converts the scale to float before rounding).
  lo = -1;
  hi = 1;
  dequantize(q.data(), QuantizedType::kQUInt8, 1, 1, 3, QuantizeMode::kMinFirst, &lo, &hi, false, out.data());
  const double s = 2.0 / 255;
  EXPECT_NEAR(out[0], -127 * s, 1e-6);
  EXPECT_NEAR(out[1], 1 * s, 1e-6);
  EXPECT_NEAR(out[2], 128 * s, 1e-6);
  // SCALED quint8: max / 255.
  hi = 2.55f;
  dequantize(q.data(), QuantizedType::kQUInt8, 1, 1, 3, QuantizeMode::kScaled, &lo, &hi, false, out.data());
  EXPECT_NEAR(out[1], 1.28, 1e-6);
  // qint8 MIN_COMBINED adds 128 first; SCALED with narrow_range uses -127.
  const std::vector<std::int8_t> s8 = {-128, 0, 127};
  lo = -1;
  hi = 1;
  dequantize(s8.data(), QuantizedType::kQInt8, 1, 1, 3, QuantizeMode::kMinCombined, &lo, &hi, false, out.data());
  EXPECT_FLOAT_EQ(out[0], -1);
  EXPECT_FLOAT_EQ(out[2], 1);
  lo = -2;
  dequantize(s8.data(), QuantizedType::kQInt8, 1, 1, 3, QuantizeMode::kScaled, &lo, &hi, true, out.data());
  EXPECT_FLOAT_EQ(out[2], 127 * (2.0f / 127));
  EXPECT_FLOAT_EQ(out[0], -128 * (2.0f / 127));
  // Per-axis SCALED: two slices along axis 0 of a [2, 2] tensor.
  const std::vector<std::int8_t> a = {127, -127, 127, -127};
  const float los[] = {-1, -2}, his[] = {1, 2};
  std::vector<float> ax(4);
  dequantize(a.data(), QuantizedType::kQInt8, 1, 2, 2, QuantizeMode::kScaled, los, his, true, ax.data());
  EXPECT_EQ(ax, (std::vector<float>{1, -1, 2, -2}));
}

// Large 8-bit tensors go through a table of the 256 levels: the same bits as
// the element-by-element formula of a small tensor, in every mode and for
// per-axis slices.
TEST(QuantMath, DequantizeOfLarge8BitTensorsEqualsTheSmallTensorPath) {
  std::vector<std::uint8_t> levels(256);
  for (int v = 0; v < 256; ++v) levels[static_cast<size_t>(v)] = static_cast<std::uint8_t>(v);
  std::vector<std::uint8_t> big(3 * 4096);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<std::uint8_t>((i * 37 + i / 7) % 256);
  const float los[] = {-0.731f, -3.0f, 0.0f}, his[] = {5.29f, 0.5f, 2.0f};
  for (QuantizeMode mode : {QuantizeMode::kMinCombined, QuantizeMode::kMinFirst, QuantizeMode::kScaled})
    for (QuantizedType type : {QuantizedType::kQUInt8, QuantizedType::kQInt8}) {
      const bool per_axis = mode != QuantizeMode::kMinFirst;
      const std::int64_t slices = per_axis ? 3 : 1;
      std::vector<float> got(big.size());
      dequantize(big.data(), type, 1, slices, static_cast<std::int64_t>(big.size()) / slices, mode, los, his, false,
                 got.data());
      for (std::int64_t s = 0; s < slices; ++s) {
        float table[256];
        dequantize(levels.data(), type, 1, 1, 256, mode, los + s, his + s, false, table);
        const std::int64_t post = static_cast<std::int64_t>(big.size()) / slices;
        for (std::int64_t i = 0; i < post; ++i)
          ASSERT_EQ(got[static_cast<size_t>(s * post + i)], table[big[static_cast<size_t>(s * post + i)]])
              << "mode " << static_cast<int>(mode) << " type " << static_cast<int>(type) << " element " << i;
      }
    }
}

}  // namespace
}  // namespace gds::engine::quantized
