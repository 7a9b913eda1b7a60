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

}  // namespace gds::engine::tflite
