#include "engine/tflite/hybrid.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "engine/lowp/depthwise.h"
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

HybridConv::HybridConv(bool depthwise, const std::int8_t* filter, std::vector<float> scales,
                       HybridArithmetic arithmetic)
    : depthwise_(depthwise), filter_(filter), scales_(std::move(scales)), arithmetic_(arithmetic) {
  // TFLite takes the per-channel path only when the scales differ.
  per_channel_ = depthwise_ || arithmetic_ == HybridArithmetic::kXnnpack;
  for (float v : scales_) per_channel_ = per_channel_ || v != scales_[0];
}

// One output of channel c from its int32 sum, in the order of the
// arithmetic's kernel (each product of two floats is one rounding).
float HybridConv::scaled(std::int32_t acc, float image_scale, std::int64_t c) const {
  const float a = static_cast<float>(acc);
  const float channel = scales_[scales_.size() > 1 ? static_cast<std::size_t>(c) : 0];
  if (arithmetic_ == HybridArithmetic::kXnnpack) {
    const float t = a * image_scale;
    return t * channel;
  }
  if (!per_channel_) return a * (image_scale * channel);  // EvalHybrid: the image's scale times the filter's
  const bool reference = arithmetic_ == HybridArithmetic::kReference;
  if (depthwise_ && !reference) {
    const float t = a * image_scale;  // optimized_integer_ops (the portable loop)
    return t * channel;
  }
  if (!depthwise_ && reference) {
    const float t = a * channel;  // reference_ops::HybridConvPerChannel
    return t * image_scale;
  }
  return a * (channel * image_scale);
}

void HybridConv::run(const ops::ConvGeometry& s, const float* x, const float* bias, float act_min, float act_max,
                     float* y, const ThreadPool* pool) {
  const std::int64_t image = s.in_h * s.in_w * s.in_c, pixels = s.out_h * s.out_w;
  const std::int64_t channels = s.outputChannels(depthwise_);
  ops::ConvGeometry one = s;
  one.batch = 1;
  if (!depthwise_ && !rhs_) {
    // The filter [out_c, h, w, in_c] is the transposed (n x k) GEMM operand.
    const std::int64_t k = s.filter_h * s.filter_w * s.in_c;
    weights_u8_.resize(static_cast<std::size_t>(k * s.out_c));
    for (std::size_t i = 0; i < weights_u8_.size(); ++i)
      weights_u8_[i] = static_cast<std::uint8_t>(static_cast<int>(filter_[i]) + 128);
    rhs_ = std::make_unique<lowp::GemmRhs>(weights_u8_.data(), k, s.out_c, k, true, 128);
    state_.weights_constant = true;
  }
  // XNNPACK runs a 1x1 stride-1 convolution as a fully connected layer over
  // the pixels: each pixel is a row with its own scale and zero point.
  const bool per_pixel = arithmetic_ == HybridArithmetic::kXnnpack && !depthwise_ && s.filter_h == 1 &&
                         s.filter_w == 1 && s.stride_h == 1 && s.stride_w == 1 && s.out_h == s.in_h &&
                         s.out_w == s.in_w;
  if (per_pixel && weight_sums_.empty()) {
    const std::int64_t k = s.in_c;
    weight_sums_.assign(static_cast<std::size_t>(s.out_c), 0);
    for (std::int64_t c = 0; c < s.out_c; ++c)
      for (std::int64_t i = 0; i < k; ++i) weight_sums_[static_cast<std::size_t>(c)] += filter_[c * k + i];
  }
  q_.resize(static_cast<std::size_t>(image));
  u8_.resize(static_cast<std::size_t>(image));
  acc_.resize(static_cast<std::size_t>(pixels * channels));
  std::vector<float> scales(static_cast<std::size_t>(per_pixel ? pixels : 1), 1.0f);
  std::vector<std::int32_t> zeros(scales.size(), 0);
  for (std::int64_t b = 0; b < s.batch; ++b) {
    const float* image_in = x + b * image;
    if (per_pixel)
      for (std::int64_t p = 0; p < pixels; ++p)
        quantizeRowXnnpack(image_in + p * s.in_c, s.in_c, q_.data() + p * s.in_c, &scales[static_cast<std::size_t>(p)],
                           &zeros[static_cast<std::size_t>(p)]);
    else if (arithmetic_ == HybridArithmetic::kXnnpack)
      quantizeRowXnnpack(image_in, image, q_.data(), &scales[0], &zeros[0]);
    else if (per_channel_)
      quantizeRowAsymmetric(image_in, image, q_.data(), &scales[0], &zeros[0]);
    else
      quantizeRowSymmetric(image_in, image, q_.data(), &scales[0]);
    for (std::size_t i = 0; i < q_.size(); ++i) u8_[i] = static_cast<std::uint8_t>(q_[i] + 128);
    // Per pixel, the sums are formed around 0 and each row's zero point is
    // taken off after: sum (q - z) w = sum q w - z sum w, exact.
    const std::int32_t input_zero = (per_pixel ? 0 : zeros[0]) + 128;
    if (depthwise_) {
      auto rows = [&](std::int64_t begin, std::int64_t end) {
        lowp::depthwiseRowsReference(one, u8_.data(), input_zero, filter_, begin, end, acc_.data());
      };
      if (pool) pool->parallelFor(s.out_h, static_cast<double>(s.out_w * channels * s.filter_h * s.filter_w), rows);
      else rows(0, s.out_h);
    } else {
      lowp::conv2D(lowp::defaultGemmBackend(), one, u8_.data(), input_zero, *rhs_, acc_.data(), pool, &state_);
    }
    float* out = y + b * pixels * channels;
    for (std::int64_t p = 0; p < pixels; ++p) {
      const std::size_t row = per_pixel ? static_cast<std::size_t>(p) : 0;
      for (std::int64_t c = 0; c < channels; ++c) {
        std::int32_t acc = acc_[static_cast<std::size_t>(p * channels + c)];
        if (per_pixel) acc -= zeros[row] * weight_sums_[static_cast<std::size_t>(c)];
        float v = scaled(acc, scales[row], c);
        if (bias) v += bias[c];
        out[p * channels + c] = std::min(std::max(v, act_min), act_max);
      }
    }
  }
}

}  // namespace gds::engine::tflite
