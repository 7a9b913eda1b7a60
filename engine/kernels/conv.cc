// Conv2D, FusedPadConv2D, FusedResizeAndPadConv2D, DepthwiseConv2dNative,
// MatMul and BiasAdd kernels (float32). The math lives in engine/ops/conv.h,
// engine/ops/gemm.h and engine/ops/nn.h; these classes read attrs, check
// shapes and pick the reference or optimized path.
#include <cstring>

#include "engine/kernels/nn_kernel_util.h"
#include "engine/ops/conv.h"
#include "engine/ops/gemm.h"
#include "engine/ops/nn.h"

namespace gds::engine {

namespace {

using nn::listString;

// Convolution core shared by the Conv2D family: NHWC input [N,H,W,C] (after
// any NCHW transpose), HWIO filter.
class ConvBase : public OpKernel {
 protected:
  Status initConv(const KernelInit& init, int filter_input, bool has_dilations) {
    reference_ = init.referenceKernels();
    for (int i = 0; i < init.numInputs(); ++i)
      if (i == 0 || i == filter_input) GDS_RETURN_IF_ERROR(nn::requireFloatInput(init, i));
    GDS_RETURN_IF_ERROR(nn::readWindowAttrs(init, has_dilations, false, &attrs_));
    return Status::Ok();
  }

  // Runs the convolution of an NHWC input; allocates output 0 (in the
  // node's data_format).
  Status convolve(KernelContext& ctx, const float* input, const Shape& in_shape, const Tensor& filter) {
    if (filter.dims() != 4)
      return ctx.error("filter must be 4-D [height, width, in_channels, out_channels], got " +
                       model::shapeString(filter.shape()));
    ops::Conv2DShape s;
    s.batch = in_shape[0];
    s.in_h = in_shape[1];
    s.in_w = in_shape[2];
    s.in_c = in_shape[3];
    s.filter_h = filter.dim(0);
    s.filter_w = filter.dim(1);
    s.out_c = filter.dim(3);
    if (filter.dim(2) != s.in_c)
      return ctx.error("input has " + std::to_string(s.in_c) + " channels but the filter " +
                       model::shapeString(filter.shape()) + " expects " + std::to_string(filter.dim(2)) +
                       " (grouped convolution is not supported)");
    s.stride_h = attrs_.stride_h;
    s.stride_w = attrs_.stride_w;
    s.dilation_h = attrs_.dilation_h;
    s.dilation_w = attrs_.dilation_w;
    if (!ops::computeConv2DShape(attrs_.padding, &s, attrs_.explicit_pads))
      return ctx.error("the filter " + model::shapeString(filter.shape()) + " does not fit the input " +
                       model::shapeString(in_shape) + " with these strides/dilations/padding");
    const Shape out_nhwc = {s.batch, s.out_h, s.out_w, s.out_c};
    if (!attrs_.nchw) {
      Tensor* out = ctx.allocateOutput(0, tensorflow::DT_FLOAT, out_nhwc);
      run(ctx, s, input, filter.data<float>(), out->data<float>());
    } else {
      std::vector<float> tmp(static_cast<size_t>(model::numElements(out_nhwc)));
      run(ctx, s, input, filter.data<float>(), tmp.data());
      Tensor* out = ctx.allocateOutput(0, tensorflow::DT_FLOAT, {s.batch, s.out_c, s.out_h, s.out_w});
      ops::nhwcToNchw(tmp.data(), out->data<float>(), s.batch, s.out_h, s.out_w, s.out_c);
    }
    return Status::Ok();
  }

  // The node's input 0 as NHWC (transposing NCHW into `storage`).
  Status nhwcInput(KernelContext& ctx, const Tensor& x, std::vector<float>* storage, const float** data,
                   Shape* shape) {
    if (x.dims() != 4) return ctx.error("input must be 4-D, got " + model::shapeString(x.shape()));
    if (!attrs_.nchw) {
      *data = x.data<float>();
      *shape = x.shape();
      return Status::Ok();
    }
    storage->resize(static_cast<size_t>(x.numElements()));
    ops::nchwToNhwc(x.data<float>(), storage->data(), x.dim(0), x.dim(1), x.dim(2), x.dim(3));
    *data = storage->data();
    *shape = {x.dim(0), x.dim(2), x.dim(3), x.dim(1)};
    return Status::Ok();
  }

  void run(KernelContext& ctx, const ops::Conv2DShape& s, const float* in, const float* filter, float* out) {
    if (reference_) ops::conv2dReference(s, in, filter, out);
    else ops::conv2dOptimized(s, in, filter, out, &ctx.pool(), &scratch_);
  }

  double convFlops(const std::vector<Shape>& inputs, const std::vector<Shape>& outputs, size_t filter_input) const {
    if (outputs.empty() || inputs.size() <= filter_input || inputs[filter_input].size() != 4) return 0;
    const double out = static_cast<double>(model::numElements(outputs[0]));
    const Shape& f = inputs[filter_input];
    if (out < 0 || f[0] < 0 || f[1] < 0 || f[2] < 0) return 0;
    return 2.0 * out * static_cast<double>(f[0] * f[1] * f[2]);
  }

  nn::WindowAttrs attrs_;
  bool reference_ = false;
  std::vector<float> scratch_;  // im2col patches, reused across runs
};

class Conv2DKernel : public ConvBase {
 public:
  Status init(const KernelInit& init) override { return initConv(init, 1, true); }
  Status compute(KernelContext& ctx) override {
    std::vector<float> storage;
    const float* in = nullptr;
    Shape shape;
    GDS_RETURN_IF_ERROR(nhwcInput(ctx, ctx.input(0), &storage, &in, &shape));
    return convolve(ctx, in, shape, ctx.input(1));
  }
  double flops(const std::vector<Shape>& in, const std::vector<Shape>& out) const override { return convFlops(in, out, 1); }
};

// MirrorPad (REFLECT / SYMMETRIC) of an NHWC float tensor, TF's rules for the
// pad sizes (REFLECT: pad < dim, SYMMETRIC: pad <= dim).
Status mirrorPad(KernelContext& ctx, const float* in, const Shape& in_shape, const Tensor& paddings, bool reflect,
                 std::vector<float>* out, Shape* out_shape) {
  std::vector<std::int64_t> p;
  if (!nn::intValues(paddings, &p) || p.size() != 8)
    return ctx.error("paddings must be an int32/int64 [4, 2] tensor, got " + model::shapeString(paddings.shape()));
  std::int64_t dims[4], pads[4][2];
  out_shape->assign(4, 0);
  for (int d = 0; d < 4; ++d) {
    dims[d] = in_shape[static_cast<size_t>(d)];
    pads[d][0] = p[static_cast<size_t>(2 * d)];
    pads[d][1] = p[static_cast<size_t>(2 * d + 1)];
    const std::int64_t limit = reflect ? dims[d] - 1 : dims[d];
    if (pads[d][0] < 0 || pads[d][1] < 0 || pads[d][0] > limit || pads[d][1] > limit)
      return ctx.error("paddings " + listString(p) + " are out of range for input " + model::shapeString(in_shape) +
                       " in mode " + (reflect ? "REFLECT" : "SYMMETRIC"));
    (*out_shape)[static_cast<size_t>(d)] = dims[d] + pads[d][0] + pads[d][1];
  }
  out->resize(static_cast<size_t>(model::numElements(*out_shape)));
  if (!out->empty()) ops::mirrorPad4D(in, dims, pads, reflect, out->data());
  return Status::Ok();
}

Status readMirrorMode(const KernelInit& init, bool* reflect) {
  std::string mode;
  GDS_RETURN_IF_ERROR(init.getAttr("mode", &mode));
  if (mode != "REFLECT" && mode != "SYMMETRIC")
    return init.error("mode '" + mode + "' is not supported (expected REFLECT or SYMMETRIC)");
  *reflect = mode == "REFLECT";
  return Status::Ok();
}

// FusedPadConv2D(input, paddings, filter): MirrorPad then Conv2D, as
// produced by fuse_pad_and_conv (conv_ops_fused_image_transform.cc).
class FusedPadConv2DKernel : public ConvBase {
 public:
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(initConv(init, 2, false));
    if (attrs_.nchw) return init.error("FusedPadConv2D supports NHWC only");
    return readMirrorMode(init, &reflect_);
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    if (x.dims() != 4) return ctx.error("input must be 4-D, got " + model::shapeString(x.shape()));
    std::vector<float> padded;
    Shape padded_shape;
    GDS_RETURN_IF_ERROR(mirrorPad(ctx, x.data<float>(), x.shape(), ctx.input(1), reflect_, &padded, &padded_shape));
    return convolve(ctx, padded.data(), padded_shape, ctx.input(2));
  }
  double flops(const std::vector<Shape>& in, const std::vector<Shape>& out) const override { return convFlops(in, out, 2); }

 private:
  bool reflect_ = true;
};

// FusedResizeAndPadConv2D(input, size, paddings, filter): ResizeBilinear
// (resize_align_corners, no half-pixel centers) then MirrorPad then Conv2D.
class FusedResizeAndPadConv2DKernel : public ConvBase {
 public:
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(initConv(init, 3, false));
    if (attrs_.nchw) return init.error("FusedResizeAndPadConv2D supports NHWC only");
    GDS_RETURN_IF_ERROR(init.getAttrOr("resize_align_corners", &align_corners_, false));
    return readMirrorMode(init, &reflect_);
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    if (x.dims() != 4) return ctx.error("input must be 4-D, got " + model::shapeString(x.shape()));
    std::vector<std::int64_t> size;
    if (!nn::intValues(ctx.input(1), &size) || size.size() != 2 || size[0] <= 0 || size[1] <= 0)
      return ctx.error("size must be 2 positive int32 values (new_height, new_width)");
    const Shape resized_shape = {x.dim(0), size[0], size[1], x.dim(3)};
    std::vector<float> resized(static_cast<size_t>(model::numElements(resized_shape)));
    if (x.dim(1) <= 0 || x.dim(2) <= 0) return ctx.error("cannot resize an empty image " + model::shapeString(x.shape()));
    ops::resizeBilinear(x.data<float>(), x.dim(0), x.dim(1), x.dim(2), x.dim(3), size[0], size[1], align_corners_,
                        false, resized.data());
    std::vector<float> padded;
    Shape padded_shape;
    GDS_RETURN_IF_ERROR(mirrorPad(ctx, resized.data(), resized_shape, ctx.input(2), reflect_, &padded, &padded_shape));
    return convolve(ctx, padded.data(), padded_shape, ctx.input(3));
  }
  double flops(const std::vector<Shape>& in, const std::vector<Shape>& out) const override { return convFlops(in, out, 3); }

 private:
  bool reflect_ = true;
  bool align_corners_ = false;
};

class DepthwiseConv2dKernel : public OpKernel {
 public:
  Status init(const KernelInit& init) override {
    reference_ = init.referenceKernels();
    GDS_RETURN_IF_ERROR(nn::requireFloatInput(init, 0));
    GDS_RETURN_IF_ERROR(nn::requireFloatInput(init, 1));
    return nn::readWindowAttrs(init, true, false, &attrs_);
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Tensor& filter = ctx.input(1);
    if (x.dims() != 4) return ctx.error("input must be 4-D, got " + model::shapeString(x.shape()));
    if (filter.dims() != 4)
      return ctx.error("filter must be 4-D [height, width, in_channels, multiplier], got " +
                       model::shapeString(filter.shape()));
    std::vector<float> in_storage;
    const float* in = x.data<float>();
    ops::Conv2DShape s;
    s.batch = x.dim(0);
    if (attrs_.nchw) {
      in_storage.resize(static_cast<size_t>(x.numElements()));
      ops::nchwToNhwc(x.data<float>(), in_storage.data(), x.dim(0), x.dim(1), x.dim(2), x.dim(3));
      in = in_storage.data();
      s.in_c = x.dim(1);
      s.in_h = x.dim(2);
      s.in_w = x.dim(3);
    } else {
      s.in_h = x.dim(1);
      s.in_w = x.dim(2);
      s.in_c = x.dim(3);
    }
    if (filter.dim(2) != s.in_c)
      return ctx.error("input has " + std::to_string(s.in_c) + " channels but the filter " +
                       model::shapeString(filter.shape()) + " expects " + std::to_string(filter.dim(2)));
    s.filter_h = filter.dim(0);
    s.filter_w = filter.dim(1);
    s.out_c = filter.dim(3);
    s.stride_h = attrs_.stride_h;
    s.stride_w = attrs_.stride_w;
    s.dilation_h = attrs_.dilation_h;
    s.dilation_w = attrs_.dilation_w;
    if (!ops::computeConv2DShape(attrs_.padding, &s, attrs_.explicit_pads))
      return ctx.error("the filter " + model::shapeString(filter.shape()) + " does not fit the input " +
                       model::shapeString(x.shape()) + " with these strides/dilations/padding");
    const std::int64_t oc = s.in_c * s.out_c;
    const Shape nhwc = {s.batch, s.out_h, s.out_w, oc};
    std::vector<float> out_storage;
    float* out;
    Tensor* t = nullptr;
    if (attrs_.nchw) {
      out_storage.resize(static_cast<size_t>(model::numElements(nhwc)));
      out = out_storage.data();
    } else {
      t = ctx.allocateOutput(0, tensorflow::DT_FLOAT, nhwc);
      out = t->data<float>();
    }
    if (reference_) ops::depthwiseConv2dReference(s, in, filter.data<float>(), out);
    else ops::depthwiseConv2dOptimized(s, in, filter.data<float>(), out, &ctx.pool());
    if (attrs_.nchw) {
      t = ctx.allocateOutput(0, tensorflow::DT_FLOAT, {s.batch, oc, s.out_h, s.out_w});
      ops::nhwcToNchw(out, t->data<float>(), s.batch, s.out_h, s.out_w, oc);
    }
    return Status::Ok();
  }
  double flops(const std::vector<Shape>& in, const std::vector<Shape>& out) const override {
    if (out.empty() || in.size() < 2 || in[1].size() != 4) return 0;
    const double n = static_cast<double>(model::numElements(out[0]));
    return n < 0 ? 0 : 2.0 * n * static_cast<double>(in[1][0] * in[1][1]);
  }

 private:
  nn::WindowAttrs attrs_;
  bool reference_ = false;
};

class MatMulKernel : public OpKernel {
 public:
  Status init(const KernelInit& init) override {
    reference_ = init.referenceKernels();
    GDS_RETURN_IF_ERROR(nn::requireFloatInput(init, 0));
    GDS_RETURN_IF_ERROR(nn::requireFloatInput(init, 1));
    GDS_RETURN_IF_ERROR(init.getAttrOr("transpose_a", &transpose_a_, false));
    return init.getAttrOr("transpose_b", &transpose_b_, false);
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.dims() != 2 || b.dims() != 2)
      return ctx.error("MatMul needs 2-D inputs, got " + model::shapeString(a.shape()) + " and " +
                       model::shapeString(b.shape()));
    const std::int64_t m = transpose_a_ ? a.dim(1) : a.dim(0);
    const std::int64_t k = transpose_a_ ? a.dim(0) : a.dim(1);
    const std::int64_t kb = transpose_b_ ? b.dim(1) : b.dim(0);
    const std::int64_t n = transpose_b_ ? b.dim(0) : b.dim(1);
    if (k != kb)
      return ctx.error("inner dimensions differ: " + model::shapeString(a.shape()) +
                       (transpose_a_ ? " (transposed)" : "") + " x " + model::shapeString(b.shape()) +
                       (transpose_b_ ? " (transposed)" : ""));
    Tensor* out = ctx.allocateOutput(0, tensorflow::DT_FLOAT, {m, n});
    if (reference_) ops::gemmReference(a.data<float>(), b.data<float>(), out->data<float>(), m, n, k, transpose_a_, transpose_b_);
    else ops::gemm(a.data<float>(), b.data<float>(), out->data<float>(), m, n, k, transpose_a_, transpose_b_, &ctx.pool());
    return Status::Ok();
  }
  double flops(const std::vector<Shape>& in, const std::vector<Shape>& out) const override {
    if (out.empty() || in.empty() || in[0].size() != 2 || model::numElements(out[0]) < 0) return 0;
    const std::int64_t k = transpose_a_ ? in[0][0] : in[0][1];
    return k < 0 ? 0 : 2.0 * static_cast<double>(model::numElements(out[0])) * static_cast<double>(k);
  }

 private:
  bool transpose_a_ = false, transpose_b_ = false, reference_ = false;
};

class BiasAddKernel : public OpKernel {
 public:
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(nn::requireFloatInput(init, 0));
    GDS_RETURN_IF_ERROR(nn::requireFloatInput(init, 1));
    std::string format;
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::string>("data_format", &format, "NHWC"));
    if (format != "NHWC" && format != "NCHW")
      return init.error("data_format '" + format + "' is not supported (expected NHWC or NCHW)");
    nchw_ = format == "NCHW";
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Tensor& bias = ctx.input(1);
    if (x.dims() < 2) return ctx.error("input must be at least 2-D, got " + model::shapeString(x.shape()));
    if (bias.dims() != 1) return ctx.error("bias must be 1-D, got " + model::shapeString(bias.shape()));
    const int channel_dim = nchw_ && x.dims() >= 3 ? 1 : x.dims() - 1;
    const std::int64_t c = x.dim(channel_dim);
    if (bias.dim(0) != c)
      return ctx.error("bias has " + std::to_string(bias.dim(0)) + " values but the input " +
                       model::shapeString(x.shape()) + " has " + std::to_string(c) + " channels");
    std::int64_t outer = 1, inner = 1;
    for (int i = 0; i < channel_dim; ++i) outer *= x.dim(i);
    for (int i = channel_dim + 1; i < x.dims(); ++i) inner *= x.dim(i);
    Tensor* out = ctx.allocateOutput(0, tensorflow::DT_FLOAT, x.shape());
    ops::biasAdd(x.data<float>(), outer, c, inner, bias.data<float>(), out->data<float>(), &ctx.pool());
    return Status::Ok();
  }

 private:
  bool nchw_ = false;
};

template <typename K>
KernelFactory factory() {
  return [] { return std::unique_ptr<OpKernel>(new K()); };
}

}  // namespace

void registerConvKernels(KernelRegistry& registry) {
  registry.add("Conv2D", factory<Conv2DKernel>());
  registry.add("FusedPadConv2D", factory<FusedPadConv2DKernel>());
  registry.add("FusedResizeAndPadConv2D", factory<FusedResizeAndPadConv2DKernel>());
  registry.add("DepthwiseConv2dNative", factory<DepthwiseConv2dKernel>());
  registry.add("MatMul", factory<MatMulKernel>());
  registry.add("BiasAdd", factory<BiasAddKernel>());
  registry.add("BiasAddV1", factory<BiasAddKernel>());
}

}  // namespace gds::engine
