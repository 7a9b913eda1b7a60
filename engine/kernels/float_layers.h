// The float convolution and matrix product behind every graph dialect's
// kernels: TensorFlow's Conv2D family and MatMul (conv.cc) and TensorFlow
// Lite's CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED
// (engine/tflite/kernels/conv.cc). Each picks, once per input shape and
// thread count, oneDNN's primitives (engine/ops/dnnl_float_parallel.h), the
// engine's Winograd F(4x4, 3x3), the Eigen path, or the reference loops.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "engine/ops/conv.h"
#include "engine/ops/dnnl_float_parallel.h"
#include "engine/ops/nn.h"
#include "engine/ops/winograd.h"

namespace gds::engine {

class ThreadPool;

// Whether oneDNN is built in, selected (ops::gemmBackend()) and usable:
// not the reference kernels, and constant weights (reordered once).
bool useOneDnn(bool reference, bool weights_constant);

// out = act(conv(input, filter) + bias + addend), NHWC input and output,
// filter HWIO ([kh, kw, in_c, multiplier] when depthwise).
class FloatConvolution {
 public:
  struct Options {
    bool reference = false;         // the reference loops
    bool winograd = true;           // allowed where it pays
    bool depthwise = false;
    bool weights_constant = false;  // filter and bias: the same values at every run
    bool add = false;               // a residual addend (TensorFlow's fused Add)
    ops::Activation activation = ops::Activation::kNone;
  };
  FloatConvolution() = default;
  explicit FloatConvolution(const Options& options) : options_(options) {}

  // Whether run() adds the result into what `out` holds, so that the output
  // may take the addend's buffer (the oneDNN path).
  bool addsInPlace() const { return useOneDnn(options_.reference, options_.weights_constant); }
  // addend: null, or [rows, channels] (it may be `out` itself).
  void run(const ThreadPool& pool, const ops::ConvGeometry& s, const float* in, const float* filter, const float* bias,
           float* out, const float* addend = nullptr);

 private:
  // The optimized convolution of one input shape: Winograd F(4x4, 3x3) on
  // AVX2 CPUs where it pays and oneDNN has no Winograd of its own, else
  // oneDNN's primitives (both null: the Eigen path).
  struct Fast {
    std::unique_ptr<ops::WinogradF43> winograd;
    std::unique_ptr<dnnl_float::ParallelConvolution> dnnl;
  };
  Fast makeFast(const ops::ConvGeometry& s, const float* filter, const float* bias, int threads) const;

  Options options_;
  std::vector<float> scratch_;  // im2col patches, reused across runs
  // The optimized convolution by input shape and threads.
  std::map<std::array<std::int64_t, 5>, Fast> primitives_;
};

// c[m, n] = act(op(a) x op(b) + bias[n]), b [k, n] or [n, k] (transpose_b).
class FloatMatMul {
 public:
  struct Options {
    bool reference = false;
    bool weights_constant = false;  // b and bias
    bool transpose_a = false, transpose_b = false;
    ops::Activation activation = ops::Activation::kNone;
  };
  FloatMatMul() = default;
  explicit FloatMatMul(const Options& options) : options_(options) {}
  void run(const ThreadPool& pool, const float* a, const float* b, const float* bias, std::int64_t m, std::int64_t n,
           std::int64_t k, float* c);

 private:
  Options options_;
  // oneDNN's inner product by rows and threads (null: the GEMM path).
  std::map<std::pair<std::int64_t, int>, std::unique_ptr<dnnl_float::ParallelInnerProduct>> primitives_;
};

}  // namespace gds::engine
