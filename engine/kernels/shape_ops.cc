// Shape kernels (tensorflow/core/kernels/shape_ops.h, reshape_op.h,
// constant_op.cc (Fill), sequence_ops.cc (Range), one_hot_op.cc): Shape,
// ShapeN, Rank, Size, Reshape (one -1), Squeeze, ExpandDims, Fill, Range,
// OneHot. Reshape, Squeeze and ExpandDims share the input buffer.
#include <cmath>

#include "engine/kernels/kernel_util.h"

namespace gds::engine {
namespace {

using kern::shapeStr;
using std::int64_t;

Tensor intTensor(KernelContext& ctx, int out, DataType dtype, const std::vector<int64_t>& values, bool scalar) {
  Shape shape = scalar ? Shape{} : Shape{static_cast<int64_t>(values.size())};
  Tensor* t = ctx.allocateOutput(out, dtype, shape);
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == tensorflow::DT_INT64) t->data<int64_t>()[i] = values[i];
    else t->data<std::int32_t>()[i] = static_cast<std::int32_t>(values[i]);
  }
  return *t;
}

// What a ShapeKernel reports: the shape, the rank, the element count, or the
// shape of each of ShapeN's inputs.
enum class ShapeOf { kShape, kRank, kSize, kShapeN };

class ShapeKernel : public OpKernel {
 public:
  explicit ShapeKernel(ShapeOf kind) : kind_(kind) {}
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(init.getAttrOr<DataType>("out_type", &out_type_, tensorflow::DT_INT32));
    if (kind_ == ShapeOf::kRank) out_type_ = tensorflow::DT_INT32;
    if (out_type_ != tensorflow::DT_INT32 && out_type_ != tensorflow::DT_INT64)
      return init.error("out_type must be int32 or int64");
    n_ = kind_ == ShapeOf::kShapeN ? init.numInputs() : 1;
    for (int i = 0; i < n_; ++i) {
      Shape s;
      known_.push_back(init.inputShape(i, &s));
      ranks_.push_back(static_cast<int64_t>(s.size()));
    }
    return Status::Ok();
  }
  int numOutputs(const KernelInit&) const override { return n_; }
  std::vector<DataType> outputTypes(const KernelInit&) const override {
    return std::vector<DataType>(static_cast<size_t>(n_), out_type_);
  }
  bool inferShapes(const KernelInit&, std::vector<Shape>* shapes) const override {
    shapes->clear();
    for (int i = 0; i < n_; ++i) {
      if (kind_ == ShapeOf::kRank || kind_ == ShapeOf::kSize) shapes->push_back({});
      else if (known_[static_cast<size_t>(i)]) shapes->push_back({ranks_[static_cast<size_t>(i)]});
      else return false;
    }
    return true;
  }
  Status compute(KernelContext& ctx) override {
    for (int i = 0; i < n_; ++i) {
      const Tensor& x = ctx.input(i);
      if (kind_ == ShapeOf::kRank) intTensor(ctx, i, out_type_, {x.dims()}, true);
      else if (kind_ == ShapeOf::kSize) {
        if (out_type_ == tensorflow::DT_INT32 && x.numElements() > 0x7fffffff)
          return ctx.error("number of elements does not fit int32; use out_type=int64");
        intTensor(ctx, i, out_type_, {x.numElements()}, true);
      } else {
        intTensor(ctx, i, out_type_, x.shape(), false);
      }
    }
    return Status::Ok();
  }

 private:
  ShapeOf kind_;
  int n_ = 1;
  DataType out_type_ = tensorflow::DT_INT32;
  std::vector<bool> known_;
  std::vector<int64_t> ranks_;
};

std::string listStr(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

// Resolves a Reshape target (one -1 allowed) against an element count.
Status resolveReshape(const std::vector<int64_t>& target, int64_t elements, Shape* out, std::string* error) {
  int unknown = -1;
  int64_t product = 1;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == -1) {
      if (unknown >= 0) {
        *error = "only one dimension of the shape may be -1, got " + listStr(target);
        return Status::Error(*error);
      }
      unknown = static_cast<int>(i);
    } else if (target[i] < 0) {
      *error = "shape " + listStr(target) + " has a negative dimension";
      return Status::Error(*error);
    } else {
      product *= target[i];
    }
  }
  *out = target;
  if (unknown >= 0) {
    if (product == 0 || elements % product != 0) {
      *error = "cannot reshape a tensor with " + std::to_string(elements) + " elements to shape " + listStr(target);
      return Status::Error(*error);
    }
    (*out)[static_cast<size_t>(unknown)] = elements / product;
  } else if (product != elements) {
    *error = "cannot reshape a tensor with " + std::to_string(elements) + " elements to shape " + listStr(target) +
             " (" + std::to_string(product) + " elements)";
    return Status::Error(*error);
  }
  return Status::Ok();
}

class ReshapeKernel : public OpKernel {
 public:
  Status init(const KernelInit& init) override {
    if (init.numInputs() != 2) return init.error("expects 2 inputs (tensor, shape)");
    std::vector<int64_t> target;
    if (!kern::constInts(init, 1, &target)) return Status::Ok();
    Shape in;
    if (init.inputShape(0, &in) && model::numElements(in) >= 0) {
      std::string err;
      if (!resolveReshape(target, model::numElements(in), &static_, &err).ok()) return init.error(err);
      known_ = true;
    } else {
      static_ = target;  // -1 stays unknown
      known_ = true;
    }
    return Status::Ok();
  }
  bool inferShapes(const KernelInit&, std::vector<Shape>* shapes) const override {
    if (!known_) return false;
    *shapes = {static_};
    return true;
  }
  Status compute(KernelContext& ctx) override {
    std::vector<int64_t> target;
    GDS_RETURN_IF_ERROR(kern::readInts(ctx, 1, "shape", &target));
    const Tensor& x = ctx.input(0);
    Shape out;
    std::string err;
    if (!resolveReshape(target, x.numElements(), &out, &err).ok())
      return ctx.error(err + " (input shape " + shapeStr(x.shape()) + ")");
    ctx.setOutput(0, x.reshaped(out));
    return Status::Ok();
  }

 private:
  Shape static_;
  bool known_ = false;
};

class SqueezeKernel : public OpKernel {
 public:
  Status init(const KernelInit& init) override {
    if (init.attr("squeeze_dims")) GDS_RETURN_IF_ERROR(init.getAttr("squeeze_dims", &dims_));
    else if (init.attr("axis")) GDS_RETURN_IF_ERROR(init.getAttr("axis", &dims_));
    Shape in;
    if (init.inputShape(0, &in)) {
      std::string err;
      known_ = squeeze(in, &static_, &err, true);
      if (!err.empty()) return init.error(err);
    }
    return Status::Ok();
  }
  bool inferShapes(const KernelInit&, std::vector<Shape>* shapes) const override {
    if (!known_) return false;
    *shapes = {static_};
    return true;
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    Shape out;
    std::string err;
    squeeze(x.shape(), &out, &err, false);
    if (!err.empty()) return ctx.error(err);
    ctx.setOutput(0, x.reshaped(out));
    return Status::Ok();
  }

 private:
  // Returns false when the result is not known statically (unknown dims).
  bool squeeze(const Shape& in, Shape* out, std::string* err, bool partial) const {
    const int64_t rank = static_cast<int64_t>(in.size());
    std::vector<bool> drop(in.size(), false);
    for (int64_t d : dims_) {
      int64_t a;
      if (!kern::normalizeAxis(d, rank, &a)) {
        *err = "squeeze dim " + std::to_string(d) + " is out of range for rank " + std::to_string(rank);
        return false;
      }
      if (in[static_cast<size_t>(a)] != 1 && !(partial && in[static_cast<size_t>(a)] < 0)) {
        *err = "cannot squeeze dim[" + std::to_string(a) + "] of shape " + shapeStr(in) +
               ": expected a dimension of 1, got " + std::to_string(in[static_cast<size_t>(a)]);
        return false;
      }
      drop[static_cast<size_t>(a)] = true;
    }
    out->clear();
    for (size_t i = 0; i < in.size(); ++i) {
      if (dims_.empty()) {
        if (in[i] < 0 && partial) return false;
        if (in[i] == 1) continue;
      } else if (drop[i]) {
        continue;
      }
      out->push_back(in[i]);
    }
    return true;
  }
  std::vector<int64_t> dims_;
  Shape static_;
  bool known_ = false;
};

class ExpandDimsKernel : public OpKernel {
 public:
  Status init(const KernelInit& init) override {
    if (init.numInputs() != 2) return init.error("expects 2 inputs (input, dim)");
    std::vector<int64_t> dim;
    Shape in;
    if (kern::constInts(init, 1, &dim) && init.inputShape(0, &in)) {
      std::string err;
      if (!expand(in, dim, &static_, &err)) return init.error(err);
      known_ = true;
    }
    return Status::Ok();
  }
  bool inferShapes(const KernelInit&, std::vector<Shape>* shapes) const override {
    if (!known_) return false;
    *shapes = {static_};
    return true;
  }
  Status compute(KernelContext& ctx) override {
    std::vector<int64_t> dim;
    GDS_RETURN_IF_ERROR(kern::readInts(ctx, 1, "dim", &dim));
    Shape out;
    std::string err;
    if (!expand(ctx.input(0).shape(), dim, &out, &err)) return ctx.error(err);
    ctx.setOutput(0, ctx.input(0).reshaped(out));
    return Status::Ok();
  }

 private:
  static bool expand(const Shape& in, const std::vector<int64_t>& dim, Shape* out, std::string* err) {
    if (dim.size() != 1) {
      *err = "dim must be a single value, got " + std::to_string(dim.size());
      return false;
    }
    const int64_t rank = static_cast<int64_t>(in.size());
    int64_t d = dim[0];
    if (d < -rank - 1 || d > rank) {
      *err = "dim " + std::to_string(d) + " is out of range [" + std::to_string(-rank - 1) + ", " +
             std::to_string(rank) + "]";
      return false;
    }
    if (d < 0) d += rank + 1;
    *out = in;
    out->insert(out->begin() + d, 1);
    return true;
  }
  Shape static_;
  bool known_ = false;
};

class FillKernel : public OpKernel {
 public:
  Status init(const KernelInit& init) override {
    std::vector<int64_t> dims;
    if (kern::constInts(init, 0, &dims)) {
      static_ = dims;
      known_ = true;
    }
    return Status::Ok();
  }
  std::vector<DataType> outputTypes(const KernelInit& init) const override {
    DataType t = init.inputType(1);
    if (t == tensorflow::DT_INVALID) t = init.typeAttr();
    return {t};
  }
  bool inferShapes(const KernelInit&, std::vector<Shape>* shapes) const override {
    if (!known_) return false;
    *shapes = {static_};
    return true;
  }
  Status compute(KernelContext& ctx) override {
    std::vector<int64_t> dims;
    GDS_RETURN_IF_ERROR(kern::readInts(ctx, 0, "dims", &dims));
    for (int64_t d : dims)
      if (d < 0) return ctx.error("dims " + shapeStr(dims) + " has a negative dimension");
    const Tensor& v = ctx.input(1);
    if (v.numElements() != 1) return ctx.error("value must be a scalar, got shape " + shapeStr(v.shape()));
    Tensor* out = ctx.allocateOutput(0, v.dtype(), dims);
    const int64_t n = out->numElements();
    bool ok = kern::dispatchStorage(v.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T value = kern::elems<T>(v)[0];
      T* o = kern::elems<T>(*out);
      for (int64_t i = 0; i < n; ++i) o[i] = value;
    });
    if (!ok) return ctx.error("unsupported dtype " + model::dtypeName(v.dtype()));
    return Status::Ok();
  }

 private:
  Shape static_;
  bool known_ = false;
};

class RangeKernel : public OpKernel {
 public:
  std::vector<DataType> outputTypes(const KernelInit& init) const override {
    DataType t = init.inputType(0);
    if (t == tensorflow::DT_INVALID) {
      const tensorflow::AttrValue* a = init.attr("Tidx");
      t = a ? a->type() : tensorflow::DT_INT32;
    }
    return {t};
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& s = ctx.input(0);
    const Tensor& l = ctx.input(1);
    const Tensor& d = ctx.input(2);
    for (int i = 0; i < 3; ++i)
      if (ctx.input(i).numElements() != 1)
        return ctx.error(std::string(i == 0 ? "start" : (i == 1 ? "limit" : "delta")) + " must be a scalar, got shape " +
                         shapeStr(ctx.input(i).shape()));
    DataType t = s.dtype();
    switch (t) {
      case tensorflow::DT_INT32: return run<std::int32_t>(ctx, s, l, d, t);
      case tensorflow::DT_INT64: return run<int64_t>(ctx, s, l, d, t);
      case tensorflow::DT_FLOAT: return run<float>(ctx, s, l, d, t);
      case tensorflow::DT_DOUBLE: return run<double>(ctx, s, l, d, t);
      default: return ctx.error("unsupported dtype " + model::dtypeName(t));
    }
  }

 private:
  template <typename T>
  Status run(KernelContext& ctx, const Tensor& s, const Tensor& l, const Tensor& d, DataType t) {
    if (l.dtype() != t || d.dtype() != t) return ctx.error("start, limit and delta must have the same dtype");
    T start = s.data<T>()[0], limit = l.data<T>()[0], delta = d.data<T>()[0];
    if (delta == 0) return ctx.error("requires delta != 0");
    if (delta > 0 && start > limit) return ctx.error("requires start <= limit when delta > 0");
    if (delta < 0 && start < limit) return ctx.error("requires start >= limit when delta < 0");
    // TensorFlow: "Requires ((limit - start) / delta) <= 2^63 - 1"; the
    // count is then checked against the memory budget by allocateOutput.
    const double span = std::ceil(std::abs((static_cast<double>(limit) - static_cast<double>(start)) /
                                           static_cast<double>(delta)));
    if (!(span < 9223372036854775807.0))
      return ctx.error("requires ((limit - start) / delta) <= 2^63 - 1, got start " + std::to_string(start) +
                       ", limit " + std::to_string(limit) + ", delta " + std::to_string(delta));
    int64_t size;
    if constexpr (std::is_integral_v<T>) {
      size = (std::abs(static_cast<int64_t>(limit) - static_cast<int64_t>(start)) +
              std::abs(static_cast<int64_t>(delta)) - 1) / std::abs(static_cast<int64_t>(delta));
    } else {
      size = static_cast<int64_t>(std::ceil(std::abs((static_cast<double>(limit) - start) / delta)));
    }
    Tensor* out = ctx.allocateOutput(0, t, {size});
    T v = start;
    for (int64_t i = 0; i < size; ++i, v += delta) out->data<T>()[i] = v;
    return Status::Ok();
  }
};

class OneHotKernel : public OpKernel {
 public:
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(init.getAttrOr<int64_t>("axis", &axis_, -1));
    if (init.numInputs() != 4) return init.error("expects 4 inputs (indices, depth, on_value, off_value)");
    return Status::Ok();
  }
  std::vector<DataType> outputTypes(const KernelInit& init) const override { return {init.inputType(2)}; }
  Status compute(KernelContext& ctx) override {
    std::vector<int64_t> indices, depth_v;
    GDS_RETURN_IF_ERROR(kern::readInts(ctx, 0, "indices", &indices));
    GDS_RETURN_IF_ERROR(kern::readInts(ctx, 1, "depth", &depth_v));
    if (depth_v.size() != 1 || depth_v[0] < 0) return ctx.error("depth must be a non-negative scalar");
    const int64_t depth = depth_v[0];
    const Tensor& on = ctx.input(2);
    const Tensor& off = ctx.input(3);
    if (on.dtype() != off.dtype() || on.numElements() != 1 || off.numElements() != 1)
      return ctx.error("on_value and off_value must be scalars of the same dtype");
    const Shape& ishape = ctx.input(0).shape();
    const int64_t rank = static_cast<int64_t>(ishape.size());
    int64_t axis = axis_ == -1 ? rank : axis_;
    if (axis < 0 || axis > rank) return ctx.error("axis " + std::to_string(axis_) + " is out of range");
    Shape oshape = ishape;
    oshape.insert(oshape.begin() + axis, depth);
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < axis; ++i) outer *= ishape[static_cast<size_t>(i)];
    for (int64_t i = axis; i < rank; ++i) inner *= ishape[static_cast<size_t>(i)];
    Tensor* out = ctx.allocateOutput(0, on.dtype(), oshape);
    bool ok = kern::dispatchStorage(on.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T onv = kern::elems<T>(on)[0], offv = kern::elems<T>(off)[0];
      T* o = kern::elems<T>(*out);
      for (int64_t a = 0; a < outer; ++a)
        for (int64_t d = 0; d < depth; ++d)
          for (int64_t b = 0; b < inner; ++b)
            o[(a * depth + d) * inner + b] = indices[static_cast<size_t>(a * inner + b)] == d ? onv : offv;
    });
    if (!ok) return ctx.error("unsupported dtype " + model::dtypeName(on.dtype()));
    return Status::Ok();
  }

 private:
  int64_t axis_ = -1;
};

}  // namespace

void registerShapeKernels(KernelRegistry& r) {
  r.add("Shape", [] { return std::make_unique<ShapeKernel>(ShapeOf::kShape); });
  r.add("Rank", [] { return std::make_unique<ShapeKernel>(ShapeOf::kRank); });
  r.add("Size", [] { return std::make_unique<ShapeKernel>(ShapeOf::kSize); });
  r.add("ShapeN", [] { return std::make_unique<ShapeKernel>(ShapeOf::kShapeN); });
  r.add("Reshape", [] { return std::make_unique<ReshapeKernel>(); });
  r.add("Squeeze", [] { return std::make_unique<SqueezeKernel>(); });
  r.add("ExpandDims", [] { return std::make_unique<ExpandDimsKernel>(); });
  r.add("Fill", [] { return std::make_unique<FillKernel>(); });
  r.add("Range", [] { return std::make_unique<RangeKernel>(); });
  r.add("OneHot", [] { return std::make_unique<OneHotKernel>(); });
}

}  // namespace gds::engine
