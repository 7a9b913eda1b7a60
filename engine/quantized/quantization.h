// TensorFlow's quantized number format and its exact conversion rules
// (tensorflow/core/kernels/quantization_utils.h): a quantized tensor is a
// buffer of T plus a float range [min, max]; the lowest value of T stands for
// min and the highest for max, with 2^bits steps.
//
// Two families of formulas exist in TensorFlow and both are reproduced here
// bit for bit, because different ops use different ones:
//  - the scalar reference functions (FloatToQuantized, QuantizedToFloat,
//    RequantizeInNewRange), computed in double;
//  - the Eigen expressions (QUANTIZE_WITH_EIGEN / DEQUANTIZE_WITH_EIGEN, with
//    the FloatToQuantizedStruct / QuantizedToFloatStruct constants), computed
//    in float. QuantizeV2 (MIN_FIRST), QuantizedBiasAdd, QuantizedConcat and
//    Requantize to types other than quint8 use these.
// The qint32 -> quint8 requantization has its own fixed-point formula
// (RequantizeManyInNewRange<qint32, quint8>), used by Requantize.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

// Hot element loops are compiled for AVX-512 and AVX2 besides the portable
// baseline, chosen at load time (GCC function multi-versioning), so the
// shipped binary stays portable and still vectorizes them.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define GDS_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define GDS_VECTOR_CLONES
#endif

namespace gds::engine::quantized {

// The "mode" attr of QuantizeV2 and Dequantize: how a range maps onto T.
enum class QuantizeMode { kMinCombined, kMinFirst, kScaled };

template <typename T>
constexpr std::int64_t lowestOf() { return static_cast<std::int64_t>(std::numeric_limits<T>::lowest()); }
template <typename T>
constexpr std::int64_t highestOf() { return static_cast<std::int64_t>(std::numeric_limits<T>::max()); }

// FloatToQuantizedUnclamped: may leave T's range (used for zero points).
template <typename T>
std::int64_t floatToQuantizedUnclamped(float input, float range_min, float range_max) {
  const std::int64_t lowest_quantized = lowestOf<T>();
  if (range_min == range_max) return lowest_quantized;
  const int number_of_bits = sizeof(T) * 8;
  const std::int64_t number_of_steps = static_cast<std::int64_t>(1) << number_of_bits;
  const double range_adjust = (number_of_steps / (number_of_steps - 1.0));
  const double range = ((range_max - range_min) * range_adjust);
  const double range_scale = (number_of_steps / range);
  std::int64_t quantized = static_cast<std::int64_t>(std::round(input * range_scale) - std::round(range_min * range_scale));
  quantized += lowest_quantized;
  return quantized;
}

template <typename T>
T floatToQuantized(float input, float range_min, float range_max) {
  std::int64_t q = floatToQuantizedUnclamped<T>(input, range_min, range_max);
  q = std::max(q, lowestOf<T>());
  q = std::min(q, highestOf<T>());
  return static_cast<T>(static_cast<std::int32_t>(q));
}

template <typename T>
float quantizedToFloat(T input, float range_min, float range_max) {
  if (range_min == range_max) return range_min;
  const int number_of_bits = sizeof(T) * 8;
  const std::int64_t number_of_steps = static_cast<std::int64_t>(1) << number_of_bits;
  const double range_adjust = (number_of_steps / (number_of_steps - 1.0));
  const double range = ((range_max - range_min) * range_adjust);
  const double range_scale = (range / number_of_steps);
  const std::int64_t lowest_quantized = lowestOf<T>();
  const double offset_input = static_cast<double>(input) - lowest_quantized;
  // TensorFlow rounds range_min through a float scale for compatibility with
  // its Eigen dequantization.
  const double range_min_rounded =
      std::round(range_min / static_cast<float>(range_scale)) * static_cast<float>(range_scale);
  const double result = range_min_rounded + (offset_input * range_scale);
  return static_cast<float>(result);
}

template <typename T>
float floatForOneQuantizedLevel(float range_min, float range_max) {
  const std::int64_t highest = highestOf<T>();
  const std::int64_t lowest = lowestOf<T>();
  return (range_max - range_min) / static_cast<float>(highest - lowest);
}

// Range of the int32 product of two quantized tensors (QuantizedConv2D,
// QuantizedMatMul, QuantizedMul).
template <typename T1, typename T2, typename T3>
void quantizationRangeForMultiplication(float min_a, float max_a, float min_b, float max_b, float* min_c,
                                        float* max_c) {
  const float a_level = floatForOneQuantizedLevel<T1>(min_a, max_a);
  const float b_level = floatForOneQuantizedLevel<T2>(min_b, max_b);
  const float c_level = a_level * b_level;
  *min_c = c_level * static_cast<float>(lowestOf<T3>());
  *max_c = c_level * static_cast<float>(highestOf<T3>());
}

template <typename T1, typename T2>
T2 requantizeInNewRange(T1 input, float min_input, float max_input, float min_new, float max_new) {
  return floatToQuantized<T2>(quantizedToFloat<T1>(input, min_input, max_input), min_new, max_new);
}

// GetOutputMinAndMaxForQuantizedAdd (QuantizedBiasAdd): symmetric, 2^17 times
// the largest input magnitude.
inline void outputRangeForQuantizedBiasAdd(float input_min, float input_max, float bias_min, float bias_max,
                                           float* output_min, float* output_max) {
  *output_max = std::max(input_max, std::max(-input_min, std::max(bias_max, -bias_min))) * (1 << 17);
  *output_min = -(*output_max);
}

// QuantizedToFloatStruct: the float constants of DEQUANTIZE_WITH_EIGEN.
template <typename T>
struct DequantizeParams {
  static constexpr int kBits = sizeof(T) * 8;
  static constexpr std::int64_t kSteps = static_cast<std::int64_t>(1) << kBits;
  DequantizeParams(float min, float max)
      : range_min(min),
        range_scale(static_cast<float>((max - min) / (kSteps - 1.0))),
        range_min_rounded(max == min ? min : static_cast<float>(std::round(min / range_scale) * range_scale)) {}
  float lowest() const { return static_cast<float>(lowestOf<T>()); }
  // (range_min_rounded - lowest * range_scale) + x * range_scale, in float.
  float offset() const { return range_min_rounded - lowest() * range_scale; }
  float apply(T x) const { return offset() + static_cast<float>(x) * range_scale; }
  float range_min;
  float range_scale;
  float range_min_rounded;
};

// FloatToQuantizedStruct: the float constants of QUANTIZE_WITH_EIGEN.
template <typename T>
struct QuantizeParams {
  static constexpr int kBits = sizeof(T) * 8;
  static constexpr std::int64_t kSteps = static_cast<std::int64_t>(1) << kBits;
  QuantizeParams(float min, float max)
      : range_min(min),
        range_scale(max == min ? 0.0f : static_cast<float>((kSteps - 1.0) / (max - min))),
        range_min_scaled(std::round(min * range_scale)) {}
  // Bounds that convert back to int32 without overflow (TensorFlow's choice).
  static float lowerBound() { return std::max(static_cast<float>(lowestOf<T>()), -2.147483648e+09f); }
  static float upperBound() { return std::min(static_cast<float>(highestOf<T>()), +2.147483520e+09f); }
  float lowest() const { return static_cast<float>(lowestOf<T>()); }
  // round(x * range_scale) - (range_min_scaled - lowest), clamped, in float.
  T apply(float x) const {
    float v = std::round(x * range_scale) - (range_min_scaled - lowest());
    v = std::max(v, lowerBound());
    v = std::min(v, upperBound());
    return static_cast<T>(static_cast<std::int32_t>(v));
  }
  float range_min;
  float range_scale;
  float range_min_scaled;
};

// Eigen-path requantization of one value: QUANTIZE(DEQUANTIZE(x)).
template <typename T1, typename T2>
struct EigenRequantizer {
  EigenRequantizer(float min_in, float max_in, float min_out, float max_out)
      : q2f(min_in, max_in), f2q(min_out, max_out) {}
  T2 operator()(T1 x) const { return f2q.apply(q2f.apply(x)); }
  DequantizeParams<T1> q2f;
  QuantizeParams<T2> f2q;
};

// The fixed-point qint32 -> quint8 requantization of
// RequantizeManyInNewRange<qint32, quint8>: the one output stage shared by
// Requantize and by every GEMM backend, so all paths round identically.
struct Requantize32To8 {
  Requantize32To8(float min_input, float max_input, float min_output, float max_output);
  std::uint8_t operator()(std::int32_t x) const {
    const std::int64_t fp_value = (wrappingProduct(x, range_scale_fp) >> 32) + total_offset_fp;
    std::int64_t q = fp_value >> kShift;
    q = std::max<std::int64_t>(q, 0);
    q = std::min<std::int64_t>(q, 255);
    return static_cast<std::uint8_t>(q);
  }
  void apply(const std::int32_t* input, std::int64_t count, std::uint8_t* output) const;

  // TensorFlow's int64 product wraps for values far outside the output range;
  // unsigned arithmetic gives the same bits without undefined behaviour.
  static std::int64_t wrappingProduct(std::int32_t x, std::int64_t scale) {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(static_cast<std::int64_t>(x)) *
                                     static_cast<std::uint64_t>(scale));
  }
  static constexpr int kShift = 16;
  std::int64_t range_scale_fp = 0;
  // input_offset_fp - output_offset_fp + rounding_delta
  std::int64_t total_offset_fp = 0;
};

// Minimum and maximum of an int32 buffer (RequantizationRange's scan).
void minMaxInt32(const std::int32_t* data, std::int64_t count, std::int32_t* min_value, std::int32_t* max_value);

// Minimum and maximum of a float buffer; an empty buffer gives the largest
// float and the lowest, as the Min and Max reductions do.
void minMaxFloat(const float* data, std::int64_t count, float* min_value, float* max_value);

// RequantizationRange: the float range actually used by an int32 tensor, with
// the minimum never above zero and (unlike TensorFlow) the maximum never
// below zero, so Requantize accepts it.
void requantizationRange(const std::int32_t* data, std::int64_t count, float input_min, float input_max,
                         float* output_min, float* output_max);

}  // namespace gds::engine::quantized
