// 8-bit conversion and array kernels with TensorFlow's semantics
// (quantize_op.cc, requantize.cc, requantization_range_op.cc,
// quantized_concat_op.cc, quantized_reshape_op.cc, quantized_mul_op.cc,
// quantized_add_op.cc).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "engine/kernels/kernel_util.h"
#include "engine/quantized/kernels/kernel_util.h"
#include "engine/quantized/ops.h"

namespace gds::engine {

namespace {

using quantized::floatToQuantizedUnclamped;
constexpr DataType kQU8 = tensorflow::DT_QUINT8;
constexpr DataType kQI8 = tensorflow::DT_QINT8;
constexpr DataType kQI32 = tensorflow::DT_QINT32;
constexpr DataType kFloat = tensorflow::DT_FLOAT;

using qkern::ThreeOutputKernel;

// -------------------------------------------------------- QuantizeV2
class QuantizeV2Kernel : public ThreeOutputKernel {
 public:
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(init.getAttr("T", &out_type_));
    if (out_type_ != kQU8 && out_type_ != kQI8 && out_type_ != tensorflow::DT_QUINT16 &&
        out_type_ != tensorflow::DT_QINT16 && out_type_ != kQI32)
      return init.error("T=" + model::dtypeName(out_type_) + " is not supported (expected quint8, qint8, quint16, qint16 or qint32)");
    GDS_RETURN_IF_ERROR(qkern::readQuantizeV2Options(init, &options_));
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("axis", &axis_, -1));
    GDS_RETURN_IF_ERROR(init.getAttrOr("ensure_minimum_range", &options_.ensure_minimum_range, 0.01f));
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& min_t = ctx.input(1);
    const Tensor& max_t = ctx.input(2);
    if (input.dtype() != kFloat) return ctx.error("input must be float, got " + model::dtypeName(input.dtype()));
    std::int64_t slices = 1, post = input.numElements(), pre = 1;
    if (axis_ > -1) {
      if (input.dims() <= axis_)
        return ctx.error("Axis is on a zero-based index, so its value must always be less than number of input's "
                         "dims, but given axis value was " + std::to_string(axis_) + " and input's dims was " +
                         std::to_string(input.dims()));
      slices = input.dim(static_cast<int>(axis_));
      pre = 1;
      for (int i = 0; i < axis_; ++i) pre *= input.dim(i);
      post = 1;
      for (int i = static_cast<int>(axis_) + 1; i < input.dims(); ++i) post *= input.dim(i);
      if (min_t.dims() != 1 || min_t.dim(0) != slices || max_t.dims() != 1 || max_t.dim(0) != slices)
        return ctx.error("If axis is specified, min_range and max_range must be 1-D tensors whose size matches the "
                         "axis dimension (" + std::to_string(slices) + ") of the input");
      if (slices > 1 && options_.mode == quantized::QuantizeMode::kMinFirst)
        return ctx.error("MIN_FIRST mode is not implemented for Quantize with axis != -1.");
    } else if (min_t.numElements() != 1 || max_t.numElements() != 1) {
      return ctx.error("If axis is not specified, min_range and max_range must contain a single float element");
    }
    if (min_t.dtype() != kFloat || max_t.dtype() != kFloat) return ctx.error("min_range and max_range must be float");
    Tensor* out = ctx.allocateOutput(0, out_type_, input.shape());
    const Shape range_shape = axis_ > -1 ? Shape{slices} : Shape{};
    Tensor* out_min = ctx.allocateOutput(1, kFloat, range_shape);
    Tensor* out_max = ctx.allocateOutput(2, kFloat, range_shape);
    for (std::int64_t s = 0; s < slices; ++s) {
      for (std::int64_t p = 0; p < pre; ++p) {
        const std::int64_t offset = (p * slices + s) * post;
        bool ok = true;
        const float* in = input.data<float>() + offset;
        const float lo = min_t.data<float>()[s], hi = max_t.data<float>()[s];
        float* omin = out_min->data<float>() + s;
        float* omax = out_max->data<float>() + s;
        switch (out_type_) {
          case tensorflow::DT_QUINT8:
            ok = quantized::quantizeV2(in, post, 1, lo, hi, options_, out->data<std::uint8_t>() + offset, omin, omax);
            break;
          case tensorflow::DT_QINT8:
            ok = quantized::quantizeV2(in, post, 1, lo, hi, options_, out->data<std::int8_t>() + offset, omin, omax);
            break;
          case tensorflow::DT_QUINT16:
            ok = quantized::quantizeV2(in, post, 1, lo, hi, options_, out->data<std::uint16_t>() + offset, omin, omax);
            break;
          case tensorflow::DT_QINT16:
            ok = quantized::quantizeV2(in, post, 1, lo, hi, options_, out->data<std::int16_t>() + offset, omin, omax);
            break;
          default:
            ok = quantized::quantizeV2(in, post, 1, lo, hi, options_, out->data<std::int32_t>() + offset, omin, omax);
            break;
        }
        if (!ok) return ctx.error("input_max_range must be larger than input_min_range.");
      }
      if (pre == 0) {
        // No elements: still report the adjusted range.
        float dummy_min, dummy_max;
        std::uint8_t unused;
        quantized::quantizeV2<std::uint8_t>(nullptr, 0, 1, min_t.data<float>()[s], max_t.data<float>()[s], options_,
                                            &unused, &dummy_min, &dummy_max);
        out_min->data<float>()[s] = dummy_min;
        out_max->data<float>()[s] = dummy_max;
      }
    }
    return Status::Ok();
  }

 private:
  quantized::QuantizeV2Options options_;
  std::int64_t axis_ = -1;
};

// ----------------------------------------------- RequantizationRange
class RequantizationRangeKernel : public OpKernel {
 public:
  int numOutputs(const KernelInit&) const override { return 2; }
  std::vector<DataType> outputTypes(const KernelInit&) const override { return {kFloat, kFloat}; }
  Status init(const KernelInit& init) override {
    DataType t;
    GDS_RETURN_IF_ERROR(qkern::typeAttr(init, "Tinput", kQI32, &t));
    if (t != kQI32) return init.error("only Tinput=qint32 is supported (as in TensorFlow)");
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    GDS_RETURN_IF_ERROR(qkern::requireType(ctx, 0, kQI32, "input"));
    float in_min, in_max;
    GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 1, "input_min", &in_min));
    GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 2, "input_max", &in_max));
    const Tensor& input = ctx.input(0);
    float lo, hi;
    quantized::requantizationRange(input.data<std::int32_t>(), input.numElements(), in_min, in_max, &lo, &hi);
    qkern::setScalar(ctx, 0, lo);
    qkern::setScalar(ctx, 1, hi);
    return Status::Ok();
  }
};

// -------------------------------------------------------- Requantize
class RequantizeKernel : public ThreeOutputKernel {
 public:
  Status init(const KernelInit& init) override {
    DataType t;
    GDS_RETURN_IF_ERROR(qkern::typeAttr(init, "Tinput", kQI32, &t));
    GDS_RETURN_IF_ERROR(qkern::typeAttr(init, "out_type", kQU8, &out_type_));
    if (t != kQI32 || (out_type_ != kQU8 && out_type_ != kQI8))
      return init.error("only Tinput=qint32 with out_type=quint8 or qint8 is supported (as in TensorFlow)");
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    GDS_RETURN_IF_ERROR(qkern::requireType(ctx, 0, kQI32, "input"));
    float in_min, in_max, out_min, out_max;
    GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 1, "input_min", &in_min));
    GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 2, "input_max", &in_max));
    GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 3, "requested_output_min", &out_min));
    GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 4, "requested_output_max", &out_max));
    if (!(out_min <= 0.0f))
      return ctx.error("requested_output_min must be <= 0, but got " + std::to_string(out_min));
    if (!(out_max >= 0.0f))
      return ctx.error("requested_output_max must be >= 0, but got " + std::to_string(out_max));
    const Tensor& input = ctx.input(0);
    Tensor* out = ctx.allocateOutput(0, out_type_, input.shape());
    const std::int64_t n = input.numElements();
    if (out_type_ == kQU8) {
      const quantized::Requantize32To8 requant(in_min, in_max, out_min, out_max);
      const std::int32_t* in = input.data<std::int32_t>();
      std::uint8_t* o = out->data<std::uint8_t>();
      ctx.pool().parallelFor(n, 4.0, [&](std::int64_t b, std::int64_t e) { requant.apply(in + b, e - b, o + b); });
    } else {
      quantized::requantize32ToS8(input.data<std::int32_t>(), n, in_min, in_max, out_min, out_max,
                                  out->data<std::int8_t>());
    }
    qkern::setScalar(ctx, 1, out_min);
    qkern::setScalar(ctx, 2, out_max);
    return Status::Ok();
  }
};

// ------------------------------------------------------------ Concat
class QuantizedConcatKernel : public ThreeOutputKernel {
 public:
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(init.getAttr("T", &out_type_));
    if (out_type_ != kQU8 && out_type_ != kQI32) return init.error("only T=quint8 or qint32 is supported");
    std::int64_t n = 0;
    GDS_RETURN_IF_ERROR(init.getAttr("N", &n));
    n_ = static_cast<int>(n);
    if (n_ < 1 || init.numInputs() != 1 + 3 * n_)
      return init.error("expected 1 + 3*N = " + std::to_string(1 + 3 * n_) + " inputs (concat_dim, values, mins, maxes), got " +
                        std::to_string(init.numInputs()));
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& dim_t = ctx.input(0);
    if (dim_t.dtype() != tensorflow::DT_INT32 || dim_t.numElements() != 1)
      return ctx.error("Concat dim tensor should be a scalar integer, but got shape " + model::shapeString(dim_t.shape()));
    const std::int64_t dim = dim_t.data<std::int32_t>()[0];
    const Tensor& first = ctx.input(1);
    const int rank = first.dims();
    if (dim < 0 || dim >= rank)
      return ctx.error("ConcatOp : Expected concatenating dimensions in the range [0, " + std::to_string(rank) +
                       "), but got " + std::to_string(dim));
    std::vector<std::pair<float, float>> ranges;
    float overall_min = std::numeric_limits<float>::max(), overall_max = std::numeric_limits<float>::lowest();
    Shape out_shape = first.shape();
    out_shape[static_cast<std::size_t>(dim)] = 0;
    for (int i = 0; i < n_; ++i) {
      GDS_RETURN_IF_ERROR(qkern::requireType(ctx, 1 + i, out_type_, "values"));
      const Tensor& v = ctx.input(1 + i);
      if (v.dims() != rank)
        return ctx.error("ConcatOp : Ranks of all input tensors should match: shape[0] = " +
                         model::shapeString(first.shape()) + " vs. shape[" + std::to_string(i) +
                         "] = " + model::shapeString(v.shape()));
      for (int d = 0; d < rank; ++d)
        if (d != dim && v.dim(d) != first.dim(d))
          return ctx.error("ConcatOp : Dimensions of inputs should match: shape[0] = " +
                           model::shapeString(first.shape()) + " vs. shape[" + std::to_string(i) +
                           "] = " + model::shapeString(v.shape()));
      out_shape[static_cast<std::size_t>(dim)] += v.dim(static_cast<int>(dim));
      float lo, hi;
      GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 1 + n_ + i, "input_mins", &lo));
      GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 1 + 2 * n_ + i, "input_maxes", &hi));
      ranges.emplace_back(lo, hi);
      overall_min = std::min(overall_min, lo);
      overall_max = std::max(overall_max, hi);
    }
    float out_min = overall_min, out_max = overall_max;
    if (out_type_ == kQI32) {  // signed: symmetric around zero
      const float largest = std::max(std::abs(overall_min), std::abs(overall_max));
      out_min = -largest;
      out_max = largest;
    }
    Tensor* out = ctx.allocateOutput(0, out_type_, out_shape);
    std::int64_t outer = 1;
    for (int d = 0; d < dim; ++d) outer *= first.dim(d);
    const std::int64_t out_row = outer > 0 ? out->numElements() / outer : 0;
    const std::size_t elem = out_type_ == kQU8 ? 1 : 4;
    std::int64_t col = 0;
    for (int i = 0; i < n_; ++i) {
      const Tensor& v = ctx.input(1 + i);
      const std::int64_t row = outer > 0 ? v.numElements() / outer : 0;
      const bool same = ranges[static_cast<std::size_t>(i)].first == out_min &&
                        ranges[static_cast<std::size_t>(i)].second == out_max;
      std::uint8_t table[256];
      if (out_type_ == kQU8 && !same) {
        const quantized::EigenRequantizer<std::uint8_t, std::uint8_t> r(ranges[static_cast<std::size_t>(i)].first,
                                                                       ranges[static_cast<std::size_t>(i)].second,
                                                                       out_min, out_max);
        for (int q = 0; q < 256; ++q) table[q] = r(static_cast<std::uint8_t>(q));
      }
      const quantized::EigenRequantizer<std::int32_t, std::int32_t> r32(ranges[static_cast<std::size_t>(i)].first,
                                                                        ranges[static_cast<std::size_t>(i)].second,
                                                                        out_min, out_max);
      for (std::int64_t o = 0; o < outer; ++o) {
        const std::size_t src_off = static_cast<std::size_t>(o * row) * elem;
        const std::size_t dst_off = static_cast<std::size_t>(o * out_row + col) * elem;
        const std::uint8_t* src = static_cast<const std::uint8_t*>(v.raw()) + src_off;
        std::uint8_t* dst = static_cast<std::uint8_t*>(out->raw()) + dst_off;
        if (same) {
          std::memcpy(dst, src, static_cast<std::size_t>(row) * elem);
        } else if (out_type_ == kQU8) {
          for (std::int64_t j = 0; j < row; ++j) dst[j] = table[src[j]];
        } else {
          const std::int32_t* s32 = reinterpret_cast<const std::int32_t*>(src);
          std::int32_t* d32 = reinterpret_cast<std::int32_t*>(dst);
          for (std::int64_t j = 0; j < row; ++j) d32[j] = r32(s32[j]);
        }
      }
      col += row;
    }
    qkern::setScalar(ctx, 1, out_min);
    qkern::setScalar(ctx, 2, out_max);
    return Status::Ok();
  }

 private:
  int n_ = 0;
};

// ----------------------------------------------------------- Reshape
class QuantizedReshapeKernel : public OpKernel {
 public:
  int numOutputs(const KernelInit&) const override { return 3; }
  std::vector<DataType> outputTypes(const KernelInit& init) const override {
    DataType t = init.inputType(0);
    if (t == tensorflow::DT_INVALID) init.getAttr("T", &t);
    return {t, kFloat, kFloat};
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    std::vector<std::int64_t> dims;
    GDS_RETURN_IF_ERROR(kern::readInts(ctx, 1, "shape", &dims));
    float lo, hi;
    GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 2, "input_min", &lo));
    GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 3, "input_max", &hi));
    Shape shape(dims.begin(), dims.end());
    std::int64_t known = 1;
    int unknown = -1;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] == -1) {
        if (unknown >= 0) return ctx.error("only one input size may be -1, not both " + std::to_string(unknown) +
                                           " and " + std::to_string(i));
        unknown = static_cast<int>(i);
      } else if (shape[i] < 0) {
        return ctx.error("size " + std::to_string(i) + " must be non-negative, not " + std::to_string(shape[i]));
      } else {
        known *= shape[i];
      }
    }
    const std::int64_t n = input.numElements();
    if (unknown >= 0) {
      if (known == 0 || n % known != 0)
        return ctx.error("Input to reshape is a tensor with " + std::to_string(n) +
                         " values, but the requested shape " + model::shapeString(shape) + " cannot take them");
      shape[static_cast<std::size_t>(unknown)] = n / known;
    } else if (known != n) {
      return ctx.error("Input to reshape is a tensor with " + std::to_string(n) +
                       " values, but the requested shape has " + std::to_string(known));
    }
    ctx.setOutput(0, input.reshaped(shape));
    qkern::setScalar(ctx, 1, lo);
    qkern::setScalar(ctx, 2, hi);
    return Status::Ok();
  }
};

// ------------------------------------------------------ Mul and Add
enum class QuantizedBinaryOp { kMul, kAdd };

class QuantizedBinaryKernel : public ThreeOutputKernel {
 public:
  explicit QuantizedBinaryKernel(QuantizedBinaryOp op) : op_(op) {}
  Status init(const KernelInit& init) override {
    DataType t1, t2;
    GDS_RETURN_IF_ERROR(qkern::typeAttr(init, "T1", kQU8, &t1));
    GDS_RETURN_IF_ERROR(qkern::typeAttr(init, "T2", kQU8, &t2));
    GDS_RETURN_IF_ERROR(qkern::typeAttr(init, "Toutput", kQI32, &out_type_));
    if (t1 != kQU8 || t2 != kQU8 || out_type_ != kQI32)
      return init.error("only T1=quint8, T2=quint8, Toutput=qint32 is supported (as in TensorFlow)");
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Tensor& y = ctx.input(1);
    GDS_RETURN_IF_ERROR(qkern::requireType(ctx, 0, kQU8, "x"));
    GDS_RETURN_IF_ERROR(qkern::requireType(ctx, 1, kQU8, "y"));
    float min_x, max_x, min_y, max_y;
    GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 2, "min_x", &min_x));
    GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 3, "max_x", &max_x));
    GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 4, "min_y", &min_y));
    GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 5, "max_y", &max_y));
    Shape out_shape;
    if (!kern::broadcastShapes(x.shape(), y.shape(), &out_shape))
      return ctx.error("Incompatible shapes: " + model::shapeString(x.shape()) + " vs. " + model::shapeString(y.shape()));
    if (!(max_x > min_x)) return ctx.error("max_x must be larger than min_x.");
    if (!(max_y > min_y)) return ctx.error("max_y must be larger than min_y.");
    Tensor* z = ctx.allocateOutput(0, kQI32, out_shape);
    const auto xs = qkern::broadcastStrides(x.shape(), out_shape);
    const auto ys = qkern::broadcastStrides(y.shape(), out_shape);
    float min_z, max_z;
    if (op_ == QuantizedBinaryOp::kAdd) {
      quantized::addOutputRange(min_x, max_x, min_y, max_y, &min_z, &max_z);
      std::int32_t x_table[256], y_table[256];
      quantized::addTableLinear(min_x, max_x, min_z, max_z, x_table);
      quantized::addTableLinear(min_y, max_y, min_z, max_z, y_table);
      // TensorFlow converts a single-element operand with RequantizeInNewRange.
      if (x.numElements() == 1) {
        x_table[x.data<std::uint8_t>()[0]] = quantized::requantizeInNewRange<std::uint8_t, std::int32_t>(
            x.data<std::uint8_t>()[0], min_x, max_x, min_z, max_z);
      } else if (y.numElements() == 1) {
        y_table[y.data<std::uint8_t>()[0]] = quantized::requantizeInNewRange<std::uint8_t, std::int32_t>(
            y.data<std::uint8_t>()[0], min_y, max_y, min_z, max_z);
      }
      quantized::addU8(x.data<std::uint8_t>(), x_table, y.data<std::uint8_t>(), y_table, out_shape, xs, ys,
                       z->data<std::int32_t>());
    } else {
      const std::int32_t zx = static_cast<std::int32_t>(floatToQuantizedUnclamped<std::uint8_t>(0.0f, min_x, max_x));
      const std::int32_t zy = static_cast<std::int32_t>(floatToQuantizedUnclamped<std::uint8_t>(0.0f, min_y, max_y));
      quantized::mulU8(x.data<std::uint8_t>(), zx, y.data<std::uint8_t>(), zy, out_shape, xs, ys,
                       z->data<std::int32_t>());
      quantized::quantizationRangeForMultiplication<std::uint8_t, std::uint8_t, std::int32_t>(min_x, max_x, min_y,
                                                                                             max_y, &min_z, &max_z);
    }
    qkern::setScalar(ctx, 1, min_z);
    qkern::setScalar(ctx, 2, max_z);
    return Status::Ok();
  }

 private:
  QuantizedBinaryOp op_;
};

template <typename K>
KernelFactory factory() {
  return [] { return std::unique_ptr<OpKernel>(new K()); };
}

}  // namespace

void registerQuantizedArrayKernels(KernelRegistry& registry) {
  registry.add("QuantizeV2", factory<QuantizeV2Kernel>());
  registry.add("RequantizationRange", factory<RequantizationRangeKernel>());
  registry.add("Requantize", factory<RequantizeKernel>());
  registry.add("QuantizedConcat", factory<QuantizedConcatKernel>());
  registry.add("QuantizedReshape", factory<QuantizedReshapeKernel>());
  registry.add("QuantizedMul", [] {
    return std::unique_ptr<OpKernel>(new QuantizedBinaryKernel(QuantizedBinaryOp::kMul));
  });
  registry.add("QuantizedAdd", [] {
    return std::unique_ptr<OpKernel>(new QuantizedBinaryKernel(QuantizedBinaryOp::kAdd));
  });
}

}  // namespace gds::engine
