// Arm NN's CpuRef arithmetic (engine/lowp/armnn.h): the vector convolution
// (output channels side by side, each summed in Convolve's order) against
// the loop in Arm NN's own nesting, byte for byte, on the shapes its edges
// are in; and the decode / encode pair on ties.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "engine/lowp/armnn.h"

namespace gds::engine::lowp::armnn {
namespace {

std::vector<std::int8_t> randomInt8(std::size_t n, std::mt19937* rng) {
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<std::int8_t> v(n);
  for (auto& x : v) x = static_cast<std::int8_t>(d(*rng));
  return v;
}

TEST(LowpArmnn, EncodeRoundsTheFloatQuotientHalfAwayAndDecodeMultipliesOnce) {
  EXPECT_EQ(encode(2.5f, {1.0f, 0}), 3);
  EXPECT_EQ(encode(-2.5f, {1.0f, 0}), -3);
  EXPECT_EQ(encode(0.49999997f, {1.0f, 0}), 0);
  EXPECT_EQ(encode(1000.0f, {1.0f, 0}), 127);
  EXPECT_EQ(encode(-1000.0f, {1.0f, -5}), -128);
  const DecodeTable t = decodeTable({0.1f, 3});
  EXPECT_EQ(decode(t, 13), static_cast<float>(10) * 0.1f);
  EXPECT_EQ(decode(t, -128), static_cast<float>(-131) * 0.1f);
  // Decoding then encoding with the same quantization gives the code back.
  for (float scale : {0.0078125f, 0.0235f, 1.7f, 1e-5f})
    for (int q = -128; q <= 127; ++q) {
      const Quant p{scale, -7};
      EXPECT_EQ(encode(decode(decodeTable(p), static_cast<std::int8_t>(q)), p), q) << scale;
    }
}

TEST(LowpArmnn, ActivationTablesDecodeClampAndEncode) {
  const Quant q{0.05f, -20};
  const Int8Table relu6 = activationTable(Activation::kRelu6, q, q);
  EXPECT_EQ(relu6(-128), -20);  // below 0 -> the zero point
  EXPECT_EQ(relu6(127), 100);   // 147 * 0.05 = 7.35 -> 6 -> 120 steps from -20
  EXPECT_EQ(relu6(50), 50);
  const Int8Table leaky = activationTable(Activation::kLeakyRelu, q, q, 0.5f);
  EXPECT_EQ(leaky(-30), -25);  // -10 steps * 0.5 = -5 steps
  EXPECT_EQ(leaky(-21), -21);  // -1 step * 0.5 = -0.5 steps: away from zero, -1
}

struct ConvCase {
  std::string name;
  bool depthwise;
  std::int64_t h, w, in_c, out_c, k, stride, dil, pad;
  bool per_channel, bias;
};

TEST(LowpArmnn, VectorConvolutionMatchesArmnnLoopOrder) {
  std::mt19937 rng(11);
  const std::vector<ConvCase> cases = {
      {"3x3 stride 2, 3 -> 8", false, 9, 8, 3, 8, 3, 2, 1, 1, true, true},
      {"1x1, 16 -> 21", false, 5, 6, 16, 21, 1, 1, 1, 0, true, true},
      {"3x3 dilated, per tensor, no bias", false, 7, 7, 5, 9, 3, 1, 2, 2, false, false},
      // Four pixels at a time: 16-channel blocks, the last channels and
      // pixels alone, padding inside a tile.
      {"3x3 pad 1, 6 -> 37, 9 wide", false, 6, 9, 6, 37, 3, 1, 1, 1, true, true},
      {"1x1, 32 -> 48, per tensor, no bias", false, 3, 8, 32, 48, 1, 1, 1, 0, false, false},
      {"3x3 stride 2 pad 1, 8 -> 16", false, 11, 11, 8, 16, 3, 2, 1, 1, true, true},
      {"3x3 pad 1, 4 -> 70 (32-channel blocks, then 16, then 6)", false, 5, 10, 4, 70, 3, 1, 1, 1, true, true},
      {"depthwise 3x3, 19 channels", true, 8, 7, 19, 1, 3, 1, 1, 1, true, true},
      {"depthwise 3x3 stride 2, 16 channels", true, 9, 9, 16, 1, 3, 2, 1, 1, true, true},
      {"depthwise multiplier 2", true, 6, 5, 5, 2, 3, 1, 1, 1, true, true},
  };
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(c.name);
    ops::ConvGeometry s;
    s.batch = 2;
    s.in_h = c.h;
    s.in_w = c.w;
    s.in_c = c.in_c;
    s.out_c = c.out_c;
    s.filter_h = s.filter_w = c.k;
    s.stride_h = s.stride_w = c.stride;
    s.dilation_h = s.dilation_w = c.dil;
    s.pad_top = s.pad_left = c.pad;
    const std::int64_t span = (c.k - 1) * c.dil + 1;
    s.out_h = (c.h + 2 * c.pad - span) / c.stride + 1;
    s.out_w = (c.w + 2 * c.pad - span) / c.stride + 1;
    const std::int64_t channels = s.outputChannels(c.depthwise);
    const auto input = randomInt8(static_cast<std::size_t>(s.batch * c.h * c.w * c.in_c), &rng);
    const auto filter =
        randomInt8(static_cast<std::size_t>(c.k * c.k * channels * (c.depthwise ? 1 : c.in_c)), &rng);
    std::vector<std::int32_t> bias(static_cast<std::size_t>(channels));
    for (auto& b : bias) b = static_cast<std::int32_t>(rng() % 40001) - 20000;
    std::uniform_real_distribution<float> sd(0.001f, 0.02f);
    std::vector<float> scales(c.per_channel ? static_cast<std::size_t>(channels) : 1);
    for (auto& x : scales) x = sd(rng);
    std::vector<float> bias_scales(scales.size());
    for (std::size_t i = 0; i < scales.size(); ++i) bias_scales[i] = 0.05f * scales[i];
    const Conv conv(s, c.depthwise, filter.data(), scales, c.bias ? bias.data() : nullptr, bias_scales, {0.05f, -3},
                    {0.02f, 4});
    const auto n = static_cast<std::size_t>(s.batch * s.out_h * s.out_w * channels);
    std::vector<std::int8_t> expected(n), got(n, 0x55);
    conv.runReference(input.data(), expected.data());
    const std::int64_t rows = s.batch * s.out_h;
    conv.run(input.data(), 0, rows / 3, got.data());
    conv.run(input.data(), rows / 3, rows, got.data());
    EXPECT_EQ(expected, got);
  }
}

// FullyConnected's lanes against its own formula per unit.
TEST(LowpArmnn, FullyConnectedSumsEachUnitInOrder) {
  std::mt19937 rng(12);
  const std::int64_t batch = 2, depth = 37, units = 19;
  const auto input = randomInt8(static_cast<std::size_t>(batch * depth), &rng);
  const auto weights = randomInt8(static_cast<std::size_t>(depth * units), &rng);
  std::vector<std::int32_t> bias(static_cast<std::size_t>(units));
  for (auto& b : bias) b = static_cast<std::int32_t>(rng() % 4001) - 2000;
  const Quant in{0.03f, 5}, out{0.2f, -10};
  const FullyConnected fc(depth, units, weights.data(), {0.004f}, 0, bias.data(), {0.00012f}, in, out);
  std::vector<std::int8_t> got(static_cast<std::size_t>(batch * units));
  fc.run(input.data(), batch, got.data());
  const DecodeTable t = decodeTable(in);
  for (std::int64_t b = 0; b < batch; ++b)
    for (std::int64_t u = 0; u < units; ++u) {
      float v = 0.0f;
      for (std::int64_t k = 0; k < depth; ++k)
        v += armnnDequantize(weights[static_cast<std::size_t>(u * depth + k)], 0.004f, 0) *
             decode(t, input[static_cast<std::size_t>(b * depth + k)]);
      v += static_cast<float>(bias[static_cast<std::size_t>(u)]) * 0.00012f;
      EXPECT_EQ(got[static_cast<std::size_t>(b * units + u)], encode(v, out)) << b << " " << u;
    }
}

}  // namespace
}  // namespace gds::engine::lowp::armnn
