#include "engine/tensor.h"

#include <cstdlib>
#include <cstring>
#include <sstream>
#include <utility>

#include "engine/allocation.h"
#include "model/attr.h"

namespace gds::engine {
namespace {

constexpr std::size_t kAlignment = 64;

std::shared_ptr<void> allocateAligned(std::size_t bytes) {
  // Round up so aligned_alloc's size requirement holds; never zero bytes so
  // data() is a valid pointer even for empty tensors.
  std::size_t rounded = ((bytes + kAlignment - 1) / kAlignment) * kAlignment;
  if (rounded == 0) rounded = kAlignment;
  void* p = std::aligned_alloc(kAlignment, rounded);
  if (!p) throw std::bad_alloc();
  return std::shared_ptr<void>(p, [](void* q) { std::free(q); });
}

const std::vector<std::string>& emptyStrings() {
  static const std::vector<std::string> empty;
  return empty;
}

}  // namespace

Tensor::Tensor(DataType dtype, Shape shape) : dtype_(model::baseDtype(dtype)), shape_(std::move(shape)) {
  if (Status s = checkAllocation(dtype_, shape_); !s.ok()) throw AllocationRefused(s.message());
  std::int64_t n = numElements();
  if (dtype_ == tensorflow::DT_STRING) {
    strings_ = std::make_shared<std::vector<std::string>>(static_cast<std::size_t>(n));
    return;
  }
  storage_ = allocateAligned(static_cast<std::size_t>(n) * model::dtypeSize(dtype_));
  data_ = storage_.get();
}

Tensor Tensor::fromStorage(DataType dtype, Shape shape, std::shared_ptr<void> storage) {
  Tensor t;
  t.dtype_ = model::baseDtype(dtype);
  t.shape_ = std::move(shape);
  t.storage_ = std::move(storage);
  t.data_ = t.storage_.get();
  return t;
}

Tensor Tensor::borrow(DataType dtype, Shape shape, const void* data, std::shared_ptr<const void> owner) {
  Tensor t;
  t.dtype_ = model::baseDtype(dtype);
  t.shape_ = std::move(shape);
  // The aliasing constructor keeps `owner` alive while pointing at `data`.
  t.storage_ = std::shared_ptr<void>(std::const_pointer_cast<void>(owner), const_cast<void*>(data));
  t.data_ = const_cast<void*>(data);
  return t;
}

Tensor Tensor::copy() const {
  if (strings_ || resource_ || !data_) return *this;  // strings and resources are shared values already
  Tensor t(dtype_, shape_);
  std::memcpy(t.data_, data_, bytes());
  return t;
}

Tensor Tensor::fromHost(const model::HostTensor& host) {
  Tensor t(host.dtype, host.shape);
  if (t.dtype_ == tensorflow::DT_STRING) {
    std::size_t n = t.strings_->size();
    for (std::size_t i = 0; i < n && i < host.strings.size(); ++i) (*t.strings_)[i] = host.strings[i];
  } else if (t.bytes() > 0) {
    std::memcpy(t.data_, host.data.data(), std::min(t.bytes(), host.data.size()));
  }
  return t;
}

Tensor Tensor::scalarResource(std::shared_ptr<Resource> resource) {
  Tensor t;
  t.dtype_ = tensorflow::DT_RESOURCE;
  t.resource_ = std::move(resource);
  return t;
}

Tensor Tensor::stringScalar(std::string value) {
  Tensor t(tensorflow::DT_STRING, {});
  t.strings()[0] = std::move(value);
  return t;
}

std::size_t Tensor::bytes() const {
  std::int64_t n = numElements();
  if (n <= 0) return 0;
  if (dtype_ == tensorflow::DT_STRING) {
    std::size_t total = 0;
    if (strings_)
      for (const auto& s : *strings_) total += s.size();
    return total;
  }
  return static_cast<std::size_t>(n) * model::dtypeSize(dtype_);
}

std::vector<std::string>& Tensor::strings() {
  if (!strings_) strings_ = std::make_shared<std::vector<std::string>>();
  return *strings_;
}

const std::vector<std::string>& Tensor::strings() const { return strings_ ? *strings_ : emptyStrings(); }

Tensor Tensor::reshaped(Shape shape) const {
  Tensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

Tensor Tensor::view(std::int64_t offset, Shape shape) const {
  if (dtype_ == tensorflow::DT_STRING) {
    Tensor t(dtype_, shape);
    const auto& src = strings();
    for (std::size_t i = 0; i < t.strings_->size(); ++i)
      (*t.strings_)[i] = src[static_cast<std::size_t>(offset) + i];
    return t;
  }
  Tensor t = *this;
  t.shape_ = std::move(shape);
  t.data_ = static_cast<char*>(data_) + offset * static_cast<std::int64_t>(model::dtypeSize(dtype_));
  return t;
}

bool Tensor::sharesBufferWith(const Tensor& other) const {
  if (storage_ && other.storage_) return storage_ == other.storage_ || data_ == other.data_;
  return strings_ && strings_ == other.strings_;
}

model::HostTensor Tensor::toHost() const {
  model::HostTensor h;
  h.dtype = dtype_;
  h.shape = shape_;
  if (dtype_ == tensorflow::DT_STRING) {
    h.strings = strings();
  } else if (data_) {
    const auto* p = static_cast<const std::uint8_t*>(data_);
    h.data.assign(p, p + bytes());
  }
  return h;
}

double Tensor::valueAt(std::int64_t i) const {
  switch (dtype_) {
    case tensorflow::DT_FLOAT: return data<float>()[i];
    case tensorflow::DT_DOUBLE: return data<double>()[i];
    case tensorflow::DT_INT32: case tensorflow::DT_QINT32: return data<std::int32_t>()[i];
    case tensorflow::DT_INT64: return static_cast<double>(data<std::int64_t>()[i]);
    case tensorflow::DT_UINT8: case tensorflow::DT_QUINT8: return data<std::uint8_t>()[i];
    case tensorflow::DT_INT8: case tensorflow::DT_QINT8: return data<std::int8_t>()[i];
    case tensorflow::DT_INT16: case tensorflow::DT_QINT16: return data<std::int16_t>()[i];
    case tensorflow::DT_UINT16: case tensorflow::DT_QUINT16: return data<std::uint16_t>()[i];
    case tensorflow::DT_BOOL: return data<bool>()[i] ? 1.0 : 0.0;
    case tensorflow::DT_HALF: return model::halfToFloat(data<std::uint16_t>()[i]);
    case tensorflow::DT_BFLOAT16: return model::bfloat16ToFloat(data<std::uint16_t>()[i]);
    default: return 0.0;
  }
}

std::string Tensor::debugString(int max_values) const {
  std::ostringstream os;
  os << model::dtypeName(dtype_) << model::shapeString(shape_);
  if (dtype_ == tensorflow::DT_RESOURCE) return os.str() + " <resource>";
  os << " {";
  std::int64_t n = numElements();
  for (std::int64_t i = 0; i < n && i < max_values; ++i) {
    if (i) os << ", ";
    if (dtype_ == tensorflow::DT_STRING) os << '"' << strings()[static_cast<std::size_t>(i)] << '"';
    else os << valueAt(i);
  }
  if (n > max_values) os << ", ...";
  os << "}";
  return os.str();
}

Result<Tensor> constTensor(const tensorflow::NodeDef& node, std::shared_ptr<const void> owner) {
  const std::string label = "node '" + node.name() + "' (" + node.op() + ")";
  const auto* value = model::findAttr(node, "value");
  if (!value || value->value_case() != tensorflow::AttrValue::kTensor)
    return Status::Error(label + ": missing tensor attr 'value'");
  const tensorflow::TensorProto& proto = value->tensor();
  DataType dtype = model::baseDtype(proto.dtype());
  bool known = true;
  Shape shape = model::shapeFromProto(proto.tensor_shape(), &known);
  std::int64_t n = model::numElements(shape);
  std::size_t esize = model::dtypeSize(dtype);
  if (known && n >= 0 && esize > 0 && !proto.tensor_content().empty() &&
      proto.tensor_content().size() == static_cast<std::size_t>(n) * esize) {
    return Tensor::borrow(dtype, shape, proto.tensor_content().data(), std::move(owner));
  }
  auto host = model::decodeTensor(proto);
  if (!host.ok()) return Status::Error(label + ": " + host.error());
  return Tensor::fromHost(*host);
}

}  // namespace gds::engine
