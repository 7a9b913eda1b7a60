#include "model/tensor.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <unordered_map>

#include "model/memory_budget.h"

namespace gds::model {
using tensorflow::DataType;

std::size_t dtypeSize(DataType dtype) {
  switch (baseDtype(dtype)) {
    case tensorflow::DT_FLOAT: case tensorflow::DT_INT32: case tensorflow::DT_QINT32:
    case tensorflow::DT_UINT32: return 4;
    case tensorflow::DT_DOUBLE: case tensorflow::DT_INT64: case tensorflow::DT_UINT64:
    case tensorflow::DT_COMPLEX64: return 8;
    case tensorflow::DT_COMPLEX128: return 16;
    case tensorflow::DT_UINT8: case tensorflow::DT_INT8: case tensorflow::DT_BOOL:
    case tensorflow::DT_QINT8: case tensorflow::DT_QUINT8: case tensorflow::DT_FLOAT8_E5M2:
    case tensorflow::DT_FLOAT8_E4M3FN: return 1;
    case tensorflow::DT_INT16: case tensorflow::DT_UINT16: case tensorflow::DT_QINT16:
    case tensorflow::DT_QUINT16: case tensorflow::DT_HALF: case tensorflow::DT_BFLOAT16: return 2;
    default: return 0;
  }
}

DataType baseDtype(DataType dtype) {
  int v = static_cast<int>(dtype);
  return v > 100 ? static_cast<DataType>(v - 100) : dtype;
}

std::string dtypeName(DataType dtype) {
  bool ref = static_cast<int>(dtype) > 100;
  std::string name;
  switch (baseDtype(dtype)) {
    case tensorflow::DT_INVALID: name = "invalid"; break;
    case tensorflow::DT_FLOAT: name = "float"; break;
    case tensorflow::DT_DOUBLE: name = "double"; break;
    case tensorflow::DT_INT32: name = "int32"; break;
    case tensorflow::DT_UINT8: name = "uint8"; break;
    case tensorflow::DT_INT16: name = "int16"; break;
    case tensorflow::DT_INT8: name = "int8"; break;
    case tensorflow::DT_STRING: name = "string"; break;
    case tensorflow::DT_COMPLEX64: name = "complex64"; break;
    case tensorflow::DT_INT64: name = "int64"; break;
    case tensorflow::DT_BOOL: name = "bool"; break;
    case tensorflow::DT_QINT8: name = "qint8"; break;
    case tensorflow::DT_QUINT8: name = "quint8"; break;
    case tensorflow::DT_QINT32: name = "qint32"; break;
    case tensorflow::DT_BFLOAT16: name = "bfloat16"; break;
    case tensorflow::DT_QINT16: name = "qint16"; break;
    case tensorflow::DT_QUINT16: name = "quint16"; break;
    case tensorflow::DT_UINT16: name = "uint16"; break;
    case tensorflow::DT_COMPLEX128: name = "complex128"; break;
    case tensorflow::DT_HALF: name = "half"; break;
    case tensorflow::DT_RESOURCE: name = "resource"; break;
    case tensorflow::DT_VARIANT: name = "variant"; break;
    case tensorflow::DT_UINT32: name = "uint32"; break;
    case tensorflow::DT_UINT64: name = "uint64"; break;
    case tensorflow::DT_FLOAT8_E5M2: name = "float8_e5m2"; break;
    case tensorflow::DT_FLOAT8_E4M3FN: name = "float8_e4m3fn"; break;
    case tensorflow::DT_INT4: name = "int4"; break;
    case tensorflow::DT_UINT4: name = "uint4"; break;
    default: name = "unknown(" + std::to_string(static_cast<int>(dtype)) + ")"; ref = false;
  }
  return ref ? name + "_ref" : name;
}

Result<DataType> parseDtype(const std::string& raw) {
  std::string name = raw;
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  if (name.rfind("dt_", 0) == 0) name = name.substr(3);
  static const std::unordered_map<std::string, DataType> names = {
      {"float", tensorflow::DT_FLOAT},   {"float32", tensorflow::DT_FLOAT},   {"double", tensorflow::DT_DOUBLE},
      {"float64", tensorflow::DT_DOUBLE}, {"int32", tensorflow::DT_INT32},    {"uint8", tensorflow::DT_UINT8},
      {"int16", tensorflow::DT_INT16},   {"int8", tensorflow::DT_INT8},       {"string", tensorflow::DT_STRING},
      {"int64", tensorflow::DT_INT64},   {"bool", tensorflow::DT_BOOL},       {"qint8", tensorflow::DT_QINT8},
      {"quint8", tensorflow::DT_QUINT8}, {"qint32", tensorflow::DT_QINT32},   {"bfloat16", tensorflow::DT_BFLOAT16},
      {"qint16", tensorflow::DT_QINT16}, {"quint16", tensorflow::DT_QUINT16}, {"uint16", tensorflow::DT_UINT16},
      {"half", tensorflow::DT_HALF},     {"float16", tensorflow::DT_HALF},    {"uint32", tensorflow::DT_UINT32},
      {"uint64", tensorflow::DT_UINT64}, {"complex64", tensorflow::DT_COMPLEX64},
      {"complex128", tensorflow::DT_COMPLEX128}, {"resource", tensorflow::DT_RESOURCE},
      {"variant", tensorflow::DT_VARIANT}};
  auto it = names.find(name);
  if (it == names.end())
    return Status::Error("unknown data type '" + raw +
                         "' (expected float, double, int8, int16, int32, int64, uint8, uint16, bool, string, "
                         "half, quint8, qint8 or qint32)");
  return it->second;
}

std::int64_t numElements(const Shape& shape) {
  std::int64_t n = 1;
  for (auto d : shape) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) return -1;  // unknown, or overflow in a corrupt shape
  }
  return n;
}

std::string shapeString(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ",";
    s += shape[i] < 0 ? std::string("?") : std::to_string(shape[i]);
  }
  return s + "]";
}

Shape shapeFromProto(const tensorflow::TensorShapeProto& proto, bool* known_rank) {
  if (known_rank) *known_rank = !proto.unknown_rank();
  Shape s;
  if (proto.unknown_rank()) return s;
  s.reserve(proto.dim_size());
  for (const auto& d : proto.dim()) s.push_back(d.size());
  return s;
}

void shapeToProto(const Shape& shape, tensorflow::TensorShapeProto* proto) {
  proto->Clear();
  for (auto d : shape) proto->add_dim()->set_size(d);
}

std::int64_t protoElementCount(const tensorflow::TensorProto& proto) {
  return numElements(shapeFromProto(proto.tensor_shape()));
}

float halfToFloat(std::uint16_t h) {
  std::uint32_t sign = (h & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1f;
  std::uint32_t mant = h & 0x3ffu;
  std::uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      bits = sign | (static_cast<std::uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

std::uint16_t floatToHalf(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  std::uint32_t sign = (x >> 16) & 0x8000u;
  std::int32_t exp = static_cast<std::int32_t>((x >> 23) & 0xff) - 127 + 15;
  std::uint32_t mant = x & 0x7fffffu;
  if (((x >> 23) & 0xff) == 0xff) return static_cast<std::uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0));
  if (exp >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (exp <= 0) {
    if (exp < -10) return static_cast<std::uint16_t>(sign);
    mant |= 0x800000u;
    std::uint32_t shift = static_cast<std::uint32_t>(14 - exp);
    std::uint32_t half = mant >> shift;
    std::uint32_t rem = mant & ((1u << shift) - 1);
    std::uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return static_cast<std::uint16_t>(sign | half);
  }
  std::uint32_t half = sign | (static_cast<std::uint32_t>(exp) << 10) | (mant >> 13);
  std::uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1))) ++half;  // may carry into the exponent: correct
  return static_cast<std::uint16_t>(half);
}

float bfloat16ToFloat(std::uint16_t b) {
  std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

double HostTensor::valueAt(std::int64_t i) const {
  switch (baseDtype(dtype)) {
    case tensorflow::DT_FLOAT: return as<float>()[i];
    case tensorflow::DT_DOUBLE: return as<double>()[i];
    case tensorflow::DT_INT32: case tensorflow::DT_QINT32: return as<std::int32_t>()[i];
    case tensorflow::DT_INT64: return static_cast<double>(as<std::int64_t>()[i]);
    case tensorflow::DT_UINT8: case tensorflow::DT_QUINT8: case tensorflow::DT_BOOL: return as<std::uint8_t>()[i];
    case tensorflow::DT_INT8: case tensorflow::DT_QINT8: return as<std::int8_t>()[i];
    case tensorflow::DT_INT16: case tensorflow::DT_QINT16: return as<std::int16_t>()[i];
    case tensorflow::DT_UINT16: case tensorflow::DT_QUINT16: return as<std::uint16_t>()[i];
    case tensorflow::DT_UINT32: return as<std::uint32_t>()[i];
    case tensorflow::DT_UINT64: return static_cast<double>(as<std::uint64_t>()[i]);
    case tensorflow::DT_HALF: return halfToFloat(as<std::uint16_t>()[i]);
    case tensorflow::DT_BFLOAT16: return bfloat16ToFloat(as<std::uint16_t>()[i]);
    default: return 0.0;
  }
}

HostTensor HostTensor::zeros(DataType dtype, const Shape& shape) {
  HostTensor t;
  t.dtype = dtype;
  t.shape = shape;
  std::int64_t n = std::max<std::int64_t>(numElements(shape), 0);
  if (baseDtype(dtype) == tensorflow::DT_STRING) t.strings.assign(static_cast<size_t>(n), std::string());
  else t.data.assign(static_cast<size_t>(n) * dtypeSize(dtype), 0);
  return t;
}

namespace {

// Copies `count` values of a repeated field into n elements of type T,
// repeating the last value (TensorFlow's fill rule).
template <typename T, typename Field>
Status fillFrom(const Field& field, std::int64_t n, HostTensor* t, const char* field_name) {
  // TensorFlow (FromProtoField in tensor.cc) uses the first n values when a
  // field holds more, and repeats the last one when it holds fewer.
  (void)field_name;
  std::int64_t count = std::min<std::int64_t>(field.size(), n);
  T* out = t->as<T>();
  for (std::int64_t i = 0; i < count; ++i) out[i] = static_cast<T>(field.Get(static_cast<int>(i)));
  if (count > 0)
    for (std::int64_t i = count; i < n; ++i) out[i] = out[count - 1];
  return Status::Ok();
}

}  // namespace

Result<HostTensor> decodeTensor(const tensorflow::TensorProto& proto) {
  HostTensor t;
  t.dtype = baseDtype(proto.dtype());
  bool known = true;
  t.shape = shapeFromProto(proto.tensor_shape(), &known);
  if (!known) return Status::Error("tensor has an unknown rank");
  for (auto d : t.shape)
    if (d < 0) return Status::Error("tensor shape " + shapeString(t.shape) + " has an unknown dimension");
  // Overflow-safe element count: a corrupt shape must not wrap around or ask
  // for terabytes. 2^32 elements (16 GB of floats) is far beyond any GraphDef
  // (protobuf caps a file at 2 GB) but allows a single-value fill of a big shape.
  std::int64_t n = 1;
  for (auto d : t.shape) {
    if (d != 0 && n > (std::int64_t(1) << 32) / d)
      return Status::Error("tensor shape " + shapeString(t.shape) + " is too large");
    n *= d;
  }
  // A few bytes of float_val can declare gigabytes (TensorFlow repeats the
  // last value): the decoded size is checked before it is allocated.
  const std::int64_t decoded_size = t.dtype == tensorflow::DT_STRING ? static_cast<std::int64_t>(sizeof(std::string))
                                                                     : static_cast<std::int64_t>(dtypeSize(t.dtype));
  GDS_RETURN_IF_ERROR(checkAllocation(n, decoded_size, "tensor " + dtypeName(t.dtype) + shapeString(t.shape)));
  if (t.dtype == tensorflow::DT_STRING) {
    std::int64_t count = std::min<std::int64_t>(proto.string_val_size(), n);
    t.strings.reserve(static_cast<size_t>(n));
    for (std::int64_t k = 0; k < count; ++k) t.strings.push_back(proto.string_val(static_cast<int>(k)));
    while (static_cast<std::int64_t>(t.strings.size()) < n)
      t.strings.push_back(count ? t.strings.back() : std::string());
    return t;
  }
  const std::size_t elem = dtypeSize(t.dtype);
  if (elem == 0) return Status::Error("tensors of type " + dtypeName(t.dtype) + " have no host value");
  const std::size_t bytes = static_cast<std::size_t>(n) * elem;
  if (!proto.tensor_content().empty()) {
    if (proto.tensor_content().size() != bytes)
      return Status::Error("tensor_content has " + std::to_string(proto.tensor_content().size()) +
                           " bytes but " + dtypeName(t.dtype) + shapeString(t.shape) + " needs " +
                           std::to_string(bytes));
    t.data.assign(proto.tensor_content().begin(), proto.tensor_content().end());
    return t;
  }
  t.data.assign(bytes, 0);
  switch (t.dtype) {
    case tensorflow::DT_FLOAT: GDS_RETURN_IF_ERROR((fillFrom<float>(proto.float_val(), n, &t, "float_val"))); break;
    case tensorflow::DT_DOUBLE: GDS_RETURN_IF_ERROR((fillFrom<double>(proto.double_val(), n, &t, "double_val"))); break;
    case tensorflow::DT_INT32: case tensorflow::DT_QINT32:
      GDS_RETURN_IF_ERROR((fillFrom<std::int32_t>(proto.int_val(), n, &t, "int_val"))); break;
    case tensorflow::DT_INT16: case tensorflow::DT_QINT16:
      GDS_RETURN_IF_ERROR((fillFrom<std::int16_t>(proto.int_val(), n, &t, "int_val"))); break;
    case tensorflow::DT_UINT16: case tensorflow::DT_QUINT16:
      GDS_RETURN_IF_ERROR((fillFrom<std::uint16_t>(proto.int_val(), n, &t, "int_val"))); break;
    case tensorflow::DT_INT8: case tensorflow::DT_QINT8:
      GDS_RETURN_IF_ERROR((fillFrom<std::int8_t>(proto.int_val(), n, &t, "int_val"))); break;
    case tensorflow::DT_UINT8: case tensorflow::DT_QUINT8:
      GDS_RETURN_IF_ERROR((fillFrom<std::uint8_t>(proto.int_val(), n, &t, "int_val"))); break;
    case tensorflow::DT_INT64: GDS_RETURN_IF_ERROR((fillFrom<std::int64_t>(proto.int64_val(), n, &t, "int64_val"))); break;
    case tensorflow::DT_BOOL: GDS_RETURN_IF_ERROR((fillFrom<std::uint8_t>(proto.bool_val(), n, &t, "bool_val"))); break;
    case tensorflow::DT_HALF: case tensorflow::DT_BFLOAT16:
      GDS_RETURN_IF_ERROR((fillFrom<std::uint16_t>(proto.half_val(), n, &t, "half_val"))); break;
    case tensorflow::DT_UINT32: GDS_RETURN_IF_ERROR((fillFrom<std::uint32_t>(proto.uint32_val(), n, &t, "uint32_val"))); break;
    case tensorflow::DT_UINT64: GDS_RETURN_IF_ERROR((fillFrom<std::uint64_t>(proto.uint64_val(), n, &t, "uint64_val"))); break;
    case tensorflow::DT_COMPLEX64:
    case tensorflow::DT_COMPLEX128: {
      // scomplex_val/dcomplex_val hold (real, imag) pairs; the fill rule
      // repeats the last pair (TensorFlow's ProtoHelper<complex>).
      bool single = t.dtype == tensorflow::DT_COMPLEX64;
      std::int64_t pairs = std::min<std::int64_t>((single ? proto.scomplex_val_size() : proto.dcomplex_val_size()) / 2, n);
      for (std::int64_t i = 0; i < n && pairs > 0; ++i) {
        std::int64_t src = std::min(i, pairs - 1);
        for (int part = 0; part < 2; ++part) {
          int k = static_cast<int>(2 * src + part);
          if (single) t.as<float>()[2 * i + part] = proto.scomplex_val(k);
          else t.as<double>()[2 * i + part] = proto.dcomplex_val(k);
        }
      }
      break;
    }
    default: return Status::Error("cannot decode tensors of type " + dtypeName(t.dtype));
  }
  return t;
}

void encodeTensor(const HostTensor& t, tensorflow::TensorProto* proto) {
  proto->Clear();
  proto->set_dtype(t.dtype);
  shapeToProto(t.shape, proto->mutable_tensor_shape());
  if (baseDtype(t.dtype) == tensorflow::DT_STRING) {
    for (const auto& s : t.strings) proto->add_string_val(s);
    return;
  }
  proto->set_tensor_content(reinterpret_cast<const char*>(t.data.data()), t.data.size());
}

}  // namespace gds::model
