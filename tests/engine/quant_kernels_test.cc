// Quantized kernels: exact TensorFlow values on small cases, and the
// optimized paths (LUTs, im2col + GEMM, each backend) against the plain
// reference loops on random data.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "engine/kernel_choice.h"
#include "engine/lowp/gemm.h"
#include "engine/quantized/ops.h"
#include "engine/quantized/quantization.h"
#include "tests/engine/quant_test_util.h"

namespace gds::engine {
namespace {

using qtest::makeTensor;
using qtest::OpGraph;
using qtest::scalarF;
using qtest::scalarOf;
using qtest::values;
constexpr DataType kQU8 = tensorflow::DT_QUINT8;
constexpr DataType kQI8 = tensorflow::DT_QINT8;
constexpr DataType kQI32 = tensorflow::DT_QINT32;
constexpr DataType kF = tensorflow::DT_FLOAT;

std::vector<std::uint8_t> randomU8(std::size_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int> d(0, 255);
  std::vector<std::uint8_t> v(n);
  for (auto& x : v) x = static_cast<std::uint8_t>(d(rng));
  return v;
}

// ---------------------------------------------------------- QuantizeV2
std::vector<Tensor> quantize(const std::vector<float>& x, float lo, float hi, DataType t, const std::string& mode,
                             const std::string& round_mode = "") {
  OpGraph g;
  auto* n = g.op("QuantizeV2", {g.feed(makeTensor<float>(kF, {static_cast<std::int64_t>(x.size())}, x)),
                                g.feed(scalarF(lo)), g.feed(scalarF(hi))});
  OpGraph::setType(n, "T", t);
  OpGraph::setString(n, "mode", mode);
  if (!round_mode.empty()) OpGraph::setString(n, "round_mode", round_mode);
  auto out = g.run(3);
  EXPECT_TRUE(out.ok()) << out.error();
  return out.ok() ? *out : std::vector<Tensor>{};
}

TEST(QuantKernels, QuantizeV2MinFirst) {
  auto out = quantize({0.0f, 0.5f, 1.0f, 2.0f, -1.0f}, 0.0f, 1.0f, kQU8, "MIN_FIRST");
  EXPECT_EQ((std::vector<std::uint8_t>{0, 128, 255, 255, 0}), values<std::uint8_t>(out[0]));
  EXPECT_EQ(0.0f, scalarOf(out[1]));
  EXPECT_EQ(1.0f, scalarOf(out[2]));
  // The range is widened to contain zero and nudged apart when too small.
  auto widened = quantize({1.0f}, 1.0f, 1.0f, kQU8, "MIN_FIRST");
  EXPECT_EQ(0.0f, scalarOf(widened[1]));
  EXPECT_EQ(1.0f, scalarOf(widened[2]));
  auto nudged = quantize({0.0f}, 0.0f, 0.0f, kQU8, "MIN_FIRST");
  EXPECT_EQ(0.01f, scalarOf(nudged[2]));
}

TEST(QuantKernels, QuantizeV2MinCombined) {
  auto u8 = quantize({-1.0f, 0.0f, 1.0f}, -1.0f, 1.0f, kQU8, "MIN_COMBINED");
  EXPECT_EQ((std::vector<std::uint8_t>{0, 128, 255}), values<std::uint8_t>(u8[0]));
  // Signed: (x - min) * 127.5 - 128, rounded half away from zero.
  auto s8 = quantize({-1.0f, 0.0f, 1.0f}, -1.0f, 1.0f, kQI8, "MIN_COMBINED");
  EXPECT_EQ((std::vector<std::int8_t>{-128, -1, 127}), values<std::int8_t>(s8[0]));
}

TEST(QuantKernels, QuantizeV2Scaled) {
  // qint8, range [-1, 2]: scale = min(-128 / -1, 127 / 2) = 63.5.
  auto out = quantize({1.0f, 0.5f, -3.0f, 3.0f}, -1.0f, 2.0f, kQI8, "SCALED");
  EXPECT_EQ((std::vector<std::int8_t>{64, 32, -128, 127}), values<std::int8_t>(out[0]));
  EXPECT_FLOAT_EQ(-128.0f / 63.5f, scalarOf(out[1]));
  EXPECT_FLOAT_EQ(2.0f, scalarOf(out[2]));
  // 0.5 / (127 / 127) * ... : HALF_TO_EVEN rounds 2.5 to 2, HALF_AWAY_FROM_ZERO to 3.
  auto even = quantize({2.5f / 127.0f * 1.0f}, -1.0f, 1.0f, kQI8, "SCALED", "HALF_TO_EVEN");
  auto away = quantize({2.5f / 127.0f * 1.0f}, -1.0f, 1.0f, kQI8, "SCALED", "HALF_AWAY_FROM_ZERO");
  EXPECT_EQ(2, values<std::int8_t>(even[0])[0]);
  EXPECT_EQ(3, values<std::int8_t>(away[0])[0]);
}

TEST(QuantKernels, QuantizeV2Errors) {
  OpGraph g;
  auto* n = g.op("QuantizeV2", {g.feed(makeTensor<float>(kF, {1}, {0.0f})), g.feed(scalarF(1.0f)), g.feed(scalarF(0.0f))});
  OpGraph::setType(n, "T", kQU8);
  OpGraph::setString(n, "mode", "MIN_FIRST");
  auto out = g.run(3);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(std::string::npos, out.error().find("input_max_range must be larger than input_min_range.")) << out.error();
  OpGraph g2;
  auto* n2 = g2.op("QuantizeV2", {g2.feed(makeTensor<float>(kF, {1}, {0.0f})), g2.feed(scalarF(0.0f)), g2.feed(scalarF(1.0f))});
  OpGraph::setType(n2, "T", kQU8);
  OpGraph::setString(n2, "mode", "MIN_FIRST");
  OpGraph::setString(n2, "round_mode", "HALF_TO_EVEN");
  auto out2 = g2.run(3);
  ASSERT_FALSE(out2.ok());
  EXPECT_NE(std::string::npos, out2.error().find("Round mode 'HALF_TO_EVEN' only supported for mode 'SCALED', but mode is 'MIN_FIRST'.")) << out2.error();
}

// -------------------------------------------------------------- Conv2D
struct ConvCase {
  std::int64_t batch, h, w, c, fh, fw, oc, stride;
  const char* padding;
};

std::vector<Tensor> runConv(const ConvCase& cc, const std::vector<std::uint8_t>& in, const std::vector<std::uint8_t>& f,
                            float in_min, float in_max, float f_min, float f_max, bool reference, int threads = 1) {
  OpGraph g;
  auto* n = g.op("QuantizedConv2D",
                 {g.feed(makeTensor<std::uint8_t>(kQU8, {cc.batch, cc.h, cc.w, cc.c}, in)),
                  g.feed(makeTensor<std::uint8_t>(kQU8, {cc.fh, cc.fw, cc.c, cc.oc}, f)), g.feed(scalarF(in_min)),
                  g.feed(scalarF(in_max)), g.feed(scalarF(f_min)), g.feed(scalarF(f_max))});
  OpGraph::setType(n, "Tinput", kQU8);
  OpGraph::setType(n, "Tfilter", kQU8);
  OpGraph::setType(n, "out_type", kQI32);
  OpGraph::setInts(n, "strides", {1, cc.stride, cc.stride, 1});
  OpGraph::setString(n, "padding", cc.padding);
  auto out = g.run(3, reference, threads);
  EXPECT_TRUE(out.ok()) << out.error();
  return out.ok() ? *out : std::vector<Tensor>{};
}

TEST(QuantKernels, Conv2DMatchesReferenceForEveryBackend) {
  std::mt19937 rng(5);
  const ConvCase cases[] = {{1, 5, 5, 3, 3, 3, 4, 1, "SAME"},  {2, 7, 6, 8, 3, 3, 5, 2, "SAME"},
                            {1, 9, 9, 4, 3, 3, 6, 2, "VALID"}, {1, 6, 6, 16, 1, 1, 8, 1, "VALID"},
                            {1, 8, 8, 3, 7, 7, 2, 2, "SAME"},  {1, 11, 11, 2, 1, 1, 3, 4, "VALID"}};
  std::vector<lowp::GemmBackend> backends = {lowp::GemmBackend::kGemmlowp};
  if (lowp::avx2GemmAvailable()) backends.push_back(lowp::GemmBackend::kAvx2);
  if (lowp::dnnlAvailable()) backends.push_back(lowp::GemmBackend::kDnnl);
  for (const ConvCase& cc : cases) {
    auto in = randomU8(static_cast<std::size_t>(cc.batch * cc.h * cc.w * cc.c), rng);
    auto f = randomU8(static_cast<std::size_t>(cc.fh * cc.fw * cc.c * cc.oc), rng);
    auto ref = runConv(cc, in, f, -1.0f, 3.0f, -0.5f, 0.25f, true);
    ASSERT_EQ(3u, ref.size());
    for (auto backend : backends) {
      ScopedKernelChoice choice(backend);
      for (int threads : {1, 2}) {
        auto got = runConv(cc, in, f, -1.0f, 3.0f, -0.5f, 0.25f, false, threads);
        ASSERT_EQ(3u, got.size());
        EXPECT_EQ(ref[0].shape(), got[0].shape());
        EXPECT_EQ(values<std::int32_t>(ref[0]), values<std::int32_t>(got[0]))
            << lowp::gemmBackendName(backend) << " threads=" << threads << " padding=" << cc.padding;
      }
    }
    float lo, hi;
    quantized::quantizationRangeForMultiplication<std::uint8_t, std::uint8_t, std::int32_t>(-1.0f, 3.0f, -0.5f, 0.25f,
                                                                                           &lo, &hi);
    EXPECT_EQ(lo, scalarOf(ref[1]));
    EXPECT_EQ(hi, scalarOf(ref[2]));
  }
}

TEST(QuantKernels, Conv2DApproximatesFloatConvolution) {
  // 1x1 input channel, 3x3 ones filter on a 3x3 image, SAME padding: the
  // centre output is the sum of all nine inputs.
  const float in_min = 0.0f, in_max = 8.0f, f_min = 0.0f, f_max = 1.0f;
  std::vector<float> image = {1, 2, 3, 4, 5, 6, 7, 8, 0};
  std::vector<std::uint8_t> qin, qf(9, quantized::floatToQuantized<std::uint8_t>(1.0f, f_min, f_max));
  for (float v : image) qin.push_back(quantized::floatToQuantized<std::uint8_t>(v, in_min, in_max));
  auto out = runConv({1, 3, 3, 1, 3, 3, 1, 1, "SAME"}, qin, qf, in_min, in_max, f_min, f_max, false);
  ASSERT_EQ(3u, out.size());
  const float centre = quantized::quantizedToFloat<std::int32_t>(values<std::int32_t>(out[0])[4], scalarOf(out[1]),
                                                                  scalarOf(out[2]));
  EXPECT_NEAR(36.0f, centre, 0.2f);
  const float corner = quantized::quantizedToFloat<std::int32_t>(values<std::int32_t>(out[0])[0], scalarOf(out[1]),
                                                                  scalarOf(out[2]));
  EXPECT_NEAR(1 + 2 + 4 + 5, corner, 0.1f);
}

// -------------------------------------------------------------- MatMul
TEST(QuantKernels, MatMulTransposesMatchReference) {
  std::mt19937 rng(9);
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      const std::int64_t m = 5, k = 37, n = 11;
      auto a = randomU8(static_cast<std::size_t>(m * k), rng);
      auto b = randomU8(static_cast<std::size_t>(k * n), rng);
      auto run = [&](bool reference) {
        OpGraph g;
        auto* node = g.op("QuantizedMatMul",
                          {g.feed(makeTensor<std::uint8_t>(kQU8, ta ? Shape{k, m} : Shape{m, k}, a)),
                           g.feed(makeTensor<std::uint8_t>(kQU8, tb ? Shape{n, k} : Shape{k, n}, b)),
                           g.feed(scalarF(-2.0f)), g.feed(scalarF(2.0f)), g.feed(scalarF(-1.0f)), g.feed(scalarF(0.5f))});
        OpGraph::setBool(node, "transpose_a", ta);
        OpGraph::setBool(node, "transpose_b", tb);
        auto out = g.run(3, reference);
        EXPECT_TRUE(out.ok()) << out.error();
        return values<std::int32_t>((*out)[0]);
      };
      auto ref = run(true);
      EXPECT_EQ(static_cast<std::size_t>(m * n), ref.size());
      EXPECT_EQ(ref, run(false)) << "transpose_a=" << ta << " transpose_b=" << tb;
      // Spot check one element by hand.
      const std::int32_t za = quantized::floatToQuantizedUnclamped<std::uint8_t>(0.0f, -2.0f, 2.0f);
      const std::int32_t zb = quantized::floatToQuantizedUnclamped<std::uint8_t>(0.0f, -1.0f, 0.5f);
      std::int64_t expect = 0;
      for (std::int64_t p = 0; p < k; ++p) {
        const int av = ta ? a[static_cast<std::size_t>(p * m + 2)] : a[static_cast<std::size_t>(2 * k + p)];
        const int bv = tb ? b[static_cast<std::size_t>(3 * k + p)] : b[static_cast<std::size_t>(p * n + 3)];
        expect += static_cast<std::int64_t>(av - za) * (bv - zb);
      }
      EXPECT_EQ(expect, ref[static_cast<std::size_t>(2 * n + 3)]);
    }
}

TEST(QuantKernels, MatMulRejectsEmptyRanges) {
  OpGraph g;
  g.op("QuantizedMatMul", {g.feed(makeTensor<std::uint8_t>(kQU8, {1, 1}, {1})), g.feed(makeTensor<std::uint8_t>(kQU8, {1, 1}, {1})),
                           g.feed(scalarF(1.0f)), g.feed(scalarF(1.0f)), g.feed(scalarF(0.0f)), g.feed(scalarF(1.0f))});
  auto out = g.run(3);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(std::string::npos, out.error().find("max_a must be larger than min_a.")) << out.error();
}

// ------------------------------------------------------------- BiasAdd
TEST(QuantKernels, BiasAddTablesMatchReferenceExactly) {
  std::mt19937 rng(1);
  auto in = randomU8(6 * 7, rng);
  auto bias = randomU8(7, rng);
  std::vector<std::int32_t> expected(in.size()), got(in.size());
  float emin, emax, gmin, gmax;
  quantized::biasAddReference<std::uint8_t>(in.data(), 42, -3.0f, 5.0f, bias.data(), 7, -0.25f, 0.75f,
                                            expected.data(), &emin, &emax);
  quantized::biasAdd<std::uint8_t>(in.data(), 42, -3.0f, 5.0f, bias.data(), 7, -0.25f, 0.75f, got.data(), &gmin, &gmax);
  EXPECT_EQ(expected, got);
  EXPECT_EQ(5.0f * 131072.0f, emax);
  // Through the kernel; the float value of out equals input + bias closely.
  OpGraph g;
  g.op("QuantizedBiasAdd", {g.feed(makeTensor<std::uint8_t>(kQU8, {6, 7}, in)), g.feed(makeTensor<std::uint8_t>(kQU8, {7}, bias)),
                            g.feed(scalarF(-3.0f)), g.feed(scalarF(5.0f)), g.feed(scalarF(-0.25f)), g.feed(scalarF(0.75f))});
  auto out = g.run(3);
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(expected, values<std::int32_t>((*out)[0]));
  const float x = quantized::quantizedToFloat<std::uint8_t>(in[8], -3.0f, 5.0f);
  const float b = quantized::quantizedToFloat<std::uint8_t>(bias[1], -0.25f, 0.75f);
  EXPECT_NEAR(x + b, quantized::quantizedToFloat<std::int32_t>(expected[8], emin, emax), 1e-3);
}

// ---------------------------------------------------------- Relu, Relu6
TEST(QuantKernels, ReluAndRelu6ClampAtQuantizedZeroAndSix) {
  // Range [-6, 10]: 0 -> 96, 6 -> 192.
  for (bool six : {false, true}) {
    OpGraph g;
    auto* n = g.op(six ? "QuantizedRelu6" : "QuantizedRelu",
                   {g.feed(makeTensor<std::uint8_t>(kQU8, {4}, {0, 95, 150, 255})), g.feed(scalarF(-6.0f)), g.feed(scalarF(10.0f))});
    OpGraph::setType(n, "Tinput", kQU8);
    OpGraph::setType(n, "out_type", kQU8);
    auto out = g.run(3);
    ASSERT_TRUE(out.ok()) << out.error();
    EXPECT_EQ(96, quantized::floatToQuantized<std::uint8_t>(0.0f, -6.0f, 10.0f));
    EXPECT_EQ(192, quantized::floatToQuantized<std::uint8_t>(6.0f, -6.0f, 10.0f));
    if (six) EXPECT_EQ((std::vector<std::uint8_t>{96, 96, 150, 192}), values<std::uint8_t>((*out)[0]));
    else EXPECT_EQ((std::vector<std::uint8_t>{96, 96, 150, 255}), values<std::uint8_t>((*out)[0]));
    EXPECT_EQ(-6.0f, scalarOf((*out)[1]));
    EXPECT_EQ(10.0f, scalarOf((*out)[2]));
  }
}

// ------------------------------------------------------------- Pooling
TEST(QuantKernels, MaxAndAvgPoolIgnorePaddingAndTruncate) {
  // 3x3 single channel, 2x2 window, stride 2, SAME -> 2x2 outputs.
  const std::vector<std::uint8_t> in = {1, 2, 3, 4, 5, 6, 7, 8, 10};
  for (bool max : {true, false}) {
    OpGraph g;
    auto* n = g.op(max ? "QuantizedMaxPool" : "QuantizedAvgPool",
                   {g.feed(makeTensor<std::uint8_t>(kQU8, {1, 3, 3, 1}, in)), g.feed(scalarF(0.0f)), g.feed(scalarF(1.0f))});
    OpGraph::setType(n, "T", kQU8);
    OpGraph::setInts(n, "ksize", {1, 2, 2, 1});
    OpGraph::setInts(n, "strides", {1, 2, 2, 1});
    OpGraph::setString(n, "padding", "SAME");
    auto out = g.run(3);
    ASSERT_TRUE(out.ok()) << out.error();
    EXPECT_EQ((Shape{1, 2, 2, 1}), (*out)[0].shape());
    if (max) EXPECT_EQ((std::vector<std::uint8_t>{5, 6, 8, 10}), values<std::uint8_t>((*out)[0]));
    // (1+2+4+5)/4 = 3, (3+6)/2 = 4, (7+8)/2 = 7, 10/1 = 10
    else EXPECT_EQ((std::vector<std::uint8_t>{3, 4, 7, 10}), values<std::uint8_t>((*out)[0]));
  }
}

// ---------------------------------------------------------------- Concat
TEST(QuantKernels, ConcatRequantizesInputsIntoTheOverallRange) {
  OpGraph g;
  auto* n = g.op("QuantizedConcat",
                 {g.feed(makeTensor<std::int32_t>(tensorflow::DT_INT32, {}, {1})),
                  g.feed(makeTensor<std::uint8_t>(kQU8, {1, 2}, {0, 255})), g.feed(makeTensor<std::uint8_t>(kQU8, {1, 1}, {255})),
                  g.feed(scalarF(0.0f)), g.feed(scalarF(-1.0f)), g.feed(scalarF(1.0f)), g.feed(scalarF(2.0f))});
  OpGraph::setType(n, "T", kQU8);
  OpGraph::setInt(n, "N", 2);
  auto out = g.run(3);
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ((Shape{1, 3}), (*out)[0].shape());
  EXPECT_EQ(-1.0f, scalarOf((*out)[1]));
  EXPECT_EQ(2.0f, scalarOf((*out)[2]));
  // [0,1] values 0 and 1 in [-1, 2] -> 85 and 170; [-1,2] value 255 unchanged.
  EXPECT_EQ((std::vector<std::uint8_t>{85, 170, 255}), values<std::uint8_t>((*out)[0]));
}

// --------------------------------------------------------------- Reshape
TEST(QuantKernels, ReshapeKeepsBytesAndRange) {
  OpGraph g;
  g.op("QuantizedReshape", {g.feed(makeTensor<std::uint8_t>(kQU8, {2, 3}, {1, 2, 3, 4, 5, 6})),
                            g.feed(makeTensor<std::int32_t>(tensorflow::DT_INT32, {2}, {3, -1})),
                            g.feed(scalarF(-1.0f)), g.feed(scalarF(1.0f))});
  auto out = g.run(3);
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ((Shape{3, 2}), (*out)[0].shape());
  EXPECT_EQ((std::vector<std::uint8_t>{1, 2, 3, 4, 5, 6}), values<std::uint8_t>((*out)[0]));
  EXPECT_EQ(1.0f, scalarOf((*out)[2]));
}

// ------------------------------------------------------------ Mul, Add
TEST(QuantKernels, MulBroadcastsOffsetProducts) {
  OpGraph g;
  // x in [0, 255] (zero 0), y in [-1, 1] (zero 128).
  g.op("QuantizedMul", {g.feed(makeTensor<std::uint8_t>(kQU8, {2, 2}, {1, 2, 3, 4})),
                        g.feed(makeTensor<std::uint8_t>(kQU8, {2}, {128, 130})), g.feed(scalarF(0.0f)),
                        g.feed(scalarF(255.0f)), g.feed(scalarF(-1.0f)), g.feed(scalarF(1.0f))});
  auto out = g.run(3);
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ((std::vector<std::int32_t>{0, 4, 0, 8}), values<std::int32_t>((*out)[0]));
}

TEST(QuantKernels, AddMatchesFloatSumAndBroadcasts) {
  std::mt19937 rng(4);
  auto x = randomU8(12, rng);
  auto y = randomU8(3, rng);
  OpGraph g;
  g.op("QuantizedAdd", {g.feed(makeTensor<std::uint8_t>(kQU8, {4, 3}, x)), g.feed(makeTensor<std::uint8_t>(kQU8, {3}, y)),
                        g.feed(scalarF(-1.0f)), g.feed(scalarF(3.0f)), g.feed(scalarF(0.0f)), g.feed(scalarF(6.0f))});
  auto out = g.run(3);
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(-6.0f * 16384.0f, scalarOf((*out)[1]));
  EXPECT_EQ(6.0f * 16384.0f, scalarOf((*out)[2]));
  auto z = values<std::int32_t>((*out)[0]);
  for (int i = 0; i < 12; ++i) {
    const float expect = quantized::quantizedToFloat<std::uint8_t>(x[static_cast<std::size_t>(i)], -1.0f, 3.0f) +
                         quantized::quantizedToFloat<std::uint8_t>(y[static_cast<std::size_t>(i % 3)], 0.0f, 6.0f);
    // TensorFlow's linear form rounds the int32 step of one uint8 level
    // (341.3 -> 341), so the error grows to about 255 * 0.3 int32 levels.
    EXPECT_NEAR(expect, quantized::quantizedToFloat<std::int32_t>(z[static_cast<std::size_t>(i)], -98304.0f, 98304.0f), 5e-3);
  }
}

// --------------------------------------------------- ResizeBilinear
TEST(QuantKernels, ResizeBilinearFixedPointTracksFloatReference) {
  std::mt19937 rng(2);
  auto in = randomU8(2 * 4 * 5 * 3, rng);
  for (bool align : {false, true}) {
    auto run = [&](bool reference) {
      OpGraph g;
      auto* n = g.op("QuantizedResizeBilinear",
                     {g.feed(makeTensor<std::uint8_t>(kQU8, {2, 4, 5, 3}, in)),
                      g.feed(makeTensor<std::int32_t>(tensorflow::DT_INT32, {2}, {7, 9})), g.feed(scalarF(0.0f)),
                      g.feed(scalarF(1.0f))});
      OpGraph::setType(n, "T", kQU8);
      OpGraph::setBool(n, "align_corners", align);
      auto out = g.run(3, reference);
      EXPECT_TRUE(out.ok()) << out.error();
      return values<std::uint8_t>((*out)[0]);
    };
    auto fixed = run(false);
    auto ref = run(true);
    ASSERT_EQ(static_cast<std::size_t>(2 * 7 * 9 * 3), fixed.size());
    // 7 fractional bits, and (bottom - top) truncated to whole levels before
    // the vertical weight: TensorFlow's fixed-point result may differ from
    // the float interpolation by up to two levels.
    for (std::size_t i = 0; i < fixed.size(); ++i) EXPECT_LE(std::abs(fixed[i] - ref[i]), 2) << i;
    // Corner pixels are copied exactly.
    EXPECT_EQ(in[0], fixed[0]);
  }
}

// ------------------------------------------ RequantizationRange, Requantize
TEST(QuantKernels, RequantizationRangeAndRequantize) {
  const float in_max = 128.0f;
  const std::vector<std::int32_t> acc = {0, 1 << 24, 3 << 24, -(1 << 23)};  // 0, 1, 3, -0.5
  OpGraph g;
  g.op("RequantizationRange", {g.feed(makeTensor<std::int32_t>(kQI32, {4}, acc)), g.feed(scalarF(-in_max)), g.feed(scalarF(in_max))});
  auto range = g.run(2);
  ASSERT_TRUE(range.ok()) << range.error();
  EXPECT_NEAR(-0.5f, scalarOf((*range)[0]), 1e-6);
  EXPECT_NEAR(3.0f, scalarOf((*range)[1]), 1e-6);
  OpGraph r;
  r.op("Requantize", {r.feed(makeTensor<std::int32_t>(kQI32, {4}, acc)), r.feed(scalarF(-in_max)), r.feed(scalarF(in_max)),
                      r.feed(scalarF(-0.5f)), r.feed(scalarF(3.0f))});
  auto out = r.run(3);
  ASSERT_TRUE(out.ok()) << out.error();
  const quantized::Requantize32To8 stage(-in_max, in_max, -0.5f, 3.0f);
  std::vector<std::uint8_t> expected;
  for (auto v : acc) expected.push_back(stage(v));
  EXPECT_EQ(expected, values<std::uint8_t>((*out)[0]));
  EXPECT_EQ((std::vector<std::uint8_t>{36, 109, 255, 0}), expected);
  EXPECT_EQ(-0.5f, scalarOf((*out)[1]));
  OpGraph bad;
  bad.op("Requantize", {bad.feed(makeTensor<std::int32_t>(kQI32, {1}, {0})), bad.feed(scalarF(-1.0f)), bad.feed(scalarF(1.0f)),
                        bad.feed(scalarF(0.5f)), bad.feed(scalarF(3.0f))});
  auto err = bad.run(3);
  ASSERT_FALSE(err.ok());
  EXPECT_NE(std::string::npos, err.error().find("requested_output_min must be <= 0, but got 0.5")) << err.error();
}

}  // namespace
}  // namespace gds::engine
