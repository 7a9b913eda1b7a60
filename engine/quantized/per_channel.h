// The arithmetic of the per-channel fused 8-bit layers (QuantizedFusedConv2D,
// QuantizedFusedDepthwiseConv2dNative, QuantizedFusedMatMul; the kernels are
// engine/quantized/kernels/per_channel.cc). These ops are GraphDef Studio's,
// not TensorFlow's: quantize_nodes(per_channel=true) makes them so that a
// GraphDef keeps one symmetric int8 weight range per output channel (TensorFlow's
// quantized ops have one range per tensor, which costs depthwise networks
// such as MobileNet most of their accuracy) and requantizes once per layer.
// Their activations stay in TensorFlow's quint8 min/max format, so they sit
// beside TensorFlow's quantized ops; the convolution and depthwise
// accumulation they share with the other 8-bit arithmetics is engine/lowp/'s.
// Here: per-channel accumulator ranges, the layer's output range and its one
// requantization. The *Reference loops (per_channel_reference.cc) are the
// specification; the others (per_channel.cc) compute the same bits, with a
// vector version chosen at run time on x86-64 CPUs with AVX2 and the plain
// loop elsewhere.
#pragma once

#include <cstdint>

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

}  // namespace gds::engine::quantized
