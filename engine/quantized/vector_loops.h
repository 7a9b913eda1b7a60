// Element loops of the 8-bit path. TensorFlow's round-half-away-from-zero
// quantization, which compilers do not vectorize, has an AVX2 version chosen
// at run time on x86-64 CPUs that have it and the plain loop everywhere else;
// both give the same bits. The table lookups stay scalar loops.
#pragma once

#include <cstdint>

namespace gds::engine::quantized {

// QuantizeParams<quint8>::apply (QUANTIZE_WITH_EIGEN, MIN_FIRST) on a
// contiguous buffer: clamp(round(x * scale) - offset, 0, 255).
void quantizeMinFirstU8(const float* input, std::int64_t count, float scale, float offset, std::uint8_t* output);

// out[j] = table[in[j]] + bias[j] (uint32 wrap-around): QuantizedBiasAdd.
void biasAddRow(const std::uint8_t* in, const std::int32_t* table, const std::uint32_t* bias, std::int64_t n,
                std::int32_t* out);

// out[j] = table[in[j]]: Dequantize of quint8 through its 256 values.
void lookupRow(const std::uint8_t* in, const float* table, std::int64_t n, float* out);

// data[j] = min(max(data[j], low), high): QuantizedRelu / Relu6 in place.
void clampU8(std::uint8_t* data, std::int64_t n, std::uint8_t low, std::uint8_t high);

// out[j] = ta[a[j]] + tb[b[j]] (float add): two dequantized quint8 tensors
// added, through each one's 256 values (gathers on AVX-512), and their
// minimum and maximum as minMaxFloat finds them.
void lookupSumRow(const std::uint8_t* a, const float* ta, const std::uint8_t* b, const float* tb, std::int64_t n,
                  float* out, float* min_value, float* max_value);

// Arithmetic forms of the two tables above, vectorized (AVX2) where the CPU
// allows; usable only when they reproduce the table for all 256 levels,
// which the *Matches functions check once per range.
//   dequantize: out = float(a + double(v) * b)   (MIN_FIRST's double formula)
//   bias add:   out = clamp(round((o + float(v) * s) * scale) - c) + bias
struct AffineDequantize {
  double a = 0, b = 0;
};
bool affineDequantizeMatches(const AffineDequantize& f, const float table[256]);
void affineDequantizeRow(const AffineDequantize& f, const std::uint8_t* in, std::int64_t n, float* out);

struct AffineBiasAdd {
  float o = 0, s = 0, scale = 0, c = 0;
};
bool affineBiasAddMatches(const AffineBiasAdd& f, const std::int32_t table[256]);
void affineBiasAddRow(const AffineBiasAdd& f, const std::uint8_t* in, const std::uint32_t* bias, std::int64_t n,
                      std::int32_t* out);

}  // namespace gds::engine::quantized
