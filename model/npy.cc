#include "model/npy.h"

#include <algorithm>
#include <cstring>

#include "model/io.h"
#include "model/memory_budget.h"

namespace gds::model {
namespace {

struct Descr {
  const char* code;
  tensorflow::DataType dtype;
};
const Descr kDescrs[] = {
    {"<f4", tensorflow::DT_FLOAT}, {"<f8", tensorflow::DT_DOUBLE}, {"<i4", tensorflow::DT_INT32},
    {"<i8", tensorflow::DT_INT64}, {"|u1", tensorflow::DT_UINT8},  {"|i1", tensorflow::DT_INT8},
    {"<i2", tensorflow::DT_INT16}, {"<u2", tensorflow::DT_UINT16}, {"<u4", tensorflow::DT_UINT32},
    {"<u8", tensorflow::DT_UINT64}, {"|b1", tensorflow::DT_BOOL},  {"<f2", tensorflow::DT_HALF},
    {"<c8", tensorflow::DT_COMPLEX64}, {"<c16", tensorflow::DT_COMPLEX128}};

// Value of `key` in the header dict, as raw text up to the next top-level ',' or '}'.
std::string dictValue(const std::string& header, const std::string& key) {
  size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) return {};
  size_t colon = header.find(':', k);
  if (colon == std::string::npos) return {};
  size_t i = colon + 1;
  while (i < header.size() && header[i] == ' ') ++i;
  int depth = 0;
  size_t start = i;
  for (; i < header.size(); ++i) {
    char c = header[i];
    if (c == '(' || c == '[') ++depth;
    else if (c == ')' || c == ']') --depth;
    else if ((c == ',' || c == '}') && depth == 0) break;
  }
  std::string v = header.substr(start, i - start);
  while (!v.empty() && v.back() == ' ') v.pop_back();
  return v;
}

}  // namespace

Result<HostTensor> parseNpy(const std::string& bytes, const std::string& name) {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0)
    return Status::Error(name + ": not a .npy file (missing \\x93NUMPY magic)");
  int major = static_cast<unsigned char>(bytes[6]);
  size_t header_len, offset;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return Status::Error(name + ": truncated .npy header");
    header_len = 0;
    for (int i = 0; i < 4; ++i) header_len |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    offset = 12;
  } else {
    return Status::Error(name + ": unsupported .npy version " + std::to_string(major));
  }
  if (offset + header_len > bytes.size()) return Status::Error(name + ": truncated .npy header");
  std::string header = bytes.substr(offset, header_len);
  std::string descr = dictValue(header, "descr");
  if (descr.size() >= 2) descr = descr.substr(1, descr.size() - 2);
  if (descr.size() == 3 && descr[0] == '=') descr[0] = '<';
  if (descr == "<u1" || descr == "<i1" || descr == "<b1") descr[0] = '|';
  HostTensor t;
  for (const auto& d : kDescrs)
    if (descr == d.code) t.dtype = d.dtype;
  if (t.dtype == tensorflow::DT_INVALID)
    return Status::Error(name + ": unsupported .npy dtype '" + descr + "' (big-endian, object and structured arrays are not supported)");
  if (dictValue(header, "fortran_order") == "True")
    return Status::Error(name + ": Fortran-ordered arrays are not supported (save with np.ascontiguousarray)");
  std::string shape = dictValue(header, "shape");
  if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')')
    return Status::Error(name + ": malformed .npy shape '" + shape + "'");
  std::string dims = shape.substr(1, shape.size() - 2);
  size_t i = 0;
  while (i < dims.size()) {
    while (i < dims.size() && (dims[i] == ' ' || dims[i] == ',')) ++i;
    if (i >= dims.size()) break;
    size_t j = i;
    while (j < dims.size() && std::isdigit(static_cast<unsigned char>(dims[j]))) ++j;
    if (j == i) return Status::Error(name + ": malformed .npy shape '" + shape + "'");
    // At most 18 digits: every such number fits int64 (a 20-digit size made
    // std::stoll throw); the product is checked below.
    if (j - i > 18)
      return Status::Error(name + ": .npy dimension " + dims.substr(i, j - i) + " in shape '" + shape +
                           "' is too large");
    t.shape.push_back(std::stoll(dims.substr(i, j - i)));
    i = j;
  }
  auto elements = checkedElements(t.shape.data(), t.shape.size(), static_cast<std::int64_t>(dtypeSize(t.dtype)),
                                  name + ": .npy shape " + shape);
  if (!elements.ok()) return elements.status();
  size_t need = static_cast<size_t>(*elements) * dtypeSize(t.dtype);
  size_t data_offset = offset + header_len;
  if (bytes.size() - data_offset < need)
    return Status::Error(name + ": truncated .npy data (" + std::to_string(bytes.size() - data_offset) +
                         " bytes, expected " + std::to_string(need) + ")");
  t.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(data_offset),
                bytes.begin() + static_cast<std::ptrdiff_t>(data_offset + need));
  return t;
}

Result<HostTensor> readNpy(const std::string& path) {
  auto bytes = readFile(path);
  if (!bytes.ok()) return bytes.status();
  return parseNpy(bytes.value(), path);
}

std::string toNpy(const HostTensor& t) {
  tensorflow::DataType storage = t.dtype;
  switch (baseDtype(t.dtype)) {
    case tensorflow::DT_QUINT8: storage = tensorflow::DT_UINT8; break;
    case tensorflow::DT_QINT8: storage = tensorflow::DT_INT8; break;
    case tensorflow::DT_QINT32: storage = tensorflow::DT_INT32; break;
    case tensorflow::DT_QINT16: storage = tensorflow::DT_INT16; break;
    case tensorflow::DT_QUINT16: storage = tensorflow::DT_UINT16; break;
    case tensorflow::DT_BFLOAT16: storage = tensorflow::DT_UINT16; break;
    default: break;
  }
  const char* code = "<f4";
  for (const auto& d : kDescrs)
    if (d.dtype == baseDtype(storage)) code = d.code;
  std::string shape = "(";
  for (size_t i = 0; i < t.shape.size(); ++i) shape += std::to_string(t.shape[i]) + (t.shape.size() == 1 || i + 1 < t.shape.size() ? "," : "");
  shape += ")";
  // numpy writes "(3,)" for 1-D and "(2, 3)" for more; both parse.
  std::string header = "{'descr': '" + std::string(code) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + header.size() + 1;
  size_t pad = (64 - total % 64) % 64;
  header.append(pad, ' ');
  header.push_back('\n');
  std::string out = "\x93NUMPY";
  out.push_back(1);
  out.push_back(0);
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>((header.size() >> 8) & 0xff));
  out += header;
  out.append(reinterpret_cast<const char*>(t.data.data()), t.data.size());
  return out;
}

Status writeNpy(const std::string& path, const HostTensor& tensor) {
  if (baseDtype(tensor.dtype) == tensorflow::DT_STRING)
    return Status::Error(path + ": string tensors cannot be written as .npy");
  return writeFileAtomic(path, toNpy(tensor));
}

std::string npyFileName(const std::string& tensor) {
  std::string s = tensor;
  std::replace(s.begin(), s.end(), '/', '_');
  std::replace(s.begin(), s.end(), ':', '_');
  return s + ".npy";
}

}  // namespace gds::model
