#include "engine/ops/fake_quant.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace gds::engine::ops {

FakeQuantRange nudgeFakeQuantRange(float min, float max, int quant_min, int quant_max) {
  const float quant_min_float = static_cast<float>(quant_min);
  const float quant_max_float = static_cast<float>(quant_max);
  FakeQuantRange r;
  r.scale = (max - min) / (quant_max_float - quant_min_float);
  const float zero_point_from_min = quant_min_float - min / r.scale;
  // TensorFlow keeps the zero point in a uint16 (num_bits is at most 16).
  std::uint16_t zero_point;
  if (zero_point_from_min < quant_min_float)
    zero_point = static_cast<std::uint16_t>(quant_min);
  else if (zero_point_from_min > quant_max_float)
    zero_point = static_cast<std::uint16_t>(quant_max);
  else
    zero_point = static_cast<std::uint16_t>(std::round(zero_point_from_min));
  r.nudged_min = (quant_min_float - zero_point) * r.scale;
  r.nudged_max = (quant_max_float - zero_point) * r.scale;
  return r;
}

namespace {

// One value; `inverse` is 1 / scale for the Args form, unused otherwise.
inline float quantizeOne(float x, const FakeQuantRange& r, FakeQuantDivide divide, float inverse) {
  // Eigen's cwiseMin(nudged_max).cwiseMax(nudged_min).
  const float clamped = std::max(std::min(x, r.nudged_max), r.nudged_min);
  const float shifted = clamped - r.nudged_min;
  const float steps = divide == FakeQuantDivide::kMultiplyByInverse ? shifted * inverse : shifted / r.scale;
  return std::floor(steps + 0.5f) * r.scale + r.nudged_min;
}

}  // namespace

void fakeQuantize(const float* x, std::int64_t n, float min, float max, int quant_min, int quant_max,
                  FakeQuantDivide divide, float* y) {
  if (divide == FakeQuantDivide::kDivide && min == 0.0f && max == 0.0f) {
    std::fill(y, y + n, 0.0f);
    return;
  }
  const FakeQuantRange r = nudgeFakeQuantRange(min, max, quant_min, quant_max);
  const float inverse = 1.0f / r.scale;
  for (std::int64_t i = 0; i < n; ++i) y[i] = quantizeOne(x[i], r, divide, inverse);
}

void fakeQuantizePerChannel(const float* x, std::int64_t rows, std::int64_t depth, const float* min,
                            const float* max, int quant_min, int quant_max, float* y) {
  std::vector<FakeQuantRange> ranges(static_cast<size_t>(depth));
  std::vector<char> zero(static_cast<size_t>(depth));
  for (std::int64_t c = 0; c < depth; ++c) {
    zero[static_cast<size_t>(c)] = min[c] == 0.0f && max[c] == 0.0f;
    ranges[static_cast<size_t>(c)] = nudgeFakeQuantRange(min[c], max[c], quant_min, quant_max);
  }
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < depth; ++c) {
      const std::int64_t i = r * depth + c;
      y[i] = zero[static_cast<size_t>(c)]
                 ? 0.0f
                 : quantizeOne(x[i], ranges[static_cast<size_t>(c)], FakeQuantDivide::kDivide, 0.0f);
    }
}

}  // namespace gds::engine::ops
