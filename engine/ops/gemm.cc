// Eigen tensor contraction for float GEMM: on the pool's ThreadPoolDevice when
// there are worker threads, on the calling thread otherwise.
#define EIGEN_USE_THREADS
#include "engine/ops/gemm.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

#include <unsupported/Eigen/CXX11/Tensor>

#include "engine/thread_pool.h"

#ifdef GDS_HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>
extern "C" void omp_set_num_threads(int);
#endif

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

void gemmEigen(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k,
               bool transpose_a, bool transpose_b, const ThreadPool* pool) {
  if (pool && pool->numThreads() > 1) {
    contract(pool->device(), a, b, c, m, n, k, transpose_a, transpose_b);
  } else {
    contract(Eigen::DefaultDevice(), a, b, c, m, n, k, transpose_a, transpose_b);
  }
}

#ifdef GDS_HAVE_DNNL
// oneDNN's sgemm on blocks of C, one block per pool thread, each call
// single-threaded (OpenMP team of 1) so that only the pool's threads run.
bool gemmOneDnn(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k,
                bool transpose_a, bool transpose_b, const ThreadPool* pool) {
  const char ta = transpose_a ? 'T' : 'N', tb = transpose_b ? 'T' : 'N';
  const std::int64_t lda = transpose_a ? m : k, ldb = transpose_b ? k : n;
  std::atomic<bool> ok{true};
  auto rows = [&](std::int64_t i0, std::int64_t i1) {
    omp_set_num_threads(1);
    const float* ap = transpose_a ? a + i0 : a + i0 * k;
    if (dnnl_sgemm(ta, tb, i1 - i0, n, k, 1.0f, ap, lda, b, ldb, 0.0f, c + i0 * n, n) != dnnl_success) ok = false;
  };
  auto cols = [&](std::int64_t j0, std::int64_t j1) {
    omp_set_num_threads(1);
    const float* bp = transpose_b ? b + j0 * k : b + j0;
    if (dnnl_sgemm(ta, tb, m, j1 - j0, k, 1.0f, a, lda, bp, ldb, 0.0f, c + j0, n) != dnnl_success) ok = false;
  };
  const int threads = pool ? pool->numThreads() : 1;
  if (threads <= 1 || static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) < 2e5) {
    rows(0, m);
  } else if (m >= 32 * threads) {
    // Row blocks (multiples of 16 rows) in parallel.
    const std::int64_t blocks = std::min<std::int64_t>(m / 16, 4 * threads);
    const std::int64_t step = (m + blocks - 1) / blocks;
    pool->parallelFor(blocks, 1e9, [&](std::int64_t b0, std::int64_t b1) {
      for (std::int64_t bi = b0; bi < b1; ++bi) {
        const std::int64_t i0 = bi * step, i1 = std::min(m, i0 + step);
        if (i0 < i1) rows(i0, i1);
      }
    });
  } else {
    // Few rows (deep layers at batch 1): column blocks of 16.
    const std::int64_t blocks = std::max<std::int64_t>(1, std::min<std::int64_t>(n / 16, 4 * threads));
    const std::int64_t step = ((n + blocks - 1) / blocks + 15) / 16 * 16;
    pool->parallelFor(blocks, 1e9, [&](std::int64_t b0, std::int64_t b1) {
      for (std::int64_t bi = b0; bi < b1; ++bi) {
        const std::int64_t j0 = bi * step, j1 = std::min(n, j0 + step);
        if (j0 < j1) cols(j0, j1);
      }
    });
  }
  return ok;
}
#endif

GemmBackend defaultBackend() {
#ifdef GDS_HAVE_DNNL
  return GemmBackend::kOneDnn;
#else
  return GemmBackend::kEigen;
#endif
}

std::atomic<GemmBackend>& currentBackend() {
  static std::atomic<GemmBackend> backend{defaultBackend()};
  return backend;
}

}  // namespace

bool gemmBackendAvailable(GemmBackend backend) {
#ifdef GDS_HAVE_DNNL
  (void)backend;
  return true;
#else
  return backend == GemmBackend::kEigen;
#endif
}

GemmBackend gemmBackend() { return currentBackend().load(); }

bool setGemmBackend(GemmBackend backend) {
  if (!gemmBackendAvailable(backend)) return false;
  currentBackend() = backend;
  return true;
}

void resetGemmBackend() { currentBackend() = defaultBackend(); }

const char* gemmBackendName(GemmBackend backend) {
  return backend == GemmBackend::kEigen ? "eigen" : "onednn";
}

Result<GemmBackend> parseGemmBackend(const std::string& name) {
  if (name == "eigen") return GemmBackend::kEigen;
  if (name == "onednn" || name == "dnnl") {
    if (!gemmBackendAvailable(GemmBackend::kOneDnn))
      return Status::Error("float GEMM backend 'onednn' is not available here (built without oneDNN); use 'eigen'");
    return GemmBackend::kOneDnn;
  }
  return Status::Error("unknown float GEMM backend '" + name + "' (expected eigen or onednn)");
}

bool gemmWith(GemmBackend backend, const float* a, const float* b, float* c, std::int64_t m, std::int64_t n,
              std::int64_t k, bool transpose_a, bool transpose_b, const ThreadPool* pool) {
  if (!gemmBackendAvailable(backend)) return false;
  if (m <= 0 || n <= 0) return true;
  if (k <= 0) {
    std::fill(c, c + m * n, 0.0f);
    return true;
  }
#ifdef GDS_HAVE_DNNL
  if (backend == GemmBackend::kOneDnn && gemmOneDnn(a, b, c, m, n, k, transpose_a, transpose_b, pool)) return true;
#endif
  gemmEigen(a, b, c, m, n, k, transpose_a, transpose_b, pool);
  return true;
}

void gemm(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k,
          bool transpose_a, bool transpose_b, const ThreadPool* pool) {
  gemmWith(gemmBackend(), a, b, c, m, n, k, transpose_a, transpose_b, pool);
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
