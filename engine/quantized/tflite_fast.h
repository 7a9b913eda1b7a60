// The fast path of TensorFlow Lite's int8 CONV_2D, DEPTHWISE_CONV_2D and
// FULLY_CONNECTED: the int32 accumulators from the engine's 8-bit machinery
// (oneDNN's int8 convolution and u8s8s32 GEMM where the CPU has VNNI,
// gemmlowp or the vector depthwise loop otherwise), then TFLite's own
// requantization (tflite.h requantizeRows) on each finished block of rows.
// Integer accumulation is exact, so the results are bit-identical to the
// reference loops of tflite.h.
//
// The engine's GEMM takes uint8 activations: an int8 value x with zero point
// z is the uint8 x + 128 with zero point z + 128 (always in [0, 255]), and
// x - z is unchanged. int8 weights are the uint8 w + 128 with zero point
// 128 + w_zero.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/quantized/tflite.h"

namespace gds::engine {
class ThreadPool;
}

namespace gds::engine::quantized::tfl {

// What a layer keeps between runs: the prepared weights (for constant
// weights only), oneDNN's convolution, buffers.
class FastLayer {
 public:
  enum class Kind { kConv, kDepthwise, kFullyConnected };
  explicit FastLayer(Kind kind);
  ~FastLayer();
  FastLayer(const FastLayer&) = delete;
  FastLayer& operator=(const FastLayer&) = delete;

  // Conv / depthwise with the geometry s; weights as tflite.h's loops take
  // them and constant across runs (the same pointer means the same values).
  void conv(const ConvShape& s, const Requant& r, const std::int8_t* input, const std::int8_t* filter,
            const std::int32_t* bias, std::int8_t* output, const ThreadPool* pool);
  // input [batch, depth], weights [units, depth].
  void fullyConnected(const Requant& r, const std::int8_t* input, const std::int8_t* weights, const std::int32_t* bias,
                      std::int64_t batch, std::int64_t depth, std::int64_t units, std::int8_t* output,
                      const ThreadPool* pool);
  // Which backend ran last ("dnnl", "gemmlowp", "loop").
  const char* lastBackend() const { return last_; }

  struct State;

 private:
  Kind kind_;
  std::unique_ptr<State> state_;
  const char* last_ = "";
};

}  // namespace gds::engine::quantized::tfl
