// Convolution geometry: padding, output sizes and the split of a
// convolution between threads, for every convolution kernel of the engine
// (float and 8-bit, TensorFlow's and TensorFlow Lite's). TensorFlow's
// padding rules: GetWindowedOutputSize (SAME puts the extra row/column at
// the bottom/right).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gds::engine::ops {

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

// The geometry of one 2-D convolution, depthwise convolution or pool over
// NHWC tensors: the one description that TensorFlow's float and 8-bit
// kernels and TensorFlow Lite's float and int8 kernels share (as TensorFlow
// Lite's ConvParams in kernels/internal/types.h serves its float and integer
// kernels). Input [batch, in_h, in_w, in_c], output [batch, out_h, out_w,
// outputChannels(depthwise)]:
//  - convolution: out_c output channels; TensorFlow's filter is
//    [filter_h, filter_w, in_c, out_c], TensorFlow Lite's
//    [out_c, filter_h, filter_w, in_c];
//  - depthwise convolution: out_c is the channel multiplier and output
//    channel c * out_c + m reads input channel c; the filter
//    [filter_h, filter_w, in_c, out_c] (TensorFlow) and
//    [1, filter_h, filter_w, in_c * out_c] (TensorFlow Lite) are the same
//    bytes;
//  - pool: out_c = in_c, no filter.
// pad_top / pad_left: the padding before the first row / column; a window
// cell outside the input is padding.
struct ConvGeometry {
  std::int64_t batch = 1, in_h = 0, in_w = 0, in_c = 0;
  std::int64_t filter_h = 1, filter_w = 1, out_c = 0;
  std::int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  std::int64_t pad_top = 0, pad_left = 0;
  std::int64_t out_h = 0, out_w = 0;

  // The output tensor's channels.
  std::int64_t outputChannels(bool depthwise) const { return depthwise ? in_c * out_c : out_c; }
};
// Calls fn(fy, fx, pixel) for each tap of output pixel (b, oy, ox)'s window
// that lies inside the input, row by row (the reference loops' order of
// summation); pixel is the input pixel's index in [batch, in_h, in_w] (times
// in_c: its first channel). Taps on padding are skipped.
template <typename Fn>
inline void forEachWindowTap(const ConvGeometry& s, std::int64_t b, std::int64_t oy, std::int64_t ox, Fn&& fn) {
  for (std::int64_t fy = 0; fy < s.filter_h; ++fy) {
    const std::int64_t iy = oy * s.stride_h - s.pad_top + fy * s.dilation_h;
    if (iy < 0 || iy >= s.in_h) continue;
    for (std::int64_t fx = 0; fx < s.filter_w; ++fx) {
      const std::int64_t ix = ox * s.stride_w - s.pad_left + fx * s.dilation_w;
      if (ix < 0 || ix >= s.in_w) continue;
      fn(fy, fx, (b * s.in_h + iy) * s.in_w + ix);
    }
  }
}
// Fills pads and output size from the input/filter/stride/dilation fields.
bool computeConvGeometry(Padding padding, ConvGeometry* shape,
                        const std::vector<std::int64_t>& explicit_pads = {});
// The convolution of output rows [row_begin, row_end) of each image of s,
// on its own: the input rows its windows read (from *first_input_row on)
// with their own padding above, and row_end - row_begin output rows. The
// engine splits one image's convolution into such bands between threads.
ConvGeometry convRowBand(const ConvGeometry& s, std::int64_t row_begin, std::int64_t row_end,
                        std::int64_t* first_input_row);
// How many parts `threads` threads split a convolution into: one per
// thread where each gets `ops_per_part` operations (a multiply and an add per
// tap) or more, fewer below, at least one (a hand-off to the pool costs about
// what a smaller part saves). Depthwise layers take one part per thread
// however small: a depthwise window's sums (one channel each, no dot
// products across channels) run many times slower per operation than a
// convolution's (MobileNet 1.0/224, int8 with VNNI: 56 GOP/s on its 14x14x512
// depthwise layers against 770 on the pointwise ones), and one thread alone
// would read the half of its input that the other thread wrote from the
// other core's cache (2 threads, float: those layers 0.066 ms on one thread,
// 0.037 split).
std::int64_t convThreadParts(const ConvGeometry& s, bool depthwise, std::int64_t threads, double ops_per_part);
// When one image's filter is larger than its input (late layers, where
// reading the weights is the cost), `parts` threads split the convolution by
// output channels instead, so that each reads its share of the weights
// only: the [begin, end) channel slices, in groups of 16 (one vector of
// floats or int32), at least two groups each. Empty when rows are the better
// split (or for one part, several images or depthwise filters), which they
// are for a 1x1 convolution whose rows divide evenly between the parts:
// each thread then writes whole rows, which the next layer's part reads on
// the same core, and no slice is copied into place (2 threads, float:
// ResNet-50's 14x14x256->1024 layers with their residual 0.35 -> 0.29 ms,
// MobileNet 1.0/224's 14x14x512 depthwise layers after them 0.037 -> 0.026).
std::vector<std::pair<std::int64_t, std::int64_t>> convChannelSlices(const ConvGeometry& s, bool depthwise,
                                                                     std::int64_t parts);

}  // namespace gds::engine::ops
