// Arm NN 20.08 CpuRef's int8 layers (see armnn.h); each function names the
// workload it follows.
#include "engine/lowp/armnn.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/lowp/cpu.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GDS_ARMNN_AVX2 1
#include <immintrin.h>
#endif

namespace gds::engine::lowp::armnn {

DecodeTable decodeTable(Quant q) {
  DecodeTable t;
  for (int v = -128; v <= 127; ++v) t[static_cast<std::uint8_t>(static_cast<std::int8_t>(v))] = armnnDequantize(v, q.scale, q.offset);
  return t;
}

float activate(Activation a, float x, float alpha) {
  switch (a) {
    case Activation::kNone: return x;
    case Activation::kRelu: return std::max(0.f, x);
    case Activation::kRelu6: return std::min(6.0f, std::max(0.0f, x));
    case Activation::kSigmoid: return 1.f / (1.f + expf(-x));
    case Activation::kTanh: return 1.0f * tanhf(1.0f * x);
    case Activation::kLeakyRelu: return x > 0.0f ? x : (x * alpha);
  }
  return x;
}

Int8Table activationTable(Activation a, Quant in, Quant out, float alpha) {
  const DecodeTable d = decodeTable(in);
  return makeTable([&](int q) { return encode(activate(a, decode(d, static_cast<std::int8_t>(q)), alpha), out); });
}

Int8Table requantizeTable(Quant in, Quant out) { return activationTable(Activation::kNone, in, out); }

namespace {

// The decoded bias of each output channel (ScaledInt32Decoder: (float)b *
// scale, or ScaledInt32PerAxisDecoder: Dequantize(b, scale[c], 0), the same
// product).
std::vector<float> decodeBias(const std::int32_t* bias, const std::vector<float>& scales, std::int64_t channels) {
  std::vector<float> out;
  if (!bias) return out;
  out.resize(static_cast<std::size_t>(channels));
  for (std::int64_t c = 0; c < channels; ++c) {
    // No scale: Int32Decoder, the value as float.
    const float scale = scales.empty() ? 1.0f : scales.size() == 1 ? scales[0] : scales[static_cast<std::size_t>(c)];
    out[static_cast<std::size_t>(c)] = static_cast<float>(bias[c]) * scale;
  }
  return out;
}

float weightScale(const std::vector<float>& scales, std::int64_t c) {
  return scales.size() == 1 ? scales[0] : scales[static_cast<std::size_t>(c)];
}

}  // namespace

Conv::Conv(const ops::ConvGeometry& s, bool depthwise, const std::int8_t* filter, const std::vector<float>& weight_scales,
           const std::int32_t* bias, const std::vector<float>& bias_scales, Quant input, Quant output)
    : s_(s), depthwise_(depthwise), out_channels_(depthwise ? s.in_c * s.out_c : s.out_c),
      input_table_(decodeTable(input)), input_(input), output_(output) {
  const std::int64_t kh = s.filter_h, kw = s.filter_w, in_c = s.in_c, oc_n = out_channels_;
  if (!depthwise) {
    // TFLite [oc][kh][kw][ic] -> [oc][ic][kh][kw] and [ic][kh][kw][oc].
    weights_.resize(static_cast<std::size_t>(oc_n * in_c * kh * kw));
    lane_weights_.resize(weights_.size());
    for (std::int64_t o = 0; o < oc_n; ++o)
      for (std::int64_t y = 0; y < kh; ++y)
        for (std::int64_t x = 0; x < kw; ++x)
          for (std::int64_t c = 0; c < in_c; ++c) {
            const float w = armnnDequantize(filter[((o * kh + y) * kw + x) * in_c + c], weightScale(weight_scales, o), 0);
            weights_[static_cast<std::size_t>(((o * in_c + c) * kh + y) * kw + x)] = w;
            lane_weights_[static_cast<std::size_t>(((c * kh + y) * kw + x) * oc_n + o)] = w;
          }
  } else {
    // TFLite [1][kh][kw][oc]: [oc][kh][kw] and [kh][kw][oc] (the file's).
    weights_.resize(static_cast<std::size_t>(oc_n * kh * kw));
    lane_weights_.resize(weights_.size());
    for (std::int64_t y = 0; y < kh; ++y)
      for (std::int64_t x = 0; x < kw; ++x)
        for (std::int64_t o = 0; o < oc_n; ++o) {
          const float w = armnnDequantize(filter[(y * kw + x) * oc_n + o], weightScale(weight_scales, o), 0);
          weights_[static_cast<std::size_t>((o * kh + y) * kw + x)] = w;
          lane_weights_[static_cast<std::size_t>((y * kw + x) * oc_n + o)] = w;
        }
  }
  bias_ = decodeBias(bias, bias_scales, oc_n);
}

void Conv::runReference(const std::int8_t* input, std::int8_t* output) const {
  const ops::ConvGeometry& s = s_;
  const std::int64_t multiplier = depthwise_ ? s.out_c : 1;
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t o = 0; o < out_channels_; ++o)
      for (std::int64_t oy = 0; oy < s.out_h; ++oy)
        for (std::int64_t ox = 0; ox < s.out_w; ++ox) {
          float sum = 0.0f;
          const std::int64_t c_begin = depthwise_ ? o / multiplier : 0;
          const std::int64_t c_end = depthwise_ ? c_begin + 1 : s.in_c;
          for (std::int64_t c = c_begin; c < c_end; ++c)
            for (std::int64_t y = 0; y < s.filter_h; ++y)
              for (std::int64_t x = 0; x < s.filter_w; ++x) {
                const float w = depthwise_ ? weights_[static_cast<std::size_t>((o * s.filter_h + y) * s.filter_w + x)]
                                           : weights_[static_cast<std::size_t>(((o * s.in_c + c) * s.filter_h + y) *
                                                                                   s.filter_w + x)];
                const std::int64_t iy = oy * s.stride_h + y * s.dilation_h - s.pad_top;
                const std::int64_t ix = ox * s.stride_w + x * s.dilation_w - s.pad_left;
                float v = 0.0f;
                if (iy >= 0 && iy < s.in_h && ix >= 0 && ix < s.in_w)
                  v = decode(input_table_, input[((b * s.in_h + iy) * s.in_w + ix) * s.in_c + c]);
                sum += w * v;
              }
          if (!bias_.empty()) sum += bias_[static_cast<std::size_t>(o)];
          output[((b * s.out_h + oy) * s.out_w + ox) * out_channels_ + o] = encode(sum, output_);
        }
}

namespace {

#ifdef GDS_ARMNN_AVX2
// Eight values v encoded: round(v / scale) half away from zero, + offset,
// clamped to int8 (armnnQuantize on each lane).
__attribute__((target("avx2"))) inline void encode8(__m256 v, Quant q, std::int8_t* out) {
  const __m256 d = _mm256_div_ps(v, _mm256_set1_ps(q.scale));
  const __m256 t = _mm256_round_ps(d, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  const __m256 sign = _mm256_and_ps(d, _mm256_set1_ps(-0.0f));
  const __m256 frac = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), _mm256_sub_ps(d, t));
  const __m256 up = _mm256_and_ps(_mm256_cmp_ps(frac, _mm256_set1_ps(0.5f), _CMP_GE_OQ), _mm256_set1_ps(1.0f));
  __m256 r = _mm256_add_ps(t, _mm256_or_ps(up, sign));
  r = _mm256_add_ps(r, _mm256_set1_ps(static_cast<float>(q.offset)));
  r = _mm256_min_ps(_mm256_max_ps(r, _mm256_set1_ps(-128.0f)), _mm256_set1_ps(127.0f));
  const __m256i i = _mm256_cvttps_epi32(r);
  const __m128i p16 = _mm_packs_epi32(_mm256_castsi256_si128(i), _mm256_extracti128_si256(i, 1));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(out), _mm_packs_epi16(p16, p16));
}

// acc[o] += w[o] * v for o < n rounded down to 8 (returned): a separate
// multiply and add per lane, as Arm NN's scalar sum += w * x.
__attribute__((target("avx2"))) std::int64_t laneMulAdd(float* acc, const float* w, float v, std::int64_t n) {
  const __m256 vv = _mm256_set1_ps(v);
  std::int64_t o = 0;
  for (; o + 8 <= n; o += 8)
    _mm256_storeu_ps(acc + o, _mm256_add_ps(_mm256_loadu_ps(acc + o), _mm256_mul_ps(_mm256_loadu_ps(w + o), vv)));
  return o;
}

// dst[i] = decode(src[i]) for i < n rounded down to 8: (float)(q - offset)
// * scale, armnnDequantize's arithmetic, eight at a time.
__attribute__((target("avx2"))) std::int64_t decodeRow(const std::int8_t* src, std::int64_t n, Quant q, float* dst) {
  const __m256i offset = _mm256_set1_epi32(q.offset);
  const __m256 scale = _mm256_set1_ps(q.scale);
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i v = _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(src + i)));
    _mm256_storeu_ps(dst + i, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(v, offset)), scale));
  }
  return i;
}

// One output pixel of a depthwise layer with multiplier 1, channels in
// blocks of 8 held in a register: per lane the taps in Convolve's order
// (filter rows, then columns), positions outside the input skipped. rows[y]:
// the decoded input row of filter row y (null outside the input); cols[x]:
// the offset of column x's pixel in that row (-1 outside). Returns the
// channels done (a multiple of 8).
__attribute__((target("avx2"))) std::int64_t depthwisePixel(const float* lane_w, const float* const* rows,
                                                             const std::int64_t* cols, std::int64_t kh,
                                                             std::int64_t kw, std::int64_t oc_n, const float* bias,
                                                             Quant q, std::int8_t* out) {
  std::int64_t o = 0;
  for (; o + 8 <= oc_n; o += 8) {
    __m256 acc = _mm256_setzero_ps();
    for (std::int64_t y = 0; y < kh; ++y) {
      if (!rows[y]) continue;
      for (std::int64_t x = 0; x < kw; ++x) {
        if (cols[x] < 0) continue;
        const __m256 w = _mm256_loadu_ps(lane_w + (y * kw + x) * oc_n + o);
        acc = _mm256_add_ps(acc, _mm256_mul_ps(w, _mm256_loadu_ps(rows[y] + cols[x] + o)));
      }
    }
    if (bias) acc = _mm256_add_ps(acc, _mm256_loadu_ps(bias + o));
    encode8(acc, q, out + o);
  }
  return o;
}

// Four output pixels side by side, output channels [o0, o0 + 16): the
// convolution with weights read once for all four. patch holds the four
// pixels' decoded inputs, [K][4] in the summation order (input channel,
// filter row, column); each lane sums its K terms in that order, a separate
// multiply and add each. A position outside the input holds 0: w * 0 added
// leaves the sum's encoded value as Arm NN's loop, which adds the same zero.
constexpr std::int64_t kTilePixels = 4;
__attribute__((target("avx2"))) void convTile(const float* lane_w, std::int64_t oc_n, std::int64_t o0,
                                              const float* patch, std::int64_t k_n, const float* bias, Quant q,
                                              std::int8_t* out) {
  __m256 acc[kTilePixels][2];
  for (auto& a : acc) a[0] = a[1] = _mm256_setzero_ps();
  const float* w = lane_w + o0;
  for (std::int64_t k = 0; k < k_n; ++k, w += oc_n, patch += kTilePixels) {
    const __m256 w0 = _mm256_loadu_ps(w), w1 = _mm256_loadu_ps(w + 8);
    for (int p = 0; p < kTilePixels; ++p) {
      const __m256 v = _mm256_broadcast_ss(patch + p);
      acc[p][0] = _mm256_add_ps(acc[p][0], _mm256_mul_ps(w0, v));
      acc[p][1] = _mm256_add_ps(acc[p][1], _mm256_mul_ps(w1, v));
    }
  }
  for (int p = 0; p < kTilePixels; ++p) {
    __m256 a0 = acc[p][0], a1 = acc[p][1];
    if (bias) {
      a0 = _mm256_add_ps(a0, _mm256_loadu_ps(bias + o0));
      a1 = _mm256_add_ps(a1, _mm256_loadu_ps(bias + o0 + 8));
    }
    encode8(a0, q, out + p * oc_n + o0);
    encode8(a1, q, out + p * oc_n + o0 + 8);
  }
}

// convTile with 32 output channels in two AVX-512 registers: twice the
// lanes per multiply and add, the same order and roundings (this file is
// compiled without contraction into fused multiply-adds).
__attribute__((target("avx512f,avx512bw"))) void convTile512(const float* lane_w, std::int64_t oc_n, std::int64_t o0,
                                                             const float* patch, std::int64_t k_n, const float* bias,
                                                             Quant q, std::int8_t* out) {
  __m512 acc[kTilePixels][2];
  for (auto& a : acc) a[0] = a[1] = _mm512_setzero_ps();
  const float* w = lane_w + o0;
  for (std::int64_t k = 0; k < k_n; ++k, w += oc_n, patch += kTilePixels) {
    const __m512 w0 = _mm512_loadu_ps(w), w1 = _mm512_loadu_ps(w + 16);
    for (int p = 0; p < kTilePixels; ++p) {
      const __m512 v = _mm512_set1_ps(patch[p]);
      acc[p][0] = _mm512_add_ps(acc[p][0], _mm512_mul_ps(w0, v));
      acc[p][1] = _mm512_add_ps(acc[p][1], _mm512_mul_ps(w1, v));
    }
  }
  for (int p = 0; p < kTilePixels; ++p)
    for (int h = 0; h < 2; ++h) {
      __m512 a = acc[p][h];
      if (bias) a = _mm512_add_ps(a, _mm512_loadu_ps(bias + o0 + 16 * h));
      std::int8_t* y = out + p * oc_n + o0 + 16 * h;
      alignas(64) float halves[16];
      _mm512_store_ps(halves, a);
      encode8(_mm256_load_ps(halves), q, y);
      encode8(_mm256_load_ps(halves + 8), q, y + 8);
    }
}

// out[o] = encode(acc[o] + bias[o]) for o < n rounded down to 8.
__attribute__((target("avx2"))) std::int64_t biasEncode(const float* acc, const float* bias, Quant q, std::int64_t n,
                                                         std::int8_t* out) {
  std::int64_t o = 0;
  for (; o + 8 <= n; o += 8) {
    __m256 v = _mm256_loadu_ps(acc + o);
    if (bias) v = _mm256_add_ps(v, _mm256_loadu_ps(bias + o));
    encode8(v, q, out + o);
  }
  return o;
}
#endif

#ifdef GDS_ARMNN_AVX2
// What Conv::run's vector row paths read of the layer.
struct ConvKernel {
  const ops::ConvGeometry& s;
  std::int64_t oc_n, k_n;
  const float* lane_weights;
  const float* bias;  // null: none
  const DecodeTable& input_table;
  Quant input, output;
};

// One output row's pixels four at a time (convTile, convTile512 with
// AVX-512): the weights read once per tile instead of once per pixel.
// Returns the first pixel left for the plain loop.
std::int64_t tiledRow(const ConvKernel& k, const std::int8_t* input, std::int64_t row, std::int64_t b, std::int64_t oy,
                      bool avx512, float* patch, std::int8_t* output) {
  const ops::ConvGeometry& s = k.s;
  const std::int64_t oc_n = k.oc_n;
  std::int64_t ox = 0;
  for (; ox + kTilePixels <= s.out_w; ox += kTilePixels) {
    float* v = patch;
    for (std::int64_t c = 0; c < s.in_c; ++c)
      for (std::int64_t y = 0; y < s.filter_h; ++y) {
        const std::int64_t iy = oy * s.stride_h + y * s.dilation_h - s.pad_top;
        for (std::int64_t x = 0; x < s.filter_w; ++x, v += kTilePixels)
          for (std::int64_t p = 0; p < kTilePixels; ++p) {
            const std::int64_t ix = (ox + p) * s.stride_w + x * s.dilation_w - s.pad_left;
            v[p] = iy < 0 || iy >= s.in_h || ix < 0 || ix >= s.in_w
                       ? 0.0f
                       : decode(k.input_table, input[((b * s.in_h + iy) * s.in_w + ix) * s.in_c + c]);
          }
      }
    std::int8_t* out = output + (row * s.out_w + ox) * oc_n;
    std::int64_t o = 0;
    if (avx512)
      for (; o + 32 <= oc_n; o += 32) convTile512(k.lane_weights, oc_n, o, patch, k.k_n, k.bias, k.output, out);
    for (; o + 16 <= oc_n; o += 16) convTile(k.lane_weights, oc_n, o, patch, k.k_n, k.bias, k.output, out);
    // The last channels one by one, in the same order.
    for (; o < oc_n; ++o)
      for (std::int64_t p = 0; p < kTilePixels; ++p) {
        float sum = 0.0f;
        for (std::int64_t i = 0; i < k.k_n; ++i) sum += k.lane_weights[i * oc_n + o] * patch[i * kTilePixels + p];
        if (k.bias) sum += k.bias[o];
        out[p * oc_n + o] = encode(sum, k.output);
      }
  }
  return ox;
}

// A depthwise row with multiplier 1: the filter rows' input rows decoded
// once for the whole output row, channels in registers (depthwisePixel).
// Returns the row's width (every pixel done).
std::int64_t decodedDepthwiseRow(const ConvKernel& k, const std::int8_t* input, std::int64_t row, std::int64_t b,
                                 std::int64_t oy, float* decoded, std::int8_t* output) {
  const ops::ConvGeometry& s = k.s;
  const std::int64_t oc_n = k.oc_n;
  std::vector<const float*> rows(static_cast<std::size_t>(s.filter_h), nullptr);
  for (std::int64_t y = 0; y < s.filter_h; ++y) {
    const std::int64_t iy = oy * s.stride_h + y * s.dilation_h - s.pad_top;
    if (iy < 0 || iy >= s.in_h) continue;
    float* d = decoded + y * s.in_w * oc_n;
    const std::int8_t* src = input + (b * s.in_h + iy) * s.in_w * oc_n;
    for (std::int64_t i = decodeRow(src, s.in_w * oc_n, k.input, d); i < s.in_w * oc_n; ++i)
      d[i] = decode(k.input_table, src[i]);
    rows[static_cast<std::size_t>(y)] = d;
  }
  std::vector<std::int64_t> cols(static_cast<std::size_t>(s.filter_w));
  for (std::int64_t ox = 0; ox < s.out_w; ++ox) {
    for (std::int64_t x = 0; x < s.filter_w; ++x) {
      const std::int64_t ix = ox * s.stride_w + x * s.dilation_w - s.pad_left;
      cols[static_cast<std::size_t>(x)] = ix < 0 || ix >= s.in_w ? -1 : ix * oc_n;
    }
    std::int8_t* out = output + (row * s.out_w + ox) * oc_n;
    std::int64_t o =
        depthwisePixel(k.lane_weights, rows.data(), cols.data(), s.filter_h, s.filter_w, oc_n, k.bias, k.output, out);
    for (; o < oc_n; ++o) {
      float sum = 0.0f;
      for (std::int64_t y = 0; y < s.filter_h; ++y)
        for (std::int64_t x = 0; x < s.filter_w; ++x)
          if (rows[static_cast<std::size_t>(y)] && cols[static_cast<std::size_t>(x)] >= 0)
            sum += k.lane_weights[(y * s.filter_w + x) * oc_n + o] *
                   rows[static_cast<std::size_t>(y)][cols[static_cast<std::size_t>(x)] + o];
      if (k.bias) sum += k.bias[o];
      out[o] = encode(sum, k.output);
    }
  }
  return s.out_w;
}
#endif

}  // namespace

void Conv::run(const std::int8_t* input, std::int64_t row_begin, std::int64_t row_end, std::int8_t* output) const {
  const ops::ConvGeometry& s = s_;
  const std::int64_t oc_n = out_channels_;
  const std::int64_t multiplier = depthwise_ ? s.out_c : 1;
  std::vector<float> acc(static_cast<std::size_t>(oc_n));
#ifdef GDS_ARMNN_AVX2
  const bool avx2 = cpuHasAvx2();
  // A convolution with 16 or more output channels: four pixels at a time
  // (convTile), the weights read once per tile instead of once per pixel.
  const bool tiled = avx2 && !depthwise_ && oc_n >= 16 && s.out_w >= kTilePixels;
  const bool avx512 = tiled && cpuHasAvx512();
  // A depthwise layer with multiplier 1: rows decoded once, channels in registers (depthwisePixel).
  const bool decoded_rows = avx2 && depthwise_ && multiplier == 1;
  std::vector<float> decoded(decoded_rows ? static_cast<std::size_t>(s.filter_h * s.in_w * oc_n) : 0);
  const std::int64_t k_n = s.in_c * s.filter_h * s.filter_w;
  std::vector<float> patch(tiled ? static_cast<std::size_t>(k_n * kTilePixels) : 0);
  const ConvKernel k{s, oc_n, k_n, lane_weights_.data(), bias_.empty() ? nullptr : bias_.data(), input_table_,
                     input_, output_};
#endif
  for (std::int64_t row = row_begin; row < row_end; ++row) {
    const std::int64_t b = row / s.out_h, oy = row % s.out_h;
    std::int64_t ox = 0;
#ifdef GDS_ARMNN_AVX2
    if (tiled) ox = tiledRow(k, input, row, b, oy, avx512, patch.data(), output);
    if (decoded_rows) ox = decodedDepthwiseRow(k, input, row, b, oy, decoded.data(), output);
#endif
    for (; ox < s.out_w; ++ox) {
      std::fill(acc.begin(), acc.end(), 0.0f);
      // Per lane (output channel) the order of Convolve: input channels,
      // then filter rows, then columns (a depthwise lane has one channel).
      const std::int64_t channels = depthwise_ ? 1 : s.in_c;
      for (std::int64_t c = 0; c < channels; ++c)
        for (std::int64_t y = 0; y < s.filter_h; ++y) {
          const std::int64_t iy = oy * s.stride_h + y * s.dilation_h - s.pad_top;
          if (iy < 0 || iy >= s.in_h) continue;
          for (std::int64_t x = 0; x < s.filter_w; ++x) {
            const std::int64_t ix = ox * s.stride_w + x * s.dilation_w - s.pad_left;
            if (ix < 0 || ix >= s.in_w) continue;
            const std::int8_t* pixel = input + ((b * s.in_h + iy) * s.in_w + ix) * s.in_c;
            const float* w = lane_weights_.data() + ((c * s.filter_h + y) * s.filter_w + x) * oc_n;
            std::int64_t o = 0;
            if (!depthwise_) {
              const float v = decode(input_table_, pixel[c]);
#ifdef GDS_ARMNN_AVX2
              if (avx2) o = laneMulAdd(acc.data(), w, v, oc_n);
#endif
              for (; o < oc_n; ++o) acc[static_cast<std::size_t>(o)] += w[o] * v;
            } else if (multiplier == 1) {
              for (; o < oc_n; ++o) acc[static_cast<std::size_t>(o)] += w[o] * decode(input_table_, pixel[o]);
            } else {
              for (; o < oc_n; ++o) acc[static_cast<std::size_t>(o)] += w[o] * decode(input_table_, pixel[o / multiplier]);
            }
          }
        }
      std::int8_t* out = output + (row * s.out_w + ox) * oc_n;
      std::int64_t o = 0;
#ifdef GDS_ARMNN_AVX2
      if (avx2) o = biasEncode(acc.data(), bias_.empty() ? nullptr : bias_.data(), output_, oc_n, out);
#endif
      for (; o < oc_n; ++o) {
        float v = acc[static_cast<std::size_t>(o)];
        if (!bias_.empty()) v += bias_[static_cast<std::size_t>(o)];
        out[o] = encode(v, output_);
      }
    }
  }
}

FullyConnected::FullyConnected(std::int64_t depth, std::int64_t units, const std::int8_t* weights,
                               const std::vector<float>& weight_scales, std::int32_t weight_offset,
                               const std::int32_t* bias, const std::vector<float>& bias_scales, Quant input,
                               Quant output)
    : depth_(depth), units_(units), input_table_(decodeTable(input)), output_(output) {
  weights_.resize(static_cast<std::size_t>(depth * units));
  for (std::int64_t u = 0; u < units; ++u)
    for (std::int64_t k = 0; k < depth; ++k)
      weights_[static_cast<std::size_t>(k * units + u)] =
          armnnDequantize(weights[u * depth + k], weightScale(weight_scales, u), weight_offset);
  bias_ = decodeBias(bias, bias_scales, units);
}

void FullyConnected::run(const std::int8_t* input, std::int64_t batch, std::int8_t* output) const {
  std::vector<float> acc(static_cast<std::size_t>(units_));
#ifdef GDS_ARMNN_AVX2
  const bool avx2 = cpuHasAvx2();
#endif
  for (std::int64_t n = 0; n < batch; ++n) {
    std::fill(acc.begin(), acc.end(), 0.0f);
    for (std::int64_t k = 0; k < depth_; ++k) {
      const float v = decode(input_table_, input[n * depth_ + k]);
      const float* w = weights_.data() + k * units_;
      std::int64_t u = 0;
#ifdef GDS_ARMNN_AVX2
      if (avx2) u = laneMulAdd(acc.data(), w, v, units_);
#endif
      for (; u < units_; ++u) acc[static_cast<std::size_t>(u)] += w[u] * v;
    }
    std::int8_t* out = output + n * units_;
    std::int64_t u = 0;
#ifdef GDS_ARMNN_AVX2
    if (avx2) u = biasEncode(acc.data(), bias_.empty() ? nullptr : bias_.data(), output_, units_, out);
#endif
    for (; u < units_; ++u) {
      float v = acc[static_cast<std::size_t>(u)];
      if (!bias_.empty()) v += bias_[static_cast<std::size_t>(u)];
      out[u] = encode(v, output_);
    }
  }
}

namespace {

// Pooling2d's window of output (oy, ox): the input rows [h0, h1) and
// columns [w0, w1) inside the input and the divisor (Exclude: the cells
// inside). False when the window covers padding only (the output is then
// the encoded 0.0f).
bool poolWindow(const ops::ConvGeometry& s, std::int64_t oy, std::int64_t ox, std::int64_t* h0, std::int64_t* h1,
                std::int64_t* w0, std::int64_t* w1) {
  *h0 = oy * s.stride_h - s.pad_top;
  *h1 = *h0 + s.filter_h;
  *w0 = ox * s.stride_w - s.pad_left;
  *w1 = *w0 + s.filter_w;
  if (*h1 <= 0 || *h0 > s.in_h || *w1 <= 0 || *w0 > s.in_w) return false;
  *h0 = std::min(std::max<std::int64_t>(*h0, 0), s.in_h);
  *h1 = std::min(std::max<std::int64_t>(*h1, 0), s.in_h);
  *w0 = std::min(std::max<std::int64_t>(*w0, 0), s.in_w);
  *w1 = std::min(std::max<std::int64_t>(*w1, 0), s.in_w);
  return true;
}

}  // namespace

namespace {

// The window loop both pools share: each output pixel's window, its values
// decoded and folded per channel by fold(acc, v) from `start`, then
// finish(acc, area) encoded. A pixel without a window (and, with
// `empty_is_zero`, one whose window is empty) is 0.
template <typename Fold, typename Finish>
void poolWindows(const ops::ConvGeometry& s, Quant input, Quant output, const std::int8_t* in, std::int8_t* out,
                 bool empty_is_zero, float start, Fold fold, Finish finish) {
  const DecodeTable t = decodeTable(input);
  const std::int64_t c_n = s.in_c;
  std::vector<float> acc(static_cast<std::size_t>(c_n));
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t oy = 0; oy < s.out_h; ++oy)
      for (std::int64_t ox = 0; ox < s.out_w; ++ox) {
        std::int8_t* o = out + ((b * s.out_h + oy) * s.out_w + ox) * c_n;
        std::int64_t h0, h1, w0, w1;
        if (!poolWindow(s, oy, ox, &h0, &h1, &w0, &w1) || (empty_is_zero && (h1 <= h0 || w1 <= w0))) {
          for (std::int64_t c = 0; c < c_n; ++c) o[c] = encode(0.0f, output);
          continue;
        }
        std::fill(acc.begin(), acc.end(), start);
        for (std::int64_t y = h0; y < h1; ++y)
          for (std::int64_t x = w0; x < w1; ++x) {
            const std::int8_t* p = in + ((b * s.in_h + y) * s.in_w + x) * c_n;
            for (std::int64_t c = 0; c < c_n; ++c) fold(acc[static_cast<std::size_t>(c)], decode(t, p[c]));
          }
        const auto area = static_cast<float>((h1 - h0) * (w1 - w0));
        for (std::int64_t c = 0; c < c_n; ++c) o[c] = encode(finish(acc[static_cast<std::size_t>(c)], area), output);
      }
}

}  // namespace

void averagePool(const ops::ConvGeometry& s, Quant input, Quant output, const std::int8_t* in, std::int8_t* out) {
  poolWindows(
      s, input, output, in, out, true, 0.0f, [](float& acc, float v) { acc += v; },
      [](float acc, float area) { return acc / area; });
}

void maxPool(const ops::ConvGeometry& s, Quant input, Quant output, const std::int8_t* in, std::int8_t* out) {
  poolWindows(
      s, input, output, in, out, false, std::numeric_limits<float>::lowest(),
      [](float& acc, float v) {
        if (v > acc) acc = v;
      },
      [](float acc, float) { return acc; });
}

void softmax(Quant input, Quant output, float beta, const std::int8_t* in, std::int64_t rows, std::int64_t depth,
             std::int8_t* out) {
  const DecodeTable t = decodeTable(input);
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int8_t* x = in + r * depth;
    float max_value = std::numeric_limits<float>::lowest();
    for (std::int64_t i = 0; i < depth; ++i) max_value = std::max(max_value, decode(t, x[i]));
    float sum = 0.0f;
    for (std::int64_t i = 0; i < depth; ++i) sum += std::exp((decode(t, x[i]) - max_value) * beta);
    for (std::int64_t i = 0; i < depth; ++i)
      out[r * depth + i] = encode(std::exp((decode(t, x[i]) - max_value) * beta) / sum, output);
  }
}

void mean(Quant input, Quant output, const std::int8_t* in, std::int64_t outer, std::int64_t inner,
          std::int64_t trailing, std::int8_t* out) {
  const DecodeTable t = decodeTable(input);
  std::vector<float> sum(static_cast<std::size_t>(trailing));
  const auto count = static_cast<float>(inner);
  for (std::int64_t o = 0; o < outer; ++o) {
    std::fill(sum.begin(), sum.end(), 0.0f);
    for (std::int64_t i = 0; i < inner; ++i)
      for (std::int64_t k = 0; k < trailing; ++k) sum[static_cast<std::size_t>(k)] += decode(t, in[(o * inner + i) * trailing + k]);
    for (std::int64_t k = 0; k < trailing; ++k) out[o * trailing + k] = encode(sum[static_cast<std::size_t>(k)] / count, output);
  }
}

namespace {

float lerp(float a, float b, float w) { return w * b + (1.f - w) * a; }

float resizeScale(std::int64_t in, std::int64_t out, bool align_corners) {
  return align_corners && out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                                  : static_cast<float>(in) / static_cast<float>(out);
}

}  // namespace

void resizeBilinear(Quant input, Quant output, const std::int8_t* in, std::int64_t batch, std::int64_t in_h,
                    std::int64_t in_w, std::int64_t channels, std::int64_t out_h, std::int64_t out_w,
                    bool align_corners, bool half_pixel_centers, std::int8_t* out) {
  const DecodeTable t = decodeTable(input);
  const float scale_y = resizeScale(in_h, out_h, align_corners), scale_x = resizeScale(in_w, out_w, align_corners);
  auto source = [&](std::int64_t o, float scale) {
    return half_pixel_centers ? (static_cast<float>(o) + 0.5f) * scale - 0.5f : static_cast<float>(o) * scale;
  };
  for (std::int64_t b = 0; b < batch; ++b)
    for (std::int64_t y = 0; y < out_h; ++y) {
      const float iy = source(y, scale_y);
      const float fiy = std::floor(iy);
      const auto y0 = static_cast<std::int64_t>(std::max(fiy, 0.0f));
      const float yw = iy - fiy;
      for (std::int64_t x = 0; x < out_w; ++x) {
        const float ix = source(x, scale_x);
        const float fix = std::floor(ix);
        const auto x0 = static_cast<std::int64_t>(std::max(fix, 0.0f));
        const float xw = ix - fix;
        std::int64_t x1, y1;
        if (half_pixel_centers) {
          x1 = std::min(static_cast<std::int64_t>(std::ceil(ix)), in_w - 1);
          y1 = std::min(static_cast<std::int64_t>(std::ceil(iy)), in_h - 1);
        } else {
          x1 = std::min(x0 + 1, in_w - 1);
          y1 = std::min(y0 + 1, in_h - 1);
        }
        auto at = [&](std::int64_t yy, std::int64_t xx, std::int64_t c) {
          return decode(t, in[((b * in_h + yy) * in_w + xx) * channels + c]);
        };
        for (std::int64_t c = 0; c < channels; ++c) {
          const float ly0 = lerp(at(y0, x0, c), at(y0, x1, c), xw);
          const float ly1 = lerp(at(y1, x0, c), at(y1, x1, c), xw);
          out[((b * out_h + y) * out_w + x) * channels + c] = encode(lerp(ly0, ly1, yw), output);
        }
      }
    }
}

}  // namespace gds::engine::lowp::armnn
