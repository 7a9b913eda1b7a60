// The depthwise convolution's int32 accumulators on uint8 input, shared by
// the per-channel GraphDef layers (quantized/kernels/per_channel.cc) and the
// fallback of TensorFlow Lite's int8 DEPTHWISE_CONV_2D (tflite/fast.h, whose
// int8 input is shifted to uint8). depthwiseRowsReference
// (depthwise_reference.cc) is the specification; the others compute the
// same bits, with vector versions chosen at run time on x86-64 CPUs with
// AVX2 or AVX-512 and the plain loop elsewhere.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/ops/conv_geometry.h"

namespace gds::engine::lowp {

// Depthwise accumulators of output rows [row_begin, row_end) (row = batch *
// out_h + y), filter [fh, fw, in_c, multiplier] (multiplier in s.out_c):
//   out[row][x][c] = sum over the window of (input - input_zero) * filter[c],
// cells outside the input adding nothing.
void depthwiseRowsReference(const ops::ConvGeometry& s, const std::uint8_t* input, std::int32_t input_zero,
                            const std::int8_t* filter, std::int64_t row_begin, std::int64_t row_end,
                            std::int32_t* out);
// The same for channel multiplier 1, with products formed in int16, which is
// exact because input_zero must be in [0, 255] (so |x - zero| <= 255 and
// |x - zero| * |w| <= 32640); returns false, doing nothing, when it is not or
// the multiplier is not 1.
bool depthwiseRowsFast(const ops::ConvGeometry& s, const std::uint8_t* input, std::int32_t input_zero,
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
  bool prepare(const ops::ConvGeometry& s, std::int32_t input_zero, const std::int8_t* filter, bool constant);
  // Output rows [row_begin, row_end) (row = batch * out_h + y) as
  // depthwiseRowsReference's.
  void run(const ops::ConvGeometry& s, const std::uint8_t* input, std::int64_t row_begin, std::int64_t row_end,
           std::int32_t* out) const;

 private:
  const std::int8_t* source_ = nullptr;
  std::int64_t channels_ = 0, taps_ = 0, pairs_ = 0;
  std::int32_t zero_ = -1;
  std::vector<std::int16_t> weights_;
  std::vector<std::int32_t> sums_, start_;  // per channel: sum of weights; per slot: -zero * sum
  std::vector<std::uint8_t> zero_row_;
};

}  // namespace gds::engine::lowp
