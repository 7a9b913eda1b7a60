// MaxPool, AvgPool and LRN kernels (float32; NHWC, NCHW via transposes).
#include "engine/kernels/nn_kernel_util.h"
#include "engine/ops/nn.h"

namespace gds::engine {

namespace {

enum class PoolKind { kMax, kAverage };

class PoolKernel : public OpKernel {
 public:
  explicit PoolKernel(PoolKind kind) : max_(kind == PoolKind::kMax) {}
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(nn::requireFloatInput(init, 0));
    GDS_RETURN_IF_ERROR(nn::readWindowAttrs(init, false, true, &attrs_));
    if (attrs_.padding == ops::Padding::kExplicit && !max_)
      return init.error("padding EXPLICIT is not supported for AvgPool");
    // Set by the plan's rewrite when it absorbs a Pad
    // (engine/rewrite/fold_and_fuse.cc).
    if (const tensorflow::AttrValue* v = init.attr("_padding_value")) {
      if (!max_ || attrs_.padding != ops::Padding::kExplicit)
        return init.error("_padding_value needs MaxPool with padding EXPLICIT");
      pad_takes_part_ = true;
      pad_value_ = v->f();
    }
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    if (x.dims() != 4) return ctx.error("input must be 4-D, got " + model::shapeString(x.shape()));
    ops::Pool2DShape s;
    s.batch = x.dim(0);
    s.in_h = x.dim(attrs_.nchw ? 2 : 1);
    s.in_w = x.dim(attrs_.nchw ? 3 : 2);
    s.channels = x.dim(attrs_.nchw ? 1 : 3);
    s.window_h = attrs_.window_h;
    s.window_w = attrs_.window_w;
    s.stride_h = attrs_.stride_h;
    s.stride_w = attrs_.stride_w;
    ops::WindowDim h{s.in_h, s.window_h, s.stride_h, 1, 0, 0, 0};
    ops::WindowDim w{s.in_w, s.window_w, s.stride_w, 1, 0, 0, 0};
    if (attrs_.padding == ops::Padding::kExplicit) {
      h.pad_before = attrs_.explicit_pads[0];
      h.pad_after = attrs_.explicit_pads[1];
      w.pad_before = attrs_.explicit_pads[2];
      w.pad_after = attrs_.explicit_pads[3];
    }
    if (!ops::computeWindow(attrs_.padding, &h) || !ops::computeWindow(attrs_.padding, &w))
      return ctx.error("the window " + std::to_string(s.window_h) + "x" + std::to_string(s.window_w) +
                       " does not fit the input " + model::shapeString(x.shape()));
    s.out_h = h.out;
    s.out_w = w.out;
    s.pad_top = h.pad_before;
    s.pad_left = w.pad_before;
    s.pad_takes_part = pad_takes_part_;
    s.pad_value = pad_value_;
    std::vector<float> in_storage, out_storage;
    const float* in = x.data<float>();
    if (attrs_.nchw) {
      in_storage.resize(static_cast<size_t>(x.numElements()));
      ops::nchwToNhwc(in, in_storage.data(), s.batch, s.channels, s.in_h, s.in_w);
      in = in_storage.data();
      out_storage.resize(static_cast<size_t>(s.batch * s.out_h * s.out_w * s.channels));
    }
    Tensor* t = ctx.allocateOutput(0, tensorflow::DT_FLOAT,
                                   attrs_.nchw ? Shape{s.batch, s.channels, s.out_h, s.out_w}
                                               : Shape{s.batch, s.out_h, s.out_w, s.channels});
    float* out = attrs_.nchw ? out_storage.data() : t->data<float>();
    if (max_) ops::maxPool(s, in, out, &ctx.pool());
    else ops::avgPool(s, in, out, &ctx.pool());
    if (attrs_.nchw) ops::nhwcToNchw(out, t->data<float>(), s.batch, s.out_h, s.out_w, s.channels);
    return Status::Ok();
  }
  double flops(const std::vector<Shape>& in, const std::vector<Shape>& out) const override {
    (void)in;
    if (out.empty() || model::numElements(out[0]) < 0) return 0;
    return static_cast<double>(model::numElements(out[0])) * static_cast<double>(attrs_.window_h * attrs_.window_w);
  }

 private:
  bool max_;
  nn::WindowAttrs attrs_;
  bool pad_takes_part_ = false;
  float pad_value_ = 0.0f;
};

// LRN over the depth (last) dimension of a 4-D NHWC tensor (TF's LRN).
class LrnKernel : public OpKernel {
 public:
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(nn::requireFloatInput(init, 0));
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("depth_radius", &depth_radius_, 5));
    GDS_RETURN_IF_ERROR(init.getAttrOr("bias", &bias_, 1.0f));
    GDS_RETURN_IF_ERROR(init.getAttrOr("alpha", &alpha_, 1.0f));
    GDS_RETURN_IF_ERROR(init.getAttrOr("beta", &beta_, 0.5f));
    if (depth_radius_ < 0) return init.error("depth_radius must be >= 0, got " + std::to_string(depth_radius_));
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    if (x.dims() != 4) return ctx.error("input must be 4-D, got " + model::shapeString(x.shape()));
    Tensor* out = ctx.allocateOutput(0, tensorflow::DT_FLOAT, x.shape());
    const std::int64_t depth = x.dim(3);
    ops::lrn(x.data<float>(), depth == 0 ? 0 : x.numElements() / depth, depth, depth_radius_, bias_, alpha_, beta_,
             out->data<float>());
    return Status::Ok();
  }

 private:
  std::int64_t depth_radius_ = 5;
  float bias_ = 1, alpha_ = 1, beta_ = 0.5f;
};

}  // namespace

void registerPoolingKernels(KernelRegistry& registry) {
  registry.add("MaxPool", [] { return std::unique_ptr<OpKernel>(new PoolKernel(PoolKind::kMax)); });
  registry.add("AvgPool", [] { return std::unique_ptr<OpKernel>(new PoolKernel(PoolKind::kAverage)); });
  registry.add("LRN", [] { return std::unique_ptr<OpKernel>(new LrnKernel()); });
}

}  // namespace gds::engine
