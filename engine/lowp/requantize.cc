// The runtimes' rounding primitives (see requantize.h); each function cites
// the code it follows.
#include "engine/lowp/requantize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "engine/lowp/cpu.h"

namespace gds::engine::lowp {

namespace {

struct ArithmeticInfo {
  Arithmetic id;
  const char* name;
  const char* description;
};
constexpr ArithmeticInfo kArithmetics[] = {
    {Arithmetic::kTfliteXnnpack, "tflite-xnnpack", "TensorFlow Lite with the XNNPACK delegate"},
    {Arithmetic::kTfliteBuiltin, "tflite-builtin", "TensorFlow Lite's built-in kernels"},
    {Arithmetic::kTfliteReference, "tflite-reference", "TensorFlow Lite's reference kernels"},
    {Arithmetic::kArmnn, "armnn", "Arm NN (CpuRef)"},
};

const ArithmeticInfo& info(Arithmetic a) {
  for (const ArithmeticInfo& i : kArithmetics)
    if (i.id == a) return i;
  return kArithmetics[0];
}

std::int8_t saturateInt8(std::int64_t v) {
  return static_cast<std::int8_t>(std::min<std::int64_t>(std::max<std::int64_t>(v, -128), 127));
}

// A double already rounded to an integer, as the int32 TFLite casts it to:
// values beyond int32 saturate (they clamp to int8 anyway), NaN is 0.
std::int64_t roundedToInt(double r) {
  if (std::isnan(r)) return 0;
  if (r >= 2147483647.0) return std::numeric_limits<std::int32_t>::max();
  if (r <= -2147483648.0) return std::numeric_limits<std::int32_t>::min();
  return static_cast<std::int64_t>(r);
}

std::uint32_t floatBits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float bitsFloat(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// XNNPACK's rounding to nearest even of a float already clamped to a few
// hundred: adding 1.5 * 2^23 leaves the rounded integer in the low mantissa
// bits (math.h float_as_uint32(x + 12582912.0f) - 0x4B400000).
std::int32_t magicRound(float v) {
  const float biased = v + 12582912.0f;
  return static_cast<std::int32_t>(floatBits(biased)) - 0x4B400000;
}

}  // namespace

const char* arithmeticName(Arithmetic a) { return info(a).name; }

const char* arithmeticDescription(Arithmetic a) { return info(a).description; }

bool parseArithmetic(const std::string& name, Arithmetic* out) {
  for (const ArithmeticInfo& i : kArithmetics)
    if (name == i.name) {
      *out = i.id;
      return true;
    }
  return false;
}

const std::vector<Arithmetic>& allArithmetics() {
  static const std::vector<Arithmetic> all = {Arithmetic::kTfliteXnnpack, Arithmetic::kTfliteBuiltin,
                                              Arithmetic::kTfliteReference, Arithmetic::kArmnn};
  return all;
}

std::string arithmeticChoices() {
  std::string s;
  const std::size_t n = std::size(kArithmetics);
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) s += i + 1 == n ? " or " : ", ";
    s += kArithmetics[i].name;
  }
  return s;
}

float roundHalfAway(float v) { return std::round(v); }
double roundHalfAway(double v) { return std::round(v); }

FixedMultiplier quantizeMultiplier(double real) {
  FixedMultiplier m;
  if (real == 0.0) return m;
  int shift = 0;
  const double q = std::frexp(real, &shift);
  auto q_fixed = static_cast<std::int64_t>(std::round(q * static_cast<double>(1LL << 31)));
  if (q_fixed == (1LL << 31)) {
    q_fixed /= 2;
    ++shift;
  }
  // All bits would be shifted out: TFLite makes the multiplier 0.
  if (shift < -31) {
    shift = 0;
    q_fixed = 0;
  }
  // The largest shift MultiplyByQuantizedMultiplier supports.
  if (shift > 30) {
    shift = 30;
    q_fixed = (1LL << 31) - 1;
  }
  m.multiplier = static_cast<std::int32_t>(q_fixed);
  m.shift = shift;
  return m;
}

std::int32_t saturatingRoundingDoublingHighMul(std::int32_t a, std::int32_t b) {
  const bool overflow = a == b && a == std::numeric_limits<std::int32_t>::min();
  const std::int64_t ab = static_cast<std::int64_t>(a) * static_cast<std::int64_t>(b);
  const std::int32_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
  const auto high = static_cast<std::int32_t>((ab + nudge) / (1LL << 31));
  return overflow ? std::numeric_limits<std::int32_t>::max() : high;
}

std::int32_t roundingDivideByPOT(std::int32_t x, int exponent) {
  const auto mask = static_cast<std::int32_t>((1LL << exponent) - 1);
  const std::int32_t remainder = x & mask;
  const std::int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

std::int32_t multiplyDoubleRounding(std::int32_t x, FixedMultiplier m) {
  const int left_shift = m.shift > 0 ? m.shift : 0;
  const int right_shift = m.shift > 0 ? 0 : -m.shift;
  const auto shifted = static_cast<std::int32_t>(static_cast<std::uint32_t>(x) << left_shift);
  return roundingDivideByPOT(saturatingRoundingDoublingHighMul(shifted, m.multiplier), right_shift);
}

std::int32_t multiplySingleRounding(std::int32_t x, FixedMultiplier m) {
  const int total_shift = 31 - m.shift;
  const std::int64_t round = std::int64_t{1} << (total_shift - 1);
  const std::int64_t result = (static_cast<std::int64_t>(x) * m.multiplier + round) >> total_shift;
  // ruy DCHECKs that the result fits; it is truncated to int32 as ruy's cast.
  return static_cast<std::int32_t>(result);
}

TfliteMeanBuiltin tfliteMeanBuiltinParams(float input_scale, std::int32_t input_zero_point, float output_scale,
                                          std::int32_t output_zero_point, std::int64_t n) {
  // optimized_integer_ops::Mean: every product and quotient in float.
  const auto count = static_cast<float>(n);
  float temp = static_cast<float>(input_zero_point) * input_scale / output_scale;
  temp = temp > 0 ? temp + 0.5f : temp - 0.5f;
  TfliteMeanBuiltin p;
  p.bias = output_zero_point - static_cast<std::int32_t>(temp);
  const float real_scale = input_scale / (count * output_scale);
  p.multiplier = quantizeMultiplier(real_scale);
  return p;
}

std::int8_t tfliteMeanBuiltin(const TfliteMeanBuiltin& p, std::int32_t raw_sum) {
  return saturateInt8(static_cast<std::int64_t>(multiplyDoubleRounding(raw_sum, p.multiplier)) + p.bias);
}

std::int8_t tfliteQuantizeReference(float x, float scale, std::int32_t zero_point) {
  const float q = roundHalfAway(x / scale);
  return saturateInt8(roundedToInt(q) + zero_point);
}

std::int8_t tfliteQuantizeBuiltin(float x, float scale, std::int32_t zero_point) {
  const double q = roundHalfAway(static_cast<double>(x) / static_cast<double>(scale));
  return saturateInt8(roundedToInt(q) + zero_point);
}

float tfliteDequantize(std::int8_t q, float scale, std::int32_t zero_point) {
  return static_cast<float>(static_cast<double>(scale) * (static_cast<std::int32_t>(q) - zero_point));
}

void tfliteActivationRange(float lo, float hi, float scale, std::int32_t zero_point, std::int32_t* qmin,
                           std::int32_t* qmax) {
  auto quantize = [&](float f) { return zero_point + roundedToInt(roundHalfAway(f / scale)); };
  *qmin = std::isinf(lo) ? -128 : static_cast<std::int32_t>(std::max<std::int64_t>(-128, quantize(lo)));
  *qmax = std::isinf(hi) ? 127 : static_cast<std::int32_t>(std::min<std::int64_t>(127, quantize(hi)));
}

float xnnRequantizationScale(float input_scale, float kernel_scale, float output_scale) {
  const float product = input_scale * kernel_scale;
  return product / output_scale;
}

std::int8_t xnnRequantizeFp32(std::int32_t acc, float scale, std::int32_t zero_point, std::int32_t qmin,
                              std::int32_t qmax) {
  float v = static_cast<float>(acc) * scale;
  v = std::max(v, static_cast<float>(qmin - zero_point));
  v = std::min(v, static_cast<float>(qmax - zero_point));
  return static_cast<std::int8_t>(magicRound(v) + zero_point);
}

std::int8_t xnnQuantizeBound(float bound, float scale, std::int32_t zero_point) {
  const float v = bound / scale + static_cast<float>(zero_point);
  return static_cast<std::int8_t>(std::lrint(std::min(std::max(v, -128.0f), 127.0f)));
}

void xnnActivationRange(float lo, float hi, float scale, std::int32_t zero_point, std::int32_t* qmin,
                        std::int32_t* qmax) {
  *qmin = xnnQuantizeBound(lo, scale, zero_point);
  *qmax = xnnQuantizeBound(hi, scale, zero_point);
}

std::int8_t xnnQuantize(float x, float inv_scale, std::int32_t zero_point) {
  float v = x * inv_scale;
  // NaN compares false and stays; the magic rounding then gives garbage, as
  // XNNPACK's. Clamp bounds as xnn_init_f32_qs8_cvt: int8 limits less zp.
  v = std::max(v, static_cast<float>(-128 - zero_point));
  v = std::min(v, static_cast<float>(127 - zero_point));
  return static_cast<std::int8_t>(magicRound(v) + zero_point);
}

float xnnDequantize(std::int8_t q, float scale, std::int32_t zero_point) {
  return static_cast<float>(static_cast<std::int32_t>(q) - zero_point) * scale;
}

bool xnnAddParams(float a_scale, std::int32_t a_zero_point, float b_scale, std::int32_t b_zero_point,
                  float output_scale, std::int32_t output_zero_point, bool subtract, XnnAdd* p) {
  const float a_ratio = a_scale / output_scale;
  const float b_ratio = (subtract ? -b_scale : b_scale) / output_scale;
  const float abs_a = std::fabs(a_ratio), abs_b = std::fabs(b_ratio);
  const float lo = 0x1.0p-10f, hi = 0x1.0p+8f;
  if (!(abs_a >= lo && abs_a < hi && abs_b >= lo && abs_b < hi)) return false;
  const float max_ratio = std::max(abs_a, abs_b);
  const auto max_exponent = static_cast<std::int32_t>(floatBits(max_ratio) >> 23) - 127;
  const auto shift = static_cast<std::uint32_t>(20 - max_exponent);
  // ratio * 2^shift by adding shift to the exponent field, then lrintf.
  const auto a_mult = static_cast<std::int32_t>(std::lrint(bitsFloat(floatBits(abs_a) + (shift << 23))));
  const auto b_mult = static_cast<std::int32_t>(std::lrint(bitsFloat(floatBits(abs_b) + (shift << 23))));
  p->a_multiplier = std::signbit(a_ratio) ? -a_mult : a_mult;
  p->b_multiplier = std::signbit(b_ratio) ? -b_mult : b_mult;
  p->shift = shift;
  p->bias = static_cast<std::int32_t>((std::int32_t{1} << (shift - 1)) - p->a_multiplier * a_zero_point -
                                      p->b_multiplier * b_zero_point);
  p->output_zero_point = output_zero_point;
  return true;
}

std::int32_t xnnAddUnclamped(const XnnAdd& p, std::int8_t a, std::int8_t b) {
  const std::int32_t acc = p.bias + a * p.a_multiplier + b * p.b_multiplier;
  return (acc >> p.shift) + p.output_zero_point;  // math_asr_s32: arithmetic shift
}

namespace {
// One loop for both builds: the compiler vectorizes it (with AVX2's 32-bit
// multiplies in the avx2 clone).
inline void xnnAddLoop(const XnnAdd& p, std::int32_t lo, std::int32_t hi, const std::int8_t* a, const std::int8_t* b,
                       std::int64_t n, std::int8_t* out) {
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int32_t acc = p.bias + a[i] * p.a_multiplier + b[i] * p.b_multiplier;
    const std::int32_t v = (acc >> p.shift) + p.output_zero_point;
    out[i] = static_cast<std::int8_t>(std::min(std::max(v, lo), hi));
  }
}
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx2"))) void xnnAddAvx2(const XnnAdd& p, std::int32_t lo, std::int32_t hi,
                                                 const std::int8_t* a, const std::int8_t* b, std::int64_t n,
                                                 std::int8_t* out) {
  xnnAddLoop(p, lo, hi, a, b, n, out);
}
// Sixteen lanes: half the instructions per element of the AVX2 clone.
__attribute__((target("avx512f,avx512bw,prefer-vector-width=512"))) void xnnAddAvx512(
    const XnnAdd& p, std::int32_t lo, std::int32_t hi, const std::int8_t* a, const std::int8_t* b, std::int64_t n,
    std::int8_t* out) {
  xnnAddLoop(p, lo, hi, a, b, n, out);
}
#endif
}  // namespace

void xnnAddRows(const XnnAdd& p, std::int32_t lo, std::int32_t hi, const std::int8_t* a, const std::int8_t* b,
                std::int64_t n, std::int8_t* out) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (cpuHasAvx512()) return xnnAddAvx512(p, lo, hi, a, b, n, out);
  if (cpuHasAvx2()) return xnnAddAvx2(p, lo, hi, a, b, n, out);
#endif
  xnnAddLoop(p, lo, hi, a, b, n, out);
}

float xnnMulScale(float a_scale, float b_scale, float output_scale) {
  const float product = a_scale * b_scale;
  return product / output_scale;
}

float xnnMeanScale(float input_scale, float output_scale, std::int64_t n) {
  const float ratio = input_scale / output_scale;
  return ratio * (1.0f / static_cast<float>(n));
}

std::int8_t xnnMean(std::int32_t raw_sum, std::int64_t n, std::int32_t input_zero_point, float scale,
                    std::int32_t output_zero_point) {
  const auto centered = static_cast<std::int32_t>(raw_sum - n * input_zero_point);
  float v = static_cast<float>(centered) * scale;
  v = std::max(v, static_cast<float>(-128 - output_zero_point));
  v = std::min(v, static_cast<float>(127 - output_zero_point));
  return static_cast<std::int8_t>(magicRound(v) + output_zero_point);
}

std::vector<XnnResizeTap> xnnResizeTaps(std::int64_t input_size, std::int64_t output_size, bool align_corners,
                                        bool half_pixel_centers) {
  std::vector<XnnResizeTap> taps(static_cast<std::size_t>(std::max<std::int64_t>(output_size, 0)));
  const std::int64_t adjust = align_corners && output_size > 1 ? 1 : 0;
  const float scale = static_cast<float>(input_size - adjust) / static_cast<float>(output_size - adjust);
  const float offset = 0.5f * scale - 0.5f;
  const auto max_index = static_cast<std::int32_t>(input_size - 1);
  for (std::int64_t o = 0; o < output_size; ++o) {
    float x = static_cast<float>(o) * scale;
    if (half_pixel_centers) x = std::min(std::max(x + offset, 0.0f), static_cast<float>(max_index));
    XnnResizeTap& t = taps[static_cast<std::size_t>(o)];
    t.first = static_cast<std::int32_t>(x);
    t.second = std::min(t.first + 1, max_index);
    t.weight = static_cast<std::int32_t>(std::lrint((x - static_cast<float>(t.first)) * 2048.0f));
  }
  return taps;
}

XnnQ8Rescale xnnConvertParams(float input_scale, std::int32_t input_zero_point, float output_scale,
                              std::int32_t output_zero_point) {
  XnnQ8Rescale p;
  p.input_zero_point = input_zero_point;
  p.output_zero_point = output_zero_point;
  const float ratio = input_scale / output_scale;
  p.positive_multiplier = p.negative_multiplier = static_cast<std::int32_t>(std::lrint(256.0f * ratio));
  return p;
}

XnnQ8Rescale xnnLeakyReluParams(float alpha, float input_scale, std::int32_t input_zero_point, float output_scale,
                                std::int32_t output_zero_point) {
  XnnQ8Rescale p;
  p.input_zero_point = input_zero_point;
  p.output_zero_point = output_zero_point;
  const float positive = input_scale / output_scale;
  const float negative = positive * alpha;
  p.positive_multiplier = static_cast<std::int32_t>(std::lrint(256.0f * positive));
  p.negative_multiplier = static_cast<std::int32_t>(std::lrint(256.0f * negative));
  return p;
}

std::int8_t xnnRescale(const XnnQ8Rescale& p, std::int8_t x) {
  const std::int32_t d = static_cast<std::int32_t>(x) - p.input_zero_point;
  const std::int32_t m = d >= 0 ? p.positive_multiplier : p.negative_multiplier;
  const std::int32_t bias = static_cast<std::int32_t>(static_cast<std::uint32_t>(p.output_zero_point) << 8) + 0x80;
  return saturateInt8((bias + d * m) >> 8);
}

float armnnDequantize(std::int32_t q, float scale, std::int32_t offset) {
  return static_cast<float>(q - offset) * scale;
}

std::int8_t armnnQuantize(float value, float scale, std::int32_t offset) {
  const float q = roundHalfAway(value / scale);
  const float shifted = static_cast<float>(static_cast<double>(q) + offset);
  return static_cast<std::int8_t>(std::min(std::max(shifted, -128.0f), 127.0f));
}

void applyTable(const Int8Table& table, const std::int8_t* input, std::int64_t n, std::int8_t* output) {
  for (std::int64_t i = 0; i < n; ++i) output[i] = table(input[i]);
}

}  // namespace gds::engine::lowp
