// Eigen tensor contraction for float GEMM: on the pool's ThreadPoolDevice when
// there are worker threads, on the calling thread otherwise.
#define EIGEN_USE_THREADS
#include "engine/ops/gemm.h"

#include <unsupported/Eigen/CXX11/Tensor>

#include "engine/thread_pool.h"

namespace gds::engine::ops {

namespace {


using UnalignedConstMatrix = Eigen::TensorMap<Eigen::Tensor<const float, 2, Eigen::RowMajor, Eigen::Index>>;
using OutMatrix = Eigen::TensorMap<Eigen::Tensor<float, 2, Eigen::RowMajor, Eigen::Index>>;

template <typename Device>
void contract(const Device& device, const float* a, const float* b, float* c, std::int64_t m,
              std::int64_t n, std::int64_t k, bool transpose_a, bool transpose_b) {
  UnalignedConstMatrix ma(a, transpose_a ? k : m, transpose_a ? m : k);
  UnalignedConstMatrix mb(b, transpose_b ? n : k, transpose_b ? k : n);
  OutMatrix mc(c, m, n);
  Eigen::array<Eigen::IndexPair<Eigen::Index>, 1> dims = {
      Eigen::IndexPair<Eigen::Index>(transpose_a ? 0 : 1, transpose_b ? 1 : 0)};
  mc.device(device) = ma.contract(mb, dims);
}

}  // namespace

void gemm(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k,
          bool transpose_a, bool transpose_b, const ThreadPool* pool) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    for (std::int64_t i = 0; i < m * n; ++i) c[i] = 0.0f;
    return;
  }
  if (pool && pool->numThreads() > 1) {
    contract(pool->device(), a, b, c, m, n, k, transpose_a, transpose_b);
  } else {
    contract(Eigen::DefaultDevice(), a, b, c, m, n, k, transpose_a, transpose_b);
  }
}

void gemmReference(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n,
                   std::int64_t k, bool transpose_a, bool transpose_b) {
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0.0;
      for (std::int64_t p = 0; p < k; ++p) {
        const float av = transpose_a ? a[p * m + i] : a[i * k + p];
        const float bv = transpose_b ? b[j * k + p] : b[p * n + j];
        sum += static_cast<double>(av) * bv;
      }
      c[i * n + j] = static_cast<float>(sum);
    }
  }
}

}  // namespace gds::engine::ops
