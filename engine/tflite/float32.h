// TensorFlow Lite's float32 kernels as plain loops (the adapters are
// engine/tflite/kernels/): reference_ops conv, depthwise conv,
// fully connected, pools, softmax, mean and resize bilinear, each summing in
// the order TFLite's reference kernels do, with the fused activation as a
// clamp to [act_min, act_max]; and strided slice, which moves elements of
// any type.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/ops/conv_geometry.h"

namespace gds::engine::tflite {

// The clamp of a fused activation ("NONE", "RELU", "RELU6", "RELU_N1_TO_1");
// false for others.
bool activationRange(const char* activation, float* act_min, float* act_max);

void convReference(const ops::ConvGeometry& s, const float* input, const float* filter, const float* bias,
                   float act_min, float act_max, float* output);
void depthwiseReference(const ops::ConvGeometry& s, const float* input, const float* filter, const float* bias,
                        float act_min, float act_max, float* output);
// input [batch, depth], filter [units, depth].
void fullyConnectedReference(const float* input, const float* filter, const float* bias, std::int64_t batch,
                             std::int64_t depth, std::int64_t units, float act_min, float act_max, float* output);
// Average (cells outside the input not counted) and max pools, out_c = in_c.
void averagePoolReference(const ops::ConvGeometry& s, float act_min, float act_max, const float* input, float* output);
void maxPoolReference(const ops::ConvGeometry& s, float act_min, float act_max, const float* input, float* output);
// exp((x - max) * beta) / sum over the last dimension.
void softmaxReference(const float* input, std::int64_t rows, std::int64_t depth, float beta, float* output);
// Mean of input viewed as [outer, inner, trailing] over `inner`.
void meanReference(const float* input, std::int64_t outer, std::int64_t inner, std::int64_t trailing, float* output);
// reference_ops::ResizeBilinear (align_corners, half_pixel_centers), NHWC.
void resizeBilinearReference(const float* input, std::int64_t batch, std::int64_t in_h, std::int64_t in_w,
                             std::int64_t channels, std::int64_t out_h, std::int64_t out_w, bool align_corners,
                             bool half_pixel_centers, float* output);

// tfl.strided_slice after strided_slice.cc and reference/strided_slice.h
// with strided_slice_logic.h's StridedSliceStartForAxis/EndForAxis: one
// begin, end and stride per input dimension, the input padded at the front
// to 5 dimensions (begin 0, end 1, stride 1, both masks set), a negative
// index counts from the end, begin is clamped to
// [0, size] ([-1, size - 1] for a negative stride) and then replaced by the
// first element when begin_mask has the axis, end likewise (size, or -1),
// `offset` makes end relative to begin, and a shrunk axis takes one element
// and leaves the output. ellipsis_mask and new_axis_mask must be 0 (the
// converter rewrites them away).
struct StridedSliceParams {
  std::vector<std::int64_t> begin, end, strides;  // one entry per input dimension
  std::int64_t begin_mask = 0, end_mask = 0, shrink_axis_mask = 0;
  bool offset = false;
};

// The output shape and the per-axis start/stop/stride of the 5-D walk;
// false with `error` saying which index or stride is not valid.
struct StridedSliceWalk {
  std::vector<std::int64_t> output_shape;
  std::int64_t in_dims[5], start[5], stop[5], stride[5];
};
bool stridedSlicePlan(const StridedSliceParams& p, const std::vector<std::int64_t>& input_shape, StridedSliceWalk* walk,
                      std::string* error);
// Copies the selected elements of `element_size` bytes each, in order.
void stridedSliceReference(const StridedSliceWalk& walk, std::size_t element_size, const void* input, void* output);

}  // namespace gds::engine::tflite
