// QuantizedConv2D / QuantizedMatMul's shared part: TensorFlow's checks and
// range rules (quantized_conv_ops.cc, quantized_matmul_op.cc) around the
// 8-bit GEMM of engine/quantized/.
#include "engine/quantized/kernels/kernel_util.h"
#include "engine/quantized/ops.h"

namespace gds::engine::qkern {

namespace {
constexpr DataType kQU8 = tensorflow::DT_QUINT8;
constexpr DataType kQI32 = tensorflow::DT_QINT32;
}  // namespace

Status QuantizedGemmLayer::init(const KernelInit& init, Kind kind) {
  kind_ = kind;
  DataType t1, t2, out;
  if (kind == kConv2D) {
    GDS_RETURN_IF_ERROR(typeAttr(init, "Tinput", kQU8, &t1));
    GDS_RETURN_IF_ERROR(typeAttr(init, "Tfilter", kQU8, &t2));
    GDS_RETURN_IF_ERROR(typeAttr(init, "out_type", kQI32, &out));
    if (t1 != kQU8 || t2 != kQU8 || out != kQI32)
      return init.error("only Tinput=quint8, Tfilter=quint8, out_type=qint32 is supported (as in TensorFlow)");
    GDS_RETURN_IF_ERROR(nn::readWindowAttrs(init, true, false, &window_));
    if (window_.nchw) return init.error("data_format NCHW is not supported for quantized convolution");
  } else {
    GDS_RETURN_IF_ERROR(typeAttr(init, "T1", kQU8, &t1));
    GDS_RETURN_IF_ERROR(typeAttr(init, "T2", kQU8, &t2));
    GDS_RETURN_IF_ERROR(typeAttr(init, "Toutput", kQI32, &out));
    if (t1 != kQU8 || t2 != kQU8 || out != kQI32)
      return init.error("only T1=quint8, T2=quint8, Toutput=qint32 is supported (as in TensorFlow)");
    GDS_RETURN_IF_ERROR(init.getAttrOr("transpose_a", &transpose_a_, false));
    GDS_RETURN_IF_ERROR(init.getAttrOr("transpose_b", &transpose_b_, false));
  }
  backend_ = backendFor(init);
  weights_constant_ = init.constantInput(1) != nullptr;
  return Status::Ok();
}

Status QuantizedGemmLayer::prepare(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  const bool conv = kind_ == kConv2D;
  GDS_RETURN_IF_ERROR(requireType(ctx, 0, kQU8, conv ? "input" : "a"));
  GDS_RETURN_IF_ERROR(requireType(ctx, 1, kQU8, conv ? "filter" : "b"));
  float min_a, max_a, min_b, max_b;
  GDS_RETURN_IF_ERROR(rangeInput(ctx, 2, conv ? "min_input" : "min_a", &min_a));
  GDS_RETURN_IF_ERROR(rangeInput(ctx, 3, conv ? "max_input" : "max_a", &max_a));
  GDS_RETURN_IF_ERROR(rangeInput(ctx, 4, conv ? "min_filter" : "min_b", &min_b));
  GDS_RETURN_IF_ERROR(rangeInput(ctx, 5, conv ? "max_filter" : "max_b", &max_b));
  a_zero_ = static_cast<std::int32_t>(quantized::floatToQuantizedUnclamped<std::uint8_t>(0.0f, min_a, max_a));
  const std::int32_t b_zero =
      static_cast<std::int32_t>(quantized::floatToQuantizedUnclamped<std::uint8_t>(0.0f, min_b, max_b));
  if (conv) {
    if (a.dims() != 4) return ctx.error("input must be 4-dimensional, got " + model::shapeString(a.shape()));
    if (b.dims() != 4) return ctx.error("filter must be 4-dimensional, got " + model::shapeString(b.shape()));
    if (a.dim(3) != b.dim(2))
      return ctx.error("input and filter must have the same depth: " + std::to_string(a.dim(3)) + " vs " +
                       std::to_string(b.dim(2)));
    ops::ConvGeometry& s = conv_;
    if (!nn::conv2DShape(a.shape(), b.shape(), window_, &s))
      return ctx.error("filter " + model::shapeString(b.shape()) + " does not fit input " +
                       model::shapeString(a.shape()));
    m_ = s.batch * s.out_h * s.out_w;
    n_ = s.out_c;
    k_ = s.filter_h * s.filter_w * s.in_c;
    out_shape_ = {s.batch, s.out_h, s.out_w, s.out_c};
    rhs_ = &rhs_cache_.get(b.data<std::uint8_t>(), k_, n_, n_, false, b_zero, weights_constant_);
    a_data_ = a.data<std::uint8_t>();
  } else {
    if (!(max_a > min_a)) return ctx.error("max_a must be larger than min_a.");
    if (!(max_b > min_b)) return ctx.error("max_b must be larger than min_b.");
    if (a.dims() != 2) return ctx.error("In[0] is not a matrix: " + model::shapeString(a.shape()));
    if (b.dims() != 2) return ctx.error("In[1] is not a matrix: " + model::shapeString(b.shape()));
    m_ = transpose_a_ ? a.dim(1) : a.dim(0);
    k_ = transpose_a_ ? a.dim(0) : a.dim(1);
    const std::int64_t kb = transpose_b_ ? b.dim(1) : b.dim(0);
    n_ = transpose_b_ ? b.dim(0) : b.dim(1);
    if (k_ != kb)
      return ctx.error("Matrix size-incompatible: In[0]: " + model::shapeString(a.shape()) +
                       ", In[1]: " + model::shapeString(b.shape()));
    out_shape_ = {m_, n_};
    a_data_ = a.data<std::uint8_t>();
    if (transpose_a_) {
      scratch_.resize(static_cast<std::size_t>(m_ * k_));
      for (std::int64_t i = 0; i < m_; ++i)
        for (std::int64_t p = 0; p < k_; ++p) scratch_[static_cast<std::size_t>(i * k_ + p)] = a_data_[p * m_ + i];
      a_data_ = scratch_.data();
    }
    rhs_ = &rhs_cache_.get(b.data<std::uint8_t>(), k_, n_, b.dim(1), transpose_b_, b_zero, weights_constant_);
  }
  quantized::quantizationRangeForMultiplication<std::uint8_t, std::uint8_t, std::int32_t>(min_a, max_a, min_b, max_b,
                                                                                          &min_out_, &max_out_);
  return Status::Ok();
}

void QuantizedGemmLayer::run(KernelContext& ctx, std::int32_t* out, const lowp::GemmEpilogue& epilogue) {
  if (kind_ == kConv2D) {
    conv_state_.weights_constant = weights_constant_;
    lowp::conv2D(backend_, conv_, a_data_, a_zero_, *rhs_, out, &ctx.pool(), &conv_state_, epilogue);
  } else {
    lowp::gemm(backend_, lowp::GemmLhs{a_data_, m_, k_, k_, a_zero_}, *rhs_, out, n_, &ctx.pool(), epilogue);
  }
}

double QuantizedGemmLayer::flops(const std::vector<Shape>& in, const std::vector<Shape>& out) const {
  if (kind_ == kConv2D) {
    if (in.size() < 2 || out.empty() || in[1].size() != 4 || out[0].size() != 4) return 0;
    return 2.0 * static_cast<double>(model::numElements(out[0])) * in[1][0] * in[1][1] * in[1][2];
  }
  if (in.empty() || out.empty() || in[0].size() != 2) return 0;
  return 2.0 * static_cast<double>(model::numElements(out[0])) * (transpose_a_ ? in[0][0] : in[0][1]);
}

}  // namespace gds::engine::qkern
