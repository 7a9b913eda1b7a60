// FakeQuantWithMinMaxArgs, FakeQuantWithMinMaxVars and
// FakeQuantWithMinMaxVarsPerChannel (float32), as TensorFlow's
// fake_quant_ops.cc: attrs num_bits (2..16, default 8) and narrow_range
// (default false); the Args op takes its range from the min/max attrs
// (min < max), the Vars ops from scalar inputs 1 and 2, the per-channel op
// from [depth] vectors for the last dimension. The arithmetic is
// engine/ops/fake_quant.h. Quantization-aware-trained graphs carry these
// before quantize_nodes turns them into Requantize ranges.
#include <cstdio>

#include "engine/kernels/nn_kernel_util.h"
#include "engine/ops/fake_quant.h"

namespace gds::engine {

namespace {

// TensorFlow's StrCat spelling of a float in its messages ("1", "-0.5").
std::string shortFloat(float v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", static_cast<double>(v));
  return buf;
}

enum class FakeQuantKind { kArgs, kVars, kVarsPerChannel };

class FakeQuantKernel : public OpKernel {
 public:
  explicit FakeQuantKernel(FakeQuantKind kind) : kind_(kind) {}
  std::vector<DataType> outputTypes(const KernelInit&) const override { return {tensorflow::DT_FLOAT}; }
  Status init(const KernelInit& init) override {
    const int inputs = kind_ == FakeQuantKind::kArgs ? 1 : 3;
    if (init.numInputs() != inputs)
      return init.error("expected " + std::to_string(inputs) + (inputs == 1 ? " input (inputs)" : " inputs (inputs, min, max)") +
                        ", got " + std::to_string(init.numInputs()));
    for (int i = 0; i < inputs; ++i) GDS_RETURN_IF_ERROR(nn::requireFloatInput(init, i));
    std::int64_t num_bits = 8;
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("num_bits", &num_bits, 8));
    if (num_bits < 2 || num_bits > 16)
      return init.error("num_bits must be between 2 and 16, inclusive, got " + std::to_string(num_bits));
    bool narrow_range = false;
    GDS_RETURN_IF_ERROR(init.getAttrOr("narrow_range", &narrow_range, false));
    quant_min_ = ops::fakeQuantMin(narrow_range);
    quant_max_ = ops::fakeQuantMax(static_cast<int>(num_bits));
    if (kind_ == FakeQuantKind::kArgs) {
      GDS_RETURN_IF_ERROR(init.getAttrOr("min", &min_, -6.0f));
      GDS_RETURN_IF_ERROR(init.getAttrOr("max", &max_, 6.0f));
      if (!(min_ < max_))
        return init.error("min has to be smaller than max, was: " + shortFloat(min_) + " >= " + shortFloat(max_));
    }
    return Status::Ok();
  }
  bool inferShapes(const KernelInit& init, std::vector<Shape>* shapes) const override {
    Shape s;
    if (!init.inputShape(0, &s)) return false;
    *shapes = {s};
    return true;
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != tensorflow::DT_FLOAT) return ctx.error("inputs must be float, got " + model::dtypeName(x.dtype()));
    Tensor* y = ctx.forwardInputOrAllocateOutput(0, 0, tensorflow::DT_FLOAT, x.shape());
    const std::int64_t n = x.numElements();
    switch (kind_) {
      case FakeQuantKind::kArgs:
        ops::fakeQuantize(x.data<float>(), n, min_, max_, quant_min_, quant_max_,
                          ops::FakeQuantDivide::kMultiplyByInverse, y->data<float>());
        return Status::Ok();
      case FakeQuantKind::kVars: {
        for (int i : {1, 2}) {
          const Tensor& t = ctx.input(i);
          if (t.dims() != 0 || t.dtype() != tensorflow::DT_FLOAT)
            return ctx.error(std::string(i == 1 ? "min" : "max") + " must be a float scalar (rank 0), got " +
                             model::dtypeName(t.dtype()) + " " + model::shapeString(t.shape()));
        }
        ops::fakeQuantize(x.data<float>(), n, ctx.input(1).data<float>()[0], ctx.input(2).data<float>()[0],
                          quant_min_, quant_max_, ops::FakeQuantDivide::kDivide, y->data<float>());
        return Status::Ok();
      }
      case FakeQuantKind::kVarsPerChannel: {
        if (x.dims() < 1) return ctx.error("inputs must have at least rank 1, got a scalar");
        const std::int64_t depth = x.dim(x.dims() - 1);
        for (int i : {1, 2}) {
          const Tensor& t = ctx.input(i);
          if (t.dims() != 1 || t.dim(0) != depth || t.dtype() != tensorflow::DT_FLOAT)
            return ctx.error(std::string(i == 1 ? "min" : "max") + " has incorrect size, expected float [" +
                             std::to_string(depth) + "] (the last dimension of inputs), was " +
                             model::dtypeName(t.dtype()) + " " + model::shapeString(t.shape()));
        }
        ops::fakeQuantizePerChannel(x.data<float>(), depth == 0 ? 0 : n / depth, depth, ctx.input(1).data<float>(),
                                    ctx.input(2).data<float>(), quant_min_, quant_max_, y->data<float>());
        return Status::Ok();
      }
    }
    return Status::Ok();
  }

 private:
  FakeQuantKind kind_;
  int quant_min_ = 0, quant_max_ = 255;
  float min_ = -6.0f, max_ = 6.0f;
};

}  // namespace

void registerFakeQuantKernels(KernelRegistry& registry) {
  registry.add("FakeQuantWithMinMaxArgs",
               [] { return std::unique_ptr<OpKernel>(new FakeQuantKernel(FakeQuantKind::kArgs)); });
  registry.add("FakeQuantWithMinMaxVars",
               [] { return std::unique_ptr<OpKernel>(new FakeQuantKernel(FakeQuantKind::kVars)); });
  registry.add("FakeQuantWithMinMaxVarsPerChannel",
               [] { return std::unique_ptr<OpKernel>(new FakeQuantKernel(FakeQuantKind::kVarsPerChannel)); });
}

}  // namespace gds::engine
