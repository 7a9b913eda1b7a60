// Sources and pass-through kernels: Const, Placeholder, PlaceholderWithDefault,
// Identity, IdentityN, StopGradient, Snapshot, NoOp, CheckNumerics.
// Pass-through kernels forward their input tensor (no copy), as
// TensorFlow's IdentityOp does.
#include <cmath>

#include "engine/kernels/kernel_util.h"

namespace gds::engine {
namespace {

class ConstKernel : public OpKernel {
 public:
  Status init(const KernelInit& init) override {
    auto value = constTensor(init.node(), nullptr);
    if (!value.ok()) return value.status();
    value_ = std::move(value).value();
    return Status::Ok();
  }
  std::vector<DataType> outputTypes(const KernelInit&) const override { return {value_.dtype()}; }
  bool inferShapes(const KernelInit&, std::vector<Shape>* shapes) const override {
    *shapes = {value_.shape()};
    return true;
  }
  Status compute(KernelContext& ctx) override {
    ctx.setOutput(0, value_);
    return Status::Ok();
  }

 private:
  Tensor value_;
};

// Runs only when not fed, which is always an error (TensorFlow: "You must feed
// a value for placeholder tensor").
class PlaceholderKernel : public OpKernel {
 public:
  Status compute(KernelContext& ctx) override {
    return ctx.error("must be fed: add it to the inputs (no value given for this Placeholder)");
  }
};

class ForwardKernel : public OpKernel {
 public:
  Status init(const KernelInit& init) override {
    n_ = init.node().op() == "IdentityN" ? init.numInputs() : 1;
    if (init.numInputs() < n_) return init.error("expects an input");
    for (int i = 0; i < n_; ++i) {
      Shape s;
      if (!init.inputShape(i, &s)) {
        known_ = false;
        break;
      }
      shapes_.push_back(s);
    }
    return Status::Ok();
  }
  int numOutputs(const KernelInit&) const override { return n_; }
  std::vector<DataType> outputTypes(const KernelInit& init) const override {
    std::vector<DataType> types;
    for (int i = 0; i < n_; ++i) types.push_back(init.inputType(i));
    for (DataType t : types)
      if (t == tensorflow::DT_INVALID) return {};
    return types;
  }
  bool inferShapes(const KernelInit&, std::vector<Shape>* shapes) const override {
    if (!known_) return false;
    *shapes = shapes_;
    return true;
  }
  Status compute(KernelContext& ctx) override {
    for (int i = 0; i < n_; ++i) ctx.setOutput(i, ctx.input(i));
    return Status::Ok();
  }

 private:
  int n_ = 1;
  bool known_ = true;
  std::vector<Shape> shapes_;
};

class NoOpKernel : public OpKernel {
 public:
  int numOutputs(const KernelInit&) const override { return 0; }
  Status compute(KernelContext&) override { return Status::Ok(); }
};

class CheckNumericsKernel : public OpKernel {
 public:
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::string>("message", &message_, ""));
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    bool nan = false, inf = false;
    const std::int64_t n = x.numElements();
    if (x.dtype() == tensorflow::DT_FLOAT) {
      const float* p = x.data<float>();
      for (std::int64_t i = 0; i < n; ++i) {
        nan |= std::isnan(p[i]);
        inf |= std::isinf(p[i]);
      }
    } else if (x.dtype() == tensorflow::DT_DOUBLE || x.dtype() == tensorflow::DT_HALF) {
      for (std::int64_t i = 0; i < n; ++i) {
        double v = x.valueAt(i);
        nan |= std::isnan(v);
        inf |= std::isinf(v);
      }
    } else {
      return ctx.error("CheckNumerics needs a floating-point input, got " + model::dtypeName(x.dtype()));
    }
    if (nan || inf) {
      std::string what = nan && inf ? "Inf and NaN" : (nan ? "NaN" : "Inf");
      return ctx.error(message_ + " : Tensor had " + what + " values");
    }
    ctx.setOutput(0, x);
    return Status::Ok();
  }

 private:
  std::string message_;
};

}  // namespace

void registerBasicKernels(KernelRegistry& r) {
  r.add("Const", [] { return std::make_unique<ConstKernel>(); });
  r.add("Placeholder", [] { return std::make_unique<PlaceholderKernel>(); });
  for (const char* op : {"Identity", "IdentityN", "StopGradient", "Snapshot", "PlaceholderWithDefault",
                         "PreventGradient"})
    r.add(op, [] { return std::make_unique<ForwardKernel>(); });
  r.add("NoOp", [] { return std::make_unique<NoOpKernel>(); });
  r.add("CheckNumerics", [] { return std::make_unique<CheckNumericsKernel>(); });
}

}  // namespace gds::engine
