// Conv2DBackpropInput (float32, NHWC): the transposed convolution Keras'
// Conv2DTranspose traces (tf.nn.conv2d_transpose). Its output is the input
// of a forward convolution that would produce out_backprop: sizes and
// padding follow that forward convolution (TensorFlow's
// conv_grad_input_ops.cc: the forward output size must equal out_backprop's,
// and pad_before is the forward SAME padding). Optimized path: one GEMM of
// out_backprop by the filter into per-pixel columns, then col2im; the
// reference path (PlanOptions::reference_kernels) is the plain loop that
// specifies it.
#include <algorithm>
#include <cstring>
#include <vector>

#include "engine/allocation.h"
#include "engine/kernels/nn_kernel_util.h"
#include "engine/ops/gemm.h"

namespace gds::engine {

namespace {

class Conv2DBackpropInputKernel : public OpKernel {
 public:
  Status init(const KernelInit& init) override {
    reference_ = init.referenceKernels();
    GDS_RETURN_IF_ERROR(nn::requireFloatInput(init, 1));
    GDS_RETURN_IF_ERROR(nn::requireFloatInput(init, 2));
    GDS_RETURN_IF_ERROR(nn::readWindowAttrs(init, true, false, &attrs_));
    if (attrs_.nchw) return init.error("data_format NCHW is not supported (NHWC is)");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) override {
    std::vector<std::int64_t> sizes;
    if (!nn::intValues(ctx.input(0), &sizes) || sizes.size() != 4)
      return ctx.error("input_sizes must be 4 int32 values [batch, height, width, channels]");
    const Tensor& filter = ctx.input(1);
    const Tensor& grad = ctx.input(2);
    if (filter.dims() != 4)
      return ctx.error("filter must be 4-D [height, width, out_channels, in_channels], got " +
                       model::shapeString(filter.shape()));
    if (grad.dims() != 4) return ctx.error("out_backprop must be 4-D, got " + model::shapeString(grad.shape()));
    for (auto v : sizes)
      if (v < 0) return ctx.error("input_sizes " + nn::listString(sizes) + " holds a negative size");
    if (sizes[0] != grad.dim(0) || sizes[3] != filter.dim(2) || grad.dim(3) != filter.dim(3))
      return ctx.error("input_sizes " + nn::listString(sizes) + ", filter " + model::shapeString(filter.shape()) +
                       " and out_backprop " + model::shapeString(grad.shape()) +
                       " disagree (batch, output channels = filter dim 2, input channels = filter dim 3)");
    // The forward convolution of an input of `sizes` by the filter.
    ops::ConvGeometry s;
    if (!nn::conv2DShape({sizes[0], sizes[1], sizes[2], sizes[3]},
                         {filter.dim(0), filter.dim(1), filter.dim(2), filter.dim(3)}, attrs_, &s) ||
        s.out_h != grad.dim(1) || s.out_w != grad.dim(2))
      return ctx.error("out_backprop " + model::shapeString(grad.shape()) + " is not what a convolution of " +
                       nn::listString(sizes) + " by the filter " + model::shapeString(filter.shape()) +
                       " with these strides/dilations/padding produces");
    Tensor* out = ctx.allocateOutput(0, tensorflow::DT_FLOAT, {sizes[0], sizes[1], sizes[2], sizes[3]});
    if (reference_) reference(s, grad.data<float>(), filter.data<float>(), out->data<float>());
    else return optimized(ctx, s, grad.data<float>(), filter.data<float>(), out->data<float>());
    return Status::Ok();
  }

  double flops(const std::vector<Shape>& in, const std::vector<Shape>& out) const override {
    if (in.size() < 3 || in[1].size() != 4 || in[2].size() != 4 || out.empty()) return 0;
    const double pixels = static_cast<double>(model::numElements(in[2])) / static_cast<double>(std::max<std::int64_t>(in[2][3], 1));
    return 2.0 * pixels * static_cast<double>(in[1][0] * in[1][1] * in[1][2] * in[1][3]);
  }

 private:
  // Plain loops: every out_backprop pixel spreads its channels through the
  // filter taps onto the output pixels that the forward window read.
  static void reference(const ops::ConvGeometry& s, const float* grad, const float* filter, float* out) {
    std::fill(out, out + s.batch * s.in_h * s.in_w * s.in_c, 0.0f);
    const std::int64_t co = s.in_c, ci = s.out_c;
    for (std::int64_t n = 0; n < s.batch; ++n)
      for (std::int64_t a = 0; a < s.out_h; ++a)
        for (std::int64_t b = 0; b < s.out_w; ++b)
          for (std::int64_t i = 0; i < s.filter_h; ++i)
            for (std::int64_t j = 0; j < s.filter_w; ++j) {
              const std::int64_t y = a * s.stride_h + i * s.dilation_h - s.pad_top;
              const std::int64_t x = b * s.stride_w + j * s.dilation_w - s.pad_left;
              if (y < 0 || y >= s.in_h || x < 0 || x >= s.in_w) continue;
              const float* g = grad + ((n * s.out_h + a) * s.out_w + b) * ci;
              float* o = out + ((n * s.in_h + y) * s.in_w + x) * co;
              const float* f = filter + (i * s.filter_w + j) * co * ci;
              for (std::int64_t c = 0; c < co; ++c) {
                double acc = 0;
                for (std::int64_t k = 0; k < ci; ++k) acc += static_cast<double>(g[k]) * f[c * ci + k];
                o[c] += static_cast<float>(acc);
              }
            }
  }

  // columns[pixel, tap, c] = sum_k grad[pixel, k] * filter[tap, c, k] (one
  // GEMM), then each column added onto the output pixel its tap reaches.
  Status optimized(KernelContext& ctx, const ops::ConvGeometry& s, const float* grad, const float* filter,
                   float* out) {
    const std::int64_t pixels = s.batch * s.out_h * s.out_w;
    const std::int64_t taps = s.filter_h * s.filter_w, co = s.in_c, ci = s.out_c;
    GDS_RETURN_IF_ERROR(checkAllocation(tensorflow::DT_FLOAT, {pixels, taps * co}));
    columns_.resize(static_cast<std::size_t>(pixels * taps * co));
    if (pixels > 0 && taps * co > 0)
      ops::gemm(grad, filter, columns_.data(), pixels, taps * co, ci, false, true, &ctx.pool());
    std::fill(out, out + s.batch * s.in_h * s.in_w * co, 0.0f);
    for (std::int64_t n = 0; n < s.batch; ++n)
      for (std::int64_t a = 0; a < s.out_h; ++a)
        for (std::int64_t b = 0; b < s.out_w; ++b) {
          const float* col = columns_.data() + ((n * s.out_h + a) * s.out_w + b) * taps * co;
          for (std::int64_t i = 0; i < s.filter_h; ++i) {
            const std::int64_t y = a * s.stride_h + i * s.dilation_h - s.pad_top;
            if (y < 0 || y >= s.in_h) continue;
            for (std::int64_t j = 0; j < s.filter_w; ++j) {
              const std::int64_t x = b * s.stride_w + j * s.dilation_w - s.pad_left;
              if (x < 0 || x >= s.in_w) continue;
              float* o = out + ((n * s.in_h + y) * s.in_w + x) * co;
              const float* c = col + (i * s.filter_w + j) * co;
              for (std::int64_t k = 0; k < co; ++k) o[k] += c[k];
            }
          }
        }
    return Status::Ok();
  }

  nn::WindowAttrs attrs_;
  bool reference_ = false;
  std::vector<float> columns_;  // reused across runs
};

}  // namespace

void registerConvTransposeKernels(KernelRegistry& registry) {
  registry.add("Conv2DBackpropInput", [] { return std::make_unique<Conv2DBackpropInputKernel>(); });
}

}  // namespace gds::engine
