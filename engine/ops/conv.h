// Float convolutions on raw NHWC buffers (pure functions, no Tensor): the
// reference loops are the specification, the optimized paths are what the
// kernels run. TensorFlow semantics: filters are HWIO for Conv2D and
// [kh, kw, in_channels, multiplier] for DepthwiseConv2dNative, output channel
// c * multiplier + m; padding follows GetWindowedOutputSize (SAME puts the
// extra row/column at the bottom/right).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/ops/conv_geometry.h"

namespace gds::engine {

class ThreadPool;

namespace ops {

// input [batch, in_h, in_w, in_c], filter [filter_h, filter_w, in_c, out_c],
// output [batch, out_h, out_w, out_c].
void conv2dReference(const ConvGeometry& s, const float* input, const float* filter, float* output);
// im2col (or the input itself for 1x1/stride 1) + Eigen GEMM. `scratch` holds
// the patch matrix between calls (may be null: a temporary is used).
void conv2dOptimized(const ConvGeometry& s, const float* input, const float* filter, float* output,
                     const ThreadPool* pool, std::vector<float>* scratch = nullptr);

// Depthwise: filter [filter_h, filter_w, in_c, multiplier] (multiplier in
// s.out_c); output [batch, out_h, out_w, in_c * multiplier].
void depthwiseConv2dReference(const ConvGeometry& s, const float* input, const float* filter,
                              float* output);
// Direct loop over output pixels, vectorized over channels, rows in parallel.
void depthwiseConv2dOptimized(const ConvGeometry& s, const float* input, const float* filter,
                              float* output, const ThreadPool* pool);

// NCHW <-> NHWC transposes for 4-D tensors (used for data_format=NCHW).
void nchwToNhwc(const float* in, float* out, std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w);
void nhwcToNchw(const float* in, float* out, std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t c);

}  // namespace ops
}  // namespace gds::engine
