#include "engine/quantized/dequantize.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gds::engine::quantized {

namespace {

template <typename T, typename F>
void applySlice(const T* in, std::int64_t pre, std::int64_t slices, std::int64_t post, std::int64_t s, float* out,
                F f) {
  if constexpr (sizeof(T) == 1) {
    // 8-bit values: f of each of the 256 levels once (the same bits), then a
    // table lookup per element.
    if (pre * post > 1024) {
      float table[256];
      for (int v = 0; v < 256; ++v) table[v] = f(static_cast<T>(static_cast<std::uint8_t>(v)));
      for (std::int64_t p = 0; p < pre; ++p) {
        const std::uint8_t* src = reinterpret_cast<const std::uint8_t*>(in + (p * slices + s) * post);
        float* dst = out + (p * slices + s) * post;
        for (std::int64_t i = 0; i < post; ++i) dst[i] = table[src[i]];
      }
      return;
    }
  }
  for (std::int64_t p = 0; p < pre; ++p) {
    const T* src = in + (p * slices + s) * post;
    float* dst = out + (p * slices + s) * post;
    for (std::int64_t i = 0; i < post; ++i) dst[i] = f(src[i]);
  }
}

template <typename T>
void dequantizeTyped(const T* in, std::int64_t pre, std::int64_t slices, std::int64_t post, QuantizeMode mode,
                     const float* min_range, const float* max_range, bool narrow_range, float* out) {
  using Limits = std::numeric_limits<T>;
  const float half_range =
      !Limits::is_signed ? 0.0f : (static_cast<float>(Limits::max()) - static_cast<float>(Limits::min()) + 1) / 2.0f;
  for (std::int64_t s = 0; s < slices; ++s) {
    const float lo = min_range[s], hi = max_range[s];
    if (mode == QuantizeMode::kMinCombined) {
      const float scale = (hi - lo) / (static_cast<float>(Limits::max()) - static_cast<float>(Limits::min()));
      applySlice(in, pre, slices, post, s, out, [=](T v) { return (static_cast<float>(v) + half_range) * scale + lo; });
    } else if (mode == QuantizeMode::kScaled) {
      const int min_output = static_cast<int>(Limits::min()) + (narrow_range ? 1 : 0);
      const float scale = Limits::min() == 0 ? hi / static_cast<float>(Limits::max())
                                             : std::max(lo / static_cast<float>(min_output),
                                                        hi / static_cast<float>(Limits::max()));
      applySlice(in, pre, slices, post, s, out, [=](T v) { return static_cast<float>(static_cast<int>(v)) * scale; });
    } else if (lo == hi) {
      applySlice(in, pre, slices, post, s, out, [=](T) { return lo; });
    } else {
      // MIN_FIRST: quantization_utils.h QuantizedToFloat.
      const int bits = static_cast<int>(sizeof(T)) * 8;
      const double steps = static_cast<double>(std::int64_t{1} << bits);
      const double range = (static_cast<double>(hi) - lo) * (steps / (steps - 1.0));
      const double range_scale = range / steps;
      const double lowest = static_cast<double>(Limits::lowest());
      const double min_rounded = std::round(lo / static_cast<float>(range_scale)) * static_cast<float>(range_scale);
      applySlice(in, pre, slices, post, s, out, [=](T v) {
        return static_cast<float>(min_rounded + (static_cast<double>(v) - lowest) * range_scale);
      });
    }
  }
}

}  // namespace

void dequantizeLevels(QuantizeMode mode, float min_range, float max_range, float table[256]) {
  std::uint8_t levels[256];
  for (int v = 0; v < 256; ++v) levels[v] = static_cast<std::uint8_t>(v);
  dequantize(levels, QuantizedType::kQUInt8, 1, 1, 256, mode, &min_range, &max_range, false, table);
}

void dequantize(const void* input, QuantizedType type, std::int64_t pre, std::int64_t slices, std::int64_t post,
                QuantizeMode mode, const float* min_range, const float* max_range, bool narrow_range, float* output) {
  switch (type) {
    case QuantizedType::kQUInt8:
      dequantizeTyped(static_cast<const std::uint8_t*>(input), pre, slices, post, mode, min_range, max_range, narrow_range, output);
      break;
    case QuantizedType::kQInt8:
      dequantizeTyped(static_cast<const std::int8_t*>(input), pre, slices, post, mode, min_range, max_range, narrow_range, output);
      break;
    case QuantizedType::kQUInt16:
      dequantizeTyped(static_cast<const std::uint16_t*>(input), pre, slices, post, mode, min_range, max_range, narrow_range, output);
      break;
    case QuantizedType::kQInt16:
      dequantizeTyped(static_cast<const std::int16_t*>(input), pre, slices, post, mode, min_range, max_range, narrow_range, output);
      break;
    case QuantizedType::kQInt32:
      dequantizeTyped(static_cast<const std::int32_t*>(input), pre, slices, post, mode, min_range, max_range, narrow_range, output);
      break;
  }
}

}  // namespace gds::engine::quantized
