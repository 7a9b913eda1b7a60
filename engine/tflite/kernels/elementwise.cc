// The TFLite dialect's element-wise ops: tfl.add, sub, mul, maximum, minimum
// and div with numpy broadcasting; the activations tfl.logistic, tanh, relu,
// relu6, leaky_relu and softmax (per row); tfl.quantize and tfl.dequantize
// (int8, and float16 weights).
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "engine/tflite/fast.h"
#include "engine/tflite/kernels/kernel_util.h"
#include "model/tensor.h"

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
    GDS_RETURN_IF_ERROR(readType(init, op_ != tflite::BinaryOp::kDiv));
    GDS_RETURN_IF_ERROR(readActivation(init));
    if (type_ == DT_INT16) {
      QParams a, b, out;
      GDS_RETURN_IF_ERROR(perTensor(init, 0, &a, DT_INT16));
      GDS_RETURN_IF_ERROR(perTensor(init, 1, &b, DT_INT16));
      GDS_RETURN_IF_ERROR(perTensor(init, -1, &out, DT_INT16));
      GDS_RETURN_IF_ERROR(int16ActivationRange(init, out));
      // ADD and SUB with pot_scale_int16 (the schema's default) and every
      // scale a power of two take TFLite's LSTM path, not written here.
      bool pot = true;
      GDS_RETURN_IF_ERROR(init.getAttrOr("pot_scale_int16", &pot, true));
      auto power_of_two = [](float s) {
        int e = 0;
        return std::frexp(s, &e) == 0.5f;
      };
      if ((op_ == tflite::BinaryOp::kAdd || op_ == tflite::BinaryOp::kSub) && pot && power_of_two(a.scale) &&
          power_of_two(b.scale) && power_of_two(out.scale))
        return init.error("int16 with power-of-two scales and pot_scale_int16 (TensorFlow Lite's LSTM form) is not "
                          "supported; 16x8 models set pot_scale_int16 false");
      params_ = tflite::binaryParams(op_, a.scale, a.zero_point, b.scale, b.zero_point, out.scale, out.zero_point,
                                     qmin_, qmax_, 15);
    }
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
      GDS_RETURN_IF_ERROR(runtimeTable(init, a, b, out));
    }
    return Status::Ok();
  }
  // The other runtimes' ADD, SUB and MUL (and Arm NN's MAXIMUM, MINIMUM) as
  // a table of all 65536 input pairs, computed with their own formulas:
  // - XNNPACK (where its delegate takes the operator, xnnpack_delegate.cc):
  //   ADD and SUB with its 20-bit multipliers (each input's scale over the
  //   output's in [2^-10, 2^8)), MUL in fp32 ((a_scale * b_scale) /
  //   out_scale in [2^-16, 2^8)), the activation bounds xnn_qs8_quantize
  //   gives; MAXIMUM and MINIMUM it does not take for int8;
  // - Arm NN: decoded to float, the float operation, encoded, then its
  //   activation layer.
  Status runtimeTable(const KernelInit& init, const QParams& a, const QParams& b, const QParams& out) {
    using lowp::armnn::Quant;
    const bool add_sub = op_ == tflite::BinaryOp::kAdd || op_ == tflite::BinaryOp::kSub;
    if (xnnpack() && add_sub) {
      lowp::XnnAdd p;
      if (!lowp::xnnAddParams(a.scale, a.zero_point, b.scale, b.zero_point, out.scale, out.zero_point,
                              op_ == tflite::BinaryOp::kSub, &p))
        return Status::Ok();
      std::int32_t lo, hi;
      lowp::xnnActivationRange(fmin_, fmax_, out.scale, out.zero_point, &lo, &hi);
      fillTable([&](std::int8_t x, std::int8_t y) {
        return static_cast<std::int8_t>(std::min(std::max(lowp::xnnAddUnclamped(p, x, y), lo), hi));
      });
      // Equal shapes compute instead of looking up: the table misses the
      // first-level cache on every element.
      xnn_add_ = p;
      xnn_lo_ = lo;
      xnn_hi_ = hi;
      has_xnn_add_ = true;
    } else if (xnnpack() && op_ == tflite::BinaryOp::kMul) {
      const float scale = lowp::xnnMulScale(a.scale, b.scale, out.scale);
      if (!(scale >= 0x1.0p-16f && scale < 0x1.0p+8f)) return Status::Ok();
      std::int32_t lo, hi;
      lowp::xnnActivationRange(fmin_, fmax_, out.scale, out.zero_point, &lo, &hi);
      fillTable([&](std::int8_t x, std::int8_t y) {
        return lowp::xnnRequantizeFp32((x - a.zero_point) * (y - b.zero_point), scale, out.zero_point, lo, hi);
      });
    } else if (armnn()) {
      lowp::armnn::Activation act = lowp::armnn::Activation::kNone;
      GDS_RETURN_IF_ERROR(armnnActivation(init, &act));
      const lowp::armnn::DecodeTable da = lowp::armnn::decodeTable({a.scale, a.zero_point});
      const lowp::armnn::DecodeTable db = lowp::armnn::decodeTable({b.scale, b.zero_point});
      const Quant q{out.scale, out.zero_point};
      const lowp::Int8Table activation = lowp::armnn::activationTable(act, q, q);
      lowp::armnn::Binary op = lowp::armnn::Binary::kAdd;
      switch (op_) {
        case tflite::BinaryOp::kAdd: op = lowp::armnn::Binary::kAdd; break;
        case tflite::BinaryOp::kSub: op = lowp::armnn::Binary::kSub; break;
        case tflite::BinaryOp::kMul: op = lowp::armnn::Binary::kMul; break;
        case tflite::BinaryOp::kMaximum: op = lowp::armnn::Binary::kMaximum; break;
        case tflite::BinaryOp::kMinimum: op = lowp::armnn::Binary::kMinimum; break;
        case tflite::BinaryOp::kDiv: return Status::Ok();
      }
      fillTable([&](std::int8_t x, std::int8_t y) {
        const std::int8_t v = lowp::armnn::encode(
            lowp::armnn::binaryValue(op, lowp::armnn::decode(da, x), lowp::armnn::decode(db, y)), q);
        return act == lowp::armnn::Activation::kNone ? v : activation(v);
      });
    }
    return Status::Ok();
  }
  template <typename F>
  void fillTable(F f) {
    table_.resize(65536);
    for (int x = -128; x <= 127; ++x)
      for (int y = -128; y <= 127; ++y)
        table_[pairIndex(static_cast<std::int8_t>(x), static_cast<std::int8_t>(y))] =
            f(static_cast<std::int8_t>(x), static_cast<std::int8_t>(y));
  }
  static std::size_t pairIndex(std::int8_t x, std::int8_t y) {
    return static_cast<std::size_t>(static_cast<std::uint8_t>(x)) << 8 | static_cast<std::uint8_t>(y);
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
    if (type_ == DT_INT16) {
      // 16x8: TensorFlow Lite's reference loop (no optimized int16 kernel).
      const std::int16_t* pa = a.data<std::int16_t>();
      const std::int16_t* pb = b.data<std::int16_t>();
      std::int16_t* py = y->data<std::int16_t>();
      const tflite::BinaryParams p = params_;
      const tflite::BinaryOp op = op_;
      return forEachBroadcast(ctx, a.shape(), b.shape(), &out_shape, [=](std::int64_t i, std::int64_t ia,
                                                                         std::int64_t ib) {
        py[i] = tflite::binaryElement(op, p, pa[ia], pb[ib]);
      }, true);
    }
    const std::int8_t* pa = a.data<std::int8_t>();
    const std::int8_t* pb = b.data<std::int8_t>();
    std::int8_t* py = y->data<std::int8_t>();
    const tflite::BinaryParams p = params_;
    const tflite::BinaryOp op = op_;
    const std::int64_t n = y->numElements();
    const bool a_whole = a.numElements() == n, b_whole = b.numElements() == n;
    if (has_xnn_add_ && a_whole && b_whole && !ctx.referenceKernels()) {
      ctx.pool().parallelFor(n, 2, [&](std::int64_t begin, std::int64_t end) {
        lowp::xnnAddRows(xnn_add_, xnn_lo_, xnn_hi_, pa + begin, pb + begin, end - begin, py + begin);
      });
      return Status::Ok();
    }
    if (!table_.empty()) {
      const std::int8_t* t = table_.data();
      if (a_whole && b_whole) {
        ctx.pool().parallelFor(n, 4, [&](std::int64_t begin, std::int64_t end) {
          for (std::int64_t i = begin; i < end; ++i) py[i] = t[pairIndex(pa[i], pb[i])];
        });
        return Status::Ok();
      }
      return forEachBroadcast(ctx, a.shape(), b.shape(), &out_shape, [=](std::int64_t i, std::int64_t ia,
                                                                         std::int64_t ib) {
        py[i] = t[pairIndex(pa[ia], pb[ib])];
      }, true);
    }
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
  std::vector<std::int8_t> table_;  // [a][b] (uint8 bit patterns): runtimeTable, empty for TFLite's own
  // XNNPACK's ADD or SUB (runtimeTable): its parameters and activation bounds.
  bool has_xnn_add_ = false;
  lowp::XnnAdd xnn_add_;
  std::int32_t xnn_lo_ = 0, xnn_hi_ = 0;
};

// tfl.softmax over the last dimension.
class SoftmaxKernel : public TflKernel {
 public:
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(readType(init, true));
    GDS_RETURN_IF_ERROR(init.getAttrOr("beta", &beta_, 1.0f));
    if (type_ == DT_INT16) {
      QParams in;
      GDS_RETURN_IF_ERROR(perTensor(init, 0, &in, DT_INT16));
      GDS_RETURN_IF_ERROR(perTensor(init, -1, &out_, DT_INT16));
      int16_params_ = std::make_shared<tflite::SoftmaxInt16Params>();
      tflite::softmaxInt16Params(in.scale, beta_, int16_params_.get());
    }
    if (type_ == DT_INT8) {
      QParams in;
      GDS_RETURN_IF_ERROR(perTensor(init, 0, &in));
      GDS_RETURN_IF_ERROR(perTensor(init, -1, &out_));
      in_ = in;
      table_ = std::make_shared<tflite::SoftmaxTable>();
      tflite::populateSoftmaxTable(in.scale, beta_, table_.get());
      if (reference()) reference_params_ = tflite::softmaxReferenceParams(in.scale, beta_);
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
    else if (type_ == DT_INT16)
      tflite::softmaxInt16(*int16_params_, x.data<std::int16_t>(), rows, depth, y->data<std::int16_t>());
    else if (armnn())
      lowp::armnn::softmax({in_.scale, in_.zero_point}, {out_.scale, out_.zero_point}, beta_, x.data<std::int8_t>(),
                           rows, depth, y->data<std::int8_t>());
    else if (reference())
      tflite::softmaxFixedPoint(reference_params_, x.data<std::int8_t>(), rows, depth, out_.zero_point,
                                y->data<std::int8_t>());
    else
      tflite::softmaxReference(*table_, x.data<std::int8_t>(), rows, depth, out_.scale, out_.zero_point,
                               y->data<std::int8_t>());
    return Status::Ok();
  }

 private:
  float beta_ = 1.0f;
  QParams in_, out_;
  std::shared_ptr<tflite::SoftmaxTable> table_;
  tflite::SoftmaxFixedPointParams reference_params_;
  std::shared_ptr<tflite::SoftmaxInt16Params> int16_params_;
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
    const bool ok =
        op_ == Unary::kQuantize
            ? ((in_type_ == DT_FLOAT || in_type_ == DT_INT8) && out_type_ == DT_INT8) ||
                  ((in_type_ == DT_FLOAT || in_type_ == DT_INT16) && out_type_ == DT_INT16)
        : op_ == Unary::kDequantize
            ? (in_type_ == DT_INT8 || in_type_ == DT_INT16 || in_type_ == DT_HALF) && out_type_ == DT_FLOAT
            : (in_type_ == DT_FLOAT || in_type_ == DT_INT8 || in_type_ == DT_INT16) && out_type_ == in_type_;
    if (!ok)
      return init.error("runs " + model::dtypeName(in_type_) + " -> " + model::dtypeName(out_type_) +
                        "; supported: float32, int8 and int16 (QUANTIZE float32/int8 -> int8 and float32/int16 -> "
                        "int16, DEQUANTIZE int8/int16/float16 -> float32)");
    arith_ = init.arithmetic();
    if (op_ == Unary::kLeakyRelu) GDS_RETURN_IF_ERROR(init.getAttrOr<float>("alpha", &alpha_, 0.2f));
    if (in_type_ == DT_INT16 || out_type_ == DT_INT16) {
      if (armnn())
        return init.error("16x8 (int16 activations) is outside the Arm NN arithmetic; run it with "
                          "--arithmetic=tflite-builtin");
      QParams in, out;
      if (in_type_ == DT_INT16) GDS_RETURN_IF_ERROR(perTensor(init, 0, &in, DT_INT16));
      if (out_type_ == DT_INT16) GDS_RETURN_IF_ERROR(perTensor(init, -1, &out, DT_INT16));
      in_ = in;
      out_ = out;
      if (in_type_ == DT_INT16 && out_type_ == DT_INT16) {
        if (op_ == Unary::kLogistic || op_ == Unary::kTanh) {
          // The kernels' Prepare: zero points 0, the output at 2^-15.
          const char* name = op_ == Unary::kLogistic ? "LOGISTIC" : "TANH";
          if (in.zero_point != 0 || out.zero_point != 0 || !(std::abs(std::log2(out.scale) + 15) < 1e-3f))
            return init.error(std::string(name) + " int16 takes zero points 0 and an output scale of 1/32768");
          if (!tflite::sigmoidInt16Params(in.scale, op_ == Unary::kTanh, &sigmoid16_))
            return init.error(std::string(name) + " int16 with the input scale " + std::to_string(in.scale) +
                              " (a power of two): TensorFlow Lite runs its fixed-point kernel there, which "
                              "gdstudio does not follow");
        } else if (op_ == Unary::kLeakyRelu) {
          leaky_ = tflite::leakyReluParams(alpha_, in.scale, in.zero_point, out.scale, out.zero_point);
        } else if (op_ == Unary::kRelu || op_ == Unary::kRelu6) {
          activation_ = op_ == Unary::kRelu ? "RELU" : "RELU6";
          tflite::reluParams(activation_.c_str(), in.scale, in.zero_point, out.scale, out.zero_point, &rescale_, -32768,
                             32767);
        } else {
          rescale_ = tflite::rescaleParams(in.scale, in.zero_point, out.scale, out.zero_point);
          rescale_.act_min = -32768;
          rescale_.act_max = 32767;
        }
      }
      return Status::Ok();
    }
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
      runtimeTable(in, out);
    }
    return Status::Ok();
  }
  // The other runtimes' int8 -> int8 ops as a table of the 256 inputs:
  // XNNPACK's QUANTIZE (its convert: input/output scale in [2^-8, 2^7]) and
  // LEAKY_RELU (both slopes' ratios within its limits) with 8-bit
  // multipliers; its delegate leaves LOGISTIC, TANH, RELU and RELU6 to the
  // built-in tables (measured equal on every input). Arm NN: every one
  // decoded, computed in float and encoded.
  void runtimeTable(const QParams& in, const QParams& out) {
    using lowp::armnn::Activation;
    if (xnnpack() && op_ == Unary::kQuantize) {
      const float ratio = in.scale / out.scale;
      if (!(ratio >= 0x1.0p-8f && ratio <= 0x1.0p+7f)) return;
      const lowp::XnnQ8Rescale p = lowp::xnnConvertParams(in.scale, in.zero_point, out.scale, out.zero_point);
      table8_ = lowp::makeTable([&](int q) { return lowp::xnnRescale(p, static_cast<std::int8_t>(q)); });
      use_table8_ = true;
    } else if (xnnpack() && op_ == Unary::kLeakyRelu) {
      const float positive = in.scale / out.scale, negative = positive * alpha_;
      if (!(positive >= 0x1.0p-8f && positive <= 0x1.0p+7f) || !(negative >= -0x1.FFFC00p+6f && negative <= 0x1.0p+7f) ||
          std::fabs(negative) < 0x1.0p-8f)
        return;
      const lowp::XnnQ8Rescale p = lowp::xnnLeakyReluParams(alpha_, in.scale, in.zero_point, out.scale, out.zero_point);
      table8_ = lowp::makeTable([&](int q) { return lowp::xnnRescale(p, static_cast<std::int8_t>(q)); });
      use_table8_ = true;
    } else if (armnn()) {
      Activation a = Activation::kNone;
      switch (op_) {
        case Unary::kLogistic: a = Activation::kSigmoid; break;
        case Unary::kTanh: a = Activation::kTanh; break;
        case Unary::kRelu: a = Activation::kRelu; break;
        case Unary::kRelu6: a = Activation::kRelu6; break;
        case Unary::kLeakyRelu: a = Activation::kLeakyRelu; break;
        default: break;
      }
      table8_ = lowp::armnn::activationTable(a, {in.scale, in.zero_point}, {out.scale, out.zero_point}, alpha_);
      use_table8_ = true;
    }
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
    if (in_type_ == DT_INT16 || out_type_ == DT_INT16) {
      // 16x8: quantize.cc's AffineQuantize divides by the scale in double
      // (its reference kernel in float), Requantize and Dequantize as int8.
      if (in_type_ == DT_FLOAT)
        tflite::quantizeReference(x.data<float>(), n, out_.scale, out_.zero_point, y->data<std::int16_t>(),
                                  reference() ? tflite::QuantizeForm::kFloat : tflite::QuantizeForm::kDouble);
      else if (out_type_ == DT_FLOAT)
        tflite::dequantizeReference(x.data<std::int16_t>(), n, in_.scale, in_.zero_point, y->data<float>());
      else if (op_ == Unary::kLogistic)
        tflite::logisticInt16(sigmoid16_, x.data<std::int16_t>(), n, y->data<std::int16_t>());
      else if (op_ == Unary::kTanh)
        tflite::tanhInt16(sigmoid16_, x.data<std::int16_t>(), n, y->data<std::int16_t>());
      else if (op_ == Unary::kLeakyRelu)
        tflite::leakyReluReference(leaky_, x.data<std::int16_t>(), n, y->data<std::int16_t>());
      else
        tflite::rescaleReference(rescale_, x.data<std::int16_t>(), n, y->data<std::int16_t>());
      return Status::Ok();
    }
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
      // QUANTIZE: TFLite's reference kernel and Arm NN divide in float and
      // round halves away from zero, its built-in kernel divides in double,
      // XNNPACK multiplies by 1 / scale and rounds to even.
      const float* in = x.data<float>();
      std::int8_t* out = y->data<std::int8_t>();
      const tflite::QuantizeForm form = builtin()   ? tflite::QuantizeForm::kDouble
                                        : xnnpack() ? tflite::QuantizeForm::kXnnpack
                                                    : tflite::QuantizeForm::kFloat;
      if (ctx.referenceKernels())
        tflite::quantizeReference(in, n, out_.scale, out_.zero_point, out, form);
      else
        ctx.pool().parallelFor(n, 8, [&](std::int64_t begin, std::int64_t end) {
          tflite::quantizeFast(in + begin, end - begin, out_.scale, out_.zero_point, out + begin, form);
        });
    } else if (in_type_ == DT_HALF) {
      // Float16 weights (the float16 post-training mode): exact in float32.
      const std::uint16_t* in = x.data<std::uint16_t>();
      float* out = y->data<float>();
      for (std::int64_t i = 0; i < n; ++i) out[i] = model::halfToFloat(in[i]);
    } else if (out_type_ == DT_FLOAT) {
      tflite::dequantizeReference(x.data<std::int8_t>(), n, in_.scale, in_.zero_point, y->data<float>());
    } else if (use_table8_) {
      const std::int8_t* in = x.data<std::int8_t>();
      std::int8_t* out = y->data<std::int8_t>();
      ctx.pool().parallelFor(n, 2, [&](std::int64_t begin, std::int64_t end) {
        lowp::applyTable(table8_, in + begin, end - begin, out + begin);
      });
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
  tflite::SigmoidInt16Params sigmoid16_;
  bool use_table8_ = false;  // runtimeTable
  lowp::Int8Table table8_{};
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
