// Elementwise kernels: binary arithmetic and comparisons with numpy/
// TensorFlow broadcasting (tensorflow/core/util/bcast.h), unary math,
// activations, Cast, Select/SelectV2, AddN, ZerosLike/OnesLike.
//
// Each op has a reference path (one loop over output elements that unravels
// the index, the specification) and an optimized path: broadcast dims are
// collapsed to a few strided loops whose contiguous inner runs are Eigen
// array expressions (vectorized) and split over the thread pool.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <type_traits>

#include <Eigen/Core>

#include "engine/kernels/kernel_util.h"

namespace gds::engine {
namespace {

using kern::broadcastShapes;
using std::int32_t;
using std::int64_t;

template <typename T>
using ArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstArrayMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// ---------------------------------------------------------------------------
// Broadcast geometry.

struct BroadcastPlan {
  Shape out;
  // Collapsed dims (outermost first) and element strides of a and b (0 when
  // broadcast along that dim).
  std::vector<int64_t> dims, sa, sb;
};

bool makeBroadcastPlan(const Shape& a, const Shape& b, BroadcastPlan* p) {
  if (!broadcastShapes(a, b, &p->out)) return false;
  size_t r = p->out.size();
  std::vector<int64_t> da(r, 1), db(r, 1);
  for (size_t i = 0; i < a.size(); ++i) da[r - a.size() + i] = a[i];
  for (size_t i = 0; i < b.size(); ++i) db[r - b.size() + i] = b[i];
  // Collapse adjacent dims with the same broadcast pattern.
  std::vector<int64_t> dims;
  std::vector<int> pat;  // bit0: a broadcast, bit1: b broadcast
  for (size_t i = 0; i < r; ++i) {
    if (p->out[i] == 1) continue;
    int pt = (da[i] == 1 ? 1 : 0) | (db[i] == 1 ? 2 : 0);
    if (!dims.empty() && pat.back() == pt) dims.back() *= p->out[i];
    else {
      dims.push_back(p->out[i]);
      pat.push_back(pt);
    }
  }
  if (dims.empty()) {
    dims.push_back(1);
    pat.push_back(0);
  }
  p->dims = dims;
  p->sa.assign(dims.size(), 0);
  p->sb.assign(dims.size(), 0);
  int64_t stride_a = 1, stride_b = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    if (!(pat[i] & 1)) {
      p->sa[i] = stride_a;
      stride_a *= dims[i];
    }
    if (!(pat[i] & 2)) {
      p->sb[i] = stride_b;
      stride_b *= dims[i];
    }
  }
  return true;
}

// Offsets of input elements for output element `index` (reference path).
inline void unravel(int64_t index, const Shape& out, const Shape& in, int64_t* offset) {
  int64_t off = 0, stride = 1;
  size_t r = out.size(), ri = in.size();
  for (size_t k = 0; k < r; ++k) {
    size_t d = r - 1 - k;
    int64_t coord = index % out[d];
    index /= out[d];
    if (k < ri) {
      int64_t dim = in[ri - 1 - k];
      if (dim != 1) off += coord * stride;
      stride *= dim;
    }
  }
  *offset = off;
}

// ---------------------------------------------------------------------------
// Binary functors. scalar(a, b) is the specification; vec(x, y) an Eigen
// array expression for float/double (nullptr-like tag when absent).

#define GDS_BINARY(Name, scalar_expr, has_vec, vec_expr)                        \
  struct Name {                                                                \
    template <typename T>                                                      \
    static T scalar(T a, T b) { return scalar_expr; }                          \
    static constexpr bool kVec = has_vec;                                      \
    template <typename X, typename Y>                                          \
    static auto vec(const X& x, const Y& y) { return vec_expr; }               \
  };

GDS_BINARY(AddOp, a + b, true, x + y)
GDS_BINARY(SubOp, a - b, true, x - y)
GDS_BINARY(MulOp, a * b, true, x * y)
GDS_BINARY(DivOp, a / b, true, x / y)
GDS_BINARY(MaxOp, (a > b ? a : b), true, x.max(y))
GDS_BINARY(MinOp, (a < b ? a : b), true, x.min(y))
GDS_BINARY(SqDiffOp, (a - b) * (a - b), true, (x - y).square())
#undef GDS_BINARY

struct PowOp {
  template <typename T>
  static T scalar(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      return std::pow(a, b);
    } else {
      // Integer power by squaring (TensorFlow errors on negative exponents;
      // the kernel checks before running).
      T result = 1, base = a;
      for (T e = b; e > 0; e >>= 1) {
        if (e & 1) result *= base;
        base *= base;
      }
      return result;
    }
  }
  static constexpr bool kVec = false;
  template <typename X, typename Y>
  static auto vec(const X& x, const Y&) { return x; }
};

struct FloorDivOp {
  template <typename T>
  static T scalar(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      return std::floor(a / b);
    } else {
      // TensorFlow's google_floor_div: round toward negative infinity.
      if ((a < 0) != (b < 0)) {
        T abs_a = a < 0 ? -a : a, abs_b = b < 0 ? -b : b;
        return -((abs_a + abs_b - 1) / abs_b);
      }
      return a / b;
    }
  }
  static constexpr bool kVec = false;
  template <typename X, typename Y>
  static auto vec(const X& x, const Y&) { return x; }
};

struct FloorModOp {
  template <typename T>
  static T scalar(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      T m = std::fmod(a, b);
      return (m != 0 && ((b < 0) != (m < 0))) ? m + b : m;
    } else {
      T m = a % b;
      return (m != 0 && ((b < 0) != (m < 0))) ? m + b : m;
    }
  }
  static constexpr bool kVec = false;
  template <typename X, typename Y>
  static auto vec(const X& x, const Y&) { return x; }
};

// Comparisons and logical ops produce bool.
#define GDS_COMPARE(Name, expr)            \
  struct Name {                            \
    template <typename T>                  \
    static bool scalar(T a, T b) { return expr; } \
  };
GDS_COMPARE(LessOp, a < b)
GDS_COMPARE(GreaterOp, a > b)
GDS_COMPARE(LessEqualOp, a <= b)
GDS_COMPARE(GreaterEqualOp, a >= b)
GDS_COMPARE(EqualOp, a == b)
GDS_COMPARE(NotEqualOp, a != b)
GDS_COMPARE(LogicalAndOp, a && b)
GDS_COMPARE(LogicalOrOp, a || b)
#undef GDS_COMPARE

// ---------------------------------------------------------------------------
// Broadcast loops.

template <typename T, typename R, typename F>
void referenceBinary(const Tensor& a, const Tensor& b, Tensor* out, F f) {
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  R* po = out->data<R>();
  int64_t n = out->numElements();
  for (int64_t i = 0; i < n; ++i) {
    int64_t oa, ob;
    unravel(i, out->shape(), a.shape(), &oa);
    unravel(i, out->shape(), b.shape(), &ob);
    po[i] = f(pa[oa], pb[ob]);
  }
}

// Runs inner(a_ptr, a_stride, b_ptr, b_stride, out_ptr, length) over the
// innermost collapsed dim for every combination of the outer ones; outer rows
// are split over the pool.
template <typename T, typename R, typename Inner>
void stridedBinary(const BroadcastPlan& p, const T* a, const T* b, R* out, const ThreadPool& pool, Inner inner) {
  const size_t r = p.dims.size();
  const int64_t inner_len = p.dims[r - 1];
  const int64_t isa = p.sa[r - 1], isb = p.sb[r - 1];
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < r; ++i) rows *= p.dims[i];
  if (rows == 1) {
    pool.parallelFor(inner_len, 2.0, [&](int64_t begin, int64_t end) {
      inner(a + begin * isa, isa, b + begin * isb, isb, out + begin, end - begin);
    });
    return;
  }
  pool.parallelFor(rows, 2.0 * static_cast<double>(inner_len), [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      int64_t rem = row, oa = 0, ob = 0;
      for (size_t k = r - 1; k-- > 0;) {
        int64_t c = rem % p.dims[k];
        rem /= p.dims[k];
        oa += c * p.sa[k];
        ob += c * p.sb[k];
      }
      inner(a + oa, isa, b + ob, isb, out + row * inner_len, inner_len);
    }
  });
}

template <typename Op, typename T>
void innerArith(const T* a, int64_t sa, const T* b, int64_t sb, T* out, int64_t n) {
  if constexpr (Op::kVec && std::is_floating_point_v<T>) {
    using Arr = Eigen::Array<T, Eigen::Dynamic, 1>;
    ArrayMap<T> o(out, n);
    if (sa && sb) o = Op::vec(ConstArrayMap<T>(a, n), ConstArrayMap<T>(b, n));
    else if (sa) o = Op::vec(ConstArrayMap<T>(a, n), Arr::Constant(n, *b));
    else if (sb) o = Op::vec(Arr::Constant(n, *a), ConstArrayMap<T>(b, n));
    else o = Op::vec(Arr::Constant(n, *a), Arr::Constant(n, *b));
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = Op::template scalar<T>(a[i * sa], b[i * sb]);
  }
}

template <typename Op, typename T>
void innerCompare(const T* a, int64_t sa, const T* b, int64_t sb, bool* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = Op::template scalar<T>(a[i * sa], b[i * sb]);
}

// ---------------------------------------------------------------------------
// Kernels.

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

template <typename Op>
class ArithKernel : public BinaryKernelBase {
 public:
  explicit ArithKernel(bool int_div_check = false) : int_div_check_(int_div_check) {}
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
      if (int_div_check_) {
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
      referenceBinary<T, T>(a, b, out, [](T x, T y) { return Op::template scalar<T>(x, y); });
    } else {
      stridedBinary<T, T>(p, a.data<T>(), b.data<T>(), out->data<T>(), ctx.pool(), innerArith<Op, T>);
    }
    return Status::Ok();
  }
  bool int_div_check_;
};

template <typename Op>
class CompareKernel : public BinaryKernelBase {
 public:
  explicit CompareKernel(bool logical = false) : logical_(logical) {}
  std::vector<DataType> outputTypes(const KernelInit&) const override { return {tensorflow::DT_BOOL}; }
  Status compute(KernelContext& ctx) override {
    BroadcastPlan p;
    GDS_RETURN_IF_ERROR(prepare(ctx, &p));
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    Tensor* out = ctx.allocateOutput(0, tensorflow::DT_BOOL, p.out);
    if (out->numElements() == 0) return Status::Ok();
    if (logical_ && a.dtype() != tensorflow::DT_BOOL) return ctx.error("inputs must be bool");
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
      referenceBinary<T, bool>(a, b, out, [](T x, T y) { return Op::template scalar<T>(x, y); });
    else
      stridedBinary<T, bool>(p, a.data<T>(), b.data<T>(), out->data<bool>(), ctx.pool(), innerCompare<Op, T>);
  }
  bool logical_;
};

// ---------------------------------------------------------------------------
// Unary ops.

enum class Unary {
  Neg, Abs, Exp, Log, Sqrt, Rsqrt, Square, Reciprocal, Floor, Ceil, Round, Tanh, Sigmoid, Relu, Relu6, Elu,
  Sign, Log1p, Expm1, Sin, Cos, Softplus, Selu, LeakyRelu
};

template <typename T>
T unaryScalar(Unary op, T x, float alpha) {
  switch (op) {
    case Unary::Neg: return -x;
    case Unary::Abs: return x < 0 ? -x : x;
    case Unary::Square: return x * x;
    case Unary::Sign: return static_cast<T>(x > 0 ? 1 : (x < 0 ? -1 : 0));
    case Unary::Relu: return x > 0 ? x : T(0);
    case Unary::Relu6: return x < 0 ? T(0) : (x > 6 ? T(6) : x);
    default: break;
  }
  if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case Unary::Exp: return std::exp(x);
      case Unary::Log: return std::log(x);
      case Unary::Sqrt: return std::sqrt(x);
      case Unary::Rsqrt: return T(1) / std::sqrt(x);
      case Unary::Reciprocal: return T(1) / x;
      case Unary::Floor: return std::floor(x);
      case Unary::Ceil: return std::ceil(x);
      case Unary::Round: return std::nearbyint(x);  // banker's rounding, as TensorFlow's Round
      case Unary::Tanh: return std::tanh(x);
      case Unary::Sigmoid: return T(1) / (T(1) + std::exp(-x));
      case Unary::Elu: return x < 0 ? std::expm1(x) : x;
      case Unary::Log1p: return std::log1p(x);
      case Unary::Expm1: return std::expm1(x);
      case Unary::Sin: return std::sin(x);
      case Unary::Cos: return std::cos(x);
      case Unary::Softplus: return x > T(20) ? x : std::log1p(std::exp(x));
      case Unary::Selu: {
        const T scale = T(1.0507009873554804934193349852946), a = T(1.6732632423543772848170429916717);
        return x < 0 ? scale * a * std::expm1(x) : scale * x;
      }
      case Unary::LeakyRelu: return x < 0 ? static_cast<T>(alpha) * x : x;
      default: break;
    }
  } else {
    if (op == Unary::Reciprocal) return x == 0 ? T(0) : T(1) / x;
  }
  return x;
}

void unaryFloatVec(Unary op, const float* in, float* out, int64_t n, float alpha) {
  ConstArrayMap<float> x(in, n);
  ArrayMap<float> o(out, n);
  switch (op) {
    case Unary::Neg: o = -x; break;
    case Unary::Abs: o = x.abs(); break;
    case Unary::Exp: o = x.exp(); break;
    case Unary::Log: o = x.log(); break;
    case Unary::Sqrt: o = x.sqrt(); break;
    case Unary::Rsqrt: o = x.rsqrt(); break;
    case Unary::Square: o = x.square(); break;
    case Unary::Reciprocal: o = x.inverse(); break;
    case Unary::Floor: o = x.floor(); break;
    case Unary::Ceil: o = x.ceil(); break;
    case Unary::Tanh: o = x.tanh(); break;
    case Unary::Sigmoid: o = x.unaryExpr(Eigen::internal::scalar_logistic_op<float>()); break;
    case Unary::Relu: o = x.max(0.0f); break;
    case Unary::Relu6: o = x.max(0.0f).min(6.0f); break;
    case Unary::Elu: o = (x < 0.0f).select(x.exp() - 1.0f, x); break;
    case Unary::LeakyRelu: o = (x < 0.0f).select(x * alpha, x); break;
    default:
      for (int64_t i = 0; i < n; ++i) out[i] = unaryScalar<float>(op, in[i], alpha);
  }
}

double unaryCost(Unary op) {
  switch (op) {
    case Unary::Exp: case Unary::Log: case Unary::Tanh: case Unary::Sigmoid: case Unary::Elu: case Unary::Sin:
    case Unary::Cos: case Unary::Softplus: case Unary::Selu: case Unary::Log1p: case Unary::Expm1: return 20;
    case Unary::Sqrt: case Unary::Rsqrt: case Unary::Reciprocal: return 8;
    default: return 1;
  }
}

class UnaryKernel : public OpKernel {
 public:
  UnaryKernel(Unary op, bool float_only) : op_(op), float_only_(float_only) {}
  Status init(const KernelInit& init) override {
    reference_ = init.referenceKernels();
    if (init.numInputs() != 1) return init.error("expects 1 input, has " + std::to_string(init.numInputs()));
    if (op_ == Unary::LeakyRelu) GDS_RETURN_IF_ERROR(init.getAttrOr<float>("alpha", &alpha_, 0.2f));
    const DataType t = init.inputType(0);
    const bool is_float = t == tensorflow::DT_FLOAT || t == tensorflow::DT_DOUBLE;
    if (t != tensorflow::DT_INVALID && !is_float &&
        (float_only_ || (t != tensorflow::DT_INT32 && t != tensorflow::DT_INT64)))
      return init.error("unsupported dtype " + model::dtypeName(t) +
                        (float_only_ ? " (float, double)" : " (float, double, int32, int64)") +
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
    if (!is_float && (float_only_ || (t != tensorflow::DT_INT32 && t != tensorflow::DT_INT64)))
      return ctx.error("unsupported dtype " + model::dtypeName(t) +
                       (float_only_ ? " (float, double)" : " (float, double, int32, int64)"));
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
  bool float_only_;
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

class SelectKernel : public OpKernel {
 public:
  explicit SelectKernel(bool v2) : v2_(v2) {}
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
    if (v2_) {
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
      if (v2_) {
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
  bool v2_;
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
  r.add("Div", [] { return std::make_unique<ArithKernel<DivOp>>(true); });
  r.add("RealDiv", [] { return std::make_unique<ArithKernel<DivOp>>(true); });
  r.add("FloorDiv", [] { return std::make_unique<ArithKernel<FloorDivOp>>(true); });
  r.add("FloorMod", [] { return std::make_unique<ArithKernel<FloorModOp>>(true); });
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
  r.add("LogicalAnd", [] { return std::make_unique<CompareKernel<LogicalAndOp>>(true); });
  r.add("LogicalOr", [] { return std::make_unique<CompareKernel<LogicalOrOp>>(true); });
  r.add("LogicalNot", [] { return std::make_unique<LogicalNotKernel>(); });
  struct U { const char* name; Unary op; bool float_only; };
  for (const U& u : {U{"Neg", Unary::Neg, false}, U{"Abs", Unary::Abs, false}, U{"Exp", Unary::Exp, true},
                     U{"Log", Unary::Log, true}, U{"Sqrt", Unary::Sqrt, true}, U{"Rsqrt", Unary::Rsqrt, true},
                     U{"Square", Unary::Square, false}, U{"Reciprocal", Unary::Reciprocal, false},
                     U{"Inv", Unary::Reciprocal, false}, U{"Floor", Unary::Floor, true},
                     U{"Ceil", Unary::Ceil, true}, U{"Round", Unary::Round, true}, U{"Tanh", Unary::Tanh, true},
                     U{"Sigmoid", Unary::Sigmoid, true}, U{"Relu", Unary::Relu, false},
                     U{"Relu6", Unary::Relu6, false}, U{"Elu", Unary::Elu, true}, U{"Sign", Unary::Sign, false},
                     U{"Log1p", Unary::Log1p, true}, U{"Expm1", Unary::Expm1, true}, U{"Sin", Unary::Sin, true},
                     U{"Cos", Unary::Cos, true}, U{"Softplus", Unary::Softplus, true},
                     U{"Selu", Unary::Selu, true}, U{"LeakyRelu", Unary::LeakyRelu, true}}) {
    Unary op = u.op;
    bool fo = u.float_only;
    r.add(u.name, [op, fo] { return std::make_unique<UnaryKernel>(op, fo); });
  }
  r.add("Cast", [] { return std::make_unique<CastKernel>(); });
  r.add("Select", [] { return std::make_unique<SelectKernel>(false); });
  r.add("SelectV2", [] { return std::make_unique<SelectKernel>(true); });
  r.add("AddN", [] { return std::make_unique<AddNKernel>(); });
  r.add("ZerosLike", [] { return std::make_unique<FillLikeKernel>(0); });
  r.add("OnesLike", [] { return std::make_unique<FillLikeKernel>(1); });
}

}  // namespace gds::engine
