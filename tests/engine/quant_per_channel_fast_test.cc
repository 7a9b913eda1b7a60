// The optimized per-channel fused 8-bit layers (vector depthwise loop, range
// scan in the GEMM epilogue, vector requantization, rows on the pool) against
// the plain reference loops (PlanOptions::reference_kernels): the same bytes
// and the same output range on every shape that reaches a separate code path.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "engine/kernel_choice.h"
#include "engine/lowp/cpu.h"
#include "engine/lowp/depthwise.h"
#include "engine/lowp/gemm.h"
#include "engine/quantized/per_channel.h"
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
constexpr DataType kF = tensorflow::DT_FLOAT;

enum class Op { kConv2D, kDepthwise, kMatMul };

struct Case {
  Op op = Op::kConv2D;
  std::int64_t batch = 1, h = 9, w = 11, c = 8;
  std::int64_t fh = 3, fw = 3, out = 8;  // out: Conv2D/MatMul output channels or depthwise multiplier
  std::int64_t stride = 1, dilation = 1;
  std::string padding = "SAME", activation = "Relu6";
  float in_lo = -1.0f, in_hi = 3.0f;  // input range (its zero point decides the depthwise path)
  bool frozen = false;                // min/max_freezed_output given
  bool transpose_b = false;
  unsigned seed = 1;
};

std::string describe(const Case& k) {
  const char* names[] = {"Conv2D", "Depthwise", "MatMul"};
  return std::string(names[static_cast<int>(k.op)]) + " b" + std::to_string(k.batch) + " " + std::to_string(k.h) +
         "x" + std::to_string(k.w) + "x" + std::to_string(k.c) + " f" + std::to_string(k.fh) + "x" +
         std::to_string(k.fw) + " out" + std::to_string(k.out) + " s" + std::to_string(k.stride) + " d" +
         std::to_string(k.dilation) + " " + k.padding + " " + k.activation + " in[" + std::to_string(k.in_lo) + "," +
         std::to_string(k.in_hi) + "]" + (k.frozen ? " frozen" : "") + (k.transpose_b ? " transpose_b" : "");
}

Result<std::vector<Tensor>> run(const Case& k, bool reference, int threads) {
  std::mt19937 rng(k.seed);
  std::uniform_int_distribution<int> u8(0, 255), s8(-128, 127);
  std::uniform_real_distribution<float> real(-2.0f, 2.0f), positive(0.05f, 1.5f);
  Shape in_shape, filter_shape;
  std::int64_t channels = 0;
  if (k.op == Op::kMatMul) {
    in_shape = {k.batch * k.h, k.c};
    filter_shape = k.transpose_b ? Shape{k.out, k.c} : Shape{k.c, k.out};
    channels = k.out;
  } else {
    in_shape = {k.batch, k.h, k.w, k.c};
    filter_shape = {k.fh, k.fw, k.c, k.out};
    channels = k.op == Op::kDepthwise ? k.c * k.out : k.out;
  }
  std::vector<std::uint8_t> x(static_cast<std::size_t>(model::numElements(in_shape)));
  for (auto& v : x) v = static_cast<std::uint8_t>(u8(rng));
  std::vector<std::int8_t> f(static_cast<std::size_t>(model::numElements(filter_shape)));
  for (auto& v : f) v = static_cast<std::int8_t>(s8(rng));
  std::vector<float> bias(static_cast<std::size_t>(channels)), fmin, fmax;
  for (auto& v : bias) v = real(rng);
  for (std::int64_t i = 0; i < channels; ++i) {
    fmax.push_back(positive(rng));
    fmin.push_back(-fmax.back() * 128.0f / 127.0f);
  }
  OpGraph g;
  const std::string xi = g.feed(makeTensor<std::uint8_t>(kQU8, in_shape, x));
  const std::string fi = g.feed(makeTensor<std::int8_t>(kQI8, filter_shape, f));
  const std::string bi = g.feed(makeTensor<float>(kF, {channels}, bias));
  const std::string lo = g.feed(scalarF(k.in_lo)), hi = g.feed(scalarF(k.in_hi));
  const std::string flo = g.feed(makeTensor<float>(kF, {channels}, fmin));
  const std::string fhi = g.feed(makeTensor<float>(kF, {channels}, fmax));
  std::vector<std::string> inputs = {xi, fi, bi, lo, hi, flo, fhi};
  if (k.frozen) {
    inputs.push_back(g.feed(scalarF(-0.75f)));
    inputs.push_back(g.feed(scalarF(1.25f)));
  }
  const char* type = k.op == Op::kMatMul      ? "QuantizedFusedMatMul"
                     : k.op == Op::kDepthwise ? "QuantizedFusedDepthwiseConv2dNative"
                                              : "QuantizedFusedConv2D";
  auto* op = g.op(type, inputs);
  OpGraph::setString(op, "activation", k.activation);
  if (k.op == Op::kMatMul) {
    OpGraph::setBool(op, "transpose_b", k.transpose_b);
  } else {
    OpGraph::setInts(op, "strides", {1, k.stride, k.stride, 1});
    OpGraph::setInts(op, "dilations", {1, k.dilation, k.dilation, 1});
    OpGraph::setString(op, "padding", k.padding);
  }
  return g.run(3, reference, threads);
}

void expectOptimizedEqualsReference(const Case& k) {
  SCOPED_TRACE(describe(k));
  auto ref = run(k, true, 1);
  ASSERT_TRUE(ref.ok()) << ref.error();
  ASSERT_GT((*ref)[0].numElements(), 0);
  // Every 8-bit GEMM backend this CPU has (the default is only one of them).
  std::vector<lowp::GemmBackend> backends = {lowp::GemmBackend::kGemmlowp};
  if (lowp::avx2GemmAvailable()) backends.push_back(lowp::GemmBackend::kAvx2);
  if (lowp::dnnlAvailable()) backends.push_back(lowp::GemmBackend::kDnnl);
  for (lowp::GemmBackend backend : backends) {
    ScopedKernelChoice choice(backend);
    for (int threads : {1, 2}) {
      auto opt = run(k, false, threads);
      ASSERT_TRUE(opt.ok()) << opt.error();
      const std::string where = std::string(lowp::gemmBackendName(backend)) + ", " + std::to_string(threads) +
                                " threads";
      EXPECT_EQ((*ref)[0].shape(), (*opt)[0].shape());
      EXPECT_EQ(values<std::uint8_t>((*ref)[0]), values<std::uint8_t>((*opt)[0])) << where;
      EXPECT_EQ(scalarOf((*ref)[1]), scalarOf((*opt)[1])) << where;
      EXPECT_EQ(scalarOf((*ref)[2]), scalarOf((*opt)[2])) << where;
    }
  }
}

// Depthwise, multiplier 1: 32-channel (AVX-512), 16- and 8-channel blocks and
// scalar tails; borders of SAME padding, strides and dilation.
TEST(QuantPerChannelFast, DepthwiseEqualsReference) {
  for (std::int64_t c : {3, 8, 16, 24, 29, 40, 53}) {
    for (std::int64_t stride : {1, 2}) {
      Case k;
      k.op = Op::kDepthwise;
      k.c = c;
      k.out = 1;
      k.stride = stride;
      k.seed = static_cast<unsigned>(c * 10 + stride);
      expectOptimizedEqualsReference(k);
    }
  }
  Case k;
  k.op = Op::kDepthwise;
  k.c = 24;
  k.out = 1;
  k.batch = 2;
  k.padding = "VALID";
  k.fh = 5;
  k.fw = 3;
  k.activation = "None";
  expectOptimizedEqualsReference(k);
  k.padding = "SAME";
  k.dilation = 2;
  k.activation = "Relu";
  expectOptimizedEqualsReference(k);
}

// Input ranges whose zero point lies outside [0, 255] (all-positive or
// all-negative inputs) take the int32 loop; multiplier 2 the general loop.
TEST(QuantPerChannelFast, DepthwiseOtherPathsEqualReference) {
  Case k;
  k.op = Op::kDepthwise;
  k.c = 16;
  k.out = 1;
  k.in_lo = 0.5f;
  k.in_hi = 4.0f;
  expectOptimizedEqualsReference(k);
  k.in_lo = -4.0f;
  k.in_hi = -0.5f;
  k.activation = "None";
  expectOptimizedEqualsReference(k);
  k.in_lo = -1.0f;
  k.in_hi = 3.0f;
  k.c = 5;
  k.out = 2;
  expectOptimizedEqualsReference(k);
}

TEST(QuantPerChannelFast, Conv2DEqualsReference) {
  Case k;
  k.c = 3;
  k.out = 8;
  k.stride = 2;
  k.h = 17;
  k.w = 15;
  expectOptimizedEqualsReference(k);  // MobileNet's first layer: K = 27
  k.c = 4;
  k.out = 24;
  k.fh = 5;
  k.fw = 2;
  k.padding = "VALID";
  k.batch = 2;
  expectOptimizedEqualsReference(k);  // K = 40, a batch of 2, VALID
  k.out = 16;
  k.padding = "SAME";
  k.dilation = 2;
  k.stride = 1;
  k.in_lo = -3.0f;
  k.in_hi = -0.5f;  // zero point outside [0, 255], dilation
  expectOptimizedEqualsReference(k);
  k.dilation = 1;
  k.fh = k.fw = 1;
  k.stride = 1;
  k.c = 32;
  k.out = 44;
  k.batch = 2;
  k.activation = "None";
  expectOptimizedEqualsReference(k);  // pointwise: the input is the GEMM's left operand
  k.activation = "Relu";
  k.in_lo = 0.25f;  // zero point outside [0, 255]: conv2D's own fallback
  expectOptimizedEqualsReference(k);
}

TEST(QuantPerChannelFast, MatMulEqualsReference) {
  Case k;
  k.op = Op::kMatMul;
  k.batch = 1;
  k.h = 37;  // rows
  k.c = 50;
  k.out = 13;
  k.activation = "None";
  expectOptimizedEqualsReference(k);
  k.transpose_b = true;
  k.activation = "Relu6";
  expectOptimizedEqualsReference(k);
}

// With a frozen output range the requantization runs in the GEMM epilogue
// and the depthwise row loop directly; values beyond the range saturate.
TEST(QuantPerChannelFast, FrozenRangeEqualsReference) {
  for (Op op : {Op::kConv2D, Op::kDepthwise, Op::kMatMul}) {
    Case k;
    k.op = op;
    k.out = op == Op::kDepthwise ? 1 : 12;
    k.c = 24;
    k.activation = "None";
    k.frozen = true;
    expectOptimizedEqualsReference(k);
    auto out = run(k, false, 2);
    ASSERT_TRUE(out.ok()) << out.error();
    EXPECT_EQ(-0.75f, scalarOf((*out)[1]));
    EXPECT_EQ(1.25f, scalarOf((*out)[2]));
    const auto bytes = values<std::uint8_t>((*out)[0]);
    EXPECT_NE(bytes.end(), std::find(bytes.begin(), bytes.end(), 0));
    EXPECT_NE(bytes.end(), std::find(bytes.begin(), bytes.end(), 255));
  }
}

// Ranges far wider than the 8-bit output (a frozen range with a wider
// activation clamp): values below 0, just past 255 and past int16 all
// saturate as the float loop's clamp does, with an integral offset (the
// vector loops' integer form) and a fractional one.
TEST(QuantPerChannelFast, RequantizeRowsSaturatesBothEnds) {
  const std::int64_t channels = 40, rows = 101;
  std::vector<float> mult(channels), bias(channels);
  for (std::int64_t c = 0; c < channels; ++c) {
    mult[static_cast<std::size_t>(c)] = 0.125f * static_cast<float>(c % 7 + 1);
    bias[static_cast<std::size_t>(c)] = 3.0f * static_cast<float>(c % 5) - 6.0f;
  }
  std::vector<std::int32_t> acc(static_cast<std::size_t>(rows * channels));
  for (std::size_t i = 0; i < acc.size(); ++i) acc[i] = static_cast<std::int32_t>(i * 7919 % 16001) - 8000;
  for (const float offset : {-50.0f, -50.5f, 120.0f}) {
    SCOPED_TRACE("offset " + std::to_string(offset));
    quantized::PerChannelRequantize p;
    p.multiplier = mult.data();
    p.bias = bias.data();
    p.clamp_lo = -1000.0f;
    p.clamp_hi = 1000.0f;
    p.scale = 100.0f;  // t in [-100000, 100000]: past int16 both ways
    p.offset = offset;
    std::vector<std::uint8_t> expected(acc.size()), got(acc.size(), 7);
    quantized::requantizeRowsReference(p, acc.data(), rows, channels, expected.data());
    quantized::requantizeRows(p, acc.data(), rows, channels, got.data());
    EXPECT_EQ(expected, got);
    const auto saturated = [&](std::uint8_t v) { return std::count(expected.begin(), expected.end(), v); };
    EXPECT_GT(saturated(0), rows * channels / 10);
    EXPECT_GT(saturated(255), rows * channels / 10);
  }
}

// The loops themselves on values where rounding is decided by the last bit:
// t exactly k + 0.5, negative t, clamping at both ends; the vector and the
// reference loops agree.
TEST(QuantPerChannelFast, RequantizeRowsMatchesTheFormula) {
  const std::int64_t channels = 93, rows = 3;  // 64 + 16 + 8 + 5: every block width of the loops
  std::vector<float> mult(channels), bias(channels);
  std::vector<std::int32_t> acc(static_cast<std::size_t>(rows * channels));
  for (std::int64_t c = 0; c < channels; ++c) {
    mult[static_cast<std::size_t>(c)] = 0.01f * static_cast<float>(c + 1);
    bias[static_cast<std::size_t>(c)] = 0.05f * static_cast<float>(c) - 0.4f;
  }
  for (std::size_t i = 0; i < acc.size(); ++i) acc[i] = static_cast<std::int32_t>(i * 37 % 201) - 100;
  quantized::PerChannelRequantize p;
  p.multiplier = mult.data();
  p.bias = bias.data();
  p.clamp_lo = -1.0f;
  p.clamp_hi = 2.0f;
  p.scale = 85.0f;  // 255 / 3
  p.offset = -85.0f;
  std::vector<std::uint8_t> out(acc.size());
  quantized::requantizeRows(p, acc.data(), rows, channels, out.data());
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < channels; ++c) {
      const std::size_t i = static_cast<std::size_t>(r * channels + c);
      float x = static_cast<float>(acc[i]) * mult[static_cast<std::size_t>(c)];
      x = std::min(std::max(x + bias[static_cast<std::size_t>(c)], -1.0f), 2.0f);
      const float t = x * 85.0f;
      const float q = static_cast<float>(static_cast<std::int32_t>(t + (t >= 0.0f ? 0.5f : -0.5f))) + 85.0f;
      EXPECT_EQ(static_cast<int>(std::min(std::max(q, 0.0f), 255.0f)), out[i]) << r << "," << c;
    }
  std::vector<std::int32_t> amin(channels, 1000), amax(channels, -1000);
  quantized::channelExtremes(acc.data(), rows, channels, amin.data(), amax.data());
  for (std::int64_t c = 0; c < channels; ++c) {
    std::int32_t lo = 1000, hi = -1000;
    for (std::int64_t r = 0; r < rows; ++r) {
      lo = std::min(lo, acc[static_cast<std::size_t>(r * channels + c)]);
      hi = std::max(hi, acc[static_cast<std::size_t>(r * channels + c)]);
    }
    EXPECT_EQ(lo, amin[static_cast<std::size_t>(c)]);
    EXPECT_EQ(hi, amax[static_cast<std::size_t>(c)]);
  }
  // The reference loops compute the same.
  std::vector<std::uint8_t> reference(acc.size());
  quantized::requantizeRowsReference(p, acc.data(), rows, channels, reference.data());
  EXPECT_EQ(reference, out);
  std::vector<std::int32_t> rmin(channels, 1000), rmax(channels, -1000);
  quantized::channelExtremesReference(acc.data(), rows, channels, rmin.data(), rmax.data());
  EXPECT_EQ(rmin, amin);
  EXPECT_EQ(rmax, amax);
}

// The packed AVX2 depthwise loop (shared with TFLite's layers) against the
// reference accumulators: channel counts below, at and past multiples of
// 16, 3 x 3 (unrolled), 2 x 2, 5 x 5 and 1 x 1 windows, padding on every side
// (wider than the window's half), stride 2, dilation, two images, zero
// points 0, 255 and between, the same layer re-run with another zero point.
// Multiplier 2 and zero points outside [0, 255] are refused.
TEST(QuantPerChannelFast, PackedAvx2DepthwiseEqualsReferenceLoop) {
  if (!lowp::cpuHasAvx2()) GTEST_SKIP() << "no AVX2 on this CPU";
  struct Shape2 {
    std::int64_t h, w, c, fh, fw, stride, dil, pad_top, pad_left, out_h, out_w;
  };
  const std::vector<Shape2> shapes = {
      {9, 8, 16, 3, 3, 1, 1, 1, 1, 9, 8},  {6, 7, 7, 3, 3, 1, 1, 1, 1, 6, 7},    {11, 10, 20, 3, 3, 2, 1, 0, 0, 5, 5},
      {7, 9, 31, 3, 3, 2, 1, 2, 2, 5, 6},  {10, 9, 24, 3, 3, 1, 2, 2, 2, 10, 9}, {5, 6, 17, 2, 2, 1, 1, 1, 0, 5, 6},
      {8, 8, 48, 5, 5, 1, 1, 2, 2, 8, 8},  {4, 5, 30, 1, 1, 1, 1, 0, 0, 4, 5},   {2, 2, 12, 3, 3, 1, 1, 2, 2, 4, 4},
  };
  std::mt19937 rng(31);
  std::uniform_int_distribution<int> u8(0, 255), s8(-128, 127);
  for (const Shape2& sh : shapes) {
    ops::ConvGeometry s;
    s.batch = 2;
    s.in_h = sh.h;
    s.in_w = sh.w;
    s.in_c = sh.c;
    s.filter_h = sh.fh;
    s.filter_w = sh.fw;
    s.out_c = 1;
    s.stride_h = s.stride_w = sh.stride;
    s.dilation_h = s.dilation_w = sh.dil;
    s.pad_top = sh.pad_top;
    s.pad_left = sh.pad_left;
    s.out_h = sh.out_h;
    s.out_w = sh.out_w;
    std::vector<std::uint8_t> x(static_cast<std::size_t>(s.batch * s.in_h * s.in_w * s.in_c));
    for (auto& v : x) v = static_cast<std::uint8_t>(u8(rng));
    std::vector<std::int8_t> f(static_cast<std::size_t>(s.filter_h * s.filter_w * s.in_c));
    for (auto& v : f) v = static_cast<std::int8_t>(s8(rng));
    f[0] = -128;
    const std::int64_t rows = s.batch * s.out_h;
    const auto n = static_cast<std::size_t>(rows * s.out_w * s.in_c);
    lowp::DepthwiseRowsAvx2 packed;
    for (std::int32_t zero : {0, 255, 131}) {
      SCOPED_TRACE(std::to_string(sh.h) + "x" + std::to_string(sh.w) + "x" + std::to_string(sh.c) + " f" +
                   std::to_string(sh.fh) + "x" + std::to_string(sh.fw) + " s" + std::to_string(sh.stride) + " d" +
                   std::to_string(sh.dil) + " zero " + std::to_string(zero));
      const bool expected_path = !(s.in_c >= 32 && lowp::cpuHasAvx512());
      ASSERT_EQ(packed.prepare(s, zero, f.data(), true), expected_path);
      if (!expected_path) continue;
      std::vector<std::int32_t> expected(n), got(n, 0x5555);
      lowp::depthwiseRowsReference(s, x.data(), zero, f.data(), 0, rows, expected.data());
      // In two bands, as the pool splits the rows.
      packed.run(s, x.data(), 0, rows / 3, got.data());
      packed.run(s, x.data(), rows / 3, rows, got.data());
      EXPECT_EQ(got, expected);
    }
  }
  ops::ConvGeometry s;
  s.batch = 1;
  s.in_h = s.in_w = s.out_h = s.out_w = 4;
  s.in_c = 8;
  s.filter_h = s.filter_w = 3;
  s.pad_top = s.pad_left = 1;
  s.out_c = 2;
  std::vector<std::int8_t> f(3 * 3 * 8 * 2, 1);
  lowp::DepthwiseRowsAvx2 packed;
  EXPECT_FALSE(packed.prepare(s, 10, f.data(), true)) << "multiplier 2";
  s.out_c = 1;
  EXPECT_FALSE(packed.prepare(s, 256, f.data(), true)) << "zero point 256";
  EXPECT_FALSE(packed.prepare(s, -1, f.data(), true)) << "zero point -1";
}

}  // namespace
}  // namespace gds::engine
