// Reductions (tensorflow/core/kernels/reduction_ops_common.h): Sum, Mean,
// Max, Min, Prod, All, Any with keep_dims and negative axes; ArgMax/ArgMin;
// Softmax/LogSoftmax over the last dimension; BatchMatMul/BatchMatMulV2.
//
// Reference path: one pass over the input that maps each element to its
// output slot. Optimized path: reduced dims are collapsed to [outer, reduce,
// inner] and evaluated with Eigen's vectorized row/column reductions. Both
// are engine/ops/reduce.h.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include <Eigen/Core>

#include "engine/kernels/kernel_util.h"
#include "engine/ops/reduce.h"

namespace gds::engine {
namespace {

using kern::shapeStr;
using ops::kMaxRank;
using ops::planReduce;
using ops::Red;
using ops::reduceFast;
using ops::ReducePlan;
using ops::reduceReference;
using std::int64_t;

class ReduceKernel : public OpKernel {
 public:
  explicit ReduceKernel(Red r) : r_(r) {}
  Status init(const KernelInit& init) override {
    reference_ = init.referenceKernels();
    if (init.attr("keep_dims")) GDS_RETURN_IF_ERROR(init.getAttr("keep_dims", &keep_dims_));
    else if (init.attr("keepdims")) GDS_RETURN_IF_ERROR(init.getAttr("keepdims", &keep_dims_));
    if (init.numInputs() != 2) return init.error("expects 2 inputs (input, reduction_indices)");
    Shape in;
    std::vector<int64_t> axes;
    if (init.inputShape(0, &in) && kern::constInts(init, 1, &axes)) {
      ReducePlan p;
      std::string err;
      if (!planReduce(in, axes, keep_dims_, &p, &err).ok()) return init.error(err);
      static_ = p.out_shape;
      known_ = true;
    }
    return Status::Ok();
  }
  bool inferShapes(const KernelInit&, std::vector<Shape>* shapes) const override {
    if (!known_) return false;
    *shapes = {static_};
    return true;
  }
  double flops(const std::vector<Shape>& inputs, const std::vector<Shape>&) const override {
    return inputs.empty() ? 0 : static_cast<double>(std::max<int64_t>(0, model::numElements(inputs[0])));
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    std::vector<int64_t> axes;
    GDS_RETURN_IF_ERROR(kern::readInts(ctx, 1, "reduction_indices", &axes));
    ReducePlan p;
    std::string err;
    if (!planReduce(x.shape(), axes, keep_dims_, &p, &err).ok()) return ctx.error(err);
    if (x.shape().size() > kMaxRank) return ctx.error("inputs of rank above 32 are not supported");
    const bool logical = r_ == Red::All || r_ == Red::Any;
    if (logical != (x.dtype() == tensorflow::DT_BOOL))
      return ctx.error(std::string(logical ? "All/Any need a bool input" : "unsupported dtype bool") + ", got " +
                       model::dtypeName(x.dtype()));
    Tensor* out = ctx.allocateOutput(0, x.dtype(), p.out_shape);
    const int64_t n = out->numElements();
    switch (x.dtype()) {
      case tensorflow::DT_FLOAT: run<float>(ctx, x, p, out, n); break;
      case tensorflow::DT_DOUBLE: run<double>(ctx, x, p, out, n); break;
      case tensorflow::DT_INT32: run<std::int32_t>(ctx, x, p, out, n); break;
      case tensorflow::DT_INT64: run<int64_t>(ctx, x, p, out, n); break;
      case tensorflow::DT_BOOL:
        reduceReference<bool>(r_, x.data<bool>(), x.shape(), p, out->data<bool>(), n);
        break;
      default: return ctx.error("unsupported dtype " + model::dtypeName(x.dtype()));
    }
    return Status::Ok();
  }

 private:
  template <typename T>
  void run(KernelContext& ctx, const Tensor& x, const ReducePlan& p, Tensor* out, int64_t n) {
    if (reference_ || !p.simple || !std::is_floating_point_v<T>)
      reduceReference<T>(r_, x.data<T>(), x.shape(), p, out->data<T>(), n);
    else
      reduceFast<T>(r_, x.data<T>(), p, out->data<T>(), ctx.pool());
  }
  Red r_;
  bool keep_dims_ = false;
  bool reference_ = false;
  Shape static_;
  bool known_ = false;
};

// ArgMax or ArgMin.
enum class ArgKind { kMax, kMin };

class ArgKernel : public OpKernel {
 public:
  explicit ArgKernel(ArgKind kind) : kind_(kind) {}
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(init.getAttrOr<DataType>("output_type", &out_type_, tensorflow::DT_INT64));
    if (out_type_ != tensorflow::DT_INT32 && out_type_ != tensorflow::DT_INT64)
      return init.error("output_type must be int32 or int64");
    return Status::Ok();
  }
  std::vector<DataType> outputTypes(const KernelInit&) const override { return {out_type_}; }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    std::vector<int64_t> a;
    GDS_RETURN_IF_ERROR(kern::readInts(ctx, 1, "dimension", &a));
    if (a.size() != 1) return ctx.error("dimension must be a scalar");
    int64_t axis;
    if (!kern::normalizeAxis(a[0], x.dims(), &axis))
      return ctx.error("dimension " + std::to_string(a[0]) + " is out of range for input shape " + shapeStr(x.shape()));
    const int64_t dim = x.dim(static_cast<int>(axis));
    if (dim == 0) return ctx.error("reduction dimension must be non-empty, input shape " + shapeStr(x.shape()));
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < axis; ++i) outer *= x.dim(static_cast<int>(i));
    for (int64_t i = axis + 1; i < x.dims(); ++i) inner *= x.dim(static_cast<int>(i));
    Shape out_shape = x.shape();
    out_shape.erase(out_shape.begin() + axis);
    Tensor* out = ctx.allocateOutput(0, out_type_, out_shape);
    auto body = [&](auto tag) {
      using T = decltype(tag);
      const T* p = x.data<T>();
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t k = 0; k < inner; ++k) {
          int64_t best = 0;
          T bv = p[o * dim * inner + k];
          for (int64_t j = 1; j < dim; ++j) {
            T v = p[(o * dim + j) * inner + k];
            if (kind_ == ArgKind::kMax ? v > bv : v < bv) {
              bv = v;
              best = j;
            }
          }
          if (out_type_ == tensorflow::DT_INT64) out->data<int64_t>()[o * inner + k] = best;
          else out->data<std::int32_t>()[o * inner + k] = static_cast<std::int32_t>(best);
        }
    };
    switch (x.dtype()) {
      case tensorflow::DT_FLOAT: body(float()); break;
      case tensorflow::DT_DOUBLE: body(double()); break;
      case tensorflow::DT_INT32: body(std::int32_t()); break;
      case tensorflow::DT_INT64: body(int64_t()); break;
      case tensorflow::DT_UINT8: body(std::uint8_t()); break;
      default: return ctx.error("unsupported dtype " + model::dtypeName(x.dtype()));
    }
    return Status::Ok();
  }

 private:
  ArgKind kind_;
  DataType out_type_ = tensorflow::DT_INT64;
};

enum class SoftmaxForm { kSoftmax, kLogSoftmax };

class SoftmaxKernel : public OpKernel {
 public:
  explicit SoftmaxKernel(SoftmaxForm form) : form_(form) {}
  Status init(const KernelInit& init) override {
    reference_ = init.referenceKernels();
    known_ = init.inputShape(0, &shape_);
    if (known_ && shape_.empty()) return init.error("logits must have at least 1 dimension");
    return Status::Ok();
  }
  bool inferShapes(const KernelInit&, std::vector<Shape>* shapes) const override {
    if (!known_) return false;
    *shapes = {shape_};
    return true;
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != tensorflow::DT_FLOAT) return ctx.error("unsupported dtype " + model::dtypeName(x.dtype()) + " (float)");
    if (x.dims() < 1) return ctx.error("logits must have at least 1 dimension");
    Tensor* out = ctx.allocateOutput(0, x.dtype(), x.shape());
    const int64_t depth = x.dim(x.dims() - 1);
    const int64_t rows = depth ? x.numElements() / depth : 0;
    const float* in = x.data<float>();
    float* o = out->data<float>();
    if (reference_) {
      for (int64_t r = 0; r < rows; ++r) {
        const float* a = in + r * depth;
        float* b = o + r * depth;
        float m = a[0];
        for (int64_t j = 1; j < depth; ++j) m = std::max(m, a[j]);
        double sum = 0;
        for (int64_t j = 0; j < depth; ++j) sum += std::exp(static_cast<double>(a[j] - m));
        for (int64_t j = 0; j < depth; ++j)
          b[j] = form_ == SoftmaxForm::kLogSoftmax ? static_cast<float>((a[j] - m) - std::log(sum))
                      : static_cast<float>(std::exp(static_cast<double>(a[j] - m)) / sum);
      }
      return Status::Ok();
    }
    ctx.pool().parallelFor(rows, 30.0 * static_cast<double>(depth), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        Eigen::Map<const Eigen::ArrayXf> a(in + r * depth, depth);
        Eigen::Map<Eigen::ArrayXf> y(o + r * depth, depth);
        const float m = a.maxCoeff();
        if (form_ == SoftmaxForm::kLogSoftmax) {
          y = a - m;
          y -= std::log(y.exp().sum());
        } else {
          y = (a - m).exp();
          y /= y.sum();
        }
      }
    });
    return Status::Ok();
  }

 private:
  SoftmaxForm form_;
  bool reference_ = false;
  Shape shape_;
  bool known_ = false;
};

// BatchMatMul needs equal batch dimensions; BatchMatMulV2 broadcasts them.
enum class BatchMatMulForm { kBatchMatMul, kBatchMatMulV2 };

class BatchMatMulKernel : public OpKernel {
 public:
  explicit BatchMatMulKernel(BatchMatMulForm form) : form_(form) {}
  Status init(const KernelInit& init) override {
    reference_ = init.referenceKernels();
    GDS_RETURN_IF_ERROR(init.getAttrOr<bool>("adj_x", &adj_x_, false));
    GDS_RETURN_IF_ERROR(init.getAttrOr<bool>("adj_y", &adj_y_, false));
    return Status::Ok();
  }
  double flops(const std::vector<Shape>& inputs, const std::vector<Shape>& outputs) const override {
    if (inputs.empty() || outputs.empty() || inputs[0].size() < 2) return 0;
    const int64_t k = adj_x_ ? inputs[0][inputs[0].size() - 2] : inputs[0].back();
    return 2.0 * static_cast<double>(model::numElements(outputs[0])) * static_cast<double>(k);
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Tensor& y = ctx.input(1);
    if (x.dtype() != tensorflow::DT_FLOAT || y.dtype() != tensorflow::DT_FLOAT)
      return ctx.error("unsupported dtype " + model::dtypeName(x.dtype()) + " (float)");
    if (x.dims() < 2 || y.dims() < 2) return ctx.error("inputs must be at least 2-D: " + shapeStr(x.shape()) + ", " + shapeStr(y.shape()));
    const int64_t xr = x.dim(x.dims() - 2), xc = x.dim(x.dims() - 1);
    const int64_t yr = y.dim(y.dims() - 2), yc = y.dim(y.dims() - 1);
    const int64_t m = adj_x_ ? xc : xr, k = adj_x_ ? xr : xc;
    const int64_t k2 = adj_y_ ? yc : yr, n = adj_y_ ? yr : yc;
    if (k != k2) return ctx.error("inner dimensions do not match: " + shapeStr(x.shape()) + " x " + shapeStr(y.shape()));
    Shape bx(x.shape().begin(), x.shape().end() - 2), by(y.shape().begin(), y.shape().end() - 2), batch;
    if (form_ == BatchMatMulForm::kBatchMatMulV2) {
      if (!kern::broadcastShapes(bx, by, &batch))
        return ctx.error("batch dimensions do not broadcast: " + shapeStr(x.shape()) + " x " + shapeStr(y.shape()));
    } else {
      if (bx != by) return ctx.error("batch dimensions must match: " + shapeStr(x.shape()) + " x " + shapeStr(y.shape()));
      batch = bx;
    }
    Shape out_shape = batch;
    out_shape.push_back(m);
    out_shape.push_back(n);
    Tensor* out = ctx.allocateOutput(0, tensorflow::DT_FLOAT, out_shape);
    const int64_t nb = model::numElements(batch);
    // Batch index -> x / y batch offsets under broadcasting.
    auto offset = [&](int64_t b, const Shape& s) {
      int64_t off = 0, stride = 1, rem = b;
      for (size_t kk = 0; kk < batch.size(); ++kk) {
        size_t d = batch.size() - 1 - kk;
        int64_t c = rem % batch[d];
        rem /= batch[d];
        if (kk < s.size()) {
          int64_t dim = s[s.size() - 1 - kk];
          if (dim != 1) off += c * stride;
          stride *= dim;
        }
      }
      return off;
    };
    using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    for (int64_t b = 0; b < nb; ++b) {
      const float* px = x.data<float>() + offset(b, bx) * xr * xc;
      const float* py = y.data<float>() + offset(b, by) * yr * yc;
      float* po = out->data<float>() + b * m * n;
      if (reference_) {
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            double s = 0;
            for (int64_t t = 0; t < k; ++t) {
              float a = adj_x_ ? px[t * xc + i] : px[i * xc + t];
              float c = adj_y_ ? py[j * yc + t] : py[t * yc + j];
              s += static_cast<double>(a) * c;
            }
            po[i * n + j] = static_cast<float>(s);
          }
        continue;
      }
      Eigen::Map<const RowMat> X(px, xr, xc), Y(py, yr, yc);
      Eigen::Map<RowMat> O(po, m, n);
      if (adj_x_ && adj_y_) O.noalias() = X.transpose() * Y.transpose();
      else if (adj_x_) O.noalias() = X.transpose() * Y;
      else if (adj_y_) O.noalias() = X * Y.transpose();
      else O.noalias() = X * Y;
    }
    return Status::Ok();
  }

 private:
  BatchMatMulForm form_;
  bool adj_x_ = false, adj_y_ = false;
  bool reference_ = false;
};

}  // namespace

void registerReductionKernels(KernelRegistry& r) {
  struct R { const char* name; Red op; };
  for (const R& x : {R{"Sum", Red::Sum}, R{"Mean", Red::Mean}, R{"Max", Red::Max}, R{"Min", Red::Min},
                     R{"Prod", Red::Prod}, R{"All", Red::All}, R{"Any", Red::Any}}) {
    Red op = x.op;
    r.add(x.name, [op] { return std::make_unique<ReduceKernel>(op); });
  }
  r.add("ArgMax", [] { return std::make_unique<ArgKernel>(ArgKind::kMax); });
  r.add("ArgMin", [] { return std::make_unique<ArgKernel>(ArgKind::kMin); });
  r.add("Softmax", [] { return std::make_unique<SoftmaxKernel>(SoftmaxForm::kSoftmax); });
  r.add("LogSoftmax", [] { return std::make_unique<SoftmaxKernel>(SoftmaxForm::kLogSoftmax); });
  r.add("BatchMatMul", [] { return std::make_unique<BatchMatMulKernel>(BatchMatMulForm::kBatchMatMul); });
  r.add("BatchMatMulV2", [] { return std::make_unique<BatchMatMulKernel>(BatchMatMulForm::kBatchMatMulV2); });
}

}  // namespace gds::engine
