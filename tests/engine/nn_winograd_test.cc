// Winograd F(4x4, 3x3) (engine/ops/winograd.h) against the reference
// convolution (double sums): partial tiles at the right and bottom edges,
// padding on one side only, VALID, several images, channel counts that are
// not whole vectors, bias, Relu/Relu6 and a residual, on one thread and on two (the same bits: tiles never share
// sums).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "engine/ops/conv.h"
#include "engine/ops/nn.h"
#include "engine/ops/winograd.h"
#include "engine/thread_pool.h"
#include "tests/test_util.h"

namespace gds::engine::ops {
namespace {

using test::uniformFloats;

struct Case {
  const char* name;
  std::int64_t batch, in_h, in_w, in_c, out_c, pad_top, pad_left, out_h, out_w;
  Activation activation;
  bool bias, residual;
};

// out_h/out_w follow from the pads: in + pad_top + pad_bottom - 2.
const Case kCases[] = {
    {"same 30x28x64->64, bias, relu", 1, 30, 28, 64, 64, 1, 1, 30, 28, Activation::kRelu, true, false},
    {"valid 13x17x8->16 (partial tiles)", 1, 13, 17, 8, 16, 0, 0, 11, 15, Activation::kNone, false, false},
    {"two images 9x10x16->32, relu6", 2, 9, 10, 16, 32, 1, 1, 9, 10, Activation::kRelu6, true, false},
    {"pads top/left only 7x6x24->48, residual", 1, 7, 6, 24, 48, 2, 0, 7, 4, Activation::kRelu, true, true},
    {"one output row 3x40x8->16", 1, 3, 40, 8, 16, 0, 1, 1, 40, Activation::kNone, true, false},
    {"channel tails 11x9x13->20, residual", 1, 11, 9, 13, 20, 1, 1, 11, 9, Activation::kRelu, true, true},
    {"three channels 6x7x3->5", 1, 6, 7, 3, 5, 1, 1, 6, 7, Activation::kNone, false, false},
    // Four tiles and 24 x 40 channels: two threads split the output channels.
    {"few tiles 7x6x24->40, residual", 1, 7, 6, 24, 40, 1, 1, 7, 6, Activation::kRelu, true, true},
};

TEST(WinogradF43, AgreesWithTheReferenceConvolution) {
  ConvGeometry probe;
  probe.in_h = probe.in_w = probe.out_h = probe.out_w = 8;
  probe.in_c = 8, probe.out_c = 16, probe.filter_h = probe.filter_w = 3;
  if (!WinogradF43::supports(probe, false)) GTEST_SKIP() << "needs a CPU with AVX2 and FMA";
  ThreadPool one(1), two(2);
  unsigned seed = 1;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    ConvGeometry s;
    s.batch = c.batch, s.in_h = c.in_h, s.in_w = c.in_w, s.in_c = c.in_c, s.out_c = c.out_c;
    s.filter_h = s.filter_w = 3, s.pad_top = c.pad_top, s.pad_left = c.pad_left;
    s.out_h = c.out_h, s.out_w = c.out_w;
    ASSERT_TRUE(WinogradF43::supports(s, false));
    const std::vector<float> input = uniformFloats(s.batch * s.in_h * s.in_w * s.in_c, seed++);
    const std::vector<float> filter = uniformFloats(9 * s.in_c * s.out_c, seed++);
    const std::vector<float> bias = uniformFloats(s.out_c, seed++);
    const std::int64_t rows = s.batch * s.out_h * s.out_w, n = rows * s.out_c;
    const std::vector<float> addend = uniformFloats(n, seed++);
    std::vector<float> expected(static_cast<size_t>(n));
    conv2dReference(s, input.data(), filter.data(), expected.data());
    biasActivation(expected.data(), rows, s.out_c, c.bias ? bias.data() : nullptr, c.activation,
                   nullptr, c.residual ? addend.data() : nullptr);
    auto conv = WinogradF43::create(s, filter.data(), c.bias ? bias.data() : nullptr, c.activation, c.residual);
    ASSERT_NE(conv, nullptr);
    EXPECT_EQ(conv->packedFilterSize(), 36 * ((s.in_c + 7) / 8 * 8) * ((s.out_c + 15) / 16 * 16));
    EXPECT_EQ(conv->packedFilterSize(), WinogradF43::transformedFilterSize(s));
    std::vector<float> got1 = c.residual ? addend : std::vector<float>(static_cast<size_t>(n), 1e30f);
    std::vector<float> got2 = got1;
    conv->run(input.data(), got1.data(), one);
    conv->run(input.data(), got2.data(), two);
    EXPECT_EQ(got1, got2) << "one thread and two differ";
    // Every output written, within F(4x4, 3x3)'s rounding: its transforms
    // scale by up to 8 and down to 1/24, which costs a few 1e-6 of the
    // largest output over the direct float sum (measured up to 5.9e-6 here,
    // on uniform random data).
    float max_ref = 0, max_err = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      max_ref = std::max(max_ref, std::fabs(expected[static_cast<size_t>(i)]));
      max_err = std::max(max_err, std::fabs(got1[static_cast<size_t>(i)] - expected[static_cast<size_t>(i)]));
    }
    EXPECT_GT(max_ref, 1.0f);
    EXPECT_LE(max_err, 1e-5f * max_ref) << "max error " << max_err << " of " << max_ref;
  }
}

TEST(WinogradF43, TakesOnly3x3Stride1) {
  ConvGeometry s;
  s.in_h = s.in_w = s.out_h = s.out_w = 16;
  s.in_c = 64, s.out_c = 64, s.filter_h = s.filter_w = 3, s.pad_top = s.pad_left = 1;
  if (!WinogradF43::supports(s, false)) GTEST_SKIP() << "needs a CPU with AVX2 and FMA";
  EXPECT_FALSE(WinogradF43::supports(s, true)) << "depthwise";
  ConvGeometry t = s;
  t.in_c = 60;
  t.out_c = 56;
  EXPECT_TRUE(WinogradF43::supports(t, false)) << "channels padded to the vector widths";
  EXPECT_EQ(WinogradF43::transformedFilterSize(t), 36 * 64 * 64);
  t = s;
  t.stride_w = 2;
  EXPECT_FALSE(WinogradF43::supports(t, false)) << "stride 2";
  t = s;
  t.dilation_h = 2;
  EXPECT_FALSE(WinogradF43::supports(t, false)) << "dilation 2";
  t = s;
  t.filter_h = t.filter_w = 5;
  EXPECT_FALSE(WinogradF43::supports(t, false)) << "5x5";
  EXPECT_EQ(WinogradF43::create(t, nullptr, nullptr, Activation::kNone, false), nullptr);
}

}  // namespace
}  // namespace gds::engine::ops
