// The plain loops that specify the per-channel fused 8-bit layers
// (per_channel.h); per_channel.cc computes the same bits with vector loops.
#include <algorithm>
#include <cstdint>

#include "engine/quantized/per_channel.h"

// Each multiply and add of the requantization rounds on its own, as
// TensorFlow Lite's reference does (no fused multiply-add contraction).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#elif defined(__clang__)
#pragma clang fp contract(off)
#endif

namespace gds::engine::quantized {

void channelExtremesReference(const std::int32_t* acc, std::int64_t rows, std::int64_t channels,
                              std::int32_t* amin, std::int32_t* amax) {
  for (std::int64_t row = 0; row < rows; ++row) {
    const std::int32_t* a = acc + row * channels;
    for (std::int64_t c = 0; c < channels; ++c) {
      amin[c] = std::min(amin[c], a[c]);
      amax[c] = std::max(amax[c], a[c]);
    }
  }
}

void requantizeRowsReference(const PerChannelRequantize& p, const std::int32_t* acc, std::int64_t rows,
                             std::int64_t channels, std::uint8_t* out) {
  for (std::int64_t row = 0; row < rows; ++row) {
    const std::int32_t* a = acc + row * channels;
    std::uint8_t* oq = out + row * channels;
    for (std::int64_t c = 0; c < channels; ++c) {
      const float x =
          std::min(std::max(static_cast<float>(a[c]) * p.multiplier[c] + p.bias[c], p.clamp_lo), p.clamp_hi);
      const float t = x * p.scale;
      const float r = static_cast<float>(static_cast<std::int32_t>(t + (t >= 0.0f ? 0.5f : -0.5f))) - p.offset;
      oq[c] = static_cast<std::uint8_t>(std::min(std::max(r, 0.0f), 255.0f));
    }
  }
}

}  // namespace gds::engine::quantized
