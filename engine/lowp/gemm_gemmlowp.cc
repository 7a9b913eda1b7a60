// gemmlowp backend: the only translation unit that instantiates gemmlowp's
// templates (they are heavy to compile). As TensorFlow's quantized ops do, the
// zero points are passed as gemmlowp's lhs/rhs offsets and the output
// pipeline is empty, so gemmlowp returns the raw int32 accumulators.
#include <cstdint>
#include <tuple>

#define GEMMLOWP_ALLOW_SLOW_SCALAR_FALLBACK
#include <gemmlowp/public/gemmlowp.h>

#include "engine/lowp/gemm.h"

namespace gds::engine::lowp::detail {

void gemmlowpGemm(const std::uint8_t* a, std::int64_t m, std::int64_t k, std::int64_t lda, std::int32_t a_zero,
                  const std::uint8_t* b, std::int64_t n, std::int32_t b_zero, std::int32_t* c, std::int64_t ldc) {
  // One single-threaded context per calling thread: our ThreadPool does the
  // splitting, so gemmlowp must not start workers of its own.
  thread_local gemmlowp::GemmContext context;
  context.set_max_num_threads(1);
  gemmlowp::MatrixMap<const std::uint8_t, gemmlowp::MapOrder::RowMajor> lhs(a, static_cast<int>(m),
                                                                            static_cast<int>(k), static_cast<int>(lda));
  gemmlowp::MatrixMap<const std::uint8_t, gemmlowp::MapOrder::RowMajor> rhs(b, static_cast<int>(k),
                                                                            static_cast<int>(n), static_cast<int>(n));
  gemmlowp::MatrixMap<std::int32_t, gemmlowp::MapOrder::RowMajor> result(c, static_cast<int>(m), static_cast<int>(n),
                                                                         static_cast<int>(ldc));
  const std::tuple<> empty_pipeline = {};
  gemmlowp::GemmWithOutputPipeline<std::uint8_t, std::int32_t, gemmlowp::DefaultL8R8BitDepthParams>(
      &context, lhs, rhs, &result, -a_zero, -b_zero, empty_pipeline);
}

}  // namespace gds::engine::lowp::detail
