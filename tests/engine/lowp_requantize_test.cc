// The rounding primitives of each runtime (engine/lowp/requantize.h) on the
// cases where the runtimes part: exact halves in float and in double,
// negative halves, values one rounding puts on a half, saturation. Every
// expected value is worked out from the runtime's own code, cited beside it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "engine/lowp/requantize.h"

namespace gds::engine::lowp {
namespace {

float floatFromBits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// A normalized pixel (p - 127.5) / 127.5 and the scale 1 / 127.5, both as
// float32: MobileNet's input quantization. x / scale in float is an exact
// half for most pixels while the quotient in double is not (it lies just
// inside): the case that makes QUANTIZE differ between the runtimes.
const float kPixelScale = floatFromBits(1006665857u);  // 0.007843137718737125
const float kPixel32 = floatFromBits(3208626112u);     // -0.7490196228027344: float quotient -95.5
const float kPixel33 = -floatFromBits(1061010878u);    // -0.7411764860153198: -94.5
const float kPixel128 = floatFromBits(998277249u);     // 0.003921568859368563: 0.5 exactly
const float kPixel222 = floatFromBits(1061010878u);    // 0.7411764860153198: 94.5
const float kPixel223 = floatFromBits(1061142464u);    // 0.7490196228027344: 95.5

TEST(LowpArithmetic, NamesParseBackAndListTheChoices) {
  for (Arithmetic a : allArithmetics()) {
    Arithmetic parsed = Arithmetic::kArmnn;
    ASSERT_TRUE(parseArithmetic(arithmeticName(a), &parsed)) << arithmeticName(a);
    EXPECT_EQ(parsed, a);
  }
  Arithmetic unused;
  EXPECT_FALSE(parseArithmetic("tflite", &unused));
  EXPECT_FALSE(parseArithmetic("", &unused));
  EXPECT_EQ(arithmeticChoices(), "tflite-xnnpack, tflite-builtin, tflite-reference or armnn");
  EXPECT_STREQ(arithmeticName(kDefaultArithmetic), "tflite-xnnpack");
}

TEST(LowpTflite, QuantizeMultiplierAsQuantizationUtil) {
  FixedMultiplier m = quantizeMultiplier(0.5);
  EXPECT_EQ(m.multiplier, 1 << 30);
  EXPECT_EQ(m.shift, 0);
  m = quantizeMultiplier(1.5);  // 0.75 * 2^1
  EXPECT_EQ(m.multiplier, 1610612736);
  EXPECT_EQ(m.shift, 1);
  m = quantizeMultiplier(0.99999999999);  // the mantissa rounds to 2^31: next exponent
  EXPECT_EQ(m.multiplier, 1 << 30);
  EXPECT_EQ(m.shift, 1);
  m = quantizeMultiplier(1e-12);  // below 2^-31: zero
  EXPECT_EQ(m.multiplier, 0);
  EXPECT_EQ(m.shift, 0);
  m = quantizeMultiplier(std::ldexp(1.0, 40));  // above 2^30: saturated
  EXPECT_EQ(m.multiplier, std::numeric_limits<std::int32_t>::max());
  EXPECT_EQ(m.shift, 30);
}

// MobileNet's first depthwise layer: accumulator 4752, multiplier
// 1706195128, shift -7, exactly 29.49614... The doubling high multiply
// rounds 3775.5068 to 3776, and 3776 / 128 = 29.5 rounds again, to 30; ruy's
// one rounding gives 29.
TEST(LowpTflite, TwoRoundingsAndOneRoundingPartOnAValueNearAHalf) {
  const FixedMultiplier m{1706195128, -7};
  EXPECT_EQ(saturatingRoundingDoublingHighMul(4752, m.multiplier), 3776);
  EXPECT_EQ(multiplyDoubleRounding(4752, m), 30);
  EXPECT_EQ(multiplySingleRounding(4752, m), 29);
  EXPECT_EQ(multiplyDoubleRounding(-4752, m), -30);
  EXPECT_EQ(multiplySingleRounding(-4752, m), -29);
}

TEST(LowpTflite, ExactHalvesRoundUpInRuyAndAwayFromZeroInRoundingDivideByPot) {
  // x * 0.5 with the multiplier 2^30, shift 0: SaturatingRoundingDoublingHighMul
  // nudges by 2^30 (x >= 0) or 1 - 2^30 (x < 0) and truncates: 3 -> 1.5 -> 2,
  // -3 -> -1.5 -> -1 (both halves up).
  const FixedMultiplier half{1 << 30, 0};
  EXPECT_EQ(multiplyDoubleRounding(3, half), 2);
  EXPECT_EQ(multiplyDoubleRounding(-3, half), -1);
  EXPECT_EQ(multiplySingleRounding(3, half), 2);
  EXPECT_EQ(multiplySingleRounding(-3, half), -1);
  // x / 4 with multiplier 2^30 and shift -1 (0.25): the doubling high
  // multiply is exact (x / 2), RoundingDivideByPOT rounds the half away from
  // zero: 6 -> 1.5 -> 2, -6 -> -1.5 -> -2; ruy rounds the half up: -1.
  const FixedMultiplier quarter{1 << 30, -1};
  EXPECT_EQ(multiplyDoubleRounding(6, quarter), 2);
  EXPECT_EQ(multiplyDoubleRounding(-6, quarter), -2);
  EXPECT_EQ(multiplySingleRounding(6, quarter), 2);
  EXPECT_EQ(multiplySingleRounding(-6, quarter), -1);
  EXPECT_EQ(roundingDivideByPOT(-5, 1), -3);  // -2.5 away from zero
  EXPECT_EQ(roundingDivideByPOT(5, 1), 3);
  EXPECT_EQ(roundingDivideByPOT(-7, 2), -2);  // -1.75
}

TEST(LowpTflite, SaturationEdges) {
  // The only overflow of the doubling high multiply: INT32_MIN squared.
  EXPECT_EQ(saturatingRoundingDoublingHighMul(std::numeric_limits<std::int32_t>::min(),
                                              std::numeric_limits<std::int32_t>::min()),
            std::numeric_limits<std::int32_t>::max());
  // A left shift wraps in int32 before the multiply (common.h multiplies
  // x * (1 << left_shift) in int32): 2^29 << 2 is INT32_MIN, times 0.5.
  const FixedMultiplier two{1 << 30, 2};  // 0.5 * 2^2 = 2
  EXPECT_EQ(multiplyDoubleRounding(1 << 28, two), 1 << 29);
  EXPECT_EQ(multiplyDoubleRounding(1 << 29, two), -(1 << 30));
  // ruy computes in 64 bits: no wrap.
  EXPECT_EQ(multiplySingleRounding(1 << 29, two), 1 << 30);
}

TEST(LowpTflite, QuantizeDividesInFloatInTheReferenceKernelAndInDoubleInTheBuiltinOne) {
  // Pixel 32: float quotient -95.5 (a half, away from zero: -96), double
  // quotient -95.49999626 (-95).
  EXPECT_EQ(tfliteQuantizeReference(kPixel32, kPixelScale, 0), -96);
  EXPECT_EQ(tfliteQuantizeBuiltin(kPixel32, kPixelScale, 0), -95);
  EXPECT_EQ(tfliteQuantizeReference(kPixel222, kPixelScale, -1), 94);  // 94.5 -> 95, - 1
  EXPECT_EQ(tfliteQuantizeBuiltin(kPixel222, kPixelScale, -1), 93);   // 94.49999638 -> 94, - 1
  // An exact half in both: away from zero.
  EXPECT_EQ(tfliteQuantizeReference(kPixel128, kPixelScale, 0), 1);
  EXPECT_EQ(tfliteQuantizeBuiltin(kPixel128, kPixelScale, 0), 1);
  EXPECT_EQ(tfliteQuantizeBuiltin(-kPixel128, kPixelScale, 0), -1);
  // Saturation, and values far beyond int32.
  EXPECT_EQ(tfliteQuantizeReference(1.0f, kPixelScale, 10), 127);
  EXPECT_EQ(tfliteQuantizeBuiltin(-1e30f, 1e-6f, 0), -128);
  EXPECT_EQ(tfliteQuantizeReference(1e30f, 1e-6f, 0), 127);
}

TEST(LowpTflite, DequantizeMultipliesInDouble) {
  // scale * (q - zp) in double, then float: 0.1f * 3 rounds once.
  EXPECT_EQ(tfliteDequantize(4, 0.1f, 1), static_cast<float>(static_cast<double>(0.1f) * 3));
  EXPECT_EQ(tfliteDequantize(-128, 0.5f, 127), -127.5f);
}

TEST(LowpTflite, ActivationRangeRoundsTheBoundAwayFromZero) {
  std::int32_t lo = 0, hi = 0;
  // RELU6 with scale 4: 6 / 4 = 1.5 -> 2, plus zero point 1: [1, 3].
  tfliteActivationRange(0.0f, 6.0f, 4.0f, 1, &lo, &hi);
  EXPECT_EQ(lo, 1);
  EXPECT_EQ(hi, 3);
  tfliteActivationRange(-INFINITY, INFINITY, 0.1f, 5, &lo, &hi);
  EXPECT_EQ(lo, -128);
  EXPECT_EQ(hi, 127);
  tfliteActivationRange(-1.0f, 1.0f, 0.001f, 0, &lo, &hi);  // beyond int8: clamped
  EXPECT_EQ(lo, -128);
  EXPECT_EQ(hi, 127);
}

TEST(LowpXnnpack, Fp32RequantizationRoundsHalvesToEven) {
  // scale 0.5: 5 -> 2.5 -> 2, 7 -> 3.5 -> 4, -5 -> -2, -7 -> -4.
  EXPECT_EQ(xnnRequantizeFp32(5, 0.5f, 0, -128, 127), 2);
  EXPECT_EQ(xnnRequantizeFp32(7, 0.5f, 0, -128, 127), 4);
  EXPECT_EQ(xnnRequantizeFp32(-5, 0.5f, 0, -128, 127), -2);
  EXPECT_EQ(xnnRequantizeFp32(-7, 0.5f, 0, -128, 127), -4);
  // The same accumulators in TensorFlow Lite's two roundings: 2.5 -> 3.
  EXPECT_EQ(multiplyDoubleRounding(5, quantizeMultiplier(0.5)), 3);
  // The accumulator becomes a float first: 3 * 2^24 - 1 is not one and
  // rounds to 3 * 2^24, so times 2^-25 it is 1.5 (-> 2), not 1.49999997.
  EXPECT_EQ(xnnRequantizeFp32(50331647, 0x1.0p-25f, 0, -128, 127), 2);
  EXPECT_EQ(multiplySingleRounding(50331647, quantizeMultiplier(0x1.0p-25)), 1);
  // Clamped in float before rounding, zero point added after.
  EXPECT_EQ(xnnRequantizeFp32(1000, 1.0f, 10, -128, 127), 127);
  EXPECT_EQ(xnnRequantizeFp32(std::numeric_limits<std::int32_t>::min(), 1.0f, -3, -128, 127), -128);
  EXPECT_EQ(xnnRequantizeFp32(3, 1.0f, 0, 0, 6), 3);
  EXPECT_EQ(xnnRequantizeFp32(-3, 1.0f, 0, 0, 6), 0);
  EXPECT_FLOAT_EQ(xnnRequantizationScale(0.5f, 0.25f, 2.0f), 0.0625f);
}

TEST(LowpXnnpack, ActivationBoundRoundsToEvenAfterAddingTheZeroPoint) {
  // 6 / 4 + 1 = 2.5: lrintf gives 2 where TensorFlow Lite gives 1 + 2 = 3.
  EXPECT_EQ(xnnQuantizeBound(6.0f, 4.0f, 1), 2);
  EXPECT_EQ(xnnQuantizeBound(6.0f, 4.0f, 0), 2);  // 1.5 -> 2
  EXPECT_EQ(xnnQuantizeBound(-INFINITY, 0.1f, 3), -128);
  EXPECT_EQ(xnnQuantizeBound(INFINITY, 0.1f, 3), 127);
  std::int32_t lo = 0, hi = 0;
  xnnActivationRange(0.0f, 6.0f, 4.0f, 1, &lo, &hi);
  EXPECT_EQ(lo, 1);
  EXPECT_EQ(hi, 2);
}

TEST(LowpXnnpack, QuantizeMultipliesByTheReciprocalAndRoundsToEven) {
  const float inv = 1.0f / kPixelScale;  // 127.49999237
  EXPECT_EQ(xnnQuantize(kPixel32, inv, 0), -96);   // -95.5 -> -96 (even)
  EXPECT_EQ(xnnQuantize(kPixel33, inv, 0), -94);   // -94.5 -> -94 (even)
  EXPECT_EQ(xnnQuantize(kPixel128, inv, 0), 0);    // 0.5 -> 0
  EXPECT_EQ(xnnQuantize(-kPixel128, inv, 0), 0);   // -0.5 -> -0
  EXPECT_EQ(xnnQuantize(kPixel223, inv, -1), 95);  // 95.5 -> 96, - 1
  EXPECT_EQ(xnnQuantize(1e30f, inv, 0), 127);
  EXPECT_EQ(xnnQuantize(-1e30f, inv, 5), -128);
  EXPECT_EQ(xnnDequantize(-128, 0.5f, 127), -127.5f);
}

TEST(LowpXnnpack, AddUsesTwentyBitMultipliersAndRoundsHalvesUp) {
  // a at the output's scale, b at half of it: shift 20, multipliers 2^20
  // and 2^19. 1 + 0.5 = 1.5 -> 2; -1 - 0.5 = -1.5 -> -1 (up, not away).
  XnnAdd p;
  ASSERT_TRUE(xnnAddParams(0.5f, 0, 0.25f, 0, 0.5f, 0, false, &p));
  EXPECT_EQ(p.shift, 20u);
  EXPECT_EQ(p.a_multiplier, 1 << 20);
  EXPECT_EQ(p.b_multiplier, 1 << 19);
  EXPECT_EQ(xnnAddUnclamped(p, 1, 1), 2);
  EXPECT_EQ(xnnAddUnclamped(p, -1, -1), -1);
  EXPECT_EQ(xnnAddUnclamped(p, 127, 127), 191);  // 190.5 -> 191, unclamped
  // Zero points fold into the bias: (3 - 1) + (5 - 3) / 2 = 3, plus 2.
  ASSERT_TRUE(xnnAddParams(0.5f, 1, 0.25f, 3, 0.5f, 2, false, &p));
  EXPECT_EQ(xnnAddUnclamped(p, 3, 5), 5);
  // SUB negates b's multiplier: (1) - (1) / 2 = 0.5 -> 1.
  ASSERT_TRUE(xnnAddParams(0.5f, 0, 0.25f, 0, 0.5f, 0, true, &p));
  EXPECT_EQ(p.b_multiplier, -(1 << 19));
  EXPECT_EQ(xnnAddUnclamped(p, 1, 1), 1);
  EXPECT_EQ(xnnAddUnclamped(p, -1, -1), 0);  // -0.5 -> 0
  // Ratios XNNPACK refuses (TFLite's delegate then keeps the built-in ADD).
  EXPECT_FALSE(xnnAddParams(1.0f, 0, 1.0f, 0, 2048.0f, 0, false, &p));
  EXPECT_FALSE(xnnAddParams(300.0f, 0, 1.0f, 0, 1.0f, 0, false, &p));
}

TEST(LowpXnnpack, ConvertAndLeakyReluUseEightFractionalBits) {
  // ratio 0.75: multiplier 192; (x - zp) * 192 / 256 + 0.5 floored.
  const XnnQ8Rescale c = xnnConvertParams(0.75f, 0, 1.0f, 0);
  EXPECT_EQ(c.positive_multiplier, 192);
  EXPECT_EQ(xnnRescale(c, 2), 2);    // 1.5 -> 2
  EXPECT_EQ(xnnRescale(c, -2), -1);  // -1.5 -> -1: halves up
  EXPECT_EQ(xnnRescale(c, 127), 95);
  // ratio 1/3: lrintf(85.333) = 85, so 3 * 85 / 256 = 0.996 -> 1.
  const XnnQ8Rescale third = xnnConvertParams(1.0f, 0, 3.0f, 0);
  EXPECT_EQ(third.positive_multiplier, 85);
  EXPECT_EQ(xnnRescale(third, 3), 1);
  // Saturation after the shift.
  EXPECT_EQ(xnnRescale(xnnConvertParams(4.0f, 0, 1.0f, 0), 100), 127);
  // Leaky ReLU: alpha 0.25 on the negative side.
  const XnnQ8Rescale l = xnnLeakyReluParams(0.25f, 1.0f, -5, 1.0f, 3);
  EXPECT_EQ(l.positive_multiplier, 256);
  EXPECT_EQ(l.negative_multiplier, 64);
  EXPECT_EQ(xnnRescale(l, 5), 13);  // 10 + 3
  EXPECT_EQ(xnnRescale(l, -11), 2);  // -6 * 0.25 = -1.5 -> -1, + 3
  EXPECT_EQ(xnnRescale(l, -13), 1);  // -2 -> -2, + 3
}

TEST(LowpArmnn, QuantizeDividesInFloatAndRoundsHalvesAwayFromZero) {
  EXPECT_EQ(armnnQuantize(kPixel32, kPixelScale, 0), -96);
  EXPECT_EQ(armnnQuantize(kPixel33, kPixelScale, 0), -95);
  EXPECT_EQ(armnnQuantize(kPixel128, kPixelScale, 0), 1);
  EXPECT_EQ(armnnQuantize(kPixel222, kPixelScale, 0), 95);
  EXPECT_EQ(armnnQuantize(2.5f, 1.0f, 0), 3);
  EXPECT_EQ(armnnQuantize(-2.5f, 1.0f, 0), -3);
  EXPECT_EQ(armnnQuantize(1e30f, 1e-6f, 0), 127);
  EXPECT_EQ(armnnQuantize(-1e30f, 1e-6f, 0), -128);
  EXPECT_EQ(armnnDequantize(-128, 0.5f, 127), -127.5f);
  EXPECT_EQ(armnnDequantize(3, 0.1f, 0), 3 * 0.1f);  // one float product
}

// The four runtimes on the same MobileNet input pixels.
TEST(LowpArithmetic, MobileNetInputPixelsQuantizePerRuntime) {
  const float inv = 1.0f / kPixelScale;
  // pixel 33: float quotient -94.5, double -94.4999964.
  EXPECT_EQ(tfliteQuantizeReference(kPixel33, kPixelScale, 0), -95);
  EXPECT_EQ(tfliteQuantizeBuiltin(kPixel33, kPixelScale, 0), -94);
  EXPECT_EQ(xnnQuantize(kPixel33, inv, 0), -94);
  EXPECT_EQ(armnnQuantize(kPixel33, kPixelScale, 0), -95);
  // pixel 223: float quotient 95.5, double 95.4999963.
  EXPECT_EQ(tfliteQuantizeReference(kPixel223, kPixelScale, 0), 96);
  EXPECT_EQ(tfliteQuantizeBuiltin(kPixel223, kPixelScale, 0), 95);
  EXPECT_EQ(xnnQuantize(kPixel223, inv, 0), 96);
  EXPECT_EQ(armnnQuantize(kPixel223, kPixelScale, 0), 96);
}

// MEAN over 8x8 of MobileNet-scaled int8 values into an output of scale
// 0x1.38793ep-10, zero point -15 (gdstudio's op-coverage model): the sums
// where the runtimes part, with the values LiteRT.js 2.5.3 computes
// (built-in kernel, XNNPACK) and TFLite's reference kernel formula.
TEST(LowpArithmetic, SpatialMeanPerRuntime) {
  const float out_scale = floatFromBits(983317663u);
  const TfliteMeanBuiltin b = tfliteMeanBuiltinParams(kPixelScale, -1, out_scale, -15, 64);
  EXPECT_EQ(b.multiplier.multiplier, 1766266752);
  EXPECT_EQ(b.multiplier.shift, -3);
  EXPECT_EQ(b.bias, -8);  // -15 - round(-7.0799)
  const float xs = xnnMeanScale(kPixelScale, out_scale, 64);
  // Reference kernel: (sum - 64 * zp) rescaled twice rounded, / 64 half away.
  auto reference = [&](std::int32_t raw_sum) {
    const std::int32_t acc = multiplyDoubleRounding(raw_sum + 64, quantizeMultiplier(double{kPixelScale} / out_scale));
    const std::int32_t mean = acc > 0 ? (acc + 32) / 64 : (acc - 32) / 64;
    return std::max(-128, std::min(127, mean - 15));
  };
  struct Case {
    std::int32_t sum;
    int reference, builtin, xnnpack;
  } cases[] = {{-1129, -125, -124, -124}, {-1152, -127, -126, -127}, {-1161, -128, -127, -128},
               {100, 2, 2, 2},           {-5000, -128, -128, -128}, {3000, 127, 127, 127}};
  for (const Case& c : cases) {
    EXPECT_EQ(reference(c.sum), c.reference) << c.sum;
    EXPECT_EQ(tfliteMeanBuiltin(b, c.sum), c.builtin) << c.sum;
    EXPECT_EQ(xnnMean(c.sum, 64, -1, xs, -15), c.xnnpack) << c.sum;
  }
}

// XNNPACK's bilinear taps for 8 -> 13 columns (legacy and half-pixel) and
// 8 -> 11 (align_corners), as LiteRT.js 2.5.3 resizes.
TEST(LowpXnnpack, ResizeBilinearTapsInElevenBitWeights) {
  const auto legacy = xnnResizeTaps(8, 13, false, false);
  ASSERT_EQ(legacy.size(), 13u);
  EXPECT_EQ(legacy[1].first, 0);
  EXPECT_EQ(legacy[1].weight, 1260);  // 8/13 * 2048 = 1260.3
  EXPECT_EQ(legacy[3].first, 1);
  EXPECT_EQ(legacy[3].weight, 1733);
  EXPECT_EQ(legacy[12].first, 7);  // 7.38: both taps the last column
  EXPECT_EQ(legacy[12].second, 7);
  const auto half = xnnResizeTaps(8, 13, false, true);
  EXPECT_EQ(half[0].first, 0);  // -0.19 clamped to 0
  EXPECT_EQ(half[0].weight, 0);
  EXPECT_EQ(half[1].weight, 866);
  EXPECT_EQ(half[6].first, 3);
  EXPECT_EQ(half[6].weight, 1024);  // 3.5 exactly
  EXPECT_EQ(half[12].first, 7);
  EXPECT_EQ(half[12].weight, 0);
  const auto align = xnnResizeTaps(8, 11, true, false);
  EXPECT_EQ(align[5].first, 3);
  EXPECT_EQ(align[5].weight, 1024);
  EXPECT_EQ(align[10].first, 7);
  // Rows then columns, rounded half up at 2^-22.
  EXPECT_EQ(xnnBilinear(0, 1, 0, 1, 1024, 0), 1);    // 0.5 -> 1
  EXPECT_EQ(xnnBilinear(0, -1, 0, -1, 1024, 0), 0);  // -0.5 -> 0
  EXPECT_EQ(xnnBilinear(-128, 127, 127, -128, 1024, 1024), 0);
  EXPECT_EQ(xnnBilinear(127, 127, 127, 127, 2047, 2047), 127);
}

TEST(LowpTables, ApplyTableLooksUpEveryValue) {
  const Int8Table negate = makeTable([](int q) { return static_cast<std::int8_t>(q == -128 ? 127 : -q); });
  std::int8_t in[300], out[300];
  for (int i = 0; i < 300; ++i) in[i] = static_cast<std::int8_t>(i - 150);
  applyTable(negate, in, 300, out);
  for (int i = 0; i < 300; ++i) EXPECT_EQ(out[i], in[i] == -128 ? 127 : -in[i]) << i;
}

// The vector ADD/SUB equals the per-element formula, clamped, on every
// input pair and odd lengths (the loop's tail).
TEST(LowpXnnpack, AddRowsEqualTheElementFormulaOnEveryPair) {
  std::vector<std::int8_t> a, b;
  for (int x = -128; x <= 127; ++x)
    for (int y = -128; y <= 127; ++y) {
      a.push_back(static_cast<std::int8_t>(x));
      b.push_back(static_cast<std::int8_t>(y));
    }
  for (bool subtract : {false, true}) {
    XnnAdd p;
    ASSERT_TRUE(xnnAddParams(0.043f, -7, 0.021f, 11, 0.05f, 3, subtract, &p));
    for (std::int64_t n : {std::int64_t{65536}, std::int64_t{37}}) {
      std::vector<std::int8_t> out(static_cast<std::size_t>(n), 0x55);
      xnnAddRows(p, -100, 120, a.data(), b.data(), n, out.data());
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int32_t v = std::min(std::max(xnnAddUnclamped(p, a[static_cast<std::size_t>(i)], b[static_cast<std::size_t>(i)]), -100), 120);
        ASSERT_EQ(out[static_cast<std::size_t>(i)], v) << subtract << " " << i;
      }
    }
  }
}

}  // namespace
}  // namespace gds::engine::lowp
