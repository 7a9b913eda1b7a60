// Elementwise kernels: binary arithmetic and comparisons with numpy/
// TensorFlow broadcasting (tensorflow/core/util/bcast.h), unary math,
// activations, Cast, Select/SelectV2, AddN, ZerosLike/OnesLike.
//
// Each op has a reference path (one loop over output elements that unravels
// the index, the specification) and an optimized path: broadcast dims are
// collapsed to a few strided loops whose contiguous inner runs are Eigen
// array expressions (vectorized) and split over the thread pool. The math of
// both is engine/ops/elementwise.h.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <type_traits>

#include <Eigen/Core>

#include "engine/kernels/kernel_util.h"
#include "engine/ops/elementwise.h"

namespace gds::engine {
namespace {

// The functors, loops and Unary of engine/ops/elementwise.h.
using namespace ops;  // NOLINT(build/namespaces)
using kern::broadcastShapes;
using std::int32_t;
using std::int64_t;

// ---------------------------------------------------------------------------
// Binary kernels.

bool isArithType(DataType t) {
  return t == tensorflow::DT_FLOAT || t == tensorflow::DT_DOUBLE || t == tensorflow::DT_INT32 ||
         t == tensorflow::DT_INT64;
}

class BinaryKernelBase : public OpKernel {
 public:
  Status init(const KernelInit& init) override {
    reference_ = init.referenceKernels();
    if (init.numInputs() != 2) return init.error("expects 2 inputs, has " + std::to_string(init.numInputs()));
    DataType ta = init.inputType(0), tb = init.inputType(1);
    if (ta != tensorflow::DT_INVALID && tb != tensorflow::DT_INVALID && ta != tb)
      return init.error("inputs have different dtypes: " + model::dtypeName(ta) + " and " + model::dtypeName(tb));
    Shape a, b, out;
    if (init.inputShape(0, &a) && init.inputShape(1, &b)) {
      if (!broadcastShapes(a, b, &out))
        return init.error("incompatible shapes for broadcasting: " + kern::shapeStr(a) + " and " +
                          kern::shapeStr(b));
      static_out_ = out;
      static_known_ = true;
    }
    return Status::Ok();
  }
  bool inferShapes(const KernelInit&, std::vector<Shape>* shapes) const override {
    if (!static_known_) return false;
    *shapes = {static_out_};
    return true;
  }
  double flops(const std::vector<Shape>&, const std::vector<Shape>& outputs) const override {
    return outputs.empty() ? 0 : static_cast<double>(std::max<int64_t>(0, model::numElements(outputs[0])));
  }

 protected:
  Status prepare(KernelContext& ctx, BroadcastPlan* p) const {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.dtype() != b.dtype())
      return ctx.error("inputs have different dtypes: " + model::dtypeName(a.dtype()) + " and " +
                       model::dtypeName(b.dtype()));
    if (!makeBroadcastPlan(a.shape(), b.shape(), p))
      return ctx.error("incompatible shapes for broadcasting: " + kern::shapeStr(a.shape()) + " and " +
                       kern::shapeStr(b.shape()));
    return Status::Ok();
  }
  bool reference_ = false;
  Shape static_out_;
  bool static_known_ = false;
};

// Integer Div, FloorDiv and FloorMod fail on a zero divisor, as TensorFlow's
// kernels do, instead of trapping.
enum class IntDivision { kUnchecked, kRejectZero };

template <typename Op>
class ArithKernel : public BinaryKernelBase {
 public:
  explicit ArithKernel(IntDivision int_division = IntDivision::kUnchecked) : int_division_(int_division) {}
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(BinaryKernelBase::init(init));
    DataType t = init.inputType(0);
    if (t != tensorflow::DT_INVALID && !isArithType(t))
      return init.error("unsupported dtype " + model::dtypeName(t) +
                        " (float, double, int32, int64); convert the graph's inputs or remove the node");
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    BroadcastPlan p;
    GDS_RETURN_IF_ERROR(prepare(ctx, &p));
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    DataType t = a.dtype();
    if (!isArithType(t)) return ctx.error("unsupported dtype " + model::dtypeName(t) + " (float, double, int32, int64)");
    Tensor* out = ctx.allocateOutput(0, t, p.out);
    switch (t) {
      case tensorflow::DT_FLOAT: return run<float>(ctx, a, b, out, p);
      case tensorflow::DT_DOUBLE: return run<double>(ctx, a, b, out, p);
      case tensorflow::DT_INT32: return run<int32_t>(ctx, a, b, out, p);
      default: return run<int64_t>(ctx, a, b, out, p);
    }
  }

 private:
  template <typename T>
  Status run(KernelContext& ctx, const Tensor& a, const Tensor& b, Tensor* out, const BroadcastPlan& p) {
    if constexpr (std::is_integral_v<T>) {
      if (int_division_ == IntDivision::kRejectZero) {
        const T* pb = b.data<T>();
        for (int64_t i = 0, n = b.numElements(); i < n; ++i)
          if (pb[i] == 0) return ctx.error("integer division by zero");
      }
      if (std::is_same_v<Op, PowOp>) {
        const T* pb = b.data<T>();
        for (int64_t i = 0, n = b.numElements(); i < n; ++i)
          if (pb[i] < 0) return ctx.error("integers to negative integer powers are not allowed");
      }
    }
    if (out->numElements() == 0) return Status::Ok();
    if (reference_) {
      referenceBinary<T, T>(a.data<T>(), a.shape(), b.data<T>(), b.shape(), out->data<T>(), out->shape(),
                            [](T x, T y) { return Op::template scalar<T>(x, y); });
    } else {
      stridedBinary<T, T>(p, a.data<T>(), b.data<T>(), out->data<T>(), ctx.pool(), innerArith<Op, T>);
    }
    return Status::Ok();
  }
  IntDivision int_division_;
};

// LogicalAnd/LogicalOr accept bool inputs only; comparisons any dtype.
enum class CompareInputs { kAny, kBool };

template <typename Op>
class CompareKernel : public BinaryKernelBase {
 public:
  explicit CompareKernel(CompareInputs inputs = CompareInputs::kAny) : inputs_(inputs) {}
  std::vector<DataType> outputTypes(const KernelInit&) const override { return {tensorflow::DT_BOOL}; }
  Status compute(KernelContext& ctx) override {
    BroadcastPlan p;
    GDS_RETURN_IF_ERROR(prepare(ctx, &p));
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    Tensor* out = ctx.allocateOutput(0, tensorflow::DT_BOOL, p.out);
    if (out->numElements() == 0) return Status::Ok();
    if (inputs_ == CompareInputs::kBool && a.dtype() != tensorflow::DT_BOOL) return ctx.error("inputs must be bool");
    switch (a.dtype()) {
      case tensorflow::DT_FLOAT: run<float>(ctx, a, b, out, p); break;
      case tensorflow::DT_DOUBLE: run<double>(ctx, a, b, out, p); break;
      case tensorflow::DT_INT32: run<int32_t>(ctx, a, b, out, p); break;
      case tensorflow::DT_INT64: run<int64_t>(ctx, a, b, out, p); break;
      case tensorflow::DT_BOOL: run<bool>(ctx, a, b, out, p); break;
      case tensorflow::DT_UINT8: run<std::uint8_t>(ctx, a, b, out, p); break;
      case tensorflow::DT_STRING: {
        if (!std::is_same_v<Op, EqualOp> && !std::is_same_v<Op, NotEqualOp>)
          return ctx.error("strings only support Equal and NotEqual");
        const auto& sa = a.strings();
        const auto& sb = b.strings();
        bool* po = out->data<bool>();
        for (int64_t i = 0, n = out->numElements(); i < n; ++i) {
          int64_t oa, ob;
          unravel(i, out->shape(), a.shape(), &oa);
          unravel(i, out->shape(), b.shape(), &ob);
          bool eq = sa[static_cast<size_t>(oa)] == sb[static_cast<size_t>(ob)];
          po[i] = std::is_same_v<Op, EqualOp> ? eq : !eq;
        }
        break;
      }
      default: return ctx.error("unsupported dtype " + model::dtypeName(a.dtype()));
    }
    return Status::Ok();
  }

 private:
  template <typename T>
  void run(KernelContext& ctx, const Tensor& a, const Tensor& b, Tensor* out, const BroadcastPlan& p) {
    if (reference_)
      referenceBinary<T, bool>(a.data<T>(), a.shape(), b.data<T>(), b.shape(), out->data<bool>(), out->shape(),
                               [](T x, T y) { return Op::template scalar<T>(x, y); });
    else
      stridedBinary<T, bool>(p, a.data<T>(), b.data<T>(), out->data<bool>(), ctx.pool(), innerCompare<Op, T>);
  }
  CompareInputs inputs_;
};

// ---------------------------------------------------------------------------
// Unary ops.

// The input dtypes a unary op accepts: float and double only (Exp, Tanh, ...)
// or also int32 and int64 (Neg, Abs, Square, ...).
enum class UnaryDtypes { kNumeric, kFloat };

class UnaryKernel : public OpKernel {
 public:
  UnaryKernel(Unary op, UnaryDtypes dtypes) : op_(op), dtypes_(dtypes) {}
  Status init(const KernelInit& init) override {
    reference_ = init.referenceKernels();
    if (init.numInputs() != 1) return init.error("expects 1 input, has " + std::to_string(init.numInputs()));
    if (op_ == Unary::LeakyRelu) GDS_RETURN_IF_ERROR(init.getAttrOr<float>("alpha", &alpha_, 0.2f));
    const DataType t = init.inputType(0);
    const bool is_float = t == tensorflow::DT_FLOAT || t == tensorflow::DT_DOUBLE;
    if (t != tensorflow::DT_INVALID && !is_float &&
        (dtypes_ == UnaryDtypes::kFloat || (t != tensorflow::DT_INT32 && t != tensorflow::DT_INT64)))
      return init.error("unsupported dtype " + model::dtypeName(t) +
                        (dtypes_ == UnaryDtypes::kFloat ? " (float, double)" : " (float, double, int32, int64)") +
                        "; convert the graph's inputs or remove the node");
    known_ = init.inputShape(0, &shape_);
    return Status::Ok();
  }
  bool inferShapes(const KernelInit&, std::vector<Shape>* shapes) const override {
    if (!known_) return false;
    *shapes = {shape_};
    return true;
  }
  double flops(const std::vector<Shape>&, const std::vector<Shape>& outputs) const override {
    return outputs.empty() ? 0 : static_cast<double>(std::max<int64_t>(0, model::numElements(outputs[0])));
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    DataType t = x.dtype();
    bool is_float = t == tensorflow::DT_FLOAT || t == tensorflow::DT_DOUBLE;
    if (!is_float && (dtypes_ == UnaryDtypes::kFloat || (t != tensorflow::DT_INT32 && t != tensorflow::DT_INT64)))
      return ctx.error("unsupported dtype " + model::dtypeName(t) +
                       (dtypes_ == UnaryDtypes::kFloat ? " (float, double)" : " (float, double, int32, int64)"));
    Tensor* out = ctx.allocateOutput(0, t, x.shape());
    const int64_t n = x.numElements();
    if (n <= 0) return Status::Ok();
    switch (t) {
      case tensorflow::DT_FLOAT: {
        const float* in = x.data<float>();
        float* o = out->data<float>();
        if (reference_) {
          for (int64_t i = 0; i < n; ++i) o[i] = unaryScalar<float>(op_, in[i], alpha_);
        } else {
          ctx.pool().parallelFor(n, unaryCost(op_), [&](int64_t b, int64_t e) {
            unaryFloatVec(op_, in + b, o + b, e - b, alpha_);
          });
        }
        break;
      }
      case tensorflow::DT_DOUBLE: loop<double>(x, out, n); break;
      case tensorflow::DT_INT32: loop<int32_t>(x, out, n); break;
      default: loop<int64_t>(x, out, n); break;
    }
    return Status::Ok();
  }

 private:
  template <typename T>
  void loop(const Tensor& x, Tensor* out, int64_t n) {
    const T* in = x.data<T>();
    T* o = out->data<T>();
    for (int64_t i = 0; i < n; ++i) o[i] = unaryScalar<T>(op_, in[i], alpha_);
  }
  Unary op_;
  UnaryDtypes dtypes_;
  bool reference_ = false;
  float alpha_ = 0.2f;
  Shape shape_;
  bool known_ = false;
};

class LogicalNotKernel : public OpKernel {
 public:
  std::vector<DataType> outputTypes(const KernelInit&) const override { return {tensorflow::DT_BOOL}; }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != tensorflow::DT_BOOL) return ctx.error("input must be bool, got " + model::dtypeName(x.dtype()));
    Tensor* out = ctx.allocateOutput(0, tensorflow::DT_BOOL, x.shape());
    for (int64_t i = 0, n = x.numElements(); i < n; ++i) out->data<bool>()[i] = !x.data<bool>()[i];
    return Status::Ok();
  }
};

// ---------------------------------------------------------------------------
// Cast: static_cast between numeric types, as TensorFlow's CastOp (bool: != 0).

template <typename T>
double loadAsDouble(const void* p, int64_t i) { return static_cast<double>(static_cast<const T*>(p)[i]); }

template <typename From, typename To>
void castLoop(const From* in, To* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<To, bool>) out[i] = in[i] != From(0);
    else out[i] = static_cast<To>(in[i]);
  }
}

template <typename Fn>
bool dispatchNumeric(DataType t, Fn&& fn) {
  switch (t) {
    case tensorflow::DT_FLOAT: fn(float()); return true;
    case tensorflow::DT_DOUBLE: fn(double()); return true;
    case tensorflow::DT_INT32: fn(int32_t()); return true;
    case tensorflow::DT_INT64: fn(int64_t()); return true;
    case tensorflow::DT_UINT8: case tensorflow::DT_QUINT8: fn(std::uint8_t()); return true;
    case tensorflow::DT_INT8: case tensorflow::DT_QINT8: fn(std::int8_t()); return true;
    case tensorflow::DT_INT16: case tensorflow::DT_QINT16: fn(std::int16_t()); return true;
    case tensorflow::DT_UINT16: case tensorflow::DT_QUINT16: fn(std::uint16_t()); return true;
    case tensorflow::DT_UINT32: fn(std::uint32_t()); return true;
    case tensorflow::DT_UINT64: fn(std::uint64_t()); return true;
    case tensorflow::DT_BOOL: fn(bool()); return true;
    default: return false;
  }
}

class CastKernel : public OpKernel {
 public:
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(init.getAttr("DstT", &dst_));
    dst_ = model::baseDtype(dst_);
    known_ = init.inputShape(0, &shape_);
    return Status::Ok();
  }
  std::vector<DataType> outputTypes(const KernelInit&) const override { return {dst_}; }
  bool inferShapes(const KernelInit&, std::vector<Shape>* shapes) const override {
    if (!known_) return false;
    *shapes = {shape_};
    return true;
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    if (x.dtype() == dst_) {
      ctx.setOutput(0, x);
      return Status::Ok();
    }
    Tensor* out = ctx.allocateOutput(0, dst_, x.shape());
    const int64_t n = x.numElements();
    // Half/bfloat16 go through float.
    if (x.dtype() == tensorflow::DT_HALF || x.dtype() == tensorflow::DT_BFLOAT16) {
      std::vector<float> tmp(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) tmp[static_cast<size_t>(i)] = static_cast<float>(x.valueAt(i));
      return castFrom(ctx, tmp.data(), out, n);
    }
    bool ok = false;
    Status s = Status::Ok();
    ok = dispatchNumeric(x.dtype(), [&](auto from) {
      using From = decltype(from);
      s = castFrom(ctx, x.data<From>(), out, n);
    });
    if (!ok) return ctx.error("cannot cast " + model::dtypeName(x.dtype()) + " to " + model::dtypeName(dst_));
    return s;
  }

 private:
  template <typename From>
  Status castFrom(KernelContext& ctx, const From* in, Tensor* out, int64_t n) {
    if (dst_ == tensorflow::DT_HALF) {
      for (int64_t i = 0; i < n; ++i) out->data<std::uint16_t>()[i] = model::floatToHalf(static_cast<float>(in[i]));
      return Status::Ok();
    }
    bool ok = dispatchNumeric(dst_, [&](auto to) {
      using To = decltype(to);
      castLoop<From, To>(in, out->data<To>(), n);
    });
    if (!ok) return ctx.error("cannot cast to " + model::dtypeName(dst_));
    return Status::Ok();
  }
  DataType dst_ = tensorflow::DT_INVALID;
  Shape shape_;
  bool known_ = false;
};

// ---------------------------------------------------------------------------
// Select (condition shaped like x, a scalar, or a vector over x's first dim)
// and SelectV2 (three-way broadcasting).

// Select: condition of x's shape, a scalar or a vector over x's first
// dimension; SelectV2 broadcasts condition, x and y against each other.
enum class SelectForm { kSelect, kSelectV2 };

class SelectKernel : public OpKernel {
 public:
  explicit SelectKernel(SelectForm form) : form_(form) {}
  Status init(const KernelInit& init) override {
    if (init.numInputs() != 3) return init.error("expects 3 inputs (condition, x, y)");
    return Status::Ok();
  }
  std::vector<DataType> outputTypes(const KernelInit& init) const override { return {init.inputType(1)}; }
  Status compute(KernelContext& ctx) override {
    const Tensor& c = ctx.input(0);
    const Tensor& x = ctx.input(1);
    const Tensor& y = ctx.input(2);
    if (c.dtype() != tensorflow::DT_BOOL) return ctx.error("condition must be bool");
    if (x.dtype() != y.dtype()) return ctx.error("x and y have different dtypes");
    Shape out_shape;
    if (form_ == SelectForm::kSelectV2) {
      Shape xy;
      if (!broadcastShapes(x.shape(), y.shape(), &xy) || !broadcastShapes(c.shape(), xy, &out_shape))
        return ctx.error("incompatible shapes: condition " + kern::shapeStr(c.shape()) + ", x " +
                         kern::shapeStr(x.shape()) + ", y " + kern::shapeStr(y.shape()));
    } else {
      if (x.shape() != y.shape())
        return ctx.error("x and y must have the same shape: " + kern::shapeStr(x.shape()) + " vs " +
                         kern::shapeStr(y.shape()));
      bool ok = c.shape() == x.shape() || c.dims() == 0 ||
                (c.dims() == 1 && x.dims() >= 1 && c.dim(0) == x.dim(0));
      if (!ok)
        return ctx.error("condition shape " + kern::shapeStr(c.shape()) + " must be a scalar, equal x's shape " +
                         kern::shapeStr(x.shape()) + ", or a vector of x's first dimension");
      out_shape = x.shape();
    }
    Tensor* out = ctx.allocateOutput(0, x.dtype(), out_shape);
    const int64_t n = out->numElements();
    bool ok = kern::dispatchStorage(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* px = kern::elems<T>(x);
      const T* py = kern::elems<T>(y);
      T* po = kern::elems<T>(*out);
      const bool* pc = c.data<bool>();
      if (form_ == SelectForm::kSelectV2) {
        for (int64_t i = 0; i < n; ++i) {
          int64_t oc, ox, oy;
          unravel(i, out_shape, c.shape(), &oc);
          unravel(i, out_shape, x.shape(), &ox);
          unravel(i, out_shape, y.shape(), &oy);
          po[i] = pc[oc] ? px[ox] : py[oy];
        }
      } else if (c.shape() == x.shape()) {
        for (int64_t i = 0; i < n; ++i) po[i] = pc[i] ? px[i] : py[i];
      } else if (c.dims() == 0) {
        for (int64_t i = 0; i < n; ++i) po[i] = pc[0] ? px[i] : py[i];
      } else {
        const int64_t rows = c.dim(0), inner = rows ? n / rows : 0;
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t k = 0; k < inner; ++k) po[r * inner + k] = pc[r] ? px[r * inner + k] : py[r * inner + k];
      }
    });
    if (!ok) return ctx.error("unsupported dtype " + model::dtypeName(x.dtype()));
    return Status::Ok();
  }

 private:
  SelectForm form_;
};

// ---------------------------------------------------------------------------
// AddN: sum of same-shaped tensors.

class AddNKernel : public OpKernel {
 public:
  Status init(const KernelInit& init) override {
    reference_ = init.referenceKernels();
    if (init.numInputs() < 1) return init.error("expects at least 1 input");
    Shape first, s;
    if (init.inputShape(0, &first)) {
      known_ = true;
      shape_ = first;
      for (int i = 1; i < init.numInputs(); ++i)
        if (init.inputShape(i, &s) && model::numElements(s) >= 0 && model::numElements(first) >= 0 && s != first)
          return init.error("all inputs must have the same shape: input 0 is " + kern::shapeStr(first) +
                            ", input " + std::to_string(i) + " is " + kern::shapeStr(s));
    }
    return Status::Ok();
  }
  bool inferShapes(const KernelInit&, std::vector<Shape>* shapes) const override {
    if (!known_) return false;
    *shapes = {shape_};
    return true;
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& a = ctx.input(0);
    for (int i = 1; i < ctx.numInputs(); ++i) {
      if (ctx.input(i).shape() != a.shape())
        return ctx.error("all inputs must have the same shape: input 0 is " + kern::shapeStr(a.shape()) +
                         ", input " + std::to_string(i) + " is " + kern::shapeStr(ctx.input(i).shape()));
      if (ctx.input(i).dtype() != a.dtype()) return ctx.error("all inputs must have the same dtype");
    }
    if (ctx.numInputs() == 1) {
      ctx.setOutput(0, a);
      return Status::Ok();
    }
    Tensor* out = ctx.allocateOutput(0, a.dtype(), a.shape());
    const int64_t n = a.numElements();
    switch (a.dtype()) {
      case tensorflow::DT_FLOAT: sum<float>(ctx, out, n); break;
      case tensorflow::DT_DOUBLE: sum<double>(ctx, out, n); break;
      case tensorflow::DT_INT32: sum<int32_t>(ctx, out, n); break;
      case tensorflow::DT_INT64: sum<int64_t>(ctx, out, n); break;
      default: return ctx.error("unsupported dtype " + model::dtypeName(a.dtype()));
    }
    return Status::Ok();
  }

 private:
  template <typename T>
  void sum(KernelContext& ctx, Tensor* out, int64_t n) {
    T* o = out->data<T>();
    if (reference_ || !std::is_floating_point_v<T>) {
      for (int64_t i = 0; i < n; ++i) {
        T s = ctx.input(0).data<T>()[i];
        for (int k = 1; k < ctx.numInputs(); ++k) s += ctx.input(k).data<T>()[i];
        o[i] = s;
      }
      return;
    }
    ctx.pool().parallelFor(n, ctx.numInputs(), [&](int64_t b, int64_t e) {
      ArrayMap<T> om(o + b, e - b);
      om = ConstArrayMap<T>(ctx.input(0).data<T>() + b, e - b) + ConstArrayMap<T>(ctx.input(1).data<T>() + b, e - b);
      for (int k = 2; k < ctx.numInputs(); ++k) om += ConstArrayMap<T>(ctx.input(k).data<T>() + b, e - b);
    });
  }
  bool reference_ = false;
  Shape shape_;
  bool known_ = false;
};

// ZerosLike / OnesLike.
class FillLikeKernel : public OpKernel {
 public:
  explicit FillLikeKernel(int value) : value_(value) {}
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    Tensor* out = ctx.allocateOutput(0, x.dtype(), x.shape());
    const int64_t n = x.numElements();
    if (x.dtype() == tensorflow::DT_STRING) {
      if (value_ != 0) return ctx.error("OnesLike does not support strings");
      return Status::Ok();  // empty strings
    }
    if (x.dtype() == tensorflow::DT_HALF) {
      std::uint16_t v = model::floatToHalf(static_cast<float>(value_));
      for (int64_t i = 0; i < n; ++i) out->data<std::uint16_t>()[i] = v;
      return Status::Ok();
    }
    bool ok = dispatchNumeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      T* o = out->data<T>();
      for (int64_t i = 0; i < n; ++i) o[i] = static_cast<T>(value_);
    });
    if (!ok) return ctx.error("unsupported dtype " + model::dtypeName(x.dtype()));
    return Status::Ok();
  }

 private:
  int value_;
};

}  // namespace

void registerElementwiseKernels(KernelRegistry& r) {
  r.add("Add", [] { return std::make_unique<ArithKernel<AddOp>>(); });
  r.add("AddV2", [] { return std::make_unique<ArithKernel<AddOp>>(); });
  r.add("Sub", [] { return std::make_unique<ArithKernel<SubOp>>(); });
  r.add("Mul", [] { return std::make_unique<ArithKernel<MulOp>>(); });
  r.add("Div", [] { return std::make_unique<ArithKernel<DivOp>>(IntDivision::kRejectZero); });
  r.add("RealDiv", [] { return std::make_unique<ArithKernel<DivOp>>(IntDivision::kRejectZero); });
  r.add("FloorDiv", [] { return std::make_unique<ArithKernel<FloorDivOp>>(IntDivision::kRejectZero); });
  r.add("FloorMod", [] { return std::make_unique<ArithKernel<FloorModOp>>(IntDivision::kRejectZero); });
  r.add("Maximum", [] { return std::make_unique<ArithKernel<MaxOp>>(); });
  r.add("Minimum", [] { return std::make_unique<ArithKernel<MinOp>>(); });
  r.add("SquaredDifference", [] { return std::make_unique<ArithKernel<SqDiffOp>>(); });
  r.add("Pow", [] { return std::make_unique<ArithKernel<PowOp>>(); });
  r.add("Less", [] { return std::make_unique<CompareKernel<LessOp>>(); });
  r.add("Greater", [] { return std::make_unique<CompareKernel<GreaterOp>>(); });
  r.add("LessEqual", [] { return std::make_unique<CompareKernel<LessEqualOp>>(); });
  r.add("GreaterEqual", [] { return std::make_unique<CompareKernel<GreaterEqualOp>>(); });
  r.add("Equal", [] { return std::make_unique<CompareKernel<EqualOp>>(); });
  r.add("NotEqual", [] { return std::make_unique<CompareKernel<NotEqualOp>>(); });
  r.add("LogicalAnd", [] { return std::make_unique<CompareKernel<LogicalAndOp>>(CompareInputs::kBool); });
  r.add("LogicalOr", [] { return std::make_unique<CompareKernel<LogicalOrOp>>(CompareInputs::kBool); });
  r.add("LogicalNot", [] { return std::make_unique<LogicalNotKernel>(); });
  struct U { const char* name; Unary op; UnaryDtypes dtypes; };
  constexpr UnaryDtypes kNum = UnaryDtypes::kNumeric, kFlt = UnaryDtypes::kFloat;
  for (const U& u : {U{"Neg", Unary::Neg, kNum}, U{"Abs", Unary::Abs, kNum}, U{"Exp", Unary::Exp, kFlt},
                     U{"Log", Unary::Log, kFlt}, U{"Sqrt", Unary::Sqrt, kFlt}, U{"Rsqrt", Unary::Rsqrt, kFlt},
                     U{"Square", Unary::Square, kNum}, U{"Reciprocal", Unary::Reciprocal, kNum},
                     U{"Inv", Unary::Reciprocal, kNum}, U{"Floor", Unary::Floor, kFlt},
                     U{"Ceil", Unary::Ceil, kFlt}, U{"Round", Unary::Round, kFlt}, U{"Tanh", Unary::Tanh, kFlt},
                     U{"Sigmoid", Unary::Sigmoid, kFlt}, U{"Relu", Unary::Relu, kNum},
                     U{"Relu6", Unary::Relu6, kNum}, U{"Elu", Unary::Elu, kFlt}, U{"Sign", Unary::Sign, kNum},
                     U{"Log1p", Unary::Log1p, kFlt}, U{"Expm1", Unary::Expm1, kFlt}, U{"Sin", Unary::Sin, kFlt},
                     U{"Cos", Unary::Cos, kFlt}, U{"Softplus", Unary::Softplus, kFlt},
                     U{"Selu", Unary::Selu, kFlt}, U{"LeakyRelu", Unary::LeakyRelu, kFlt},
                     U{"Softsign", Unary::Softsign, kFlt}, U{"Erf", Unary::Erf, kFlt}}) {
    const Unary op = u.op;
    const UnaryDtypes dtypes = u.dtypes;
    r.add(u.name, [op, dtypes] { return std::make_unique<UnaryKernel>(op, dtypes); });
  }
  r.add("Cast", [] { return std::make_unique<CastKernel>(); });
  r.add("Select", [] { return std::make_unique<SelectKernel>(SelectForm::kSelect); });
  r.add("SelectV2", [] { return std::make_unique<SelectKernel>(SelectForm::kSelectV2); });
  r.add("AddN", [] { return std::make_unique<AddNKernel>(); });
  r.add("ZerosLike", [] { return std::make_unique<FillLikeKernel>(0); });
  r.add("OnesLike", [] { return std::make_unique<FillLikeKernel>(1); });
}

}  // namespace gds::engine
