// Float convolutions on raw NHWC buffers (pure functions, no Tensor): the
// reference loops are the specification, the optimized paths are what the
// kernels run. TensorFlow semantics: filters are HWIO for Conv2D and
// [kh, kw, in_channels, multiplier] for DepthwiseConv2dNative, output channel
// c * multiplier + m; padding follows GetWindowedOutputSize (SAME puts the
// extra row/column at the bottom/right).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gds::engine {

class ThreadPool;

namespace ops {

enum class Padding { kValid, kSame, kExplicit };

// Parses "VALID", "SAME", "EXPLICIT"; false for anything else.
bool parsePadding(const std::string& text, Padding* padding);

// One spatial dimension of a windowed op.
struct WindowDim {
  std::int64_t in = 0, filter = 1, stride = 1, dilation = 1;
  std::int64_t pad_before = 0, pad_after = 0;  // in: explicit pads; out: the pads used
  std::int64_t out = 0;
};
// Computes out and the pads (TensorFlow's GetWindowedOutputSizeVerbose).
// Returns false when the window does not fit (out would be < 0) or arguments are invalid.
bool computeWindow(Padding padding, WindowDim* dim);

struct Conv2DShape {
  std::int64_t batch = 1, in_h = 0, in_w = 0, in_c = 0;
  std::int64_t filter_h = 1, filter_w = 1, out_c = 0;  // out_c: filter outputs (Conv2D) or multiplier (depthwise)
  std::int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  std::int64_t pad_top = 0, pad_left = 0;
  std::int64_t out_h = 0, out_w = 0;
};
// Fills pads and output size from the input/filter/stride/dilation fields.
bool computeConv2DShape(Padding padding, Conv2DShape* shape,
                        const std::vector<std::int64_t>& explicit_pads = {});
// The convolution of output rows [row_begin, row_end) of each image of s,
// on its own: the input rows its windows read (from *first_input_row on)
// with their own padding above, and row_end - row_begin output rows. The
// engine splits one image's convolution into such bands between threads.
Conv2DShape convRowBand(const Conv2DShape& s, std::int64_t row_begin, std::int64_t row_end,
                        std::int64_t* first_input_row);
// When one image's filter is larger than its input (late layers, where
// reading the weights is the cost), `parts` threads split the convolution by
// output channels instead, so that each reads its share of the weights
// only: the [begin, end) channel slices, in groups of 16 (one vector of
// floats or int32), at least two groups each. Empty when rows are the better
// split (or for one part, several images or depthwise filters).
std::vector<std::pair<std::int64_t, std::int64_t>> convChannelSlices(const Conv2DShape& s, bool depthwise,
                                                                     std::int64_t parts);

// input [batch, in_h, in_w, in_c], filter [filter_h, filter_w, in_c, out_c],
// output [batch, out_h, out_w, out_c].
void conv2dReference(const Conv2DShape& s, const float* input, const float* filter, float* output);
// im2col (or the input itself for 1x1/stride 1) + Eigen GEMM. `scratch` holds
// the patch matrix between calls (may be null: a temporary is used).
void conv2dOptimized(const Conv2DShape& s, const float* input, const float* filter, float* output,
                     const ThreadPool* pool, std::vector<float>* scratch = nullptr);

// Depthwise: filter [filter_h, filter_w, in_c, multiplier] (multiplier in
// s.out_c); output [batch, out_h, out_w, in_c * multiplier].
void depthwiseConv2dReference(const Conv2DShape& s, const float* input, const float* filter,
                              float* output);
// Direct loop over output pixels, vectorized over channels, rows in parallel.
void depthwiseConv2dOptimized(const Conv2DShape& s, const float* input, const float* filter,
                              float* output, const ThreadPool* pool);

// NCHW <-> NHWC transposes for 4-D tensors (used for data_format=NCHW).
void nchwToNhwc(const float* in, float* out, std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w);
void nhwcToNchw(const float* in, float* out, std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t c);

}  // namespace ops
}  // namespace gds::engine
