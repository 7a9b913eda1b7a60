#include "python/values.h"

#include <nlohmann/json.hpp>

#include <map>
#include <memory>

#include "model/tensor.h"
#include "python/errors.h"

namespace py = pybind11;

namespace gds::python {
namespace {

struct DtypeName {
  tensorflow::DataType dtype;
  const char* numpy;
};
// Plain types first: a numpy dtype maps back to the first entry naming it.
constexpr DtypeName kDtypes[] = {
    {tensorflow::DT_FLOAT, "float32"},     {tensorflow::DT_DOUBLE, "float64"},
    {tensorflow::DT_HALF, "float16"},      {tensorflow::DT_INT8, "int8"},
    {tensorflow::DT_UINT8, "uint8"},       {tensorflow::DT_INT16, "int16"},
    {tensorflow::DT_UINT16, "uint16"},     {tensorflow::DT_INT32, "int32"},
    {tensorflow::DT_UINT32, "uint32"},     {tensorflow::DT_INT64, "int64"},
    {tensorflow::DT_UINT64, "uint64"},     {tensorflow::DT_BOOL, "bool"},
    {tensorflow::DT_COMPLEX64, "complex64"}, {tensorflow::DT_COMPLEX128, "complex128"},
    {tensorflow::DT_STRING, "object"},     {tensorflow::DT_QINT8, "int8"},
    {tensorflow::DT_QUINT8, "uint8"},      {tensorflow::DT_QINT16, "int16"},
    {tensorflow::DT_QUINT16, "uint16"},    {tensorflow::DT_QINT32, "int32"},
};

const char* numpyName(tensorflow::DataType dtype) {
  for (const auto& d : kDtypes)
    if (d.dtype == dtype) return d.numpy;
  return nullptr;
}

py::module_ numpy() { return py::module_::import("numpy"); }

std::string toBytes(py::handle item, const std::string& what) {
  if (py::isinstance<py::bytes>(item)) return item.cast<std::string>();
  if (py::isinstance<py::str>(item)) return item.cast<std::string>();  // UTF-8
  raise(ErrorKind::Argument, what + ": a string input takes bytes or str values, got " +
                                 std::string(py::str(item.get_type().attr("__name__"))));
}

engine::Tensor stringTensor(py::handle value, const std::string& what) {
  if (py::isinstance<py::bytes>(value) || py::isinstance<py::str>(value))
    return engine::Tensor::stringScalar(toBytes(value, what));
  py::array arr = numpy().attr("asarray")(value, "object");
  model::Shape shape(arr.shape(), arr.shape() + arr.ndim());
  engine::Tensor t(tensorflow::DT_STRING, shape);
  py::list flat = arr.attr("ravel")().attr("tolist")();
  for (std::size_t i = 0; i < flat.size(); ++i) t.strings()[i] = toBytes(flat[i], what);
  return t;
}

// The engine keeps `array` alive while it reads the bytes; dropping it takes
// the GIL, whichever thread lets the tensor go.
std::shared_ptr<const void> keepAlive(py::object array) {
  return std::shared_ptr<const void>(new py::object(std::move(array)), [](py::object* p) {
    py::gil_scoped_acquire gil;
    delete p;
  });
}

py::array arrayOf(tensorflow::DataType dtype, const model::Shape& shape, const void* data, py::handle base) {
  std::vector<py::ssize_t> dims(shape.begin(), shape.end());
  py::dtype dt(numpyName(dtype));
  return base ? py::array(dt, dims, data, base) : py::array(dt, dims, data);  // no base: a copy
}

}  // namespace

py::object numpyDtype(tensorflow::DataType dtype) {
  const char* name = numpyName(model::baseDtype(dtype));
  if (!name) return py::none();
  return py::dtype(name);
}

py::object shapeTuple(bool known_rank, const model::Shape& shape) {
  if (!known_rank) return py::none();
  py::list dims;
  for (auto d : shape) dims.append(d < 0 ? py::object(py::none()) : py::object(py::int_(d)));
  return py::tuple(dims);
}

engine::Tensor tensorFromPython(py::handle value, tensorflow::DataType dtype, const std::string& what) {
  dtype = model::baseDtype(dtype);
  try {
    if (dtype == tensorflow::DT_INVALID && (py::isinstance<py::bytes>(value) || py::isinstance<py::str>(value)))
      dtype = tensorflow::DT_STRING;
    if (dtype == tensorflow::DT_STRING) return stringTensor(value, what);
    py::object np_dtype = py::none();
    if (dtype != tensorflow::DT_INVALID) {
      np_dtype = numpyDtype(dtype);
      if (np_dtype.is_none())
        raise(ErrorKind::Argument, what + ": " + model::dtypeName(dtype) + " inputs cannot be fed from numpy");
    }
    py::array arr = numpy().attr("asarray")(value, np_dtype);
    if (!(arr.flags() & py::array::c_style)) arr = arr.attr("copy")("C");
    if (dtype == tensorflow::DT_INVALID) {
      const std::string name = py::str(arr.dtype().attr("name"));
      for (const auto& d : kDtypes)
        if (name == d.numpy) {
          dtype = d.dtype;
          break;
        }
      if (dtype == tensorflow::DT_STRING) return stringTensor(arr, what);
      if (dtype == tensorflow::DT_INVALID)
        raise(ErrorKind::Argument, what + ": numpy dtype " + name + " has no TensorFlow dtype");
    }
    model::Shape shape(arr.shape(), arr.shape() + arr.ndim());
    const void* data = arr.data();
    return engine::Tensor::borrow(dtype, std::move(shape), data, keepAlive(std::move(arr)));
  } catch (py::error_already_set& e) {
    if (e.matches(PyExc_KeyboardInterrupt)) throw;
    raise(ErrorKind::Argument, what + ": " + e.what());
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {  // engine::AllocationRefused for absurd shapes
    raise(ErrorKind::Argument, what + ": " + e.what());
  }
}

py::object tensorToPython(engine::Tensor tensor, const std::string& what) {
  const tensorflow::DataType dtype = tensor.dtype();
  if (!tensor.valid()) raise(ErrorKind::Run, what + ": no value (a target without output)");
  if (dtype == tensorflow::DT_STRING) {
    if (tensor.dims() == 0) return py::bytes(tensor.strings()[0]);
    py::list items;
    for (const auto& s : tensor.strings()) items.append(py::bytes(s));
    py::array flat = numpy().attr("array")(items, "object");
    return flat.attr("reshape")(shapeTuple(true, tensor.shape()));
  }
  if (dtype == tensorflow::DT_BFLOAT16) {
    // numpy has no bfloat16: the values as float32 (exact).
    py::array_t<float> out(std::vector<py::ssize_t>(tensor.shape().begin(), tensor.shape().end()));
    float* dst = out.mutable_data();
    const auto* src = tensor.data<std::uint16_t>();
    for (std::int64_t i = 0; i < tensor.numElements(); ++i) dst[i] = model::bfloat16ToFloat(src[i]);
    return std::move(out);
  }
  if (!numpyName(dtype))
    raise(ErrorKind::Run, what + ": a " + model::dtypeName(dtype) + " tensor has no value Python can hold");
  // The array owns the engine's buffer when nothing else holds it (a pooled
  // intermediate); a buffer shared with a feed, a constant of the plan or
  // another output is copied, so writing into the array changes nothing else.
  if (!tensor.soleOwner()) return arrayOf(dtype, tensor.shape(), tensor.raw(), py::handle());
  auto* kept = new engine::Tensor(std::move(tensor));
  py::capsule owner(kept, [](void* p) { delete static_cast<engine::Tensor*>(p); });
  return arrayOf(kept->dtype(), kept->shape(), kept->raw(), owner);
}

py::object hostTensorToPython(const model::HostTensor& tensor) {
  if (tensor.dtype == tensorflow::DT_STRING) {
    py::list items;
    for (const auto& s : tensor.strings) items.append(py::bytes(s));
    return numpy().attr("array")(items, "object").attr("reshape")(shapeTuple(true, tensor.shape));
  }
  if (!numpyName(tensor.dtype)) return py::none();
  return arrayOf(tensor.dtype, tensor.shape, tensor.data.data(), py::handle());
}

py::object jsonToPython(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null: return py::none();
    case nlohmann::json::value_t::boolean: return py::bool_(value.get<bool>());
    case nlohmann::json::value_t::number_integer: return py::int_(value.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned: return py::int_(value.get<std::uint64_t>());
    case nlohmann::json::value_t::number_float: return py::float_(value.get<double>());
    case nlohmann::json::value_t::string: return py::str(value.get<std::string>());
    case nlohmann::json::value_t::array: {
      py::list out;
      for (const auto& item : value) out.append(jsonToPython(item));
      return std::move(out);
    }
    case nlohmann::json::value_t::object: {
      py::dict out;
      for (const auto& [key, item] : value.items()) out[py::str(key)] = jsonToPython(item);
      return std::move(out);
    }
    default: return py::none();
  }
}

namespace {

py::object textOrBytes(const std::string& s) {
  PyObject* text = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "strict");
  if (text) return py::reinterpret_steal<py::object>(text);
  PyErr_Clear();
  return py::bytes(s);
}

py::object shapeValue(const tensorflow::TensorShapeProto& proto) {
  bool known = false;
  model::Shape shape = model::shapeFromProto(proto, &known);
  return shapeTuple(known, shape);
}

py::object tensorValue(const tensorflow::TensorProto& proto) {
  auto host = model::decodeTensor(proto);
  return host.ok() ? hostTensorToPython(*host) : py::none();
}

py::object listValue(const tensorflow::AttrValue::ListValue& list) {
  py::list out;
  for (const auto& s : list.s()) out.append(textOrBytes(s));
  for (auto i : list.i()) out.append(py::int_(i));
  for (float f : list.f()) out.append(py::float_(f));
  for (bool b : list.b()) out.append(py::bool_(b));
  for (int t : list.type()) out.append(py::str(model::dtypeName(static_cast<tensorflow::DataType>(t))));
  for (const auto& s : list.shape()) out.append(shapeValue(s));
  for (const auto& t : list.tensor()) out.append(tensorValue(t));
  for (const auto& f : list.func()) out.append(py::str(f.name()));
  return std::move(out);
}

}  // namespace

py::object attrToPython(const tensorflow::AttrValue& value) {
  switch (value.value_case()) {
    case tensorflow::AttrValue::kS: return textOrBytes(value.s());
    case tensorflow::AttrValue::kI: return py::int_(value.i());
    case tensorflow::AttrValue::kF: return py::float_(value.f());
    case tensorflow::AttrValue::kB: return py::bool_(value.b());
    case tensorflow::AttrValue::kType: return py::str(model::dtypeName(value.type()));
    case tensorflow::AttrValue::kShape: return shapeValue(value.shape());
    case tensorflow::AttrValue::kTensor: return tensorValue(value.tensor());
    case tensorflow::AttrValue::kList: return listValue(value.list());
    case tensorflow::AttrValue::kFunc: return py::str(value.func().name());
    case tensorflow::AttrValue::kPlaceholder: return py::str(value.placeholder());
    default: return py::none();
  }
}

namespace {

std::map<std::string, py::object>& recordTypes() {
  // Lives as long as the module (never destroyed: Python owns the types).
  static auto* types = new std::map<std::string, py::object>();
  return *types;
}

}  // namespace

void defineRecord(py::module_& module, const char* name, std::initializer_list<const char*> fields, const char* doc) {
  py::list names;
  for (const char* f : fields) names.append(f);
  py::object type = py::module_::import("collections").attr("namedtuple")(name, names);
  type.attr("__module__") = module.attr("__name__");
  type.attr("__doc__") = doc;
  module.attr(name) = type;
  recordTypes()[name] = type;
}

py::object record(const char* name, py::tuple values) { return recordTypes().at(name)(*values); }

}  // namespace gds::python
