// The fast path of TensorFlow Lite's int8 CONV_2D, DEPTHWISE_CONV_2D and
// FULLY_CONNECTED: the int32 accumulators from oneDNN's int8 convolution and
// u8s8s32 GEMM where the CPU has VNNI; elsewhere, on x86-64 with AVX2, from
// the exact AVX2 GEMM (Avx2Gemm, gemm_avx2.h) for convolutions and fully
// connected layers (gemmlowp where there is no AVX2); then TFLite's
// requantization, vectorized (Requantizer), on each finished block of rows.
// Depthwise layers with channel multiplier 1 take one AVX2 pass that
// accumulates and requantizes in registers; others the engine's vector
// depthwise loop. Integer accumulation is exact and the
// requantization computes TFLite's own rounding, so the results are
// bit-identical to the reference loops of int8.h. The element-wise ops,
// pools and QUANTIZE have vector versions here too.
//
// Implemented in fast.cc (Requantizer, the element-wise ops, QUANTIZE,
// the pools) and fast_layer.cc (FastLayer), with the fixed-point
// arithmetic they share in multiplier.h.
//
// The engine's GEMM takes uint8 activations: an int8 value x with zero point
// z is the uint8 x + 128 with zero point z + 128 (always in [0, 255]), and
// x - z is unchanged. int8 weights are the uint8 w + 128 with zero point
// 128 + w_zero.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/lowp/gemm_avx2.h"
#include "engine/tflite/int8.h"

namespace gds::engine {
class ThreadPool;
}

namespace gds::engine::tflite {

// TFLite's requantization (requantizeRows of int8.h: bias added,
// MultiplyByQuantizedMultiplier per channel, output offset, activation clamp)
// with the per-channel constants laid out for the vector loop (AVX2, chosen at
// run time; the plain loop elsewhere). Same bits as requantizeRows.
class Requantizer {
 public:
  Requantizer() = default;
  // accumulator_bound: the largest |accumulator| the layer can produce
  // before its bias (depth * the largest |input + offset| * the largest
  // |weight + offset|), 0 when unknown. Where it and the bias keep every
  // value small enough, the AVX2 loop takes a shorter exact form
  // (mbqm8Narrow of multiplier.h).
  Requantizer(const Requant& r, std::int64_t channels, std::int64_t accumulator_bound = 0);
  std::int64_t channels() const { return channels_; }
  // acc[rows][channels] (bias not yet added; bias may be null) -> output.
  void run(const std::int32_t* acc, const std::int32_t* bias, std::int64_t rows, std::int8_t* output) const;
  // True when run takes the short form with this bias (tests, benchmarks).
  bool narrow(const std::int32_t* bias) const;

 private:
  std::int64_t channels_ = 0, accumulator_bound_ = 0;
  std::int32_t output_offset_ = 0, act_min_ = -128, act_max_ = 127, max_left_ = 0;
  // Per channel: the Q31 multiplier, the left shift, the right shift, its
  // remainder mask ((1 << right) - 1) and half of it; for the short form
  // the next odd channel's multiplier (at even channels), left + 1, the
  // rounding addend and the negative-value correction (MbqmNarrow).
  std::vector<std::int32_t> multiplier_, left_, right_, mask_, half_;
  std::vector<std::int32_t> odd_multiplier_, left1_, round_, negative_;
  // Multipliers quantizeMultiplier never makes (negative) keep TFLite's own
  // loop on a copy of the parameters.
  bool fallback_ = false;
  Requant requant_;
  // Rounding::kSingle (ruy's (x * M + 2^(t-1)) >> t, t = 31 - shift): per
  // channel t and 2^(t-1) + 2^63 (the 64-bit product made unsigned so a
  // logical shift divides it), and 2^(63-t) mod 2^32 (what that bias leaves
  // after the shift). Rounding::kFp32 (XNNPACK): the float scale per channel.
  Rounding rounding_ = Rounding::kDouble;
  std::vector<std::int64_t> single_add_, single_shift_;
  // The same per group of eight channels as the AVX2 loop's 64-bit lanes
  // take them: channels 8g, 8g+2, 8g+4, 8g+6 (even) and 8g+1, ... (odd).
  std::vector<std::int64_t> add_even_, add_odd_, shift_even_, shift_odd_;
  std::vector<std::int32_t> single_correction_;
  std::vector<float> scale_;
  void runSingle(const std::int32_t* acc, const std::int32_t* bias, std::int64_t rows, std::int8_t* output) const;
  void runFp32(const std::int32_t* acc, const std::int32_t* bias, std::int64_t rows, std::int8_t* output) const;
};

// reference_integer_ops add/sub/mul (binaryElement) on n elements; a or b of
// one element is broadcast (a_scalar, b_scalar).
void binaryFast(BinaryOp op, const BinaryParams& p, const std::int8_t* a, bool a_scalar, const std::int8_t* b,
                bool b_scalar, std::int64_t n, std::int8_t* output);
// rescaleReference (QUANTIZE int8 -> int8, RELU, RELU6) and
// quantizeReference (QUANTIZE float -> int8), vectorized.
void rescaleFast(const Rescale& r, const std::int8_t* input, std::int64_t n, std::int8_t* output);
void quantizeFast(const float* input, std::int64_t n, float scale, std::int32_t zero_point, std::int8_t* output,
                  QuantizeForm form = QuantizeForm::kFloat);
// maxPoolReference / averagePoolReference on output rows [row_begin,
// row_end) (row = batch * out_h + y), channels innermost so the compiler
// vectorizes them.
void maxPoolRows(const ops::ConvGeometry& s, std::int32_t act_min, std::int32_t act_max, const std::int8_t* input,
                 std::int64_t row_begin, std::int64_t row_end, std::int8_t* output);
void averagePoolRows(const ops::ConvGeometry& s, std::int32_t act_min, std::int32_t act_max, const std::int8_t* input,
                     std::int64_t row_begin, std::int64_t row_end, std::int8_t* output);

// What a layer keeps between runs: the prepared weights (for constant
// weights only), oneDNN's convolution, buffers.
class FastLayer {
 public:
  enum class Kind { kConv, kDepthwise, kFullyConnected };
  explicit FastLayer(Kind kind);
  ~FastLayer();
  FastLayer(const FastLayer&) = delete;
  FastLayer& operator=(const FastLayer&) = delete;

  // Conv / depthwise with the geometry s; weights as int8.h's loops take
  // them and constant across runs (the same pointer means the same values).
  void conv(const ops::ConvGeometry& s, const Requant& r, const std::int8_t* input, const std::int8_t* filter,
            const std::int32_t* bias, std::int8_t* output, const ThreadPool* pool);
  // input [batch, depth], weights [units, depth].
  void fullyConnected(const Requant& r, const std::int8_t* input, const std::int8_t* weights, const std::int32_t* bias,
                      std::int64_t batch, std::int64_t depth, std::int64_t units, std::int8_t* output,
                      const ThreadPool* pool);
  // Which backend ran last ("dnnl-requantizing", "dnnl", "gemmlowp",
  // "avx2", "loop").
  const char* lastBackend() const { return last_; }

  struct State;

 private:
  // A convolution under XNNPACK's arithmetic by oneDNN with the output stage
  // in it (DnnlConv2D::createRequantizing); false where it cannot be, or not
  // exactly (nothing written).
  bool convRequantizing(const ops::ConvGeometry& s, const Requant& r, const std::int8_t* input,
                        const std::int8_t* filter, const std::int32_t* bias, std::int8_t* output,
                        const ThreadPool* pool);

  Kind kind_;
  std::unique_ptr<State> state_;
  const char* last_ = "";
};

}  // namespace gds::engine::tflite
