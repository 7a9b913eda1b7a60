// Fused 8-bit layers with per-channel weights, produced by
// quantize_nodes(per_channel=true):
//   QuantizedFusedConv2D, QuantizedFusedDepthwiseConv2dNative, QuantizedFusedMatMul
// inputs:  input (quint8), filter (qint8), bias (float [channels]),
//          min_input, max_input (float scalars),
//          min_filter, max_filter (float [channels] or scalars)
//          [min_freezed_output, max_freezed_output (float scalars): a
//           calibrated output range (engine::calibrate) instead of the
//           range of each run]
// outputs: output (quint8), min_output, max_output (float scalars)
// attrs:   activation ("None", "Relu", "Relu6"), and the float op's own attrs
//          (strides, padding, dilations / transpose_b).
//
// TensorFlow's quantize_nodes requantizes the 32-bit result of every
// convolution to 8 bits over its whole range before the bias is added
// (QuantizedAdd), and again before the activation clamps it, with one weight
// range per tensor. These ops follow TensorFlow Lite's per-channel scheme
// instead: weights are symmetric qint8 per output channel, exactly as
// Dequantize(mode=SCALED, axis) reads them (scale = max(min/-128, max/127));
// the bias is added to the int32 accumulator's real value; the activation is
// applied before the one requantization, whose range is the actual range of
// the activated result (always containing 0), so a Relu6 output keeps all
// 256 levels for [0, 6].
//
// The plain loops of engine/quantized/per_channel.h (*Reference, taken with
// PlanOptions::reference_kernels) are the specification; the optimized path
// gives the same bits with its vector loops (depthwise accumulation, range
// scan, requantization), the range scan done on each finished GEMM block
// while it is in cache, and the requantization split over the pool.
#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <vector>

#include "engine/kernels/nn_kernel_util.h"
#include "engine/lowp/conv_dnnl.h"
#include "engine/lowp/depthwise.h"
#include "engine/quantized/kernels/kernel_util.h"
#include "engine/quantized/ops.h"
#include "engine/quantized/per_channel.h"
#include "engine/thread_pool.h"

namespace gds::engine {

namespace {

using quantized::floatToQuantizedUnclamped;
constexpr DataType kQU8 = tensorflow::DT_QUINT8;
constexpr DataType kQI8 = tensorflow::DT_QINT8;
constexpr DataType kFloat = tensorflow::DT_FLOAT;

enum class Kind { kConv2D, kDepthwise, kMatMul };
enum class Activation { kNone, kRelu, kRelu6 };

class QuantizedFusedKernel : public qkern::ThreeOutputKernel {
 public:
  explicit QuantizedFusedKernel(Kind kind) : kind_(kind) {}

  Status init(const KernelInit& init) override {
    DataType tin, tfilter;
    GDS_RETURN_IF_ERROR(qkern::typeAttr(init, "Tinput", kQU8, &tin));
    GDS_RETURN_IF_ERROR(qkern::typeAttr(init, "Tfilter", kQI8, &tfilter));
    GDS_RETURN_IF_ERROR(qkern::typeAttr(init, "out_type", kQU8, &out_type_));
    if (tin != kQU8 || tfilter != kQI8 || out_type_ != kQU8)
      return init.error("only Tinput=quint8, Tfilter=qint8, out_type=quint8 is supported");
    std::string activation;
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::string>("activation", &activation, "None"));
    if (activation == "None") activation_ = Activation::kNone;
    else if (activation == "Relu") activation_ = Activation::kRelu;
    else if (activation == "Relu6") activation_ = Activation::kRelu6;
    else return init.error("activation '" + activation + "' is not supported (expected None, Relu or Relu6)");
    if (kind_ == Kind::kMatMul) {
      GDS_RETURN_IF_ERROR(init.getAttrOr("transpose_b", &transpose_b_, false));
    } else {
      GDS_RETURN_IF_ERROR(nn::readWindowAttrs(init, true, false, &window_));
      if (window_.nchw) return init.error("data_format NCHW is not supported for quantized convolution");
    }
    backend_ = qkern::backendFor(init);
    reference_ = init.referenceKernels();
    filter_constant_ = init.constantInput(1) != nullptr;
    return Status::Ok();
  }

  // The inputs checked; the layer's geometry, channels and output shape;
  // one accumulator unit's real value per channel (multipliers_): the input
  // step times the channel's weight step (Dequantize SCALED for qint8); the
  // input's zero point.
  Status prepareLayer(KernelContext& ctx, ops::ConvGeometry* s, std::int64_t* channels, Shape* out_shape,
                      std::int32_t* input_zero) {
    const Tensor& input = ctx.input(0);
    const Tensor& filter = ctx.input(1);
    const Tensor& bias = ctx.input(2);
    GDS_RETURN_IF_ERROR(qkern::requireType(ctx, 0, kQU8, "input"));
    GDS_RETURN_IF_ERROR(qkern::requireType(ctx, 1, kQI8, "filter"));
    if (bias.dtype() != kFloat) return ctx.error("bias (input 2) must be float, got " + model::dtypeName(bias.dtype()));
    float min_input, max_input;
    GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 3, "min_input", &min_input));
    GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 4, "max_input", &max_input));
    const Tensor& min_filter = ctx.input(5);
    const Tensor& max_filter = ctx.input(6);
    GDS_RETURN_IF_ERROR(layerShape(ctx, input, filter, s, channels, out_shape));
    const std::int64_t n = *channels;
    if (bias.numElements() != n)
      return ctx.error("bias must have " + std::to_string(n) + " elements (one per output channel), got " +
                       model::shapeString(bias.shape()));
    for (const Tensor* t : {&min_filter, &max_filter})
      if (t->dtype() != kFloat || (t->numElements() != n && t->numElements() != 1))
        return ctx.error("min_filter and max_filter must be float with 1 or " + std::to_string(n) +
                         " elements, got " + model::dtypeName(t->dtype()) + model::shapeString(t->shape()));
    const float input_step = quantized::floatForOneQuantizedLevel<std::uint8_t>(min_input, max_input);
    multipliers_.resize(static_cast<std::size_t>(n));
    for (std::int64_t c = 0; c < n; ++c) {
      const std::int64_t i = min_filter.numElements() == 1 ? 0 : c;
      const float lo = min_filter.data<float>()[i], hi = max_filter.data<float>()[i];
      const float weight_step = std::max(lo / -128.0f, hi / 127.0f);
      multipliers_[static_cast<std::size_t>(c)] = input_step * weight_step;
    }
    *input_zero = static_cast<std::int32_t>(floatToQuantizedUnclamped<std::uint8_t>(0.0f, min_input, max_input));
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& filter = ctx.input(1);
    const Tensor& bias = ctx.input(2);
    Shape out_shape;
    std::int64_t channels = 0;
    ops::ConvGeometry s;
    std::int32_t input_zero = 0;
    GDS_RETURN_IF_ERROR(prepareLayer(ctx, &s, &channels, &out_shape, &input_zero));

    const std::int64_t count = model::numElements(out_shape);
    const std::int64_t rows = channels > 0 ? count / channels : 0;
    acc_.resize(static_cast<std::size_t>(count));
    const bool frozen = ctx.numInputs() >= 9;
    float frozen_lo = 0.0f, frozen_hi = 0.0f;
    if (frozen) {
      GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 7, "min_freezed_output", &frozen_lo));
      GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 8, "max_freezed_output", &frozen_hi));
      if (!(frozen_hi > frozen_lo))
        return ctx.error("max_freezed_output (" + std::to_string(frozen_hi) +
                         ") must be larger than min_freezed_output (" + std::to_string(frozen_lo) + ")");
    }
    Tensor* out = ctx.allocateOutput(0, kQU8, out_shape);
    std::uint8_t* o = out->data<std::uint8_t>();

    const float act_lo = activation_ == Activation::kNone ? -std::numeric_limits<float>::infinity() : 0.0f;
    const float act_hi = activation_ == Activation::kRelu6 ? 6.0f : std::numeric_limits<float>::infinity();
    // QuantizeParams<quint8>::apply (QuantizeV2 MIN_FIRST) over [lo, hi]:
    // round(x * scale) - round(min * scale), clamped to [0, 255]. Values are
    // clamped to the range first, so |x * scale| <= 255 and rounding half
    // away from zero through int32 is exact.
    auto requantization = [&](float lo, float hi) {
      const quantized::QuantizeParams<std::uint8_t> q(lo, hi);
      quantized::PerChannelRequantize p;
      p.multiplier = multipliers_.data();
      p.bias = bias.data<float>();
      p.clamp_lo = std::max(act_lo, lo);
      p.clamp_hi = std::min(act_hi, hi);
      p.scale = q.range_scale;
      p.offset = q.range_min_scaled;
      return p;
    };
    extremes_.resize(static_cast<std::size_t>(2 * channels));
    std::int32_t* amin = extremes_.data();
    std::int32_t* amax = amin + channels;
    std::fill(amin, amin + channels, std::numeric_limits<std::int32_t>::max());
    std::fill(amax, amax + channels, std::numeric_limits<std::int32_t>::lowest());

    if (reference_) {
      computeAccumulators(ctx, s, input, filter, input_zero, channels, nullptr);
      float lo, hi;
      quantized::channelExtremesReference(acc_.data(), rows, channels, amin, amax);
      quantized::perChannelOutputRange(amin, amax, rows, channels, multipliers_.data(), bias.data<float>(), act_lo,
                                      act_hi, &lo, &hi);
      if (frozen) lo = frozen_lo, hi = frozen_hi;
      quantized::requantizeRowsReference(requantization(lo, hi), acc_.data(), rows, channels, o);
      qkern::setScalar(ctx, 1, lo);
      qkern::setScalar(ctx, 2, hi);
      return Status::Ok();
    }

    // Optimized: each finished block of accumulator rows is scanned for its
    // per-channel extremes while in cache, or, with a frozen range,
    // requantized right away.
    const quantized::PerChannelRequantize frozen_q =
        frozen ? requantization(frozen_lo, frozen_hi) : quantized::PerChannelRequantize();
    std::mutex merge;
    const lowp::GemmEpilogue epilogue = [&](std::int64_t r0, std::int64_t r1) {
      const std::int32_t* a = acc_.data() + r0 * channels;
      if (frozen) {
        quantized::requantizeRows(frozen_q, a, r1 - r0, channels, o + r0 * channels);
        return;
      }
      std::vector<std::int32_t> local(static_cast<std::size_t>(2 * channels));
      std::int32_t* lmin = local.data();
      std::int32_t* lmax = lmin + channels;
      std::fill(lmin, lmin + channels, std::numeric_limits<std::int32_t>::max());
      std::fill(lmax, lmax + channels, std::numeric_limits<std::int32_t>::lowest());
      quantized::channelExtremes(a, r1 - r0, channels, lmin, lmax);
      std::lock_guard<std::mutex> lock(merge);
      for (std::int64_t c = 0; c < channels; ++c) {
        amin[c] = std::min(amin[c], lmin[c]);
        amax[c] = std::max(amax[c], lmax[c]);
      }
    };
    computeAccumulators(ctx, s, input, filter, input_zero, channels, &epilogue);
    float lo = frozen_lo, hi = frozen_hi;
    if (!frozen) {
      quantized::perChannelOutputRange(amin, amax, rows, channels, multipliers_.data(), bias.data<float>(), act_lo,
                                      act_hi, &lo, &hi);
      const quantized::PerChannelRequantize q = requantization(lo, hi);
      const std::int32_t* a = acc_.data();
      ctx.pool().parallelFor(rows, static_cast<double>(channels) * 4, [&](std::int64_t r0, std::int64_t r1) {
        quantized::requantizeRows(q, a + r0 * channels, r1 - r0, channels, o + r0 * channels);
      });
    }
    qkern::setScalar(ctx, 1, lo);
    qkern::setScalar(ctx, 2, hi);
    return Status::Ok();
  }

  double flops(const std::vector<Shape>& in, const std::vector<Shape>& out) const override {
    if (in.size() < 2 || out.empty()) return 0;
    const double outputs = static_cast<double>(model::numElements(out[0]));
    if (kind_ == Kind::kMatMul) return in[1].size() == 2 ? 2.0 * outputs * (transpose_b_ ? in[1][1] : in[1][0]) : 0;
    if (in[1].size() != 4) return 0;
    const double window = static_cast<double>(in[1][0] * in[1][1]);
    return kind_ == Kind::kDepthwise ? 2.0 * outputs * window : 2.0 * outputs * window * in[1][2];
  }

  // The layer's geometry: the convolution (s) or the MatMul's, the output
  // channels and shape; errors name the mismatched input.
  Status layerShape(const KernelContext& ctx, const Tensor& input, const Tensor& filter, ops::ConvGeometry* s,
                    std::int64_t* channels, Shape* out_shape) const {
    if (kind_ == Kind::kMatMul) {
      if (input.dims() != 2) return ctx.error("input must be a matrix, got " + model::shapeString(input.shape()));
      if (filter.dims() != 2) return ctx.error("filter must be a matrix, got " + model::shapeString(filter.shape()));
      const std::int64_t k = transpose_b_ ? filter.dim(1) : filter.dim(0);
      *channels = transpose_b_ ? filter.dim(0) : filter.dim(1);
      if (input.dim(1) != k)
        return ctx.error("input " + model::shapeString(input.shape()) + " and filter " +
                         model::shapeString(filter.shape()) + " do not multiply");
      *out_shape = {input.dim(0), *channels};
    } else {
      if (input.dims() != 4) return ctx.error("input must be 4-dimensional, got " + model::shapeString(input.shape()));
      if (filter.dims() != 4) return ctx.error("filter must be 4-dimensional, got " + model::shapeString(filter.shape()));
      if (input.dim(3) != filter.dim(2))
        return ctx.error("input and filter must have the same depth: " + std::to_string(input.dim(3)) + " vs " +
                         std::to_string(filter.dim(2)));
      if (!nn::conv2DShape(input.shape(), filter.shape(), window_, s))
        return ctx.error("filter " + model::shapeString(filter.shape()) + " does not fit input " +
                         model::shapeString(input.shape()));
      *channels = kind_ == Kind::kDepthwise ? s->in_c * s->out_c : s->out_c;
      *out_shape = {s->batch, s->out_h, s->out_w, *channels};
    }
    return Status::Ok();
  }

 private:
  // The int32 accumulators of the layer into acc_; `epilogue` (optimized
  // path only) runs on each finished block of accumulator rows, possibly on
  // pool threads.
  void computeAccumulators(KernelContext& ctx, const ops::ConvGeometry& s, const Tensor& input, const Tensor& filter,
                           std::int32_t input_zero, std::int64_t channels, const lowp::GemmEpilogue* epilogue) {
    std::int32_t* acc = acc_.data();
    if (kind_ == Kind::kDepthwise && !reference_ && backend_ == lowp::GemmBackend::kDnnl && filter_constant_) {
      // oneDNN's int8 depthwise kernel, made once per input shape.
      const int threads = ctx.pool().numThreads();
      const std::int8_t* w = filter.data<std::int8_t>();
      const lowp::DnnlConv2D* dnnl = conv_state_.dnnlFor(
          {s.batch, s.in_h, s.in_w, s.in_c, threads, reinterpret_cast<std::int64_t>(w)},
          [&] { return lowp::DnnlConv2D::create(s, w, 0, true, threads); });
      if (dnnl) {
        dnnl->run(input.data<std::uint8_t>(), input_zero, acc, &ctx.pool(),
                  epilogue ? *epilogue : lowp::GemmEpilogue());
        return;
      }
    }
    if (kind_ == Kind::kDepthwise) {
      const std::uint8_t* x = input.data<std::uint8_t>();
      const std::int8_t* w = filter.data<std::int8_t>();
      const double cost = static_cast<double>(s.out_w * channels * s.filter_h * s.filter_w);
      if (!reference_ && depthwise_avx2_.prepare(s, input_zero, w, filter_constant_)) {
        ctx.pool().parallelFor(s.batch * s.out_h, cost, [&](std::int64_t begin, std::int64_t end) {
          depthwise_avx2_.run(s, x, begin, end, acc);
          if (epilogue) (*epilogue)(begin * s.out_w, end * s.out_w);
        });
        return;
      }
      ctx.pool().parallelFor(s.batch * s.out_h, cost, [&](std::int64_t begin, std::int64_t end) {
        if (reference_ || !lowp::depthwiseRowsFast(s, x, input_zero, w, begin, end, acc))
          lowp::depthwiseRowsReference(s, x, input_zero, w, begin, end, acc);
        if (epilogue) (*epilogue)(begin * s.out_w, end * s.out_w);
      });
      return;
    }
    // The GEMM takes uint8 weights with one zero point: qint8 + 128 with
    // zero point 128 gives the same accumulators.
    const std::int64_t k = kind_ == Kind::kMatMul ? input.dim(1) : s.filter_h * s.filter_w * s.in_c;
    if (!filter_constant_ || shifted_.size() != static_cast<std::size_t>(filter.numElements()) ||
        shifted_source_ != filter.data<std::int8_t>()) {
      shifted_.resize(static_cast<std::size_t>(filter.numElements()));
      const std::int8_t* w = filter.data<std::int8_t>();
      for (std::size_t i = 0; i < shifted_.size(); ++i)
        shifted_[i] = static_cast<std::uint8_t>(static_cast<int>(w[i]) + 128);
      shifted_source_ = filter.data<std::int8_t>();
    }
    const bool transposed = kind_ == Kind::kMatMul && transpose_b_;
    const lowp::GemmRhs& rhs =
        rhs_.get(shifted_.data(), k, channels, transposed ? k : channels, transposed, 128, filter_constant_);
    const lowp::GemmEpilogue none;
    const lowp::GemmEpilogue& after = epilogue ? *epilogue : none;
    if (kind_ == Kind::kMatMul) {
      lowp::GemmLhs lhs;
      lhs.data = input.data<std::uint8_t>();
      lhs.m = input.dim(0);
      lhs.k = k;
      lhs.lda = k;
      lhs.zero_point = input_zero;
      lowp::gemm(backend_, lhs, rhs, acc, channels, &ctx.pool(), after);
    } else {
      conv_state_.weights_constant = filter_constant_;
      lowp::conv2D(backend_, s, input.data<std::uint8_t>(), input_zero, rhs, acc, &ctx.pool(), &conv_state_, after);
    }
  }

  Kind kind_;
  Activation activation_ = Activation::kNone;
  bool transpose_b_ = false;
  nn::WindowAttrs window_;
  lowp::GemmBackend backend_ = lowp::GemmBackend::kGemmlowp;
  bool filter_constant_ = false;
  bool reference_ = false;  // PlanOptions::reference_kernels: the plain loops
  qkern::RhsCache rhs_;
  std::vector<std::uint8_t> shifted_;
  const std::int8_t* shifted_source_ = nullptr;
  lowp::Conv2DState conv_state_;  // the convolution's or the depthwise layer's
  lowp::DepthwiseRowsAvx2 depthwise_avx2_;  // the depthwise layer's packed filter
  std::vector<std::int32_t> acc_;
  std::vector<std::int32_t> extremes_;  // per-channel min and max accumulators
  std::vector<float> multipliers_;
};

}  // namespace

void registerQuantizedPerChannelKernels(KernelRegistry& registry) {
  registry.add("QuantizedFusedConv2D",
               [] { return std::unique_ptr<OpKernel>(new QuantizedFusedKernel(Kind::kConv2D)); });
  registry.add("QuantizedFusedDepthwiseConv2dNative",
               [] { return std::unique_ptr<OpKernel>(new QuantizedFusedKernel(Kind::kDepthwise)); });
  registry.add("QuantizedFusedMatMul",
               [] { return std::unique_ptr<OpKernel>(new QuantizedFusedKernel(Kind::kMatMul)); });
}

}  // namespace gds::engine
