// The fast path of TFLite's int8 kernels (engine/tflite/fast.h)
// against the reference loops of int8.h, byte for byte, in every runtime's
// requantization (TFLite's reference and built-in kernels, XNNPACK): the
// vectorized requantization on accumulators chosen to hit every rounding
// case, the QUANTIZE forms on ties, the
// element-wise ops over all 256 x 256 input pairs, the pools, and whole
// convolution / depthwise / fully connected layers on odd shapes at 1 and 2
// threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "engine/lowp/gemm.h"
#include "engine/tflite/fast.h"
#include "engine/tflite/int16.h"
#include "engine/tflite/int8.h"
#include "engine/thread_pool.h"

namespace gds::engine {
namespace {


std::vector<std::int8_t> randomInt8(std::size_t n, std::mt19937* rng) {
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<std::int8_t> v(n);
  for (auto& x : v) x = static_cast<std::int8_t>(d(*rng));
  return v;
}

// The first index where two int8 buffers differ, or -1.
std::int64_t firstDifference(const std::vector<std::int8_t>& a, const std::vector<std::int8_t>& b) {
  if (a.size() != b.size()) return 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return static_cast<std::int64_t>(i);
  return -1;
}

// Accumulators that hit the edges of every step: int32's extremes, powers of
// two and their neighbours (the shifts' rounding ties), and random values of
// every magnitude.
std::vector<std::int32_t> hardAccumulators(std::size_t n, std::mt19937* rng) {
  std::vector<std::int32_t> v = {0, 1, -1, std::numeric_limits<std::int32_t>::min(),
                                 std::numeric_limits<std::int32_t>::max(), std::numeric_limits<std::int32_t>::min() + 1,
                                 std::numeric_limits<std::int32_t>::max() - 1};
  for (int b = 0; b < 31; ++b)
    for (int d = -1; d <= 1; ++d) {
      v.push_back(static_cast<std::int32_t>((std::int64_t{1} << b) + d));
      v.push_back(static_cast<std::int32_t>(-(std::int64_t{1} << b) + d));
      v.push_back(static_cast<std::int32_t>(3 * (std::int64_t{1} << b) / 2 + d));
      v.push_back(static_cast<std::int32_t>(-3 * (std::int64_t{1} << b) / 2 + d));
    }
  std::uniform_int_distribution<std::int32_t> any(std::numeric_limits<std::int32_t>::min(),
                                                  std::numeric_limits<std::int32_t>::max());
  std::uniform_int_distribution<int> bits(0, 31);
  while (v.size() < n) {
    const std::int32_t x = any(*rng);
    const int b = bits(*rng);
    v.push_back(b == 31 ? x : x % (1 << b));  // every magnitude
  }
  v.resize(n);
  return v;
}

// Every runtime's requantization (tflite::Rounding): TFLite's twice
// rounded multiplier, ruy's once rounded one, XNNPACK's fp32.
constexpr tflite::Rounding kRoundings[] = {tflite::Rounding::kDouble, tflite::Rounding::kSingle,
                                           tflite::Rounding::kFp32};
std::string roundingName(tflite::Rounding r) {
  return r == tflite::Rounding::kDouble ? "double rounding" : r == tflite::Rounding::kSingle ? "single rounding" : "fp32";
}

TEST(TfliteFast, RequantizerMatchesTheReferenceOnEveryRoundingCase) {
  std::mt19937 rng(7);
  // Real multipliers from 2^-40 (a zero multiplier) to 2^31 (shift clamped
  // at 30), ties at every right shift, per tensor and per channel, channel
  // counts with and without a vector tail, with and without bias.
  std::uniform_real_distribution<double> exponent(-40.0, 31.0);
  for (tflite::Rounding rounding : kRoundings)
  for (std::int64_t channels : {1, 3, 8, 13, 16, 64, 1000}) {
    for (bool per_channel : {false, true}) {
      for (bool with_bias : {false, true}) {
        SCOPED_TRACE(roundingName(rounding) + ", channels " + std::to_string(channels) +
                     (per_channel ? " per channel" : " per tensor") + (with_bias ? " with bias" : ""));
        tflite::Requant r;
        r.rounding = rounding;
        r.output_offset = static_cast<std::int32_t>(rng() % 256) - 128;
        r.act_min = -128 + static_cast<std::int32_t>(rng() % 50);
        r.act_max = 127 - static_cast<std::int32_t>(rng() % 50);
        std::vector<float> scales;
        const std::int64_t n_scales = per_channel ? channels : 1;
        r.multiplier.resize(static_cast<std::size_t>(n_scales));
        r.shift.resize(static_cast<std::size_t>(n_scales));
        for (std::int64_t c = 0; c < n_scales; ++c)
          tflite::quantizeMultiplier(std::pow(2.0, exponent(rng)), &r.multiplier[static_cast<std::size_t>(c)],
                                 &r.shift[static_cast<std::size_t>(c)]);
        // Exact powers of two make ties of the rounding division.
        r.multiplier[0] = 1 << 30;
        r.shift[0] = -5;
        // XNNPACK's float scales: the same reals, and a power of two (ties).
        r.scale.resize(static_cast<std::size_t>(n_scales));
        for (std::int64_t c = 0; c < n_scales; ++c)
          r.scale[static_cast<std::size_t>(c)] = static_cast<float>(std::ldexp(
              static_cast<double>(r.multiplier[static_cast<std::size_t>(c)]), r.shift[static_cast<std::size_t>(c)] - 31));
        r.scale[0] = 0x1.0p-6f;
        const std::int64_t rows = 4096 / channels + 3;
        const std::vector<std::int32_t> acc = hardAccumulators(static_cast<std::size_t>(rows * channels), &rng);
        std::vector<std::int32_t> bias(static_cast<std::size_t>(channels));
        for (auto& b : bias) b = static_cast<std::int32_t>(rng() % 200001) - 100000;
        const std::int32_t* b = with_bias ? bias.data() : nullptr;
        std::vector<std::int8_t> expected(acc.size()), got(acc.size(), 0);
        tflite::requantizeRows(r, acc.data(), b, rows, channels, expected.data());
        tflite::Requantizer(r, channels).run(acc.data(), b, rows, got.data());
        const std::int64_t at = firstDifference(expected, got);
        EXPECT_EQ(at, -1) << "acc " << acc[static_cast<std::size_t>(std::max<std::int64_t>(at, 0))];
      }
    }
  }
}

TEST(TfliteFast, RequantizerTiesAtEveryShift) {
  // multiplier 2^30 (0.5) and shift -k: every accumulator in a window is
  // x / 2^(k+1) exactly, so half of them are ties of the rounding.
  for (tflite::Rounding rounding : kRoundings)
  for (int k = 0; k <= 31; ++k) {
    SCOPED_TRACE(roundingName(rounding) + ", shift -" + std::to_string(k));
    tflite::Requant r;
    r.rounding = rounding;
    r.multiplier = {1 << 30};
    r.shift = {-k};
    r.scale = {std::ldexp(1.0f, -k - 1)};
    r.act_min = -128;
    r.act_max = 127;
    std::vector<std::int32_t> acc;
    for (std::int32_t x = -4100; x <= 4100; ++x) acc.push_back(x * (1 << std::min(k, 17)));
    std::vector<std::int8_t> expected(acc.size()), got(acc.size());
    const auto n = static_cast<std::int64_t>(acc.size());
    tflite::requantizeRows(r, acc.data(), nullptr, n, 1, expected.data());
    tflite::Requantizer(r, 1).run(acc.data(), nullptr, n, got.data());
    EXPECT_EQ(firstDifference(expected, got), -1);
    // The same values 8 channels wide go through the vector loop.
    std::vector<std::int8_t> expected8(acc.size()), got8(acc.size());
    tflite::requantizeRows(r, acc.data(), nullptr, n / 8, 8, expected8.data());
    tflite::Requantizer(r, 8).run(acc.data(), nullptr, n / 8, got8.data());
    EXPECT_EQ(firstDifference(expected8, got8), -1);
  }
}

// The short form the requantizer takes when the layer's accumulators and
// bias are bounded (|x << left| < 2^29): across right shifts 0-31 and left
// shifts 0-3, on the extremes of the bound, powers of two and their
// neighbours, and ties, with scales that keep the outputs unclamped so
// every rounding step shows. Past the bound (a large bias) the general form
// runs, with the same results.
TEST(TfliteFast, RequantizerShortFormMatchesTheReferenceWithinItsBound) {
  std::mt19937 rng(31);
  constexpr std::int64_t kLimit = std::int64_t{1} << 29;
  for (int shift = -31; shift <= 3; ++shift) {
    const int left = std::max(shift, 0);
    const std::int64_t reach = (kLimit >> left) - 1;  // |accumulator + bias| allowed
    for (const std::int32_t multiplier : {1 << 30, 1518500250, 2147483647, (1 << 30) + 1}) {
      SCOPED_TRACE("shift " + std::to_string(shift) + " multiplier " + std::to_string(multiplier));
      const std::int64_t channels = 16;
      tflite::Requant r;
      r.act_min = -128;
      r.act_max = 127;
      r.output_offset = -3;
      r.multiplier.assign(static_cast<std::size_t>(channels), multiplier);
      r.shift.assign(static_cast<std::size_t>(channels), shift);
      r.shift[5] = std::min(shift, 0);  // mixed left shifts across channels
      // The accumulators: the bound's ends, powers of two and neighbours,
      // ties of x / 2^(k+1) near the output range, random values.
      std::vector<std::int32_t> acc;
      for (const std::int64_t x : {std::int64_t{0}, reach, -reach, reach - 1, -reach + 1})
        acc.push_back(static_cast<std::int32_t>(x));
      for (int b = 0; b < 29 - left; ++b)
        for (int d = -1; d <= 1; ++d) {
          acc.push_back(static_cast<std::int32_t>((std::int64_t{1} << b) + d));
          acc.push_back(static_cast<std::int32_t>(-(std::int64_t{1} << b) + d));
        }
      const int k = std::max(0, -shift);
      for (std::int64_t x = -300; x <= 300; ++x) {
        const std::int64_t v = k <= 20 ? x << k : x * (reach / 300);
        acc.push_back(static_cast<std::int32_t>(std::max(-reach, std::min(reach, v))));
      }
      std::uniform_int_distribution<std::int64_t> any(-reach, reach);
      while (acc.size() % channels != 0 || acc.size() < 2048)
        acc.push_back(static_cast<std::int32_t>(any(rng)));
      const std::int64_t rows = static_cast<std::int64_t>(acc.size()) / channels;
      for (const bool with_bias : {false, true}) {
        // A bias that leaves every sum within the bound: the accumulators
        // shrink by it (the bound is their largest magnitude).
        std::vector<std::int32_t> bias(static_cast<std::size_t>(channels));
        for (auto& b : bias) b = with_bias ? static_cast<std::int32_t>(rng() % 2001) - 1000 : 0;
        std::vector<std::int32_t> shrunk(acc);
        for (auto& a : shrunk)
          a = static_cast<std::int32_t>(std::max(-reach + 1000, std::min(reach - 1000, std::int64_t{a})));
        const std::int32_t* b = with_bias ? bias.data() : nullptr;
        const std::vector<std::int32_t>& x = with_bias ? shrunk : acc;
        std::vector<std::int8_t> expected(x.size()), got(x.size(), 0x55);
        tflite::requantizeRows(r, x.data(), b, rows, channels, expected.data());
        const tflite::Requantizer q(r, channels, with_bias ? reach - 1000 : reach);
        if (lowp::Avx2Gemm::available()) {
          EXPECT_TRUE(q.narrow(b));
        }
        q.run(x.data(), b, rows, got.data());
        const std::int64_t at = firstDifference(expected, got);
        EXPECT_EQ(at, -1) << "acc " << x[static_cast<std::size_t>(std::max<std::int64_t>(at, 0))];
      }
      // One more than the bound allows: the general form, the same bytes.
      const tflite::Requantizer wide(r, channels, reach + 1);
      EXPECT_FALSE(wide.narrow(nullptr));
      std::vector<std::int8_t> expected(acc.size()), got(acc.size(), 0x55);
      tflite::requantizeRows(r, acc.data(), nullptr, rows, channels, expected.data());
      wide.run(acc.data(), nullptr, rows, got.data());
      EXPECT_EQ(firstDifference(expected, got), -1) << "past the bound";
    }
  }
}

TEST(TfliteFast, BinaryOpsMatchTheReferenceOnAllInputPairs) {
  std::vector<std::int8_t> a, b;
  for (int x = -128; x <= 127; ++x)
    for (int y = -128; y <= 127; ++y) {
      a.push_back(static_cast<std::int8_t>(x));
      b.push_back(static_cast<std::int8_t>(y));
    }
  const auto n = static_cast<std::int64_t>(a.size());
  struct Case {
    tflite::BinaryOp op;
    float s1;
    std::int32_t z1;
    float s2;
    std::int32_t z2;
    float so;
    std::int32_t zo;
    std::int32_t lo, hi;
  };
  const std::vector<Case> cases = {
      {tflite::BinaryOp::kAdd, 0.05f, -3, 0.05f, -3, 0.1f, -128, -128, 127},   // ResNet's residual add (ReLU)
      {tflite::BinaryOp::kAdd, 0.031f, 10, 0.27f, -128, 0.4f, 5, -128, 127},
      {tflite::BinaryOp::kAdd, 1.5f, 127, 0.0001f, 0, 0.003f, 0, -20, 90},
      {tflite::BinaryOp::kSub, 0.02f, 0, 0.03f, 7, 0.05f, -2, -128, 127},
      {tflite::BinaryOp::kSub, 0.7f, -128, 0.7f, 127, 0.01f, 100, -128, 127},
      {tflite::BinaryOp::kMul, 0.5f, 1, 0.25f, -2, 0.0625f, 0, -128, 127},
      {tflite::BinaryOp::kMul, 0.003f, -128, 0.9f, 30, 2.0f, -7, -100, 100},
  };
  for (std::size_t k = 0; k < cases.size(); ++k) {
    SCOPED_TRACE("case " + std::to_string(k));
    const Case& c = cases[k];
    const tflite::BinaryParams p = tflite::binaryParams(c.op, c.s1, c.z1, c.s2, c.z2, c.so, c.zo, c.lo, c.hi);
    std::vector<std::int8_t> expected(a.size()), got(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) expected[i] = tflite::binaryElement(c.op, p, a[i], b[i]);
    tflite::binaryFast(c.op, p, a.data(), false, b.data(), false, n, got.data());
    EXPECT_EQ(firstDifference(expected, got), -1);
    // A scalar on either side (and an odd length for the scalar tail).
    for (int v : {-128, -1, 0, 77, 127}) {
      const auto s = static_cast<std::int8_t>(v);
      std::vector<std::int8_t> e1(257), g1(257), e2(257), g2(257);
      for (std::size_t i = 0; i < 257; ++i) {
        e1[i] = tflite::binaryElement(c.op, p, s, b[i * 255]);
        e2[i] = tflite::binaryElement(c.op, p, a[i * 255], s);
      }
      std::vector<std::int8_t> col(257);
      for (std::size_t i = 0; i < 257; ++i) col[i] = b[i * 255];
      tflite::binaryFast(c.op, p, &s, true, col.data(), false, 257, g1.data());
      for (std::size_t i = 0; i < 257; ++i) col[i] = a[i * 255];
      tflite::binaryFast(c.op, p, col.data(), false, &s, true, 257, g2.data());
      EXPECT_EQ(firstDifference(e1, g1), -1) << "scalar a = " << v;
      EXPECT_EQ(firstDifference(e2, g2), -1) << "scalar b = " << v;
    }
  }
}

TEST(TfliteFast, RescaleAndQuantizeMatchTheReference) {
  std::vector<std::int8_t> all;
  for (int x = -128; x <= 127; ++x) all.push_back(static_cast<std::int8_t>(x));
  for (const auto& [si, zi, so, zo] : std::vector<std::tuple<float, int, float, int>>{
           {0.1f, 0, 0.1f, 0}, {0.1f, -5, 0.3f, 12}, {0.02f, 127, 0.01f, -128}, {3.0f, -128, 0.001f, 0},
           {0.0004f, 3, 0.5f, -1}}) {
    tflite::Rescale r = tflite::rescaleParams(si, zi, so, zo);
    for (const auto& [lo, hi] : std::vector<std::pair<int, int>>{{-128, 127}, {zo, 127}, {-3, 40}}) {
      r.act_min = lo;
      r.act_max = hi;
      std::vector<std::int8_t> expected(all.size()), got(all.size());
      tflite::rescaleReference(r, all.data(), 256, expected.data());
      tflite::rescaleFast(r, all.data(), 256, got.data());
      EXPECT_EQ(firstDifference(expected, got), -1) << si << " " << zi << " -> " << so << " " << zo;
    }
  }
  // Floats at and around every rounding tie, the limits, NaN and infinities.
  std::vector<float> x = {0.0f, -0.0f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::max(),
                          std::numeric_limits<float>::lowest(), std::numeric_limits<float>::denorm_min(), 3e9f, -3e9f,
                          0.49999997f, -0.49999997f};
  for (int k = -300; k <= 300; ++k) {
    const float h = static_cast<float>(k) + 0.5f;
    x.push_back(h);
    x.push_back(std::nextafter(h, 1e9f));
    x.push_back(std::nextafter(h, -1e9f));
  }
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> d(-300.0f, 300.0f);
  while (x.size() % 8 != 5) x.push_back(d(rng));
  // ... and MobileNet's normalized pixels with its input scale 1/127.5.
  for (int p = 0; p < 256; ++p) x.push_back((static_cast<float>(p) - 127.5f) / 127.5f);
  while (x.size() % 8 != 5) x.push_back(d(rng));
  for (tflite::QuantizeForm form : {tflite::QuantizeForm::kFloat, tflite::QuantizeForm::kDouble,
                                    tflite::QuantizeForm::kXnnpack})
    for (const auto& [scale, zp] : std::vector<std::pair<float, int>>{{1.0f, 0}, {0.5f, -128}, {0.0078125f, 127},
                                                                       {0.037f, -3}, {1.7f, 20}, {1 / 127.5f, -1}}) {
      std::vector<std::int8_t> expected(x.size()), got(x.size());
      const auto n = static_cast<std::int64_t>(x.size());
      tflite::quantizeReference(x.data(), n, scale, zp, expected.data(), form);
      tflite::quantizeFast(x.data(), n, scale, zp, got.data(), form);
      std::int64_t at = firstDifference(expected, got);
      // NaN has no int8 value; the runtimes' loops differ on it.
      if (at >= 0 && std::isnan(x[static_cast<std::size_t>(at)]) && form == tflite::QuantizeForm::kXnnpack) {
        expected[static_cast<std::size_t>(at)] = got[static_cast<std::size_t>(at)];
        at = firstDifference(expected, got);
      }
      EXPECT_EQ(at, -1) << "form " << static_cast<int>(form) << " scale " << scale << " zero point " << zp << " x "
                        << x[static_cast<std::size_t>(std::max<std::int64_t>(at, 0))];
    }
}

// TFLite's output size and leading padding (SAME or VALID).
void window(bool same, std::int64_t in, std::int64_t k, std::int64_t stride, std::int64_t dil, std::int64_t* out,
            std::int64_t* pad) {
  const std::int64_t effective = (k - 1) * dil + 1;
  *out = same ? (in + stride - 1) / stride : (in - effective + stride) / stride;
  const std::int64_t total = (*out - 1) * stride + effective - in;
  *pad = same && total > 0 ? total / 2 : 0;
}

TEST(TfliteFast, PoolsMatchTheReference) {
  std::mt19937 rng(11);
  struct Case {
    std::int64_t h, w, c, k_h, k_w, stride;
    bool same;
  };
  for (const Case& p : std::vector<Case>{{112, 112, 64, 3, 3, 2, true},
                                         {7, 7, 33, 7, 7, 1, false},
                                         {9, 5, 1, 2, 3, 2, true},
                                         {6, 6, 17, 4, 4, 3, true},
                                         {5, 8, 24, 1, 1, 1, false}}) {
    ops::ConvGeometry s;
    s.batch = 2;
    s.in_h = p.h;
    s.in_w = p.w;
    s.in_c = s.out_c = p.c;
    s.filter_h = p.k_h;
    s.filter_w = p.k_w;
    s.stride_h = s.stride_w = p.stride;
    window(p.same, s.in_h, s.filter_h, s.stride_h, 1, &s.out_h, &s.pad_top);
    window(p.same, s.in_w, s.filter_w, s.stride_w, 1, &s.out_w, &s.pad_left);
    const auto in = randomInt8(static_cast<std::size_t>(s.batch * s.in_h * s.in_w * s.in_c), &rng);
    const auto n = static_cast<std::size_t>(s.batch * s.out_h * s.out_w * s.out_c);
    for (const auto& [lo, hi] : std::vector<std::pair<int, int>>{{-128, 127}, {-20, 127}, {-5, 60}}) {
      SCOPED_TRACE(std::to_string(p.h) + "x" + std::to_string(p.w) + "x" + std::to_string(p.c) + " window " +
                   std::to_string(p.k_h) + "x" + std::to_string(p.k_w) + " clamp " + std::to_string(lo) + ".." +
                   std::to_string(hi));
      std::vector<std::int8_t> expected(n), got(n);
      tflite::maxPoolReference(s, lo, hi, in.data(), expected.data());
      // Two blocks of rows, as two threads split them.
      const std::int64_t rows = s.batch * s.out_h;
      tflite::maxPoolRows(s, lo, hi, in.data(), 0, rows / 3, got.data());
      tflite::maxPoolRows(s, lo, hi, in.data(), rows / 3, rows, got.data());
      EXPECT_EQ(firstDifference(expected, got), -1) << "max";
      tflite::averagePoolReference(s, lo, hi, in.data(), expected.data());
      tflite::averagePoolRows(s, lo, hi, in.data(), 0, rows / 3, got.data());
      tflite::averagePoolRows(s, lo, hi, in.data(), rows / 3, rows, got.data());
      EXPECT_EQ(firstDifference(expected, got), -1) << "average";
    }
  }
}

// A convolution or depthwise layer's random data on shape s: input, filter
// (its first weight -128, which TFLite allows), bias in [-20000, 20000], and
// the multipliers of filter scales in [0.001, 0.02], one per output channel
// or one for the layer; input zero point, output offset and clamp as given.
struct RandomLayer {
  std::vector<std::int8_t> input, filter;
  std::vector<std::int32_t> bias;
  tflite::Requant r;
};

RandomLayer randomLayer(const ops::ConvGeometry& s, bool depthwise, bool per_channel, std::int32_t input_zero,
                        std::int32_t output_offset, std::int32_t act_min, std::int32_t act_max, std::mt19937* rng) {
  RandomLayer l;
  l.input = randomInt8(static_cast<std::size_t>(s.batch * s.in_h * s.in_w * s.in_c), rng);
  const std::int64_t channels = s.outputChannels(depthwise);
  l.filter = randomInt8(static_cast<std::size_t>(s.filter_h * s.filter_w * channels * (depthwise ? 1 : s.in_c)), rng);
  l.filter[0] = -128;
  l.bias.resize(static_cast<std::size_t>(channels));
  for (auto& b : l.bias) b = static_cast<std::int32_t>((*rng)() % 40001) - 20000;
  std::vector<float> scales(per_channel ? static_cast<std::size_t>(channels) : 1);
  std::uniform_real_distribution<float> sd(0.001f, 0.02f);
  for (auto& sc : scales) sc = sd(*rng);
  l.r.input_offset = -input_zero;
  l.r.output_offset = output_offset;
  l.r.act_min = act_min;
  l.r.act_max = act_max;
  tflite::convMultipliers(0.05f, scales, 0.02f, &l.r);
  return l;
}

struct LayerCase {
  std::string name;
  bool depthwise;
  std::int64_t h, w, in_c, out_c, k, stride, dil;
  bool same, per_channel;
  std::int32_t input_zero;
};

TEST(TfliteFast, ConvolutionLayersMatchTheReference) {
  std::mt19937 rng(5);
  const std::vector<LayerCase> cases = {
      {"3x3 stride 2 (first layer)", false, 17, 15, 3, 8, 3, 2, 1, true, true, -128},
      {"1x1 pointwise", false, 9, 9, 32, 48, 1, 1, 1, false, true, 4},
      {"1x1 stride 2", false, 10, 9, 16, 24, 1, 2, 1, true, true, 127},
      {"7x7 per tensor", false, 12, 11, 5, 13, 7, 2, 1, true, false, -3},
      {"3x3 dilated valid", false, 13, 12, 6, 7, 3, 1, 2, false, true, 0},
      {"3x3 K past one GEMM block", false, 6, 7, 130, 21, 3, 1, 1, true, true, -20},
      {"depthwise 3x3", true, 14, 14, 32, 32, 3, 1, 1, true, true, -128},
      {"depthwise 3x3 stride 2", true, 15, 13, 24, 24, 3, 2, 1, true, true, 60},
      {"depthwise multiplier 2", true, 8, 9, 5, 10, 3, 1, 1, true, false, -7},
  };
  for (tflite::Rounding rounding : kRoundings)
  for (const LayerCase& c : cases) {
    for (int threads : {1, 2}) {
      SCOPED_TRACE(roundingName(rounding) + ", " + c.name + ", " + std::to_string(threads) + " thread(s)");
      ops::ConvGeometry s;
      s.batch = c.depthwise ? 1 : 2;
      s.in_h = c.h;
      s.in_w = c.w;
      s.in_c = c.in_c;
      s.out_c = c.depthwise ? c.out_c / c.in_c : c.out_c;  // a depthwise layer's multiplier
      s.filter_h = s.filter_w = c.k;
      s.stride_h = s.stride_w = c.stride;
      s.dilation_h = s.dilation_w = c.dil;
      window(c.same, s.in_h, s.filter_h, s.stride_h, s.dilation_h, &s.out_h, &s.pad_top);
      window(c.same, s.in_w, s.filter_w, s.stride_w, s.dilation_w, &s.out_w, &s.pad_left);
      RandomLayer layer_data = randomLayer(s, c.depthwise, c.per_channel, c.input_zero, 3, -128, 100, &rng);
      layer_data.r.rounding = rounding;
      const auto& [input, filter, bias, r] = layer_data;
      const auto n = static_cast<std::size_t>(s.batch * s.out_h * s.out_w * c.out_c);
      std::vector<std::int8_t> expected(n), got(n);
      if (c.depthwise) tflite::depthwiseReference(s, r, input.data(), filter.data(), bias.data(), expected.data());
      else tflite::convReference(s, r, input.data(), filter.data(), bias.data(), expected.data());
      ThreadPool pool(threads);
      tflite::FastLayer layer(c.depthwise ? tflite::FastLayer::Kind::kDepthwise : tflite::FastLayer::Kind::kConv);
      layer.conv(s, r, input.data(), filter.data(), bias.data(), got.data(), &pool);
      EXPECT_EQ(firstDifference(expected, got), -1) << "backend " << layer.lastBackend();
      // Without oneDNN's VNNI kernels, convolutions take the AVX2 GEMM.
      if (!c.depthwise && lowp::Avx2Gemm::available() && !lowp::dnnlAvailable()) {
        EXPECT_STREQ(layer.lastBackend(), "avx2");
      }
      // With them, XNNPACK's requantization is oneDNN's output stage.
      if (!c.depthwise && lowp::dnnlAvailable() && rounding == tflite::Rounding::kFp32) {
        EXPECT_STREQ(layer.lastBackend(), "dnnl-requantizing");
      }
      // A second run reuses the prepared weights and requantizer.
      std::vector<std::int8_t> again(n);
      layer.conv(s, r, input.data(), filter.data(), nullptr, again.data(), &pool);
      if (c.depthwise) tflite::depthwiseReference(s, r, input.data(), filter.data(), nullptr, expected.data());
      else tflite::convReference(s, r, input.data(), filter.data(), nullptr, expected.data());
      EXPECT_EQ(firstDifference(expected, again), -1) << "without bias";
    }
  }
}

// XNNPACK's arithmetic with oneDNN writing the int8 output: a late layer
// (one image whose filter outweighs its input) split between two threads by
// output channels, each slice with its own scales and starting sums, and
// the padding made cells of the input zero point; a clamp narrower than
// int8 and a zero point at each end. Where a sum could pass 2^24 (576
// weights of 127 times inputs up to 255: 18.7 million), where float would
// round it, the layer keeps its int32 accumulators.
TEST(TfliteFast, RequantizingConvolutionSplitByChannelsMatchesTheReference) {
  std::mt19937 rng(31);
  for (const std::int64_t in_c : {32, 64})
  for (std::int32_t input_zero : {-128, 127}) {
    const bool large = in_c == 64;
    SCOPED_TRACE("input zero point " + std::to_string(input_zero) + (large ? ", weights of 127" : ""));
    ops::ConvGeometry s;
    s.in_h = s.in_w = 4;
    s.in_c = in_c;
    s.out_c = 80;
    s.filter_h = s.filter_w = 3;
    window(true, s.in_h, 3, 1, 1, &s.out_h, &s.pad_top);
    window(true, s.in_w, 3, 1, 1, &s.out_w, &s.pad_left);
    ASSERT_EQ(ops::convChannelSlices(s, false, 2).size(), 2u);
    RandomLayer l = randomLayer(s, false, true, input_zero, -5, -100, 90, &rng);
    if (large) std::fill(l.filter.begin(), l.filter.end(), std::int8_t{127});
    l.r.rounding = tflite::Rounding::kFp32;
    const auto n = static_cast<std::size_t>(s.out_h * s.out_w * s.out_c);
    std::vector<std::int8_t> expected(n), got(n);
    tflite::convReference(s, l.r, l.input.data(), l.filter.data(), l.bias.data(), expected.data());
    ThreadPool pool(2);
    tflite::FastLayer layer(tflite::FastLayer::Kind::kConv);
    layer.conv(s, l.r, l.input.data(), l.filter.data(), l.bias.data(), got.data(), &pool);
    EXPECT_EQ(firstDifference(expected, got), -1) << "backend " << layer.lastBackend();
    if (lowp::dnnlAvailable()) {
      EXPECT_STREQ(layer.lastBackend(), large ? "dnnl" : "dnnl-requantizing");
    }
  }
}

// The fused AVX2 depthwise pass (channel multiplier 1, requantization in
// the same pass) on the shapes its blocking has edges for: channel counts
// below, at and past multiples of 16, windows with an odd number of taps
// (3 x 3) and an even one (2 x 2), 1 x 1 and 5 x 5, padding on every side
// (more than the window's half, so whole window rows and columns fall
// outside), stride 2, dilation, two images, both ends of the input zero
// point, a clamp narrower than int8 and per-tensor multipliers. A channel
// multiplier of 2 takes the other path and still matches. Under XNNPACK's
// arithmetic with oneDNN's VNNI kernels, layers of stride 1 are oneDNN's
// with the output stage in it, but with a bias beyond float's exact
// integers.
TEST(TfliteFast, DepthwiseFusedPassMatchesTheReference) {
  std::mt19937 rng(23);
  struct Case {
    std::string name;
    std::int64_t h, w, c, k_h, k_w, stride, dil, pad_top, pad_left, out_h, out_w, multiplier;
    std::int32_t input_zero, act_min, act_max;
    bool per_channel;
  };
  const std::vector<Case> cases = {
      {"3x3 16 channels, same", 9, 8, 16, 3, 3, 1, 1, 1, 1, 9, 8, 1, -128, -128, 127, true},
      {"3x3 7 channels", 6, 7, 7, 3, 3, 1, 1, 1, 1, 6, 7, 1, 127, -128, 127, true},
      {"3x3 40 channels stride 2", 11, 10, 40, 3, 3, 2, 1, 0, 0, 6, 5, 1, 5, -20, 90, true},
      {"3x3 33 channels stride 2 padded all round", 7, 9, 33, 3, 3, 2, 1, 2, 2, 5, 6, 1, -1, -128, 127, true},
      {"3x3 dilated 2, 24 channels", 10, 9, 24, 3, 3, 1, 2, 2, 2, 10, 9, 1, 60, 0, 127, true},
      {"2x2 even taps, 17 channels", 5, 6, 17, 2, 2, 1, 1, 1, 0, 5, 6, 1, -7, -128, 127, false},
      {"5x5 48 channels", 8, 8, 48, 5, 5, 1, 1, 2, 2, 8, 8, 1, 3, -128, 127, true},
      {"1x1 30 channels", 4, 5, 30, 1, 1, 1, 1, 0, 0, 4, 5, 1, -100, -128, 127, true},
      {"3x3 window wider than the input", 2, 2, 20, 3, 3, 1, 1, 2, 2, 4, 4, 1, 9, -128, 127, true},
      {"multiplier 2 falls back", 6, 6, 12, 3, 3, 1, 1, 1, 1, 6, 6, 2, -5, -128, 127, true},
  };
  for (tflite::Rounding rounding : {tflite::Rounding::kDouble, tflite::Rounding::kFp32})
  for (const Case& c : cases) {
    for (int threads : {1, 2}) {
      SCOPED_TRACE(roundingName(rounding) + ", " + c.name + ", " + std::to_string(threads) + " thread(s)");
      ops::ConvGeometry s;
      s.batch = 2;
      s.in_h = c.h;
      s.in_w = c.w;
      s.in_c = c.c;
      s.out_c = c.multiplier;
      s.filter_h = c.k_h;
      s.filter_w = c.k_w;
      s.stride_h = s.stride_w = c.stride;
      s.dilation_h = s.dilation_w = c.dil;
      s.pad_top = c.pad_top;
      s.pad_left = c.pad_left;
      s.out_h = c.out_h;
      s.out_w = c.out_w;
      RandomLayer layer_data = randomLayer(s, true, c.per_channel, c.input_zero, -4, c.act_min, c.act_max, &rng);
      layer_data.r.rounding = rounding;
      const auto& [input, filter, bias, r] = layer_data;
      const auto n = static_cast<std::size_t>(s.batch * s.out_h * s.out_w * c.c * c.multiplier);
      std::vector<std::int8_t> expected(n), got(n, 0x55);
      tflite::depthwiseReference(s, r, input.data(), filter.data(), bias.data(), expected.data());
      ThreadPool pool(threads);
      tflite::FastLayer layer(tflite::FastLayer::Kind::kDepthwise);
      layer.conv(s, r, input.data(), filter.data(), bias.data(), got.data(), &pool);
      EXPECT_EQ(firstDifference(expected, got), -1) << "backend " << layer.lastBackend();
      if (lowp::Avx2Gemm::available() && !lowp::dnnlAvailable()) {
        EXPECT_STREQ(layer.lastBackend(), c.multiplier == 1 ? "avx2" : "loop");
      }
      // (A multiplier of 2 gets no exact oneDNN kernel here: the loop.)
      const bool requantizing =
          lowp::dnnlAvailable() && rounding == tflite::Rounding::kFp32 && c.multiplier == 1;
      if (requantizing) {
        EXPECT_STREQ(layer.lastBackend(), c.stride == 1 ? "dnnl-requantizing" : "avx2");
      }
      // Again without bias: the prepared layer takes the new bias.
      std::vector<std::int8_t> again(n, 0x55);
      layer.conv(s, r, input.data(), filter.data(), nullptr, again.data(), &pool);
      tflite::depthwiseReference(s, r, input.data(), filter.data(), nullptr, expected.data());
      EXPECT_EQ(firstDifference(expected, again), -1) << "without bias";
      // A bias of 1.5 * 2^30 (twice it overflows int32) takes the general
      // requantization, not the short form, with multipliers small enough
      // that the outputs stay in range.
      std::vector<std::int32_t> huge_bias(bias);
      for (std::size_t i = 0; i < huge_bias.size(); ++i)
        huge_bias[i] = (i % 2 ? -1 : 1) * ((3 << 29) + 1000 * static_cast<std::int32_t>(i));
      tflite::Requant small = r;
      tflite::convMultipliers(0.05f, std::vector<float>(static_cast<std::size_t>(c.c * c.multiplier), 1.5e-8f), 0.02f,
                              &small);
      small.rounding = rounding;
      std::vector<std::int8_t> wide(n, 0x55);
      layer.conv(s, small, input.data(), filter.data(), huge_bias.data(), wide.data(), &pool);
      tflite::depthwiseReference(s, small, input.data(), filter.data(), huge_bias.data(), expected.data());
      EXPECT_EQ(firstDifference(expected, wide), -1) << "bias of 1.5 * 2^30";
      if (requantizing) {
        EXPECT_STREQ(layer.lastBackend(), "avx2");
      }
      EXPECT_LT(std::count(expected.begin(), expected.end(), c.act_max), static_cast<std::ptrdiff_t>(n / 2));
    }
  }
}

TEST(TfliteFast, FullyConnectedMatchesTheReference) {
  std::mt19937 rng(9);
  for (tflite::Rounding rounding : kRoundings)
  for (const auto& [batch, depth, units, per_channel, weight_zero] :
       std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t, bool, std::int32_t>>{
           {1, 2048, 1000, true, 0}, {3, 37, 11, false, 0}, {2, 64, 19, false, -9}}) {
    SCOPED_TRACE(std::to_string(batch) + "x" + std::to_string(depth) + " -> " + std::to_string(units));
    const auto input = randomInt8(static_cast<std::size_t>(batch * depth), &rng);
    const auto weights = randomInt8(static_cast<std::size_t>(units * depth), &rng);
    std::vector<std::int32_t> bias(static_cast<std::size_t>(units));
    for (auto& b : bias) b = static_cast<std::int32_t>(rng() % 4001) - 2000;
    std::vector<float> scales(per_channel ? static_cast<std::size_t>(units) : 1, 0.004f);
    if (per_channel)
      for (std::size_t u = 0; u < scales.size(); ++u) scales[u] = 0.002f + 0.0001f * static_cast<float>(u % 17);
    tflite::Requant r;
    r.input_offset = 17;
    r.filter_offset = -weight_zero;
    r.output_offset = -10;
    tflite::convMultipliers(0.03f, scales, 0.2f, &r);
    r.rounding = rounding;
    const auto n = static_cast<std::size_t>(batch * units);
    std::vector<std::int8_t> expected(n), got(n);
    tflite::fullyConnectedReference(r, input.data(), weights.data(), bias.data(), batch, depth, units, expected.data());
    ThreadPool pool(2);
    tflite::FastLayer layer(tflite::FastLayer::Kind::kFullyConnected);
    layer.fullyConnected(r, input.data(), weights.data(), bias.data(), batch, depth, units, got.data(), &pool);
    EXPECT_EQ(firstDifference(expected, got), -1) << "backend " << layer.lastBackend();
    if (lowp::Avx2Gemm::available() && !lowp::dnnlAvailable()) {
      EXPECT_STREQ(layer.lastBackend(), "avx2");
    }
  }
}

TEST(TfliteFast, GemmKeepsEveryAccumulatorExact) {
  if (!lowp::Avx2Gemm::available()) GTEST_SKIP() << "no AVX2 on this CPU";
  // Extreme values (every product 255 * 255 with both offsets), K odd and
  // longer than one block of K, rows and columns not multiples of the tile.
  for (const auto& [rows, n, k] : std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>>{
           {7, 21, 1}, {11, 16, 1025}, {5, 33, 2047}, {1, 1000, 2048}}) {
    SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(k) + " * " + std::to_string(k) + "x" + std::to_string(n));
    for (std::int32_t sign : {1, -1}) {
      std::vector<std::int8_t> a(static_cast<std::size_t>(rows * k), sign > 0 ? 127 : -128);
      std::vector<std::int8_t> w(static_cast<std::size_t>(n * k), sign > 0 ? 127 : -128);
      a[0] = 5;
      w[static_cast<std::size_t>(k - 1)] = -3;
      const std::int32_t a_offset = sign * 128, w_offset = sign * 128;
      lowp::Avx2Gemm gemm;
      gemm.packWeights(w.data(), n, k, w_offset);
      std::vector<std::int32_t> got(static_cast<std::size_t>(rows * n));
      gemm.run(a.data(), rows, k, a_offset, got.data());
      for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
          std::int64_t expected = 0;
          for (std::int64_t q = 0; q < k; ++q)
            expected += (std::int64_t{a[static_cast<std::size_t>(i * k + q)]} + a_offset) *
                        (std::int64_t{w[static_cast<std::size_t>(j * k + q)]} + w_offset);
          ASSERT_EQ(got[static_cast<std::size_t>(i * n + j)], static_cast<std::int32_t>(expected))
              << "row " << i << " column " << j;
        }
    }
  }
}

}  // namespace
}  // namespace gds::engine

namespace gds::engine {
namespace {

std::vector<std::int16_t> randomInt16(std::size_t n, std::mt19937* rng) {
  std::uniform_int_distribution<int> d(-32768, 32767);
  std::vector<std::int16_t> v(n);
  for (auto& x : v) x = static_cast<std::int16_t>(d(*rng));
  return v;
}

// The 16x8 fast loops (int16_fast.cc) against the reference loops on odd
// geometries: padding, strides, dilation, a depth multiplier, 600-deep dot
// products (three int32 blocks), extreme inputs and weights, per-channel
// and per-tensor multipliers, both roundings.
TEST(TfliteFast, Int16x8LayersMatchTheReference) {
  std::mt19937 rng(16);
  struct Case {
    std::int64_t in_h, in_w, in_c, out_c, k, stride, dil, pad;
    bool depthwise;
  };
  const Case cases[] = {{7, 9, 5, 6, 3, 1, 1, 1, false}, {8, 8, 600, 4, 1, 1, 1, 0, false},
                        {9, 7, 3, 5, 3, 2, 2, 2, false}, {7, 9, 8, 1, 3, 1, 1, 1, true},
                        {10, 6, 3, 2, 5, 2, 1, 2, true}, {5, 5, 16, 1, 3, 2, 2, 1, true}};
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << c.in_h << "x" << c.in_w << "x" << c.in_c << " k" << c.k << " stride "
                                      << c.stride << " dilation " << c.dil << (c.depthwise ? " depthwise" : ""));
    ops::ConvGeometry s;
    s.batch = 2;
    s.in_h = c.in_h;
    s.in_w = c.in_w;
    s.in_c = c.in_c;
    s.out_c = c.out_c;
    s.filter_h = s.filter_w = c.k;
    s.stride_h = s.stride_w = c.stride;
    s.dilation_h = s.dilation_w = c.dil;
    s.pad_top = s.pad_left = c.pad;
    const std::int64_t effective = (c.k - 1) * c.dil + 1;
    s.out_h = (c.in_h + 2 * c.pad - effective) / c.stride + 1;
    s.out_w = (c.in_w + 2 * c.pad - effective) / c.stride + 1;
    const std::int64_t channels = s.outputChannels(c.depthwise);
    std::vector<std::int16_t> input = randomInt16(static_cast<std::size_t>(s.batch * s.in_h * s.in_w * s.in_c), &rng);
    input[0] = -32768;
    input[1] = 32767;
    const std::size_t filter_size =
        static_cast<std::size_t>(c.depthwise ? c.k * c.k * channels : channels * c.k * c.k * s.in_c);
    std::vector<std::int8_t> filter = randomInt8(filter_size, &rng);
    filter[0] = -128;
    std::vector<std::int64_t> bias(static_cast<std::size_t>(channels));
    std::uniform_int_distribution<std::int64_t> b(-(std::int64_t{1} << 40), std::int64_t{1} << 40);
    for (auto& v : bias) v = b(rng);
    for (bool per_channel : {false, true})
      for (tflite::Rounding rounding : {tflite::Rounding::kDouble, tflite::Rounding::kSingle}) {
        tflite::Requant r;
        r.rounding = rounding;
        r.act_min = -32768;
        r.act_max = 32767;
        std::vector<float> scales(per_channel ? static_cast<std::size_t>(channels) : 1);
        for (std::size_t i = 0; i < scales.size(); ++i) scales[i] = 0.002f * static_cast<float>(i + 1);
        tflite::convMultipliers(0.0005f, scales, 0.03f, &r);
        const std::size_t out_size = static_cast<std::size_t>(s.batch * s.out_h * s.out_w * channels);
        std::vector<std::int16_t> want(out_size), got(out_size, 0x5555);
        if (c.depthwise) {
          tflite::depthwiseReference(s, r, input.data(), filter.data(), bias.data(), want.data());
          tflite::depthwiseFast(s, r, input.data(), filter.data(), bias.data(), got.data(), 0, s.batch * s.out_h);
        } else {
          tflite::convReference(s, r, input.data(), filter.data(), bias.data(), want.data());
          tflite::convFast(s, r, input.data(), filter.data(), bias.data(), got.data(), 0, s.batch * s.out_h);
        }
        EXPECT_EQ(got, want) << (per_channel ? "per channel" : "per tensor");
        if (c.depthwise) continue;
        // The same weights as a fully connected layer over the first rows.
        const std::int64_t depth = c.k * c.k * s.in_c, rows = s.in_h;
        if (static_cast<std::int64_t>(input.size()) < rows * depth) continue;
        std::vector<std::int16_t> fc_want(static_cast<std::size_t>(rows * channels)), fc_got(fc_want.size(), 0x5555);
        tflite::fullyConnectedReference(r, input.data(), filter.data(), bias.data(), rows, depth, channels,
                                        fc_want.data());
        tflite::fullyConnectedFast(r, input.data(), filter.data(), bias.data(), depth, channels, fc_got.data(), 0,
                                   rows);
        EXPECT_EQ(fc_got, fc_want);
      }
  }
}

}  // namespace
}  // namespace gds::engine
