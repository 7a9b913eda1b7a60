// Kernels of the TFLite dialect's ops (tfl.conv_2d, tfl.add, ...; see
// model/tflite/dialect.h), float32 and int8, with TensorFlow Lite's
// semantics: the float loops of engine/ops/tflite.h and the int8 arithmetic
// of engine/quantized/tflite.h. Quantization parameters come from the dialect
// attrs of the producing nodes (inputs) and of the node itself (output 0), so
// what runs here is what the .tflite file says.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "engine/kernel.h"
#include "engine/ops/tflite.h"
#include "engine/quantized/tflite.h"
#include "engine/quantized/tflite_fast.h"
#include "model/tflite/dialect.h"

namespace gds::engine {

namespace {

namespace mt = model::tflite;
namespace qt = quantized::tfl;
namespace ft = ops::tfl;
using tensorflow::DT_FLOAT;
using tensorflow::DT_INT32;
using tensorflow::DT_INT64;
using tensorflow::DT_INT8;

std::string shapeStr(const Shape& s) { return model::shapeString(s); }

// Per-tensor quantization of a tensor: one scale and zero point.
struct QParams {
  float scale = 0;
  std::int32_t zero_point = 0;
};

// What every tfl.* kernel shares: output dtypes from the dialect's
// _output_types, input quantization from the producers' attrs, the fused
// activation.
class TflKernel : public OpKernel {
 public:
  std::vector<DataType> outputTypes(const KernelInit& init) const override {
    std::vector<DataType> types;
    if (init.getAttr(mt::kOutputTypesAttr, &types).ok() && !types.empty()) return types;
    return {init.inputType(0)};
  }

 protected:
  // Whether data input i is absent (reads tfl.no_value) or missing.
  static bool absent(const KernelInit& init, int i) {
    if (i >= init.numInputs()) return true;
    int port = 0;
    const tensorflow::NodeDef* p = init.inputProducer(i, &port);
    return p && p->op() == mt::kNoValueOp;
  }
  static mt::Quantization inputQuantization(const KernelInit& init, int i) {
    int port = 0;
    const tensorflow::NodeDef* p = init.inputProducer(i, &port);
    return p ? mt::quantizationOf(*p, port) : mt::Quantization{};
  }
  // One scale and zero point of input i (or the output when i < 0); errors
  // name the tensor.
  static Status perTensor(const KernelInit& init, int i, QParams* q) {
    const mt::Quantization m = i < 0 ? mt::quantizationOf(init.node(), 0) : inputQuantization(init, i);
    const std::string what = i < 0 ? std::string("the output") : "input " + std::to_string(i);
    if (m.scale.size() != 1 || (m.zero_point.size() != 1 && !m.zero_point.empty()))
      return init.error(what + " is int8 but has no per-tensor quantization (scale and zero point), got " + m.str());
    if (!(m.scale[0] > 0) || !std::isfinite(m.scale[0]))
      return init.error(what + " has quantization scale " + std::to_string(m.scale[0]) + "; expected a positive number");
    q->scale = m.scale[0];
    q->zero_point = m.zero_point.empty() ? 0 : static_cast<std::int32_t>(m.zero_point[0]);
    if (q->zero_point < -128 || q->zero_point > 127)
      return init.error(what + " has zero point " + std::to_string(q->zero_point) + "; int8 needs one in [-128, 127]");
    return Status::Ok();
  }
  // The dtype the kernel computes in: float32 or int8 (input 0's).
  Status readType(const KernelInit& init) {
    type_ = init.inputType(0);
    if (type_ != DT_FLOAT && type_ != DT_INT8)
      return init.error("input 0 is " + model::dtypeName(type_) + "; this op runs on float32 and int8");
    return Status::Ok();
  }
  Status readActivation(const KernelInit& init) {
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::string>("fused_activation_function", &activation_, "NONE"));
    float lo, hi;
    if (!ft::activationRange(activation_.c_str(), &lo, &hi))
      return init.error("fused_activation_function " + activation_ +
                        " is not supported (NONE, RELU, RELU6 and RELU_N1_TO_1 are)");
    fmin_ = lo;
    fmax_ = hi;
    return Status::Ok();
  }
  Status int8ActivationRange(const KernelInit& init, const QParams& out) {
    if (!qt::activationRange(activation_.c_str(), out.scale, out.zero_point, &qmin_, &qmax_))
      return init.error("fused_activation_function " + activation_ + " is not supported for int8");
    return Status::Ok();
  }
  Status requireType(const KernelContext& ctx, int i, DataType t) const {
    if (ctx.input(i).dtype() != t)
      return ctx.error("input " + std::to_string(i) + " is " + model::dtypeName(ctx.input(i).dtype()) + ", expected " +
                       model::dtypeName(t));
    return Status::Ok();
  }

  DataType type_ = DT_FLOAT;
  std::string activation_ = "NONE";
  float fmin_ = 0, fmax_ = 0;
  std::int32_t qmin_ = -128, qmax_ = 127;
};

// TFLite's output size and leading padding (ComputePaddingHeightWidth).
bool windowDim(const std::string& padding, std::int64_t in, std::int64_t k, std::int64_t stride, std::int64_t dil,
               std::int64_t* out, std::int64_t* pad) {
  if (in < 0 || k < 1 || stride < 1 || dil < 1) return false;
  const std::int64_t effective = (k - 1) * dil + 1;
  if (padding == "SAME") *out = (in + stride - 1) / stride;
  else *out = in >= effective ? (in - effective + stride) / stride : 0;
  if (*out < 1 && in > 0) return false;
  const std::int64_t total = (*out - 1) * stride + effective - in;
  *pad = padding == "SAME" && total > 0 ? total / 2 : 0;
  return true;
}

// tfl.conv_2d and tfl.depthwise_conv_2d.
enum class ConvForm { kConv, kDepthwise };

class ConvKernel : public TflKernel {
 public:
  explicit ConvKernel(ConvForm form) : depthwise_(form == ConvForm::kDepthwise) {}
  Status init(const KernelInit& init) override {
    if (init.numInputs() < 2) return init.error("expects input, filter and bias");
    GDS_RETURN_IF_ERROR(readType(init));
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
    if (type_ == DT_INT8) {
      QParams in, out;
      GDS_RETURN_IF_ERROR(perTensor(init, 0, &in));
      GDS_RETURN_IF_ERROR(perTensor(init, -1, &out));
      const mt::Quantization f = inputQuantization(init, 1);
      if (f.scale.empty()) return init.error("the int8 filter (input 1) has no quantization scale");
      for (float s : f.scale)
        if (!(s > 0) || !std::isfinite(s)) return init.error("the filter has a non-positive quantization scale");
      for (auto zp : f.zero_point)
        if (zp != 0) return init.error("the int8 filter has zero point " + std::to_string(zp) + "; TFLite needs 0");
      if (f.perChannel() && f.quantized_dimension != (depthwise_ ? 3 : 0))
        return init.error("the filter is quantized per channel along dimension " +
                          std::to_string(f.quantized_dimension) + "; expected the output channels (dimension " +
                          (depthwise_ ? "3" : "0") + ")");
      filter_scales_ = f.scale;
      requant_.input_offset = -in.zero_point;
      requant_.output_offset = out.zero_point;
      qt::convMultipliers(in.scale, f.scale, out.scale, &requant_);
      GDS_RETURN_IF_ERROR(int8ActivationRange(init, out));
      requant_.act_min = qmin_;
      requant_.act_max = qmax_;
      // The fast path keeps prepared weights: constant filters only.
      if (init.constantInput(1) && !init.referenceKernels())
        fast_ = std::make_unique<qt::FastLayer>(depthwise_ ? qt::FastLayer::Kind::kDepthwise : qt::FastLayer::Kind::kConv);
    }
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Tensor& f = ctx.input(1);
    GDS_RETURN_IF_ERROR(requireType(ctx, 0, type_));
    GDS_RETURN_IF_ERROR(requireType(ctx, 1, type_));
    if (x.dims() != 4) return ctx.error("input must be 4-D NHWC, got " + shapeStr(x.shape()));
    if (f.dims() != 4) return ctx.error("filter must be 4-D, got " + shapeStr(f.shape()));
    qt::ConvShape s;
    s.batch = x.dim(0);
    s.in_h = x.dim(1);
    s.in_w = x.dim(2);
    s.in_c = x.dim(3);
    s.k_h = f.dim(1);
    s.k_w = f.dim(2);
    s.stride_h = stride_h_;
    s.stride_w = stride_w_;
    s.dil_h = dil_h_;
    s.dil_w = dil_w_;
    if (depthwise_) {
      s.out_c = f.dim(3);
      if (f.dim(0) != 1 || s.in_c == 0 || s.out_c % s.in_c != 0)
        return ctx.error("depthwise filter " + shapeStr(f.shape()) + " does not fit input " + shapeStr(x.shape()) +
                         " (expected [1, h, w, in_channels x depth_multiplier])");
      s.depth_multiplier = s.out_c / s.in_c;
    } else {
      s.out_c = f.dim(0);
      if (f.dim(3) != s.in_c)
        return ctx.error("filter " + shapeStr(f.shape()) + " has " + std::to_string(f.dim(3)) +
                         " input channels, the input " + shapeStr(x.shape()) + " has " + std::to_string(s.in_c));
    }
    if (!windowDim(padding_, s.in_h, s.k_h, s.stride_h, s.dil_h, &s.out_h, &s.pad_top) ||
        !windowDim(padding_, s.in_w, s.k_w, s.stride_w, s.dil_w, &s.out_w, &s.pad_left))
      return ctx.error("the filter " + shapeStr(f.shape()) + " does not fit the input " + shapeStr(x.shape()));
    const Tensor* bias = nullptr;
    if (has_bias_) {
      bias = &ctx.input(2);
      GDS_RETURN_IF_ERROR(requireType(ctx, 2, type_ == DT_INT8 ? DT_INT32 : DT_FLOAT));
      if (bias->numElements() != s.out_c)
        return ctx.error("bias " + shapeStr(bias->shape()) + " must have " + std::to_string(s.out_c) + " elements");
    }
    if (type_ == DT_INT8 && requant_.multiplier.size() != 1 &&
        static_cast<std::int64_t>(requant_.multiplier.size()) != s.out_c)
      return ctx.error("the filter has " + std::to_string(requant_.multiplier.size()) + " per-channel scales for " +
                       std::to_string(s.out_c) + " output channels");
    Tensor* y = ctx.allocateOutput(0, type_, {s.batch, s.out_h, s.out_w, s.out_c});
    if (type_ == DT_FLOAT) {
      ft::FloatConvShape fs;
      fs.batch = s.batch; fs.in_h = s.in_h; fs.in_w = s.in_w; fs.in_c = s.in_c;
      fs.out_h = s.out_h; fs.out_w = s.out_w; fs.out_c = s.out_c; fs.k_h = s.k_h; fs.k_w = s.k_w;
      fs.stride_h = s.stride_h; fs.stride_w = s.stride_w; fs.dil_h = s.dil_h; fs.dil_w = s.dil_w;
      fs.pad_top = s.pad_top; fs.pad_left = s.pad_left; fs.depth_multiplier = s.depth_multiplier;
      const float* b = bias ? bias->data<float>() : nullptr;
      if (depthwise_) ft::depthwiseReference(fs, x.data<float>(), f.data<float>(), b, fmin_, fmax_, y->data<float>());
      else ft::convReference(fs, x.data<float>(), f.data<float>(), b, fmin_, fmax_, y->data<float>());
      return Status::Ok();
    }
    const std::int32_t* b = bias ? bias->data<std::int32_t>() : nullptr;
    if (fast_ && !ctx.referenceKernels())
      fast_->conv(s, requant_, x.data<std::int8_t>(), f.data<std::int8_t>(), b, y->data<std::int8_t>(), &ctx.pool());
    else if (depthwise_)
      qt::depthwiseReference(s, requant_, x.data<std::int8_t>(), f.data<std::int8_t>(), b, y->data<std::int8_t>());
    else
      qt::convReference(s, requant_, x.data<std::int8_t>(), f.data<std::int8_t>(), b, y->data<std::int8_t>());
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
  std::vector<float> filter_scales_;
  qt::Requant requant_;
  std::unique_ptr<qt::FastLayer> fast_;
};

// tfl.fully_connected: input flattened to [batch, depth], weights [units, depth].
class FullyConnectedKernel : public TflKernel {
 public:
  Status init(const KernelInit& init) override {
    if (init.numInputs() < 2) return init.error("expects input, weights and bias");
    GDS_RETURN_IF_ERROR(readType(init));
    GDS_RETURN_IF_ERROR(readActivation(init));
    std::string format;
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::string>("weights_format", &format, "DEFAULT"));
    if (format != "DEFAULT") return init.error("weights_format " + format + " is not supported (DEFAULT is)");
    GDS_RETURN_IF_ERROR(init.getAttrOr("keep_num_dims", &keep_num_dims_, false));
    has_bias_ = !absent(init, 2);
    if (type_ == DT_INT8) {
      QParams in, out;
      GDS_RETURN_IF_ERROR(perTensor(init, 0, &in));
      GDS_RETURN_IF_ERROR(perTensor(init, -1, &out));
      const mt::Quantization f = inputQuantization(init, 1);
      if (f.scale.empty()) return init.error("the int8 weights (input 1) have no quantization scale");
      for (float s : f.scale)
        if (!(s > 0) || !std::isfinite(s)) return init.error("the weights have a non-positive quantization scale");
      if (f.perChannel() && f.quantized_dimension != 0)
        return init.error("the weights are quantized per channel along dimension " +
                          std::to_string(f.quantized_dimension) + "; expected 0 (the units)");
      // Per-tensor int8 weights may carry a zero point (filter_offset).
      requant_.filter_offset = f.zero_point.size() == 1 ? -static_cast<std::int32_t>(f.zero_point[0]) : 0;
      requant_.input_offset = -in.zero_point;
      requant_.output_offset = out.zero_point;
      qt::convMultipliers(in.scale, f.scale, out.scale, &requant_);
      GDS_RETURN_IF_ERROR(int8ActivationRange(init, out));
      requant_.act_min = qmin_;
      requant_.act_max = qmax_;
      if (init.constantInput(1) && !init.referenceKernels())
        fast_ = std::make_unique<qt::FastLayer>(qt::FastLayer::Kind::kFullyConnected);
    }
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    GDS_RETURN_IF_ERROR(requireType(ctx, 0, type_));
    GDS_RETURN_IF_ERROR(requireType(ctx, 1, type_));
    if (w.dims() != 2) return ctx.error("weights must be 2-D [units, depth], got " + shapeStr(w.shape()));
    const std::int64_t units = w.dim(0), depth = w.dim(1);
    if (depth == 0 || x.numElements() % depth != 0 || x.dims() < 1)
      return ctx.error("input " + shapeStr(x.shape()) + " does not split into rows of " + std::to_string(depth));
    const std::int64_t batch = x.numElements() / depth;
    const Tensor* bias = nullptr;
    if (has_bias_) {
      bias = &ctx.input(2);
      GDS_RETURN_IF_ERROR(requireType(ctx, 2, type_ == DT_INT8 ? DT_INT32 : DT_FLOAT));
      if (bias->numElements() != units)
        return ctx.error("bias " + shapeStr(bias->shape()) + " must have " + std::to_string(units) + " elements");
    }
    if (type_ == DT_INT8 && requant_.multiplier.size() != 1 &&
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
    if (type_ == DT_FLOAT) {
      ft::fullyConnectedReference(x.data<float>(), w.data<float>(), bias ? bias->data<float>() : nullptr, batch, depth,
                                  units, fmin_, fmax_, y->data<float>());
      return Status::Ok();
    }
    const std::int32_t* b = bias ? bias->data<std::int32_t>() : nullptr;
    if (fast_ && !ctx.referenceKernels())
      fast_->fullyConnected(requant_, x.data<std::int8_t>(), w.data<std::int8_t>(), b, batch, depth, units,
                            y->data<std::int8_t>(), &ctx.pool());
    else
      qt::fullyConnectedReference(requant_, x.data<std::int8_t>(), w.data<std::int8_t>(), b, batch, depth, units,
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
  qt::Requant requant_;
  std::unique_ptr<qt::FastLayer> fast_;
};

// numpy broadcasting of a and b into out: fn(out index, a index, b index).
template <typename Fn>
Status forEachBroadcast(const KernelContext& ctx, const Shape& a, const Shape& b, Shape* out, Fn fn, bool run) {
  const std::size_t rank = std::max(a.size(), b.size());
  Shape pa(rank - a.size(), 1), pb(rank - b.size(), 1);
  pa.insert(pa.end(), a.begin(), a.end());
  pb.insert(pb.end(), b.begin(), b.end());
  out->assign(rank, 1);
  for (std::size_t d = 0; d < rank; ++d) {
    if (pa[d] != pb[d] && pa[d] != 1 && pb[d] != 1)
      return ctx.error("shapes " + shapeStr(a) + " and " + shapeStr(b) + " do not broadcast");
    (*out)[d] = pa[d] == 1 ? pb[d] : pa[d];
  }
  if (!run) return Status::Ok();
  std::vector<std::int64_t> sa(rank, 0), sb(rank, 0);
  std::int64_t ma = 1, mb = 1;
  for (std::size_t d = rank; d-- > 0;) {
    sa[d] = pa[d] == 1 ? 0 : ma;
    sb[d] = pb[d] == 1 ? 0 : mb;
    ma *= pa[d];
    mb *= pb[d];
  }
  const std::int64_t n = model::numElements(*out);
  std::vector<std::int64_t> idx(rank, 0);
  std::int64_t ia = 0, ib = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    fn(i, ia, ib);
    for (std::size_t d = rank; d-- > 0;) {
      ++idx[d];
      ia += sa[d];
      ib += sb[d];
      if (idx[d] < (*out)[d]) break;
      ia -= sa[d] * idx[d];
      ib -= sb[d] * idx[d];
      idx[d] = 0;
    }
  }
  return Status::Ok();
}

// tfl.add, tfl.sub, tfl.mul.
class BinaryKernel : public TflKernel {
 public:
  explicit BinaryKernel(qt::BinaryOp op) : op_(op) {}
  Status init(const KernelInit& init) override {
    if (init.numInputs() != 2) return init.error("expects 2 inputs");
    GDS_RETURN_IF_ERROR(readType(init));
    GDS_RETURN_IF_ERROR(readActivation(init));
    if (type_ == DT_INT8 && op_ == qt::BinaryOp::kDiv)
      return init.error("DIV has no int8 kernel in TensorFlow Lite (it runs float32, int32 and uint8)");
    if (type_ == DT_INT8) {
      QParams a, b, out;
      GDS_RETURN_IF_ERROR(perTensor(init, 0, &a));
      GDS_RETURN_IF_ERROR(perTensor(init, 1, &b));
      GDS_RETURN_IF_ERROR(perTensor(init, -1, &out));
      GDS_RETURN_IF_ERROR(int8ActivationRange(init, out));
      params_ = qt::binaryParams(op_, a.scale, a.zero_point, b.scale, b.zero_point, out.scale, out.zero_point, qmin_,
                                 qmax_);
    }
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    GDS_RETURN_IF_ERROR(requireType(ctx, 0, type_));
    GDS_RETURN_IF_ERROR(requireType(ctx, 1, type_));
    Shape out_shape;
    GDS_RETURN_IF_ERROR(forEachBroadcast(ctx, a.shape(), b.shape(), &out_shape, [](auto, auto, auto) {}, false));
    Tensor* y = ctx.allocateOutput(0, type_, out_shape);
    if (type_ == DT_FLOAT) {
      const float* pa = a.data<float>();
      const float* pb = b.data<float>();
      float* py = y->data<float>();
      const float lo = fmin_, hi = fmax_;
      const qt::BinaryOp op = op_;
      return forEachBroadcast(ctx, a.shape(), b.shape(), &out_shape, [=](std::int64_t i, std::int64_t ia, std::int64_t ib) {
        const float r = op == qt::BinaryOp::kAdd       ? pa[ia] + pb[ib]
                        : op == qt::BinaryOp::kSub     ? pa[ia] - pb[ib]
                        : op == qt::BinaryOp::kMul     ? pa[ia] * pb[ib]
                        : op == qt::BinaryOp::kMaximum ? std::max(pa[ia], pb[ib])
                        : op == qt::BinaryOp::kMinimum ? std::min(pa[ia], pb[ib])
                                                       : pa[ia] / pb[ib];
        py[i] = std::min(std::max(r, lo), hi);
      }, true);
    }
    const std::int8_t* pa = a.data<std::int8_t>();
    const std::int8_t* pb = b.data<std::int8_t>();
    std::int8_t* py = y->data<std::int8_t>();
    const qt::BinaryParams p = params_;
    const qt::BinaryOp op = op_;
    const std::int64_t n = y->numElements();
    const bool a_whole = a.numElements() == n, b_whole = b.numElements() == n;
    const bool arithmetic = op == qt::BinaryOp::kAdd || op == qt::BinaryOp::kSub || op == qt::BinaryOp::kMul;
    if (arithmetic && !ctx.referenceKernels() && (a_whole || a.numElements() == 1) &&
        (b_whole || b.numElements() == 1)) {
      // Equal shapes or a scalar operand: the vector loop on blocks (binaryFast knows add, sub and mul).
      ctx.pool().parallelFor(n, 16, [&](std::int64_t begin, std::int64_t end) {
        qt::binaryFast(op, p, a_whole ? pa + begin : pa, !a_whole, b_whole ? pb + begin : pb, !b_whole, end - begin,
                       py + begin);
      });
      return Status::Ok();
    }
    return forEachBroadcast(ctx, a.shape(), b.shape(), &out_shape, [=](std::int64_t i, std::int64_t ia, std::int64_t ib) {
      py[i] = qt::binaryElement(op, p, pa[ia], pb[ib]);
    }, true);
  }

 private:
  qt::BinaryOp op_;
  qt::BinaryParams params_;
};

// tfl.average_pool_2d, tfl.max_pool_2d.
enum class PoolKind { kAverage, kMax };

class PoolKernel : public TflKernel {
 public:
  explicit PoolKernel(PoolKind kind) : max_(kind == PoolKind::kMax) {}
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(readType(init));
    GDS_RETURN_IF_ERROR(init.getAttr("padding", &padding_));
    if (padding_ != "SAME" && padding_ != "VALID") return init.error("padding must be SAME or VALID, got " + padding_);
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("stride_h", &stride_h_, 1));
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("stride_w", &stride_w_, 1));
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("filter_height", &k_h_, 1));
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("filter_width", &k_w_, 1));
    GDS_RETURN_IF_ERROR(readActivation(init));
    if (type_ == DT_INT8) {
      QParams in, out;
      GDS_RETURN_IF_ERROR(perTensor(init, 0, &in));
      GDS_RETURN_IF_ERROR(perTensor(init, -1, &out));
      // TFLite's int8 pools work on raw values: the input and output share
      // their quantization (pooling.cc checks it).
      if (in.scale != out.scale || in.zero_point != out.zero_point)
        return init.error("int8 pooling needs the input and output quantization to be equal");
      GDS_RETURN_IF_ERROR(int8ActivationRange(init, out));
    }
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    GDS_RETURN_IF_ERROR(requireType(ctx, 0, type_));
    if (x.dims() != 4) return ctx.error("input must be 4-D NHWC, got " + shapeStr(x.shape()));
    qt::ConvShape s;
    s.batch = x.dim(0);
    s.in_h = x.dim(1);
    s.in_w = x.dim(2);
    s.in_c = s.out_c = x.dim(3);
    s.k_h = k_h_;
    s.k_w = k_w_;
    s.stride_h = stride_h_;
    s.stride_w = stride_w_;
    if (!windowDim(padding_, s.in_h, s.k_h, s.stride_h, 1, &s.out_h, &s.pad_top) ||
        !windowDim(padding_, s.in_w, s.k_w, s.stride_w, 1, &s.out_w, &s.pad_left))
      return ctx.error("the window " + std::to_string(k_h_) + "x" + std::to_string(k_w_) + " does not fit the input " +
                       shapeStr(x.shape()));
    Tensor* y = ctx.allocateOutput(0, type_, {s.batch, s.out_h, s.out_w, s.out_c});
    if (type_ == DT_FLOAT) {
      ft::FloatConvShape fs;
      fs.batch = s.batch; fs.in_h = s.in_h; fs.in_w = s.in_w; fs.in_c = s.in_c; fs.out_c = s.out_c;
      fs.out_h = s.out_h; fs.out_w = s.out_w; fs.k_h = s.k_h; fs.k_w = s.k_w;
      fs.stride_h = s.stride_h; fs.stride_w = s.stride_w; fs.pad_top = s.pad_top; fs.pad_left = s.pad_left;
      if (max_) ft::maxPoolReference(fs, fmin_, fmax_, x.data<float>(), y->data<float>());
      else ft::averagePoolReference(fs, fmin_, fmax_, x.data<float>(), y->data<float>());
    } else if (ctx.referenceKernels()) {
      if (max_) qt::maxPoolReference(s, qmin_, qmax_, x.data<std::int8_t>(), y->data<std::int8_t>());
      else qt::averagePoolReference(s, qmin_, qmax_, x.data<std::int8_t>(), y->data<std::int8_t>());
    } else {
      const std::int8_t* in = x.data<std::int8_t>();
      std::int8_t* out = y->data<std::int8_t>();
      const double cost = static_cast<double>(s.out_w * s.out_c * s.k_h * s.k_w);
      ctx.pool().parallelFor(s.batch * s.out_h, cost, [&](std::int64_t begin, std::int64_t end) {
        if (max_) qt::maxPoolRows(s, qmin_, qmax_, in, begin, end, out);
        else qt::averagePoolRows(s, qmin_, qmax_, in, begin, end, out);
      });
    }
    return Status::Ok();
  }

 private:
  bool max_;
  std::string padding_;
  std::int64_t stride_h_ = 1, stride_w_ = 1, k_h_ = 1, k_w_ = 1;
};

// Integer values of a tensor (int32 or int64).
bool intValues(const Tensor& t, std::vector<std::int64_t>* out) {
  out->clear();
  if (t.dtype() == DT_INT32)
    for (std::int64_t i = 0; i < t.numElements(); ++i) out->push_back(t.data<std::int32_t>()[i]);
  else if (t.dtype() == DT_INT64)
    for (std::int64_t i = 0; i < t.numElements(); ++i) out->push_back(t.data<std::int64_t>()[i]);
  else
    return false;
  return true;
}

// tfl.mean over adjacent axes.
class MeanKernel : public TflKernel {
 public:
  Status init(const KernelInit& init) override {
    if (init.numInputs() != 2) return init.error("expects input and axis");
    GDS_RETURN_IF_ERROR(readType(init));
    GDS_RETURN_IF_ERROR(init.getAttrOr("keep_dims", &keep_dims_, false));
    if (type_ == DT_INT8) {
      GDS_RETURN_IF_ERROR(perTensor(init, 0, &in_));
      GDS_RETURN_IF_ERROR(perTensor(init, -1, &out_));
    }
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    GDS_RETURN_IF_ERROR(requireType(ctx, 0, type_));
    std::vector<std::int64_t> axes;
    if (!intValues(ctx.input(1), &axes)) return ctx.error("axis (input 1) must be int32 or int64");
    const std::int64_t rank = x.dims();
    std::vector<bool> reduced(static_cast<std::size_t>(rank), false);
    for (std::int64_t a : axes) {
      if (a < -rank || a >= rank)
        return ctx.error("axis " + std::to_string(a) + " is out of range for input " + shapeStr(x.shape()));
      reduced[static_cast<std::size_t>(a < 0 ? a + rank : a)] = true;
    }
    std::int64_t first = -1, last = -1;
    for (std::int64_t d = 0; d < rank; ++d)
      if (reduced[static_cast<std::size_t>(d)]) {
        if (first < 0) first = d;
        else if (last != d - 1)
          return ctx.error("MEAN over axes that are not adjacent is not supported (input " + shapeStr(x.shape()) + ")");
        last = d;
      }
    if (first < 0) first = last = rank;  // nothing reduced
    else if (last < 0) last = first;
    std::int64_t outer = 1, inner = 1, trailing = 1;
    Shape out_shape;
    for (std::int64_t d = 0; d < rank; ++d) {
      const std::int64_t n = x.dim(static_cast<int>(d));
      if (d < first) outer *= n;
      else if (d <= last) inner *= n;
      else trailing *= n;
      if (d < first || d > last) out_shape.push_back(n);
      else if (keep_dims_) out_shape.push_back(1);
    }
    Tensor* y = ctx.allocateOutput(0, type_, out_shape);
    if (type_ == DT_FLOAT)
      ft::meanReference(x.data<float>(), outer, inner, trailing, y->data<float>());
    else {
      // reduce.cc takes optimized_integer_ops::Mean for exactly this case
      // (the axis values as given, not normalized).
      const bool spatial = keep_dims_ && rank == 4 && axes.size() == 2 &&
                           ((axes[0] == 1 && axes[1] == 2) || (axes[0] == 2 && axes[1] == 1));
      const qt::MeanParams p = qt::meanParams(in_.scale, in_.zero_point, out_.scale, out_.zero_point, inner, spatial);
      qt::meanReference(p, x.data<std::int8_t>(), outer, inner, trailing, y->data<std::int8_t>());
    }
    return Status::Ok();
  }

 private:
  bool keep_dims_ = false;
  QParams in_, out_;
};

// tfl.transpose (reference_ops::Transpose): the elements moved, float32 or
// int8 (the output keeps the input's quantization).
class TransposeKernel : public TflKernel {
 public:
  Status init(const KernelInit& init) override {
    if (init.numInputs() != 2) return init.error("expects input and perm");
    return readType(init);
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    GDS_RETURN_IF_ERROR(requireType(ctx, 0, type_));
    std::vector<std::int64_t> perm;
    if (!intValues(ctx.input(1), &perm)) return ctx.error("perm (input 1) must be int32 or int64");
    const std::int64_t rank = x.dims();
    if (static_cast<std::int64_t>(perm.size()) != rank)
      return ctx.error("perm has " + std::to_string(perm.size()) + " entries for input " + shapeStr(x.shape()));
    std::vector<bool> seen(static_cast<std::size_t>(rank), false);
    Shape out_shape;
    for (std::int64_t& p : perm) {
      if (p < 0) p += rank;
      if (p < 0 || p >= rank || seen[static_cast<std::size_t>(p)])
        return ctx.error("perm is not a permutation of the " + std::to_string(rank) + " dimensions of input " +
                         shapeStr(x.shape()));
      seen[static_cast<std::size_t>(p)] = true;
      out_shape.push_back(x.dim(static_cast<int>(p)));
    }
    Tensor* y = ctx.allocateOutput(0, type_, out_shape);
    // Input strides in output dimension order.
    std::vector<std::int64_t> in_stride(static_cast<std::size_t>(rank), 1), stride(static_cast<std::size_t>(rank));
    for (std::int64_t d = rank - 2; d >= 0; --d)
      in_stride[static_cast<std::size_t>(d)] = in_stride[static_cast<std::size_t>(d + 1)] * x.dim(static_cast<int>(d + 1));
    for (std::int64_t d = 0; d < rank; ++d)
      stride[static_cast<std::size_t>(d)] = in_stride[static_cast<std::size_t>(perm[static_cast<std::size_t>(d)])];
    const std::size_t size = type_ == DT_FLOAT ? sizeof(float) : sizeof(std::int8_t);
    const auto* src = static_cast<const std::uint8_t*>(x.raw());
    auto* dst = static_cast<std::uint8_t*>(y->raw());
    std::vector<std::int64_t> index(static_cast<std::size_t>(rank), 0);
    const std::int64_t n = y->numElements();
    for (std::int64_t i = 0; i < n; ++i) {
      std::int64_t offset = 0;
      for (std::int64_t d = 0; d < rank; ++d) offset += index[static_cast<std::size_t>(d)] * stride[static_cast<std::size_t>(d)];
      std::memcpy(dst + static_cast<std::size_t>(i) * size, src + static_cast<std::size_t>(offset) * size, size);
      for (std::int64_t d = rank - 1; d >= 0; --d) {
        if (++index[static_cast<std::size_t>(d)] < out_shape[static_cast<std::size_t>(d)]) break;
        index[static_cast<std::size_t>(d)] = 0;
      }
    }
    return Status::Ok();
  }
};

// tfl.strided_slice (strided_slice.cc, reference_ops::StridedSlice): the
// selected elements moved, of any fixed-size type (an int8 output keeps the
// input's quantization, as the converter writes it).
class SliceKernelBase : public TflKernel {
 protected:
  Status readElementType(const KernelInit& init, const char* op) {
    type_ = init.inputType(0);
    if (type_ == tensorflow::DT_STRING || model::dtypeSize(type_) == 0)
      return init.error("input 0 is " + model::dtypeName(type_) + "; this op moves fixed-size elements");
    if (type_ == DT_INT8) {
      const mt::Quantization in = inputQuantization(init, 0), out = mt::quantizationOf(init.node(), 0);
      if (!(in == out))
        return init.error(std::string("int8 ") + op + " needs the input and output quantization to be equal (input " +
                          in.str() + ", output " + out.str() + ")");
    }
    return Status::Ok();
  }
  // Index input k as int32 values.
  static Status indexValues(const KernelContext& ctx, int k, const char* what, std::vector<std::int64_t>* out) {
    const Tensor& t = ctx.input(k);
    if ((t.dtype() != DT_INT32 && t.dtype() != DT_INT64) || t.dims() != 1)
      return ctx.error(std::string(what) + " (input " + std::to_string(k) +
                       ") must be a 1-D int32 or int64 tensor, got " + model::dtypeName(t.dtype()) +
                       shapeStr(t.shape()));
    intValues(t, out);
    return Status::Ok();
  }
  Status slice(KernelContext& ctx, const ft::StridedSliceParams& p) const {
    const Tensor& x = ctx.input(0);
    ft::StridedSliceWalk walk;
    std::string error;
    if (!ft::stridedSlicePlan(p, x.shape(), &walk, &error))
      return ctx.error(error + " (input " + shapeStr(x.shape()) + ")");
    Tensor* y = ctx.allocateOutput(0, type_, walk.output_shape);
    ft::stridedSliceReference(walk, model::dtypeSize(type_), x.raw(), y->raw());
    return Status::Ok();
  }
};

class StridedSliceKernel : public SliceKernelBase {
 public:
  Status init(const KernelInit& init) override {
    if (init.numInputs() != 4) return init.error("expects input, begin, end and strides");
    GDS_RETURN_IF_ERROR(readElementType(init, "STRIDED_SLICE"));
    for (const char* mask : {"ellipsis_mask", "new_axis_mask"}) {
      std::int64_t value = 0;
      GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>(mask, &value, 0));
      if (value != 0)
        return init.error(std::string(mask) + " is " + std::to_string(value) +
                          "; gdstudio runs STRIDED_SLICE without ellipsis and new axes (TensorFlow's converter "
                          "rewrites them into the begin/end masks and a RESHAPE)");
    }
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("begin_mask", &params_.begin_mask, 0));
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("end_mask", &params_.end_mask, 0));
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("shrink_axis_mask", &params_.shrink_axis_mask, 0));
    return init.getAttrOr<bool>("offset", &params_.offset, false);
  }
  Status compute(KernelContext& ctx) override {
    GDS_RETURN_IF_ERROR(requireType(ctx, 0, type_));
    ft::StridedSliceParams p = params_;
    GDS_RETURN_IF_ERROR(indexValues(ctx, 1, "begin", &p.begin));
    GDS_RETURN_IF_ERROR(indexValues(ctx, 2, "end", &p.end));
    GDS_RETURN_IF_ERROR(indexValues(ctx, 3, "strides", &p.strides));
    return slice(ctx, p);
  }

 private:
  ft::StridedSliceParams params_;
};

// tfl.slice (slice.cc, reference_ops::Slice): size[d] elements from
// begin[d] (-1: to the end); begin + size must stay inside the input.
class SliceKernel : public SliceKernelBase {
 public:
  Status init(const KernelInit& init) override {
    if (init.numInputs() != 3) return init.error("expects input, begin and size");
    return readElementType(init, "SLICE");
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    GDS_RETURN_IF_ERROR(requireType(ctx, 0, type_));
    std::vector<std::int64_t> begin, size;
    GDS_RETURN_IF_ERROR(indexValues(ctx, 1, "begin", &begin));
    GDS_RETURN_IF_ERROR(indexValues(ctx, 2, "size", &size));
    if (static_cast<int>(begin.size()) != x.dims() || static_cast<int>(size.size()) != x.dims())
      return ctx.error("begin and size need one entry per dimension of input " + shapeStr(x.shape()));
    ft::StridedSliceParams p;
    for (int d = 0; d < x.dims(); ++d) {
      const std::int64_t b = begin[static_cast<std::size_t>(d)], n = size[static_cast<std::size_t>(d)];
      if (b < 0 || b > x.dim(d) || n < -1 || (n >= 0 && b + n > x.dim(d)))
        return ctx.error("begin " + std::to_string(b) + " and size " + std::to_string(n) + " of dimension " +
                         std::to_string(d) + " do not fit input " + shapeStr(x.shape()));
      p.begin.push_back(b);
      p.end.push_back(n < 0 ? x.dim(d) : b + n);
      p.strides.push_back(1);
    }
    return slice(ctx, p);
  }
};

// tfl.arg_max (arg_min_max.cc, reference_ops::ArgMinMax): the index of the
// first largest value along the axis (an int8 input compares its stored
// values, which order as the real ones), as int64 or int32.
class ArgMaxKernel : public TflKernel {
 public:
  Status init(const KernelInit& init) override {
    if (init.numInputs() != 2) return init.error("expects input and axis");
    GDS_RETURN_IF_ERROR(readType(init));
    const std::vector<DataType> types = outputTypes(init);
    out_type_ = types.empty() ? DT_INT64 : types[0];
    if (out_type_ != DT_INT64 && out_type_ != DT_INT32)
      return init.error("the output is " + model::dtypeName(out_type_) + "; ARG_MAX writes int32 or int64");
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    GDS_RETURN_IF_ERROR(requireType(ctx, 0, type_));
    std::vector<std::int64_t> axes;
    if (!intValues(ctx.input(1), &axes) || axes.size() != 1)
      return ctx.error("axis (input 1) must be one int32 or int64 value");
    std::int64_t axis = axes[0];
    if (axis < 0) axis += x.dims();
    if (axis < 0 || axis >= x.dims())
      return ctx.error("axis " + std::to_string(axes[0]) + " is out of range for input " + shapeStr(x.shape()));
    Shape out_shape;
    std::int64_t outer = 1, inner = 1;
    for (int d = 0; d < x.dims(); ++d) {
      if (d != axis) out_shape.push_back(x.dim(d));
      if (d < axis) outer *= x.dim(d);
      if (d > axis) inner *= x.dim(d);
    }
    const std::int64_t size = x.dim(static_cast<int>(axis));
    if (size < 1) return ctx.error("cannot take the arg max over an empty axis of " + shapeStr(x.shape()));
    Tensor* y = ctx.allocateOutput(0, out_type_, out_shape);
    auto run = [&](const auto* v) {
      for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t i = 0; i < inner; ++i) {
          std::int64_t best = 0;
          for (std::int64_t k = 1; k < size; ++k)
            if (v[(o * size + k) * inner + i] > v[(o * size + best) * inner + i]) best = k;
          if (out_type_ == DT_INT64)
            y->data<std::int64_t>()[o * inner + i] = best;
          else
            y->data<std::int32_t>()[o * inner + i] = static_cast<std::int32_t>(best);
        }
    };
    if (type_ == DT_FLOAT)
      run(x.data<float>());
    else
      run(x.data<std::int8_t>());
    return Status::Ok();
  }

 private:
  DataType out_type_ = DT_INT64;
};

// tfl.pad, tfl.padv2 (constant padding).
class PadKernel : public TflKernel {
 public:
  Status init(const KernelInit& init) override {
    if (init.numInputs() < 2) return init.error("expects input and paddings");
    type_ = init.inputType(0);
    if (type_ != DT_FLOAT && type_ != DT_INT8) return init.error("input 0 must be float32 or int8");
    if (type_ == DT_INT8) {
      QParams out;
      GDS_RETURN_IF_ERROR(perTensor(init, -1, &out));
      // pad.cc: int8 tensors are padded with the output zero point.
      pad_int8_ = static_cast<std::int8_t>(out.zero_point);
    }
    has_value_ = init.numInputs() > 2 && !absent(init, 2);
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    GDS_RETURN_IF_ERROR(requireType(ctx, 0, type_));
    std::vector<std::int64_t> pads;
    if (!intValues(ctx.input(1), &pads) || static_cast<std::int64_t>(pads.size()) != 2 * x.dims())
      return ctx.error("paddings (input 1) must be int32/int64 [" + std::to_string(x.dims()) + ", 2], got " +
                       shapeStr(ctx.input(1).shape()));
    Shape out_shape;
    for (int d = 0; d < x.dims(); ++d) {
      const std::int64_t lo = pads[2 * static_cast<std::size_t>(d)], hi = pads[2 * static_cast<std::size_t>(d) + 1];
      if (lo < 0 || hi < 0) return ctx.error("paddings must be >= 0");
      out_shape.push_back(x.dim(d) + lo + hi);
    }
    Tensor* y = ctx.allocateOutput(0, type_, out_shape);
    const std::size_t esize = type_ == DT_FLOAT ? 4 : 1;
    // Fill with the pad value, then copy the input rows in.
    if (type_ == DT_FLOAT) {
      float v = 0.0f;
      if (has_value_) {
        GDS_RETURN_IF_ERROR(requireType(ctx, 2, DT_FLOAT));
        v = ctx.input(2).data<float>()[0];
      }
      std::fill(y->data<float>(), y->data<float>() + y->numElements(), v);
    } else {
      std::int8_t v = pad_int8_;
      if (has_value_) {
        GDS_RETURN_IF_ERROR(requireType(ctx, 2, DT_INT8));
        v = ctx.input(2).data<std::int8_t>()[0];
      }
      std::fill(y->data<std::int8_t>(), y->data<std::int8_t>() + y->numElements(), v);
    }
    const int rank = x.dims();
    if (x.numElements() == 0) return Status::Ok();
    const std::int64_t row = rank == 0 ? 1 : x.dim(rank - 1);
    const std::int64_t rows = row == 0 ? 0 : x.numElements() / row;
    std::vector<std::int64_t> idx(static_cast<std::size_t>(std::max(rank - 1, 0)), 0);
    const auto* src = static_cast<const unsigned char*>(x.raw());
    auto* dst = static_cast<unsigned char*>(y->raw());
    for (std::int64_t r = 0; r < rows; ++r) {
      std::int64_t off = 0;
      for (int d = 0; d < rank; ++d) {
        const std::int64_t i = d < rank - 1 ? idx[static_cast<std::size_t>(d)] : 0;
        off = off * out_shape[static_cast<std::size_t>(d)] + i + pads[2 * static_cast<std::size_t>(d)];
      }
      std::memcpy(dst + static_cast<std::size_t>(off) * esize, src + static_cast<std::size_t>(r * row) * esize,
                  static_cast<std::size_t>(row) * esize);
      for (int d = rank - 2; d >= 0; --d) {
        if (++idx[static_cast<std::size_t>(d)] < x.dim(d)) break;
        idx[static_cast<std::size_t>(d)] = 0;
      }
    }
    return Status::Ok();
  }

 private:
  std::int8_t pad_int8_ = 0;
  bool has_value_ = false;
};

// tfl.reshape and tfl.squeeze: the same bytes under a new shape.
enum class ReshapeForm { kReshape, kSqueeze };

class ReshapeKernel : public TflKernel {
 public:
  explicit ReshapeKernel(ReshapeForm form) : squeeze_(form == ReshapeForm::kSqueeze) {}
  Status init(const KernelInit& init) override {
    if (squeeze_) return init.getAttrOr<std::vector<std::int64_t>>("squeeze_dims", &dims_, {});
    has_shape_input_ = init.numInputs() > 1 && !absent(init, 1);
    if (!has_shape_input_) GDS_RETURN_IF_ERROR(init.getAttrOr<std::vector<std::int64_t>>("new_shape", &dims_, {}));
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    Shape shape;
    if (squeeze_) {
      std::vector<bool> drop(static_cast<std::size_t>(x.dims()), false);
      for (std::int64_t d : dims_) {
        if (d < -x.dims() || d >= x.dims())
          return ctx.error("squeeze_dims " + std::to_string(d) + " is out of range for " + shapeStr(x.shape()));
        const std::int64_t k = d < 0 ? d + x.dims() : d;
        if (x.dim(static_cast<int>(k)) != 1)
          return ctx.error("cannot squeeze dimension " + std::to_string(k) + " of " + shapeStr(x.shape()));
        drop[static_cast<std::size_t>(k)] = true;
      }
      for (int d = 0; d < x.dims(); ++d)
        if (!(dims_.empty() ? x.dim(d) == 1 : drop[static_cast<std::size_t>(d)])) shape.push_back(x.dim(d));
    } else {
      std::vector<std::int64_t> dims = dims_;
      if (has_shape_input_ && !intValues(ctx.input(1), &dims))
        return ctx.error("shape (input 1) must be int32 or int64");
      std::int64_t known = 1, unknown = -1;
      for (std::size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] == -1 && unknown < 0) unknown = static_cast<std::int64_t>(i);
        else if (dims[i] < 0) return ctx.error("new shape has an invalid dimension " + std::to_string(dims[i]));
        else known *= dims[i];
      }
      if (unknown >= 0) {
        if (known == 0 || x.numElements() % known != 0)
          return ctx.error("cannot reshape " + shapeStr(x.shape()) + " to " + shapeStr(dims));
        dims[static_cast<std::size_t>(unknown)] = x.numElements() / known;
      }
      shape = dims;
    }
    if (model::numElements(shape) != x.numElements())
      return ctx.error("cannot reshape " + shapeStr(x.shape()) + " (" + std::to_string(x.numElements()) +
                       " elements) to " + shapeStr(shape));
    ctx.setOutput(0, x.reshaped(shape));
    return Status::Ok();
  }

 private:
  bool squeeze_;
  bool has_shape_input_ = false;
  std::vector<std::int64_t> dims_;
};

// tfl.concatenation.
class ConcatKernel : public TflKernel {
 public:
  Status init(const KernelInit& init) override {
    if (init.numInputs() < 1) return init.error("expects at least one input");
    GDS_RETURN_IF_ERROR(readType(init));
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("axis", &axis_, 0));
    GDS_RETURN_IF_ERROR(readActivation(init));
    if (type_ == DT_INT8) {
      GDS_RETURN_IF_ERROR(perTensor(init, -1, &out_));
      GDS_RETURN_IF_ERROR(int8ActivationRange(init, out_));
      // concatenation.cc Prepare: int8 inputs are not rescaled, each must
      // have the output's scale and zero point (the converter requantizes).
      for (int i = 0; i < init.numInputs(); ++i) {
        QParams q;
        GDS_RETURN_IF_ERROR(perTensor(init, i, &q));
        if (q.scale != out_.scale || q.zero_point != out_.zero_point)
          return init.error("input " + std::to_string(i) + " has scale " + std::to_string(q.scale) + " zero point " +
                            std::to_string(q.zero_point) + "; TensorFlow Lite's int8 CONCATENATION needs the output's (" +
                            std::to_string(out_.scale) + ", " + std::to_string(out_.zero_point) + ")");
      }
    }
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x0 = ctx.input(0);
    const std::int64_t rank = x0.dims();
    std::int64_t axis = axis_ < 0 ? axis_ + rank : axis_;
    if (axis < 0 || axis >= rank) return ctx.error("axis " + std::to_string(axis_) + " is out of range for " + shapeStr(x0.shape()));
    Shape out_shape = x0.shape();
    out_shape[static_cast<std::size_t>(axis)] = 0;
    for (int i = 0; i < ctx.numInputs(); ++i) {
      const Tensor& x = ctx.input(i);
      GDS_RETURN_IF_ERROR(requireType(ctx, i, type_));
      if (x.dims() != rank) return ctx.error("input " + std::to_string(i) + " has rank " + std::to_string(x.dims()));
      for (std::int64_t d = 0; d < rank; ++d)
        if (d != axis && x.dim(static_cast<int>(d)) != x0.dim(static_cast<int>(d)))
          return ctx.error("input " + std::to_string(i) + " " + shapeStr(x.shape()) + " does not match " +
                           shapeStr(x0.shape()) + " outside axis " + std::to_string(axis));
      out_shape[static_cast<std::size_t>(axis)] += x.dim(static_cast<int>(axis));
    }
    Tensor* y = ctx.allocateOutput(0, type_, out_shape);
    std::int64_t outer = 1;
    for (std::int64_t d = 0; d < axis; ++d) outer *= out_shape[static_cast<std::size_t>(d)];
    const std::int64_t out_row = outer == 0 ? 0 : y->numElements() / std::max<std::int64_t>(outer, 1);
    std::int64_t col = 0;
    for (int i = 0; i < ctx.numInputs(); ++i) {
      const Tensor& x = ctx.input(i);
      const std::int64_t row = outer == 0 ? 0 : x.numElements() / std::max<std::int64_t>(outer, 1);
      for (std::int64_t o = 0; o < outer; ++o) {
        if (type_ == DT_FLOAT) {
          const float* src = x.data<float>() + o * row;
          float* dst = y->data<float>() + o * out_row + col;
          for (std::int64_t j = 0; j < row; ++j) dst[j] = std::min(std::max(src[j], fmin_), fmax_);
        } else {
          const std::int8_t* src = x.data<std::int8_t>() + o * row;
          std::int8_t* dst = y->data<std::int8_t>() + o * out_row + col;
          for (std::int64_t j = 0; j < row; ++j)
            dst[j] = static_cast<std::int8_t>(std::min<std::int32_t>(std::max<std::int32_t>(src[j], qmin_), qmax_));
        }
      }
      col += row;
    }
    return Status::Ok();
  }

 private:
  std::int64_t axis_ = 0;
  QParams out_;
};

// tfl.softmax over the last dimension.
class SoftmaxKernel : public TflKernel {
 public:
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(readType(init));
    GDS_RETURN_IF_ERROR(init.getAttrOr("beta", &beta_, 1.0f));
    if (type_ == DT_INT8) {
      QParams in;
      GDS_RETURN_IF_ERROR(perTensor(init, 0, &in));
      GDS_RETURN_IF_ERROR(perTensor(init, -1, &out_));
      table_ = std::make_shared<qt::SoftmaxTable>();
      qt::populateSoftmaxTable(in.scale, beta_, table_.get());
    }
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    GDS_RETURN_IF_ERROR(requireType(ctx, 0, type_));
    if (x.dims() < 1) return ctx.error("input must have at least one dimension");
    const std::int64_t depth = x.dim(x.dims() - 1);
    const std::int64_t rows = depth == 0 ? 0 : x.numElements() / depth;
    Tensor* y = ctx.allocateOutput(0, type_, x.shape());
    if (type_ == DT_FLOAT) ft::softmaxReference(x.data<float>(), rows, depth, beta_, y->data<float>());
    else qt::softmaxReference(*table_, x.data<std::int8_t>(), rows, depth, out_.scale, out_.zero_point, y->data<std::int8_t>());
    return Status::Ok();
  }

 private:
  float beta_ = 1.0f;
  QParams out_;
  std::shared_ptr<qt::SoftmaxTable> table_;
};

// Element-wise unary ops: tfl.logistic, tfl.tanh (int8 through a table),
// tfl.relu, tfl.relu6, tfl.leaky_relu (int8 rescaled and clamped), tfl.quantize,
// tfl.dequantize.
enum class Unary { kLogistic, kTanh, kRelu, kRelu6, kLeakyRelu, kQuantize, kDequantize };
class UnaryKernel : public TflKernel {
 public:
  explicit UnaryKernel(Unary op) : op_(op) {}
  Status init(const KernelInit& init) override {
    if (init.numInputs() != 1) return init.error("expects 1 input");
    in_type_ = init.inputType(0);
    const std::vector<DataType> outs = outputTypes(init);
    out_type_ = outs.empty() ? in_type_ : outs[0];
    const bool ok = op_ == Unary::kQuantize ? (in_type_ == DT_FLOAT || in_type_ == DT_INT8) && out_type_ == DT_INT8
                    : op_ == Unary::kDequantize ? in_type_ == DT_INT8 && out_type_ == DT_FLOAT
                                                : (in_type_ == DT_FLOAT || in_type_ == DT_INT8) && out_type_ == in_type_;
    if (!ok)
      return init.error("runs " + model::dtypeName(in_type_) + " -> " + model::dtypeName(out_type_) +
                        "; supported: float32 and int8 (QUANTIZE float32/int8 -> int8, DEQUANTIZE int8 -> float32)");
    if (op_ == Unary::kLeakyRelu) GDS_RETURN_IF_ERROR(init.getAttrOr<float>("alpha", &alpha_, 0.2f));
    QParams in, out;
    if (in_type_ == DT_INT8) GDS_RETURN_IF_ERROR(perTensor(init, 0, &in));
    if (out_type_ == DT_INT8) GDS_RETURN_IF_ERROR(perTensor(init, -1, &out));
    in_ = in;
    out_ = out;
    if (in_type_ == DT_INT8 && out_type_ == DT_INT8) {
      if (op_ == Unary::kLogistic || op_ == Unary::kTanh) {
        qt::populateLut(op_ == Unary::kLogistic ? qt::LutFunction::kLogistic : qt::LutFunction::kTanh, in.scale,
                        in.zero_point, out.scale, out.zero_point, table_);
      } else {
        if (op_ == Unary::kQuantize) {
          rescale_ = qt::rescaleParams(in.scale, in.zero_point, out.scale, out.zero_point);
        } else if (op_ == Unary::kLeakyRelu) {
          leaky_ = qt::leakyReluParams(alpha_, in.scale, in.zero_point, out.scale, out.zero_point);
        } else {
          activation_ = op_ == Unary::kRelu ? "RELU" : "RELU6";
          if (!qt::reluParams(activation_.c_str(), in.scale, in.zero_point, out.scale, out.zero_point, &rescale_))
            return init.error(activation_ + " has no int8 range");
        }
      }
    }
    return Status::Ok();
  }
  std::vector<DataType> outputTypes(const KernelInit& init) const override {
    std::vector<DataType> types;
    if (init.getAttr(mt::kOutputTypesAttr, &types).ok() && !types.empty()) return types;
    if (op_ == Unary::kQuantize) return {DT_INT8};
    if (op_ == Unary::kDequantize) return {DT_FLOAT};
    return {init.inputType(0)};
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    GDS_RETURN_IF_ERROR(requireType(ctx, 0, in_type_));
    Tensor* y = ctx.allocateOutput(0, out_type_, x.shape());
    const std::int64_t n = x.numElements();
    if (in_type_ == DT_FLOAT && out_type_ == DT_FLOAT) {
      const float* a = x.data<float>();
      float* b = y->data<float>();
      for (std::int64_t i = 0; i < n; ++i) {
        switch (op_) {
          case Unary::kLogistic: b[i] = 1.0f / (1.0f + std::exp(-a[i])); break;
          case Unary::kTanh: b[i] = std::tanh(a[i]); break;
          case Unary::kRelu: b[i] = std::max(0.0f, a[i]); break;
          case Unary::kRelu6: b[i] = std::min(std::max(0.0f, a[i]), 6.0f); break;
          case Unary::kLeakyRelu: b[i] = a[i] > 0 ? a[i] : a[i] * alpha_; break;
          default: break;
        }
      }
    } else if (in_type_ == DT_FLOAT) {
      const float* in = x.data<float>();
      std::int8_t* out = y->data<std::int8_t>();
      if (ctx.referenceKernels()) qt::quantizeReference(in, n, out_.scale, out_.zero_point, out);
      else
        ctx.pool().parallelFor(n, 8, [&](std::int64_t begin, std::int64_t end) {
          qt::quantizeFast(in + begin, end - begin, out_.scale, out_.zero_point, out + begin);
        });
    } else if (out_type_ == DT_FLOAT) {
      qt::dequantizeReference(x.data<std::int8_t>(), n, in_.scale, in_.zero_point, y->data<float>());
    } else if (op_ == Unary::kLogistic || op_ == Unary::kTanh) {
      qt::applyLut(table_, x.data<std::int8_t>(), n, y->data<std::int8_t>());
    } else if (op_ == Unary::kLeakyRelu) {
      qt::leakyReluReference(leaky_, x.data<std::int8_t>(), n, y->data<std::int8_t>());
    } else if (ctx.referenceKernels()) {
      qt::rescaleReference(rescale_, x.data<std::int8_t>(), n, y->data<std::int8_t>());
    } else {
      const std::int8_t* in = x.data<std::int8_t>();
      std::int8_t* out = y->data<std::int8_t>();
      ctx.pool().parallelFor(n, 8, [&](std::int64_t begin, std::int64_t end) {
        qt::rescaleFast(rescale_, in + begin, end - begin, out + begin);
      });
    }
    return Status::Ok();
  }

 private:
  Unary op_;
  DataType in_type_ = DT_FLOAT, out_type_ = DT_FLOAT;
  QParams in_, out_;
  std::int8_t table_[256] = {};
  qt::Rescale rescale_;
  float alpha_ = 0.2f;
  qt::LeakyRelu leaky_;
};

// tfl.resize_bilinear: input NHWC, size int32 [2].
class ResizeBilinearKernel : public TflKernel {
 public:
  Status init(const KernelInit& init) override {
    if (init.numInputs() != 2) return init.error("expects input and size");
    GDS_RETURN_IF_ERROR(readType(init));
    GDS_RETURN_IF_ERROR(init.getAttrOr("align_corners", &align_corners_, false));
    GDS_RETURN_IF_ERROR(init.getAttrOr("half_pixel_centers", &half_pixel_centers_, false));
    if (type_ == DT_INT8) {
      QParams in, out;
      GDS_RETURN_IF_ERROR(perTensor(init, 0, &in));
      GDS_RETURN_IF_ERROR(perTensor(init, -1, &out));
      if (in.scale != out.scale || in.zero_point != out.zero_point)
        return init.error("int8 RESIZE_BILINEAR needs the input and output quantization to be equal");
    }
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    GDS_RETURN_IF_ERROR(requireType(ctx, 0, type_));
    std::vector<std::int64_t> size;
    if (x.dims() != 4) return ctx.error("input must be 4-D NHWC, got " + shapeStr(x.shape()));
    if (!intValues(ctx.input(1), &size) || size.size() != 2 || size[0] < 1 || size[1] < 1)
      return ctx.error("size (input 1) must be two positive int32 values");
    if (x.dim(1) < 1 || x.dim(2) < 1) return ctx.error("cannot resize an empty image " + shapeStr(x.shape()));
    Tensor* y = ctx.allocateOutput(0, type_, {x.dim(0), size[0], size[1], x.dim(3)});
    if (type_ == DT_FLOAT)
      ft::resizeBilinearReference(x.data<float>(), x.dim(0), x.dim(1), x.dim(2), x.dim(3), size[0], size[1],
                                  align_corners_, half_pixel_centers_, y->data<float>());
    else
      qt::resizeBilinearReference(x.data<std::int8_t>(), x.dim(0), x.dim(1), x.dim(2), x.dim(3), size[0], size[1],
                                  align_corners_, half_pixel_centers_, y->data<std::int8_t>());
    return Status::Ok();
  }

 private:
  bool align_corners_ = false, half_pixel_centers_ = false;
};

// tfl.no_value: the absent optional input; the consumers never read it.
class NoValueKernel : public OpKernel {
 public:
  std::vector<DataType> outputTypes(const KernelInit&) const override { return {DT_FLOAT}; }
  Status compute(KernelContext& ctx) override {
    ctx.allocateOutput(0, DT_FLOAT, {0});
    return Status::Ok();
  }
};

template <typename K, typename... Args>
KernelFactory make(Args... args) {
  return [=] { return std::unique_ptr<OpKernel>(new K(args...)); };
}

}  // namespace

void registerTfliteKernels(KernelRegistry& registry) {
  registry.add("tfl.conv_2d", make<ConvKernel>(ConvForm::kConv));
  registry.add("tfl.depthwise_conv_2d", make<ConvKernel>(ConvForm::kDepthwise));
  registry.add("tfl.fully_connected", make<FullyConnectedKernel>());
  registry.add("tfl.add", make<BinaryKernel>(qt::BinaryOp::kAdd));
  registry.add("tfl.sub", make<BinaryKernel>(qt::BinaryOp::kSub));
  registry.add("tfl.mul", make<BinaryKernel>(qt::BinaryOp::kMul));
  registry.add("tfl.maximum", make<BinaryKernel>(qt::BinaryOp::kMaximum));
  registry.add("tfl.minimum", make<BinaryKernel>(qt::BinaryOp::kMinimum));
  registry.add("tfl.div", make<BinaryKernel>(qt::BinaryOp::kDiv));
  registry.add("tfl.average_pool_2d", make<PoolKernel>(PoolKind::kAverage));
  registry.add("tfl.max_pool_2d", make<PoolKernel>(PoolKind::kMax));
  registry.add("tfl.mean", make<MeanKernel>());
  registry.add("tfl.pad", make<PadKernel>());
  registry.add("tfl.padv2", make<PadKernel>());
  registry.add("tfl.reshape", make<ReshapeKernel>(ReshapeForm::kReshape));
  registry.add("tfl.squeeze", make<ReshapeKernel>(ReshapeForm::kSqueeze));
  registry.add("tfl.concatenation", make<ConcatKernel>());
  registry.add("tfl.softmax", make<SoftmaxKernel>());
  registry.add("tfl.logistic", make<UnaryKernel>(Unary::kLogistic));
  registry.add("tfl.tanh", make<UnaryKernel>(Unary::kTanh));
  registry.add("tfl.relu", make<UnaryKernel>(Unary::kRelu));
  registry.add("tfl.relu6", make<UnaryKernel>(Unary::kRelu6));
  registry.add("tfl.leaky_relu", make<UnaryKernel>(Unary::kLeakyRelu));
  registry.add("tfl.transpose", make<TransposeKernel>());
  registry.add("tfl.strided_slice", make<StridedSliceKernel>());
  registry.add("tfl.slice", make<SliceKernel>());
  registry.add("tfl.arg_max", make<ArgMaxKernel>());
  registry.add("tfl.quantize", make<UnaryKernel>(Unary::kQuantize));
  registry.add("tfl.dequantize", make<UnaryKernel>(Unary::kDequantize));
  registry.add("tfl.resize_bilinear", make<ResizeBilinearKernel>());
  registry.add(mt::kNoValueOp, make<NoValueKernel>());
}

}  // namespace gds::engine
