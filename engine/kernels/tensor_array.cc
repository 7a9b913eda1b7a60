// TensorArrayV3 and its Read/Write/Scatter/Gather/Size/Close ops
// (tensorflow/core/kernels/tensor_array_ops.cc). The handle is a DT_RESOURCE
// scalar carrying the array; the float "flow" scalar only orders the ops.
// Elements written by Scatter are views into the scattered tensor (no copy).
#include <mutex>

#include "engine/kernels/kernel_util.h"

namespace gds::engine {
namespace {

using kern::shapeStr;
using std::int64_t;

class TensorArray : public Resource {
 public:
  std::mutex mu;
  DataType dtype = tensorflow::DT_INVALID;
  Shape element_shape;  // -1 dims unknown
  bool element_shape_known = false;
  bool dynamic_size = false;
  bool clear_after_read = true;
  std::vector<Tensor> elements;
  std::vector<std::uint8_t> state;  // 0 unwritten, 1 written, 2 cleared by a read
};

Tensor flowScalar() { return Tensor::scalar<float>(tensorflow::DT_FLOAT, 0.0f); }

Status getArray(KernelContext& ctx, std::shared_ptr<TensorArray>* out) {
  const Tensor& h = ctx.input(0);
  auto ta = std::dynamic_pointer_cast<TensorArray>(h.resource());
  if (h.dtype() != tensorflow::DT_RESOURCE || !ta) return ctx.error("input 0 is not a TensorArray handle");
  *out = std::move(ta);
  return Status::Ok();
}

bool compatible(const Shape& s, const Shape& partial) {
  if (s.size() != partial.size()) return false;
  for (size_t i = 0; i < s.size(); ++i)
    if (partial[i] >= 0 && partial[i] != s[i]) return false;
  return true;
}

Status writeElement(KernelContext& ctx, TensorArray& ta, int64_t index, Tensor value) {
  if (value.dtype() != ta.dtype)
    return ctx.error("TensorArray has dtype " + model::dtypeName(ta.dtype) + " but the value is " +
                     model::dtypeName(value.dtype()));
  if (index < 0) return ctx.error("TensorArray index " + std::to_string(index) + " is negative");
  if (index >= static_cast<int64_t>(ta.elements.size())) {
    if (!ta.dynamic_size)
      return ctx.error("TensorArray index " + std::to_string(index) + " is out of range (size " +
                       std::to_string(ta.elements.size()) + ", dynamic_size is false)");
    ta.elements.resize(static_cast<size_t>(index) + 1);
    ta.state.resize(static_cast<size_t>(index) + 1, 0);
  }
  if (ta.element_shape_known && !compatible(value.shape(), ta.element_shape))
    return ctx.error("value shape " + shapeStr(value.shape()) + " does not match the TensorArray's element shape " +
                     shapeStr(ta.element_shape));
  if (ta.state[static_cast<size_t>(index)] != 0)
    return ctx.error("could not write to TensorArray index " + std::to_string(index) +
                     " because it has already been written to");
  ta.elements[static_cast<size_t>(index)] = std::move(value);
  ta.state[static_cast<size_t>(index)] = 1;
  return Status::Ok();
}

Status readElement(KernelContext& ctx, TensorArray& ta, int64_t index, Tensor* out) {
  if (index < 0 || index >= static_cast<int64_t>(ta.elements.size()))
    return ctx.error("TensorArray read index " + std::to_string(index) + " is out of range (size " +
                     std::to_string(ta.elements.size()) + ")");
  std::uint8_t st = ta.state[static_cast<size_t>(index)];
  if (st == 2)
    return ctx.error("could not read TensorArray index " + std::to_string(index) +
                     " a second time: it was cleared by an earlier read (clear_after_read)");
  if (st == 0) {
    if (!ta.element_shape_known || model::numElements(ta.element_shape) < 0)
      return ctx.error("could not read from TensorArray index " + std::to_string(index) +
                       " because it has not yet been written to");
    Tensor z(ta.dtype, ta.element_shape);
    if (z.bytes()) std::memset(z.raw(), 0, z.bytes());
    *out = z;
    return Status::Ok();
  }
  *out = ta.elements[static_cast<size_t>(index)];
  if (ta.clear_after_read) {
    ta.elements[static_cast<size_t>(index)] = Tensor();
    ta.state[static_cast<size_t>(index)] = 2;
  }
  return Status::Ok();
}

class TensorArrayKernel : public OpKernel {
 public:
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(init.getAttr("dtype", &dtype_));
    dtype_ = model::baseDtype(dtype_);
    GDS_RETURN_IF_ERROR(init.getAttrOr<bool>("dynamic_size", &dynamic_size_, false));
    GDS_RETURN_IF_ERROR(init.getAttrOr<bool>("clear_after_read", &clear_after_read_, true));
    if (init.attr("element_shape")) {
      bool known = false;
      GDS_RETURN_IF_ERROR(init.getAttr("element_shape", &element_shape_, &known));
      element_shape_known_ = known;
    }
    return Status::Ok();
  }
  int numOutputs(const KernelInit&) const override { return 2; }
  std::vector<DataType> outputTypes(const KernelInit&) const override {
    return {tensorflow::DT_RESOURCE, tensorflow::DT_FLOAT};
  }
  Status compute(KernelContext& ctx) override {
    std::vector<int64_t> size;
    GDS_RETURN_IF_ERROR(kern::readInts(ctx, 0, "size", &size));
    if (size.size() != 1 || size[0] < 0) return ctx.error("size must be a non-negative scalar");
    auto ta = std::make_shared<TensorArray>();
    ta->dtype = dtype_;
    ta->element_shape = element_shape_;
    ta->element_shape_known = element_shape_known_;
    ta->dynamic_size = dynamic_size_;
    ta->clear_after_read = clear_after_read_;
    ta->elements.resize(static_cast<size_t>(size[0]));
    ta->state.assign(static_cast<size_t>(size[0]), 0);
    ctx.setOutput(0, Tensor::scalarResource(ta));
    ctx.setOutput(1, flowScalar());
    return Status::Ok();
  }

 private:
  DataType dtype_ = tensorflow::DT_INVALID;
  Shape element_shape_;
  bool element_shape_known_ = false;
  bool dynamic_size_ = false, clear_after_read_ = true;
};

class TensorArrayWriteKernel : public OpKernel {
 public:
  std::vector<DataType> outputTypes(const KernelInit&) const override { return {tensorflow::DT_FLOAT}; }
  Status compute(KernelContext& ctx) override {
    std::shared_ptr<TensorArray> ta;
    GDS_RETURN_IF_ERROR(getArray(ctx, &ta));
    std::vector<int64_t> index;
    GDS_RETURN_IF_ERROR(kern::readInts(ctx, 1, "index", &index));
    if (index.size() != 1) return ctx.error("index must be a scalar");
    std::lock_guard<std::mutex> lock(ta->mu);
    GDS_RETURN_IF_ERROR(writeElement(ctx, *ta, index[0], ctx.input(2)));
    ctx.setOutput(0, flowScalar());
    return Status::Ok();
  }
};

class TensorArrayScatterKernel : public OpKernel {
 public:
  std::vector<DataType> outputTypes(const KernelInit&) const override { return {tensorflow::DT_FLOAT}; }
  Status compute(KernelContext& ctx) override {
    std::shared_ptr<TensorArray> ta;
    GDS_RETURN_IF_ERROR(getArray(ctx, &ta));
    std::vector<int64_t> indices;
    GDS_RETURN_IF_ERROR(kern::readInts(ctx, 1, "indices", &indices));
    const Tensor& value = ctx.input(2);
    if (value.dims() < 1 || value.dim(0) != static_cast<int64_t>(indices.size()))
      return ctx.error("value shape " + shapeStr(value.shape()) + " must have " + std::to_string(indices.size()) +
                       " rows, one per index");
    Shape elem(value.shape().begin() + 1, value.shape().end());
    const int64_t per = model::numElements(elem);
    std::lock_guard<std::mutex> lock(ta->mu);
    for (size_t i = 0; i < indices.size(); ++i)
      GDS_RETURN_IF_ERROR(writeElement(ctx, *ta, indices[i], value.view(static_cast<int64_t>(i) * per, elem)));
    ctx.setOutput(0, flowScalar());
    return Status::Ok();
  }
};

class TensorArrayReadKernel : public OpKernel {
 public:
  Status init(const KernelInit& init) override { return init.getAttr("dtype", &dtype_); }
  std::vector<DataType> outputTypes(const KernelInit&) const override { return {model::baseDtype(dtype_)}; }
  Status compute(KernelContext& ctx) override {
    std::shared_ptr<TensorArray> ta;
    GDS_RETURN_IF_ERROR(getArray(ctx, &ta));
    std::vector<int64_t> index;
    GDS_RETURN_IF_ERROR(kern::readInts(ctx, 1, "index", &index));
    if (index.size() != 1) return ctx.error("index must be a scalar");
    std::lock_guard<std::mutex> lock(ta->mu);
    if (ta->dtype != model::baseDtype(dtype_))
      return ctx.error("TensorArray has dtype " + model::dtypeName(ta->dtype) + ", read asks for " +
                       model::dtypeName(dtype_));
    Tensor t;
    GDS_RETURN_IF_ERROR(readElement(ctx, *ta, index[0], &t));
    ctx.setOutput(0, t);
    return Status::Ok();
  }

 private:
  DataType dtype_ = tensorflow::DT_INVALID;
};

class TensorArrayGatherKernel : public OpKernel {
 public:
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(init.getAttr("dtype", &dtype_));
    if (init.attr("element_shape")) {
      bool known = false;
      GDS_RETURN_IF_ERROR(init.getAttr("element_shape", &element_shape_, &known));
      element_shape_known_ = known && model::numElements(element_shape_) >= 0;
    }
    return Status::Ok();
  }
  std::vector<DataType> outputTypes(const KernelInit&) const override { return {model::baseDtype(dtype_)}; }
  Status compute(KernelContext& ctx) override {
    std::shared_ptr<TensorArray> ta;
    GDS_RETURN_IF_ERROR(getArray(ctx, &ta));
    std::vector<int64_t> indices;
    GDS_RETURN_IF_ERROR(kern::readInts(ctx, 1, "indices", &indices));
    std::lock_guard<std::mutex> lock(ta->mu);
    std::vector<Tensor> elems(indices.size());
    for (size_t i = 0; i < indices.size(); ++i) GDS_RETURN_IF_ERROR(readElement(ctx, *ta, indices[i], &elems[i]));
    Shape elem = element_shape_;
    if (!elems.empty()) elem = elems[0].shape();
    else if (!element_shape_known_)
      return ctx.error("cannot gather zero elements from a TensorArray without a fully known element_shape");
    for (size_t i = 1; i < elems.size(); ++i)
      if (elems[i].shape() != elem)
        return ctx.error("TensorArray elements have different shapes: " + shapeStr(elem) + " and " +
                         shapeStr(elems[i].shape()));
    Shape out_shape = elem;
    out_shape.insert(out_shape.begin(), static_cast<int64_t>(indices.size()));
    Tensor* out = ctx.allocateOutput(0, ta->dtype, out_shape);
    const int64_t per = model::numElements(elem);
    bool ok = kern::dispatchStorage(ta->dtype, [&](auto tag) {
      using T = decltype(tag);
      T* o = kern::elems<T>(*out);
      for (size_t i = 0; i < elems.size(); ++i) {
        const T* src = kern::elems<T>(static_cast<const Tensor&>(elems[i]));
        std::copy(src, src + per, o + static_cast<int64_t>(i) * per);
      }
    });
    if (!ok) return ctx.error("unsupported dtype " + model::dtypeName(ta->dtype));
    return Status::Ok();
  }

 private:
  DataType dtype_ = tensorflow::DT_INVALID;
  Shape element_shape_;
  bool element_shape_known_ = false;
};

class TensorArraySizeKernel : public OpKernel {
 public:
  std::vector<DataType> outputTypes(const KernelInit&) const override { return {tensorflow::DT_INT32}; }
  Status compute(KernelContext& ctx) override {
    std::shared_ptr<TensorArray> ta;
    GDS_RETURN_IF_ERROR(getArray(ctx, &ta));
    std::lock_guard<std::mutex> lock(ta->mu);
    ctx.setOutput(0, Tensor::scalar<std::int32_t>(tensorflow::DT_INT32, static_cast<std::int32_t>(ta->elements.size())));
    return Status::Ok();
  }
};

class TensorArrayCloseKernel : public OpKernel {
 public:
  int numOutputs(const KernelInit&) const override { return 0; }
  Status compute(KernelContext& ctx) override {
    std::shared_ptr<TensorArray> ta;
    GDS_RETURN_IF_ERROR(getArray(ctx, &ta));
    std::lock_guard<std::mutex> lock(ta->mu);
    ta->elements.clear();
    ta->state.clear();
    return Status::Ok();
  }
};

}  // namespace

void registerTensorArrayKernels(KernelRegistry& r) {
  r.add("TensorArrayV3", [] { return std::make_unique<TensorArrayKernel>(); });
  r.add("TensorArrayWriteV3", [] { return std::make_unique<TensorArrayWriteKernel>(); });
  r.add("TensorArrayScatterV3", [] { return std::make_unique<TensorArrayScatterKernel>(); });
  r.add("TensorArrayReadV3", [] { return std::make_unique<TensorArrayReadKernel>(); });
  r.add("TensorArrayGatherV3", [] { return std::make_unique<TensorArrayGatherKernel>(); });
  r.add("TensorArraySizeV3", [] { return std::make_unique<TensorArraySizeKernel>(); });
  r.add("TensorArrayCloseV3", [] { return std::make_unique<TensorArrayCloseKernel>(); });
}

}  // namespace gds::engine
