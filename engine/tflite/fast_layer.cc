// The fast path of TFLite's int8 CONV_2D, DEPTHWISE_CONV_2D and
// FULLY_CONNECTED (FastLayer, see fast.h): the AVX2 GEMM over blocks
// of im2col rows with the requantization in its store, the fused AVX2
// depthwise pass, and oneDNN / the engine's 8-bit GEMM elsewhere.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "engine/lowp/conv.h"
#include "engine/lowp/conv_dnnl.h"
#include "engine/lowp/cpu.h"
#include "engine/lowp/depthwise.h"
#include "engine/lowp/depthwise_avx2.h"
#include "engine/lowp/gemm.h"
#include "engine/lowp/im2col.h"
#include "engine/ops/conv_geometry.h"
#include "engine/tflite/fast.h"
#include "engine/tflite/multiplier.h"
#include "engine/thread_pool.h"

namespace gds::engine::tflite {

// The AVX2 depthwise layer (channel multiplier 1) with TFLite's
// requantization and clamp on the accumulators in registers: the shared
// core of depthwise_avx2.h on the int8 input as it is (its zero point is
// -input_offset), the requantization constants in the core's slot order.
class DepthwiseAvx2 {
 public:
  static constexpr std::int64_t kLanes = lowp::depthwise_avx2::kLanes;
  // Per block of channels, kLanes each in slot order: the starting
  // accumulators (offset * sum w + bias), the requantization's multiplier,
  // left shift, right shift, mask and half, and the short form's odd-lane
  // multiplier, left shift + 1, rounding addend and negative correction
  // (multiplier.h's mbqm8Narrow).
  static constexpr int kParams = 10;

  // False (nothing prepared) where the layer is not this kernel's: channel
  // multiplier other than 1, an input zero point outside int8, multipliers
  // the vector requantization cannot take, no AVX2.
  bool prepare(const ops::ConvGeometry& s, const Requant& r, const std::int8_t* filter) {
    if (source_ == filter && requant_ == &r && channels_ == s.in_c && taps_ == s.filter_h * s.filter_w) return ready_;
    source_ = filter;
    requant_ = &r;
    channels_ = s.in_c;
    taps_ = s.filter_h * s.filter_w;
    ready_ = false;
    max_left_ = 0;
#ifdef GDS_TFL_AVX2
    const auto c_n = static_cast<std::size_t>(s.in_c);
    if (!lowp::cpuHasAvx2() || s.out_c != 1 || taps_ < 1) return false;
    if (r.input_offset < -127 || r.input_offset > 128) return false;
    fp32_ = r.rounding == Rounding::kFp32;
    if (r.rounding == Rounding::kSingle) return false;
    if (fp32_ && r.scale.size() != 1 && r.scale.size() != c_n) return false;
    if (!fp32_ && (r.shift.size() != r.multiplier.size() || (r.multiplier.size() != 1 && r.multiplier.size() != c_n)))
      return false;
    for (std::size_t k = 0; !fp32_ && k < r.multiplier.size(); ++k)
      if (!validMultiplier(r.multiplier[k], r.shift[k])) return false;
    blocks_ = (s.in_c + kLanes - 1) / kLanes;
    pairs_ = (taps_ + 1) / 2;
    lowp::depthwise_avx2::packFilter(filter, taps_, s.in_c, &weights_, &offset_sum_);
    params_.assign(static_cast<std::size_t>(blocks_ * kParams * kLanes), 0);
    for (std::int64_t c = 0; c < s.in_c; ++c) {
      offset_sum_[static_cast<std::size_t>(c)] *= r.input_offset;
      std::int32_t* p = params_.data() + c / kLanes * kParams * kLanes + lane(c % kLanes);
      if (fp32_) {
        // Slot 1: XNNPACK's float scale (its bits).
        const float scale = r.scale[r.scale.size() == 1 ? 0 : static_cast<std::size_t>(c)];
        std::memcpy(p + kLanes, &scale, sizeof scale);
        continue;
      }
      const std::size_t k = r.multiplier.size() == 1 ? 0 : static_cast<std::size_t>(c);
      const Mbqm m = mbqmParams(r.multiplier[k], r.shift[k]);
      const MbqmNarrow n = mbqmNarrowParams(m);
      const std::int32_t values[kParams] = {0, m.multiplier, m.left, m.right, m.mask, m.half, 0, n.left1, n.round,
                                            n.negative};
      for (int j = 0; j < kParams; ++j) p[j * kLanes] = values[j];
      max_left_ = std::max(max_left_, m.left);
    }
    // The odd lanes' multipliers moved down one lane, per accumulator vector
    // (slots 0-7 and 8-15).
    for (std::int64_t b = 0; b < blocks_; ++b)
      for (std::int64_t j = 0; j < kLanes; j += 2)
        params_[static_cast<std::size_t>((b * kParams + 6) * kLanes + j)] =
            params_[static_cast<std::size_t>((b * kParams + 1) * kLanes + j + 1)];
    zero_row_.assign(static_cast<std::size_t>(blocks_ * kLanes), static_cast<std::int8_t>(-r.input_offset));
    ready_ = true;
#endif
    return ready_;
  }

  // Output rows [row_begin, row_end) (row = batch * out_h + y). setBias
  // first, once per run.
  // The short requantization when taps * |input + offset| * |weight| plus
  // the bias stays within its bound.
  void setBias(const std::int32_t* bias) {
    std::int64_t largest_bias = 0;
    for (std::int64_t c = 0; c < channels_; ++c) {
      params_[static_cast<std::size_t>(c / kLanes * kParams * kLanes + lane(c % kLanes))] =
          static_cast<std::int32_t>(static_cast<std::uint32_t>(offset_sum_[static_cast<std::size_t>(c)]) +
                                    static_cast<std::uint32_t>(bias ? bias[c] : 0));
      if (bias) largest_bias = std::max(largest_bias, std::abs(static_cast<std::int64_t>(bias[c])));
    }
    const std::int64_t input = std::max(std::abs(-128 + std::int64_t{requant_->input_offset}),
                                        std::abs(127 + std::int64_t{requant_->input_offset}));
    narrow_ = taps_ * input * 128 + largest_bias < (kNarrowLimit >> max_left_);
  }
  // Whether the last setBias chose the short requantization (tests).
  bool narrow() const { return narrow_; }
  void run(const ops::ConvGeometry& s, const Requant& r, const std::int8_t* input, std::int64_t row_begin,
           std::int64_t row_end, std::int8_t* output) const;

 private:
#ifdef GDS_TFL_AVX2
  __attribute__((target("avx2")))
#endif
  void runRows(const ops::ConvGeometry& s, const Requant& r, const std::int8_t* input, std::int64_t row_begin,
               std::int64_t row_end, std::int8_t* output) const;
  // kForm: 0 the general requantization, 1 the short one, 2 the short one
  // with left shifts, 3 XNNPACK's fp32 one.
  template <int kForm>
#ifdef GDS_TFL_AVX2
  __attribute__((target("avx2")))
#endif
  void runRowsAs(const ops::ConvGeometry& s, const Requant& r, const std::int8_t* input, std::int64_t row_begin,
                 std::int64_t row_end, std::int8_t* output) const;
  static std::int64_t lane(std::int64_t c) { return lowp::depthwise_avx2::slot(c); }

  const std::int8_t* source_ = nullptr;
  const Requant* requant_ = nullptr;
  std::int64_t channels_ = 0, taps_ = 0, blocks_ = 0, pairs_ = 0;
  std::int32_t max_left_ = 0;
  bool ready_ = false, narrow_ = false;
  bool fp32_ = false;  // XNNPACK's requantization (Rounding::kFp32): kForm 3
  std::vector<std::int16_t> weights_;
  std::vector<std::int32_t> params_;
  std::vector<std::int32_t> offset_sum_;  // per channel: offset * sum w
  std::vector<std::int8_t> zero_row_;
};

struct FastLayer::State {
  std::vector<std::uint8_t> input;    // x + 128
  std::vector<std::uint8_t> weights;  // w + 128 (conv, fully connected)
  const std::int8_t* weights_source = nullptr;
  std::unique_ptr<lowp::GemmRhs> rhs;
  lowp::Conv2DState conv;
  std::vector<std::int32_t> acc;
  const Requant* requant_source = nullptr;
  Requantizer requantizer;
  lowp::Avx2Gemm gemm;  // the AVX2 path's packed weights
  const std::int8_t* gemm_source = nullptr;
  std::int32_t gemm_weight_offset = 0;
  DepthwiseAvx2 depthwise;  // the AVX2 depthwise path's weights and constants
  lowp::Conv2DState requantizing;  // oneDNN's convolution writing int8 (XNNPACK's arithmetic)
  std::vector<std::int32_t> start;  // its sums' starting values per channel

  std::int64_t requant_depth = 0;

  // TFLite's conv filter [out_c, kh, kw, in_c] as the transposed (n x k)
  // GEMM operand, prepared once.
  const lowp::GemmRhs& rhsFor(const std::int8_t* filter, std::int64_t k, std::int64_t out_c);

  // The requantizer for r's values on `channels` channels of accumulators
  // over `depth` products (r is the layer's own, fixed after its init).
  const Requantizer& requantizerFor(const Requant& r, std::int64_t channels, std::int64_t depth, bool filter_offset) {
    if (requant_source != &r || requantizer.channels() != channels || requant_depth != depth) {
      requantizer = Requantizer(r, channels, depth * largestMagnitude(r.input_offset) *
                                                 largestMagnitude(filter_offset ? r.filter_offset : 0));
      requant_source = &r;
      requant_depth = depth;
    }
    return requantizer;
  }

  // The largest |v + offset| of an int8 v.
  static std::int64_t largestMagnitude(std::int32_t offset) {
    return std::max(std::abs(std::int64_t{-128} + offset), std::abs(std::int64_t{127} + offset));
  }
};

FastLayer::FastLayer(Kind kind) : kind_(kind), state_(std::make_unique<State>()) {}
FastLayer::~FastLayer() = default;

namespace {

void shiftInput(const std::int8_t* x, std::int64_t n, std::vector<std::uint8_t>* out) {
  out->resize(static_cast<std::size_t>(n));
  lowp::toUnsigned(x, n, out->data());
}

// The rows x channels accumulators of `acc`, bias added and requantized into
// output, on rows [begin, end).
lowp::GemmEpilogue requantizer(const Requantizer& q, const std::int32_t* acc, const std::int32_t* bias,
                         std::int8_t* output) {
  return [&q, acc, bias, output](std::int64_t begin, std::int64_t end) {
    q.run(acc + begin * q.channels(), bias, end - begin, output + begin * q.channels());
  };
}

}  // namespace

namespace {

// Rows per block of the AVX2 path: 20 tiles of 5 (the packed block of
// activations stays in L2, the accumulators in L1/L2 for the requantization).
constexpr std::int64_t kBlockRows = 100;

// rows x gemm.n() accumulators of `a` (or of the windows of `input` when
// `conv` is set) in blocks of rows over the pool, each block requantized
// into output while in cache.
void gemmBlocks(const lowp::Avx2Gemm& gemm, const Requantizer& q, const ops::ConvGeometry* conv, const std::int8_t* a,
                std::int64_t rows, std::int64_t lda, std::int32_t a_offset, const std::int32_t* bias,
                std::int8_t* output, const ThreadPool* pool) {
  const std::int64_t n = gemm.n(), k = gemm.k();
  // Smaller blocks when there are fewer than one per thread (ResNet's 7 x 7
  // layers), in multiples of the GEMM's 5-row tiles.
  const std::int64_t threads = pool ? pool->numThreads() : 1;
  const std::int64_t per_thread = ((rows + threads - 1) / threads + 4) / 5 * 5;
  const std::int64_t block_rows = std::max<std::int64_t>(5, std::min(kBlockRows, per_thread));
  const std::int64_t blocks = (rows + block_rows - 1) / block_rows;
  auto work = [&](std::int64_t b0, std::int64_t b1) {
    thread_local std::vector<std::int32_t> acc;
    thread_local std::vector<std::int8_t> patches;
    acc.resize(static_cast<std::size_t>(block_rows * n));
    for (std::int64_t blk = b0; blk < b1; ++blk) {
      const std::int64_t r0 = blk * block_rows, r1 = std::min(rows, r0 + block_rows);
      const std::int8_t* rows_a = a + r0 * lda;
      std::int64_t ld = lda;
      if (conv) {
        patches.resize(static_cast<std::size_t>(block_rows * k));
        lowp::im2colRows(*conv, a, static_cast<std::int8_t>(-a_offset), r0, r1, patches.data());
        rows_a = patches.data();
        ld = k;
      }
      gemm.run(rows_a, r1 - r0, ld, a_offset, acc.data());
      q.run(acc.data(), bias, r1 - r0, output + r0 * n);
    }
  };
  const double cost = static_cast<double>(block_rows * n * k) / 8;
  if (pool && pool->numThreads() > 1 && blocks > 1) pool->parallelFor(blocks, cost, work);
  else work(0, blocks);
}

}  // namespace

void DepthwiseAvx2::run(const ops::ConvGeometry& s, const Requant& r, const std::int8_t* input, std::int64_t row_begin,
                        std::int64_t row_end, std::int8_t* output) const {
#ifdef GDS_TFL_AVX2
  runRows(s, r, input, row_begin, row_end, output);
#else
  (void)s;
  (void)r;
  (void)input;
  (void)row_begin;
  (void)row_end;
  (void)output;
#endif
}

#ifdef GDS_TFL_AVX2
__attribute__((target("avx2"))) void DepthwiseAvx2::runRows(const ops::ConvGeometry& s, const Requant& r,
                                                            const std::int8_t* input, std::int64_t row_begin,
                                                            std::int64_t row_end, std::int8_t* output) const {
  if (fp32_) runRowsAs<3>(s, r, input, row_begin, row_end, output);
  else if (!narrow_) runRowsAs<0>(s, r, input, row_begin, row_end, output);
  else if (max_left_ == 0) runRowsAs<1>(s, r, input, row_begin, row_end, output);
  else runRowsAs<2>(s, r, input, row_begin, row_end, output);
}

template <int kForm>
__attribute__((target("avx2"))) void DepthwiseAvx2::runRowsAs(const ops::ConvGeometry& s, const Requant& r,
                                                              const std::int8_t* input, std::int64_t row_begin,
                                                              std::int64_t row_end, std::int8_t* output) const {
  const __m256i out_offset = _mm256_set1_epi32(r.output_offset);
  const __m256i lo = _mm256_set1_epi32(r.act_min), hi = _mm256_set1_epi32(r.act_max);
  const __m256 lo_f = _mm256_set1_ps(static_cast<float>(r.act_min - r.output_offset));
  const __m256 hi_f = _mm256_set1_ps(static_cast<float>(r.act_max - r.output_offset));
  const std::int64_t c_n = s.in_c;
  const std::int32_t* params = params_.data();
  lowp::depthwise_avx2::forEachBlock<std::int8_t>(
      s, input, zero_row_.data(), pairs_, weights_.data(), params, kParams * kLanes, row_begin, row_end,
      [&](std::int64_t pixel, std::int64_t blk, std::int64_t count, __m256i acc0, __m256i acc1)
          __attribute__((target("avx2"))) {
            // The slots after the starting accumulators, kLanes each (see kParams).
            const std::int32_t* q = params + blk * kParams * kLanes + kLanes;
            const auto slot = [q](int k, int half) __attribute__((target("avx2"))) {
              return loadI32(q + (k - 1) * kLanes + half * 8);
            };
            for (int h = 0; h < 2; ++h) {
              __m256i& acc = h == 0 ? acc0 : acc1;
              if (kForm == 3) {
                __m256 f = _mm256_mul_ps(_mm256_cvtepi32_ps(acc), _mm256_castsi256_ps(slot(1, h)));
                f = _mm256_min_ps(_mm256_max_ps(f, lo_f), hi_f);
                acc = _mm256_add_epi32(_mm256_cvtps_epi32(f), out_offset);
                continue;
              }
              if (kForm == 0)
                acc = mbqm8(acc, slot(1, h), slot(2, h), slot(3, h), slot(4, h), slot(5, h));
              else
                acc = mbqm8Narrow<kForm == 2>(acc, slot(1, h), slot(6, h), slot(7, h), slot(8, h), slot(9, h),
                                              slot(3, h));
              acc = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(acc, out_offset), lo), hi);
            }
            const __m256i words = _mm256_packs_epi32(acc0, acc1);  // channels 0-7 | 8-15
            const __m128i bytes = _mm_packs_epi16(_mm256_castsi256_si128(words), _mm256_extracti128_si256(words, 1));
            lowp::depthwise_avx2::storeFirst(output + pixel * c_n + blk * kLanes, bytes,
                                             static_cast<std::size_t>(count));
          });
}
#endif  // GDS_TFL_AVX2

const lowp::GemmRhs& FastLayer::State::rhsFor(const std::int8_t* filter, std::int64_t k, std::int64_t out_c) {
  if (!rhs || weights_source != filter || rhs->n() != out_c || rhs->k() != k) {
    shiftInput(filter, k * out_c, &weights);
    rhs = std::make_unique<lowp::GemmRhs>(weights.data(), k, out_c, k, true, 128);
    weights_source = filter;
  }
  return *rhs;
}

bool FastLayer::convRequantizing(const ops::ConvGeometry& s, const Requant& r, const std::int8_t* input,
                                 const std::int8_t* filter, const std::int32_t* bias, std::int8_t* output,
                                 const ThreadPool* pool) {
  State& st = *state_;
  const std::int32_t input_zero = 128 - r.input_offset;
  if (input_zero < 0 || input_zero > 255) return false;
  const bool depthwise = kind_ == Kind::kDepthwise;
  // TFLite's depthwise filter [1, fh, fw, c * multiplier] is oneDNN's as it is.
  const std::int8_t* weights =
      depthwise ? filter : st.rhsFor(filter, s.filter_h * s.filter_w * s.in_c, s.out_c).s8();
  const int threads = pool ? pool->numThreads() : 1;
  const lowp::DnnlConv2D* dnnl = st.requantizing.dnnlFor(
      {s.batch, s.in_h, s.in_w, s.in_c, s.out_h, s.out_w, s.out_c, s.filter_h, s.filter_w, s.stride_h, s.stride_w,
       s.pad_top, s.pad_left, s.dilation_h, s.dilation_w, threads, reinterpret_cast<std::int64_t>(filter),
       reinterpret_cast<std::int64_t>(&r)},
      [&] {
        lowp::DnnlConv2D::Requantization q;
        q.scale = r.scale;
        q.zero_point = r.output_offset;
        q.qmin = r.act_min;
        q.qmax = r.act_max;
        return weights ? lowp::DnnlConv2D::createRequantizing(s, weights, depthwise, q, threads) : nullptr;
      });
  if (!dnnl || !dnnl->startingSums(input_zero, bias, &st.start)) return false;
  dnnl->runRequantizing(input, input_zero, st.start, output, pool);
  return true;
}

void FastLayer::conv(const ops::ConvGeometry& s, const Requant& r, const std::int8_t* input, const std::int8_t* filter,
                     const std::int32_t* bias, std::int8_t* output, const ThreadPool* pool) {
  State& st = *state_;
  const lowp::GemmBackend backend = lowp::defaultGemmBackend();
  const std::int64_t rows = s.batch * s.out_h * s.out_w;
  const std::int64_t channels = s.outputChannels(kind_ == Kind::kDepthwise);
  if (kind_ == Kind::kConv && backend == lowp::GemmBackend::kAvx2 && lowp::Avx2Gemm::available()) {
    // The avx2 backend (no VNNI here for oneDNN; gemmlowp's portable build
    // has no AVX2 kernel) on the int8 values as they are, with TFLite's
    // [out_c][k] filter packed directly, im2col by block of rows.
    const std::int64_t k = s.filter_h * s.filter_w * s.in_c;
    if (st.gemm_source != filter || st.gemm.n() != s.out_c || st.gemm.k() != k || st.gemm_weight_offset != 0) {
      st.gemm.packWeights(filter, s.out_c, k, 0);
      st.gemm_source = filter;
      st.gemm_weight_offset = 0;
    }
    last_ = "avx2";
    const bool pointwise = s.filter_h == 1 && s.filter_w == 1 && s.stride_h == 1 && s.stride_w == 1 && s.pad_top == 0 &&
                           s.pad_left == 0 && s.out_h == s.in_h && s.out_w == s.in_w;
    gemmBlocks(st.gemm, st.requantizerFor(r, s.out_c, k, false), pointwise ? nullptr : &s, input, rows, s.in_c,
               r.input_offset, bias, output, pool);
    return;
  }
  // XNNPACK's arithmetic: oneDNN writes the int8 output itself where that
  // is exact. Depthwise layers take it at stride 1 and on large outputs,
  // where it beats the AVX2 pass below (measured on MobileNet 1.0/224 with
  // AVX-512 VNNI, AVX2 pass against oneDNN: 0.22 against 0.12 ms on its
  // first, 112 x 112 x 32 layer; 0.020 against 0.026 ms on its 14 x 14 x 256
  // stride-2 one, which keeps the AVX2 pass).
  const bool dnnl_depthwise = kind_ == Kind::kDepthwise &&
                              ((s.stride_h == 1 && s.stride_w == 1) || s.out_h * s.out_w >= 56 * 56);
  if ((kind_ == Kind::kConv || dnnl_depthwise) && backend == lowp::GemmBackend::kDnnl &&
      r.rounding == Rounding::kFp32 && convRequantizing(s, r, input, filter, bias, output, pool)) {
    last_ = "dnnl-requantizing";
    return;
  }
  if (kind_ == Kind::kDepthwise && st.depthwise.prepare(s, r, filter)) {
    // The fused AVX2 depthwise pass on the int8 input as it is, also where
    // oneDNN has VNNI kernels: no input shift and no separate
    // requantization pass over int32 accumulators.
    last_ = "avx2";
    st.depthwise.setBias(bias);
    auto band = [&](std::int64_t begin, std::int64_t end) { st.depthwise.run(s, r, input, begin, end, output); };
    const double cost = static_cast<double>(s.out_w * channels * s.filter_h * s.filter_w) / 8;
    if (pool) pool->parallelFor(s.batch * s.out_h, cost, band);
    else band(0, s.batch * s.out_h);
    return;
  }
  shiftInput(input, s.batch * s.in_h * s.in_w * s.in_c, &st.input);
  const std::int32_t input_zero = 128 - r.input_offset;
  st.acc.resize(static_cast<std::size_t>(rows * channels));
  std::int32_t* acc = st.acc.data();
  const std::int64_t depth = kind_ == Kind::kDepthwise ? s.filter_h * s.filter_w : s.filter_h * s.filter_w * s.in_c;
  const lowp::GemmEpilogue epilogue = requantizer(st.requantizerFor(r, channels, depth, false), acc, bias, output);
  const int threads = pool ? pool->numThreads() : 1;
  if (kind_ == Kind::kDepthwise) {
    if (backend == lowp::GemmBackend::kDnnl) {
      const lowp::DnnlConv2D* dnnl =
          st.conv.dnnlFor({s.batch, s.in_h, s.in_w, s.in_c, threads, reinterpret_cast<std::int64_t>(filter)},
                          [&] { return lowp::DnnlConv2D::create(s, filter, 0, true, threads); });
      if (dnnl) {
        last_ = "dnnl";
        dnnl->run(st.input.data(), input_zero, acc, pool, epilogue);
        return;
      }
    }
    last_ = "loop";
    const std::uint8_t* x = st.input.data();
    auto band = [&](std::int64_t begin, std::int64_t end) {
      if (!lowp::depthwiseRowsFast(s, x, input_zero, filter, begin, end, acc))
        lowp::depthwiseRowsReference(s, x, input_zero, filter, begin, end, acc);
      epilogue(begin * s.out_w, end * s.out_w);
    };
    const double cost = static_cast<double>(s.out_w * channels * s.filter_h * s.filter_w);
    if (pool) pool->parallelFor(s.batch * s.out_h, cost, band);
    else band(0, s.batch * s.out_h);
    return;
  }
  // TFLite's conv filter [out_c, kh, kw, in_c] is the transposed (n x k)
  // GEMM operand.
  const lowp::GemmRhs& rhs = st.rhsFor(filter, s.filter_h * s.filter_w * s.in_c, s.out_c);
  st.conv.weights_constant = true;
  last_ = lowp::gemmBackendName(backend);
  lowp::conv2D(backend, s, st.input.data(), input_zero, rhs, acc, pool, &st.conv, epilogue);
}

void FastLayer::fullyConnected(const Requant& r, const std::int8_t* input, const std::int8_t* weights,
                               const std::int32_t* bias, std::int64_t batch, std::int64_t depth, std::int64_t units,
                               std::int8_t* output, const ThreadPool* pool) {
  State& st = *state_;
  if (lowp::defaultGemmBackend() == lowp::GemmBackend::kAvx2 && lowp::Avx2Gemm::available()) {
    if (st.gemm_source != weights || st.gemm.n() != units || st.gemm.k() != depth ||
        st.gemm_weight_offset != r.filter_offset) {
      st.gemm.packWeights(weights, units, depth, r.filter_offset);
      st.gemm_source = weights;
      st.gemm_weight_offset = r.filter_offset;
    }
    last_ = "avx2";
    gemmBlocks(st.gemm, st.requantizerFor(r, units, depth, true), nullptr, input, batch, depth, r.input_offset, bias,
               output, pool);
    return;
  }
  shiftInput(input, batch * depth, &st.input);
  const std::int32_t weight_zero = 128 - r.filter_offset;
  if (!st.rhs || st.weights_source != weights || st.rhs->n() != units || st.rhs->k() != depth ||
      st.rhs->zeroPoint() != weight_zero) {
    shiftInput(weights, depth * units, &st.weights);
    st.rhs = std::make_unique<lowp::GemmRhs>(st.weights.data(), depth, units, depth, true, weight_zero);
    st.weights_source = weights;
  }
  st.acc.resize(static_cast<std::size_t>(batch * units));
  lowp::GemmLhs lhs;
  lhs.data = st.input.data();
  lhs.m = batch;
  lhs.k = depth;
  lhs.lda = depth;
  lhs.zero_point = 128 - r.input_offset;
  const lowp::GemmBackend backend = lowp::defaultGemmBackend();
  last_ = lowp::gemmBackendName(backend);
  lowp::gemm(backend, lhs, *st.rhs, st.acc.data(), units, pool,
       requantizer(st.requantizerFor(r, units, depth, true), st.acc.data(), bias, output));
}

}  // namespace gds::engine::tflite
