// Elementwise math on raw buffers (no Tensor): the binary functors, whose
// scalar(a, b) is the specification and vec(x, y) an Eigen array expression
// for float/double; the broadcast loops, a reference one that unravels every
// output index and an optimized one over the collapsed BroadcastPlan whose
// contiguous inner runs are vectorized and whose rows are split over the
// pool; and the unary functions. Eigen's templates: include this from few
// translation units (engine/kernels/elementwise.cc).
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include <Eigen/Core>

#include "engine/ops/broadcast.h"
#include "engine/thread_pool.h"

namespace gds::engine::ops {

template <typename T>
using ArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstArrayMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// ---------------------------------------------------------------------------
// Integer arithmetic wraps modulo 2^n, as TensorFlow's kernels do on every
// CPU it runs on. Signed overflow is undefined in C++ (and INT_MIN / -1 traps
// on x86), so integers are computed in an unsigned type at least as wide as
// unsigned int (uint16 * uint16 would otherwise promote to a signed int).
template <typename T>
using WrapType = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
template <typename T>
constexpr T wrapAdd(T a, T b) { return static_cast<T>(static_cast<WrapType<T>>(a) + static_cast<WrapType<T>>(b)); }
template <typename T>
constexpr T wrapSub(T a, T b) { return static_cast<T>(static_cast<WrapType<T>>(a) - static_cast<WrapType<T>>(b)); }
template <typename T>
constexpr T wrapMul(T a, T b) { return static_cast<T>(static_cast<WrapType<T>>(a) * static_cast<WrapType<T>>(b)); }
template <typename T>
constexpr T wrapNeg(T a) { return static_cast<T>(WrapType<T>(0) - static_cast<WrapType<T>>(a)); }
// a / b and a % b with b != 0 (the kernels reject zero first); the one
// overflowing quotient, min / -1, wraps to min with remainder 0.
template <typename T>
constexpr T wrapDiv(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return wrapNeg(a);
  }
  return static_cast<T>(a / b);
}
template <typename T>
constexpr T wrapRem(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return T(0);
  }
  return static_cast<T>(a % b);
}

// Binary functors. scalar(a, b) is the specification; vec(x, y) an Eigen
// array expression for float/double (nullptr-like tag when absent).
#define GDS_BINARY(Name, float_expr, int_expr, has_vec, vec_expr)              \
  struct Name {                                                                \
    template <typename T>                                                      \
    static T scalar(T a, T b) {                                                \
      if constexpr (std::is_integral_v<T>) return int_expr;                    \
      else return float_expr;                                                  \
    }                                                                          \
    static constexpr bool kVec = has_vec;                                      \
    template <typename X, typename Y>                                          \
    static auto vec(const X& x, const Y& y) { return vec_expr; }               \
  };

GDS_BINARY(AddOp, a + b, wrapAdd(a, b), true, x + y)
GDS_BINARY(SubOp, a - b, wrapSub(a, b), true, x - y)
GDS_BINARY(MulOp, a * b, wrapMul(a, b), true, x * y)
GDS_BINARY(DivOp, a / b, wrapDiv(a, b), true, x / y)
GDS_BINARY(MaxOp, (a > b ? a : b), (a > b ? a : b), true, x.max(y))
GDS_BINARY(MinOp, (a < b ? a : b), (a < b ? a : b), true, x.min(y))
GDS_BINARY(SqDiffOp, (a - b) * (a - b), wrapMul(wrapSub(a, b), wrapSub(a, b)), true, (x - y).square())
#undef GDS_BINARY

struct PowOp {
  template <typename T>
  static T scalar(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      return std::pow(a, b);
    } else {
      // Integer power by squaring, wrapping (TensorFlow errors on negative
      // exponents; the kernel checks before running).
      T result = 1, base = a;
      for (T e = b; e > 0; e >>= 1) {
        if (e & 1) result = wrapMul(result, base);
        base = wrapMul(base, base);
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
      const T q = wrapDiv(a, b);
      return (wrapMul(q, b) != a && ((a < 0) != (b < 0))) ? static_cast<T>(q - 1) : q;
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
      T m = wrapRem(a, b);
      return (m != 0 && ((b < 0) != (m < 0))) ? static_cast<T>(m + b) : m;
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

// The specification: each output element from the input elements its
// index unravels to.
template <typename T, typename R, typename F>
void referenceBinary(const T* pa, const Dims& a_shape, const T* pb, const Dims& b_shape, R* po,
                     const Dims& out_shape, F f) {
  std::int64_t n = 1;
  for (std::int64_t d : out_shape) n *= d;
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t oa, ob;
    unravel(i, out_shape, a_shape, &oa);
    unravel(i, out_shape, b_shape, &ob);
    po[i] = f(pa[oa], pb[ob]);
  }
}

// Runs inner(a_ptr, a_stride, b_ptr, b_stride, out_ptr, length) over the
// innermost collapsed dim for every combination of the outer ones; outer rows
// are split over the pool.
template <typename T, typename R, typename Inner>
void stridedBinary(const BroadcastPlan& p, const T* a, const T* b, R* out, const ThreadPool& pool, Inner inner) {
  const std::size_t r = p.dims.size();
  const std::int64_t inner_len = p.dims[r - 1];
  const std::int64_t isa = p.sa[r - 1], isb = p.sb[r - 1];
  std::int64_t rows = 1;
  for (std::size_t i = 0; i + 1 < r; ++i) rows *= p.dims[i];
  if (rows == 1) {
    pool.parallelFor(inner_len, 2.0, [&](std::int64_t begin, std::int64_t end) {
      inner(a + begin * isa, isa, b + begin * isb, isb, out + begin, end - begin);
    });
    return;
  }
  pool.parallelFor(rows, 2.0 * static_cast<double>(inner_len), [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t row = begin; row < end; ++row) {
      std::int64_t rem = row, oa = 0, ob = 0;
      for (std::size_t k = r - 1; k-- > 0;) {
        std::int64_t c = rem % p.dims[k];
        rem /= p.dims[k];
        oa += c * p.sa[k];
        ob += c * p.sb[k];
      }
      inner(a + oa, isa, b + ob, isb, out + row * inner_len, inner_len);
    }
  });
}

template <typename Op, typename T>
void innerArith(const T* a, std::int64_t sa, const T* b, std::int64_t sb, T* out, std::int64_t n) {
  if constexpr (Op::kVec && std::is_floating_point_v<T>) {
    using Arr = Eigen::Array<T, Eigen::Dynamic, 1>;
    ArrayMap<T> o(out, n);
    if (sa && sb) o = Op::vec(ConstArrayMap<T>(a, n), ConstArrayMap<T>(b, n));
    else if (sa) o = Op::vec(ConstArrayMap<T>(a, n), Arr::Constant(n, *b));
    else if (sb) o = Op::vec(Arr::Constant(n, *a), ConstArrayMap<T>(b, n));
    else o = Op::vec(Arr::Constant(n, *a), Arr::Constant(n, *b));
  } else {
    for (std::int64_t i = 0; i < n; ++i) out[i] = Op::template scalar<T>(a[i * sa], b[i * sb]);
  }
}

template <typename Op, typename T>
void innerCompare(const T* a, std::int64_t sa, const T* b, std::int64_t sb, bool* out, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) out[i] = Op::template scalar<T>(a[i * sa], b[i * sb]);
}

// ---------------------------------------------------------------------------
// Unary ops.

enum class Unary {
  Neg, Abs, Exp, Log, Sqrt, Rsqrt, Square, Reciprocal, Floor, Ceil, Round, Tanh, Sigmoid, Relu, Relu6, Elu,
  Sign, Log1p, Expm1, Sin, Cos, Softplus, Selu, LeakyRelu, Softsign, Erf
};

template <typename T>
T unaryScalar(Unary op, T x, float alpha) {
  switch (op) {
    case Unary::Neg: if constexpr (std::is_integral_v<T>) return wrapNeg(x); else return -x;
    case Unary::Abs: if constexpr (std::is_integral_v<T>) return x < 0 ? wrapNeg(x) : x; else return x < 0 ? -x : x;
    case Unary::Square: if constexpr (std::is_integral_v<T>) return wrapMul(x, x); else return x * x;
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
      case Unary::Softsign: return x / (T(1) + std::fabs(x));  // tf.nn.softsign
      case Unary::Erf: return std::erf(x);                      // tf.math.erf (GELU's exact form)
      default: break;
    }
  } else {
    if (op == Unary::Reciprocal) return x == 0 ? T(0) : T(1) / x;
  }
  return x;
}

// The float loop, vectorized with Eigen where an array expression exists.
void unaryFloatVec(Unary op, const float* in, float* out, std::int64_t n, float alpha);
// Relative cost per element, for splitting over the pool.
double unaryCost(Unary op);

}  // namespace gds::engine::ops
