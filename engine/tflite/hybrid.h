// TensorFlow Lite's hybrid kernels, what dynamic-range quantization writes:
// float activations, int8 weights. Each row of the input is quantized to
// int8 as the operator runs (tensor_utils::BatchQuantizeFloats, symmetric
// or, with asymmetric_quantize_inputs, with a zero point), multiplied with
// the weights in int32, and scaled back to float on top of the bias
// (MatrixBatchVectorMultiplyAccumulate): the integer part is exact, the
// float steps are TFLite's, one by one, so the outputs equal TFLite's.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/lowp/conv.h"
#include "engine/lowp/gemm.h"
#include "engine/ops/conv_geometry.h"

namespace gds::engine {
class ThreadPool;
}

namespace gds::engine::tflite {

// One input row as int8: tensor_utils::SymmetricQuantizeFloats
// (scale = max|x| / 127, values in [-127, 127]; an all-zero row has scale 1).
void quantizeRowSymmetric(const float* x, std::int64_t n, std::int8_t* q, float* scale);
// tensor_utils::AsymmetricQuantizeFloats: the range [min(0, min x),
// max(0, max x)] over [-128, 127] in double, the zero point nudged into it.
void quantizeRowAsymmetric(const float* x, std::int64_t n, std::int8_t* q, float* scale, std::int32_t* offset);

// XNNPACK's dynamic quantization of a row (xnn_f32_qd8_convert): the same
// range in float, the zero point picked by the sum of the two errors and
// rounded to even; `step` is the row's scale, q = rint(x * multiplier) + zero
// point within [-128, 127].
void quantizeRowXnnpack(const float* x, std::int64_t n, std::int8_t* q, float* step, std::int32_t* offset);

// Whose hybrid arithmetic: TFLite's built-in kernels (tensor_utils and
// optimized_ops), its reference kernels (the same for FULLY_CONNECTED; the
// convolutions scale their sums in another order), or the XNNPACK
// delegate's qd8 kernels, which take every hybrid FULLY_CONNECTED and
// CONV_2D with constant weights: the input always asymmetric, the sums
// scaled as ((acc x input scale) x weight scale) + bias.
enum class HybridArithmetic { kBuiltin, kReference, kXnnpack };

// FULLY_CONNECTED with float input and output and int8 weights [units,
// depth], per tensor (one scale) or per unit (units scales), zero point 0.
class HybridFullyConnected {
 public:
  HybridFullyConnected(const std::int8_t* weights, std::int64_t units, std::int64_t depth, std::vector<float> scales,
                       bool asymmetric_inputs, HybridArithmetic arithmetic);
  // y [batch, units] = clamp(bias + the hybrid product of x [batch, depth]).
  void run(const float* x, std::int64_t batch, const float* bias, float act_min, float act_max, float* y,
           const ThreadPool* pool) const;

 private:
  const std::int8_t* weights_;
  std::int64_t units_, depth_;
  std::vector<float> scales_;
  bool asymmetric_;
  HybridArithmetic arithmetic_;
  std::vector<std::int32_t> row_sums_;  // per unit, for the input's zero point
};

// CONV_2D and DEPTHWISE_CONV_2D with float input and output and an int8
// filter in TFLite's layout ([out_c, h, w, in_c]; [1, h, w, in_c x
// multiplier]), zero point 0. TFLite quantizes each image as a whole: a
// convolution whose channel scales differ, and every depthwise one,
// asymmetrically (EvalHybridPerChannel); a convolution with one scale
// symmetrically (EvalHybrid). XNNPACK (convolutions only) quantizes each
// image with its qd8 rule, and each pixel of a 1x1 stride-1 convolution,
// which it runs as a fully connected layer. The int32 sums over the window (cells
// outside the image add nothing) run on the 8-bit GEMM back ends, exact.
class HybridConv {
 public:
  // scales: one, or one per output channel (required for depthwise).
  HybridConv(bool depthwise, const std::int8_t* filter, std::vector<float> scales, HybridArithmetic arithmetic);
  // s: the geometry (s.out_c the depth multiplier when depthwise); y NHWC.
  void run(const ops::ConvGeometry& s, const float* x, const float* bias, float act_min, float act_max, float* y,
           const ThreadPool* pool);

 private:
  // kCombined: acc x (input scale x channel scale); kInputFirst: (acc x
  // input scale) x channel scale; kChannelFirst: (acc x channel scale) x
  // input scale.
  enum class Order { kCombined, kInputFirst, kChannelFirst };
  Order order() const;

  bool depthwise_;
  const std::int8_t* filter_;
  std::vector<float> scales_;
  HybridArithmetic arithmetic_;
  bool per_channel_;  // the scales differ: asymmetric input, per-channel sums
  std::vector<std::uint8_t> weights_u8_;  // filter + 128 (the convolution's GEMM operand)
  std::vector<std::int32_t> weight_sums_;  // per output channel (XNNPACK's per-pixel rows)
  std::unique_ptr<lowp::GemmRhs> rhs_;
  lowp::Conv2DState state_;
  std::vector<std::int8_t> q_;
  std::vector<std::uint8_t> u8_;
  std::vector<std::int32_t> acc_;
  std::vector<float> channel_;  // per output channel: its scale, or (kCombined) times the input's
};

}  // namespace gds::engine::tflite
