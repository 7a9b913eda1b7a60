// oneDNN primitives for the float convolution family (Conv2D, depthwise,
// MatMul with constant weights), NHWC in and out, bias and Relu/Relu6 as the
// primitive's own post-ops. Each primitive is built once for one input shape;
// its weights are reordered once into the layout oneDNN prefers and kept, so
// a constant filter costs nothing per run. Primitives run single-threaded on
// the calling thread: the engine's pool runs several of them on slices of
// the output (bands of rows, images, columns), which avoids a second thread
// runtime (OpenMP) competing with the pool for the cores.
//
// Built only when oneDNN is found (GDS_WITH_DNNL); available() tells at run
// time. The Eigen kernels (engine/ops/conv.h, gemm.h) stay the baseline: the
// oneDNN path is taken when ops::gemmBackend() is kOneDnn (the default when
// built in; KernelChoice::float_gemm = eigen selects Eigen for everything).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "engine/ops/conv.h"
#include "engine/ops/nn.h"

namespace gds::engine::dnnl_float {

// True when oneDNN is built in.
bool available();

class Convolution {
 public:
  ~Convolution();
  struct Options {
    // The result is added to what the output holds (a fused residual Add,
    // before the activation).
    bool add_to_output = false;
    // A primitive of the same filter: its reordered weights are shared when
    // this one wants the same layout.
    const Convolution* share = nullptr;
    // Winograd's algorithm, oneDNN's F(4x4, 3x3) or F(2x2, 3x3) by the
    // output's size (dnnl_float.cc says why), when oneDNN has one for this
    // shape (3x3, stride 1, no dilation, not depthwise, no add_to_output;
    // see winogradPays; AVX-512 only: on AVX2 the engine's own F(4x4, 3x3),
    // engine/ops/winograd.h, takes these convolutions); it runs in oneDNN's
    // blocked layout, between reorders of the NHWC input and output.
    bool winograd = false;
    // Distance between the filter's rows (HWIO's last dimension) when the
    // filter is a slice of the output channels of a wider one; 0: s.out_c.
    std::int64_t filter_ld = 0;
  };
  // filter: HWIO for a convolution, [kh, kw, in_c, multiplier] (s.out_c =
  // multiplier) when depthwise; bias: one value per output channel or null.
  // The filter and bias are copied (reordered) now, unless shared.
  // Returns null when oneDNN is not built in or offers only its reference
  // implementation for this shape.
  static std::unique_ptr<Convolution> create(const ops::ConvGeometry& s, bool depthwise, const float* filter,
                                             const float* bias, ops::Activation activation,
                                             const Options& options);
  // Whether Winograd is worth its reorders for a whole convolution of this
  // shape (measured in ResNet-50: 1.4-1.6x at 56x56x64 and 28x28x128, 1.1x
  // at 14x14x256 on one thread; none at 7x7, or with few channels).
  static bool winogradPays(const ops::ConvGeometry& s, bool depthwise);
  // Whether oneDNN has a Winograd kernel for this CPU (it needs AVX-512;
  // ONEDNN_MAX_CPU_ISA can take it away). Elsewhere the engine's own
  // F(4x4, 3x3) (engine/ops/winograd.h) takes the same convolutions.
  static bool winogradAvailable();
  // input NHWC [batch, in_h, in_w, in_c], output NHWC [batch, out_h, out_w, channels].
  void run(const float* input, float* output) const;
  // oneDNN's name of the implementation it chose ("brg:avx512_core", ...).
  const std::string& implementation() const;

  struct Impl;

 private:
  static std::unique_ptr<Convolution> createWinograd(const ops::ConvGeometry& s, const float* filter,
                                                     const float* bias, ops::Activation activation,
                                                     const Options& options);
  explicit Convolution(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// out[m, n] = act(a[m, k] x b + bias[n]) with b constant: [k, n], or [n, k]
// when transpose_b (oneDNN's inner product). For a slice of columns pass b
// and bias at the slice's first column, n = the slice's width and
// ldb = the full b's row length ([k, n] layout) or k (transposed); the output
// rows then have `ldc` floats.
class InnerProduct {
 public:
  ~InnerProduct();
  static std::unique_ptr<InnerProduct> create(std::int64_t m, std::int64_t n, std::int64_t k, const float* b,
                                              std::int64_t ldb, bool transpose_b, const float* bias,
                                              ops::Activation activation, std::int64_t ldc);
  void run(const float* a, float* out) const;
  const std::string& implementation() const;

  struct Impl;

 private:
  explicit InnerProduct(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace gds::engine::dnnl_float
