// oneDNN backend: dnnl_gemm_u8s8s32 computes
//   C = (A - ao) * (B - bo)   with A uint8, ao uint8, B int8, bo int8.
// TensorFlow's weights are uint8 with a zero point zb in [0, 255]; they are
// stored shifted by -128 as int8 (B' = B - 128), and bo = zb - 128 makes
// B' - bo = B - zb exactly, so no correction terms are needed and the
// accumulators equal the other backends' bit for bit.
#include <cstdint>

#include "engine/lowp/gemm.h"

#ifdef GDS_HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>

// oneDNN in Debian is built on OpenMP; each caller runs it single-threaded
// because our ThreadPool already splits the work.
extern "C" void omp_set_num_threads(int);
#endif

namespace gds::engine::lowp::detail {

#ifdef GDS_HAVE_DNNL
bool dnnlCompiled() { return true; }

bool dnnlGemm(const std::uint8_t* a, std::int64_t m, std::int64_t k, std::int64_t lda, std::int32_t a_zero,
              const std::int8_t* b_shifted, std::int64_t n, std::int32_t b_zero, std::int32_t* c,
              std::int64_t ldc) {
  thread_local bool single_threaded = [] {
    omp_set_num_threads(1);
    return true;
  }();
  (void)single_threaded;
  const std::int32_t co = 0;
  const dnnl_status_t status =
      dnnl_gemm_u8s8s32('N', 'N', 'F', m, n, k, 1.0f, a, lda, static_cast<std::uint8_t>(a_zero), b_shifted, n,
                        static_cast<std::int8_t>(b_zero - 128), 0.0f, c, ldc, &co);
  return status == dnnl_success;
}
#else
bool dnnlCompiled() { return false; }

bool dnnlGemm(const std::uint8_t*, std::int64_t, std::int64_t, std::int64_t, std::int32_t, const std::int8_t*,
              std::int64_t, std::int32_t, std::int32_t*, std::int64_t) {
  return false;
}
#endif

}  // namespace gds::engine::lowp::detail
