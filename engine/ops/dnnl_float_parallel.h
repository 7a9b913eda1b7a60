// The float oneDNN primitives (dnnl_float.h) run on the engine's pool: one
// primitive per slice of the output, one slice per pool thread, each
// single-threaded (see dnnl_float.h for why). Made once per input shape and
// thread count by the Conv2D and MatMul kernels (engine/kernels/conv.cc).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/ops/conv.h"
#include "engine/ops/dnnl_float.h"
#include "engine/ops/nn.h"

namespace gds::engine {

class ThreadPool;

namespace dnnl_float {

// Slices: groups of images; for one image, bands of output rows (each
// reading the input rows its windows cover, with its own top/bottom
// padding), or, when the filter is larger than the input (late layers, where
// reading the weights is the cost), groups of output channels, so that each
// thread reads its share of the weights only (ops::convChannelSlices says
// when).
class ParallelConvolution {
 public:
  ~ParallelConvolution();
  // The convolution s (filter and bias as for Convolution::create) for a
  // pool of `threads` threads; add_to_output: a fused residual Add (the
  // output holds the addend when run() starts); winograd: allowed where it
  // pays (Convolution::winogradPays). Null when oneDNN has no primitive for
  // a slice (the caller keeps its Eigen path).
  static std::unique_ptr<ParallelConvolution> create(const ops::ConvGeometry& s, bool depthwise, const float* filter,
                                                     const float* bias, ops::Activation activation, bool add_to_output,
                                                     bool winograd, int threads);
  // input NHWC [batch, in_h, in_w, in_c], output NHWC [batch, out_h, out_w, channels].
  void run(const float* input, float* output, const ThreadPool& pool) const;
  // Slices the work was split into (one per thread that takes part).
  std::size_t parts() const { return parts_.size(); }

 private:
  struct Part {
    std::unique_ptr<Convolution> primitive;
    std::int64_t in_offset = 0, out_offset = 0;  // floats
    std::int64_t ch_begin = 0, ch_end = 0;       // output channels; 0, 0: all of them
  };
  ParallelConvolution() = default;
  std::vector<Part> parts_;
  std::int64_t rows_ = 0, channels_ = 0;
  bool add_to_output_ = false;
};

// out[m, n] = act(a[m, k] x b + bias[n]) (InnerProduct) split into groups of
// rows, or for a single row groups of columns (each with its slice of the
// weights).
class ParallelInnerProduct {
 public:
  ~ParallelInnerProduct();
  // b: [k, n], or [n, k] when transpose_b; null as ParallelConvolution.
  static std::unique_ptr<ParallelInnerProduct> create(std::int64_t m, std::int64_t n, std::int64_t k, const float* b,
                                                      bool transpose_b, const float* bias, ops::Activation activation,
                                                      int threads);
  void run(const float* a, float* out, const ThreadPool& pool) const;

 private:
  struct Part {
    std::unique_ptr<InnerProduct> primitive;
    std::int64_t a_offset = 0, c_offset = 0;  // floats
  };
  ParallelInnerProduct() = default;
  std::vector<Part> parts_;
};

}  // namespace dnnl_float
}  // namespace gds::engine
