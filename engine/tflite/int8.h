// TensorFlow Lite's int8 arithmetic (the kernels are engine/quantized/kernels/
// tflite_*.cc): the fixed-point multipliers of
// tensorflow/lite/kernels/internal/quantization_util.cc and common.h, and the
// integer loops of reference/integer_ops/*.h and of the builtin kernels TFLite
// runs by default (softmax and logistic/tanh through lookup tables, as
// activations.cc does for int8). int8_reference.cc holds the loops that are
// the specification; every value is computed exactly as TFLite computes it,
// so an int8 .tflite gives here the bytes it gives on the device.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/lowp/requantize.h"
#include "engine/ops/conv_geometry.h"

namespace gds::engine::tflite {

// QuantizeMultiplier: real = quantized * 2^(shift - 31), quantized in
// [2^30, 2^31) (0 for real 0); shift < 0 shifts right.
void quantizeMultiplier(double real, std::int32_t* quantized, int* shift);
// gemmlowp's SaturatingRoundingDoublingHighMul and RoundingDivideByPOT.
// The fixed-point primitives are the 8-bit layer's (engine/lowp/requantize.h).
using lowp::roundingDivideByPOT;
using lowp::saturatingRoundingDoublingHighMul;
// MultiplyByQuantizedMultiplier (TFLite's default double rounding).
std::int32_t multiplyByQuantizedMultiplier(std::int32_t x, std::int32_t quantized, int shift);

// CalculateActivationRangeQuantized for int8 (or int16 with qmin/qmax
// -32768/32767): "NONE", "RELU", "RELU6", "RELU_N1_TO_1" (quantize(v) =
// zero_point + round(v / scale)); false for other activations.
bool activationRange(const char* activation, float scale, std::int32_t zero_point, std::int32_t* act_min,
                     std::int32_t* act_max, std::int32_t qmin = -128, std::int32_t qmax = 127);

// How a layer's int32 accumulator becomes an int8 value: where the runtimes
// part (engine/lowp/requantize.h).
enum class Rounding : std::uint8_t {
  kDouble,  // MultiplyByQuantizedMultiplier, twice rounded: TFLite's reference kernels, its built-in depthwise
  kSingle,  // ruy's one rounding: TFLite's built-in CONV_2D and FULLY_CONNECTED
  kFp32,    // XNNPACK: (float)acc * scale[c], clamped in float, rounded to nearest even
};

// The output scaling of a layer: acc (int32, bias added) ->
// multiplyByQuantizedMultiplier(acc, multiplier[c], shift[c]) + output_offset
// (kDouble; kSingle rounds the product once; kFp32 multiplies by scale[c] in
// float), clamped to [act_min, act_max]. One multiplier per output channel
// (a per-tensor layer repeats its one value, as TFLite's
// PopulateConvolutionQuantizationParams does).
struct Requant {
  std::int32_t input_offset = 0;   // -input zero point
  std::int32_t filter_offset = 0;  // -filter zero point (FULLY_CONNECTED)
  std::int32_t output_offset = 0;  // output zero point
  std::int32_t act_min = -128, act_max = 127;
  Rounding rounding = Rounding::kDouble;
  std::vector<std::int32_t> multiplier;
  std::vector<int> shift;
  std::vector<float> scale;  // kFp32: XNNPACK's requantization scale per entry
};
// Multipliers for input_scale * filter_scale[c] / output_scale (in double, as
// TFLite), one per entry of filter_scales, and XNNPACK's float scales
// (input_scale * filter_scale[c] / output_scale left to right in float).
void convMultipliers(float input_scale, const std::vector<float>& filter_scales, float output_scale, Requant* r);
// One accumulator (bias added) of output channel c requantized as r says.
std::int8_t requantizeOne(const Requant& r, std::int32_t acc, std::int64_t c);

// reference_integer_ops::ConvPerChannel / DepthwiseConvPerChannel: cells
// outside the input add nothing (they stand for the input zero point).
void convReference(const ops::ConvGeometry& s, const Requant& r, const std::int8_t* input, const std::int8_t* filter,
                   const std::int32_t* bias, std::int8_t* output);
void depthwiseReference(const ops::ConvGeometry& s, const Requant& r, const std::int8_t* input,
                        const std::int8_t* filter, const std::int32_t* bias, std::int8_t* output);
// The requantization alone, for accumulators computed elsewhere (the fast
// path): acc[rows][channels] (bias not yet added) -> output.
void requantizeRows(const Requant& r, const std::int32_t* acc, const std::int32_t* bias, std::int64_t rows,
                    std::int64_t channels, std::int8_t* output);

// reference_integer_ops::FullyConnected (per-tensor or per-channel):
// input [batch, depth], filter [units, depth].
void fullyConnectedReference(const Requant& r, const std::int8_t* input, const std::int8_t* filter,
                             const std::int32_t* bias, std::int64_t batch, std::int64_t depth, std::int64_t units,
                             std::int8_t* output);

// Binary arithmetic of reference_integer_ops add/sub (left shift 20, both
// inputs rescaled to twice the larger scale) and mul; MAXIMUM and MINIMUM
// compare the stored values as maximum_minimum.cc does (TensorFlow Lite's
// quantizer gives both inputs the output's parameters, nothing is
// rescaled).
struct BinaryParams {
  std::int32_t input1_offset = 0, input2_offset = 0, output_offset = 0;
  std::int32_t input1_multiplier = 0, input2_multiplier = 0, output_multiplier = 0;
  int input1_shift = 0, input2_shift = 0, output_shift = 0, left_shift = 20;
  std::int32_t act_min = -128, act_max = 127;
};
// kDiv is float only: TensorFlow Lite's div.cc has no int8 kernel.
enum class BinaryOp { kAdd, kSub, kMul, kMaximum, kMinimum, kDiv };
// left_shift: 20 for int8, 15 for int16 (add.cc, sub.cc).
BinaryParams binaryParams(BinaryOp op, float scale1, std::int32_t zp1, float scale2, std::int32_t zp2,
                          float out_scale, std::int32_t out_zp, std::int32_t act_min, std::int32_t act_max,
                          int left_shift = 20);
std::int8_t binaryElement(BinaryOp op, const BinaryParams& p, std::int8_t a, std::int8_t b);
// The int32 value before the clamp (int8 and int16 share it); MAXIMUM and
// MINIMUM: the larger or smaller input.
std::int32_t binaryUnclamped(BinaryOp op, const BinaryParams& p, std::int32_t a, std::int32_t b);

// reference_integer_ops::AveragePool / MaxPool on raw values (input and
// output share their quantization); cells outside the input are not counted.
void averagePoolReference(const ops::ConvGeometry& s, std::int32_t act_min, std::int32_t act_max,
                          const std::int8_t* input, std::int8_t* output);
void maxPoolReference(const ops::ConvGeometry& s, std::int32_t act_min, std::int32_t act_max, const std::int8_t* input,
                      std::int8_t* output);

// MEAN int8 as TensorFlow Lite's reduce.cc runs it with its default kernels
// (kGenericOptimized), over the `inner` elements of each of `outer` x
// `trailing` groups (input viewed as [outer, inner, trailing]):
// - keep_dims, a 4-D input and axis exactly [1, 2] or [2, 1]
//   (optimized_integer_ops::Mean): the raw sum times a multiplier for
//   input_scale / (count * output_scale) (float), plus output_zp -
//   trunc(input_zp * input_scale / output_scale) (float), clamped;
// - any other MEAN (reference_ops::QuantizedMeanOrSum): the multiplier of
//   input_scale / output_scale (double) with 1/count folded in by integer
//   division (shift by floor(log2 count), at most 32 and 31 + shift), applied
//   to sum(q) - input_zp * count, plus output_zp, clamped.
struct MeanParams {
  bool spatial = false;  // the optimized_integer_ops::Mean form
  std::int64_t count = 0;
  std::int32_t input_zp = 0;  // subtracted (general form only)
  std::int32_t multiplier = 0;
  int shift = 0;
  std::int32_t bias = 0;  // added after the multiplier: output_zp (general) or the folded bias (spatial)
};
MeanParams meanParams(float input_scale, std::int32_t input_zp, float output_scale, std::int32_t output_zp,
                      std::int64_t count, bool spatial);
void meanReference(const MeanParams& p, const std::int8_t* input, std::int64_t outer, std::int64_t inner,
                   std::int64_t trailing, std::int8_t* output);

// Requantization of one tensor to another scale/zero point (QUANTIZE
// int8 -> int8, RELU/RELU6 int8 with the activation's clamp).
struct Rescale {
  std::int32_t input_zp = 0, output_zp = 0, multiplier = 0;
  int shift = 0;
  std::int32_t act_min = -128, act_max = 127;
};
// QUANTIZE int8 -> int8 (quantize.cc: input_scale / output_scale in double).
Rescale rescaleParams(float input_scale, std::int32_t input_zp, float output_scale, std::int32_t output_zp);
// RELU, RELU6, RELU_N1_TO_1 int8 (or int16 with qmin/qmax -32768/32767;
// activations.cc ReluPrepare and QuantizedReluX): the ratio input_scale /
// output_scale is divided in float before it becomes a multiplier, and the
// output is clamped to the activation's range; false for other activations.
bool reluParams(const char* activation, float input_scale, std::int32_t input_zp, float output_scale,
                std::int32_t output_zp, Rescale* r, std::int32_t qmin = -128, std::int32_t qmax = 127);
void rescaleReference(const Rescale& r, const std::int8_t* input, std::int64_t n, std::int8_t* output);

// LEAKY_RELU int8 (activations.cc LeakyReluPrepare, reference_ops::
// QuantizeLeakyRelu): q - input_zp scaled by input_scale / output_scale
// where it is >= 0, by input_scale * alpha / output_scale (both ratios
// computed in float) where it is negative, plus output_zp, clamped.
struct LeakyRelu {
  std::int32_t input_zp = 0, output_zp = 0;
  std::int32_t identity_multiplier = 0, alpha_multiplier = 0;
  int identity_shift = 0, alpha_shift = 0;
};
LeakyRelu leakyReluParams(float alpha, float input_scale, std::int32_t input_zp, float output_scale,
                          std::int32_t output_zp);
void leakyReluReference(const LeakyRelu& p, const std::int8_t* input, std::int64_t n, std::int8_t* output);

// QUANTIZE float -> int8 (AffineQuantize: round(x / scale) + zero_point,
// clamped) and DEQUANTIZE int8 -> float (scale * (q - zero_point), scale in
// double). The quotient and its rounding per runtime (QuantizeForm):
// kFloat: x / (float)scale rounded half away from zero (TFLite's reference
// kernel, Arm NN's Quantize); kDouble: x / (double)scale, half away (the
// built-in kernel); kXnnpack: x * (1.0f / scale) rounded to nearest even
// (XNNPACK's f32-qs8 convert).
enum class QuantizeForm : std::uint8_t { kFloat, kDouble, kXnnpack };
void quantizeReference(const float* input, std::int64_t n, float scale, std::int32_t zero_point, std::int8_t* output,
                       QuantizeForm form = QuantizeForm::kFloat);
void dequantizeReference(const std::int8_t* input, std::int64_t n, float scale, std::int32_t zero_point, float* output);

// The 256-entry table of an int8 -> int8 function (LOGISTIC, TANH): entry
// for q is clamp(round(f(input_scale * (q - input_zp)) / output_scale) +
// output_zp), computed in float as TFLite's PopulateLookupTable.
enum class LutFunction { kLogistic, kTanh };
void populateLut(LutFunction f, float input_scale, std::int32_t input_zp, float output_scale, std::int32_t output_zp,
                 std::int8_t table[256]);
void applyLut(const std::int8_t table[256], const std::int8_t* input, std::int64_t n, std::int8_t* output);

// SOFTMAX int8 as TFLite's builtin kernel computes it: a float table of
// exp(-input_scale * beta * d) for d = max - q in [0, 255], the row sum of the
// table entries, and each output round(entry / (sum * output_scale)) +
// output_zp, clamped (optimized_ops::Softmax with PopulateSoftmaxLookupTable,
// what TensorFlow Lite runs on x86 and 32-bit Arm; its aarch64 builds made
// with clang define TFLITE_SOFTMAX_USE_UINT16_LUT and run SoftmaxInt8LUT,
// whose 16-bit tables can round an output one step the other way).
struct SoftmaxTable {
  float table[256];
};
void populateSoftmaxTable(float input_scale, float beta, SoftmaxTable* t);
// SOFTMAX int8 as TFLite's reference kernel computes it
// (reference_ops::Softmax with SoftmaxPrepare<kReference>'s
// PreprocessSoftmaxScaling): gemmlowp fixed point, exp_on_negative_values
// of the rescaled differences to the row's maximum (5 integer bits), their
// sum (12 integer bits), its reciprocal, outputs at 1/256 from -128.
struct SoftmaxFixedPointParams {
  std::int32_t input_multiplier = 0;
  int input_left_shift = 0;
  int diff_min = 0;
};
SoftmaxFixedPointParams softmaxReferenceParams(float input_scale, float beta);
void softmaxFixedPoint(const SoftmaxFixedPointParams& p, const std::int8_t* input, std::int64_t rows,
                       std::int64_t depth, std::int32_t output_zp, std::int8_t* output);
void softmaxReference(const SoftmaxTable& t, const std::int8_t* input, std::int64_t rows, std::int64_t depth,
                      float output_scale, std::int32_t output_zp, std::int8_t* output);

// RESIZE_BILINEAR int8 (reference_ops::ResizeBilinearInteger: 10-bit
// fixed-point weights, rounding half away from zero). NHWC.
void resizeBilinearReference(const std::int8_t* input, std::int64_t batch, std::int64_t in_h, std::int64_t in_w,
                             std::int64_t channels, std::int64_t out_h, std::int64_t out_w, bool align_corners,
                             bool half_pixel_centers, std::int8_t* output);

}  // namespace gds::engine::tflite
