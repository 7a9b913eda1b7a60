// The TFLite dialect's convolutions and matrix products: tfl.conv_2d,
// tfl.depthwise_conv_2d and tfl.fully_connected, float32 (reference loops)
// and int8 (the fast path of engine/tflite/fast.h for constant
// filters, the reference loop otherwise).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "engine/kernels/float_layers.h"
#include "engine/tflite/fast.h"
#include "engine/tflite/hybrid.h"
#include "engine/tflite/kernels/kernel_util.h"

namespace gds::engine::tflkern {

namespace {

// A layer with int8 weights in input 1 (the convolutions and
// tfl.fully_connected): the requantization both read the same way.
class WeightedLayer : public TflKernel {
 protected:
  // Per-tensor input 0 and output; input 1's positive scales, per tensor or
  // per channel along channel_dim; the offsets, multipliers and activation
  // range into requant_. Errors call input 1 "the " + noun (plural: the
  // verb agrees) and describe channel_dim as `expected`. A per-tensor zero
  // point of the weights becomes the filter offset where weight_offset is
  // allowed; otherwise every zero point must be 0, as TFLite's are.
  //
  // The rounding follows the arithmetic: TFLite's reference kernels round
  // twice; its built-in CONV_2D and FULLY_CONNECTED (ruy) once and its
  // depthwise twice; XNNPACK in float where its delegate takes the layer
  // (xnnpack_delegate.cc: static weights with zero point 0, every
  // requantization scale in [2^-32, 256)), the built-in kernels elsewhere.
  Status readInt8Requant(const KernelInit& init, const std::string& noun, bool plural, int channel_dim,
                         const std::string& expected, bool weight_offset, bool depthwise) {
    QParams in, out;
    GDS_RETURN_IF_ERROR(perTensor(init, 0, &in, type_));
    GDS_RETURN_IF_ERROR(perTensor(init, -1, &out, type_));
    const mt::Quantization f = inputQuantization(init, 1);
    const std::string has = plural ? " have" : " has", is = plural ? " are" : " is";
    if (f.scale.empty()) return init.error("the int8 " + noun + " (input 1)" + has + " no quantization scale");
    for (float scale : f.scale)
      if (!(scale > 0) || !std::isfinite(scale))
        return init.error("the " + noun + has + " a non-positive quantization scale");
    if (!weight_offset)
      for (auto zp : f.zero_point)
        if (zp != 0)
          return init.error("the int8 " + noun + has + " zero point " + std::to_string(zp) + "; TFLite needs 0");
    if (f.perChannel() && f.quantized_dimension != channel_dim)
      return init.error("the " + noun + is + " quantized per channel along dimension " +
                        std::to_string(f.quantized_dimension) + "; expected " + expected);
    if (weight_offset)
      requant_.filter_offset = f.zero_point.size() == 1 ? -static_cast<std::int32_t>(f.zero_point[0]) : 0;
    requant_.input_offset = -in.zero_point;
    requant_.output_offset = out.zero_point;
    tflite::convMultipliers(in.scale, f.scale, out.scale, &requant_);
    bool delegated = xnnpack() && type_ == DT_INT8 && init.constantInput(1) && requant_.filter_offset == 0;
    for (float scale : requant_.scale) delegated = delegated && scale >= 0x1.0p-32f && scale < 256.0f;
    requant_.rounding = reference()   ? tflite::Rounding::kDouble
                        : delegated   ? tflite::Rounding::kFp32
                        : depthwise ? tflite::Rounding::kDouble
                                      : tflite::Rounding::kSingle;
    // 16x8 (every runtime: TFLite runs these on its reference loops):
    // FULLY_CONNECTED rounds the accumulator times the whole 31-bit
    // multiplier once, the convolutions take the multiplier reduced to 16
    // bits (int16.h).
    if (type_ == DT_INT16) requant_.rounding = fully_connected_ ? tflite::Rounding::kSingle : tflite::Rounding::kDouble;
    if (type_ == DT_INT16) GDS_RETURN_IF_ERROR(int16ActivationRange(init, out));
    else GDS_RETURN_IF_ERROR(int8ActivationRange(init, out, delegated));
    requant_.act_min = qmin_;
    requant_.act_max = qmax_;
    input_q_ = in;
    output_q_ = out;
    weight_scales_ = f.scale;
    weight_zero_ = f.zero_point.size() == 1 ? static_cast<std::int32_t>(f.zero_point[0]) : 0;
    if (armnn()) {
      GDS_RETURN_IF_ERROR(armnnActivation(init, &armnn_activation_));
      if (!absent(init, 2)) bias_scales_ = inputQuantization(init, 2).scale;
      if (armnn_activation_ != lowp::armnn::Activation::kNone)
        activation_table_ = lowp::armnn::activationTable(armnn_activation_, {out.scale, out.zero_point},
                                                         {out.scale, out.zero_point});
    }
    return Status::Ok();
  }

  // The float layers' options for this operator: its fused activation as
  // their post-op, except RELU_N1_TO_1 (clampFloat applies it after).
  // Winograd stays off: no TFLite kernel sums that way.
  template <typename Options>
  Options floatOptions(const KernelInit& init) {
    Options o;
    o.reference = init.referenceKernels();
    o.weights_constant = init.constantInput(1) && (absent(init, 2) || init.constantInput(2));
    o.activation = activation_ == "RELU"    ? ops::Activation::kRelu
                   : activation_ == "RELU6" ? ops::Activation::kRelu6
                                            : ops::Activation::kNone;
    clamp_after_ = activation_ != "NONE" && o.activation == ops::Activation::kNone;
    return o;
  }
  void clampFloat(float* y, std::int64_t n) const {
    if (clamp_after_)
      for (std::int64_t i = 0; i < n; ++i) y[i] = std::min(std::max(y[i], fmin_), fmax_);
  }

  // Float input and output, int8 weights in input 1: TFLite's hybrid
  // kernels (dynamic-range quantization), the scales per tensor or per
  // channel along channel_dim (described as `expected`), zero point 0.
  Status readHybrid(const KernelInit& init, int channel_dim, const std::string& expected) {
    if (armnn())
      return init.error("a hybrid operator (float input, int8 weights: dynamic-range quantization) is outside the "
                        "Arm NN arithmetic; run it with --arithmetic=tflite-xnnpack or tflite-builtin");
    const mt::Quantization f = inputQuantization(init, 1);
    if (f.scale.empty())
      return init.error("the int8 weights (input 1) of this float operator have no quantization scale");
    for (float scale : f.scale)
      if (!(scale > 0) || !std::isfinite(scale)) return init.error("the weights have a non-positive quantization scale");
    for (auto zp : f.zero_point)
      if (zp != 0)
        return init.error("the hybrid operator's int8 weights have zero point " + std::to_string(zp) +
                          "; TFLite needs 0");
    if (f.perChannel() && f.quantized_dimension != channel_dim)
      return init.error("the weights are quantized per channel along dimension " +
                        std::to_string(f.quantized_dimension) + "; expected " + expected);
    GDS_RETURN_IF_ERROR(init.getAttrOr("asymmetric_quantize_inputs", &asymmetric_inputs_, false));
    hybrid_ = true;
    hybrid_scales_ = f.scale;
    hybrid_constant_ = init.constantInput(1) != nullptr;
    return Status::Ok();
  }
  // Whose hybrid arithmetic: XNNPACK takes the operators with constant
  // weights (delegated: whether it takes this op is the caller's).
  tflite::HybridArithmetic hybridArithmetic(bool delegated) const {
    return xnnpack() && delegated && hybrid_constant_ ? tflite::HybridArithmetic::kXnnpack
           : reference()                               ? tflite::HybridArithmetic::kReference
                                                       : tflite::HybridArithmetic::kBuiltin;
  }
  // The scales' count against the output channels.
  Status checkHybridScales(KernelContext& ctx, std::int64_t channels, bool per_channel_only) const {
    const auto n = static_cast<std::int64_t>(hybrid_scales_.size());
    if (n == channels || (n == 1 && !per_channel_only)) return Status::Ok();
    return ctx.error("the int8 weights have " + std::to_string(n) + " scales for " + std::to_string(channels) +
                     " output channels" + (per_channel_only ? " (a hybrid depthwise filter needs one per channel)" : ""));
  }

  // The bias's type: float, int32 with int8 inputs, int64 with int16 ones
  // (TensorFlow's 16x8 bias).
  DataType biasType() const {
    return type_ == DT_INT8 ? DT_INT32 : type_ == DT_INT16 ? DT_INT64 : DT_FLOAT;
  }

  // Arm NN's fused activation layer on the int8 output.
  void armnnActivate(std::int8_t* y, std::int64_t n) const {
    if (armnn_activation_ != lowp::armnn::Activation::kNone) lowp::applyTable(activation_table_, y, n, y);
  }

  bool fully_connected_ = false;  // set by tfl.fully_connected
  bool clamp_after_ = false;
  bool hybrid_ = false, asymmetric_inputs_ = false, hybrid_constant_ = false;
  std::vector<float> hybrid_scales_;
  tflite::Requant requant_;
  QParams input_q_, output_q_;
  std::vector<float> weight_scales_, bias_scales_;
  std::int32_t weight_zero_ = 0;
  lowp::armnn::Activation armnn_activation_ = lowp::armnn::Activation::kNone;
  lowp::Int8Table activation_table_{};
};

// TFLite's [out_c, h, w, in_c] filter as TensorFlow's [h, w, in_c, out_c].
void transposeOhwiToHwio(const Tensor& f, std::vector<float>* hwio) {
  const std::int64_t o = f.dim(0), hwi = f.dim(1) * f.dim(2) * f.dim(3);
  const float* src = f.data<float>();
  hwio->resize(static_cast<size_t>(o * hwi));
  for (std::int64_t c = 0; c < o; ++c)
    for (std::int64_t j = 0; j < hwi; ++j) (*hwio)[static_cast<size_t>(j * o + c)] = src[c * hwi + j];
}

// tfl.conv_2d and tfl.depthwise_conv_2d.
enum class ConvForm { kConv, kDepthwise };

class ConvKernel : public WeightedLayer {
 public:
  explicit ConvKernel(ConvForm form) : depthwise_(form == ConvForm::kDepthwise) {}
  Status init(const KernelInit& init) override {
    if (init.numInputs() < 2) return init.error("expects input, filter and bias");
    GDS_RETURN_IF_ERROR(readType(init, true));
    GDS_RETURN_IF_ERROR(init.getAttr("padding", &padding_));
    if (padding_ != "SAME" && padding_ != "VALID") return init.error("padding must be SAME or VALID, got " + padding_);
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("stride_h", &stride_h_, 1));
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("stride_w", &stride_w_, 1));
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("dilation_h_factor", &dil_h_, 1));
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("dilation_w_factor", &dil_w_, 1));
    if (stride_h_ < 1 || stride_w_ < 1 || dil_h_ < 1 || dil_w_ < 1)
      return init.error("strides and dilation factors must be >= 1");
    GDS_RETURN_IF_ERROR(readActivation(init));
    has_bias_ = !absent(init, 2);
    if (type_ == DT_INT8 || type_ == DT_INT16) {
      GDS_RETURN_IF_ERROR(readInt8Requant(init, "filter", false, depthwise_ ? 3 : 0,
                                          std::string("the output channels (dimension ") + (depthwise_ ? "3" : "0") + ")",
                                          false, depthwise_));
      // The fast path keeps prepared weights: constant filters only.
      if (type_ == DT_INT8 && init.constantInput(1) && !init.referenceKernels())
        fast_ = std::make_unique<tflite::FastLayer>(depthwise_ ? tflite::FastLayer::Kind::kDepthwise
                                                               : tflite::FastLayer::Kind::kConv);
    } else if (init.inputType(1) == DT_INT8) {
      GDS_RETURN_IF_ERROR(readHybrid(init, depthwise_ ? 3 : 0,
                                     std::string("the output channels (dimension ") + (depthwise_ ? "3" : "0") + ")"));
    } else {
      auto o = floatOptions<FloatConvolution::Options>(init);
      o.depthwise = depthwise_;
      o.winograd = false;
      constant_filter_ = o.weights_constant;
      float_conv_ = FloatConvolution(o);
    }
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Tensor& f = ctx.input(1);
    GDS_RETURN_IF_ERROR(requireType(ctx, 0, type_));
    GDS_RETURN_IF_ERROR(requireType(ctx, 1, hybrid_ || type_ == DT_INT16 ? DT_INT8 : type_));
    if (x.dims() != 4) return ctx.error("input must be 4-D NHWC, got " + shapeStr(x.shape()));
    if (f.dims() != 4) return ctx.error("filter must be 4-D, got " + shapeStr(f.shape()));
    ops::ConvGeometry s;
    s.batch = x.dim(0);
    s.in_h = x.dim(1);
    s.in_w = x.dim(2);
    s.in_c = x.dim(3);
    s.filter_h = f.dim(1);
    s.filter_w = f.dim(2);
    s.stride_h = stride_h_;
    s.stride_w = stride_w_;
    s.dilation_h = dil_h_;
    s.dilation_w = dil_w_;
    if (depthwise_) {
      if (f.dim(0) != 1 || s.in_c == 0 || f.dim(3) % s.in_c != 0)
        return ctx.error("depthwise filter " + shapeStr(f.shape()) + " does not fit input " + shapeStr(x.shape()) +
                         " (expected [1, h, w, in_channels x depth_multiplier])");
      s.out_c = f.dim(3) / s.in_c;  // the depth multiplier
    } else {
      s.out_c = f.dim(0);
      if (f.dim(3) != s.in_c)
        return ctx.error("filter " + shapeStr(f.shape()) + " has " + std::to_string(f.dim(3)) +
                         " input channels, the input " + shapeStr(x.shape()) + " has " + std::to_string(s.in_c));
    }
    const std::int64_t channels = s.outputChannels(depthwise_);
    if (!windowDim(padding_, s.in_h, s.filter_h, s.stride_h, s.dilation_h, &s.out_h, &s.pad_top) ||
        !windowDim(padding_, s.in_w, s.filter_w, s.stride_w, s.dilation_w, &s.out_w, &s.pad_left))
      return ctx.error("the filter " + shapeStr(f.shape()) + " does not fit the input " + shapeStr(x.shape()));
    const Tensor* bias = nullptr;
    if (has_bias_) {
      bias = &ctx.input(2);
      GDS_RETURN_IF_ERROR(requireType(ctx, 2, biasType()));
      if (bias->numElements() != channels)
        return ctx.error("bias " + shapeStr(bias->shape()) + " must have " + std::to_string(channels) + " elements");
    }
    if (type_ != DT_FLOAT && requant_.multiplier.size() != 1 &&
        static_cast<std::int64_t>(requant_.multiplier.size()) != channels)
      return ctx.error("the filter has " + std::to_string(requant_.multiplier.size()) + " per-channel scales for " +
                       std::to_string(channels) + " output channels");
    Tensor* y = ctx.allocateOutput(0, type_, {s.batch, s.out_h, s.out_w, channels});
    if (hybrid_) {
      GDS_RETURN_IF_ERROR(checkHybridScales(ctx, channels, depthwise_));
      // XNNPACK's delegate takes hybrid convolutions, not depthwise ones.
      if (!hybrid_conv_ || !hybrid_constant_ || hybrid_filter_ != f.data<std::int8_t>()) {
        hybrid_conv_ = std::make_unique<tflite::HybridConv>(depthwise_, f.data<std::int8_t>(), hybrid_scales_,
                                                            hybridArithmetic(!depthwise_));
        hybrid_filter_ = f.data<std::int8_t>();
      }
      hybrid_conv_->run(s, x.data<float>(), bias ? bias->data<float>() : nullptr, fmin_, fmax_, y->data<float>(),
                        ctx.referenceKernels() ? nullptr : &ctx.pool());
      return Status::Ok();
    }
    if (type_ == DT_FLOAT) {
      const float* b = bias ? bias->data<float>() : nullptr;
      if (ctx.referenceKernels()) {
        if (depthwise_)
          tflite::depthwiseReference(s, x.data<float>(), f.data<float>(), b, fmin_, fmax_, y->data<float>());
        else
          tflite::convReference(s, x.data<float>(), f.data<float>(), b, fmin_, fmax_, y->data<float>());
        return Status::Ok();
      }
      // TFLite's depthwise filter [1, h, w, in_c x multiplier] is already the
      // float layers' [h, w, in_c, multiplier]; a convolution's OHWI becomes
      // HWIO, once for a constant filter.
      const float* filter = f.data<float>();
      if (!depthwise_) {
        if (hwio_.empty() || !constant_filter_) transposeOhwiToHwio(f, &hwio_);
        filter = hwio_.data();
      }
      float_conv_.run(ctx.pool(), s, x.data<float>(), filter, b, y->data<float>());
      clampFloat(y->data<float>(), y->numElements());
      return Status::Ok();
    }
    if (type_ == DT_INT16) {
      // 16x8: TensorFlow Lite's reference arithmetic on every kernel
      // choice; the fast loops (the same bits) split the output rows
      // between threads unless --reference.
      const std::int64_t* b = bias ? bias->data<std::int64_t>() : nullptr;
      const std::int16_t* in = x.data<std::int16_t>();
      const std::int8_t* filter = f.data<std::int8_t>();
      std::int16_t* out = y->data<std::int16_t>();
      if (ctx.referenceKernels()) {
        if (depthwise_) tflite::depthwiseReference(s, requant_, in, filter, b, out);
        else tflite::convReference(s, requant_, in, filter, b, out);
      } else {
        auto rows = [&](std::int64_t begin, std::int64_t end) {
          if (depthwise_) tflite::depthwiseFast(s, requant_, in, filter, b, out, begin, end);
          else tflite::convFast(s, requant_, in, filter, b, out, begin, end);
        };
        const double cost = static_cast<double>(s.out_w * channels * s.filter_h * s.filter_w * (depthwise_ ? 1 : s.in_c));
        ctx.pool().parallelFor(s.batch * s.out_h, cost, rows);
      }
      return Status::Ok();
    }
    const std::int32_t* b = bias ? bias->data<std::int32_t>() : nullptr;
    if (armnn()) {
      // Arm NN's float convolution; the layer is rebuilt when the filter,
      // bias or geometry changes (constant weights: once).
      if (!armnn_conv_ || armnn_filter_ != f.data<std::int8_t>() || armnn_bias_ != b ||
          std::memcmp(&armnn_shape_, &s, sizeof s) != 0) {
        armnn_conv_ = std::make_unique<lowp::armnn::Conv>(s, depthwise_, f.data<std::int8_t>(), weight_scales_, b,
                                                          bias_scales_, lowp::armnn::Quant{input_q_.scale, input_q_.zero_point},
                                                          lowp::armnn::Quant{output_q_.scale, output_q_.zero_point});
        armnn_filter_ = f.data<std::int8_t>();
        armnn_bias_ = b;
        armnn_shape_ = s;
      }
      std::int8_t* out = y->data<std::int8_t>();
      if (ctx.referenceKernels()) {
        armnn_conv_->runReference(x.data<std::int8_t>(), out);
      } else {
        const lowp::armnn::Conv& conv = *armnn_conv_;
        const std::int8_t* in = x.data<std::int8_t>();
        auto band = [&](std::int64_t begin, std::int64_t end) { conv.run(in, begin, end, out); };
        const double cost = static_cast<double>(s.out_w * s.outputChannels(depthwise_) * s.filter_h * s.filter_w *
                                                (depthwise_ ? 1 : s.in_c));
        ctx.pool().parallelFor(s.batch * s.out_h, cost, band);
      }
      armnnActivate(out, y->numElements());
      return Status::Ok();
    }
    if (fast_ && !ctx.referenceKernels())
      fast_->conv(s, requant_, x.data<std::int8_t>(), f.data<std::int8_t>(), b, y->data<std::int8_t>(), &ctx.pool());
    else if (depthwise_)
      tflite::depthwiseReference(s, requant_, x.data<std::int8_t>(), f.data<std::int8_t>(), b, y->data<std::int8_t>());
    else
      tflite::convReference(s, requant_, x.data<std::int8_t>(), f.data<std::int8_t>(), b, y->data<std::int8_t>());
    return Status::Ok();
  }
  double flops(const std::vector<Shape>& in, const std::vector<Shape>& out) const override {
    if (in.size() < 2 || out.empty() || in[1].size() != 4 || model::numElements(out[0]) < 0) return 0;
    const double per_output = depthwise_ ? static_cast<double>(in[1][1] * in[1][2])
                                         : static_cast<double>(in[1][1] * in[1][2] * in[1][3]);
    return 2.0 * per_output * static_cast<double>(model::numElements(out[0]));
  }

 private:
  bool depthwise_;
  std::string padding_;
  std::int64_t stride_h_ = 1, stride_w_ = 1, dil_h_ = 1, dil_w_ = 1;
  bool has_bias_ = false;
  std::unique_ptr<tflite::FastLayer> fast_;
  FloatConvolution float_conv_;
  std::unique_ptr<tflite::HybridConv> hybrid_conv_;
  const std::int8_t* hybrid_filter_ = nullptr;
  bool constant_filter_ = false;
  std::vector<float> hwio_;  // a convolution's float filter as HWIO
  std::unique_ptr<lowp::armnn::Conv> armnn_conv_;
  const std::int8_t* armnn_filter_ = nullptr;
  const std::int32_t* armnn_bias_ = nullptr;
  ops::ConvGeometry armnn_shape_;
};

// tfl.fully_connected: input flattened to [batch, depth], weights [units, depth].
class FullyConnectedKernel : public WeightedLayer {
 public:
  Status init(const KernelInit& init) override {
    if (init.numInputs() < 2) return init.error("expects input, weights and bias");
    fully_connected_ = true;
    GDS_RETURN_IF_ERROR(readType(init, true));
    GDS_RETURN_IF_ERROR(readActivation(init));
    std::string format;
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::string>("weights_format", &format, "DEFAULT"));
    if (format != "DEFAULT") return init.error("weights_format " + format + " is not supported (DEFAULT is)");
    GDS_RETURN_IF_ERROR(init.getAttrOr("keep_num_dims", &keep_num_dims_, false));
    has_bias_ = !absent(init, 2);
    if (type_ == DT_INT8 || type_ == DT_INT16) {
      // Per-tensor int8 weights may carry a zero point (filter_offset; not
      // with int16 inputs).
      GDS_RETURN_IF_ERROR(readInt8Requant(init, "weights", true, 0, "0 (the units)", type_ == DT_INT8, false));
      if (type_ == DT_INT8 && init.constantInput(1) && !init.referenceKernels())
        fast_ = std::make_unique<tflite::FastLayer>(tflite::FastLayer::Kind::kFullyConnected);
    } else if (init.inputType(1) == DT_INT8) {
      GDS_RETURN_IF_ERROR(readHybrid(init, 0, "0 (the units)"));
    } else {
      auto o = floatOptions<FloatMatMul::Options>(init);
      o.transpose_b = true;  // weights [units, depth]
      float_fc_ = FloatMatMul(o);
    }
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    GDS_RETURN_IF_ERROR(requireType(ctx, 0, type_));
    GDS_RETURN_IF_ERROR(requireType(ctx, 1, hybrid_ || type_ == DT_INT16 ? DT_INT8 : type_));
    if (w.dims() != 2) return ctx.error("weights must be 2-D [units, depth], got " + shapeStr(w.shape()));
    const std::int64_t units = w.dim(0), depth = w.dim(1);
    if (depth == 0 || x.numElements() % depth != 0 || x.dims() < 1)
      return ctx.error("input " + shapeStr(x.shape()) + " does not split into rows of " + std::to_string(depth));
    const std::int64_t batch = x.numElements() / depth;
    const Tensor* bias = nullptr;
    if (has_bias_) {
      bias = &ctx.input(2);
      GDS_RETURN_IF_ERROR(requireType(ctx, 2, biasType()));
      if (bias->numElements() != units)
        return ctx.error("bias " + shapeStr(bias->shape()) + " must have " + std::to_string(units) + " elements");
    }
    if (type_ != DT_FLOAT && requant_.multiplier.size() != 1 &&
        static_cast<std::int64_t>(requant_.multiplier.size()) != units)
      return ctx.error("the weights have " + std::to_string(requant_.multiplier.size()) + " per-channel scales for " +
                       std::to_string(units) + " units");
    Shape out_shape{batch, units};
    if (keep_num_dims_) {
      out_shape = x.shape();
      out_shape.back() = units;
      if (x.dim(x.dims() - 1) != depth)
        return ctx.error("keep_num_dims needs the input's last dimension to be " + std::to_string(depth));
    }
    Tensor* y = ctx.allocateOutput(0, type_, out_shape);
    if (hybrid_) {
      GDS_RETURN_IF_ERROR(checkHybridScales(ctx, units, false));
      if (!hybrid_fc_ || !hybrid_constant_ || hybrid_weights_ != w.data<std::int8_t>()) {
        hybrid_fc_ = std::make_unique<tflite::HybridFullyConnected>(w.data<std::int8_t>(), units, depth, hybrid_scales_,
                                                                    asymmetric_inputs_, hybridArithmetic(true));
        hybrid_weights_ = w.data<std::int8_t>();
      }
      hybrid_fc_->run(x.data<float>(), batch, bias ? bias->data<float>() : nullptr, fmin_, fmax_, y->data<float>(),
                      ctx.referenceKernels() ? nullptr : &ctx.pool());
      return Status::Ok();
    }
    if (type_ == DT_FLOAT) {
      const float* b = bias ? bias->data<float>() : nullptr;
      if (ctx.referenceKernels()) {
        tflite::fullyConnectedReference(x.data<float>(), w.data<float>(), b, batch, depth, units, fmin_, fmax_,
                                        y->data<float>());
      } else {
        float_fc_.run(ctx.pool(), x.data<float>(), w.data<float>(), b, batch, units, depth, y->data<float>());
        clampFloat(y->data<float>(), y->numElements());
      }
      return Status::Ok();
    }
    if (type_ == DT_INT16) {
      const std::int16_t* in = x.data<std::int16_t>();
      const std::int8_t* weights = w.data<std::int8_t>();
      const std::int64_t* b = bias ? bias->data<std::int64_t>() : nullptr;
      std::int16_t* out = y->data<std::int16_t>();
      if (ctx.referenceKernels())
        tflite::fullyConnectedReference(requant_, in, weights, b, batch, depth, units, out);
      else
        ctx.pool().parallelFor(batch, static_cast<double>(depth * units), [&](std::int64_t begin, std::int64_t end) {
          tflite::fullyConnectedFast(requant_, in, weights, b, depth, units, out, begin, end);
        });
      return Status::Ok();
    }
    const std::int32_t* b = bias ? bias->data<std::int32_t>() : nullptr;
    if (armnn()) {
      if (!armnn_fc_ || armnn_weights_ != w.data<std::int8_t>() || armnn_bias_ != b) {
        armnn_fc_ = std::make_unique<lowp::armnn::FullyConnected>(
            depth, units, w.data<std::int8_t>(), weight_scales_, weight_zero_, b, bias_scales_,
            lowp::armnn::Quant{input_q_.scale, input_q_.zero_point},
            lowp::armnn::Quant{output_q_.scale, output_q_.zero_point});
        armnn_weights_ = w.data<std::int8_t>();
        armnn_bias_ = b;
      }
      armnn_fc_->run(x.data<std::int8_t>(), batch, y->data<std::int8_t>());
      armnnActivate(y->data<std::int8_t>(), y->numElements());
      return Status::Ok();
    }
    if (fast_ && !ctx.referenceKernels())
      fast_->fullyConnected(requant_, x.data<std::int8_t>(), w.data<std::int8_t>(), b, batch, depth, units,
                            y->data<std::int8_t>(), &ctx.pool());
    else
      tflite::fullyConnectedReference(requant_, x.data<std::int8_t>(), w.data<std::int8_t>(), b, batch, depth, units,
                                  y->data<std::int8_t>());
    return Status::Ok();
  }
  double flops(const std::vector<Shape>& in, const std::vector<Shape>& out) const override {
    if (in.size() < 2 || in[1].size() != 2 || out.empty() || model::numElements(out[0]) < 0) return 0;
    return 2.0 * static_cast<double>(in[1][1]) * static_cast<double>(model::numElements(out[0]));
  }

 private:
  bool keep_num_dims_ = false;
  bool has_bias_ = false;
  std::unique_ptr<tflite::FastLayer> fast_;
  FloatMatMul float_fc_;
  std::unique_ptr<tflite::HybridFullyConnected> hybrid_fc_;
  const std::int8_t* hybrid_weights_ = nullptr;
  std::unique_ptr<lowp::armnn::FullyConnected> armnn_fc_;
  const std::int8_t* armnn_weights_ = nullptr;
  const std::int32_t* armnn_bias_ = nullptr;
};

}  // namespace

void registerConvKernels(KernelRegistry& registry) {
  registry.add("tfl.conv_2d", make<ConvKernel>(ConvForm::kConv));
  registry.add("tfl.depthwise_conv_2d", make<ConvKernel>(ConvForm::kDepthwise));
  registry.add("tfl.fully_connected", make<FullyConnectedKernel>());
}

}  // namespace gds::engine::tflkern
