// Winograd's F(4x4, 3x3) float convolution (Lavin & Gray, "Fast Algorithms
// for Convolutional Neural Networks") for x86-64 CPUs with AVX2 and FMA,
// where oneDNN has no Winograd kernel (its own needs AVX-512). Each 4x4
// block of outputs is computed from a 6x6 block of inputs with 36
// multiplications per (input, output) channel pair instead of 144: the
// inputs and filters are transformed (B^T d B, G g G^T), multiplied position
// by position as 36 GEMMs [tiles x in_c] x [in_c x out_c], and transformed
// back (A^T m A). The results differ from the direct convolution by rounding
// only, a few 1e-6 of the outputs' magnitude more than the direct sum (see
// tests/engine/winograd_test.cc for the measured bound).
//
// NHWC input and output, TensorFlow's HWIO filter, bias, a residual added
// before the activation (the output holds the addend when run() starts, as
// oneDNN's sum post-op) and Relu/Relu6, all applied in the output transform.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/ops/conv.h"
#include "engine/ops/nn.h"

namespace gds::engine {
class ThreadPool;
}

namespace gds::engine::ops {

class WinogradF43 {
 public:
  // Whether this CPU runs it (AVX2 and FMA, within GDS_CPU's cap) and it
  // computes s: a 3x3 filter, stride 1, no dilation, not depthwise.
  static bool supports(const ConvGeometry& s, bool depthwise);
  // Floats of the transformed filter: 36 per pair of channels, input
  // channels padded to a multiple of 8 and output channels of 16 (the
  // vector widths; the padding holds zeros).
  static std::int64_t transformedFilterSize(const ConvGeometry& s);
  // filter: HWIO [3, 3, in_c, filter_ld] (filter_ld 0: out_c), bias: out_c
  // values or null. The filter is transformed now. Null where !supports(s).
  static std::unique_ptr<WinogradF43> create(const ConvGeometry& s, const float* filter, const float* bias,
                                             Activation activation, bool add_to_output, std::int64_t filter_ld = 0);
  // input NHWC [batch, in_h, in_w, in_c], output NHWC [batch, out_h, out_w, out_c].
  // The pool's threads split the tiles, or, where the transformed filter
  // outweighs the tiles' data (few tiles, many channels), the output
  // channels. Either way every output is the same sum in the same order.
  void run(const float* input, float* output, const ThreadPool& pool) const;

  // The transformed, packed filter's floats (transformedFilterSize(s)).
  std::int64_t packedFilterSize() const { return static_cast<std::int64_t>(u_.size()); }

 private:
  static std::int64_t paddedInputChannels(const ConvGeometry& s);
  static std::int64_t paddedOutputChannels(const ConvGeometry& s);
  WinogradF43() = default;
  ConvGeometry s_;
  Activation activation_ = Activation::kNone;
  bool add_to_output_ = false;
  std::int64_t tiles_h_ = 0, tiles_w_ = 0;
  std::int64_t in_cp_ = 0, out_cp_ = 0;  // channels padded to the vector widths
  // U = G g G^T: [36 positions][out_cp / 16 panels][in_cp][16].
  std::vector<float> u_;
  std::vector<float> bias_;  // out_cp values (zeros without a bias, and in the padding)
};

}  // namespace gds::engine::ops
