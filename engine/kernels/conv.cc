// Conv2D, FusedPadConv2D, FusedResizeAndPadConv2D, DepthwiseConv2dNative,
// MatMul, their _Fused* forms with bias and activation
// (engine/rewrite/fold_and_fuse.h makes them) and BiasAdd kernels (float32).
// The math lives in engine/ops/ and the choice among oneDNN, Winograd, Eigen
// and the reference loops in float_layers.h; these classes read attrs and
// check shapes.
#include <algorithm>
#include <memory>

#include "engine/kernels/float_layers.h"
#include "engine/kernels/nn_kernel_util.h"
#include "engine/ops/conv.h"
#include "engine/ops/nn.h"

namespace gds::engine {

namespace {

using nn::listString;

// fused_ops of TensorFlow's _FusedConv2D / _FusedDepthwiseConv2dNative /
// _FusedMatMul (grappler's remapper): BiasAdd, then for convolutions
// optionally Add (a residual input of the output's shape, the second extra
// argument), then optionally Relu or Relu6.
Status readFusedOps(const KernelInit& init, bool allow_add, ops::Activation* activation, bool* add) {
  std::vector<std::string> fused;
  GDS_RETURN_IF_ERROR(init.getAttr("fused_ops", &fused));
  std::int64_t num_args = 0;
  GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("num_args", &num_args, 1));
  std::string list;
  for (const auto& f : fused) list += (list.empty() ? "" : ",") + f;
  size_t i = fused.empty() || fused[0] != "BiasAdd" ? fused.size() + 1 : 1;
  *add = allow_add && i < fused.size() && fused[i] == "Add";
  if (*add) ++i;
  *activation = ops::Activation::kNone;
  if (i < fused.size() && (fused[i] == "Relu" || fused[i] == "Relu6")) {
    *activation = fused[i] == "Relu" ? ops::Activation::kRelu : ops::Activation::kRelu6;
    ++i;
  }
  if (i != fused.size() || num_args != (*add ? 2 : 1))
    return init.error("fused_ops [" + list + "] with num_args " + std::to_string(num_args) +
                      " is not supported (expected BiasAdd, " + (allow_add ? "optionally Add, " : "") +
                      "optionally followed by Relu or Relu6, with " + (allow_add ? "1 or 2 args" : "1 arg") + ")");
  return Status::Ok();
}

// Convolution core shared by the Conv2D family and depthwise: NHWC input
// [N,H,W,C] (after any NCHW transpose), HWIO filter (depthwise: [H,W,C,M]),
// optional bias and activation (the _Fused* ops).
class ConvBase : public OpKernel {
 protected:
  // bias_input < 0: no bias (plain convolution).
  Status initConv(const KernelInit& init, int filter_input, bool has_dilations, bool depthwise = false,
                  int bias_input = -1) {
    depthwise_ = depthwise;
    for (int i = 0; i < init.numInputs(); ++i)
      if (i == 0 || i == filter_input || i == bias_input) GDS_RETURN_IF_ERROR(nn::requireFloatInput(init, i));
    GDS_RETURN_IF_ERROR(nn::readWindowAttrs(init, has_dilations, false, &attrs_));
    FloatConvolution::Options o;
    o.reference = init.referenceKernels();
    o.winograd = init.winogradAllowed();
    o.depthwise = depthwise;
    o.weights_constant = init.constantInput(filter_input) != nullptr &&
                         (bias_input < 0 || init.constantInput(bias_input) != nullptr);
    if (bias_input >= 0) GDS_RETURN_IF_ERROR(readFusedOps(init, true, &o.activation, &o.add));
    if (o.add && attrs_.nchw) return init.error("a fused Add is supported with data_format NHWC only");
    add_ = o.add;
    conv_ = FloatConvolution(o);
    return Status::Ok();
  }

  // Runs the convolution of an NHWC input; allocates output 0 (in the
  // node's data_format). bias: null or the node's bias input; addend: the
  // fused Add's input (NHWC, the output's shape) or null.
  Status convolve(KernelContext& ctx, const float* input, const Shape& in_shape, const Tensor& filter,
                  const Tensor* bias = nullptr, const Tensor* addend = nullptr) {
    const char* layout = depthwise_ ? "[height, width, in_channels, multiplier]"
                                    : "[height, width, in_channels, out_channels]";
    if (filter.dims() != 4)
      return ctx.error(std::string("filter must be 4-D ") + layout + ", got " + model::shapeString(filter.shape()));
    if (filter.dim(2) != in_shape[3])
      return ctx.error("input has " + std::to_string(in_shape[3]) + " channels but the filter " +
                       model::shapeString(filter.shape()) + " expects " + std::to_string(filter.dim(2)) +
                       (depthwise_ ? "" : " (grouped convolution is not supported)"));
    ops::ConvGeometry s;
    if (!nn::conv2DShape(in_shape, filter.shape(), attrs_, &s))
      return ctx.error("the filter " + model::shapeString(filter.shape()) + " does not fit the input " +
                       model::shapeString(in_shape) + " with these strides/dilations/padding");
    const std::int64_t channels = depthwise_ ? s.in_c * s.out_c : s.out_c;
    if (bias && (bias->dims() != 1 || bias->dim(0) != channels))
      return ctx.error("bias must be 1-D with " + std::to_string(channels) + " values (the output channels), got " +
                       model::shapeString(bias->shape()));
    const float* bias_data = bias ? bias->data<float>() : nullptr;
    const Shape out_nhwc = {s.batch, s.out_h, s.out_w, channels};
    if (addend && addend->shape() != out_nhwc)
      return ctx.error("the fused Add's input is " + model::shapeString(addend->shape()) +
                       " but the convolution's output is " + model::shapeString(out_nhwc) + " (shapes must be equal)");
    if (!attrs_.nchw) {
      // oneDNN adds the residual to what the output holds: where the addend
      // dies here, the output takes its buffer and nothing is copied.
      Tensor* out = addend && conv_.addsInPlace()
                        ? ctx.forwardInputOrAllocateOutput(3, 0, tensorflow::DT_FLOAT, out_nhwc)
                        : ctx.allocateOutput(0, tensorflow::DT_FLOAT, out_nhwc);
      conv_.run(ctx.pool(), s, input, filter.data<float>(), bias_data, out->data<float>(),
                addend ? addend->data<float>() : nullptr);
    } else {
      std::vector<float> tmp(static_cast<size_t>(model::numElements(out_nhwc)));
      conv_.run(ctx.pool(), s, input, filter.data<float>(), bias_data, tmp.data());
      Tensor* out = ctx.allocateOutput(0, tensorflow::DT_FLOAT, {s.batch, channels, s.out_h, s.out_w});
      ops::nhwcToNchw(tmp.data(), out->data<float>(), s.batch, s.out_h, s.out_w, channels);
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

  double convFlops(const std::vector<Shape>& inputs, const std::vector<Shape>& outputs, size_t filter_input) const {
    if (outputs.empty() || inputs.size() <= filter_input || inputs[filter_input].size() != 4) return 0;
    const double out = static_cast<double>(model::numElements(outputs[0]));
    const Shape& f = inputs[filter_input];
    if (out < 0 || f[0] < 0 || f[1] < 0 || f[2] < 0) return 0;
    // Depthwise: each output reads one input channel.
    return 2.0 * out * static_cast<double>(f[0] * f[1] * (depthwise_ ? 1 : f[2]));
  }

  nn::WindowAttrs attrs_;
  bool depthwise_ = false;
  bool add_ = false;  // a fused residual Add (the node's input 3)
  FloatConvolution conv_;
};

// Whether a kernel runs the plain op or its _Fused form (bias and fused_ops).
enum class Fused { kNo, kYes };
enum class ConvForm { kConv2D, kDepthwise };

// Conv2D(input, filter) and DepthwiseConv2dNative(input, filter), and their
// fused forms _FusedConv2D / _FusedDepthwiseConv2dNative(input, filter, bias).
class Conv2DKernel : public ConvBase {
 public:
  Conv2DKernel(ConvForm form, Fused fused)
      : depthwise_op_(form == ConvForm::kDepthwise), fused_(fused == Fused::kYes) {}
  Status init(const KernelInit& init) override { return initConv(init, 1, true, depthwise_op_, fused_ ? 2 : -1); }
  Status compute(KernelContext& ctx) override {
    std::vector<float> storage;
    const float* in = nullptr;
    Shape shape;
    GDS_RETURN_IF_ERROR(nhwcInput(ctx, ctx.input(0), &storage, &in, &shape));
    return convolve(ctx, in, shape, ctx.input(1), fused_ ? &ctx.input(2) : nullptr, add_ ? &ctx.input(3) : nullptr);
  }
  double flops(const std::vector<Shape>& in, const std::vector<Shape>& out) const override { return convFlops(in, out, 1); }

 private:
  bool depthwise_op_, fused_;
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

// MatMul(a, b) and _FusedMatMul(a, b, bias) with fused_ops BiasAdd[, Relu|Relu6].
class MatMulKernel : public OpKernel {
 public:
  explicit MatMulKernel(Fused fused) : fused_(fused == Fused::kYes) {}
  Status init(const KernelInit& init) override {
    for (int i = 0; i < (fused_ ? 3 : 2); ++i) GDS_RETURN_IF_ERROR(nn::requireFloatInput(init, i));
    FloatMatMul::Options o;
    o.reference = init.referenceKernels();
    GDS_RETURN_IF_ERROR(init.getAttrOr("transpose_a", &o.transpose_a, false));
    GDS_RETURN_IF_ERROR(init.getAttrOr("transpose_b", &o.transpose_b, false));
    o.weights_constant = init.constantInput(1) != nullptr && (!fused_ || init.constantInput(2) != nullptr);
    bool add = false;
    if (fused_) GDS_RETURN_IF_ERROR(readFusedOps(init, false, &o.activation, &add));
    transpose_a_ = o.transpose_a;
    transpose_b_ = o.transpose_b;
    matmul_ = FloatMatMul(o);
    return Status::Ok();
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
    const float* bias = nullptr;
    if (fused_) {
      const Tensor& t = ctx.input(2);
      if (t.dims() != 1 || t.dim(0) != n)
        return ctx.error("bias must be 1-D with " + std::to_string(n) + " values (the output columns), got " +
                         model::shapeString(t.shape()));
      bias = t.data<float>();
    }
    Tensor* out = ctx.allocateOutput(0, tensorflow::DT_FLOAT, {m, n});
    matmul_.run(ctx.pool(), a.data<float>(), b.data<float>(), bias, m, n, k, out->data<float>());
    return Status::Ok();
  }
  double flops(const std::vector<Shape>& in, const std::vector<Shape>& out) const override {
    if (out.empty() || in.empty() || in[0].size() != 2 || model::numElements(out[0]) < 0) return 0;
    const std::int64_t k = transpose_a_ ? in[0][0] : in[0][1];
    return k < 0 ? 0 : 2.0 * static_cast<double>(model::numElements(out[0])) * static_cast<double>(k);
  }

 private:
  bool fused_;
  bool transpose_a_ = false, transpose_b_ = false;
  FloatMatMul matmul_;
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

template <typename K, typename... Args>
KernelFactory factory(Args... args) {
  return [=] { return std::unique_ptr<OpKernel>(new K(args...)); };
}

}  // namespace

void registerConvKernels(KernelRegistry& registry) {
  registry.add("Conv2D", factory<Conv2DKernel>(ConvForm::kConv2D, Fused::kNo));
  registry.add("_FusedConv2D", factory<Conv2DKernel>(ConvForm::kConv2D, Fused::kYes));
  registry.add("FusedPadConv2D", factory<FusedPadConv2DKernel>());
  registry.add("FusedResizeAndPadConv2D", factory<FusedResizeAndPadConv2DKernel>());
  registry.add("DepthwiseConv2dNative", factory<Conv2DKernel>(ConvForm::kDepthwise, Fused::kNo));
  registry.add("_FusedDepthwiseConv2dNative", factory<Conv2DKernel>(ConvForm::kDepthwise, Fused::kYes));
  registry.add("MatMul", factory<MatMulKernel>(Fused::kNo));
  registry.add("_FusedMatMul", factory<MatMulKernel>(Fused::kYes));
  registry.add("BiasAdd", factory<BiasAddKernel>());
  registry.add("BiasAddV1", factory<BiasAddKernel>());
}

}  // namespace gds::engine
