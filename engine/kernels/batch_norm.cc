// FusedBatchNorm / V2 / V3 and BatchNormWithGlobalNormalization (float32).
// Inference folds the statistics into a per-channel scale and shift, as TF's
// CPU kernel does. FusedBatchNorm with is_training=true (left in some frozen
// graphs) normalizes with the batch's own mean and variance, as TF would.
#include <cmath>
#include <cstring>

#include "engine/kernels/nn_kernel_util.h"
#include "engine/ops/nn.h"

namespace gds::engine {

namespace {

class FusedBatchNormKernel : public OpKernel {
 public:
  explicit FusedBatchNormKernel(int outputs) : outputs_(outputs) {}
  int numOutputs(const KernelInit&) const override { return outputs_; }
  std::vector<DataType> outputTypes(const KernelInit&) const override {
    return std::vector<DataType>(static_cast<size_t>(outputs_), tensorflow::DT_FLOAT);
  }
  Status init(const KernelInit& init) override {
    for (int i = 0; i < init.numInputs(); ++i) GDS_RETURN_IF_ERROR(nn::requireFloatInput(init, i));
    if (init.numInputs() != 5) return init.error("expected 5 inputs (x, scale, offset, mean, variance)");
    GDS_RETURN_IF_ERROR(init.getAttrOr("epsilon", &epsilon_, 0.0001f));
    GDS_RETURN_IF_ERROR(init.getAttrOr("is_training", &is_training_, true));
    std::string format;
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::string>("data_format", &format, "NHWC"));
    if (format != "NHWC" && format != "NCHW")
      return init.error("data_format '" + format + "' is not supported (expected NHWC or NCHW)");
    nchw_ = format == "NCHW";
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    if (x.dims() != 4) return ctx.error("x must be 4-D, got " + model::shapeString(x.shape()));
    const int cdim = nchw_ ? 1 : 3;
    const std::int64_t c = x.dim(cdim);
    for (int i = 1; i < 5; ++i) {
      const Tensor& p = ctx.input(i);
      const bool may_be_empty = is_training_ && i >= 3;  // mean/variance unused when training
      if (!(p.dims() == 1 && p.dim(0) == c) && !(may_be_empty && p.numElements() == 0))
        return ctx.error("input " + std::to_string(i) + " has shape " + model::shapeString(p.shape()) +
                         "; expected [" + std::to_string(c) + "] (the channel count of x)");
    }
    std::int64_t outer = 1, inner = 1;
    for (int i = 0; i < cdim; ++i) outer *= x.dim(i);
    for (int i = cdim + 1; i < 4; ++i) inner *= x.dim(i);
    std::vector<float> mean(static_cast<size_t>(c)), var(static_cast<size_t>(c));
    if (is_training_) {
      ops::channelMoments(x.data<float>(), outer, c, inner, mean.data(), var.data());
    } else {
      std::memcpy(mean.data(), ctx.input(3).data<float>(), sizeof(float) * static_cast<size_t>(c));
      std::memcpy(var.data(), ctx.input(4).data<float>(), sizeof(float) * static_cast<size_t>(c));
    }
    std::vector<float> scale(static_cast<size_t>(c)), shift(static_cast<size_t>(c));
    ops::batchNormCoefficients(c, ctx.input(1).data<float>(), ctx.input(2).data<float>(), mean.data(), var.data(),
                               epsilon_, scale.data(), shift.data());
    Tensor* y = ctx.allocateOutput(0, tensorflow::DT_FLOAT, x.shape());
    ops::channelAffine(x.data<float>(), outer, c, inner, scale.data(), shift.data(), y->data<float>(), &ctx.pool());
    // batch_mean, batch_variance (Bessel-corrected when training), reserve spaces.
    const double n = static_cast<double>(outer * inner);
    std::vector<float> corrected = var;
    if (is_training_ && n > 1)
      for (auto& v : corrected) v = static_cast<float>(v * n / (n - 1));
    const std::vector<float>* values[4] = {&mean, &corrected, &mean, &var};
    for (int o = 1; o < outputs_ && o < 5; ++o) {
      Tensor* t = ctx.allocateOutput(o, tensorflow::DT_FLOAT, {c});
      std::memcpy(t->data<float>(), values[o - 1]->data(), sizeof(float) * static_cast<size_t>(c));
    }
    if (outputs_ == 6) ctx.allocateOutput(5, tensorflow::DT_FLOAT, {0});
    return Status::Ok();
  }
  double flops(const std::vector<Shape>& in, const std::vector<Shape>&) const override {
    if (in.empty() || model::numElements(in[0]) < 0) return 0;
    return 2.0 * static_cast<double>(model::numElements(in[0]));
  }

 private:
  int outputs_;
  float epsilon_ = 0.0001f;
  bool is_training_ = true, nchw_ = false;
};

// BatchNormWithGlobalNormalization(t, m, v, beta, gamma): the deprecated op
// of early Inception graphs; normalizes the last dimension.
class GlobalBatchNormKernel : public OpKernel {
 public:
  Status init(const KernelInit& init) override {
    for (int i = 0; i < init.numInputs(); ++i) GDS_RETURN_IF_ERROR(nn::requireFloatInput(init, i));
    if (init.numInputs() != 5) return init.error("expected 5 inputs (t, m, v, beta, gamma)");
    GDS_RETURN_IF_ERROR(init.getAttr("variance_epsilon", &epsilon_));
    return init.getAttr("scale_after_normalization", &scale_after_);
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    if (x.dims() != 4) return ctx.error("t must be 4-D, got " + model::shapeString(x.shape()));
    const std::int64_t c = x.dim(3);
    for (int i = 1; i < 5; ++i)
      if (ctx.input(i).dims() != 1 || ctx.input(i).dim(0) != c)
        return ctx.error("input " + std::to_string(i) + " has shape " + model::shapeString(ctx.input(i).shape()) +
                         "; expected [" + std::to_string(c) + "]");
    std::vector<float> scale(static_cast<size_t>(c)), shift(static_cast<size_t>(c));
    ops::batchNormCoefficients(c, scale_after_ ? ctx.input(4).data<float>() : nullptr, ctx.input(3).data<float>(),
                               ctx.input(1).data<float>(), ctx.input(2).data<float>(), epsilon_, scale.data(),
                               shift.data());
    Tensor* y = ctx.allocateOutput(0, tensorflow::DT_FLOAT, x.shape());
    ops::channelAffine(x.data<float>(), c == 0 ? 0 : x.numElements() / c, c, 1, scale.data(), shift.data(),
                       y->data<float>(), &ctx.pool());
    return Status::Ok();
  }

 private:
  float epsilon_ = 0;
  bool scale_after_ = false;
};

}  // namespace

void registerBatchNormKernels(KernelRegistry& registry) {
  registry.add("FusedBatchNorm", [] { return std::unique_ptr<OpKernel>(new FusedBatchNormKernel(5)); });
  registry.add("FusedBatchNormV2", [] { return std::unique_ptr<OpKernel>(new FusedBatchNormKernel(5)); });
  registry.add("FusedBatchNormV3", [] { return std::unique_ptr<OpKernel>(new FusedBatchNormKernel(6)); });
  registry.add("BatchNormWithGlobalNormalization", [] { return std::unique_ptr<OpKernel>(new GlobalBatchNormKernel()); });
}

}  // namespace gds::engine
