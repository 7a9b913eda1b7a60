#include "model/tflite/types.h"

#include <cstring>
#include <limits>

namespace gds::model::tflite {
namespace {

// TensorType values, in the schema's order (0..18).
struct TypeEntry {
  const char* name;
  tensorflow::DataType dtype;
};
const TypeEntry kTypes[] = {
    {"FLOAT32", tensorflow::DT_FLOAT},      {"FLOAT16", tensorflow::DT_HALF},
    {"INT32", tensorflow::DT_INT32},        {"UINT8", tensorflow::DT_UINT8},
    {"INT64", tensorflow::DT_INT64},        {"STRING", tensorflow::DT_STRING},
    {"BOOL", tensorflow::DT_BOOL},          {"INT16", tensorflow::DT_INT16},
    {"COMPLEX64", tensorflow::DT_COMPLEX64}, {"INT8", tensorflow::DT_INT8},
    {"FLOAT64", tensorflow::DT_DOUBLE},     {"COMPLEX128", tensorflow::DT_COMPLEX128},
    {"UINT64", tensorflow::DT_UINT64},      {"RESOURCE", tensorflow::DT_RESOURCE},
    {"VARIANT", tensorflow::DT_VARIANT},    {"UINT32", tensorflow::DT_UINT32},
    {"UINT16", tensorflow::DT_UINT16},      {"INT4", tensorflow::DT_INVALID},
    {"BFLOAT16", tensorflow::DT_BFLOAT16},
};
constexpr int kTypeCount = static_cast<int>(sizeof(kTypes) / sizeof(kTypes[0]));

std::int32_t readInt32(const std::uint8_t* p) {
  std::int32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace

tensorflow::DataType dtypeFromTensorType(int tensor_type) {
  return tensor_type >= 0 && tensor_type < kTypeCount ? kTypes[tensor_type].dtype : tensorflow::DT_INVALID;
}

int tensorTypeFromDtype(tensorflow::DataType dtype) {
  if (dtype == tensorflow::DT_INVALID) return -1;
  for (int i = 0; i < kTypeCount; ++i)
    if (kTypes[i].dtype == dtype) return i;
  return -1;
}

std::string tensorTypeName(int tensor_type) {
  return tensor_type >= 0 && tensor_type < kTypeCount ? kTypes[tensor_type].name : std::to_string(tensor_type);
}

int tensorTypeFromName(const std::string& name) {
  for (int i = 0; i < kTypeCount; ++i)
    if (name == kTypes[i].name) return i;
  return -1;
}

Result<std::vector<std::string>> decodeStringBuffer(const std::uint8_t* data, std::size_t size) {
  if (size < 4) return Status::Error("string buffer of " + std::to_string(size) + " bytes has no count");
  const std::int32_t count = readInt32(data);
  if (count < 0 || static_cast<std::uint64_t>(count) + 1 > (size - 4) / 4)
    return Status::Error("string buffer declares " + std::to_string(count) + " strings but holds " +
                         std::to_string(size) + " bytes");
  std::vector<std::string> out;
  out.reserve(static_cast<std::size_t>(count));
  for (std::int32_t i = 0; i < count; ++i) {
    const std::int32_t begin = readInt32(data + 4 + 4 * i);
    const std::int32_t end = readInt32(data + 4 + 4 * (i + 1));
    if (begin < 0 || end < begin || static_cast<std::size_t>(end) > size)
      return Status::Error("string " + std::to_string(i) + " has offsets " + std::to_string(begin) + ".." +
                           std::to_string(end) + " outside the " + std::to_string(size) + "-byte buffer");
    out.emplace_back(reinterpret_cast<const char*>(data) + begin, static_cast<std::size_t>(end - begin));
  }
  return out;
}

std::string encodeStringBuffer(const std::vector<std::string>& strings) {
  const std::size_t header = 4 * (strings.size() + 2);
  std::string out(header, '\0');
  auto put = [&](std::size_t at, std::int32_t v) { std::memcpy(&out[at], &v, sizeof v); };
  put(0, static_cast<std::int32_t>(strings.size()));
  std::size_t offset = header;
  for (std::size_t i = 0; i < strings.size(); ++i) {
    put(4 + 4 * i, static_cast<std::int32_t>(offset));
    offset += strings[i].size();
  }
  put(4 + 4 * strings.size(), static_cast<std::int32_t>(offset));
  for (const std::string& s : strings) out += s;
  return out;
}

}  // namespace gds::model::tflite
