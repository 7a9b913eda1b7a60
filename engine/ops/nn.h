// Neural-network math on raw buffers (pure functions, no Tensor), following
// TensorFlow's CPU kernels: pooling, batch normalization, LRN, bias add,
// image resizing, mirror padding and space<->batch. (Dequantize is 8-bit
// arithmetic: engine/quantized/dequantize.h.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gds::engine {

class ThreadPool;

namespace ops {

// ---- Pooling (NHWC). Padding cells never take part: MaxPool takes the max of
// the valid cells, AvgPool divides by the number of valid cells (TF's rule).
// With pad_takes_part, MaxPool's padding cells hold pad_value instead (a Pad
// absorbed into the pool by the plan's rewrite).
struct Pool2DShape {
  std::int64_t batch = 1, in_h = 0, in_w = 0, channels = 0;
  std::int64_t window_h = 1, window_w = 1, stride_h = 1, stride_w = 1;
  std::int64_t pad_top = 0, pad_left = 0, out_h = 0, out_w = 0;
  bool pad_takes_part = false;
  float pad_value = 0.0f;
};
void maxPool(const Pool2DShape& s, const float* input, float* output, const ThreadPool* pool);
void avgPool(const Pool2DShape& s, const float* input, float* output, const ThreadPool* pool);

// ---- Per-channel affine maps on a [outer, channels, inner] layout
// (NHWC: inner = 1; NCHW: outer = N, inner = H*W).
// y = x * scale[c] + shift[c]
void channelAffine(const float* x, std::int64_t outer, std::int64_t channels, std::int64_t inner,
                   const float* scale, const float* shift, float* y, const ThreadPool* pool);
// y = x + bias[c]
void biasAdd(const float* x, std::int64_t outer, std::int64_t channels, std::int64_t inner,
             const float* bias, float* y, const ThreadPool* pool);
// Activation applied after a convolution or MatMul (TensorFlow's fused ops).
enum class Activation { kNone, kRelu, kRelu6 };
// In place: data[r, c] = act(data[r, c] + bias[c] + addend[r, c]) over
// [rows, channels] (bias and addend may be null).
void biasActivation(float* data, std::int64_t rows, std::int64_t channels, const float* bias, Activation act,
                    const ThreadPool* pool, const float* addend = nullptr);
// Mean and biased variance of each channel over outer x inner.
void channelMoments(const float* x, std::int64_t outer, std::int64_t channels, std::int64_t inner,
                    float* mean, float* variance);
// FusedBatchNorm (inference): scale = gamma * rsqrt(var + eps), shift = beta - mean * scale.
void batchNormCoefficients(std::int64_t channels, const float* gamma, const float* beta, const float* mean,
                           const float* variance, float epsilon, float* scale, float* shift);

// ---- LRN over the last (depth) dimension of [rows, depth]:
// out = in / (bias + alpha * sum_{d-r..d+r} in^2) ^ beta.
void lrn(const float* input, std::int64_t rows, std::int64_t depth, std::int64_t depth_radius, float bias,
         float alpha, float beta, float* output);

// ---- Resizing (NHWC), TF's ResizeBilinear / ResizeNearestNeighbor rules:
// scale = (align_corners && out > 1) ? (in - 1) / (out - 1) : in / out.
float resizeScale(std::int64_t in, std::int64_t out, bool align_corners);
void resizeBilinear(const float* input, std::int64_t batch, std::int64_t in_h, std::int64_t in_w,
                    std::int64_t channels, std::int64_t out_h, std::int64_t out_w, bool align_corners,
                    bool half_pixel_centers, float* output);
// The same from decoded 8-bit pixels, without a float copy of the whole
// image (identical results: every uint8 is exact in float).
void resizeBilinear(const std::uint8_t* input, std::int64_t batch, std::int64_t in_h, std::int64_t in_w,
                    std::int64_t channels, std::int64_t out_h, std::int64_t out_w, bool align_corners,
                    bool half_pixel_centers, float* output);
// Element-size generic (NN keeps the dtype).
void resizeNearest(const void* input, std::size_t element_size, std::int64_t batch, std::int64_t in_h,
                   std::int64_t in_w, std::int64_t channels, std::int64_t out_h, std::int64_t out_w,
                   bool align_corners, bool half_pixel_centers, void* output);

// ---- MirrorPad of a 4-D float tensor; pads[d] = {before, after}.
// reflect: REFLECT (edge not repeated), otherwise SYMMETRIC (edge repeated).
void mirrorPad4D(const float* input, const std::int64_t in_shape[4], const std::int64_t pads[4][2],
                 bool reflect, float* output);

// ---- SpaceToBatchND / BatchToSpaceND, element-size generic.
// in_shape = [batch, spatial(block.size())..., rest...].
// SpaceToBatchND: output [batch * prod(block), (spatial + pads) / block..., rest...].
void spaceToBatch(const void* input, std::size_t element_size, const std::vector<std::int64_t>& in_shape,
                  const std::vector<std::int64_t>& block, const std::vector<std::int64_t>& pad_before,
                  const std::vector<std::int64_t>& out_shape, void* output);
// BatchToSpaceND: output [batch / prod(block), spatial * block - crops..., rest...].
void batchToSpace(const void* input, std::size_t element_size, const std::vector<std::int64_t>& in_shape,
                  const std::vector<std::int64_t>& block, const std::vector<std::int64_t>& crop_before,
                  const std::vector<std::int64_t>& out_shape, void* output);

}  // namespace ops
}  // namespace gds::engine
