// The exact 8-bit GEMM for x86-64 CPUs with AVX2 and no VNNI, shared by the
// TensorFlow Lite int8 layers (tflite/fast.h: int8 operands plus offsets)
// and the GraphDef 8-bit layers (gemm.h's avx2 backend: uint8 operands minus
// zero points). Both operands are widened to int16 with their offsets
// applied and multiplied in pairs by vpmaddwd into int32, as ruy and XNNPACK
// do: AVX2 has no exact 8-bit multiply-add (vpmaddubsw saturates at 16 bits).
// The accumulators wrap mod 2^32 like the reference loops' and equal them
// bit for bit.
#pragma once

#include <cstdint>
#include <vector>

namespace gds::engine::lowp {

class Avx2Gemm {
 public:
  // x86-64 with AVX2 (engine::cpuFeatures(), so a generic CPU cap turns it off).
  static bool available();
  // True when a value v in [0, 255] plus `offset` fits the kernel's int16
  // operands (|v + offset| <= 32767, so no pair sum can overflow int32).
  static bool offsetFits(std::int32_t offset) { return offset >= -32767 && offset <= 32767 - 255; }

  // Weights as c[.][j] = sum_k a[.][k] * (w + offset): TFLite's layout,
  // w [n][k] int8 ...
  void packWeights(const std::int8_t* w, std::int64_t n, std::int64_t k, std::int32_t offset);
  // ... or the GEMM's right-hand operand b k x n uint8 (row-major, leading
  // dimension ldb; transposed: n x k).
  void packWeights(const std::uint8_t* b, std::int64_t k, std::int64_t n, std::int64_t ldb, bool transposed,
                   std::int32_t offset);
  bool empty() const { return packed_.empty(); }
  std::int64_t n() const { return n_; }
  std::int64_t k() const { return k_; }

  // c[i][j] = sum_k (a[i][k] + a_offset) * (w + offset), int32 wrapping;
  // a: rows x k with leading dimension lda, c: rows x n with leading
  // dimension ldc (0: n). The offsets must keep every value in [-32767,
  // 32767] (offsetFits for uint8; TFLite's int8 offsets always do).
  void run(const std::int8_t* a, std::int64_t rows, std::int64_t lda, std::int32_t a_offset, std::int32_t* c,
           std::int64_t ldc = 0) const;
  void run(const std::uint8_t* a, std::int64_t rows, std::int64_t lda, std::int32_t a_offset, std::int32_t* c,
           std::int64_t ldc = 0) const;

 private:
  template <typename T>
  void runAny(const T* a, std::int64_t rows, std::int64_t lda, std::int32_t a_offset, std::int32_t* c,
              std::int64_t ldc) const;
  std::int64_t n_ = 0, k_ = 0, k_pairs_ = 0;
  std::vector<std::int16_t> packed_;
};

}  // namespace gds::engine::lowp
