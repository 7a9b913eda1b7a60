// Python values for the libraries' values: numpy arrays for engine tensors
// (without copies where the dtype and layout allow), plain Python values for
// JSON documents and node attributes, and records (named tuples: fields by
// name, and a list of them is one pandas.DataFrame(...) call away).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <nlohmann/json_fwd.hpp>

#include <initializer_list>
#include <string>
#include <vector>

#include "engine/tensor.h"
#include "graph.pb.h"

namespace gds::python {

// numpy's dtype for a TensorFlow dtype: float32 for DT_FLOAT, uint8 for
// DT_QUINT8 (the storage type), object for DT_STRING; None when numpy has
// none (DT_INVALID, resources).
pybind11::object numpyDtype(tensorflow::DataType dtype);
// (2, None, 3) for [2,-1,3]; None for an unknown rank.
pybind11::object shapeTuple(bool known_rank, const model::Shape& shape);

// A value for a model input of `dtype` (DT_INVALID: the value's own dtype):
// an ndarray (borrowed without a copy when it already has the dtype and is
// C-contiguous; converted like numpy.asarray(value, dtype) otherwise),
// anything numpy.asarray accepts, or bytes/str for string inputs. `what`
// names the input in errors. GIL held.
engine::Tensor tensorFromPython(pybind11::handle value, tensorflow::DataType dtype, const std::string& what);
// An output as an ndarray that owns the engine's buffer (no copy) when no
// other tensor shares it, else a copy; DT_STRING scalars as bytes and
// bfloat16 as float32. GIL held.
pybind11::object tensorToPython(engine::Tensor tensor, const std::string& what);
// A decoded TensorProto (a Const's value) as an ndarray (a copy).
pybind11::object hostTensorToPython(const model::HostTensor& tensor);

pybind11::object jsonToPython(const nlohmann::json& value);
// A node attribute as TensorFlow's Python API reads it: int, float, bool,
// str (bytes when not UTF-8), dtype name, shape tuple, ndarray, list.
pybind11::object attrToPython(const tensorflow::AttrValue& value);

// Record types: named tuples of the module, created once at import
// (defineRecord) and built by name (record).
void defineRecord(pybind11::module_& module, const char* name, std::initializer_list<const char*> fields,
                  const char* doc);
pybind11::object record(const char* name, pybind11::tuple values);
template <typename... Values>
pybind11::object record(const char* name, Values&&... values) {
  return record(name, pybind11::make_tuple(std::forward<Values>(values)...));
}
// A list of records.
template <typename T, typename F>
pybind11::list records(const std::vector<T>& items, F&& to_record) {
  pybind11::list out;
  for (const T& item : items) out.append(to_record(item));
  return out;
}

}  // namespace gds::python
