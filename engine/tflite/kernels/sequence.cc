// TFLite dialect kernels for the builtins that exported Keras models add
// (transforms/tflite/lower_keras_ops.cc), with TensorFlow Lite's semantics
// (tensorflow/lite/kernels/*.cc):
// - data movement for any element type (int8 keeps its quantization, as
//   TFLite requires the same scale in and out): UNPACK, SPLIT, PACK, GATHER,
//   TILE, RESIZE_NEAREST_NEIGHBOR;
// - float: CAST (to and from int32/int64, truncating toward zero as
//   static_cast does), EXP, LOG, ELU, NEG, SQUARE, SQRT, RSQRT, ABS,
//   LOG_SOFTMAX, SQUARED_DIFFERENCE, SELECT_V2 and the comparisons
//   (broadcasting), SUM, REDUCE_PROD, REDUCE_MAX/MIN (also int8),
//   BATCH_MATMUL, TRANSPOSE_CONV (weights [out, h, w, in], the reference
//   kernel's scatter of each input pixel).
#include <cstring>

#include "engine/allocation.h"
#include "engine/ops/broadcast.h"
#include "engine/tflite/kernels/kernel_util.h"

namespace gds::engine::tflkern {

namespace {

using tensorflow::DT_BOOL;

std::int64_t normalizedAxis(std::int64_t axis, std::int64_t rank) { return axis < 0 ? axis + rank : axis; }

// The sizes around `axis`: outer (before), inner (after, in elements).
void around(const Shape& s, std::int64_t axis, std::int64_t* outer, std::int64_t* inner) {
  *outer = 1;
  *inner = 1;
  for (std::int64_t d = 0; d < static_cast<std::int64_t>(s.size()); ++d) {
    if (d < axis) *outer *= s[static_cast<std::size_t>(d)];
    if (d > axis) *inner *= s[static_cast<std::size_t>(d)];
  }
}

// UNPACK (num, axis) and SPLIT (num_splits; axis from input 0): equal parts
// of one input along an axis, the axis dropped by UNPACK.
class PartsKernel : public TflKernel {
 public:
  explicit PartsKernel(bool split) : split_(split) {}
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(init.getAttr(split_ ? "num_splits" : "num", &parts_));
    if (!split_) GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("axis", &axis_, 0));
    if (parts_ < 1) return init.error("the number of parts must be positive");
    return Status::Ok();
  }
  int numOutputs(const KernelInit&) const override { return static_cast<int>(parts_); }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(split_ ? 1 : 0);
    std::int64_t axis = axis_;
    if (split_) {
      std::vector<std::int64_t> a;
      if (!intValues(ctx.input(0), &a) || a.size() != 1) return ctx.error("the axis must be one int32");
      axis = a[0];
    }
    axis = normalizedAxis(axis, x.dims());
    if (axis < 0 || axis >= x.dims()) return ctx.error("axis " + std::to_string(axis) + " is out of range");
    const std::int64_t n = x.dim(static_cast<int>(axis));
    if (n % parts_ != 0)
      return ctx.error("dimension " + std::to_string(axis) + " of " + shapeStr(x.shape()) + " does not split into " +
                       std::to_string(parts_) + " equal parts");
    std::int64_t outer, inner;
    around(x.shape(), axis, &outer, &inner);
    const std::int64_t width = n / parts_, bytes = static_cast<std::int64_t>(model::dtypeSize(x.dtype()));
    Shape part = x.shape();
    if (split_) part[static_cast<std::size_t>(axis)] = width;
    else part.erase(part.begin() + axis);
    const auto* src = static_cast<const char*>(x.raw());
    for (std::int64_t k = 0; k < parts_; ++k) {
      Tensor* o = ctx.allocateOutput(static_cast<int>(k), x.dtype(), part);
      auto* dst = static_cast<char*>(o->raw());
      const std::int64_t chunk = width * inner * bytes;
      for (std::int64_t b = 0; b < outer; ++b)
        std::memcpy(dst + b * chunk, src + (b * n + k * width) * inner * bytes, static_cast<std::size_t>(chunk));
    }
    return Status::Ok();
  }

 private:
  bool split_;
  std::int64_t parts_ = 0, axis_ = 0;
};

// GATHER (axis, batch_dims 0): rows of params picked by int32/int64 indices,
// an index outside [0, dim) an error as in TFLite.
class GatherKernel : public TflKernel {
 public:
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("axis", &axis_, 0));
    std::int64_t batch_dims = 0;
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("batch_dims", &batch_dims, 0));
    if (batch_dims != 0) return init.error("batch_dims other than 0 is not supported");
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& params = ctx.input(0);
    std::vector<std::int64_t> idx;
    if (!intValues(ctx.input(1), &idx)) return ctx.error("indices must be int32 or int64");
    const std::int64_t axis = normalizedAxis(axis_, params.dims());
    if (axis < 0 || axis >= params.dims()) return ctx.error("axis " + std::to_string(axis_) + " is out of range");
    std::int64_t outer, inner;
    around(params.shape(), axis, &outer, &inner);
    const std::int64_t n = params.dim(static_cast<int>(axis));
    Shape out(params.shape().begin(), params.shape().begin() + axis);
    out.insert(out.end(), ctx.input(1).shape().begin(), ctx.input(1).shape().end());
    out.insert(out.end(), params.shape().begin() + axis + 1, params.shape().end());
    for (auto i : idx)
      if (i < 0 || i >= n)
        return ctx.error("index " + std::to_string(i) + " is outside [0, " + std::to_string(n) + ") of the params " +
                         shapeStr(params.shape()));
    Tensor* o = ctx.allocateOutput(0, params.dtype(), out);
    const std::int64_t bytes = static_cast<std::int64_t>(model::dtypeSize(params.dtype())) * inner;
    const auto* src = static_cast<const char*>(params.raw());
    auto* dst = static_cast<char*>(o->raw());
    const auto count = static_cast<std::int64_t>(idx.size());
    for (std::int64_t b = 0; b < outer; ++b)
      for (std::int64_t k = 0; k < count; ++k)
        std::memcpy(dst + (b * count + k) * bytes, src + (b * n + idx[static_cast<std::size_t>(k)]) * bytes,
                    static_cast<std::size_t>(bytes));
    return Status::Ok();
  }

 private:
  std::int64_t axis_ = 0;
};

// PACK (values_count, axis): equal-shaped inputs stacked along a new axis.
class PackKernel : public TflKernel {
 public:
  Status init(const KernelInit& init) override { return init.getAttrOr<std::int64_t>("axis", &axis_, 0); }
  Status compute(KernelContext& ctx) override {
    const Tensor& first = ctx.input(0);
    const std::int64_t axis = normalizedAxis(axis_, first.dims() + 1);
    if (axis < 0 || axis > first.dims()) return ctx.error("axis " + std::to_string(axis_) + " is out of range");
    const int count = ctx.numInputs();
    for (int k = 1; k < count; ++k)
      if (ctx.input(k).shape() != first.shape() || ctx.input(k).dtype() != first.dtype())
        return ctx.error("input " + std::to_string(k) + " " + shapeStr(ctx.input(k).shape()) + " differs from input 0 " +
                         shapeStr(first.shape()));
    Shape out = first.shape();
    out.insert(out.begin() + axis, count);
    std::int64_t outer, inner;
    around(out, axis, &outer, &inner);
    Tensor* o = ctx.allocateOutput(0, first.dtype(), out);
    const std::int64_t chunk = inner * static_cast<std::int64_t>(model::dtypeSize(first.dtype()));
    auto* dst = static_cast<char*>(o->raw());
    for (std::int64_t b = 0; b < outer; ++b)
      for (int k = 0; k < count; ++k)
        std::memcpy(dst + (b * count + k) * chunk, static_cast<const char*>(ctx.input(k).raw()) + b * chunk,
                    static_cast<std::size_t>(chunk));
    return Status::Ok();
  }

 private:
  std::int64_t axis_ = 0;
};

// RESIZE_NEAREST_NEIGHBOR (input NHWC, size [h, w]; align_corners,
// half_pixel_centers): reference_ops GetNearestNeighbor, any element type.
class ResizeNearestKernel : public TflKernel {
 public:
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(init.getAttrOr("align_corners", &align_corners_, false));
    return init.getAttrOr("half_pixel_centers", &half_pixel_centers_, false);
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    std::vector<std::int64_t> size;
    if (x.dims() != 4 || !intValues(ctx.input(1), &size) || size.size() != 2 || size[0] < 1 || size[1] < 1)
      return ctx.error("takes an NHWC input and a size of two positive int32 values");
    GDS_RETURN_IF_ERROR(checkAllocation(x.dtype(), {x.dim(0), size[0], size[1], x.dim(3)}));
    Tensor* o = ctx.allocateOutput(0, x.dtype(), {x.dim(0), size[0], size[1], x.dim(3)});
    const std::int64_t bytes = static_cast<std::int64_t>(model::dtypeSize(x.dtype())) * x.dim(3);
    const auto* src = static_cast<const char*>(x.raw());
    auto* dst = static_cast<char*>(o->raw());
    for (std::int64_t b = 0; b < x.dim(0); ++b)
      for (std::int64_t y = 0; y < size[0]; ++y) {
        const std::int64_t iy = nearest(y, x.dim(1), size[0]);
        for (std::int64_t z = 0; z < size[1]; ++z) {
          const std::int64_t iz = nearest(z, x.dim(2), size[1]);
          std::memcpy(dst + ((b * size[0] + y) * size[1] + z) * bytes, src + ((b * x.dim(1) + iy) * x.dim(2) + iz) * bytes,
                      static_cast<std::size_t>(bytes));
        }
      }
    return Status::Ok();
  }

 private:
  std::int64_t nearest(std::int64_t v, std::int64_t in, std::int64_t out) const {
    const float scale = align_corners_ && out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                                                  : static_cast<float>(in) / static_cast<float>(out);
    const float offset = half_pixel_centers_ ? 0.5f : 0.0f;
    const float pos = (static_cast<float>(v) + offset) * scale;
    std::int64_t r = std::min(static_cast<std::int64_t>(align_corners_ ? std::round(pos) : std::floor(pos)), in - 1);
    if (half_pixel_centers_) r = std::max<std::int64_t>(r, 0);
    return r;
  }
  bool align_corners_ = false, half_pixel_centers_ = false;
};

class TileKernel : public TflKernel {
 public:
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    std::vector<std::int64_t> m;
    if (!intValues(ctx.input(1), &m) || static_cast<int>(m.size()) != x.dims())
      return ctx.error("multiples must hold one int per dimension of " + shapeStr(x.shape()));
    Shape out = x.shape();
    for (std::size_t d = 0; d < out.size(); ++d) {
      if (m[d] < 0) return ctx.error("multiples hold a negative value");
      out[d] *= m[d];
    }
    GDS_RETURN_IF_ERROR(checkAllocation(x.dtype(), out));
    Tensor* o = ctx.allocateOutput(0, x.dtype(), out);
    const std::size_t bytes = model::dtypeSize(x.dtype());
    const auto* src = static_cast<const char*>(x.raw());
    auto* dst = static_cast<char*>(o->raw());
    const std::int64_t total = model::numElements(out);
    for (std::int64_t i = 0; i < total; ++i) {
      std::int64_t rest = i, offset = 0, stride = 1;
      for (int d = x.dims() - 1; d >= 0; --d) {
        const std::int64_t od = out[static_cast<std::size_t>(d)];
        offset += (rest % od) % x.dim(d) * stride;
        rest /= od;
        stride *= x.dim(d);
      }
      std::memcpy(dst + static_cast<std::size_t>(i) * bytes, src + static_cast<std::size_t>(offset) * bytes, bytes);
    }
    return Status::Ok();
  }
};

class CastKernel : public TflKernel {
 public:
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const DataType to = output_type_;
    Tensor* o = ctx.allocateOutput(0, to, x.shape());
    const std::int64_t n = x.numElements();
    for (std::int64_t i = 0; i < n; ++i) {
      double v = 0;
      if (x.dtype() == DT_FLOAT) v = x.data<float>()[i];
      else if (x.dtype() == DT_BOOL) v = x.data<bool>()[i] ? 1 : 0;
      else if (x.dtype() == DT_INT32) v = x.data<std::int32_t>()[i];
      else if (x.dtype() == DT_INT64) v = static_cast<double>(x.data<std::int64_t>()[i]);
      else return ctx.error("input is " + model::dtypeName(x.dtype()) + "; bool, float32, int32 and int64 are cast");
      if (to == DT_FLOAT) o->data<float>()[i] = static_cast<float>(v);
      else if (to == DT_INT32) o->data<std::int32_t>()[i] = static_cast<std::int32_t>(v);
      else if (to == DT_INT64) o->data<std::int64_t>()[i] = static_cast<std::int64_t>(v);
      else return ctx.error("output is " + model::dtypeName(to) + "; float32, int32 and int64 are cast to");
    }
    return Status::Ok();
  }
  Status init(const KernelInit& init) override {
    output_type_ = outputTypes(init).at(0);
    return Status::Ok();
  }

 private:
  DataType output_type_ = DT_FLOAT;
};

enum class FloatUnary { kExp, kLog, kElu, kNeg, kSquare, kSqrt, kRsqrt, kAbs };

float floatUnary(FloatUnary op, float v) {
  switch (op) {
    case FloatUnary::kExp: return std::exp(v);
    case FloatUnary::kLog: return std::log(v);
    case FloatUnary::kElu: return v < 0 ? std::expm1(v) : v;
    case FloatUnary::kNeg: return -v;
    case FloatUnary::kSquare: return v * v;
    case FloatUnary::kSqrt: return std::sqrt(v);
    case FloatUnary::kRsqrt: return 1.0f / std::sqrt(v);
    case FloatUnary::kAbs: return std::fabs(v);
  }
  return v;
}

class FloatUnaryKernel : public TflKernel {
 public:
  explicit FloatUnaryKernel(FloatUnary op) : op_(op) {}
  Status compute(KernelContext& ctx) override {
    GDS_RETURN_IF_ERROR(requireType(ctx, 0, DT_FLOAT));
    const Tensor& x = ctx.input(0);
    Tensor* o = ctx.allocateOutput(0, DT_FLOAT, x.shape());
    const float* in = x.data<float>();
    float* out = o->data<float>();
    for (std::int64_t i = 0; i < x.numElements(); ++i) out[i] = floatUnary(op_, in[i]);
    return Status::Ok();
  }

 private:
  FloatUnary op_;
};

// Elementwise over broadcast inputs: out[i] = f(inputs at i).
template <typename F>
Status broadcastEach(KernelContext& ctx, const std::vector<const Tensor*>& in, DataType out_type, F f) {
  ops::Dims out = in[0]->shape();
  for (std::size_t k = 1; k < in.size(); ++k)
    if (ops::Dims both; ops::broadcastShapes(out, in[k]->shape(), &both)) out = both;
    else
      return ctx.error("inputs " + shapeStr(in[0]->shape()) + " and " + shapeStr(in[k]->shape()) + " do not broadcast");
  Tensor* o = ctx.allocateOutput(0, out_type, out);
  const std::int64_t n = model::numElements(out);
  std::vector<std::int64_t> at(in.size());
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < in.size(); ++k) ops::unravel(i, out, in[k]->shape(), &at[k]);
    f(o, i, at);
  }
  return Status::Ok();
}

// LOG_SOFTMAX over the last axis: x - max - log(sum(exp(x - max))).
class LogSoftmaxKernel : public TflKernel {
 public:
  Status compute(KernelContext& ctx) override {
    GDS_RETURN_IF_ERROR(requireType(ctx, 0, DT_FLOAT));
    const Tensor& x = ctx.input(0);
    if (x.dims() < 1) return ctx.error("needs an input of rank 1 or more");
    Tensor* o = ctx.allocateOutput(0, DT_FLOAT, x.shape());
    const std::int64_t depth = x.dim(x.dims() - 1), rows = depth > 0 ? x.numElements() / depth : 0;
    for (std::int64_t r = 0; r < rows; ++r) {
      const float* in = x.data<float>() + r * depth;
      float* out = o->data<float>() + r * depth;
      const float top = *std::max_element(in, in + depth);
      float sum = 0;
      for (std::int64_t k = 0; k < depth; ++k) sum += std::exp(in[k] - top);
      const float log_sum = std::log(sum);
      for (std::int64_t k = 0; k < depth; ++k) out[k] = in[k] - top - log_sum;
    }
    return Status::Ok();
  }
};

// SQUARED_DIFFERENCE (float, broadcasting).
class SquaredDifferenceKernel : public TflKernel {
 public:
  Status compute(KernelContext& ctx) override;
};

// SUM, REDUCE_PROD (float), REDUCE_MAX and REDUCE_MIN (float, and int8 with
// the input's quantization kept) over the axes of input 1, keep_dims.
enum class Reduce { kSum, kProd, kMax, kMin };

class ReduceKernel : public TflKernel {
 public:
  explicit ReduceKernel(Reduce op) : op_(op) {}
  Status init(const KernelInit& init) override { return init.getAttrOr("keep_dims", &keep_dims_, false); }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const bool int8 = x.dtype() == DT_INT8 && (op_ == Reduce::kMax || op_ == Reduce::kMin);
    if (!int8) GDS_RETURN_IF_ERROR(requireType(ctx, 0, DT_FLOAT));
    std::vector<std::int64_t> axes;
    if (!intValues(ctx.input(1), &axes)) return ctx.error("the axes must be int32");
    std::vector<bool> reduced(static_cast<std::size_t>(x.dims()), false);
    for (auto a : axes) {
      const std::int64_t d = normalizedAxis(a, x.dims());
      if (d < 0 || d >= x.dims()) return ctx.error("axis " + std::to_string(a) + " is out of range");
      reduced[static_cast<std::size_t>(d)] = true;
    }
    Shape kept, out;
    for (int d = 0; d < x.dims(); ++d) {
      kept.push_back(reduced[static_cast<std::size_t>(d)] ? 1 : x.dim(d));
      if (!reduced[static_cast<std::size_t>(d)]) out.push_back(x.dim(d));
      else if (keep_dims_) out.push_back(1);
    }
    Tensor* o = ctx.allocateOutput(0, x.dtype(), out);
    const std::int64_t n = model::numElements(kept);
    std::vector<float> acc(static_cast<std::size_t>(n), op_ == Reduce::kSum ? 0.0f : op_ == Reduce::kProd ? 1.0f
                                                         : op_ == Reduce::kMax ? -INFINITY : INFINITY);
    for (std::int64_t i = 0; i < x.numElements(); ++i) {
      std::int64_t at = 0;
      ops::unravel(i, x.shape(), kept, &at);
      // unravel maps an index of the full shape onto `kept` (broadcast dims read 0).
      const float v = int8 ? static_cast<float>(x.data<std::int8_t>()[i]) : x.data<float>()[i];
      float& a = acc[static_cast<std::size_t>(at)];
      a = op_ == Reduce::kSum ? a + v : op_ == Reduce::kProd ? a * v : op_ == Reduce::kMax ? std::max(a, v) : std::min(a, v);
    }
    for (std::int64_t i = 0; i < n; ++i) {
      if (int8) o->data<std::int8_t>()[i] = static_cast<std::int8_t>(acc[static_cast<std::size_t>(i)]);
      else o->data<float>()[i] = acc[static_cast<std::size_t>(i)];
    }
    return Status::Ok();
  }

 private:
  Reduce op_;
  bool keep_dims_ = false;
};

class SelectKernel : public TflKernel {
 public:
  Status compute(KernelContext& ctx) override {
    GDS_RETURN_IF_ERROR(requireType(ctx, 0, DT_BOOL));
    GDS_RETURN_IF_ERROR(requireType(ctx, 1, DT_FLOAT));
    GDS_RETURN_IF_ERROR(requireType(ctx, 2, DT_FLOAT));
    const bool* c = ctx.input(0).data<bool>();
    const float* a = ctx.input(1).data<float>();
    const float* b = ctx.input(2).data<float>();
    return broadcastEach(ctx, {&ctx.input(0), &ctx.input(1), &ctx.input(2)}, DT_FLOAT,
                         [&](Tensor* o, std::int64_t i, const std::vector<std::int64_t>& at) {
                           o->data<float>()[i] = c[at[0]] ? a[at[1]] : b[at[2]];
                         });
  }
};

enum class Compare { kGreater, kGreaterEqual, kLess, kLessEqual, kEqual, kNotEqual };

class CompareKernel : public TflKernel {
 public:
  explicit CompareKernel(Compare op) : op_(op) {}
  std::vector<DataType> outputTypes(const KernelInit&) const override { return {DT_BOOL}; }
  Status compute(KernelContext& ctx) override {
    const DataType t = ctx.input(0).dtype();
    if (t != DT_FLOAT && t != DT_INT32 && t != DT_INT64) return ctx.error("compares float32, int32 or int64 inputs");
    GDS_RETURN_IF_ERROR(requireType(ctx, 1, t));
    auto value = [&](int k, std::int64_t at) -> double {
      const Tensor& v = ctx.input(k);
      return t == DT_FLOAT ? v.data<float>()[at] : t == DT_INT32 ? v.data<std::int32_t>()[at]
                                                                   : static_cast<double>(v.data<std::int64_t>()[at]);
    };
    return broadcastEach(ctx, {&ctx.input(0), &ctx.input(1)}, DT_BOOL,
                         [&](Tensor* o, std::int64_t i, const std::vector<std::int64_t>& at) {
                           const double x = value(0, at[0]), y = value(1, at[1]);
                           bool r = false;
                           switch (op_) {
                             case Compare::kGreater: r = x > y; break;
                             case Compare::kGreaterEqual: r = x >= y; break;
                             case Compare::kLess: r = x < y; break;
                             case Compare::kLessEqual: r = x <= y; break;
                             case Compare::kEqual: r = x == y; break;
                             case Compare::kNotEqual: r = x != y; break;
                           }
                           o->data<bool>()[i] = r;
                         });
  }

 private:
  Compare op_;
};

Status SquaredDifferenceKernel::compute(KernelContext& ctx) {
  GDS_RETURN_IF_ERROR(requireType(ctx, 0, DT_FLOAT));
  GDS_RETURN_IF_ERROR(requireType(ctx, 1, DT_FLOAT));
  const float* a = ctx.input(0).data<float>();
  const float* b = ctx.input(1).data<float>();
  return broadcastEach(ctx, {&ctx.input(0), &ctx.input(1)}, DT_FLOAT,
                       [&](Tensor* o, std::int64_t i, const std::vector<std::int64_t>& at) {
                         const float d = a[at[0]] - b[at[1]];
                         o->data<float>()[i] = d * d;
                       });
}

// BATCH_MATMUL of two rank-3 float tensors with equal batch (or a batch of 1
// broadcast), adj_x/adj_y transposing the last two axes.
class BatchMatMulKernel : public TflKernel {
 public:
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(init.getAttrOr("adj_x", &adj_x_, false));
    return init.getAttrOr("adj_y", &adj_y_, false);
  }
  Status compute(KernelContext& ctx) override {
    GDS_RETURN_IF_ERROR(requireType(ctx, 0, DT_FLOAT));
    GDS_RETURN_IF_ERROR(requireType(ctx, 1, DT_FLOAT));
    const Tensor& x = ctx.input(0);
    const Tensor& y = ctx.input(1);
    if (x.dims() != 3 || y.dims() != 3) return ctx.error("rank-3 inputs are supported, got " + shapeStr(x.shape()) +
                                                         " and " + shapeStr(y.shape()));
    const std::int64_t bx = x.dim(0), by = y.dim(0), batch = std::max(bx, by);
    if (bx != by && bx != 1 && by != 1) return ctx.error("the batches of " + shapeStr(x.shape()) + " and " +
                                                         shapeStr(y.shape()) + " do not broadcast");
    const std::int64_t m = adj_x_ ? x.dim(2) : x.dim(1), k = adj_x_ ? x.dim(1) : x.dim(2);
    const std::int64_t k2 = adj_y_ ? y.dim(2) : y.dim(1), n = adj_y_ ? y.dim(1) : y.dim(2);
    if (k != k2) return ctx.error("inner dimensions " + std::to_string(k) + " and " + std::to_string(k2) + " differ");
    Tensor* o = ctx.allocateOutput(0, DT_FLOAT, {batch, m, n});
    for (std::int64_t b = 0; b < batch; ++b) {
      const float* xb = x.data<float>() + (bx == 1 ? 0 : b) * x.dim(1) * x.dim(2);
      const float* yb = y.data<float>() + (by == 1 ? 0 : b) * y.dim(1) * y.dim(2);
      float* ob = o->data<float>() + b * m * n;
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
          float acc = 0;
          for (std::int64_t t = 0; t < k; ++t)
            acc += (adj_x_ ? xb[t * m + i] : xb[i * k + t]) * (adj_y_ ? yb[j * k + t] : yb[t * n + j]);
          ob[i * n + j] = acc;
        }
    }
    return Status::Ok();
  }

 private:
  bool adj_x_ = false, adj_y_ = false;
};

// TRANSPOSE_CONV (output_shape, weights [out, h, w, in], input[, bias]):
// each input pixel scattered through the weights onto the output
// (reference_ops::TransposeConv), float.
class TransposeConvKernel : public TflKernel {
 public:
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::string>("padding", &padding_, "SAME"));
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("stride_h", &stride_h_, 1));
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("stride_w", &stride_w_, 1));
    GDS_RETURN_IF_ERROR(readActivation(init));
    has_bias_ = !absent(init, 3);
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    std::vector<std::int64_t> shape;
    if (!intValues(ctx.input(0), &shape) || shape.size() != 4) return ctx.error("output_shape must be 4 int32 values");
    const Tensor& w = ctx.input(1);
    const Tensor& x = ctx.input(2);
    GDS_RETURN_IF_ERROR(requireType(ctx, 1, DT_FLOAT));
    GDS_RETURN_IF_ERROR(requireType(ctx, 2, DT_FLOAT));
    if (w.dims() != 4 || x.dims() != 4 || w.dim(3) != x.dim(3) || w.dim(0) != shape[3] || x.dim(0) != shape[0])
      return ctx.error("output_shape " + shapeStr(shape) + ", weights " + shapeStr(w.shape()) + " and input " +
                       shapeStr(x.shape()) + " disagree");
    std::int64_t in_h, in_w, pad_h, pad_w;
    if (!windowDim(padding_, shape[1], w.dim(1), stride_h_, 1, &in_h, &pad_h) ||
        !windowDim(padding_, shape[2], w.dim(2), stride_w_, 1, &in_w, &pad_w) || in_h != x.dim(1) || in_w != x.dim(2))
      return ctx.error("the input " + shapeStr(x.shape()) + " is not what a convolution of output_shape " +
                       shapeStr(shape) + " gives");
    const float* bias = has_bias_ ? ctx.input(3).data<float>() : nullptr;
    Tensor* o = ctx.allocateOutput(0, DT_FLOAT, shape);
    float* out = o->data<float>();
    std::fill(out, out + o->numElements(), 0.0f);
    const std::int64_t co = shape[3], ci = x.dim(3), kh = w.dim(1), kw = w.dim(2);
    for (std::int64_t b = 0; b < shape[0]; ++b)
      for (std::int64_t a = 0; a < in_h; ++a)
        for (std::int64_t c = 0; c < in_w; ++c)
          for (std::int64_t i = 0; i < kh; ++i)
            for (std::int64_t j = 0; j < kw; ++j) {
              const std::int64_t y = a * stride_h_ + i - pad_h, z = c * stride_w_ + j - pad_w;
              if (y < 0 || y >= shape[1] || z < 0 || z >= shape[2]) continue;
              const float* xin = x.data<float>() + ((b * in_h + a) * in_w + c) * ci;
              float* o_px = out + ((b * shape[1] + y) * shape[2] + z) * co;
              for (std::int64_t oc = 0; oc < co; ++oc) {
                const float* wk = w.data<float>() + ((oc * kh + i) * kw + j) * ci;
                float acc = 0;
                for (std::int64_t k = 0; k < ci; ++k) acc += xin[k] * wk[k];
                o_px[oc] += acc;
              }
            }
    for (std::int64_t p = 0; p < o->numElements(); ++p)
      out[p] = std::min(std::max(out[p] + (bias ? bias[p % co] : 0.0f), fmin_), fmax_);
    return Status::Ok();
  }

 private:
  std::string padding_;
  std::int64_t stride_h_ = 1, stride_w_ = 1;
  bool has_bias_ = false;
};

}  // namespace

void registerSequenceKernels(KernelRegistry& registry) {
  registry.add("tfl.unpack", make<PartsKernel>(false));
  registry.add("tfl.split", make<PartsKernel>(true));
  registry.add("tfl.gather", make<GatherKernel>());
  registry.add("tfl.pack", make<PackKernel>());
  registry.add("tfl.tile", make<TileKernel>());
  registry.add("tfl.resize_nearest_neighbor", make<ResizeNearestKernel>());
  registry.add("tfl.cast", make<CastKernel>());
  registry.add("tfl.exp", make<FloatUnaryKernel>(FloatUnary::kExp));
  registry.add("tfl.log", make<FloatUnaryKernel>(FloatUnary::kLog));
  registry.add("tfl.elu", make<FloatUnaryKernel>(FloatUnary::kElu));
  registry.add("tfl.neg", make<FloatUnaryKernel>(FloatUnary::kNeg));
  registry.add("tfl.square", make<FloatUnaryKernel>(FloatUnary::kSquare));
  registry.add("tfl.sqrt", make<FloatUnaryKernel>(FloatUnary::kSqrt));
  registry.add("tfl.rsqrt", make<FloatUnaryKernel>(FloatUnary::kRsqrt));
  registry.add("tfl.abs", make<FloatUnaryKernel>(FloatUnary::kAbs));
  registry.add("tfl.log_softmax", make<LogSoftmaxKernel>());
  registry.add("tfl.squared_difference", make<SquaredDifferenceKernel>());
  registry.add("tfl.sum", make<ReduceKernel>(Reduce::kSum));
  registry.add("tfl.reduce_prod", make<ReduceKernel>(Reduce::kProd));
  registry.add("tfl.reduce_max", make<ReduceKernel>(Reduce::kMax));
  registry.add("tfl.reduce_min", make<ReduceKernel>(Reduce::kMin));
  registry.add("tfl.select_v2", make<SelectKernel>());
  registry.add("tfl.greater", make<CompareKernel>(Compare::kGreater));
  registry.add("tfl.greater_equal", make<CompareKernel>(Compare::kGreaterEqual));
  registry.add("tfl.less", make<CompareKernel>(Compare::kLess));
  registry.add("tfl.less_equal", make<CompareKernel>(Compare::kLessEqual));
  registry.add("tfl.equal", make<CompareKernel>(Compare::kEqual));
  registry.add("tfl.not_equal", make<CompareKernel>(Compare::kNotEqual));
  registry.add("tfl.batch_matmul", make<BatchMatMulKernel>());
  registry.add("tfl.transpose_conv", make<TransposeConvKernel>());
}

}  // namespace gds::engine::tflkern
