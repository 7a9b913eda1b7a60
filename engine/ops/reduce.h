// Reductions on raw buffers (tensorflow/core/kernels/reduction_ops_common.h):
// Sum, Mean, Max, Min, Prod, All, Any over any set of axes. Eigen's
// templates: include this from few translation units
// (engine/kernels/reduction.cc).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#include "engine/thread_pool.h"
#include "model/status.h"

namespace gds::engine::ops {

using Dims = std::vector<std::int64_t>;  // as in broadcast.h

// The reductions of reduction_ops_common.h.
enum class Red { Sum, Mean, Max, Min, Prod, All, Any };
constexpr std::size_t kMaxRank = 32;

template <typename T>
T initial(Red r) {
  switch (r) {
    case Red::Max: return std::numeric_limits<T>::lowest();
    case Red::Min: return std::numeric_limits<T>::max();
    case Red::Prod: case Red::All: return T(1);
    default: return T(0);
  }
}

template <typename T>
inline T combine(Red r, T a, T b) {
  switch (r) {
    case Red::Max: return a > b ? a : b;
    case Red::Min: return a < b ? a : b;
    case Red::Prod:
      if constexpr (std::is_same_v<T, bool>) return a && b;
      else return a * b;
    case Red::All: return a && b;
    case Red::Any: return a || b;
    default: return a + b;
  }
}

// The output shape of a reduction and, when the reduced dimensions are
// contiguous (size-1 dimensions aside), its collapsed [outer, reduce, inner]
// form.
struct ReducePlan {
  Dims out_shape;       // with keep_dims applied
  std::vector<bool> reduced;
  std::int64_t count = 1;     // elements reduced into each output
  // Collapsed [outer, reduce, inner] when the reduced dims are contiguous.
  bool simple = false;
  std::int64_t outer = 1, reduce = 1, inner = 1;
};

// Errors name the axis out of range (also returned in *err).
Status planReduce(const Dims& in, const std::vector<std::int64_t>& axes, bool keep_dims, ReducePlan* p,
                  std::string* err);

// The specification: every input element combined into its output slot
// (double accumulation for floats). Rank at most kMaxRank.
template <typename T>
void reduceReference(Red r, const T* in, const Dims& shape, const ReducePlan& p, T* out, std::int64_t out_n) {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, T>;
  std::vector<Acc> acc(static_cast<std::size_t>(out_n), static_cast<Acc>(initial<T>(r)));
  // Fixed-size index arrays (rank is checked by the caller).
  const std::size_t rank = std::min<std::size_t>(shape.size(), kMaxRank);
  std::int64_t out_stride[kMaxRank] = {}, idx[kMaxRank] = {};
  std::int64_t st = 1;
  for (std::size_t i = rank; i-- > 0;) {
    if (!p.reduced[i]) {
      out_stride[i] = st;
      st *= shape[i];
    }
  }
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  std::int64_t o = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    acc[static_cast<std::size_t>(o)] = combine<Acc>(r, acc[static_cast<std::size_t>(o)], static_cast<Acc>(in[i]));
    for (std::size_t d = rank; d-- > 0;) {
      o += out_stride[d];
      if (++idx[d] < shape[d]) break;
      o -= out_stride[d] * shape[d];
      idx[d] = 0;
    }
  }
  for (std::int64_t i = 0; i < out_n; ++i) {
    Acc v = acc[static_cast<std::size_t>(i)];
    if (r == Red::Mean) v = p.count ? v / static_cast<Acc>(p.count) : v;
    out[i] = static_cast<T>(v);
  }
}

// The collapsed form (p.simple) with Eigen's row/column reductions, outer
// rows split over the pool.
template <typename T>
void reduceFast(Red r, const T* in, const ReducePlan& p, T* out, const ThreadPool& pool) {
  using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
  using Row = Eigen::Matrix<T, 1, Eigen::Dynamic>;
  using Col = Eigen::Matrix<T, Eigen::Dynamic, 1>;
  const std::int64_t R = p.reduce, K = p.inner;
  auto one = [&](std::int64_t o) {
    const T* src = in + o * R * K;
    T* dst = out + o * K;
    if (K == 1) {
      Eigen::Map<const Col> v(src, R);
      switch (r) {
        case Red::Max: *dst = R ? v.maxCoeff() : initial<T>(r); break;
        case Red::Min: *dst = R ? v.minCoeff() : initial<T>(r); break;
        case Red::Prod: *dst = v.prod(); break;
        default: *dst = v.sum(); break;
      }
    } else {
      // Column j of the K x R (column-major) view is input row j.
      Eigen::Map<const Mat> m(src, K, R);
      Eigen::Map<Col> d(dst, K);
      if (R == 0) d.setConstant(initial<T>(r));
      else if (r == Red::Max) d = m.rowwise().maxCoeff();
      else if (r == Red::Min) d = m.rowwise().minCoeff();
      else if (r == Red::Prod) d = m.rowwise().prod();
      else d = m.rowwise().sum();
    }
    if (r == Red::Mean && p.count > 0) {
      Eigen::Map<Row> d(dst, K);
      d /= static_cast<T>(p.count);
    }
  };
  pool.parallelFor(p.outer, static_cast<double>(R * K), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t o = b; o < e; ++o) one(o);
  });
}

}  // namespace gds::engine::ops
