// Optimized inner loops of the per-channel fused 8-bit layers
// (engine/quantized/kernels/per_channel.cc). Each computes exactly what the kernel's plain
// reference loops compute, bit for bit; on x86-64 CPUs with AVX2 a vector
// version is chosen at run time, elsewhere the plain loop runs.
#pragma once

#include <cstdint>

#include "engine/ops/conv.h"

namespace gds::engine::qkern {

// amin[c] = min(amin[c], acc[r][c]) and amax[c] = max(amax[c], acc[r][c]) over
// the rows of a rows x channels row-major block.
void channelExtremes(const std::int32_t* acc, std::int64_t rows, std::int64_t channels, std::int32_t* amin,
                     std::int32_t* amax);

// The one requantization of the per-channel layers: for each element
//   x = min(max(float(acc) * multiplier[c] + bias[c], clamp_lo), clamp_hi)
//   t = x * scale
//   out = clamp(float(int32(t + (t >= 0 ? 0.5 : -0.5))) - offset, 0, 255)
// (QuantizeParams<quint8>::apply, QuantizeV2 MIN_FIRST), each multiply and
// add rounded separately.
struct PerChannelRequantize {
  const float* multiplier = nullptr;
  const float* bias = nullptr;
  float clamp_lo = 0, clamp_hi = 0, scale = 0, offset = 0;
};
void requantizeRows(const PerChannelRequantize& p, const std::int32_t* acc, std::int64_t rows,
                    std::int64_t channels, std::uint8_t* out);

// Depthwise accumulators (channel multiplier 1) of output rows
// [row_begin, row_end) (row = batch * out_h + y):
//   out[row][x][c] = sum over the window of (input - input_zero) * filter[c],
// cells outside the input adding nothing. Products are formed in int16,
// which is exact because input_zero must be in [0, 255] (so |x - zero| <=
// 255 and |x - zero| * |w| <= 32640); returns false, doing nothing, when it
// is not or the multiplier is not 1.
bool depthwiseRowsFast(const ops::Conv2DShape& s, const std::uint8_t* input, std::int32_t input_zero,
                       const std::int8_t* filter, std::int64_t row_begin, std::int64_t row_end, std::int32_t* out);

}  // namespace gds::engine::qkern
