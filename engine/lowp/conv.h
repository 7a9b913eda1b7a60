// The 8-bit convolution: int32 accumulators of (x - x_zero) * (w - w_zero)
// over each window, the one routine behind TensorFlow's QuantizedConv2D (its
// plan-fused form, QuantizedFusedConv2D) and the GEMM fallback of TensorFlow
// Lite's int8 CONV_2D and DEPTHWISE_CONV_2D (tflite/fast.h). Requantization
// is the caller's, in the epilogue.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "engine/lowp/gemm.h"
#include "engine/ops/conv_geometry.h"

namespace gds::engine {
class ThreadPool;
}

namespace gds::engine::lowp {

// uint8 input [b, h, w, c] and filter [fh, fw, c, oc], int32 output;
// positions outside the input contribute zero (the zero point).
void conv2DReference(const ops::ConvGeometry& s, const std::uint8_t* input, std::int32_t input_zero,
                     const std::uint8_t* filter, std::int32_t filter_zero, std::int32_t* output);
class DnnlConv2D;
// What an 8-bit convolution kernel keeps between its runs.
struct Conv2DState {
  Conv2DState();
  ~Conv2DState();
  // Set by the kernel: oneDNN's convolution (the dnnl backend) copies the
  // weights once, so it is used for constant weights only.
  bool weights_constant = false;
  std::vector<std::uint8_t> patches;  // im2col
  // oneDNN's convolution for `key` (the shape, weights and thread count it
  // depends on): made by `make` when the key changes, null when it could not
  // be made.
  const DnnlConv2D* dnnlFor(std::vector<std::int64_t> key, const std::function<std::unique_ptr<DnnlConv2D>()>& make);
  const DnnlConv2D* dnnl() const { return dnnl_.get(); }  // the last one made

 private:
  std::unique_ptr<DnnlConv2D> dnnl_;
  std::vector<std::int64_t> key_;
};
// The 8-bit convolution. On the dnnl backend with constant weights, oneDNN's
// int8 direct convolution (conv_dnnl.h); otherwise im2col (skipped for 1x1
// stride-1 convolutions) + the 8-bit GEMM. `rhs` is the filter as a
// (fh*fw*c) x oc operand. Input zero points outside [0, 255] cannot pad the
// patches and take the reference loop, as in TensorFlow.
void conv2D(GemmBackend backend, const ops::ConvGeometry& s, const std::uint8_t* input, std::int32_t input_zero,
            const GemmRhs& rhs, std::int32_t* output, const ThreadPool* pool, Conv2DState* state,
            const GemmEpilogue& epilogue = nullptr);

}  // namespace gds::engine::lowp
