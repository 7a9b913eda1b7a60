// Engine tensors: dtype, shape and a 64-byte aligned, reference-counted
// buffer. A tensor may borrow bytes it does not own (a Const's
// tensor_content) without copying. Reshaping shares the buffer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graph.pb.h"
#include "model/status.h"
#include "model/tensor.h"

namespace gds::engine {

using model::Shape;
using DataType = tensorflow::DataType;

// Opaque state referred to by DT_RESOURCE tensors (TensorArray, ...).
class Resource {
 public:
  virtual ~Resource() = default;
};

class Tensor {
 public:
  Tensor() = default;
  // Allocates uninitialised storage (64-byte aligned) for dtype x shape.
  Tensor(DataType dtype, Shape shape);
  // Wraps bytes owned by `owner` (kept alive as long as the tensor); read-only
  // by contract: kernels never write into their inputs.
  static Tensor borrow(DataType dtype, Shape shape, const void* data, std::shared_ptr<const void> owner);
  static Tensor fromHost(const model::HostTensor& host);  // copies
  static Tensor scalarResource(std::shared_ptr<Resource> resource);
  // A DT_STRING scalar holding `value`.
  static Tensor stringScalar(std::string value);
  // Wraps storage obtained elsewhere (the plan's buffer pool); the buffer is
  // returned to its owner when the last tensor sharing it goes away.
  static Tensor fromStorage(DataType dtype, Shape shape, std::shared_ptr<void> storage);
  template <typename T>
  static Tensor scalar(DataType dtype, T value) {
    Tensor t(dtype, {});
    *t.data<T>() = value;
    return t;
  }

  bool valid() const { return dtype_ != tensorflow::DT_INVALID; }
  DataType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int dims() const { return static_cast<int>(shape_.size()); }
  std::int64_t dim(int i) const { return shape_[static_cast<size_t>(i)]; }
  std::int64_t numElements() const { return model::numElements(shape_); }
  std::size_t bytes() const;

  template <typename T>
  T* data() { return static_cast<T*>(data_); }
  template <typename T>
  const T* data() const { return static_cast<const T*>(data_); }
  void* raw() { return data_; }
  const void* raw() const { return data_; }

  // DT_STRING elements (empty for other dtypes).
  std::vector<std::string>& strings();
  const std::vector<std::string>& strings() const;
  // DT_RESOURCE payload.
  std::shared_ptr<Resource> resource() const { return resource_; }

  // Same buffer, new shape with the same element count.
  Tensor reshaped(Shape shape) const;
  // A view of `shape` starting at element `offset`, sharing the buffer
  // (numeric dtypes; strings are copied).
  Tensor view(std::int64_t offset, Shape shape) const;
  bool sharesBufferWith(const Tensor& other) const;
  // True when this tensor is the only one holding its (owned) buffer.
  bool soleOwner() const { return storage_ && !strings_ && !resource_ && storage_.use_count() == 1; }
  // True when the bytes are borrowed with no owner keeping them alive (a
  // Const's tensor_content in a graph that belongs to someone else).
  bool borrowedWithoutOwner() const { return data_ && !strings_ && !resource_ && storage_.use_count() == 0; }
  // The same values in a buffer of its own.
  Tensor copy() const;
  // Element i converted to double (numeric dtypes; 0 for others).
  double valueAt(std::int64_t i) const;
  model::HostTensor toHost() const;  // copies
  std::string debugString(int max_values = 8) const;  // "float[1,3] {0.1, 0.2, 0.3}"

 private:
  DataType dtype_ = tensorflow::DT_INVALID;
  Shape shape_;
  std::shared_ptr<void> storage_;  // owns (or keeps alive) the bytes
  void* data_ = nullptr;
  std::shared_ptr<std::vector<std::string>> strings_;
  std::shared_ptr<Resource> resource_;
};

// The value of a Const node; borrows tensor_content (kept alive by `owner`,
// which may be empty when the caller guarantees the NodeDef outlives it).
// Errors name the node.
Result<Tensor> constTensor(const tensorflow::NodeDef& node, std::shared_ptr<const void> owner);

}  // namespace gds::engine
