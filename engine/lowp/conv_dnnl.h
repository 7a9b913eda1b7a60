// oneDNN's int8 direct convolution behind the 8-bit Conv2D layers
// (QuantizedConv2D, its plan-fused form and QuantizedFusedConv2D) on the
// dnnl backend: no im2col, kernels oneDNN generates for the CPU it runs on
// (AVX-512 VNNI, AMX), and the same int32 accumulators as conv2DReference:
//   acc[p][c] = sum over the window of (x - x_zero) * (w - w_zero),
// cells outside the input adding nothing.
// Depthwise layers pass x_zero as oneDNN's run-time source zero point.
// Other convolutions run without one (oneDNN's faster brgemm kernels, AMX
// among them, take none) and x_zero times the weights of the taps that fall
// inside the input is subtracted afterwards. The weights go to oneDNN as the
// int8 values w - 128 (GemmRhs::s8). Where w_zero is not 128 (TensorFlow's
// uint8 weights), the sums are over (w - 128) and (w_zero - 128) * sum of
// (x - x_zero) over the window is subtracted from each output pixel. Only
// VNNI and AMX kernels are taken: they add u8 x s8 products into int32
// exactly, where oneDNN's older AVX-512 int8 kernels saturate pairs of
// products at 16 bits.
//
// The work is split as the float convolutions split theirs (engine/kernels/
// conv.cc): groups of images, bands of output rows, or, when the filter
// outweighs the input, groups of output channels; bands are also kept small
// enough that the epilogue (requantization, range scan) reads each band's
// accumulators back from cache right after the band is computed.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/lowp/gemm.h"
#include "engine/ops/conv_geometry.h"

namespace gds::engine {
class ThreadPool;
}

namespace gds::engine::lowp {

class DnnlConv2D {
 public:
  ~DnnlConv2D();
  // The convolution s with rhs's weights ((fh*fw*c) x oc, HWIO) for a pool
  // of `threads` threads. Null when oneDNN is not built in or has no exact
  // (VNNI / AMX) kernel for the shape.
  static std::unique_ptr<DnnlConv2D> create(const ops::ConvGeometry& s, const GemmRhs& rhs, int threads);
  // The same from int8 weights: HWIO, or [fh, fw, c, multiplier] when
  // depthwise (s.out_c = multiplier), whose zero point is weight_zero
  // (depthwise: 0 only).
  static std::unique_ptr<DnnlConv2D> create(const ops::ConvGeometry& s, const std::int8_t* weights,
                                            std::int32_t weight_zero, bool depthwise, int threads);
  // output: (batch * out_h * out_w) x channels accumulators (channels:
  // out_c, or in_c * multiplier when depthwise); `epilogue` runs on blocks
  // of finished rows, as after gemm().
  void run(const std::uint8_t* input, std::int32_t input_zero, std::int32_t* output, const ThreadPool* pool,
           const GemmEpilogue& epilogue) const;
  // XNNPACK's fp32 requantization (lowp::xnnRequantizeFp32) as oneDNN's
  // output stage, for TensorFlow Lite's int8 CONV_2D: the int8 output is
  // written by the convolution itself, no int32 accumulators in memory.
  // oneDNN converts the sum and the bias to float separately and adds them
  // (XNNPACK converts their int32 sum); startingSums says where that is
  // exact. Then its output scales (the same float products), and as
  // post-ops a clamp to [qmin - zero_point, qmax - zero_point], rounding to
  // nearest even and + zero_point, on integers, exact.
  struct Requantization {
    std::vector<float> scale;  // per output channel, or one for all
    std::int32_t zero_point = 0, qmin = -128, qmax = 127;
  };
  // The convolution s of int8 weights with zero point 0 (HWIO, or
  // depthwise [fh, fw, c, multiplier]). oneDNN runs it with no padding: each
  // part copies its rows of the input, as uint8, into a buffer whose padding
  // cells hold the input zero point, so that every window is whole and the
  // zero point's share is one constant per channel. Null as create's.
  static std::unique_ptr<DnnlConv2D> createRequantizing(const ops::ConvGeometry& s, const std::int8_t* weights,
                                                        bool depthwise, const Requantization& q, int threads);
  // What the sums start from per channel (bias, may be null, less
  // input_zero * the channel's weights), into *start. False where some
  // channel's sum could leave float's exact integers (|v| <= 2^24): with u8
  // inputs, a channel's sum lies within 255 times its positive and negative
  // weights' sums; the layer then takes the int32 path.
  bool startingSums(std::int32_t input_zero, const std::int32_t* bias, std::vector<std::int32_t>* start) const;
  // Runs a createRequantizing convolution: input int8 [b, h, w, c] whose
  // zero point is input_zero - 128, output int8 [rows][channels].
  void runRequantizing(const std::int8_t* input, std::int32_t input_zero, const std::vector<std::int32_t>& start,
                       std::int8_t* output, const ThreadPool* pool) const;
  // oneDNN's name of its kernel ("brgconv:avx512_core_amx_int8", ...).
  const std::string& implementation() const;
  int parts() const;

  struct Impl;

 private:
  explicit DnnlConv2D(std::unique_ptr<Impl> impl);
  static std::unique_ptr<DnnlConv2D> build(const ops::ConvGeometry& s, const std::int8_t* weights,
                                           std::int32_t weight_zero, bool depthwise, int threads,
                                           const Requantization* q);
  std::unique_ptr<Impl> impl_;
};

// True when the oneDNN convolution is built in (the CPU is checked by create).
bool dnnlConvCompiled();
// The best instruction set oneDNN uses here ("avx512_core_amx",
// "avx512_core_vnni", ...; ONEDNN_MAX_CPU_ISA lowers it), "" without oneDNN.
std::string dnnlIsa();

}  // namespace gds::engine::lowp
