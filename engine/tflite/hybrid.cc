#include "engine/tflite/hybrid.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "engine/thread_pool.h"

namespace gds::engine::tflite {

void quantizeRowSymmetric(const float* x, std::int64_t n, std::int8_t* q, float* scale) {
  constexpr std::int32_t kScale = 127;
  const auto minmax = std::minmax_element(x, x + n);
  const float range = n == 0 ? 0.0f : std::max(std::abs(*minmax.first), std::abs(*minmax.second));
  if (range == 0) {
    std::memset(q, 0, static_cast<size_t>(n));
    *scale = 1;
    return;
  }
  *scale = range / kScale;
  const float inverse = kScale / range;
  for (std::int64_t i = 0; i < n; ++i) {
    const auto v = static_cast<std::int32_t>(std::round(x[i] * inverse));
    q[i] = static_cast<std::int8_t>(std::min(kScale, std::max(-kScale, v)));
  }
}

void quantizeRowAsymmetric(const float* x, std::int64_t n, std::int8_t* q, float* scale, std::int32_t* offset) {
  constexpr std::int32_t kMin = -128, kMax = 127;
  constexpr double qmin = kMin, qmax = kMax;
  const auto minmax = std::minmax_element(x, x + n);
  const double rmin = n == 0 ? 0.0 : std::fmin(0, *minmax.first);
  const double rmax = n == 0 ? 0.0 : std::fmax(0, *minmax.second);
  if (rmin == rmax) {
    std::memset(q, 0, static_cast<size_t>(n));
    *scale = 1;
    *offset = 0;
    return;
  }
  // TFLite picks the zero point from whichever end loses less, in double.
  const double s = (rmax - rmin) / (qmax - qmin);
  const double from_min = qmin - rmin / s, from_max = qmax - rmax / s;
  const double zero_point =
      std::abs(qmin) + std::abs(rmin / s) < std::abs(qmax) + std::abs(rmax / s) ? from_min : from_max;
  *offset = zero_point <= qmin   ? kMin
            : zero_point >= qmax ? kMax
                                 : static_cast<std::int8_t>(std::round(zero_point));
  *scale = static_cast<float>(s);
  const auto inverse = static_cast<float>(1.0 / *scale);
  for (std::int64_t i = 0; i < n; ++i) {
    const auto v = static_cast<std::int32_t>(std::round(static_cast<float>(*offset) + x[i] * inverse));
    q[i] = static_cast<std::int8_t>(std::min(kMax, std::max(kMin, v)));
  }
}

void quantizeRowXnnpack(const float* x, std::int64_t n, std::int8_t* q, float* step, std::int32_t* offset) {
  constexpr float qmin = -128.0f, qmax = 127.0f;
  const auto minmax = std::minmax_element(x, x + n);
  const float rmin = n == 0 ? 0.0f : std::min(0.0f, *minmax.first);
  const float rmax = n == 0 ? 0.0f : std::max(0.0f, *minmax.second);
  const float multiplier = rmin == rmax ? 1.0f : (qmax - qmin) / (rmax - rmin);
  const float rmin_scaled = rmin * multiplier, rmax_scaled = rmax * multiplier;
  float zero_point = (qmin + rmin_scaled) + (qmax + rmax_scaled) > 0 ? qmin - rmin_scaled : qmax - rmax_scaled;
  zero_point = std::min(std::max(zero_point, qmin), qmax);
  *offset = static_cast<std::int32_t>(std::nearbyint(zero_point));
  *step = 1.0f / multiplier;
  const float lo = qmin - static_cast<float>(*offset), hi = qmax - static_cast<float>(*offset);
  for (std::int64_t i = 0; i < n; ++i) {
    const float v = std::min(std::max(x[i] * multiplier, lo), hi);
    q[i] = static_cast<std::int8_t>(static_cast<std::int32_t>(std::nearbyint(v)) + *offset);
  }
}

HybridFullyConnected::HybridFullyConnected(const std::int8_t* weights, std::int64_t units, std::int64_t depth,
                                           std::vector<float> scales, bool asymmetric_inputs,
                                           HybridArithmetic arithmetic)
    : weights_(weights),
      units_(units),
      depth_(depth),
      scales_(std::move(scales)),
      asymmetric_(asymmetric_inputs || arithmetic == HybridArithmetic::kXnnpack),
      arithmetic_(arithmetic) {
  if (!asymmetric_) return;
  row_sums_.assign(static_cast<size_t>(units), 0);
  for (std::int64_t r = 0; r < units; ++r) {
    std::int32_t sum = 0;
    for (std::int64_t c = 0; c < depth; ++c) sum += weights[r * depth + c];
    row_sums_[static_cast<size_t>(r)] = sum;
  }
}

void HybridFullyConnected::run(const float* x, std::int64_t batch, const float* bias, float act_min, float act_max,
                               float* y, const ThreadPool* pool) const {
  for (std::int64_t b = 0; b < batch; ++b)
    for (std::int64_t r = 0; r < units_; ++r) y[b * units_ + r] = bias ? bias[r] : 0.0f;
  // TFLite skips the product when the whole input is zero (XNNPACK's
  // product is then zero too).
  const bool xnnpack = arithmetic_ == HybridArithmetic::kXnnpack;
  const bool zero = std::all_of(x, x + batch * depth_, [](float v) { return v == 0.0f; });
  if (!zero) {
    std::vector<std::int8_t> q(static_cast<size_t>(batch * depth_));
    std::vector<float> row_scale(static_cast<size_t>(batch));
    std::vector<std::int32_t> row_offset(static_cast<size_t>(batch), 0);
    for (std::int64_t b = 0; b < batch; ++b) {
      if (xnnpack)
        quantizeRowXnnpack(x + b * depth_, depth_, q.data() + b * depth_, &row_scale[static_cast<size_t>(b)],
                           &row_offset[static_cast<size_t>(b)]);
      else if (asymmetric_)
        quantizeRowAsymmetric(x + b * depth_, depth_, q.data() + b * depth_, &row_scale[static_cast<size_t>(b)],
                              &row_offset[static_cast<size_t>(b)]);
      else
        quantizeRowSymmetric(x + b * depth_, depth_, q.data() + b * depth_, &row_scale[static_cast<size_t>(b)]);
    }
    const bool per_channel = scales_.size() > 1;
    auto units = [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t b = 0; b < batch; ++b) {
        const std::int8_t* v = q.data() + b * depth_;
        for (std::int64_t r = begin; r < end; ++r) {
          const std::int8_t* w = weights_ + r * depth_;
          std::int32_t dot = 0;
          for (std::int64_t c = 0; c < depth_; ++c) dot += static_cast<std::int32_t>(w[c]) * v[c];
          if (asymmetric_) dot -= row_sums_[static_cast<size_t>(r)] * row_offset[static_cast<size_t>(b)];
          const float weight_scale = scales_[per_channel ? static_cast<size_t>(r) : 0];
          float& out = y[b * units_ + r];
          if (xnnpack) {
            // ((acc x input scale) x weight scale) + bias: three roundings.
            const float scaled = static_cast<float>(dot) * row_scale[static_cast<size_t>(b)];
            const float product = scaled * weight_scale;
            out += product;
          } else {
            // The row's scale times the weights' scale, then the product
            // added to the bias: TFLite's order.
            const float scale = row_scale[static_cast<size_t>(b)] * weight_scale;
            const float product = static_cast<float>(dot) * scale;
            out += product;
          }
        }
      }
    };
    if (pool) pool->parallelFor(units_, static_cast<double>(batch * depth_), units);
    else units(0, units_);
  }
  for (std::int64_t i = 0; i < batch * units_; ++i) y[i] = std::min(std::max(y[i], act_min), act_max);
}

}  // namespace gds::engine::tflite
