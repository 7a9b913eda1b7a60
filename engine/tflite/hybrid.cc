#include "engine/tflite/hybrid.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "engine/lowp/depthwise.h"
#include "engine/thread_pool.h"

namespace gds::engine::tflite {
namespace {

// The smallest and largest value (0, 0 for none). GCC does not vectorize a
// min/max reduction without -ffast-math; SSE2 does it four at a time.
void rowRange(const float* x, std::int64_t n, float* lo, float* hi) {
  if (n == 0) {
    *lo = *hi = 0;
    return;
  }
  float a = x[0], b = x[0];
  std::int64_t i = 0;
#if defined(__SSE2__)
  if (n >= 4) {
    __m128 vlo = _mm_loadu_ps(x), vhi = vlo;
    for (i = 4; i + 4 <= n; i += 4) {
      const __m128 v = _mm_loadu_ps(x + i);
      vlo = _mm_min_ps(vlo, v);
      vhi = _mm_max_ps(vhi, v);
    }
    float l[4], h[4];
    _mm_storeu_ps(l, vlo);
    _mm_storeu_ps(h, vhi);
    a = std::min(std::min(l[0], l[1]), std::min(l[2], l[3]));
    b = std::max(std::max(h[0], h[1]), std::max(h[2], h[3]));
  }
#endif
  for (; i < n; ++i) {
    a = std::min(a, x[i]);
    b = std::max(b, x[i]);
  }
  *lo = a;
  *hi = b;
}

// The two roundings to an integer of a float v in [-2^22, 2^22]:
// std::round's halves away from zero (the truncation and its exact
// remainder), and rintf's ties to even in the default rounding mode (adding
// and taking off 1.5 x 2^23; without -ffast-math the compiler keeps both).
enum class Rounding { kHalfAway, kHalfEven };

template <Rounding R>
inline std::int32_t roundScalar(float v) {
  if (R == Rounding::kHalfEven) {
    constexpr float kMagic = 12582912.0f;
    return static_cast<std::int32_t>((v + kMagic) - kMagic);
  }
  const auto t = static_cast<std::int32_t>(v);
  const float rest = v - static_cast<float>(t);  // exact
  return t + (rest >= 0.5f ? 1 : 0) - (rest <= -0.5f ? 1 : 0);
}

#if defined(__SSE2__)
template <Rounding R>
inline __m128i round4(__m128 v) {
  if (R == Rounding::kHalfEven) {
    const __m128 magic = _mm_set1_ps(12582912.0f);
    return _mm_cvttps_epi32(_mm_sub_ps(_mm_add_ps(v, magic), magic));
  }
  const __m128i t = _mm_cvttps_epi32(v);
  const __m128 rest = _mm_sub_ps(v, _mm_cvtepi32_ps(t));
  const __m128i up = _mm_castps_si128(_mm_cmpge_ps(rest, _mm_set1_ps(0.5f)));     // -1 where it rounds up
  const __m128i down = _mm_castps_si128(_mm_cmple_ps(rest, _mm_set1_ps(-0.5f)));  // -1 where it rounds down
  return _mm_add_epi32(_mm_sub_epi32(t, up), down);
}
#endif

// q[i] = round(clamp(x[i] * mul + add, lo, hi)) + offset: the three row
// quantizers' loops (lo, hi integers, so clamping before rounding is
// clamping after), sixteen at a time with SSE2.
template <Rounding R>
void quantizeLoop(const float* x, std::int64_t n, float mul, float add, float lo, float hi, std::int32_t offset,
                  std::int8_t* q) {
  std::int64_t i = 0;
#if defined(__SSE2__)
  const __m128 vmul = _mm_set1_ps(mul), vadd = _mm_set1_ps(add), vlo = _mm_set1_ps(lo), vhi = _mm_set1_ps(hi);
  const __m128i voff = _mm_set1_epi32(offset);
  auto one = [&](const float* p) {
    const __m128 v = _mm_min_ps(_mm_max_ps(_mm_add_ps(_mm_mul_ps(_mm_loadu_ps(p), vmul), vadd), vlo), vhi);
    return _mm_add_epi32(round4<R>(v), voff);
  };
  for (; i + 16 <= n; i += 16) {
    const __m128i a = _mm_packs_epi32(one(x + i), one(x + i + 4));
    const __m128i b = _mm_packs_epi32(one(x + i + 8), one(x + i + 12));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q + i), _mm_packs_epi16(a, b));
  }
#endif
  for (; i < n; ++i) {
    const float v = std::min(std::max(x[i] * mul + add, lo), hi);
    q[i] = static_cast<std::int8_t>(roundScalar<R>(v) + offset);
  }
}

}  // namespace

void quantizeRowSymmetric(const float* x, std::int64_t n, std::int8_t* q, float* scale) {
  constexpr std::int32_t kScale = 127;
  float lo, hi;
  rowRange(x, n, &lo, &hi);
  const float range = std::max(std::abs(lo), std::abs(hi));
  if (range == 0) {
    std::memset(q, 0, static_cast<size_t>(n));
    *scale = 1;
    return;
  }
  *scale = range / kScale;
  const float inverse = kScale / range;
  quantizeLoop<Rounding::kHalfAway>(x, n, inverse, 0.0f, -127.0f, 127.0f, 0, q);
}

void quantizeRowAsymmetric(const float* x, std::int64_t n, std::int8_t* q, float* scale, std::int32_t* offset) {
  constexpr std::int32_t kMin = -128, kMax = 127;
  constexpr double qmin = kMin, qmax = kMax;
  float lo, hi;
  rowRange(x, n, &lo, &hi);
  const double rmin = std::fmin(0, lo), rmax = std::fmax(0, hi);
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
  quantizeLoop<Rounding::kHalfAway>(x, n, inverse, static_cast<float>(*offset), -128.0f, 127.0f, 0, q);
}

void quantizeRowXnnpack(const float* x, std::int64_t n, std::int8_t* q, float* step, std::int32_t* offset) {
  constexpr float qmin = -128.0f, qmax = 127.0f;
  float lo_x, hi_x;
  rowRange(x, n, &lo_x, &hi_x);
  const float rmin = std::min(0.0f, lo_x), rmax = std::max(0.0f, hi_x);
  const float multiplier = rmin == rmax ? 1.0f : (qmax - qmin) / (rmax - rmin);
  const float rmin_scaled = rmin * multiplier, rmax_scaled = rmax * multiplier;
  float zero_point = (qmin + rmin_scaled) + (qmax + rmax_scaled) > 0 ? qmin - rmin_scaled : qmax - rmax_scaled;
  zero_point = std::min(std::max(zero_point, qmin), qmax);
  *offset = static_cast<std::int32_t>(std::nearbyint(zero_point));
  *step = 1.0f / multiplier;
  const float lo = qmin - static_cast<float>(*offset), hi = qmax - static_cast<float>(*offset);
  quantizeLoop<Rounding::kHalfEven>(x, n, multiplier, 0.0f, lo, hi, *offset, q);
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

// How an output is scaled from its int32 sum, in the order of the
// arithmetic's kernel (each product of two floats is one rounding).
HybridConv::Order HybridConv::order() const {
  if (arithmetic_ == HybridArithmetic::kXnnpack) return Order::kInputFirst;  // ((acc x input) x channel)
  if (!per_channel_) return Order::kCombined;                                 // EvalHybrid: acc x (input x filter)
  const bool reference = arithmetic_ == HybridArithmetic::kReference;
  if (depthwise_ && !reference) return Order::kInputFirst;  // optimized_integer_ops (the portable loop)
  if (!depthwise_ && reference) return Order::kChannelFirst;  // reference_ops::HybridConvPerChannel
  return Order::kCombined;
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
        if (!lowp::depthwiseRowsFast(one, u8_.data(), input_zero, filter_, begin, end, acc_.data()))
          lowp::depthwiseRowsReference(one, u8_.data(), input_zero, filter_, begin, end, acc_.data());
      };
      if (pool) pool->parallelFor(s.out_h, static_cast<double>(s.out_w * channels * s.filter_h * s.filter_w), rows);
      else rows(0, s.out_h);
    } else {
      lowp::conv2D(lowp::defaultGemmBackend(), one, u8_.data(), input_zero, *rhs_, acc_.data(), pool, &state_);
    }
    // The channel scales (one for the tensor: every channel's), and for
    // kCombined their products with the image's scale.
    const Order how = order();
    channel_.resize(static_cast<std::size_t>(channels));
    for (std::int64_t c = 0; c < channels; ++c)
      channel_[static_cast<std::size_t>(c)] = scales_[scales_.size() > 1 ? static_cast<std::size_t>(c) : 0];
    if (how == Order::kCombined)
      for (float& m : channel_) m = scales[0] * m;
    float* out = y + b * pixels * channels;
    auto finish = [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t p = begin; p < end; ++p) {
        const std::size_t row = per_pixel ? static_cast<std::size_t>(p) : 0;
        const float input_scale = scales[row];
        const std::int32_t zero = per_pixel ? zeros[row] : 0;
        const std::int32_t* acc = acc_.data() + p * channels;
        float* o = out + p * channels;
        for (std::int64_t c = 0; c < channels; ++c) {
          const std::int32_t sum = per_pixel ? acc[c] - zero * weight_sums_[static_cast<std::size_t>(c)] : acc[c];
          const float a = static_cast<float>(sum), channel = channel_[static_cast<std::size_t>(c)];
          float v = how == Order::kCombined     ? a * channel
                    : how == Order::kInputFirst ? (a * input_scale) * channel
                                                : (a * channel) * input_scale;
          if (bias) v += bias[c];
          o[c] = std::min(std::max(v, act_min), act_max);
        }
      }
    };
    if (pool) pool->parallelFor(pixels, static_cast<double>(channels) * 4, finish);
    else finish(0, pixels);
  }
}

}  // namespace gds::engine::tflite
