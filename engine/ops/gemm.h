// Single-precision matrix multiplication, row-major: the one place where the
// float engine calls Eigen's contraction (Conv2D's im2col path and MatMul use
// it), so the heavy template code lives in a single translation unit.
#pragma once

#include <cstdint>
#include <string>

#include "model/status.h"

namespace gds::engine {

class ThreadPool;

namespace ops {

// C[m,n] = sum_k op(A)[m,k] * op(B)[k,n], all row-major and densely packed.
// A is stored [m,k] (or [k,m] when transpose_a), B is [k,n] (or [n,k] when
// transpose_b), C is [m,n]. `pool` may be null (single thread).
// Runs the fastest available backend (see gemmBackend()).
void gemm(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k,
          bool transpose_a, bool transpose_b, const ThreadPool* pool);

// Backends: Eigen's tensor contraction (always built, the baseline) and
// oneDNN's sgemm (when the library is found at build time), which the pool's
// threads call on row or column blocks of C. The default is oneDNN when
// built in; KernelChoice::float_gemm (engine/kernel_choice.h) chooses.
enum class GemmBackend { kEigen, kOneDnn };
bool gemmBackendAvailable(GemmBackend backend);
GemmBackend gemmBackend();
// setKernelChoice's part; returns false (and changes nothing) when unavailable.
bool setGemmBackend(GemmBackend backend);
// Back to the default: oneDNN where built in, else Eigen.
void resetGemmBackend();
const char* gemmBackendName(GemmBackend backend);  // "eigen", "onednn"
// "eigen", "onednn" (or "dnnl"); an unknown or unavailable one is an error
// that lists the names.
Result<GemmBackend> parseGemmBackend(const std::string& name);
// One backend explicitly (false when it is not built in).
bool gemmWith(GemmBackend backend, const float* a, const float* b, float* c, std::int64_t m, std::int64_t n,
              std::int64_t k, bool transpose_a, bool transpose_b, const ThreadPool* pool);

// The same product as plain loops (the specification; double accumulation).
void gemmReference(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n,
                   std::int64_t k, bool transpose_a, bool transpose_b);

}  // namespace ops
}  // namespace gds::engine
