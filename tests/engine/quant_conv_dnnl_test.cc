// oneDNN's int8 direct convolution (engine/lowp/conv_dnnl.h) gives the
// reference loop's int32 accumulators bit for bit: TensorFlow's uint8
// weights with any zero point (the window-sum correction), symmetric int8
// weights, depthwise, padding, strides, dilations, bands of rows, groups of
// images and slices of channels on two threads; its epilogue sees every row
// once; and lowp::conv2D takes it on the dnnl backend for constant
// weights only.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <random>
#include <vector>

#include "engine/lowp/conv.h"
#include "engine/lowp/conv_dnnl.h"
#include "engine/thread_pool.h"

namespace gds::engine::lowp {
namespace {

std::vector<std::uint8_t> randomBytes(std::size_t count, std::mt19937& rng) {
  std::uniform_int_distribution<int> dist(0, 255);
  std::vector<std::uint8_t> v(count);
  for (auto& x : v) x = static_cast<std::uint8_t>(dist(rng));
  return v;
}

ops::ConvGeometry shape(std::int64_t batch, std::int64_t in_h, std::int64_t in_w, std::int64_t in_c, std::int64_t k,
                       std::int64_t out_c, std::int64_t stride, std::int64_t dilation, bool same) {
  ops::ConvGeometry s;
  s.batch = batch, s.in_h = in_h, s.in_w = in_w, s.in_c = in_c;
  s.filter_h = s.filter_w = k, s.out_c = out_c;
  s.stride_h = s.stride_w = stride, s.dilation_h = s.dilation_w = dilation;
  const std::int64_t eff = (k - 1) * dilation + 1;
  if (same) {
    s.out_h = (in_h + stride - 1) / stride, s.out_w = (in_w + stride - 1) / stride;
    s.pad_top = std::max<std::int64_t>(0, ((s.out_h - 1) * stride + eff - in_h) / 2);
    s.pad_left = std::max<std::int64_t>(0, ((s.out_w - 1) * stride + eff - in_w) / 2);
  } else {
    s.out_h = (in_h - eff) / stride + 1, s.out_w = (in_w - eff) / stride + 1;
  }
  return s;
}

// Depthwise reference: out[p][c * m + j] = sum (x - zero) * w over the window.
std::vector<std::int32_t> depthwiseReference(const ops::ConvGeometry& s, const std::uint8_t* x, std::int32_t zero,
                                             const std::int8_t* w) {
  const std::int64_t channels = s.in_c * s.out_c;
  std::vector<std::int32_t> out(static_cast<std::size_t>(s.batch * s.out_h * s.out_w * channels), 0);
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t oy = 0; oy < s.out_h; ++oy)
      for (std::int64_t ox = 0; ox < s.out_w; ++ox)
        for (std::int64_t fy = 0; fy < s.filter_h; ++fy)
          for (std::int64_t fx = 0; fx < s.filter_w; ++fx) {
            const std::int64_t iy = oy * s.stride_h - s.pad_top + fy * s.dilation_h;
            const std::int64_t ix = ox * s.stride_w - s.pad_left + fx * s.dilation_w;
            if (iy < 0 || iy >= s.in_h || ix < 0 || ix >= s.in_w) continue;
            for (std::int64_t c = 0; c < channels; ++c) {
              const std::int32_t xv =
                  static_cast<std::int32_t>(x[((b * s.in_h + iy) * s.in_w + ix) * s.in_c + c / s.out_c]) - zero;
              out[static_cast<std::size_t>(((b * s.out_h + oy) * s.out_w + ox) * channels + c)] +=
                  xv * w[(fy * s.filter_w + fx) * channels + c];
            }
          }
  return out;
}

struct Case {
  ops::ConvGeometry s;
  std::int32_t input_zero, weight_zero;  // weight_zero: of the uint8 weights (128: symmetric int8)
};

TEST(QuantConvDnnl, AccumulatorsEqualTheReferenceLoop) {
  if (!dnnlAvailable()) GTEST_SKIP() << "no oneDNN VNNI kernels on this machine";
  std::mt19937 rng(11);
  const Case cases[] = {
      {shape(1, 17, 15, 32, 3, 48, 1, 1, true), 131, 128},   // symmetric weights, SAME
      {shape(1, 17, 15, 32, 3, 48, 1, 1, true), 131, 77},    // TensorFlow's uint8 weights
      {shape(1, 20, 19, 16, 3, 32, 2, 1, true), 0, 200},     // stride 2, asymmetric padding
      {shape(1, 20, 19, 16, 3, 32, 1, 2, true), 255, 128},   // dilation 2
      {shape(1, 23, 23, 3, 7, 64, 2, 1, false), 117, 140},   // ResNet's stem, VALID
      {shape(2, 9, 10, 64, 1, 96, 1, 1, false), 93, 128},    // 1x1, two images: zero point subtracted after
      {shape(1, 14, 13, 256, 1, 128, 2, 1, true), 201, 90},  // 1x1 stride 2, uint8 weights
      {shape(1, 6, 5, 256, 3, 128, 1, 1, true), 129, 64},    // filter larger than the input
      {shape(1, 58, 58, 64, 3, 256, 1, 1, true), 140, 128},  // several bands of rows
  };
  for (int threads : {1, 2}) {
    ThreadPool pool(threads);
    for (const Case& c : cases) {
      const ops::ConvGeometry& s = c.s;
      SCOPED_TRACE(std::to_string(s.batch) + "x" + std::to_string(s.in_h) + "x" + std::to_string(s.in_w) + "x" +
                   std::to_string(s.in_c) + " k" + std::to_string(s.filter_h) + " -> " + std::to_string(s.out_c) +
                   " stride " + std::to_string(s.stride_h) + " dilation " + std::to_string(s.dilation_h) +
                   " zeros " + std::to_string(c.input_zero) + "/" + std::to_string(c.weight_zero) + " threads " +
                   std::to_string(threads));
      const std::vector<std::uint8_t> x = randomBytes(static_cast<std::size_t>(s.batch * s.in_h * s.in_w * s.in_c), rng);
      const std::vector<std::uint8_t> w = randomBytes(static_cast<std::size_t>(s.filter_h * s.filter_w * s.in_c * s.out_c), rng);
      const std::int64_t rows = s.batch * s.out_h * s.out_w;
      std::vector<std::int32_t> expected(static_cast<std::size_t>(rows * s.out_c));
      conv2DReference(s, x.data(), c.input_zero, w.data(), c.weight_zero, expected.data());
      GemmRhs rhs(w.data(), s.filter_h * s.filter_w * s.in_c, s.out_c, s.out_c, false, c.weight_zero);
      auto conv = DnnlConv2D::create(s, rhs, threads);
      ASSERT_NE(conv, nullptr);
      EXPECT_TRUE(conv->implementation().find("vnni") != std::string::npos ||
                  conv->implementation().find("amx") != std::string::npos)
          << conv->implementation();
      std::vector<std::int32_t> got(expected.size(), 7);
      std::vector<std::atomic<int>> seen(static_cast<std::size_t>(rows));
      conv->run(x.data(), c.input_zero, got.data(), &pool, [&](std::int64_t r0, std::int64_t r1) {
        for (std::int64_t r = r0; r < r1; ++r) {
          // Every channel of the row is final when the epilogue sees it.
          for (std::int64_t k = 0; k < s.out_c; ++k)
            ASSERT_EQ(got[static_cast<std::size_t>(r * s.out_c + k)], expected[static_cast<std::size_t>(r * s.out_c + k)]);
          seen[static_cast<std::size_t>(r)].fetch_add(1);
        }
      });
      ASSERT_EQ(expected, got);
      for (std::int64_t r = 0; r < rows; ++r) ASSERT_EQ(seen[static_cast<std::size_t>(r)].load(), 1) << "row " << r;
    }
  }
}

TEST(QuantConvDnnl, ManyBandsAndChannelSlicesAreUsed) {
  if (!dnnlAvailable()) GTEST_SKIP() << "no oneDNN VNNI kernels on this machine";
  std::vector<std::uint8_t> w(3 * 3 * 64 * 256, 130);
  GemmRhs big(w.data(), 3 * 3 * 64, 256, 256, false, 128);
  // 58x58x256 int32 accumulators: several cache-sized bands on one thread.
  auto banded = DnnlConv2D::create(shape(1, 58, 58, 64, 3, 256, 1, 1, true), big, 1);
  ASSERT_NE(banded, nullptr);
  EXPECT_GT(banded->parts(), 1);
  // The filter (147 KB) outweighs a 9x9x64 input: two slices of channels.
  auto sliced = DnnlConv2D::create(shape(1, 9, 9, 64, 3, 256, 1, 1, true), big, 2);
  ASSERT_NE(sliced, nullptr);
  EXPECT_EQ(sliced->parts(), 2);
}

TEST(QuantConvDnnl, DepthwiseEqualsTheReference) {
  if (!dnnlAvailable()) GTEST_SKIP() << "no oneDNN VNNI kernels on this machine";
  std::mt19937 rng(5);
  const ops::ConvGeometry shapes[] = {shape(1, 30, 29, 64, 3, 1, 1, 1, true), shape(1, 31, 30, 32, 3, 1, 2, 1, true),
                                     shape(2, 12, 11, 48, 3, 1, 1, 2, true), shape(1, 9, 9, 16, 5, 2, 1, 1, false)};
  for (int threads : {1, 2}) {
    ThreadPool pool(threads);
    for (const ops::ConvGeometry& s : shapes) {
      SCOPED_TRACE(std::to_string(s.in_h) + "x" + std::to_string(s.in_w) + "x" + std::to_string(s.in_c) + " m" +
                   std::to_string(s.out_c) + " threads " + std::to_string(threads));
      const std::vector<std::uint8_t> x = randomBytes(static_cast<std::size_t>(s.batch * s.in_h * s.in_w * s.in_c), rng);
      std::vector<std::int8_t> w(static_cast<std::size_t>(s.filter_h * s.filter_w * s.in_c * s.out_c));
      for (auto& v : w) v = static_cast<std::int8_t>(static_cast<int>(rng() % 256) - 128);
      const std::vector<std::int32_t> expected = depthwiseReference(s, x.data(), 121, w.data());
      auto conv = DnnlConv2D::create(s, w.data(), 0, true, threads);
      // oneDNN 2.6 has no VNNI int8 kernel for channel multipliers above 1
      // (the layer then keeps its own loops); one that does must be exact.
      if (s.out_c > 1 && !conv) continue;
      ASSERT_NE(conv, nullptr);
      std::vector<std::int32_t> got(expected.size(), 7);
      conv->run(x.data(), 121, got.data(), &pool, nullptr);
      ASSERT_EQ(expected, got);
    }
  }
  // Depthwise weights with a zero point are not taken.
  std::vector<std::int8_t> w(9 * 8, 1);
  EXPECT_EQ(DnnlConv2D::create(shape(1, 8, 8, 8, 3, 1, 1, 1, true), w.data(), 3, true, 1), nullptr);
}

// conv2D on the dnnl backend: oneDNN's convolution once the kernel says the
// weights are constant, the same bits as the GEMM path either way, and a
// new one when the shape changes.
TEST(QuantConvDnnl, Conv2DTakesItForConstantWeights) {
  if (!dnnlAvailable()) GTEST_SKIP() << "no oneDNN VNNI kernels on this machine";
  std::mt19937 rng(9);
  std::vector<std::uint8_t> w = randomBytes(3 * 3 * 16 * 24, rng);
  GemmRhs rhs(w.data(), 3 * 3 * 16, 24, 24, false, 99);
  for (std::int64_t h : {12, 15}) {
    const ops::ConvGeometry s = shape(1, h, 13, 16, 3, 24, 1, 1, true);
    const std::vector<std::uint8_t> x = randomBytes(static_cast<std::size_t>(h * 13 * 16), rng);
    std::vector<std::int32_t> expected(static_cast<std::size_t>(s.out_h * s.out_w * 24));
    conv2DReference(s, x.data(), 140, w.data(), 99, expected.data());
    for (bool constant : {false, true}) {
      Conv2DState state;
      state.weights_constant = constant;
      std::vector<std::int32_t> got(expected.size());
      conv2D(GemmBackend::kDnnl, s, x.data(), 140, rhs, got.data(), nullptr, &state);
      EXPECT_EQ(expected, got);
      EXPECT_EQ(state.dnnl() != nullptr, constant);
      EXPECT_EQ(state.patches.empty(), constant) << "im2col only on the GEMM path";
    }
  }
}

}  // namespace
}  // namespace gds::engine::lowp
