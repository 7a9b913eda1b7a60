// The 8-bit arithmetic of the runtimes that run a .tflite file on a device,
// as a small set of primitives: which runtime (Arithmetic), and for each the
// rounding that turns a wider value into an int8 one. The kernels take the
// Arithmetic and call these; every formula names the runtime code it
// reproduces, and tests/engine/lowp_requantize_test.cc checks them on the
// tie and saturation cases against values worked out from that code.
//
// - TensorFlow Lite keeps int32 accumulators and rescales them with a Q31
//   fixed-point multiplier (quantization_util.cc QuantizeMultiplier):
//   * twice rounded (gemmlowp's SaturatingRoundingDoublingHighMul, then
//     RoundingDivideByPOT; kernels/internal/common.h without
//     TFLITE_SINGLE_ROUNDING): the reference kernels, and the built-in
//     kernels' depthwise convolution, add, mul, mean, pooling, requantize;
//   * once rounded ((x * M + 2^(30-s)) >> (31-s); ruy/apply_multiplier.cc):
//     the built-in CONV_2D and FULLY_CONNECTED, whose GEMM is ruy's.
// - XNNPACK (TensorFlow Lite's CPU delegate) converts the int32 accumulator
//   to float, multiplies it by a float scale and rounds to nearest, ties to
//   even (src/qs8-requantization/qs8-requantization-fp32-scalar-fmagic.c and
//   the qs8-qc8w gemm/dwconv "fp32" microkernels); its add, leaky ReLU and
//   int8 -> int8 convert use short fixed-point multipliers rounded half up.
// - Arm NN's CpuRef decodes every int8 value to float, computes in float and
//   encodes with round(value / scale) + offset, ties away from zero
//   (src/armnn/TypesUtils.cpp Quantize, Dequantize).
//
// Float arithmetic here is IEEE single (or double where the runtime uses
// double), one rounding per operation: this folder is compiled with
// -ffp-contract=off so that no multiply and add fuse into an FMA, as none
// does in the runtimes' scalar code.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gds::engine::lowp {

// Whose arithmetic an int8 .tflite model runs with.
enum class Arithmetic : std::uint8_t {
  kTfliteXnnpack,    // TensorFlow Lite with the XNNPACK delegate (its default on CPUs)
  kTfliteBuiltin,    // TensorFlow Lite's built-in (optimized) kernels, no delegate
  kTfliteReference,  // TensorFlow Lite's reference kernels (BuiltinRefOpResolver)
  kArmnn,            // Arm NN's CpuRef backend
};
// What current TensorFlow Lite / LiteRT runs for an int8 model with default
// options on an Android or Linux arm64 device: the XNNPACK delegate is
// applied by default and takes int8 operators (see docs/user-guide.md).
constexpr Arithmetic kDefaultArithmetic = Arithmetic::kTfliteXnnpack;

// "tflite-xnnpack", "tflite-builtin", "tflite-reference", "armnn".
const char* arithmeticName(Arithmetic a);
// False for an unknown name (arithmeticChoices() lists the known ones).
bool parseArithmetic(const std::string& name, Arithmetic* out);
const std::vector<Arithmetic>& allArithmetics();
std::string arithmeticChoices();  // "tflite-xnnpack, tflite-builtin, tflite-reference or armnn"
// One line for messages and tables, e.g. "TensorFlow Lite with XNNPACK".
const char* arithmeticDescription(Arithmetic a);

// ---------------------------------------------------------------- TFLite

// TfLiteRound: round half away from zero.
float roundHalfAway(float v);
double roundHalfAway(double v);

// A real multiplier as Q31 significand and power-of-two exponent:
// real = multiplier * 2^(shift - 31), multiplier in [2^30, 2^31) (0 for 0),
// shift < 0 shifts right. QuantizeMultiplier of quantization_util.cc, with
// its limits: below 2^-31 the multiplier is 0, shifts above 30 saturate.
struct FixedMultiplier {
  std::int32_t multiplier = 0;
  int shift = 0;
};
FixedMultiplier quantizeMultiplier(double real);

// gemmlowp's SaturatingRoundingDoublingHighMul and RoundingDivideByPOT.
std::int32_t saturatingRoundingDoublingHighMul(std::int32_t a, std::int32_t b);
std::int32_t roundingDivideByPOT(std::int32_t x, int exponent);

// MultiplyByQuantizedMultiplier as TFLite's common.h computes it by default:
// x * 2^left wraps in int32 (as TFLite's does), then the two roundings.
std::int32_t multiplyDoubleRounding(std::int32_t x, FixedMultiplier m);
// ruy::detail::MultiplyByQuantizedMultiplier (and common.h with
// TFLITE_SINGLE_ROUNDING): one rounding of the 64-bit product, halves up.
std::int32_t multiplySingleRounding(std::int32_t x, FixedMultiplier m);

// QUANTIZE float -> int8. The reference kernel divides in float
// (reference_ops::AffineQuantize: TfLiteRound(x / static_cast<float>(scale)));
// the built-in one in double (optimized_ops::AffineQuantize's scalar loop:
// TfLiteRound(x / scale) with scale a double). Clamped to int8.
std::int8_t tfliteQuantizeReference(float x, float scale, std::int32_t zero_point);
std::int8_t tfliteQuantizeBuiltin(float x, float scale, std::int32_t zero_point);
// DEQUANTIZE: static_cast<float>(scale * (q - zero_point)), scale a double.
float tfliteDequantize(std::int8_t q, float scale, std::int32_t zero_point);

// CalculateActivationRangeQuantized for int8 (kernel_util.cc): each finite
// bound f becomes zero_point + TfLiteRound(f / scale) (float division),
// clamped to [-128, 127]; infinite bounds are the int8 limits.
void tfliteActivationRange(float lo, float hi, float scale, std::int32_t zero_point, std::int32_t* qmin,
                           std::int32_t* qmax);

// MEAN over height and width of a 4-D int8 tensor with keep_dims, as the
// built-in kernel computes it (optimized_integer_ops::Mean): the sum of the
// raw int8 values times a multiplier for in_scale / (n * out_scale)
// (worked out in float), twice rounded, plus a bias
// out_zp - round_half_away(in_zp * in_scale / out_scale) (float). Other
// means (other axes, no keep_dims) and the reference kernel subtract the
// zero point first and divide the rescaled sum by n, rounding half away
// (reference_integer_ops::Mean).
struct TfliteMeanBuiltin {
  FixedMultiplier multiplier;
  std::int32_t bias = 0;
};
TfliteMeanBuiltin tfliteMeanBuiltinParams(float input_scale, std::int32_t input_zero_point, float output_scale,
                                          std::int32_t output_zero_point, std::int64_t n);
std::int8_t tfliteMeanBuiltin(const TfliteMeanBuiltin& p, std::int32_t raw_sum);

// ---------------------------------------------------------------- XNNPACK

// The subgraph's requantization scale of a convolution or fully connected
// channel: input_scale * kernel_scale / output_scale, in float, left to
// right (convolution-nhwc.c, fully-connected-nc.c).
float xnnRequantizationScale(float input_scale, float kernel_scale, float output_scale);

// fp32 requantization of an int32 accumulator (bias included): the float
// product (float)acc * scale, clamped to [qmin - zp, qmax - zp] in float,
// rounded to nearest even with the magic bias 1.5 * 2^23, plus zp.
std::int8_t xnnRequantizeFp32(std::int32_t acc, float scale, std::int32_t zero_point, std::int32_t qmin,
                              std::int32_t qmax);

// xnn_qs8_quantize: how the subgraph turns a float activation bound into an
// int8 one: lrintf(clamp(bound / scale + (float)zero_point, -128, 127)).
std::int8_t xnnQuantizeBound(float bound, float scale, std::int32_t zero_point);
// The fused activation [lo, hi] (float, infinities allowed) as int8 bounds.
void xnnActivationRange(float lo, float hi, float scale, std::int32_t zero_point, std::int32_t* qmin,
                        std::int32_t* qmax);

// QUANTIZE float -> int8 (f32-qs8-vcvt with scale 1.0f / output_scale):
// x * inv_scale clamped in float, rounded to nearest even, plus zp.
std::int8_t xnnQuantize(float x, float inv_scale, std::int32_t zero_point);
// DEQUANTIZE (qs8-f32-vcvt): (float)(q - zero_point) * scale.
float xnnDequantize(std::int8_t q, float scale, std::int32_t zero_point);

// ADD / SUB (qs8-vadd, xnn_init_qs8_add_minmax_scalar_params): each input's
// scale over the output's (float) becomes a multiplier of about 21 bits,
// lrintf(ratio * 2^shift) with shift = 20 - the larger ratio's exponent;
// out = ((bias + a * a_mult + b * b_mult) >> shift) + zp, clamped, where
// bias = 2^(shift-1) - a_mult * a_zp - b_mult * b_zp: halves round up.
// SUB negates b's ratio (binary-elementwise-nd.cc).
struct XnnAdd {
  std::int32_t a_multiplier = 0, b_multiplier = 0, bias = 0, output_zero_point = 0;
  std::uint32_t shift = 0;
};
// False where XNNPACK refuses the scales (a ratio outside [2^-10, 2^8)).
bool xnnAddParams(float a_scale, std::int32_t a_zero_point, float b_scale, std::int32_t b_zero_point,
                  float output_scale, std::int32_t output_zero_point, bool subtract, XnnAdd* p);
std::int32_t xnnAddUnclamped(const XnnAdd& p, std::int8_t a, std::int8_t b);
// out[i] = xnnAddUnclamped(p, a[i], b[i]) clamped to [lo, hi], for n
// elements (XNNPACK's qs8 vadd; exact integer arithmetic, vectorized where
// the CPU has AVX2).
void xnnAddRows(const XnnAdd& p, std::int32_t lo, std::int32_t hi, const std::int8_t* a, const std::int8_t* b,
                std::int64_t n, std::int8_t* out);

// MUL (qs8-vmul fp32): (float)((a - a_zp) * (b - b_zp)) * scale with
// scale = (a_scale * b_scale) / output_scale in float, rounded as
// xnnRequantizeFp32.
float xnnMulScale(float a_scale, float b_scale, float output_scale);

// MEAN (qs8 reduce): the int32 sum of the n raw values less n * in_zp, as
// float, times scale = (in_scale / out_scale) * (1.0f / n) (float; the
// delegate's ratio, then reduce-nd.c's update_params_mean_qs8), rounded to
// nearest even, plus out_zp, clamped to int8.
float xnnMeanScale(float input_scale, float output_scale, std::int64_t n);
std::int8_t xnnMean(std::int32_t raw_sum, std::int64_t n, std::int32_t input_zero_point, float scale,
                    std::int32_t output_zero_point);

// RESIZE_BILINEAR on int8 (s8-ibilinear with Q11 weights): per output row or
// column, the two input taps and the weight of the second,
// lrintf(alpha * 2048). The source coordinate is (float)o * scale with
// scale = (float)(in - k) / (float)(out - k), k = 1 with align_corners else
// 0; with half_pixel_centers o * scale + (0.5f * scale - 0.5f), clamped to
// [0, in - 1] (indirection.c, resize-bilinear-nhwc.c).
struct XnnResizeTap {
  std::int32_t first = 0, second = 0;
  std::int32_t weight = 0;  // of `second`, in 1/2048
};
std::vector<XnnResizeTap> xnnResizeTaps(std::int64_t input_size, std::int64_t output_size, bool align_corners,
                                        bool half_pixel_centers);
// One output value from the four corners (tl, tr on the first row):
// rows blended first, then columns: (((tl << 11) + (tr - tl) * wx) << 11 +
// (bottom - top) * wy + 2^21) >> 22.
inline std::int8_t xnnBilinear(std::int32_t tl, std::int32_t tr, std::int32_t bl, std::int32_t br, std::int32_t wx,
                               std::int32_t wy) {
  const std::int32_t top = (tl << 11) + (tr - tl) * wx;
  const std::int32_t bottom = (bl << 11) + (br - bl) * wx;
  const std::int64_t acc = (static_cast<std::int64_t>(top) << 11) + static_cast<std::int64_t>(bottom - top) * wy;
  return static_cast<std::int8_t>((acc + (std::int64_t{1} << 21)) >> 22);
}

// QUANTIZE int8 -> int8 (qs8-vcvt) and LEAKY_RELU (qs8-vlrelu): a multiplier
// lrintf(256 * ratio) per sign, out = ((x - in_zp) * mult + (out_zp << 8) +
// 128) >> 8, clamped to int8. For the convert both signs share
// ratio = input_scale / output_scale; leaky ReLU's negative ratio is that
// times alpha (float).
struct XnnQ8Rescale {
  std::int32_t input_zero_point = 0, output_zero_point = 0;
  std::int32_t positive_multiplier = 0, negative_multiplier = 0;
};
XnnQ8Rescale xnnConvertParams(float input_scale, std::int32_t input_zero_point, float output_scale,
                              std::int32_t output_zero_point);
XnnQ8Rescale xnnLeakyReluParams(float alpha, float input_scale, std::int32_t input_zero_point, float output_scale,
                                std::int32_t output_zero_point);
std::int8_t xnnRescale(const XnnQ8Rescale& p, std::int8_t x);

// ---------------------------------------------------------------- Arm NN

// armnn::Dequantize: static_cast<float>(q - offset) * scale.
float armnnDequantize(std::int32_t q, float scale, std::int32_t offset);
// armnn::Quantize<int8_t>: round(value / scale) + offset (float division,
// ties away from zero), clamped to int8.
std::int8_t armnnQuantize(float value, float scale, std::int32_t offset);

// ---------------------------------------------------------------- shared

// The 256-entry table of an int8 -> int8 function: table[(uint8_t)q] = f(q).
// Every per-element int8 function of one input (activations, int8 -> int8
// QUANTIZE, LUT-based LOGISTIC/TANH) runs through one, whatever its runtime
// formula: the table is filled with that formula, so it is exact.
struct Int8Table {
  std::int8_t entry[256];
  std::int8_t operator()(std::int8_t q) const { return entry[static_cast<std::uint8_t>(q)]; }
};
template <typename F>
Int8Table makeTable(F f) {
  Int8Table t;
  for (int q = -128; q <= 127; ++q) t.entry[static_cast<std::uint8_t>(static_cast<std::int8_t>(q))] = f(q);
  return t;
}
// output[i] = table(input[i]) (AVX2 where the CPU has it).
void applyTable(const Int8Table& table, const std::int8_t* input, std::int64_t n, std::int8_t* output);

}  // namespace gds::engine::lowp
