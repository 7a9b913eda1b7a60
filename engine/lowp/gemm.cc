#include "engine/lowp/gemm.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

#include "engine/cpu_features.h"
#include "engine/thread_pool.h"

namespace gds::engine::lowp {

const char* gemmBackendName(GemmBackend backend) {
  switch (backend) {
    case GemmBackend::kReference: return "reference";
    case GemmBackend::kGemmlowp: return "gemmlowp";
    case GemmBackend::kDnnl: return "dnnl";
    case GemmBackend::kAvx2: return "avx2";
  }
  return "unknown";
}

Result<GemmBackend> parseGemmBackend(const std::string& name) {
  if (name == "reference") return GemmBackend::kReference;
  if (name == "gemmlowp") return GemmBackend::kGemmlowp;
  if (name == "dnnl" || name == "onednn") {
    if (!dnnlAvailable())
      return Status::Error("8-bit GEMM backend 'dnnl' is not available here (" +
                           std::string(detail::dnnlCompiled() ? "this CPU has no AVX-512 VNNI"
                                                              : "built without oneDNN") +
                           "); use 'gemmlowp' or 'reference'");
    return GemmBackend::kDnnl;
  }
  if (name == "avx2") {
    if (!avx2GemmAvailable())
      return Status::Error("8-bit GEMM backend 'avx2' is not available here (no AVX2 on this CPU, or the CPU capped "
                           "at generic); use 'gemmlowp' or 'reference'");
    return GemmBackend::kAvx2;
  }
  if (name == "auto" || name.empty()) return defaultGemmBackend();
  return Status::Error("unknown 8-bit GEMM backend '" + name +
                       "' (expected reference, gemmlowp, avx2, dnnl or auto)");
}

bool dnnlAvailable() {
  static const bool available = [] {
    if (!detail::dnnlCompiled()) return false;
    return cpuFeatures().avx512_vnni;
  }();
  return available;
}

bool avx2GemmAvailable() { return Avx2Gemm::available(); }

namespace {
// -1: no override; otherwise a GemmBackend value.
std::atomic<int> g_backend_override{-1};

GemmBackend automatic() {
  static const GemmBackend chosen = [] {
    if (dnnlAvailable()) return GemmBackend::kDnnl;
    return avx2GemmAvailable() ? GemmBackend::kAvx2 : GemmBackend::kGemmlowp;
  }();
  return chosen;
}
}  // namespace

GemmBackend defaultGemmBackend() {
  const int override_value = g_backend_override.load();
  if (override_value >= 0) return static_cast<GemmBackend>(override_value);
  return automatic();
}

void setDefaultGemmBackend(GemmBackend backend) { g_backend_override.store(static_cast<int>(backend)); }
void resetDefaultGemmBackend() { g_backend_override.store(-1); }

GemmRhs::GemmRhs(const std::uint8_t* b, std::int64_t k, std::int64_t n, std::int64_t ldb, bool transposed,
                 std::int32_t zero_point)
    : k_(k), n_(n), zero_point_(zero_point), u8_(static_cast<std::size_t>(k * n)) {
  if (!transposed) {
    for (std::int64_t r = 0; r < k; ++r) std::memcpy(u8_.data() + r * n, b + r * ldb, static_cast<std::size_t>(n));
  } else {
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t r = 0; r < k; ++r) u8_[static_cast<std::size_t>(r * n + j)] = b[j * ldb + r];
  }
  if (detail::dnnlCompiled() && zero_point >= 0 && zero_point <= 255) {
    s8_.resize(u8_.size());
    for (std::size_t i = 0; i < u8_.size(); ++i) s8_[i] = static_cast<std::int8_t>(static_cast<int>(u8_[i]) - 128);
  }
  if (Avx2Gemm::available() && Avx2Gemm::offsetFits(-zero_point) && k > 0)
    avx2_.packWeights(u8_.data(), k, n, n, false, -zero_point);
}

namespace {

void runBlock(GemmBackend backend, const GemmLhs& lhs, const GemmRhs& rhs, std::int64_t row_begin,
              std::int64_t row_end, std::int32_t* c, std::int64_t ldc) {
  const std::int64_t rows = row_end - row_begin;
  if (rows <= 0) return;
  const std::uint8_t* a = lhs.data + row_begin * lhs.lda;
  std::int32_t* c_block = c + row_begin * ldc;
  const std::int64_t n = rhs.n();
  const std::int64_t k = rhs.k();
  if (backend == GemmBackend::kDnnl && rhs.s8() && lhs.zero_point >= 0 && lhs.zero_point <= 255 &&
      detail::dnnlGemm(a, rows, k, lhs.lda, lhs.zero_point, rhs.s8(), n, rhs.zeroPoint(), c_block, ldc))
    return;
  if (backend == GemmBackend::kAvx2 && !rhs.avx2().empty() && Avx2Gemm::offsetFits(-lhs.zero_point)) {
    rhs.avx2().run(a, rows, lhs.lda, -lhs.zero_point, c_block, ldc);
    return;
  }
  if (backend == GemmBackend::kReference) {
    GemmLhs block = lhs;
    block.data = a;
    block.m = rows;
    referenceGemm(block, rhs.u8(), n, rhs.zeroPoint(), n, c_block, ldc);
    return;
  }
  detail::gemmlowpGemm(a, rows, k, lhs.lda, lhs.zero_point, rhs.u8(), n, rhs.zeroPoint(), c_block, ldc);
}

}  // namespace

void gemm(GemmBackend backend, const GemmLhs& lhs, const GemmRhs& rhs, std::int32_t* c, std::int64_t ldc,
          const ThreadPool* pool, const GemmEpilogue& epilogue) {
  const std::int64_t m = lhs.m;
  const std::int64_t n = rhs.n();
  if (m <= 0 || n <= 0) return;
  if (rhs.k() == 0) {
    for (std::int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0);
    if (epilogue) epilogue(0, m);
    return;
  }
  // Rows are split into blocks: one or more per thread, and small enough that
  // the epilogue reads the block back from cache.
  // Small products (the late layers of a small MobileNet) run on the caller:
  // waking another thread costs more than it saves.
  const double work = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(lhs.k);
  const int threads = pool && work >= 4.0e6 ? pool->numThreads() : 1;
  const std::int64_t bytes_per_row = n * 4 + lhs.k;
  std::int64_t block_rows = std::max<std::int64_t>(16, (256 * 1024) / std::max<std::int64_t>(1, bytes_per_row));
  if (threads > 1) block_rows = std::min(block_rows, (m + threads - 1) / threads);
  block_rows = std::max<std::int64_t>(1, std::min(block_rows, m));
  const std::int64_t blocks = (m + block_rows - 1) / block_rows;
  auto run = [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t blk = first; blk < last; ++blk) {
      const std::int64_t r0 = blk * block_rows;
      const std::int64_t r1 = std::min(m, r0 + block_rows);
      runBlock(backend, lhs, rhs, r0, r1, c, ldc);
      if (epilogue) epilogue(r0, r1);
    }
  };
  if (threads > 1 && blocks > 1) {
    const double cost = static_cast<double>(block_rows) * static_cast<double>(n) * static_cast<double>(lhs.k);
    pool->parallelFor(blocks, cost, run);
  } else {
    run(0, blocks);
  }
}

}  // namespace gds::engine::lowp
