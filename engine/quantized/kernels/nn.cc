// 8-bit neural-network kernels with TensorFlow's semantics (quantized_conv_ops.cc,
// quantized_matmul_op.cc, quantized_bias_add_op.cc, quantized_activation_ops.cc,
// quantized_pooling_ops.cc, quantized_resize_bilinear_op.cc). Every op takes
// quantized tensors plus float min/max scalars and returns its output with
// its own min/max. The arithmetic lives in engine/quantized/ops.h.
#include <algorithm>
#include <limits>

#include "engine/kernels/nn_kernel_util.h"
#include "engine/ops/nn.h"
#include "engine/quantized/kernels/kernel_util.h"
#include "engine/quantized/ops.h"

namespace gds::engine {

namespace {

using quantized::floatToQuantized;
using F = tensorflow::DataType;
constexpr F kQU8 = tensorflow::DT_QUINT8;
constexpr F kQI32 = tensorflow::DT_QINT32;
constexpr F kFloat = tensorflow::DT_FLOAT;

template <typename K>
KernelFactory factory() {
  return [] { return std::unique_ptr<OpKernel>(new K()); };
}

using QuantizedKernel = qkern::ThreeOutputKernel;

// ------------------------------------------------- Conv2D and MatMul
class QuantizedGemmKernel : public QuantizedKernel {
 public:
  explicit QuantizedGemmKernel(qkern::QuantizedGemmLayer::Kind kind) : kind_(kind) {}
  Status init(const KernelInit& init) override {
    out_type_ = kQI32;
    return layer_.init(init, kind_);
  }
  Status compute(KernelContext& ctx) override {
    GDS_RETURN_IF_ERROR(layer_.prepare(ctx));
    Tensor* out = ctx.allocateOutput(0, kQI32, layer_.outputShape());
    layer_.run(ctx, out->data<std::int32_t>());
    qkern::setScalar(ctx, 1, layer_.outputMin());
    qkern::setScalar(ctx, 2, layer_.outputMax());
    return Status::Ok();
  }
  double flops(const std::vector<Shape>& in, const std::vector<Shape>& out) const override {
    return layer_.flops(in, out);
  }

 private:
  qkern::QuantizedGemmLayer::Kind kind_;
  qkern::QuantizedGemmLayer layer_;
};

// ----------------------------------------------------------- BiasAdd
class QuantizedBiasAddKernel : public QuantizedKernel {
 public:
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(qkern::typeAttr(init, "T1", kQU8, &t_));
    DataType t2;
    GDS_RETURN_IF_ERROR(qkern::typeAttr(init, "T2", kQU8, &t2));
    GDS_RETURN_IF_ERROR(qkern::typeAttr(init, "out_type", kQI32, &out_type_));
    if (t_ != t2 || (t_ != kQU8 && t_ != tensorflow::DT_QINT8) || out_type_ != kQI32)
      return init.error("only T1=T2=quint8 or qint8 with out_type=qint32 is supported (as in TensorFlow)");
    reference_ = init.referenceKernels();
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& bias = ctx.input(1);
    GDS_RETURN_IF_ERROR(qkern::requireType(ctx, 0, t_, "input"));
    GDS_RETURN_IF_ERROR(qkern::requireType(ctx, 1, t_, "bias"));
    float input_min, input_max, bias_min, bias_max;
    GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 2, "min_input", &input_min));
    GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 3, "max_input", &input_max));
    GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 4, "min_bias", &bias_min));
    GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 5, "max_bias", &bias_max));
    if (input.dims() < 2) return ctx.error("Input tensor must be at least 2D: " + model::shapeString(input.shape()));
    if (bias.dims() != 1) return ctx.error("Biases must be 1D: " + model::shapeString(bias.shape()));
    if (bias.dim(0) != input.dim(input.dims() - 1))
      return ctx.error("Must provide as many biases as the last dimension of the input tensor: " +
                       model::shapeString(bias.shape()) + " vs. " + model::shapeString(input.shape()));
    Tensor* out = ctx.allocateOutput(0, kQI32, input.shape());
    float out_min, out_max;
    if (t_ == kQU8) {
      auto fn = reference_ ? &quantized::biasAddReference<std::uint8_t> : &quantized::biasAdd<std::uint8_t>;
      fn(input.data<std::uint8_t>(), input.numElements(), input_min, input_max, bias.data<std::uint8_t>(),
         bias.dim(0), bias_min, bias_max, out->data<std::int32_t>(), &out_min, &out_max);
    } else {
      auto fn = reference_ ? &quantized::biasAddReference<std::int8_t> : &quantized::biasAdd<std::int8_t>;
      fn(input.data<std::int8_t>(), input.numElements(), input_min, input_max, bias.data<std::int8_t>(),
         bias.dim(0), bias_min, bias_max, out->data<std::int32_t>(), &out_min, &out_max);
    }
    qkern::setScalar(ctx, 1, out_min);
    qkern::setScalar(ctx, 2, out_max);
    return Status::Ok();
  }

 private:
  DataType t_ = kQU8;
  bool reference_ = false;
};

// ------------------------------------------------------ Relu / Relu6
// QuantizedRelu clamps below at zero only; QuantizedRelu6 also above at 6.
enum class ReluCeiling { kNone, kSix };

class QuantizedReluKernel : public QuantizedKernel {
 public:
  explicit QuantizedReluKernel(ReluCeiling ceiling) : ceiling_(ceiling) {}
  Status init(const KernelInit& init) override {
    DataType tin;
    GDS_RETURN_IF_ERROR(qkern::typeAttr(init, "Tinput", kQU8, &tin));
    GDS_RETURN_IF_ERROR(qkern::typeAttr(init, "out_type", tin, &out_type_));
    if (tin != out_type_ || (tin != kQU8 && tin != kQI32))
      return init.error("only Tinput=out_type=quint8 or qint32 is supported (as in TensorFlow)");
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    GDS_RETURN_IF_ERROR(qkern::requireType(ctx, 0, out_type_, "features"));
    float min_input, max_input;
    GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 1, "min_features", &min_input));
    GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 2, "max_features", &max_input));
    Tensor* out = ctx.allocateOutput(0, out_type_, input.shape());
    const bool six = ceiling_ == ReluCeiling::kSix;
    if (out_type_ == kQU8) {
      const std::uint8_t lo = floatToQuantized<std::uint8_t>(0.0f, min_input, max_input);
      const std::uint8_t hi = six ? floatToQuantized<std::uint8_t>(6.0f, min_input, max_input) : std::uint8_t{255};
      quantized::clampQuantized(input.data<std::uint8_t>(), input.numElements(), lo, hi, out->data<std::uint8_t>());
    } else {
      const std::int32_t lo = floatToQuantized<std::int32_t>(0.0f, min_input, max_input);
      const std::int32_t hi = six ? floatToQuantized<std::int32_t>(6.0f, min_input, max_input)
                                   : std::numeric_limits<std::int32_t>::max();
      quantized::clampQuantized(input.data<std::int32_t>(), input.numElements(), lo, hi, out->data<std::int32_t>());
    }
    qkern::setScalar(ctx, 1, min_input);
    qkern::setScalar(ctx, 2, max_input);
    return Status::Ok();
  }

 private:
  ReluCeiling ceiling_;
};

// ----------------------------------------------------------- Pooling
enum class PoolKind { kMax, kAverage };

class QuantizedPoolKernel : public QuantizedKernel {
 public:
  explicit QuantizedPoolKernel(PoolKind kind) : kind_(kind) {}
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(qkern::typeAttr(init, "T", kQU8, &out_type_));
    if (out_type_ != kQU8) return init.error("only T=quint8 is supported (as in TensorFlow)");
    GDS_RETURN_IF_ERROR(nn::readWindowAttrs(init, false, true, &window_));
    if (window_.nchw) return init.error("data_format NCHW is not supported for quantized pooling");
    std::vector<std::int64_t> ksize, strides;
    GDS_RETURN_IF_ERROR(init.getAttr("ksize", &ksize));
    GDS_RETURN_IF_ERROR(init.getAttr("strides", &strides));
    if (ksize.size() != 4 || ksize[0] != 1 || ksize[3] != 1 || strides[0] != 1 || strides[3] != 1)
      return init.error("pooling is only supported over the spatial dimensions (ksize and strides [1, h, w, 1])");
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    GDS_RETURN_IF_ERROR(qkern::requireType(ctx, 0, kQU8, "input"));
    if (input.dims() != 4) return ctx.error("tensor_in must be 4-dimensional, got " + model::shapeString(input.shape()));
    float min_input, max_input;
    GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 1, "min_input", &min_input));
    GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 2, "max_input", &max_input));
    ops::WindowDim h{input.dim(1), window_.window_h, window_.stride_h, 1, 0, 0, 0};
    ops::WindowDim w{input.dim(2), window_.window_w, window_.stride_w, 1, 0, 0, 0};
    if (window_.padding == ops::Padding::kExplicit) {
      h.pad_before = window_.explicit_pads[0];
      h.pad_after = window_.explicit_pads[1];
      w.pad_before = window_.explicit_pads[2];
      w.pad_after = window_.explicit_pads[3];
    }
    if (!ops::computeWindow(window_.padding, &h) || !ops::computeWindow(window_.padding, &w))
      return ctx.error("window does not fit input " + model::shapeString(input.shape()));
    ops::Pool2DShape s;
    s.batch = input.dim(0);
    s.in_h = input.dim(1);
    s.in_w = input.dim(2);
    s.channels = input.dim(3);
    s.window_h = window_.window_h;
    s.window_w = window_.window_w;
    s.stride_h = window_.stride_h;
    s.stride_w = window_.stride_w;
    s.pad_top = h.pad_before;
    s.pad_left = w.pad_before;
    s.out_h = h.out;
    s.out_w = w.out;
    Tensor* out = ctx.allocateOutput(0, kQU8, {s.batch, s.out_h, s.out_w, s.channels});
    if (kind_ == PoolKind::kMax)
      quantized::maxPoolU8(s, input.data<std::uint8_t>(), out->data<std::uint8_t>(), &ctx.pool());
    else
      quantized::avgPoolU8(s, input.data<std::uint8_t>(), out->data<std::uint8_t>(), &ctx.pool());
    qkern::setScalar(ctx, 1, min_input);
    qkern::setScalar(ctx, 2, max_input);
    return Status::Ok();
  }

 private:
  PoolKind kind_;
  nn::WindowAttrs window_;
};

// --------------------------------------------------- ResizeBilinear
class QuantizedResizeBilinearKernel : public QuantizedKernel {
 public:
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(qkern::typeAttr(init, "T", kQU8, &out_type_));
    if (out_type_ != kQU8 && out_type_ != kQI32) return init.error("only T=quint8 or qint32 is supported");
    GDS_RETURN_IF_ERROR(init.getAttrOr("align_corners", &align_corners_, false));
    GDS_RETURN_IF_ERROR(init.getAttrOr("half_pixel_centers", &half_pixel_centers_, false));
    if (align_corners_ && half_pixel_centers_)
      return init.error("If half_pixel_centers is True, align_corners must be False.");
    reference_ = init.referenceKernels();
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    GDS_RETURN_IF_ERROR(qkern::requireType(ctx, 0, out_type_, "images"));
    if (input.dims() != 4) return ctx.error("input must be 4-dimensional, got " + model::shapeString(input.shape()));
    const Tensor& size = ctx.input(1);
    if (size.dtype() != tensorflow::DT_INT32 || size.numElements() != 2)
      return ctx.error("size (input 1) must be an int32 tensor of 2 elements");
    float in_min, in_max;
    GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 2, "min", &in_min));
    GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 3, "max", &in_max));
    quantized::ResizeShape s;
    s.batch = input.dim(0);
    s.in_h = input.dim(1);
    s.in_w = input.dim(2);
    s.channels = input.dim(3);
    s.out_h = size.data<std::int32_t>()[0];
    s.out_w = size.data<std::int32_t>()[1];
    if (s.out_h <= 0 || s.out_w <= 0)
      return ctx.error("output dimensions must be positive, got " + std::to_string(s.out_h) + "x" +
                       std::to_string(s.out_w));
    s.height_scale = ops::resizeScale(s.in_h, s.out_h, align_corners_);
    s.width_scale = ops::resizeScale(s.in_w, s.out_w, align_corners_);
    s.half_pixel_centers = half_pixel_centers_;
    Tensor* out = ctx.allocateOutput(0, out_type_, {s.batch, s.out_h, s.out_w, s.channels});
    if (out_type_ == kQU8) {
      if (reference_ && !(s.out_h == s.in_h && s.out_w == s.in_w))
        quantized::resizeBilinearU8Reference(s, input.data<std::uint8_t>(), in_min, in_max, out->data<std::uint8_t>());
      else
        quantized::resizeBilinearU8(s, input.data<std::uint8_t>(), out->data<std::uint8_t>());
    } else {
      quantized::resizeBilinearI32(s, input.data<std::int32_t>(), out->data<std::int32_t>());
    }
    qkern::setScalar(ctx, 1, in_min);
    qkern::setScalar(ctx, 2, in_max);
    return Status::Ok();
  }

 private:
  bool align_corners_ = false, half_pixel_centers_ = false, reference_ = false;
};

}  // namespace

void registerQuantizedNNKernels(KernelRegistry& registry) {
  registry.add("QuantizedConv2D", [] {
    return std::unique_ptr<OpKernel>(new QuantizedGemmKernel(qkern::QuantizedGemmLayer::kConv2D));
  });
  registry.add("QuantizedMatMul", [] {
    return std::unique_ptr<OpKernel>(new QuantizedGemmKernel(qkern::QuantizedGemmLayer::kMatMul));
  });
  registry.add("QuantizedBiasAdd", factory<QuantizedBiasAddKernel>());
  registry.add("QuantizedRelu", [] { return std::unique_ptr<OpKernel>(new QuantizedReluKernel(ReluCeiling::kNone)); });
  registry.add("QuantizedRelu6", [] { return std::unique_ptr<OpKernel>(new QuantizedReluKernel(ReluCeiling::kSix)); });
  registry.add("QuantizedMaxPool", [] { return std::unique_ptr<OpKernel>(new QuantizedPoolKernel(PoolKind::kMax)); });
  registry.add("QuantizedAvgPool", [] {
    return std::unique_ptr<OpKernel>(new QuantizedPoolKernel(PoolKind::kAverage));
  });
  registry.add("QuantizedResizeBilinear", factory<QuantizedResizeBilinearKernel>());
}

}  // namespace gds::engine
