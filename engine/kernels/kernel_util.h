// Helpers shared by the core kernel families (elementwise, shape, array,
// reduction, control flow): integer inputs, axes, broadcasting shapes and
// dtype dispatch.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "engine/kernel.h"
#include "engine/ops/broadcast.h"

namespace gds::engine::kern {

// Values of an int32/int64 tensor; false for other dtypes.
inline bool intValues(const Tensor& t, std::vector<std::int64_t>* out) {
  out->clear();
  const std::int64_t n = t.numElements();
  if (t.dtype() == tensorflow::DT_INT32) {
    for (std::int64_t i = 0; i < n; ++i) out->push_back(t.data<std::int32_t>()[i]);
  } else if (t.dtype() == tensorflow::DT_INT64) {
    for (std::int64_t i = 0; i < n; ++i) out->push_back(t.data<std::int64_t>()[i]);
  } else {
    return false;
  }
  return true;
}

// Reads input i of ctx as integers; the error names the input's role.
inline Status readInts(const KernelContext& ctx, int i, const char* what, std::vector<std::int64_t>* out) {
  if (!intValues(ctx.input(i), out))
    return ctx.error(std::string(what) + " (input " + std::to_string(i) + ") must be int32 or int64, got " +
                     model::dtypeName(ctx.input(i).dtype()));
  return Status::Ok();
}

// The compile-time integer values of input i when it is a Const.
inline bool constInts(const KernelInit& init, int i, std::vector<std::int64_t>* out) {
  const Tensor* t = init.constantInput(i);
  return t && intValues(*t, out);
}

// Normalizes a possibly negative axis into [0, rank); false when out of range.
inline bool normalizeAxis(std::int64_t axis, std::int64_t rank, std::int64_t* out) {
  if (axis < -rank || axis >= rank) return false;
  *out = axis < 0 ? axis + rank : axis;
  return true;
}

inline std::string shapeStr(const Shape& s) { return model::shapeString(s); }

// numpy/TensorFlow broadcasting of two shapes (engine/ops/broadcast.h).
using ops::broadcastShapes;

// Element storage by size: lets data-movement kernels handle every dtype.
template <std::size_t N>
struct Bytes {
  unsigned char b[N];
};

// Calls fn(T{}) with T = std::string for DT_STRING, or an unsigned type of the
// element's size; false for dtypes without fixed-size storage.
template <typename Fn>
bool dispatchStorage(DataType dtype, Fn&& fn) {
  if (dtype == tensorflow::DT_STRING) {
    fn(std::string());
    return true;
  }
  switch (model::dtypeSize(dtype)) {
    case 1: fn(std::uint8_t()); return true;
    case 2: fn(std::uint16_t()); return true;
    case 4: fn(std::uint32_t()); return true;
    case 8: fn(std::uint64_t()); return true;
    case 16: fn(Bytes<16>()); return true;
    default: return false;
  }
}

// Typed element pointers that also work for DT_STRING tensors.
template <typename T>
inline T* elems(Tensor& t) { return t.data<T>(); }
template <typename T>
inline const T* elems(const Tensor& t) { return t.data<T>(); }
template <>
inline std::string* elems<std::string>(Tensor& t) { return t.strings().data(); }
template <>
inline const std::string* elems<std::string>(const Tensor& t) { return t.strings().data(); }

// Allocates output i as a copy-shaped tensor of dtype/shape; strings too.
inline Tensor* allocate(KernelContext& ctx, int i, DataType dtype, const Shape& shape) {
  return ctx.allocateOutput(i, dtype, shape);
}

}  // namespace gds::engine::kern
