// TensorProto <-> typed host buffer for every dtype TensorFlow graphs carry,
// from tensor_content or from the typed repeated fields (a single value, or
// fewer values than elements, fills the rest with the last one, as
// TensorFlow does).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tensor.pb.h"
#include "model/status.h"

namespace gds::model {

using Shape = std::vector<std::int64_t>;

// Bytes per element; 0 for string, resource and variant.
std::size_t dtypeSize(tensorflow::DataType dtype);
// TensorFlow's DataTypeString spelling: "float", "int32", "quint8", ...
std::string dtypeName(tensorflow::DataType dtype);
// Accepts "float", "float32", "DT_FLOAT", "int32", "uint8", "quint8", "bool", "string", ...
Result<tensorflow::DataType> parseDtype(const std::string& name);
// Strips the _REF variant (DT_FLOAT_REF -> DT_FLOAT).
tensorflow::DataType baseDtype(tensorflow::DataType dtype);

// Product of the dimensions; -1 if any is unknown (negative).
std::int64_t numElements(const Shape& shape);
std::string shapeString(const Shape& shape);  // "[1,224,224,3]", "?" dims for -1
// Unknown rank gives an error-free empty optional through `known`.
Shape shapeFromProto(const tensorflow::TensorShapeProto& proto, bool* known_rank = nullptr);
void shapeToProto(const Shape& shape, tensorflow::TensorShapeProto* proto);

struct HostTensor {
  tensorflow::DataType dtype = tensorflow::DT_INVALID;
  Shape shape;
  std::vector<std::uint8_t> data;    // numeric elements, little-endian, row-major
  std::vector<std::string> strings;  // DT_STRING elements

  std::int64_t size() const { return numElements(shape); }
  template <typename T>
  T* as() { return reinterpret_cast<T*>(data.data()); }
  template <typename T>
  const T* as() const { return reinterpret_cast<const T*>(data.data()); }
  // Value of element i converted to double (numeric dtypes only).
  double valueAt(std::int64_t i) const;
  static HostTensor zeros(tensorflow::DataType dtype, const Shape& shape);
};

Result<HostTensor> decodeTensor(const tensorflow::TensorProto& proto);
// Writes numeric data into tensor_content (strings into string_val).
void encodeTensor(const HostTensor& tensor, tensorflow::TensorProto* proto);
// Number of elements a TensorProto describes (-1 when its shape is unknown).
std::int64_t protoElementCount(const tensorflow::TensorProto& proto);

// half <-> float
float halfToFloat(std::uint16_t h);
std::uint16_t floatToHalf(float f);
float bfloat16ToFloat(std::uint16_t b);

}  // namespace gds::model
