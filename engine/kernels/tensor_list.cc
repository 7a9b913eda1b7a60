// The TensorList ops of TF2 control flow (tensorflow/core/kernels/
// list_kernels.h, list_kernels.cc): Keras' LSTM/GRU loops read their input
// with TensorListFromTensor/GetItem and collect their outputs with
// TensorListReserve/SetItem/Stack.
//
// TensorFlow's list is a DT_VARIANT scalar; here it travels as a TensorArray
// handle does (tensor_array.cc): a scalar whose resource slot holds the
// TensorList, which only these kernels look into (the plan still types the
// outputs DT_VARIANT, as the graph's Enter/Merge/Switch attrs do). Unlike a
// TensorArray a list is a value, never changed once made: SetItem/PushBack/
// PopBack return a new list and leave their input untouched, so a list read
// by two consumers, or kept by a loop's Merge, is never changed behind them.
// The copy is a vector of tensors sharing their buffers, not the elements'
// bytes. Unset elements (Reserve) are invalid tensors that read as zeros once
// their shape is known.
#include <algorithm>
#include <cstring>

#include "engine/kernels/kernel_util.h"
#include "model/memory_budget.h"

namespace gds::engine {
namespace {

using kern::shapeStr;
using std::int64_t;

// TensorFlow's PartialTensorShape: unknown rank, or dims where -1 is unknown.
struct PartialShape {
  bool known_rank = false;
  Shape dims;

  bool fullyDefined() const {
    return known_rank && std::all_of(dims.begin(), dims.end(), [](int64_t d) { return d >= 0; });
  }
  bool compatibleWith(const Shape& s) const {
    if (!known_rank) return true;
    if (dims.size() != s.size()) return false;
    for (size_t i = 0; i < s.size(); ++i)
      if (dims[i] >= 0 && dims[i] != s[i]) return false;
    return true;
  }
  // PartialTensorShape::DebugString: "<unknown>", "[2,?]".
  std::string str() const {
    if (!known_rank) return "<unknown>";
    std::string s = "[";
    for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + (dims[i] < 0 ? std::string("?") : std::to_string(dims[i]));
    return s + "]";
  }
};

PartialShape known(const Shape& s) { return PartialShape{true, s}; }

// PartialTensorShape::MergeWith: false when the shapes disagree.
bool merge(const PartialShape& a, const PartialShape& b, PartialShape* out) {
  if (!a.known_rank) { *out = b; return true; }
  if (!b.known_rank) { *out = a; return true; }
  if (a.dims.size() != b.dims.size()) return false;
  PartialShape m = a;
  for (size_t i = 0; i < a.dims.size(); ++i) {
    if (a.dims[i] >= 0 && b.dims[i] >= 0 && a.dims[i] != b.dims[i]) return false;
    if (m.dims[i] < 0) m.dims[i] = b.dims[i];
  }
  *out = m;
  return true;
}

class TensorList : public Resource {
 public:
  DataType element_dtype = tensorflow::DT_INVALID;
  PartialShape element_shape;
  int64_t max_num_elements = -1;
  std::vector<Tensor> tensors;  // !valid(): not set yet
};

Tensor wrap(std::shared_ptr<TensorList> list) { return Tensor::scalarResource(std::move(list)); }

// TensorShapeFromTensor: an int32/int64 vector of dims (-1 unknown), or the
// scalar -1 for an unknown rank. `what` names the input.
Status shapeFromTensor(const KernelContext& ctx, int i, const char* what, PartialShape* out) {
  const Tensor& t = ctx.input(i);
  std::vector<int64_t> v;
  if (!kern::intValues(t, &v))
    return ctx.error(std::string(what) + " (input " + std::to_string(i) + ") must be an int32 or int64 shape, got " +
                     model::dtypeName(t.dtype()));
  if (t.dims() == 0) {
    if (v[0] != -1)
      return ctx.error(std::string(what) + " (input " + std::to_string(i) + ") is the scalar " + std::to_string(v[0]) +
                       "; the only valid scalar shape is -1 (unknown rank)");
    *out = PartialShape{};
    return Status::Ok();
  }
  if (t.dims() != 1)
    return ctx.error(std::string(what) + " (input " + std::to_string(i) + ") must be a vector, got shape " +
                     shapeStr(t.shape()));
  for (int64_t d : v)
    if (d < -1)
      return ctx.error(std::string(what) + " (input " + std::to_string(i) + ") has dimension " + std::to_string(d) +
                       "; expected a size >= -1");
  *out = known(v);
  return Status::Ok();
}

Status inputList(const KernelContext& ctx, int i, const TensorList** out) {
  const Tensor& t = ctx.input(i);
  const auto* list = dynamic_cast<const TensorList*>(t.resource().get());
  if (!list) return ctx.error("input " + std::to_string(i) + " is not a TensorList (got " + model::dtypeName(t.dtype()) + shapeStr(t.shape()) + ")");
  *out = list;
  return Status::Ok();
}

Status checkDtype(const KernelContext& ctx, DataType op_dtype, const TensorList& l) {
  if (op_dtype != l.element_dtype)
    return ctx.error("the op's element_dtype is " + model::dtypeName(op_dtype) + " but the list holds " +
                     model::dtypeName(l.element_dtype));
  return Status::Ok();
}

Status scalarInt(const KernelContext& ctx, int i, const char* what, int64_t* out) {
  std::vector<int64_t> v;
  GDS_RETURN_IF_ERROR(kern::readInts(ctx, i, what, &v));
  if (ctx.input(i).dims() != 0)
    return ctx.error(std::string(what) + " (input " + std::to_string(i) + ") must be a scalar, got shape " +
                     shapeStr(ctx.input(i).shape()));
  *out = v[0];
  return Status::Ok();
}

// The element shape an unset element reads as: the op's element_shape input
// merged with the list's, and (when still partial) with the shapes of the set
// elements, as GetItem and Stack do. Errors when it stays partial.
Status resolvedElementShape(const KernelContext& ctx, const TensorList& l, int shape_input, bool merge_elements,
                            const char* reading, Shape* out) {
  PartialShape p;
  GDS_RETURN_IF_ERROR(shapeFromTensor(ctx, shape_input, "element_shape", &p));
  PartialShape m;
  if (!merge(p, l.element_shape, &m))
    return ctx.error("element_shape " + p.str() + " is incompatible with the list's element shape " +
                     l.element_shape.str());
  if (merge_elements && !l.element_shape.fullyDefined()) {
    for (const Tensor& t : l.tensors) {
      if (!t.valid()) continue;
      PartialShape next;
      if (!merge(m, known(t.shape()), &next))
        return ctx.error("list elements have incompatible shapes: " + m.str() + " and " + shapeStr(t.shape()));
      m = next;
    }
  }
  if (!m.fullyDefined())
    return ctx.error(std::string(reading) + " but the element shape " + m.str() + " is not fully defined");
  *out = m.dims;
  return Status::Ok();
}

// A zero tensor of `shape`, refused when it would exceed the memory budget.
Status zeros(const KernelContext& ctx, DataType dtype, const Shape& shape, Tensor* out) {
  auto n = model::checkedElements(shape.data(), shape.size(), static_cast<int64_t>(model::dtypeSize(dtype)),
                                  "zero element of shape " + shapeStr(shape));
  if (!n.ok()) return ctx.error(n.error());
  Tensor z(dtype, shape);
  if (z.bytes() && dtype != tensorflow::DT_STRING) std::memset(z.raw(), 0, z.bytes());
  *out = z;
  return Status::Ok();
}

// ---- ops that make a list

// The list kernels that carry TensorFlow's element_dtype attr.
class ElementDtypeKernel : public OpKernel {
 public:
  Status init(const KernelInit& init) override { return init.getAttr("element_dtype", &dtype_); }

 protected:
  DataType dtype_ = tensorflow::DT_INVALID;
};

class TensorListReserveKernel : public ElementDtypeKernel {
 public:
  std::vector<DataType> outputTypes(const KernelInit&) const override { return {tensorflow::DT_VARIANT}; }
  Status compute(KernelContext& ctx) override {
    auto l = std::make_shared<TensorList>();
    GDS_RETURN_IF_ERROR(shapeFromTensor(ctx, 0, "element_shape", &l->element_shape));
    int64_t n = 0;
    GDS_RETURN_IF_ERROR(scalarInt(ctx, 1, "num_elements", &n));
    if (n < 0) return ctx.error("num_elements is " + std::to_string(n) + "; expected a count >= 0");
    // Each slot is an (empty) engine Tensor: the count comes from the input.
    Status budget = model::checkAllocation(n, static_cast<int64_t>(sizeof(Tensor)), "num_elements");
    if (!budget.ok()) return ctx.error(budget.message());
    l->element_dtype = model::baseDtype(dtype_);
    l->tensors.resize(static_cast<size_t>(n));
    ctx.setOutput(0, wrap(std::move(l)));
    return Status::Ok();
  }
};

class EmptyTensorListKernel : public ElementDtypeKernel {
 public:
  std::vector<DataType> outputTypes(const KernelInit&) const override { return {tensorflow::DT_VARIANT}; }
  Status compute(KernelContext& ctx) override {
    auto l = std::make_shared<TensorList>();
    GDS_RETURN_IF_ERROR(shapeFromTensor(ctx, 0, "element_shape", &l->element_shape));
    GDS_RETURN_IF_ERROR(scalarInt(ctx, 1, "max_num_elements", &l->max_num_elements));
    l->element_dtype = model::baseDtype(dtype_);
    ctx.setOutput(0, wrap(std::move(l)));
    return Status::Ok();
  }
};

class TensorListFromTensorKernel : public OpKernel {
 public:
  std::vector<DataType> outputTypes(const KernelInit&) const override { return {tensorflow::DT_VARIANT}; }
  Status compute(KernelContext& ctx) override {
    const Tensor& t = ctx.input(0);
    PartialShape element_shape;
    GDS_RETURN_IF_ERROR(shapeFromTensor(ctx, 1, "element_shape", &element_shape));
    if (t.dims() < 1) return ctx.error("tensor must be at least a vector, got shape " + shapeStr(t.shape()));
    Shape elem(t.shape().begin() + 1, t.shape().end());
    if (!element_shape.compatibleWith(elem))
      return ctx.error("element_shape " + element_shape.str() + " does not match the rows of a tensor of shape " +
                       shapeStr(t.shape()));
    auto l = std::make_shared<TensorList>();
    l->element_dtype = t.dtype();
    l->element_shape = element_shape;
    const int64_t per = model::numElements(elem);
    l->tensors.reserve(static_cast<size_t>(t.dim(0)));
    // Rows are views of the input (TensorFlow copies them to align them).
    for (int64_t i = 0; i < t.dim(0); ++i) l->tensors.push_back(t.view(i * per, elem));
    ctx.setOutput(0, wrap(std::move(l)));
    return Status::Ok();
  }
};

// ---- ops that read a list

class TensorListGetItemKernel : public ElementDtypeKernel {
 public:
  std::vector<DataType> outputTypes(const KernelInit&) const override { return {model::baseDtype(dtype_)}; }
  Status compute(KernelContext& ctx) override {
    const TensorList* l = nullptr;
    GDS_RETURN_IF_ERROR(inputList(ctx, 0, &l));
    GDS_RETURN_IF_ERROR(checkDtype(ctx, model::baseDtype(dtype_), *l));
    int64_t index = 0;
    GDS_RETURN_IF_ERROR(scalarInt(ctx, 1, "index", &index));
    if (index < 0 || index >= static_cast<int64_t>(l->tensors.size()))
      return ctx.error("trying to access element " + std::to_string(index) + " in a list with " +
                       std::to_string(l->tensors.size()) + " elements");
    const Tensor& item = l->tensors[static_cast<size_t>(index)];
    if (item.valid()) {
      ctx.setOutput(0, item);
      return Status::Ok();
    }
    Shape shape;
    GDS_RETURN_IF_ERROR(resolvedElementShape(ctx, *l, 2, true, ("element " + std::to_string(index) + " is not set").c_str(),
                                             &shape));
    Tensor z;
    GDS_RETURN_IF_ERROR(zeros(ctx, l->element_dtype, shape, &z));
    ctx.setOutput(0, z);
    return Status::Ok();
  }
};

// Stacks the elements picked by `indices` into one tensor [n, element...]
// (Stack, Gather); unset elements are zeros.
Status stackElements(KernelContext& ctx, const TensorList& l, const std::vector<int64_t>& indices, int shape_input) {
  Shape elem;
  GDS_RETURN_IF_ERROR(resolvedElementShape(
      ctx, l, shape_input, true, indices.empty() ? "the list is empty" : "an element is not set", &elem));
  Shape out_shape = elem;
  out_shape.insert(out_shape.begin(), static_cast<int64_t>(indices.size()));
  const int64_t esize = static_cast<int64_t>(model::dtypeSize(l.element_dtype));
  auto total = model::checkedElements(out_shape.data(), out_shape.size(), esize, "output of shape " + shapeStr(out_shape));
  if (!total.ok()) return ctx.error(total.error());
  for (int64_t i : indices) {
    const Tensor& t = l.tensors[static_cast<size_t>(i)];
    if (t.valid() && t.shape() != elem)
      return ctx.error("element " + std::to_string(i) + " has shape " + shapeStr(t.shape()) + ", expected " +
                       shapeStr(elem));
  }
  Tensor* out = ctx.allocateOutput(0, l.element_dtype, out_shape);
  const int64_t per = model::numElements(elem);
  bool ok = kern::dispatchStorage(l.element_dtype, [&](auto tag) {
    using T = decltype(tag);
    T* o = kern::elems<T>(*out);
    for (size_t k = 0; k < indices.size(); ++k) {
      T* dst = o + static_cast<int64_t>(k) * per;
      const Tensor& t = l.tensors[static_cast<size_t>(indices[k])];
      if (t.valid()) {
        const T* src = kern::elems<T>(t);
        std::copy(src, src + per, dst);
      } else {
        std::fill(dst, dst + per, T{});
      }
    }
  });
  if (!ok) return ctx.error("unsupported element dtype " + model::dtypeName(l.element_dtype));
  return Status::Ok();
}

class TensorListStackKernel : public ElementDtypeKernel {
 public:
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(ElementDtypeKernel::init(init));
    return init.getAttrOr<int64_t>("num_elements", &num_elements_, -1);
  }
  std::vector<DataType> outputTypes(const KernelInit&) const override { return {model::baseDtype(dtype_)}; }
  Status compute(KernelContext& ctx) override {
    const TensorList* l = nullptr;
    GDS_RETURN_IF_ERROR(inputList(ctx, 0, &l));
    GDS_RETURN_IF_ERROR(checkDtype(ctx, model::baseDtype(dtype_), *l));
    if (num_elements_ != -1 && static_cast<int64_t>(l->tensors.size()) != num_elements_)
      return ctx.error("expected a list with " + std::to_string(num_elements_) + " elements (num_elements) but got " +
                       std::to_string(l->tensors.size()));
    std::vector<int64_t> all(l->tensors.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
    return stackElements(ctx, *l, all, 1);
  }

 private:
  int64_t num_elements_ = -1;
};

class TensorListGatherKernel : public ElementDtypeKernel {
 public:
  std::vector<DataType> outputTypes(const KernelInit&) const override { return {model::baseDtype(dtype_)}; }
  Status compute(KernelContext& ctx) override {
    const TensorList* l = nullptr;
    GDS_RETURN_IF_ERROR(inputList(ctx, 0, &l));
    GDS_RETURN_IF_ERROR(checkDtype(ctx, model::baseDtype(dtype_), *l));
    std::vector<int64_t> indices;
    GDS_RETURN_IF_ERROR(kern::readInts(ctx, 1, "indices", &indices));
    for (int64_t i : indices)
      if (i < 0 || i >= static_cast<int64_t>(l->tensors.size()))
        return ctx.error("index " + std::to_string(i) + " out of range; the list has " +
                         std::to_string(l->tensors.size()) + " elements");
    return stackElements(ctx, *l, indices, 2);
  }
};

class TensorListLengthKernel : public OpKernel {
 public:
  std::vector<DataType> outputTypes(const KernelInit&) const override { return {tensorflow::DT_INT32}; }
  Status compute(KernelContext& ctx) override {
    const TensorList* l = nullptr;
    GDS_RETURN_IF_ERROR(inputList(ctx, 0, &l));
    ctx.setOutput(0, Tensor::scalar<std::int32_t>(tensorflow::DT_INT32, static_cast<std::int32_t>(l->tensors.size())));
    return Status::Ok();
  }
};

class TensorListElementShapeKernel : public OpKernel {
 public:
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(init.getAttrOr<DataType>("shape_type", &shape_type_, tensorflow::DT_INT32));
    shape_type_ = model::baseDtype(shape_type_);
    if (shape_type_ != tensorflow::DT_INT32 && shape_type_ != tensorflow::DT_INT64)
      return init.error("shape_type must be int32 or int64, got " + model::dtypeName(shape_type_));
    return Status::Ok();
  }
  std::vector<DataType> outputTypes(const KernelInit&) const override { return {shape_type_}; }
  Status compute(KernelContext& ctx) override {
    const TensorList* l = nullptr;
    GDS_RETURN_IF_ERROR(inputList(ctx, 0, &l));
    // Unknown rank is the scalar -1; unknown dims are -1.
    Shape dims = l->element_shape.known_rank ? l->element_shape.dims : Shape{-1};
    Shape out_shape = l->element_shape.known_rank ? Shape{static_cast<int64_t>(dims.size())} : Shape{};
    Tensor* out = ctx.allocateOutput(0, shape_type_, out_shape);
    for (size_t i = 0; i < dims.size(); ++i) {
      if (shape_type_ == tensorflow::DT_INT32) out->data<std::int32_t>()[i] = static_cast<std::int32_t>(dims[i]);
      else out->data<int64_t>()[i] = dims[i];
    }
    return Status::Ok();
  }

 private:
  DataType shape_type_ = tensorflow::DT_INT32;
};

// ---- ops that make a changed copy of a list

class TensorListSetItemKernel : public ElementDtypeKernel {
 public:
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(ElementDtypeKernel::init(init));
    return init.getAttrOr<bool>("resize_if_index_out_of_bounds", &resize_, false);
  }
  std::vector<DataType> outputTypes(const KernelInit&) const override { return {tensorflow::DT_VARIANT}; }
  Status compute(KernelContext& ctx) override {
    const TensorList* l = nullptr;
    GDS_RETURN_IF_ERROR(inputList(ctx, 0, &l));
    GDS_RETURN_IF_ERROR(checkDtype(ctx, model::baseDtype(dtype_), *l));
    int64_t index = 0;
    GDS_RETURN_IF_ERROR(scalarInt(ctx, 1, "index", &index));
    const int64_t size = static_cast<int64_t>(l->tensors.size());
    if (index < 0 || (index >= size && !resize_))
      return ctx.error("trying to modify element " + std::to_string(index) + " in a list with " +
                       std::to_string(size) + " elements");
    const Tensor& item = ctx.input(2);
    if (item.dtype() != l->element_dtype)
      return ctx.error("the item is " + model::dtypeName(item.dtype()) + " but the list holds " +
                       model::dtypeName(l->element_dtype));
    if (!l->element_shape.compatibleWith(item.shape()))
      return ctx.error("the item's shape " + shapeStr(item.shape()) + " is incompatible with the list's element shape " +
                       l->element_shape.str());
    if (index >= size) {
      Status budget = model::checkAllocation(index + 1, static_cast<int64_t>(sizeof(Tensor)), "index");
      if (!budget.ok()) return ctx.error(budget.message());
    }
    auto out = std::make_shared<TensorList>(*l);
    if (index >= size) out->tensors.resize(static_cast<size_t>(index) + 1);
    out->tensors[static_cast<size_t>(index)] = item;
    ctx.setOutput(0, wrap(std::move(out)));
    return Status::Ok();
  }

 private:
  bool resize_ = false;
};

class TensorListPushBackKernel : public ElementDtypeKernel {
 public:
  std::vector<DataType> outputTypes(const KernelInit&) const override { return {tensorflow::DT_VARIANT}; }
  Status compute(KernelContext& ctx) override {
    const TensorList* l = nullptr;
    GDS_RETURN_IF_ERROR(inputList(ctx, 0, &l));
    const Tensor& item = ctx.input(1);
    if (item.dtype() != model::baseDtype(dtype_))
      return ctx.error("the op's element_dtype is " + model::dtypeName(dtype_) + " but the item is " +
                       model::dtypeName(item.dtype()));
    if (!l->element_shape.compatibleWith(item.shape()))
      return ctx.error("the item's shape " + shapeStr(item.shape()) + " is incompatible with the list's element shape " +
                       l->element_shape.str());
    GDS_RETURN_IF_ERROR(checkDtype(ctx, model::baseDtype(dtype_), *l));
    if (l->max_num_elements != -1 && static_cast<int64_t>(l->tensors.size()) >= l->max_num_elements)
      return ctx.error("tried to push an item into a full list (size " + std::to_string(l->tensors.size()) +
                       ", max_num_elements " + std::to_string(l->max_num_elements) + ")");
    auto out = std::make_shared<TensorList>(*l);
    out->tensors.push_back(item);
    ctx.setOutput(0, wrap(std::move(out)));
    return Status::Ok();
  }
};

class TensorListPopBackKernel : public ElementDtypeKernel {
 public:
  int numOutputs(const KernelInit&) const override { return 2; }
  std::vector<DataType> outputTypes(const KernelInit&) const override {
    return {tensorflow::DT_VARIANT, model::baseDtype(dtype_)};
  }
  Status compute(KernelContext& ctx) override {
    const TensorList* l = nullptr;
    GDS_RETURN_IF_ERROR(inputList(ctx, 0, &l));
    GDS_RETURN_IF_ERROR(checkDtype(ctx, model::baseDtype(dtype_), *l));
    if (l->tensors.empty()) return ctx.error("trying to pop from an empty list");
    Tensor item = l->tensors.back();
    if (!item.valid()) {
      Shape shape;
      GDS_RETURN_IF_ERROR(resolvedElementShape(ctx, *l, 1, false, "the last element is not set", &shape));
      GDS_RETURN_IF_ERROR(zeros(ctx, l->element_dtype, shape, &item));
    }
    auto out = std::make_shared<TensorList>(*l);
    out->tensors.pop_back();
    ctx.setOutput(0, wrap(std::move(out)));
    ctx.setOutput(1, item);
    return Status::Ok();
  }
};

}  // namespace

void registerTensorListKernels(KernelRegistry& r) {
  r.add("TensorListReserve", [] { return std::make_unique<TensorListReserveKernel>(); });
  r.add("EmptyTensorList", [] { return std::make_unique<EmptyTensorListKernel>(); });
  r.add("TensorListFromTensor", [] { return std::make_unique<TensorListFromTensorKernel>(); });
  r.add("TensorListGetItem", [] { return std::make_unique<TensorListGetItemKernel>(); });
  r.add("TensorListStack", [] { return std::make_unique<TensorListStackKernel>(); });
  r.add("TensorListGather", [] { return std::make_unique<TensorListGatherKernel>(); });
  r.add("TensorListLength", [] { return std::make_unique<TensorListLengthKernel>(); });
  r.add("TensorListElementShape", [] { return std::make_unique<TensorListElementShapeKernel>(); });
  r.add("TensorListSetItem", [] { return std::make_unique<TensorListSetItemKernel>(); });
  r.add("TensorListPushBack", [] { return std::make_unique<TensorListPushBackKernel>(); });
  r.add("TensorListPopBack", [] { return std::make_unique<TensorListPopBackKernel>(); });
}

}  // namespace gds::engine
