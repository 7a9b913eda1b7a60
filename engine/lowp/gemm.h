// The 8-bit GEMM behind QuantizedConv2D and QuantizedMatMul, with one
// interface and interchangeable backends:
//  - Reference: a plain loop, the specification;
//  - Gemmlowp: gemmlowp's uint8 GEMM (portable, TensorFlow's own choice);
//  - Avx2: the exact int16-pair GEMM of gemm_avx2.h (vpmaddwd), for x86-64
//    CPUs with AVX2 and no VNNI;
//  - Dnnl: oneDNN's u8s8s32 integer GEMM (AVX-512 VNNI), used when the CPU
//    has VNNI and the library was found at build time.
// Every backend computes the same int32 accumulators
//   C[i][j] = sum_k (A[i][k] - a_zero) * (B[k][j] - b_zero)   (mod 2^32)
// where a_zero / b_zero are the quantized values of real zero in TensorFlow's
// uint8 format (FloatToQuantizedUnclamped(0, min, max)). Integer arithmetic
// is exact, so the backends agree bit for bit; the one requantization output
// stage (Requantize32To8) is shared, so their 8-bit results agree too.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/lowp/gemm_avx2.h"
#include "model/status.h"

namespace gds::engine {
class ThreadPool;
}

namespace gds::engine::lowp {

enum class GemmBackend { kReference, kGemmlowp, kDnnl, kAvx2 };

const char* gemmBackendName(GemmBackend backend);  // "reference", "gemmlowp", "dnnl", "avx2"
// Accepts the names above; "auto" gives defaultGemmBackend().
Result<GemmBackend> parseGemmBackend(const std::string& name);
// True when oneDNN was linked in and this CPU has AVX-512 VNNI.
bool dnnlAvailable();
// True on x86-64 CPUs with AVX2 (after the CPU cap).
bool avx2GemmAvailable();
// The backend used when none is requested: dnnl where available, else avx2
// where available, gemmlowp otherwise; KernelChoice::quantized_gemm
// (engine/kernel_choice.h) overrides it.
GemmBackend defaultGemmBackend();
// setKernelChoice's part: an override kept until reset.
void setDefaultGemmBackend(GemmBackend backend);
void resetDefaultGemmBackend();

// The right-hand operand (weights), prepared once per constant filter: the
// uint8 values as given, for oneDNN an int8 copy shifted by -128, and on
// AVX2 CPUs the avx2 backend's packed int16 panels.
class GemmRhs {
 public:
  GemmRhs() = default;
  // b is k x n, row-major with leading dimension ldb (transposed: n x k).
  GemmRhs(const std::uint8_t* b, std::int64_t k, std::int64_t n, std::int64_t ldb, bool transposed,
          std::int32_t zero_point);
  std::int64_t k() const { return k_; }
  std::int64_t n() const { return n_; }
  std::int32_t zeroPoint() const { return zero_point_; }
  bool empty() const { return k_ == 0 || n_ == 0; }

  // k x n row-major copies (leading dimension n).
  const std::uint8_t* u8() const { return u8_.data(); }
  // Empty unless oneDNN is compiled in.
  const std::int8_t* s8() const { return s8_.empty() ? nullptr : s8_.data(); }
  // Empty without AVX2 or when the zero point does not fit its int16 values.
  const Avx2Gemm& avx2() const { return avx2_; }

 private:
  std::int64_t k_ = 0, n_ = 0;
  std::int32_t zero_point_ = 0;
  std::vector<std::uint8_t> u8_;
  std::vector<std::int8_t> s8_;
  Avx2Gemm avx2_;
};

struct GemmLhs {
  const std::uint8_t* data = nullptr;  // m x k, row-major
  std::int64_t m = 0;
  std::int64_t k = 0;
  std::int64_t lda = 0;
  std::int32_t zero_point = 0;
};

// Called on each finished block of output rows [row_begin, row_end) while it
// is still in cache (requantization, range scan). May run on pool threads,
// concurrently for disjoint blocks.
using GemmEpilogue = std::function<void(std::int64_t row_begin, std::int64_t row_end)>;

// C (m x n, row-major, leading dimension ldc) = the accumulators above.
// pool may be null (single thread).
void gemm(GemmBackend backend, const GemmLhs& lhs, const GemmRhs& rhs, std::int32_t* c, std::int64_t ldc,
          const ThreadPool* pool, const GemmEpilogue& epilogue = nullptr);

// The plain loop (also used for shapes a backend cannot take).
void referenceGemm(const GemmLhs& lhs, const std::uint8_t* b, std::int64_t ldb, std::int32_t b_zero,
                   std::int64_t n, std::int32_t* c, std::int64_t ldc);

// out[i] = x[i] + 128: int8 values as the uint8 ones oneDNN's u8 x s8
// kernels take. (Through restrict pointers the compiler vectorizes it.)
inline void toUnsigned(const std::int8_t* __restrict x, std::int64_t n, std::uint8_t* __restrict out) {
  for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(static_cast<int>(x[i]) + 128);
}

namespace detail {
// Backend entry points on a block of rows; implemented in gemm_gemmlowp.cc
// and gemm_dnnl.cc.
void gemmlowpGemm(const std::uint8_t* a, std::int64_t m, std::int64_t k, std::int64_t lda, std::int32_t a_zero,
                  const std::uint8_t* b, std::int64_t n, std::int32_t b_zero, std::int32_t* c, std::int64_t ldc);
bool dnnlCompiled();
// Returns false when oneDNN rejects the call (the caller falls back).
bool dnnlGemm(const std::uint8_t* a, std::int64_t m, std::int64_t k, std::int64_t lda, std::int32_t a_zero,
              const std::int8_t* b_shifted, std::int64_t n, std::int32_t b_zero, std::int32_t* c,
              std::int64_t ldc);
}  // namespace detail

}  // namespace gds::engine::lowp
