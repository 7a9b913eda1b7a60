// The TFLite dialect's element-wise ops: tfl.add, sub, mul, maximum, minimum
// and div with numpy broadcasting; the activations tfl.logistic, tanh, relu,
// relu6, leaky_relu and softmax (per row); tfl.quantize and tfl.dequantize.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "engine/tflite/fast.h"
#include "engine/tflite/kernels/kernel_util.h"

namespace gds::engine::tflkern {

namespace {

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
  explicit BinaryKernel(tflite::BinaryOp op) : op_(op) {}
  Status init(const KernelInit& init) override {
    if (init.numInputs() != 2) return init.error("expects 2 inputs");
    GDS_RETURN_IF_ERROR(readType(init));
    GDS_RETURN_IF_ERROR(readActivation(init));
    if (type_ == DT_INT8 && op_ == tflite::BinaryOp::kDiv)
      return init.error("DIV has no int8 kernel in TensorFlow Lite (it runs float32, int32 and uint8)");
    if (type_ == DT_INT8) {
      QParams a, b, out;
      GDS_RETURN_IF_ERROR(perTensor(init, 0, &a));
      GDS_RETURN_IF_ERROR(perTensor(init, 1, &b));
      GDS_RETURN_IF_ERROR(perTensor(init, -1, &out));
      GDS_RETURN_IF_ERROR(int8ActivationRange(init, out));
      params_ = tflite::binaryParams(op_, a.scale, a.zero_point, b.scale, b.zero_point, out.scale, out.zero_point,
                                     qmin_, qmax_);
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
      const tflite::BinaryOp op = op_;
      return forEachBroadcast(ctx, a.shape(), b.shape(), &out_shape, [=](std::int64_t i, std::int64_t ia, std::int64_t ib) {
        const float r = op == tflite::BinaryOp::kAdd       ? pa[ia] + pb[ib]
                        : op == tflite::BinaryOp::kSub     ? pa[ia] - pb[ib]
                        : op == tflite::BinaryOp::kMul     ? pa[ia] * pb[ib]
                        : op == tflite::BinaryOp::kMaximum ? std::max(pa[ia], pb[ib])
                        : op == tflite::BinaryOp::kMinimum ? std::min(pa[ia], pb[ib])
                                                       : pa[ia] / pb[ib];
        py[i] = std::min(std::max(r, lo), hi);
      }, true);
    }
    const std::int8_t* pa = a.data<std::int8_t>();
    const std::int8_t* pb = b.data<std::int8_t>();
    std::int8_t* py = y->data<std::int8_t>();
    const tflite::BinaryParams p = params_;
    const tflite::BinaryOp op = op_;
    const std::int64_t n = y->numElements();
    const bool a_whole = a.numElements() == n, b_whole = b.numElements() == n;
    const bool arithmetic =
        op == tflite::BinaryOp::kAdd || op == tflite::BinaryOp::kSub || op == tflite::BinaryOp::kMul;
    if (arithmetic && !ctx.referenceKernels() && (a_whole || a.numElements() == 1) &&
        (b_whole || b.numElements() == 1)) {
      // Equal shapes or a scalar operand: the vector loop on blocks (binaryFast knows add, sub and mul).
      ctx.pool().parallelFor(n, 16, [&](std::int64_t begin, std::int64_t end) {
        tflite::binaryFast(op, p, a_whole ? pa + begin : pa, !a_whole, b_whole ? pb + begin : pb, !b_whole, end - begin,
                       py + begin);
      });
      return Status::Ok();
    }
    return forEachBroadcast(ctx, a.shape(), b.shape(), &out_shape, [=](std::int64_t i, std::int64_t ia, std::int64_t ib) {
      py[i] = tflite::binaryElement(op, p, pa[ia], pb[ib]);
    }, true);
  }

 private:
  tflite::BinaryOp op_;
  tflite::BinaryParams params_;
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
      table_ = std::make_shared<tflite::SoftmaxTable>();
      tflite::populateSoftmaxTable(in.scale, beta_, table_.get());
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
    if (type_ == DT_FLOAT)
      tflite::softmaxReference(x.data<float>(), rows, depth, beta_, y->data<float>());
    else
      tflite::softmaxReference(*table_, x.data<std::int8_t>(), rows, depth, out_.scale, out_.zero_point,
                               y->data<std::int8_t>());
    return Status::Ok();
  }

 private:
  float beta_ = 1.0f;
  QParams out_;
  std::shared_ptr<tflite::SoftmaxTable> table_;
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
        tflite::populateLut(op_ == Unary::kLogistic ? tflite::LutFunction::kLogistic : tflite::LutFunction::kTanh,
                            in.scale, in.zero_point, out.scale, out.zero_point, table_);
      } else {
        if (op_ == Unary::kQuantize) {
          rescale_ = tflite::rescaleParams(in.scale, in.zero_point, out.scale, out.zero_point);
        } else if (op_ == Unary::kLeakyRelu) {
          leaky_ = tflite::leakyReluParams(alpha_, in.scale, in.zero_point, out.scale, out.zero_point);
        } else {
          activation_ = op_ == Unary::kRelu ? "RELU" : "RELU6";
          if (!tflite::reluParams(activation_.c_str(), in.scale, in.zero_point, out.scale, out.zero_point, &rescale_))
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
      if (ctx.referenceKernels()) tflite::quantizeReference(in, n, out_.scale, out_.zero_point, out);
      else
        ctx.pool().parallelFor(n, 8, [&](std::int64_t begin, std::int64_t end) {
          tflite::quantizeFast(in + begin, end - begin, out_.scale, out_.zero_point, out + begin);
        });
    } else if (out_type_ == DT_FLOAT) {
      tflite::dequantizeReference(x.data<std::int8_t>(), n, in_.scale, in_.zero_point, y->data<float>());
    } else if (op_ == Unary::kLogistic || op_ == Unary::kTanh) {
      tflite::applyLut(table_, x.data<std::int8_t>(), n, y->data<std::int8_t>());
    } else if (op_ == Unary::kLeakyRelu) {
      tflite::leakyReluReference(leaky_, x.data<std::int8_t>(), n, y->data<std::int8_t>());
    } else if (ctx.referenceKernels()) {
      tflite::rescaleReference(rescale_, x.data<std::int8_t>(), n, y->data<std::int8_t>());
    } else {
      const std::int8_t* in = x.data<std::int8_t>();
      std::int8_t* out = y->data<std::int8_t>();
      ctx.pool().parallelFor(n, 8, [&](std::int64_t begin, std::int64_t end) {
        tflite::rescaleFast(rescale_, in + begin, end - begin, out + begin);
      });
    }
    return Status::Ok();
  }

 private:
  Unary op_;
  DataType in_type_ = DT_FLOAT, out_type_ = DT_FLOAT;
  QParams in_, out_;
  std::int8_t table_[256] = {};
  tflite::Rescale rescale_;
  float alpha_ = 0.2f;
  tflite::LeakyRelu leaky_;
};

}  // namespace

void registerElementwiseKernels(KernelRegistry& registry) {
  registry.add("tfl.add", make<BinaryKernel>(tflite::BinaryOp::kAdd));
  registry.add("tfl.sub", make<BinaryKernel>(tflite::BinaryOp::kSub));
  registry.add("tfl.mul", make<BinaryKernel>(tflite::BinaryOp::kMul));
  registry.add("tfl.maximum", make<BinaryKernel>(tflite::BinaryOp::kMaximum));
  registry.add("tfl.minimum", make<BinaryKernel>(tflite::BinaryOp::kMinimum));
  registry.add("tfl.div", make<BinaryKernel>(tflite::BinaryOp::kDiv));
  registry.add("tfl.softmax", make<SoftmaxKernel>());
  registry.add("tfl.logistic", make<UnaryKernel>(Unary::kLogistic));
  registry.add("tfl.tanh", make<UnaryKernel>(Unary::kTanh));
  registry.add("tfl.relu", make<UnaryKernel>(Unary::kRelu));
  registry.add("tfl.relu6", make<UnaryKernel>(Unary::kRelu6));
  registry.add("tfl.leaky_relu", make<UnaryKernel>(Unary::kLeakyRelu));
  registry.add("tfl.quantize", make<UnaryKernel>(Unary::kQuantize));
  registry.add("tfl.dequantize", make<UnaryKernel>(Unary::kDequantize));
}

}  // namespace gds::engine::tflkern
