// The float arithmetic of TensorFlow's FakeQuantWithMinMaxArgs,
// FakeQuantWithMinMaxVars and FakeQuantWithMinMaxVarsPerChannel
// (tensorflow/core/kernels/fake_quant_ops_functor.h), operation for
// operation in float so results are bit for bit TensorFlow's:
//
//   quant_min = narrow_range ? 1 : 0, quant_max = 2^num_bits - 1
//   scale = (max - min) / (quant_max - quant_min)
//   zero_point = clamp(round(quant_min - min / scale), quant_min, quant_max)
//   nudged_min = (quant_min - zero_point) * scale
//   nudged_max = (quant_max - zero_point) * scale
//   y = floor((clamp(x, nudged_min, nudged_max) - nudged_min) <op> + 0.5)
//       * scale + nudged_min
//
// where <op> is "* (1 / scale)" for the Args op and "/ scale" for the Vars
// ops (TensorFlow's two functors differ there, and the results can differ in
// the last bit). A range of exactly [0, 0] gives zeros (the Vars ops).
#pragma once

#include <cstdint>

namespace gds::engine::ops {

struct FakeQuantRange {
  float nudged_min = 0, nudged_max = 0, scale = 0;
};

// TensorFlow's Nudge().
FakeQuantRange nudgeFakeQuantRange(float min, float max, int quant_min, int quant_max);

// quant_min/quant_max from the num_bits and narrow_range attrs.
inline int fakeQuantMin(bool narrow_range) { return narrow_range ? 1 : 0; }
inline int fakeQuantMax(int num_bits) { return (1 << num_bits) - 1; }

enum class FakeQuantDivide {
  kMultiplyByInverse,  // FakeQuantWithMinMaxArgs
  kDivide,             // FakeQuantWithMinMaxVars, FakeQuantWithMinMaxVarsPerChannel
};

// y[i] = fake-quantized x[i] for n values with one range.
void fakeQuantize(const float* x, std::int64_t n, float min, float max, int quant_min, int quant_max,
                  FakeQuantDivide divide, float* y);

// Per channel: x is [rows, depth] (the last dimension is the channel), min
// and max have depth values.
void fakeQuantizePerChannel(const float* x, std::int64_t rows, std::int64_t depth, const float* min,
                            const float* max, int quant_min, int quant_max, float* y);

}  // namespace gds::engine::ops
