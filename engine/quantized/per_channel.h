// The arithmetic of the per-channel fused 8-bit layers (QuantizedFusedConv2D,
// QuantizedFusedDepthwiseConv2dNative, QuantizedFusedMatMul; the kernels are
// engine/quantized/kernels/per_channel.cc): per-channel accumulator ranges,
// the layer's output range and its one requantization, and the depthwise
// accumulation. The *Reference loops (per_channel_reference.cc) are the
// specification; the others (per_channel.cc) compute the same bits, with a
// vector version chosen at run time on x86-64 CPUs with AVX2 and the plain
// loop elsewhere.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/ops/conv.h"

namespace gds::engine::quantized {

// amin[c] = min(amin[c], acc[r][c]) and amax[c] = max(amax[c], acc[r][c]) over
// the rows of a rows x channels row-major block.
void channelExtremes(const std::int32_t* acc, std::int64_t rows, std::int64_t channels, std::int32_t* amin,
                     std::int32_t* amax);
void channelExtremesReference(const std::int32_t* acc, std::int64_t rows, std::int64_t channels,
                              std::int32_t* amin, std::int32_t* amax);

// The output range of `rows` rows whose per-channel accumulator extremes are
// amin / amax: the activated real value of an accumulator,
// min(max(acc * multiplier[c] + bias[c], act_lo), act_hi), is monotonic in it
// for each channel (the multiplier is positive), so the range follows from
// the extremes; it always contains 0.
void perChannelOutputRange(const std::int32_t* amin, const std::int32_t* amax, std::int64_t rows,
                           std::int64_t channels, const float* multiplier, const float* bias, float act_lo,
                           float act_hi, float* lo, float* hi);

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
void requantizeRowsReference(const PerChannelRequantize& p, const std::int32_t* acc, std::int64_t rows,
                             std::int64_t channels, std::uint8_t* out);

// Depthwise accumulators of output rows [row_begin, row_end) (row = batch *
// out_h + y), filter [fh, fw, in_c, multiplier] (multiplier in s.out_c):
//   out[row][x][c] = sum over the window of (input - input_zero) * filter[c],
// cells outside the input adding nothing.
void depthwiseRowsReference(const ops::Conv2DShape& s, const std::uint8_t* input, std::int32_t input_zero,
                            const std::int8_t* filter, std::int64_t row_begin, std::int64_t row_end,
                            std::int32_t* out);
// The same for channel multiplier 1, with products formed in int16, which is
// exact because input_zero must be in [0, 255] (so |x - zero| <= 255 and
// |x - zero| * |w| <= 32640); returns false, doing nothing, when it is not or
// the multiplier is not 1.
bool depthwiseRowsFast(const ops::Conv2DShape& s, const std::uint8_t* input, std::int32_t input_zero,
                       const std::int8_t* filter, std::int64_t row_begin, std::int64_t row_end, std::int32_t* out);

// depthwiseRowsFast's accumulators with the filter packed once for the AVX2
// core shared with TFLite's layers (depthwise_avx2.h: tap pairs by vpmaddwd,
// the zero point folded into the starting accumulators). For channel
// multiplier 1, input_zero in [0, 255], AVX2 (CPUs with AVX-512 keep
// depthwiseRowsFast's 32-channel loop).
class DepthwiseRowsAvx2 {
 public:
  // False (run depthwiseRowsFast instead) where the layer is not this
  // path's. A filter marked constant is packed once per pointer.
  bool prepare(const ops::Conv2DShape& s, std::int32_t input_zero, const std::int8_t* filter, bool constant);
  // Output rows [row_begin, row_end) (row = batch * out_h + y) as
  // depthwiseRowsReference's.
  void run(const ops::Conv2DShape& s, const std::uint8_t* input, std::int64_t row_begin, std::int64_t row_end,
           std::int32_t* out) const;

 private:
  const std::int8_t* source_ = nullptr;
  std::int64_t channels_ = 0, taps_ = 0, pairs_ = 0;
  std::int32_t zero_ = -1;
  std::vector<std::int16_t> weights_;
  std::vector<std::int32_t> sums_, start_;  // per channel: sum of weights; per slot: -zero * sum
  std::vector<std::uint8_t> zero_row_;
};

}  // namespace gds::engine::quantized
