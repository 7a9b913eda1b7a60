// Dequantize: TensorFlow's dequantize_op.cc with quantization_utils.h's
// formulas, for quint8, qint8, quint16, qint16 and qint32 in the MIN_COMBINED,
// MIN_FIRST and SCALED modes, with narrow_range and a per-slice range (axis).
#pragma once

#include <cstdint>

#include "engine/quantized/quantization.h"

namespace gds::engine::quantized {

enum class QuantizedType { kQUInt8, kQInt8, kQUInt16, kQInt16, kQInt32 };

// Input viewed as [pre, slices, post]: slice i uses min_range[i], max_range[i]
// (slices == 1 when there is no axis). MIN_FIRST only supports slices == 1.
void dequantize(const void* input, QuantizedType type, std::int64_t pre, std::int64_t slices,
                std::int64_t post, QuantizeMode mode, const float* min_range, const float* max_range,
                bool narrow_range, float* output);
// Dequantize of each of the 256 quint8 levels (no axis, no narrow range):
// table[v] holds exactly what the Dequantize kernel computes for v.
void dequantizeLevels(QuantizeMode mode, float min_range, float max_range, float table[256]);

}  // namespace gds::engine::quantized
