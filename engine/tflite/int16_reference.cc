// TensorFlow Lite's 16x8 arithmetic, the specification loops (see int16.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "engine/tflite/int16.h"
#include "engine/tflite/integer_loops.h"

namespace gds::engine::tflite {

namespace {

inline std::int16_t clampToInt16(std::int64_t v, std::int32_t lo, std::int32_t hi) {
  return static_cast<std::int16_t>(std::min<std::int64_t>(std::max<std::int64_t>(v, lo), hi));
}

}  // namespace

std::int16_t requantizeOne16(const Requant& r, std::int64_t acc, std::int64_t c) {
  const std::size_t k = r.multiplier.size() == 1 ? 0 : static_cast<std::size_t>(c);
  if (r.rounding == Rounding::kSingle) {
    const int total = 31 - r.shift[k];
    return clampToInt16((acc * r.multiplier[k] + (std::int64_t{1} << (total - 1))) >> total, r.act_min, r.act_max);
  }
  return clampToInt16(multiplyByQuantizedMultiplier(acc, r.multiplier[k], r.shift[k]), r.act_min, r.act_max);
}

namespace {

// lut.h's LUTPopulateInt16 in double (what activations.cc passes for
// SOFTMAX): 512 samples of f over the input range, each corrected by half
// the error of linear interpolation at the step's midpoint, and the last
// entry f(input_max).
template <typename F>
void populateLut16(double input_scale, std::int32_t input_zp, double output_scale, std::int32_t output_zp, F f,
                   std::int16_t* lut) {
  const double input_min = input_scale * (std::numeric_limits<std::int16_t>::min() - input_zp);
  const double input_max = input_scale * (std::numeric_limits<std::int16_t>::max() - input_zp);
  const double output_min = output_scale * (std::numeric_limits<std::int16_t>::min() - output_zp);
  const double output_max = output_scale * (std::numeric_limits<std::int16_t>::max() - output_zp);
  const int steps = 512;
  const double step = (input_max - input_min) / steps;
  const double half_step = step / 2;
  const double inv = static_cast<double>(std::numeric_limits<std::int16_t>::max() -
                                         std::numeric_limits<std::int16_t>::min() + 1) /
                     (output_max - output_min);
  const double table_min = std::numeric_limits<std::int16_t>::min();
  const double table_max = std::numeric_limits<std::int16_t>::max();
  for (int i = 0; i < steps; ++i) {
    const double val = f(input_min + i * step);
    const double val_midpoint = f(input_min + i * step + half_step);
    const double val_next = f(input_min + (i + 1) * step);
    const double sample = std::round(val * inv);
    const double midpoint_interp = std::round((val_next * inv + std::round(val * inv)) / 2);
    const double midpoint = std::round(val_midpoint * inv);
    const double bias = std::round((midpoint_interp - midpoint) / 2);
    lut[i] = static_cast<std::int16_t>(std::min(std::max(sample - bias, table_min), table_max));
  }
  lut[steps] = static_cast<std::int16_t>(std::min(std::max(std::round(f(input_max) * inv), table_min), table_max));
}

// LUTLookup: the base entry of the top 9 bits and the slope to the next
// entry times the low 7 bits, rounded.
inline std::int16_t lutLookup(std::int16_t value, const std::int16_t* lut) {
  const auto index = static_cast<std::uint16_t>(256 + (value >> 7));
  const auto offset = static_cast<std::int16_t>(value & 0x7f);
  const std::int16_t base = lut[index];
  const auto slope = static_cast<std::int16_t>(lut[index + 1] - lut[index]);
  const int delta = (slope * offset + 64) >> 7;
  return static_cast<std::int16_t>(base + delta);
}

}  // namespace

std::int32_t multiplyByQuantizedMultiplier(std::int64_t x, std::int32_t quantized, int shift) {
  const std::int32_t reduced = quantized < 0x7FFF0000 ? (quantized + (1 << 15)) >> 16 : 0x7FFF;
  const int total_shift = 15 - shift;
  const std::int64_t round = std::int64_t{1} << (total_shift - 1);
  return static_cast<std::int32_t>((x * reduced + round) >> total_shift);
}

void convReference(const ops::ConvGeometry& s, const Requant& r, const std::int16_t* input, const std::int8_t* filter,
                   const std::int64_t* bias, std::int16_t* output, std::int64_t row_begin, std::int64_t row_end) {
  loops::conv<std::int64_t>(
      s, 0, input, filter, bias,
      [&](std::int64_t acc, std::int64_t c, std::int64_t i) { output[i] = requantizeOne16(r, acc, c); }, row_begin,
      row_end);
}

void depthwiseReference(const ops::ConvGeometry& s, const Requant& r, const std::int16_t* input,
                        const std::int8_t* filter, const std::int64_t* bias, std::int16_t* output,
                        std::int64_t row_begin, std::int64_t row_end) {
  loops::depthwise<std::int64_t>(
      s, 0, input, filter, bias,
      [&](std::int64_t acc, std::int64_t c, std::int64_t i) { output[i] = requantizeOne16(r, acc, c); }, row_begin,
      row_end);
}

void fullyConnectedReference(const Requant& r, const std::int16_t* input, const std::int8_t* filter,
                             const std::int64_t* bias, std::int64_t batch, std::int64_t depth, std::int64_t units,
                             std::int16_t* output) {
  loops::fullyConnected<std::int64_t>(0, r.filter_offset, input, filter, bias, batch, depth, units,
                                      [&](std::int64_t acc, std::int64_t u, std::int64_t i) {
                                        output[i] = requantizeOne16(r, acc, u);
                                      });
}

std::int16_t binaryElement(BinaryOp op, const BinaryParams& p, std::int16_t a, std::int16_t b) {
  if (op == BinaryOp::kMaximum || op == BinaryOp::kMinimum) return static_cast<std::int16_t>(binaryUnclamped(op, p, a, b));
  return clampToInt16(binaryUnclamped(op, p, a, b), p.act_min, p.act_max);
}

void averagePoolReference(const ops::ConvGeometry& s, std::int32_t act_min, std::int32_t act_max,
                          const std::int16_t* input, std::int16_t* output) {
  loops::averagePool(s, act_min, act_max, input, output);
}

void maxPoolReference(const ops::ConvGeometry& s, std::int32_t act_min, std::int32_t act_max, const std::int16_t* input,
                      std::int16_t* output) {
  loops::maxPool(s, act_min, act_max, input, output);
}

void quantizeReference(const float* input, std::int64_t n, float scale, std::int32_t zero_point, std::int16_t* output,
                       QuantizeForm form) {
  const float inv = 1.0f / scale;
  for (std::int64_t i = 0; i < n; ++i) {
    double q = 0;
    switch (form) {
      case QuantizeForm::kFloat: q = std::round(input[i] / scale); break;
      case QuantizeForm::kDouble: q = std::round(static_cast<double>(input[i]) / static_cast<double>(scale)); break;
      case QuantizeForm::kXnnpack: q = std::nearbyint(input[i] * inv); break;
    }
    // NaN stands for 0 as the int32 conversion leaves it; beyond int16 it
    // clamps anyway.
    if (std::isnan(q)) q = 0;
    q = std::min(std::max(q + zero_point, -32768.0), 32767.0);
    output[i] = static_cast<std::int16_t>(q);
  }
}

void rescaleReference(const Rescale& r, const std::int16_t* input, std::int64_t n, std::int16_t* output) {
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int32_t v =
        r.output_zp + multiplyByQuantizedMultiplier(static_cast<std::int32_t>(input[i]) - r.input_zp, r.multiplier, r.shift);
    output[i] = clampToInt16(v, r.act_min, r.act_max);
  }
}

void leakyReluReference(const LeakyRelu& p, const std::int16_t* input, std::int64_t n, std::int16_t* output) {
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int32_t v = static_cast<std::int32_t>(input[i]) - p.input_zp;
    const std::int32_t scaled = v >= 0 ? multiplyByQuantizedMultiplier(v, p.identity_multiplier, p.identity_shift)
                                       : multiplyByQuantizedMultiplier(v, p.alpha_multiplier, p.alpha_shift);
    output[i] = clampToInt16(p.output_zp + scaled, -32768, 32767);
  }
}

void dequantizeReference(const std::int16_t* input, std::int64_t n, float scale, std::int32_t zero_point,
                         float* output) {
  const double s = scale;
  for (std::int64_t i = 0; i < n; ++i) output[i] = static_cast<float>(s * (input[i] - zero_point));
}

void softmaxInt16Params(float input_scale, float beta, SoftmaxInt16Params* p) {
  const std::int32_t range = std::numeric_limits<std::int16_t>::max() - std::numeric_limits<std::int16_t>::min();
  // exp over [-10, 0] (exp(-10) counts for nothing in the sum) and
  // 1 / (1 + x) over [0, 1], both onto [-1, 1].
  populateLut16(10.0 / range, std::numeric_limits<std::int16_t>::max(), 2.0 / range, 0,
                [](double v) { return std::exp(v); }, p->exp_lut);
  populateLut16(1.0 / range, std::numeric_limits<std::int16_t>::min(), 2.0 / range, 0,
                [](double v) { return 1.0 / (1.0 + v); }, p->one_over_one_plus_x_lut);
  // The differences rescaled so that [-65535, 0] is [-10, 0].
  const double rescale = static_cast<double>(input_scale) * static_cast<double>(beta) / (10.0 / 65535.0);
  quantizeMultiplier(rescale, &p->input_multiplier, &p->input_left_shift);
}

void softmaxInt16(const SoftmaxInt16Params& p, const std::int16_t* input, std::int64_t rows, std::int64_t depth,
                  std::int16_t* output) {
  for (std::int64_t i = 0; i < rows; ++i) {
    const std::int16_t* in = input + i * depth;
    std::int16_t* out = output + i * depth;
    std::int16_t max_in_row = std::numeric_limits<std::int16_t>::min();
    for (std::int64_t c = 0; c < depth; ++c) max_in_row = std::max(max_in_row, in[c]);
    std::int32_t sum_of_exps = 0;  // Q16.15
    for (std::int64_t c = 0; c < depth; ++c) {
      const std::int32_t diff = in[c] - max_in_row;
      const std::int32_t scaled = multiplyByQuantizedMultiplier(diff, p.input_multiplier, p.input_left_shift);
      const std::int32_t sym = scaled + 32767;
      const auto sat = static_cast<std::int16_t>(std::min(std::max(sym, -32768), 32767));
      out[c] = lutLookup(sat, p.exp_lut);  // the exps wait in the output
      sum_of_exps += out[c];
    }
    const int headroom_plus_one = sum_of_exps == 0 ? 32 : __builtin_clz(static_cast<std::uint32_t>(sum_of_exps));
    const auto shifted_sum =
        static_cast<std::int32_t>(((static_cast<std::int64_t>(sum_of_exps) << (headroom_plus_one - 1)) + (1 << 13)) >> 14);
    // 1 / (1 + x) for x = sum - 1, recentred from [0, 65535] to [-32768, 32767].
    const std::int32_t sym_sum = shifted_sum + (-((1 << 15) + (1 << 16)));
    const auto sat_sum = static_cast<std::int16_t>(std::min(std::max(sym_sum, -32768), 32767));
    const std::int16_t reciprocal = lutLookup(sat_sum, p.one_over_one_plus_x_lut);
    const int right_shift = 31 - headroom_plus_one;
    const std::int64_t round = std::int64_t{1} << (right_shift - 1);
    for (std::int64_t c = 0; c < depth; ++c) {
      const auto result = static_cast<std::int32_t>(
          (static_cast<std::int64_t>(out[c]) * static_cast<std::int64_t>(reciprocal) + round) >> right_shift);
      out[c] = static_cast<std::int16_t>(std::min(std::max(result, 0), 32767));
    }
  }
}

namespace {

// sigmoid(i / 24) in 0.16 fixed point, i = 0..255: the table TensorFlow Lite
// (kernels/internal/common.h), CMSIS-NN and the other TFLite ports share.
// Its entries are not one rounding of the formula (a third lie one above
// round(65536 * sigmoid(i / 24))), so the values are kept as published.
constexpr std::uint16_t kSigmoidTable[256] = {
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149, 40794, 41432, 42064, 42688,
    43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369, 47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409,
    51865, 52311, 52745, 53169, 53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433,
    57724, 58007, 58280, 58544, 58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110,
    61279, 61441, 61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886, 62990, 63090, 63186,
    63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835, 63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308,
    64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786, 64816, 64845, 64873, 64900,
    64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079, 65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208,
    65221, 65234, 65246, 65258, 65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360, 65367,
    65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433, 65438, 65442, 65445, 65449,
    65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474, 65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491,
    65493, 65495, 65497, 65498, 65500, 65501, 65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513,
    65514, 65515, 65516, 65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524,
    65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529, 65529, 65529, 65530, 65530,
    65530, 65530, 65531, 65531, 65531, 65531, 65531, 65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533,
    65533, 65533, 65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65535};

// TensorFlow Lite's CheckedLog2: log2(x) rounded, and whether x is within
// 0.1% (in log2) of that power of two, in float as it computes it.
bool checkedLog2(float x, int* log2) {
  const float x_log2 = std::log(x) * (1.0f / std::log(2.0f));
  const float rounded = std::round(x_log2);
  *log2 = static_cast<int>(rounded);
  return std::abs(x_log2 - rounded) < 1e-3f;
}

// The input rescaled: (q * multiplier + round) >> shift.
std::int32_t sigmoidInput(const SigmoidInt16Params& p, std::int16_t q) {
  const std::int32_t round = p.input_left_shift > 0 ? std::int32_t{1} << (p.input_left_shift - 1) : 0;
  return (static_cast<std::int32_t>(q) * p.input_multiplier + round) >> p.input_left_shift;
}

// |x| looked up in the table, interpolated on its low `bits` bits (the
// result is 0.16 fixed point shifted left by `bits`), or `saturated` past it.
std::uint32_t sigmoidLookup(std::uint32_t abs_x, int bits, std::uint32_t saturated) {
  const std::uint32_t index = abs_x >> bits;
  if (index >= 255) return saturated;
  const std::uint32_t a = kSigmoidTable[index], b = kSigmoidTable[index + 1];
  return (a << bits) + (abs_x & ((1u << bits) - 1)) * (b - a);
}

}  // namespace

void meanReference(const MeanParams& p, const std::int16_t* input, std::int64_t outer, std::int64_t inner,
                   std::int64_t trailing, std::int16_t* output) {
  loops::mean(p, input, outer, inner, trailing, output);
}

void resizeBilinearReference(const std::int16_t* input, std::int64_t batch, std::int64_t in_h, std::int64_t in_w,
                             std::int64_t channels, std::int64_t out_h, std::int64_t out_w, bool align_corners,
                             bool half_pixel_centers, std::int16_t* output) {
  loops::resizeBilinear(input, batch, in_h, in_w, channels, out_h, out_w, align_corners, half_pixel_centers, output);
}

bool sigmoidInt16Params(float input_scale, bool tanh, SigmoidInt16Params* p) {
  constexpr int kInputIntegerBits = 3;
  int log2 = 0;
  const bool pot = checkedLog2(input_scale, &log2);
  const int left_shift = (15 - kInputIntegerBits) + log2;
  if (pot && (left_shift == 0 || (tanh && left_shift == 1))) return false;
  // To steps of 1/(3 * 4096), the multiplier doubled up to [2^14, 2^15).
  double multiplier = static_cast<double>(input_scale) * 4096.0 * 3.0;
  p->input_left_shift = 0;
  while (multiplier <= 32767.0 / 2.0 && p->input_left_shift <= 30) {
    ++p->input_left_shift;
    multiplier *= 2.0;
  }
  p->input_multiplier = static_cast<std::int32_t>(multiplier);
  return true;
}

void logisticInt16(const SigmoidInt16Params& p, const std::int16_t* input, std::int64_t n, std::int16_t* output) {
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int32_t x = sigmoidInput(p, input[i]);
    // Table steps of 2^9 input steps.
    std::uint32_t result = sigmoidLookup(static_cast<std::uint32_t>(std::abs(x)), 9, 0x7FFFu << 10);
    result = x >= 0 ? result + (1u << 9) : (1u << 25) - result + (1u << 9) - 1;
    output[i] = static_cast<std::int16_t>(result >> 10);
  }
}

void tanhInt16(const SigmoidInt16Params& p, const std::int16_t* input, std::int64_t n, std::int16_t* output) {
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int32_t x = sigmoidInput(p, input[i]);
    // tanh(x) = 2 sigmoid(2x) - 1: table steps of 2^8 input steps.
    std::int32_t result =
        static_cast<std::int32_t>(sigmoidLookup(static_cast<std::uint32_t>(std::abs(x)), 8, 0xFFFFu << 8));
    result = x >= 0 ? result - (1 << 23) + (1 << 7) : -result + (1 << 23) + (1 << 7) - 1;
    output[i] = static_cast<std::int16_t>(result >> 8);
  }
}

}  // namespace gds::engine::tflite
