// The fast path of TFLite's int8 layers (see tflite_fast.h).
#include "engine/quantized/tflite_fast.h"

#include <vector>

#include "engine/ops/conv.h"
#include "engine/quantized/conv_dnnl.h"
#include "engine/quantized/gemm.h"
#include "engine/quantized/ops.h"
#include "engine/quantized/per_channel.h"
#include "engine/thread_pool.h"

namespace gds::engine::quantized::tfl {

struct FastLayer::State {
  std::vector<std::uint8_t> input;    // x + 128
  std::vector<std::uint8_t> weights;  // w + 128 (conv, fully connected)
  const std::int8_t* weights_source = nullptr;
  std::unique_ptr<GemmRhs> rhs;
  Conv2DState conv;
  std::vector<std::int32_t> acc;
};

FastLayer::FastLayer(Kind kind) : kind_(kind), state_(std::make_unique<State>()) {}
FastLayer::~FastLayer() = default;

namespace {

void shiftInput(const std::int8_t* x, std::int64_t n, std::vector<std::uint8_t>* out) {
  out->resize(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    (*out)[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(static_cast<int>(x[i]) + 128);
}

// The rows x channels accumulators of `acc`, bias added and requantized into
// output, on rows [begin, end).
GemmEpilogue requantizer(const Requant& r, const std::int32_t* acc, const std::int32_t* bias, std::int64_t channels,
                         std::int8_t* output) {
  return [&r, acc, bias, channels, output](std::int64_t begin, std::int64_t end) {
    requantizeRows(r, acc + begin * channels, bias, end - begin, channels, output + begin * channels);
  };
}

}  // namespace

void FastLayer::conv(const ConvShape& s, const Requant& r, const std::int8_t* input, const std::int8_t* filter,
                     const std::int32_t* bias, std::int8_t* output, const ThreadPool* pool) {
  State& st = *state_;
  shiftInput(input, s.batch * s.in_h * s.in_w * s.in_c, &st.input);
  const std::int32_t input_zero = 128 - r.input_offset;
  ops::Conv2DShape c;
  c.batch = s.batch;
  c.in_h = s.in_h;
  c.in_w = s.in_w;
  c.in_c = s.in_c;
  c.filter_h = s.k_h;
  c.filter_w = s.k_w;
  c.out_c = kind_ == Kind::kDepthwise ? s.depth_multiplier : s.out_c;
  c.stride_h = s.stride_h;
  c.stride_w = s.stride_w;
  c.dilation_h = s.dil_h;
  c.dilation_w = s.dil_w;
  c.pad_top = s.pad_top;
  c.pad_left = s.pad_left;
  c.out_h = s.out_h;
  c.out_w = s.out_w;
  const std::int64_t rows = s.batch * s.out_h * s.out_w;
  st.acc.resize(static_cast<std::size_t>(rows * s.out_c));
  std::int32_t* acc = st.acc.data();
  const GemmEpilogue epilogue = requantizer(r, acc, bias, s.out_c, output);
  const GemmBackend backend = defaultGemmBackend();
  const int threads = pool ? pool->numThreads() : 1;
  if (kind_ == Kind::kDepthwise) {
    // TFLite's depthwise filter [1, kh, kw, in_c * multiplier] is the
    // engine's [kh, kw, in_c, multiplier].
    if (backend == GemmBackend::kDnnl) {
      const DnnlConv2D* dnnl =
          st.conv.dnnlFor({s.batch, s.in_h, s.in_w, s.in_c, threads, reinterpret_cast<std::int64_t>(filter)},
                          [&] { return DnnlConv2D::create(c, filter, 0, true, threads); });
      if (dnnl) {
        last_ = "dnnl";
        dnnl->run(st.input.data(), input_zero, acc, pool, epilogue);
        return;
      }
    }
    last_ = "loop";
    const std::uint8_t* x = st.input.data();
    auto band = [&](std::int64_t begin, std::int64_t end) {
      if (!depthwiseRowsFast(c, x, input_zero, filter, begin, end, acc))
        depthwiseRowsReference(c, x, input_zero, filter, begin, end, acc);
      epilogue(begin * s.out_w, end * s.out_w);
    };
    const double cost = static_cast<double>(s.out_w * s.out_c * s.k_h * s.k_w);
    if (pool) pool->parallelFor(s.batch * s.out_h, cost, band);
    else band(0, s.batch * s.out_h);
    return;
  }
  // TFLite's conv filter [out_c, kh, kw, in_c] is the transposed (n x k)
  // GEMM operand.
  const std::int64_t k = s.k_h * s.k_w * s.in_c;
  if (!st.rhs || st.weights_source != filter || st.rhs->n() != s.out_c || st.rhs->k() != k) {
    shiftInput(filter, k * s.out_c, &st.weights);
    st.rhs = std::make_unique<GemmRhs>(st.weights.data(), k, s.out_c, k, true, 128);
    st.weights_source = filter;
  }
  st.conv.weights_constant = true;
  last_ = gemmBackendName(backend);
  conv2D(backend, c, st.input.data(), input_zero, *st.rhs, acc, pool, &st.conv, epilogue);
}

void FastLayer::fullyConnected(const Requant& r, const std::int8_t* input, const std::int8_t* weights,
                               const std::int32_t* bias, std::int64_t batch, std::int64_t depth, std::int64_t units,
                               std::int8_t* output, const ThreadPool* pool) {
  State& st = *state_;
  shiftInput(input, batch * depth, &st.input);
  const std::int32_t weight_zero = 128 - r.filter_offset;
  if (!st.rhs || st.weights_source != weights || st.rhs->n() != units || st.rhs->k() != depth ||
      st.rhs->zeroPoint() != weight_zero) {
    shiftInput(weights, depth * units, &st.weights);
    st.rhs = std::make_unique<GemmRhs>(st.weights.data(), depth, units, depth, true, weight_zero);
    st.weights_source = weights;
  }
  st.acc.resize(static_cast<std::size_t>(batch * units));
  GemmLhs lhs;
  lhs.data = st.input.data();
  lhs.m = batch;
  lhs.k = depth;
  lhs.lda = depth;
  lhs.zero_point = 128 - r.input_offset;
  const GemmBackend backend = defaultGemmBackend();
  last_ = gemmBackendName(backend);
  gemm(backend, lhs, *st.rhs, st.acc.data(), units, pool, requantizer(r, st.acc.data(), bias, units, output));
}

}  // namespace gds::engine::quantized::tfl
