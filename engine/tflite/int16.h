// TensorFlow Lite's 16x8 arithmetic (int16 activations with zero point 0,
// int8 weights, int64 biases: TensorFlow's
// EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8). TFLite runs
// these on its reference loops whatever the kernel choice (its optimized
// kernels and XNNPACK take no int16 layer with an int64 bias), so one loop
// per op is every runtime's: reference_integer_ops' int16 overloads,
// reference_ops::SoftmaxInt16 with the lookup tables of lut.h, and the
// int16 branches of quantize.cc and dequantize.cc.
#pragma once

#include <cstdint>

#include "engine/ops/conv_geometry.h"
#include "engine/tflite/int8.h"

namespace gds::engine::tflite {

// MultiplyByQuantizedMultiplier for an int64 accumulator: the multiplier
// reduced to 16 bits (rounded), one rounding shift.
std::int32_t multiplyByQuantizedMultiplier(std::int64_t x, std::int32_t quantized, int shift);

// CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED with int16 input and
// output (zero points 0), int8 filter (zero point 0) and int64 bias: the
// accumulator in int64, requantized per channel (r.multiplier/shift, one
// entry for a per-tensor layer) and clamped to [r.act_min, r.act_max].
// r.rounding kDouble: the int64 MultiplyByQuantizedMultiplier above (the
// convolutions); kSingle: (acc * multiplier + 2^(30 - shift)) >> (31 -
// shift) with the whole multiplier, what TensorFlow Lite's FULLY_CONNECTED
// computes at int16 (measured against LiteRT 2.5.3: the reduced multiplier
// differs from it by a step on kws_ds_cnn_s and kws_cnn_s, this form on
// none).
// The convolutions compute the output rows (batch x out_h) [row_begin,
// row_end) (-1: to the last), for callers that split them between threads.
void convReference(const ops::ConvGeometry& s, const Requant& r, const std::int16_t* input, const std::int8_t* filter,
                   const std::int64_t* bias, std::int16_t* output, std::int64_t row_begin = 0,
                   std::int64_t row_end = -1);
void depthwiseReference(const ops::ConvGeometry& s, const Requant& r, const std::int16_t* input,
                        const std::int8_t* filter, const std::int64_t* bias, std::int16_t* output,
                        std::int64_t row_begin = 0, std::int64_t row_end = -1);
void fullyConnectedReference(const Requant& r, const std::int16_t* input, const std::int8_t* filter,
                             const std::int64_t* bias, std::int64_t batch, std::int64_t depth, std::int64_t units,
                             std::int16_t* output);

// The fast loops, bit-identical to the ones above (int16_fast.cc): an
// int16 input with zero point 0 lets padding cells be zeros and the
// products sum exactly in int32 blocks of 256 (each within 2^22), widened
// to int64; vectorized for AVX-512BW and AVX2 where the CPU has them. The
// depthwise loop takes windows of at most 256 cells (larger ones: the
// loop above).
void convFast(const ops::ConvGeometry& s, const Requant& r, const std::int16_t* input, const std::int8_t* filter,
              const std::int64_t* bias, std::int16_t* output, std::int64_t row_begin, std::int64_t row_end);
void depthwiseFast(const ops::ConvGeometry& s, const Requant& r, const std::int16_t* input, const std::int8_t* filter,
                   const std::int64_t* bias, std::int16_t* output, std::int64_t row_begin, std::int64_t row_end);
void fullyConnectedFast(const Requant& r, const std::int16_t* input, const std::int8_t* filter,
                        const std::int64_t* bias, std::int64_t depth, std::int64_t units, std::int16_t* output,
                        std::int64_t row_begin, std::int64_t row_end);
// One accumulator (bias added) of channel c requantized as r.rounding says
// and clamped to [r.act_min, r.act_max].
std::int16_t requantizeOne16(const Requant& r, std::int64_t acc, std::int64_t c);

// AVERAGE_POOL_2D and MAX_POOL_2D int16 (reference_integer_ops' int16
// pools, as the int8 ones).
void averagePoolReference(const ops::ConvGeometry& s, std::int32_t act_min, std::int32_t act_max,
                          const std::int16_t* input, std::int16_t* output);
void maxPoolReference(const ops::ConvGeometry& s, std::int32_t act_min, std::int32_t act_max,
                      const std::int16_t* input, std::int16_t* output);

// ADD, SUB (add.cc and sub.cc's general int16 path: left shift 15), MUL
// (MulElementwise), MAXIMUM and MINIMUM on int16 values; p from
// binaryParams(..., 15).
std::int16_t binaryElement(BinaryOp op, const BinaryParams& p, std::int16_t a, std::int16_t b);

// QUANTIZE float -> int16 (AffineQuantize, the forms of int8.h's
// quantizeReference), int16 -> int16 (Requantize: MultiplyByQuantizedMultiplier
// of q - input_zp by input_scale / output_scale in double, plus output_zp)
// and DEQUANTIZE int16 -> float (scale * (q - zero_point)).
void quantizeReference(const float* input, std::int64_t n, float scale, std::int32_t zero_point, std::int16_t* output,
                       QuantizeForm form);
// Also RELU, RELU6 and RELU_N1_TO_1 (ReluX: reluParams with the int16
// range, clamped to [r.act_min, r.act_max]).
void rescaleReference(const Rescale& r, const std::int16_t* input, std::int64_t n, std::int16_t* output);
// LEAKY_RELU int16 (QuantizeLeakyRelu<int16_t>: int8's formula).
void leakyReluReference(const LeakyRelu& p, const std::int16_t* input, std::int64_t n, std::int16_t* output);
void dequantizeReference(const std::int16_t* input, std::int64_t n, float scale, std::int32_t zero_point, float* output);

// SOFTMAX int16 (reference_ops::SoftmaxInt16): exp of the rescaled
// differences to the row maximum and 1 / (1 + x) of the row sum read from
// 513-entry tables (LUTPopulate<int16_t> in double, LUTLookup's linear
// interpolation), outputs at 1/32768.
struct SoftmaxInt16Params {
  std::int32_t input_multiplier = 0;
  int input_left_shift = 0;
  std::int16_t exp_lut[513] = {};
  std::int16_t one_over_one_plus_x_lut[513] = {};
};
void softmaxInt16Params(float input_scale, float beta, SoftmaxInt16Params* p);
void softmaxInt16(const SoftmaxInt16Params& p, const std::int16_t* input, std::int64_t rows, std::int64_t depth,
                  std::int16_t* output);

// MEAN int16: reduce.cc runs every int16 MEAN on
// reference_ops::QuantizedMeanOrSum (zero points 0): p from meanParams(...,
// spatial = false).
void meanReference(const MeanParams& p, const std::int16_t* input, std::int64_t outer, std::int64_t inner,
                   std::int64_t trailing, std::int16_t* output);

// RESIZE_BILINEAR int16 (reference_ops::ResizeBilinearInteger<int16_t>, the
// int8 loop; TensorFlow Lite has no other int16 resize). NHWC.
void resizeBilinearReference(const std::int16_t* input, std::int64_t batch, std::int64_t in_h, std::int64_t in_w,
                             std::int64_t channels, std::int64_t out_h, std::int64_t out_w, bool align_corners,
                             bool half_pixel_centers, std::int16_t* output);

// LOGISTIC and TANH int16 (reference_integer_ops' int16 Logistic and
// Tanh): the input rescaled to steps of 1/(3 * 4096) (for TANH twice that
// rate), its magnitude interpolated in the 256-entry table of sigmoid(i/24)
// (0.16 fixed point), the sign folded back; outputs at 1/32768, zero point
// 0. sigmoidInt16Params is the kernels' Prepare; it returns false where
// TensorFlow Lite runs its other, fixed-point kernel instead: an input scale
// within 0.1% of 2^-12 (TANH: also 2^-11), which gdstudio does not follow.
struct SigmoidInt16Params {
  std::int32_t input_multiplier = 0;
  int input_left_shift = 0;
};
bool sigmoidInt16Params(float input_scale, bool tanh, SigmoidInt16Params* p);
void logisticInt16(const SigmoidInt16Params& p, const std::int16_t* input, std::int64_t n, std::int16_t* output);
void tanhInt16(const SigmoidInt16Params& p, const std::int16_t* input, std::int64_t n, std::int16_t* output);

}  // namespace gds::engine::tflite
