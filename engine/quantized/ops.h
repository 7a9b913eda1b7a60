// The arithmetic of TensorFlow's quantized ops (tensorflow/core/kernels/
// quantized_*.cc) as pure functions on buffers. Where the optimized version
// (ops.cc) computes differently, a plain reference loop (*Reference,
// ops_reference.cc) specifies it; QuantizedConv2D's convolution is
// engine/lowp/conv.h, shared with TensorFlow Lite's int8 layers. The kernel
// classes in engine/quantized/kernels/ only check inputs and call these.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/ops/nn.h"
#include "engine/quantized/quantization.h"

namespace gds::engine {
class ThreadPool;
}

namespace gds::engine::quantized {

// ---- QuantizedBiasAdd (TensorFlow's QuantizedAddUsingEigen): both operands
// are moved into the int32 range of outputRangeForQuantizedBiasAdd through
// float, then added. Tables of the 256 possible values give the same bits.
template <typename T>
void biasAdd(const T* input, std::int64_t count, float input_min, float input_max, const T* bias,
             std::int64_t channels, float bias_min, float bias_max, std::int32_t* output, float* output_min,
             float* output_max);
// The tables behind biasAdd: the int32 value of each of the 256 input levels
// and, per channel, the bias's int32 value plus the output's zero, so that
// output = table[input] + bias_total[channel] (wrapping).
struct BiasAddTables {
  std::int32_t table[256];
  std::vector<std::uint32_t> bias_total;
  float output_min = 0, output_max = 0;
};
template <typename T>
void biasAddTables(float input_min, float input_max, const T* bias, std::int64_t channels, float bias_min,
                   float bias_max, BiasAddTables* tables);
template <typename T>
void biasAddReference(const T* input, std::int64_t count, float input_min, float input_max, const T* bias,
                      std::int64_t channels, float bias_min, float bias_max, std::int32_t* output,
                      float* output_min, float* output_max);

// ---- QuantizedRelu / QuantizedRelu6: clamp at the quantized 0 (and 6).
template <typename T>
void clampQuantized(const T* input, std::int64_t count, T low, T high, T* output);

// ---- QuantizedMaxPool / QuantizedAvgPool (NHWC). Padding cells are ignored;
// the average is the integer sum divided (truncating) by the valid count.
void maxPoolU8(const ops::Pool2DShape& s, const std::uint8_t* input, std::uint8_t* output, const ThreadPool* pool);
void avgPoolU8(const ops::Pool2DShape& s, const std::uint8_t* input, std::uint8_t* output, const ThreadPool* pool);

// ---- QuantizedMul: (x - zx) * (y - zy) in int32 with broadcasting over
// out_shape (x_strides / y_strides: 0 on broadcast dims).
void mulU8(const std::uint8_t* x, std::int32_t x_zero, const std::uint8_t* y, std::int32_t y_zero,
           const std::vector<std::int64_t>& out_shape, const std::vector<std::int64_t>& x_strides,
           const std::vector<std::int64_t>& y_strides, std::int32_t* output);

// ---- QuantizedAdd (quint8 -> qint32). Each operand value v maps to
// clamp(zero + v * step) in the output range (TensorFlow's linear form);
// a single-element operand is converted with RequantizeInNewRange instead.
void addOutputRange(float min_x, float max_x, float min_y, float max_y, float* min_z, float* max_z);
// The 256 int32 values of quint8 levels in the output range.
void addTableLinear(float min_in, float max_in, float min_out, float max_out, std::int32_t table[256]);
void addU8(const std::uint8_t* x, const std::int32_t x_table[256], const std::uint8_t* y,
           const std::int32_t y_table[256], const std::vector<std::int64_t>& out_shape,
           const std::vector<std::int64_t>& x_strides, const std::vector<std::int64_t>& y_strides,
           std::int32_t* output);

// ---- QuantizedResizeBilinear, TensorFlow's fixed-point interpolation
// (7 fractional bits for quint8, 30 for qint32).
struct ResizeShape {
  std::int64_t batch = 1, in_h = 0, in_w = 0, channels = 0, out_h = 0, out_w = 0;
  float height_scale = 1, width_scale = 1;
  bool half_pixel_centers = false;
};
void resizeBilinearU8(const ResizeShape& s, const std::uint8_t* input, std::uint8_t* output);
void resizeBilinearI32(const ResizeShape& s, const std::int32_t* input, std::int32_t* output);
// ComputeLerpReference: through float, with FloatToQuantized at the end.
void resizeBilinearU8Reference(const ResizeShape& s, const std::uint8_t* input, float min, float max,
                               std::uint8_t* output);
namespace detail {
// The source rows/columns and interpolation weights of each output
// row/column (compute_interpolation_weights), the weights also as integers
// with `resolution` fractional bits; shared by both resize paths.
struct Lerp {
  std::vector<std::int64_t> lower, upper;
  std::vector<float> lerp;
  std::vector<std::int64_t> ilerp;
};
Lerp lerpCache(std::int64_t out_size, std::int64_t in_size, float scale, bool half_pixel, int resolution);
}  // namespace detail

// ---- QuantizeV2 (float -> T) over `count` values with one range.
enum class RoundMode { kHalfAwayFromZero, kHalfToEven };
struct QuantizeV2Options {
  QuantizeMode mode = QuantizeMode::kMinCombined;
  RoundMode round_mode = RoundMode::kHalfAwayFromZero;
  bool narrow_range = false;
  float ensure_minimum_range = 0.01f;
};
// Writes `count` values to output and the adjusted range TensorFlow reports.
// Returns false when input_max < input_min.
template <typename T>
bool quantizeV2(const float* input, std::int64_t count, std::int64_t stride, float input_min, float input_max,
                const QuantizeV2Options& options, T* output, float* output_min, float* output_max);

// ---- Requantize qint32 -> qint8 (the Eigen path; quint8 uses Requantize32To8).
void requantize32ToS8(const std::int32_t* input, std::int64_t count, float min_in, float max_in, float min_out,
                      float max_out, std::int8_t* output);

}  // namespace gds::engine::quantized
