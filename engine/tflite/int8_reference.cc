// TensorFlow Lite's int8 arithmetic, the specification loops (see int8.h).
// Every formula follows tensorflow/lite/kernels/internal/common.h,
// quantization_util.cc and reference/integer_ops/*.h; the comments name the
// TFLite function each piece reproduces.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "engine/tflite/int8.h"

#include <gemmlowp/fixedpoint/fixedpoint.h>

#include "engine/lowp/requantize.h"
#include "engine/tflite/float32.h"
#include "engine/tflite/integer_loops.h"

namespace gds::engine::tflite {

namespace {

inline std::int8_t clampToInt8(std::int32_t v, std::int32_t lo, std::int32_t hi) {
  return static_cast<std::int8_t>(std::min(std::max(v, lo), hi));
}

// TfLiteRound: round half away from zero.
inline float roundAway(float v) { return std::round(v); }

}  // namespace

void quantizeMultiplier(double real, std::int32_t* quantized, int* shift) {
  if (real == 0.0) {
    *quantized = 0;
    *shift = 0;
    return;
  }
  const double q = std::frexp(real, shift);
  auto q_fixed = static_cast<std::int64_t>(std::round(q * static_cast<double>(1LL << 31)));
  if (q_fixed == (1LL << 31)) {
    q_fixed /= 2;
    ++*shift;
  }
  // All bits would be shifted out: TFLite makes the multiplier 0.
  if (*shift < -31) {
    *shift = 0;
    q_fixed = 0;
  }
  // The largest shift TFLite's MultiplyByQuantizedMultiplier supports.
  if (*shift > 30) {
    *shift = 30;
    q_fixed = (1LL << 31) - 1;
  }
  *quantized = static_cast<std::int32_t>(q_fixed);
}

std::int32_t multiplyByQuantizedMultiplier(std::int32_t x, std::int32_t quantized, int shift) {
  const int left_shift = shift > 0 ? shift : 0;
  const int right_shift = shift > 0 ? 0 : -shift;
  // x * 2^left_shift wraps in two's complement as TFLite's int32 product does.
  const auto shifted = static_cast<std::int32_t>(static_cast<std::uint32_t>(x) << left_shift);
  return roundingDivideByPOT(saturatingRoundingDoublingHighMul(shifted, quantized), right_shift);
}

bool activationRange(const char* activation, float scale, std::int32_t zero_point, std::int32_t* act_min,
                     std::int32_t* act_max, std::int32_t qmin, std::int32_t qmax) {
  // The float bounds of the fused activation, quantized where finite and
  // clamped to the type's range (TFLite's CalculateActivationRangeQuantized).
  float lo = 0, hi = 0;
  if (!activationRange(activation, &lo, &hi)) return false;
  auto quantize = [&](float f) { return zero_point + static_cast<std::int32_t>(roundAway(f / scale)); };
  *act_min = std::isinf(lo) ? qmin : std::max(qmin, quantize(lo));
  *act_max = std::isinf(hi) ? qmax : std::min(qmax, quantize(hi));
  return true;
}

void convMultipliers(float input_scale, const std::vector<float>& filter_scales, float output_scale, Requant* r) {
  r->multiplier.resize(filter_scales.size());
  r->shift.resize(filter_scales.size());
  r->scale.resize(filter_scales.size());
  for (std::size_t c = 0; c < filter_scales.size(); ++c) {
    const double effective = static_cast<double>(input_scale) * static_cast<double>(filter_scales[c]) /
                             static_cast<double>(output_scale);
    quantizeMultiplier(effective, &r->multiplier[c], &r->shift[c]);
    r->scale[c] = lowp::xnnRequantizationScale(input_scale, filter_scales[c], output_scale);
  }
}

std::int8_t requantizeOne(const Requant& r, std::int32_t acc, std::int64_t c) {
  if (r.rounding == Rounding::kFp32)
    return lowp::xnnRequantizeFp32(acc, r.scale[r.scale.size() == 1 ? 0 : static_cast<std::size_t>(c)],
                                   r.output_offset, r.act_min, r.act_max);
  const std::size_t k = r.multiplier.size() == 1 ? 0 : static_cast<std::size_t>(c);
  switch (r.rounding) {
    case Rounding::kFp32:
      break;
    case Rounding::kSingle:
      acc = lowp::multiplySingleRounding(acc, {r.multiplier[k], r.shift[k]});
      break;
    case Rounding::kDouble:
      acc = multiplyByQuantizedMultiplier(acc, r.multiplier[k], r.shift[k]);
      break;
  }
  acc += r.output_offset;
  return clampToInt8(acc, r.act_min, r.act_max);
}

void convReference(const ops::ConvGeometry& s, const Requant& r, const std::int8_t* input, const std::int8_t* filter,
                   const std::int32_t* bias, std::int8_t* output) {
  loops::conv<std::int32_t>(s, r.input_offset, input, filter, bias, [&](std::int32_t acc, std::int64_t c, std::int64_t i) {
    output[i] = requantizeOne(r, acc, c);
  });
}

void depthwiseReference(const ops::ConvGeometry& s, const Requant& r, const std::int8_t* input,
                        const std::int8_t* filter, const std::int32_t* bias, std::int8_t* output) {
  loops::depthwise<std::int32_t>(s, r.input_offset, input, filter, bias,
                                 [&](std::int32_t acc, std::int64_t c, std::int64_t i) { output[i] = requantizeOne(r, acc, c); });
}

void requantizeRows(const Requant& r, const std::int32_t* acc, const std::int32_t* bias, std::int64_t rows,
                    std::int64_t channels, std::int8_t* output) {
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t c = 0; c < channels; ++c) {
      std::int32_t a = acc[i * channels + c];
      if (bias) a += bias[c];
      output[i * channels + c] = requantizeOne(r, a, c);
    }
}

void fullyConnectedReference(const Requant& r, const std::int8_t* input, const std::int8_t* filter,
                             const std::int32_t* bias, std::int64_t batch, std::int64_t depth, std::int64_t units,
                             std::int8_t* output) {
  loops::fullyConnected<std::int32_t>(r.input_offset, r.filter_offset, input, filter, bias, batch, depth, units,
                                      [&](std::int32_t acc, std::int64_t u, std::int64_t i) {
                                        output[i] = requantizeOne(r, acc, u);
                                      });
}

BinaryParams binaryParams(BinaryOp op, float scale1, std::int32_t zp1, float scale2, std::int32_t zp2,
                          float out_scale, std::int32_t out_zp, std::int32_t act_min, std::int32_t act_max,
                          int left_shift) {
  BinaryParams p;
  p.input1_offset = -zp1;
  p.input2_offset = -zp2;
  p.output_offset = out_zp;
  p.act_min = act_min;
  p.act_max = act_max;
  if (op == BinaryOp::kMaximum || op == BinaryOp::kMinimum || op == BinaryOp::kDiv) return p;
  if (op == BinaryOp::kMul) {
    // mul.cc: input1_scale * input2_scale / output_scale.
    const double real = static_cast<double>(scale1) * static_cast<double>(scale2) / static_cast<double>(out_scale);
    quantizeMultiplier(real, &p.output_multiplier, &p.output_shift);
    return p;
  }
  // add.cc / sub.cc: both inputs scaled to 2 * max scale, 20 bits of
  // headroom (int16: 15), then to the output scale.
  p.left_shift = left_shift;
  const double twice_max = 2.0 * static_cast<double>(std::max(scale1, scale2));
  quantizeMultiplier(static_cast<double>(scale1) / twice_max, &p.input1_multiplier, &p.input1_shift);
  quantizeMultiplier(static_cast<double>(scale2) / twice_max, &p.input2_multiplier, &p.input2_shift);
  quantizeMultiplier(twice_max / (static_cast<double>(1 << p.left_shift) * static_cast<double>(out_scale)),
                     &p.output_multiplier, &p.output_shift);
  return p;
}

std::int32_t binaryUnclamped(BinaryOp op, const BinaryParams& p, std::int32_t a, std::int32_t b) {
  if (op == BinaryOp::kMaximum) return std::max(a, b);
  if (op == BinaryOp::kMinimum) return std::min(a, b);
  const std::int32_t x = p.input1_offset + a;
  const std::int32_t y = p.input2_offset + b;
  if (op == BinaryOp::kMul)
    return p.output_offset + multiplyByQuantizedMultiplier(x * y, p.output_multiplier, p.output_shift);
  const std::int32_t sx = multiplyByQuantizedMultiplier(x * (1 << p.left_shift), p.input1_multiplier, p.input1_shift);
  const std::int32_t sy = multiplyByQuantizedMultiplier(y * (1 << p.left_shift), p.input2_multiplier, p.input2_shift);
  const std::int32_t raw = op == BinaryOp::kAdd ? sx + sy : sx - sy;
  return multiplyByQuantizedMultiplier(raw, p.output_multiplier, p.output_shift) + p.output_offset;
}

std::int8_t binaryElement(BinaryOp op, const BinaryParams& p, std::int8_t a, std::int8_t b) {
  // MAXIMUM and MINIMUM compare the stored values, unclamped.
  if (op == BinaryOp::kMaximum || op == BinaryOp::kMinimum) return static_cast<std::int8_t>(binaryUnclamped(op, p, a, b));
  return clampToInt8(binaryUnclamped(op, p, a, b), p.act_min, p.act_max);
}

void averagePoolReference(const ops::ConvGeometry& s, std::int32_t act_min, std::int32_t act_max,
                          const std::int8_t* input, std::int8_t* output) {
  loops::averagePool(s, act_min, act_max, input, output);
}

void maxPoolReference(const ops::ConvGeometry& s, std::int32_t act_min, std::int32_t act_max, const std::int8_t* input,
                      std::int8_t* output) {
  loops::maxPool(s, act_min, act_max, input, output);
}

MeanParams meanParams(float input_scale, std::int32_t input_zp, float output_scale, std::int32_t output_zp,
                      std::int64_t count, bool spatial) {
  MeanParams p;
  p.spatial = spatial;
  p.count = count;
  if (count <= 0) return p;  // an empty input: reduce.cc writes zeros
  if (spatial) {
    // optimized_integer_ops::Mean computes both in float.
    p.bias = output_zp - static_cast<std::int32_t>(static_cast<float>(input_zp) * input_scale / output_scale);
    const float real_scale = input_scale / (static_cast<float>(count) * output_scale);
    quantizeMultiplier(real_scale, &p.multiplier, &p.shift);
    return p;
  }
  // PrepareMeanOrSum, then QuantizedMeanOrSum's "readapt output rescaling".
  p.input_zp = input_zp;
  p.bias = output_zp;
  quantizeMultiplier(static_cast<double>(input_scale) / static_cast<double>(output_scale), &p.multiplier, &p.shift);
  int log2 = 63;
  while (log2 > 0 && !(static_cast<std::uint64_t>(count) >> log2)) --log2;  // 63 - CountLeadingZeros
  const int s = std::min({log2, 32, 31 + p.shift});
  p.multiplier = static_cast<std::int32_t>((static_cast<std::int64_t>(p.multiplier) << s) / count);
  p.shift -= s;
  return p;
}

void meanReference(const MeanParams& p, const std::int8_t* input, std::int64_t outer, std::int64_t inner,
                   std::int64_t trailing, std::int8_t* output) {
  loops::mean(p, input, outer, inner, trailing, output);
}

Rescale rescaleParams(float input_scale, std::int32_t input_zp, float output_scale, std::int32_t output_zp) {
  Rescale r;
  r.input_zp = input_zp;
  r.output_zp = output_zp;
  quantizeMultiplier(static_cast<double>(input_scale) / static_cast<double>(output_scale), &r.multiplier, &r.shift);
  return r;
}

bool reluParams(const char* activation, float input_scale, std::int32_t input_zp, float output_scale,
                std::int32_t output_zp, Rescale* r, std::int32_t qmin, std::int32_t qmax) {
  r->input_zp = input_zp;
  r->output_zp = output_zp;
  const float ratio = input_scale / output_scale;  // float / float, then widened, as ReluPrepare
  quantizeMultiplier(static_cast<double>(ratio), &r->multiplier, &r->shift);
  return activationRange(activation, output_scale, output_zp, &r->act_min, &r->act_max, qmin, qmax);
}

void rescaleReference(const Rescale& r, const std::int8_t* input, std::int64_t n, std::int8_t* output) {
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int32_t v =
        r.output_zp + multiplyByQuantizedMultiplier(static_cast<std::int32_t>(input[i]) - r.input_zp, r.multiplier, r.shift);
    output[i] = clampToInt8(v, r.act_min, r.act_max);
  }
}

LeakyRelu leakyReluParams(float alpha, float input_scale, std::int32_t input_zp, float output_scale,
                          std::int32_t output_zp) {
  LeakyRelu p;
  p.input_zp = input_zp;
  p.output_zp = output_zp;
  // LeakyReluPrepare: both ratios are float expressions widened to double.
  const float alpha_ratio = input_scale * alpha / output_scale;
  const float identity_ratio = input_scale / output_scale;
  quantizeMultiplier(static_cast<double>(alpha_ratio), &p.alpha_multiplier, &p.alpha_shift);
  quantizeMultiplier(static_cast<double>(identity_ratio), &p.identity_multiplier, &p.identity_shift);
  return p;
}

void leakyReluReference(const LeakyRelu& p, const std::int8_t* input, std::int64_t n, std::int8_t* output) {
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int32_t v = static_cast<std::int32_t>(input[i]) - p.input_zp;
    const std::int32_t scaled = v >= 0 ? multiplyByQuantizedMultiplier(v, p.identity_multiplier, p.identity_shift)
                                       : multiplyByQuantizedMultiplier(v, p.alpha_multiplier, p.alpha_shift);
    output[i] = clampToInt8(p.output_zp + scaled, -128, 127);
  }
}

void quantizeReference(const float* input, std::int64_t n, float scale, std::int32_t zero_point, std::int8_t* output,
                       QuantizeForm form) {
  if (form == QuantizeForm::kDouble) {
    for (std::int64_t i = 0; i < n; ++i) output[i] = lowp::tfliteQuantizeBuiltin(input[i], scale, zero_point);
    return;
  }
  if (form == QuantizeForm::kXnnpack) {
    const float inv = 1.0f / scale;
    for (std::int64_t i = 0; i < n; ++i) output[i] = lowp::xnnQuantize(input[i], inv, zero_point);
    return;
  }
  for (std::int64_t i = 0; i < n; ++i) {
    const float q = roundAway(input[i] / scale);
    // Values beyond int32 saturate before the clamp (they clamp anyway).
    const std::int32_t v = q >= 2147483520.0f ? std::numeric_limits<std::int32_t>::max()
                           : q <= -2147483520.0f ? std::numeric_limits<std::int32_t>::min()
                           : std::isnan(q) ? 0 : static_cast<std::int32_t>(q);
    output[i] = clampToInt8(static_cast<std::int32_t>(std::max<std::int64_t>(
                                std::min<std::int64_t>(std::int64_t{v} + zero_point, 127), -128)),
                            -128, 127);
  }
}

void dequantizeReference(const std::int8_t* input, std::int64_t n, float scale, std::int32_t zero_point, float* output) {
  const double s = scale;
  for (std::int64_t i = 0; i < n; ++i) output[i] = static_cast<float>(s * (input[i] - zero_point));
}

void populateLut(LutFunction f, float input_scale, std::int32_t input_zp, float output_scale, std::int32_t output_zp,
                 std::int8_t table[256]) {
  const float inverse_scale = 1.0f / output_scale;
  for (std::int32_t v = -128; v <= 127; ++v) {
    const float x = input_scale * static_cast<float>(v - input_zp);
    const float y = f == LutFunction::kLogistic ? 1.0f / (1.0f + std::exp(-x)) : std::tanh(x);
    const float rescaled = std::round(y * inverse_scale);
    const auto q = static_cast<std::int32_t>(rescaled + static_cast<float>(output_zp));
    table[static_cast<std::uint8_t>(static_cast<std::int8_t>(v))] = clampToInt8(q, -128, 127);
  }
}

void applyLut(const std::int8_t table[256], const std::int8_t* input, std::int64_t n, std::int8_t* output) {
  for (std::int64_t i = 0; i < n; ++i) output[i] = table[static_cast<std::uint8_t>(input[i])];
}

void populateSoftmaxTable(float input_scale, float beta, SoftmaxTable* t) {
  const float scale = -input_scale * beta;
  for (std::int32_t v = 0; v <= 255; ++v) t->table[255 - v] = std::exp(scale * static_cast<float>(v));
}

void softmaxReference(const SoftmaxTable& t, const std::int8_t* input, std::int64_t rows, std::int64_t depth,
                      float output_scale, std::int32_t output_zp, std::int8_t* output) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int8_t* in = input + r * depth;
    std::int8_t* out = output + r * depth;
    std::int32_t max_val = -128;
    for (std::int64_t j = 0; j < depth; ++j) max_val = std::max<std::int32_t>(max_val, in[j]);
    // table_offset[q] = exp(-input_scale * beta * (max - q)).
    const float* table_offset = &t.table[255 - max_val];
    float sum_exp = 0.0f;
    for (std::int64_t j = 0; j < depth; ++j) sum_exp += table_offset[in[j]];
    const float inv_sum_exp = 1.0f / (sum_exp * output_scale);
    for (std::int64_t j = 0; j < depth; ++j) {
      const float prob_rescaled = table_offset[in[j]] * inv_sum_exp;
      const std::int32_t q = static_cast<std::int32_t>(std::round(prob_rescaled)) + output_zp;
      out[j] = clampToInt8(q, -128, 127);
    }
  }
}

void resizeBilinearReference(const std::int8_t* input, std::int64_t batch, std::int64_t in_h, std::int64_t in_w,
                             std::int64_t channels, std::int64_t out_h, std::int64_t out_w, bool align_corners,
                             bool half_pixel_centers, std::int8_t* output) {
  loops::resizeBilinear(input, batch, in_h, in_w, channels, out_h, out_w, align_corners, half_pixel_centers, output);
}

SoftmaxFixedPointParams softmaxReferenceParams(float input_scale, float beta) {
  // PreprocessSoftmaxScaling (quantization_util.cc) with 5 integer bits, and
  // CalculateInputRadius for diff_min (activations.cc SoftmaxPrepare).
  constexpr int kScaledDiffIntegerBits = 5;
  SoftmaxFixedPointParams p;
  const double real = std::min<double>(static_cast<double>(beta) * static_cast<double>(input_scale) *
                                           static_cast<double>(1 << (31 - kScaledDiffIntegerBits)),
                                       static_cast<double>((1LL << 31) - 1.0));
  quantizeMultiplier(real, &p.input_multiplier, &p.input_left_shift);
  const double max_input_rescaled = 1.0 * ((1 << kScaledDiffIntegerBits) - 1) *
                                    static_cast<double>(1LL << (31 - kScaledDiffIntegerBits)) /
                                    static_cast<double>(1LL << p.input_left_shift);
  p.diff_min = -static_cast<int>(std::floor(max_input_rescaled));
  return p;
}

void softmaxFixedPoint(const SoftmaxFixedPointParams& p, const std::int8_t* input, std::int64_t rows,
                       std::int64_t depth, std::int32_t output_zp, std::int8_t* output) {
  // reference_ops::Softmax (softmax.h) for int8 in and out: outputs at
  // 1/256 from -128, the only int8 output quantization TFLite accepts.
  (void)output_zp;
  constexpr int kScaledDiffIntegerBits = 5, kAccumulationIntegerBits = 12;
  using FixedPointScaledDiff = gemmlowp::FixedPoint<std::int32_t, kScaledDiffIntegerBits>;
  using FixedPointAccum = gemmlowp::FixedPoint<std::int32_t, kAccumulationIntegerBits>;
  using FixedPoint0 = gemmlowp::FixedPoint<std::int32_t, 0>;
  auto rescaled = [&](std::int32_t diff) {
    // MultiplyByQuantizedMultiplierGreaterThanOne.
    return saturatingRoundingDoublingHighMul(
        static_cast<std::int32_t>(static_cast<std::uint32_t>(diff) << p.input_left_shift), p.input_multiplier);
  };
  for (std::int64_t i = 0; i < rows; ++i) {
    const std::int8_t* x = input + i * depth;
    std::int8_t max_in_row = std::numeric_limits<std::int8_t>::min();
    for (std::int64_t c = 0; c < depth; ++c) max_in_row = std::max(max_in_row, x[c]);
    FixedPointAccum sum_of_exps = FixedPointAccum::Zero();
    for (std::int64_t c = 0; c < depth; ++c) {
      const std::int32_t diff = static_cast<std::int32_t>(x[c]) - max_in_row;
      if (diff >= p.diff_min)
        sum_of_exps = sum_of_exps + gemmlowp::Rescale<kAccumulationIntegerBits>(gemmlowp::exp_on_negative_values(
                                        FixedPointScaledDiff::FromRaw(rescaled(diff))));
    }
    // GetReciprocal (common.h).
    const auto sum = static_cast<std::uint32_t>(sum_of_exps.raw());
    const int headroom_plus_one = sum == 0 ? 32 : __builtin_clz(sum);
    const int num_bits_over_unit = kAccumulationIntegerBits - headroom_plus_one;
    const auto shifted_sum_minus_one =
        static_cast<std::int32_t>((sum << headroom_plus_one) - (static_cast<std::uint32_t>(1) << 31));
    const FixedPoint0 shifted_scale =
        gemmlowp::one_over_one_plus_x_for_x_in_0_1(FixedPoint0::FromRaw(shifted_sum_minus_one));
    for (std::int64_t c = 0; c < depth; ++c) {
      const std::int32_t diff = static_cast<std::int32_t>(x[c]) - max_in_row;
      std::int8_t* o = output + i * depth + c;
      if (diff < p.diff_min) {
        *o = std::numeric_limits<std::int8_t>::min();
        continue;
      }
      const FixedPoint0 exp_in_0 = gemmlowp::exp_on_negative_values(FixedPointScaledDiff::FromRaw(rescaled(diff)));
      const std::int32_t unsat = gemmlowp::RoundingDivideByPOT((shifted_scale * exp_in_0).raw(),
                                                               num_bits_over_unit + 31 - 8);
      *o = clampToInt8(unsat - 128, -128, 127);
    }
  }
}

}  // namespace gds::engine::tflite
