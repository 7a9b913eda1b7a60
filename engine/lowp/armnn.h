// Arm NN's CpuRef arithmetic on int8 tensors (armnn 20.08,
// src/backends/reference/workloads): every int8 value is decoded to float
// ((q - offset) * scale, BaseIterator.hpp's decoders), the layer computes in
// float in the workload's own loop order, and the result is encoded back
// (round(v / scale) + offset, ties away from zero, clamped: TypesUtils.cpp
// Quantize). Float additions are not associative, so bit-exactness means
// summing in the workload's order: these loops keep it per output value,
// while the vector versions compute several output values side by side
// (one per lane), each in that order, with separate multiplies and adds (no
// FMA: Arm NN's x86-64 build has none, and this file is compiled with
// -ffp-contract=off).
//
// A fused activation is a layer of its own in Arm NN (TfLiteParser.cpp
// AddFusedActivationLayer): the layer's int8 output is decoded, clamped or
// transformed in float and encoded again with the same quantization; an
// Int8Table (requantize.h) made by activationTable does that.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "engine/lowp/requantize.h"
#include "engine/ops/conv_geometry.h"

namespace gds::engine::lowp::armnn {

// One tensor's quantization as Arm NN reads it (offset = zero point).
struct Quant {
  float scale = 1;
  std::int32_t offset = 0;
};

// Decoded values of all 256 int8 codes: table[(uint8_t)q] = (q - offset) * scale.
using DecodeTable = std::array<float, 256>;
DecodeTable decodeTable(Quant q);
inline float decode(const DecodeTable& t, std::int8_t q) { return t[static_cast<std::uint8_t>(q)]; }
inline std::int8_t encode(float v, Quant q) { return armnnQuantize(v, q.scale, q.offset); }

// The activation functions of ActivationLayer (Activation.cpp) Arm NN's
// TfLite parser creates: RELU, RELU6 (BoundedReLu 6, 0), RELU_N1_TO_1 is
// refused by Arm NN 20.08's parser, TANH (1 * tanhf(1 * x)), LOGISTIC
// (1 / (1 + expf(-x))), LEAKY_RELU (x > 0 ? x : x * alpha).
enum class Activation { kNone, kRelu, kRelu6, kSigmoid, kTanh, kLeakyRelu };
float activate(Activation a, float x, float alpha = 0);
// q -> encode(activate(decode(q, in)), out): the layer on int8 values.
Int8Table activationTable(Activation a, Quant in, Quant out, float alpha = 0);
// q -> encode(decode(q, in), out): RefQuantizeWorkload on an int8 input,
// and the requantization Concatenate does per input.
Int8Table requantizeTable(Quant in, Quant out);

// Convolution2d and DepthwiseConvolution2d (ConvImpl.cpp Convolve): per
// output value, sum += w * x over the input channels (outer), the filter
// rows, then the filter columns, from 0.0f; padding cells add w * 0.0f; then
// sum += bias; encoded. Weights are decoded per output channel with their own
// scale (QSymm8PerAxisDecoder), the int32 bias as (float)b * bias_scale[c]
// (ScaledInt32(PerAxis)Decoder), with the scales the .tflite file stores for
// the bias. The TfLite filter layouts: conv [out_c, kh, kw, in_c], depthwise
// [1, kh, kw, in_c * multiplier] (Arm NN permutes it to [M, I, kh, kw]; the
// sum order is the same: rows then columns).
class Conv {
 public:
  // s: engine geometry (s.out_c: output channels for a convolution, the
  // channel multiplier for a depthwise one). weight_scales: one or one per
  // output channel; bias / bias_scales may be empty (no bias) or one scale
  // for all. activation: the fused activation's table on the output, or
  // nullptr.
  Conv(const ops::ConvGeometry& s, bool depthwise, const std::int8_t* filter, const std::vector<float>& weight_scales,
       const std::int32_t* bias, const std::vector<float>& bias_scales, Quant input, Quant output);
  // Output rows [row_begin, row_end) of the flattened [batch * out_h] rows.
  void run(const std::int8_t* input, std::int64_t row_begin, std::int64_t row_end, std::int8_t* output) const;
  // The plain loop in Arm NN's own nesting (tests).
  void runReference(const std::int8_t* input, std::int8_t* output) const;

 private:
  ops::ConvGeometry s_;
  bool depthwise_;
  std::int64_t out_channels_;
  // Decoded weights, [out_c][in_c][kh][kw] (convolution, the summation
  // order) and [kh][kw][out_c] (the lanes of the vector loop).
  std::vector<float> weights_, lane_weights_;
  std::vector<float> bias_;  // decoded, one per output channel (empty: none)
  DecodeTable input_table_;
  Quant input_, output_;
};

// FullyConnected (FullyConnected.cpp): per unit, outval = 0; outval += w * x
// over the depth in order; outval += bias; encoded. weights [units, depth].
class FullyConnected {
 public:
  FullyConnected(std::int64_t depth, std::int64_t units, const std::int8_t* weights,
                 const std::vector<float>& weight_scales, std::int32_t weight_offset, const std::int32_t* bias,
                 const std::vector<float>& bias_scales, Quant input, Quant output);
  void run(const std::int8_t* input, std::int64_t batch, std::int8_t* output) const;

 private:
  std::int64_t depth_, units_;
  std::vector<float> weights_;  // [depth][units]: the lanes of the loop
  std::vector<float> bias_;
  DecodeTable input_table_;
  Quant output_;
};

// Pooling2d (Pooling2d.cpp) with PaddingMethod::Exclude, as the TfLite
// parser sets it: the average of the decoded values in the window (rows,
// then columns) divided by the number of cells inside the input; max pool
// keeps the largest decoded value (on int8 codes with one quantization: the
// largest code, re-encoded to the output's quantization).
void averagePool(const ops::ConvGeometry& s, Quant input, Quant output, const std::int8_t* in, std::int8_t* out);
void maxPool(const ops::ConvGeometry& s, Quant input, Quant output, const std::int8_t* in, std::int8_t* out);

// ElementwiseFunction (Add, Sub, Mul, Maximum, Minimum): decode both, the
// float operation, encode. a_step / b_step: 0 for a broadcast scalar, 1
// otherwise (broadcasts of higher rank: the caller's index maps).
enum class Binary { kAdd, kSub, kMul, kMaximum, kMinimum };
struct BinaryTables {
  DecodeTable a, b;
  Quant output;
};
inline float binaryValue(Binary op, float a, float b) {
  switch (op) {
    case Binary::kAdd: return a + b;
    case Binary::kSub: return a - b;
    case Binary::kMul: return a * b;
    case Binary::kMaximum: return a < b ? b : a;  // std::max (Maximum.hpp)
    case Binary::kMinimum: return b < a ? b : a;  // std::min (Minimum.hpp)
  }
  return 0;
}

// Softmax (Softmax.cpp) over the last axis of rows x depth: max of the
// decoded values, sum += expf((x - max) * beta) in order, each output
// expf((x - max) * beta) / sum, encoded.
void softmax(Quant input, Quant output, float beta, const std::int8_t* in, std::int64_t rows, std::int64_t depth,
             std::int8_t* out);

// Mean (Mean.cpp): the decoded inputs summed in memory order into a float
// per output, divided by the count, encoded. Input viewed as
// [outer, inner, trailing], the mean over inner.
void mean(Quant input, Quant output, const std::int8_t* in, std::int64_t outer, std::int64_t inner,
          std::int64_t trailing, std::int8_t* out);

// Resize bilinear (Resize.cpp): the source coordinate (float)o * scale with
// scale = in / out (or (in - 1) / (out - 1) with align_corners), or
// (o + 0.5f) * scale - 0.5f with half-pixel centers (Arm NN 20.08's TfLite
// parser never sets it: ResizeBilinearOptions' half_pixel_centers is not
// read), floor and weight, Lerp(a, b, w) = w * b + (1 - w) * a along the row
// then between rows, encoded. NHWC.
void resizeBilinear(Quant input, Quant output, const std::int8_t* in, std::int64_t batch, std::int64_t in_h,
                    std::int64_t in_w, std::int64_t channels, std::int64_t out_h, std::int64_t out_w,
                    bool align_corners, bool half_pixel_centers, std::int8_t* out);

}  // namespace gds::engine::lowp::armnn
