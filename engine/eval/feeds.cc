#include "engine/eval/feeds.h"

#include <cstdlib>
#include <cstring>
#include <random>

#include "model/io.h"
#include "model/npy.h"

namespace gds::engine {
namespace {

template <typename T>
void fillCyclic(Tensor* t, const std::vector<double>& values) {
  T* out = t->data<T>();
  const std::int64_t n = t->numElements();
  for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(values[static_cast<size_t>(i) % values.size()]);
}

bool numericSupported(DataType dtype) {
  switch (dtype) {
    case tensorflow::DT_FLOAT: case tensorflow::DT_DOUBLE: case tensorflow::DT_INT32: case tensorflow::DT_INT64:
    case tensorflow::DT_UINT8: case tensorflow::DT_INT8: case tensorflow::DT_INT16: case tensorflow::DT_UINT16:
    case tensorflow::DT_BOOL: case tensorflow::DT_QUINT8: case tensorflow::DT_QINT8: case tensorflow::DT_QINT32:
      return true;
    default: return false;
  }
}

void fillValues(Tensor* t, const std::vector<double>& v) {
  switch (t->dtype()) {
    case tensorflow::DT_FLOAT: fillCyclic<float>(t, v); break;
    case tensorflow::DT_DOUBLE: fillCyclic<double>(t, v); break;
    case tensorflow::DT_INT32: case tensorflow::DT_QINT32: fillCyclic<std::int32_t>(t, v); break;
    case tensorflow::DT_INT64: fillCyclic<std::int64_t>(t, v); break;
    case tensorflow::DT_UINT8: case tensorflow::DT_QUINT8: case tensorflow::DT_BOOL: fillCyclic<std::uint8_t>(t, v); break;
    case tensorflow::DT_INT8: case tensorflow::DT_QINT8: fillCyclic<std::int8_t>(t, v); break;
    case tensorflow::DT_INT16: fillCyclic<std::int16_t>(t, v); break;
    case tensorflow::DT_UINT16: fillCyclic<std::uint16_t>(t, v); break;
    default: break;
  }
}

}  // namespace

Result<Tensor> tensorFromValues(DataType dtype, const Shape& shape, const std::string& values, const std::string& what) {
  if (dtype == tensorflow::DT_STRING) {
    Tensor t(dtype, shape);
    for (auto& s : t.strings()) s = values;
    return t;
  }
  if (!numericSupported(dtype))
    return Status::Error(what + ": cannot make input values of type " + model::dtypeName(dtype));
  Tensor t(dtype, shape);
  std::vector<double> v;
  size_t start = 0;
  while (!values.empty() && start <= values.size()) {
    size_t comma = values.find(',', start);
    std::string item = values.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    char* end = nullptr;
    double x = std::strtod(item.c_str(), &end);
    if (item.empty() || !end || *end != '\0')
      return Status::Error(what + ": malformed value '" + item + "' in '" + values + "'");
    v.push_back(x);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (v.empty()) v.push_back(0.0);
  if (t.numElements() > 0) fillValues(&t, v);
  return t;
}

Result<Tensor> randomTensor(DataType dtype, const Shape& shape, std::uint64_t seed, const std::string& what) {
  if (!numericSupported(dtype))
    return Status::Error(what + ": cannot make random values of type " + model::dtypeName(dtype));
  Tensor t(dtype, shape);
  std::mt19937_64 rng(seed);
  const std::int64_t n = t.numElements();
  if (dtype == tensorflow::DT_FLOAT || dtype == tensorflow::DT_DOUBLE) {
    std::uniform_real_distribution<double> dist(0.0, 1.0);
    for (std::int64_t i = 0; i < n; ++i) {
      if (dtype == tensorflow::DT_FLOAT) t.data<float>()[i] = static_cast<float>(dist(rng));
      else t.data<double>()[i] = dist(rng);
    }
    return t;
  }
  std::vector<double> v(static_cast<size_t>(std::max<std::int64_t>(n, 1)));
  const int range = dtype == tensorflow::DT_BOOL ? 2 : 256;
  for (auto& x : v) x = static_cast<double>(rng() % static_cast<std::uint64_t>(range));
  if (dtype == tensorflow::DT_INT8 || dtype == tensorflow::DT_QINT8)
    for (auto& x : v) x -= 128;
  if (n > 0) fillValues(&t, v);
  return t;
}

Result<Tensor> tensorFromFile(const std::string& path, DataType dtype, const std::string& what) {
  auto bytes = model::readFile(path);
  if (!bytes.ok()) return bytes.status().withContext(what);
  if (bytes->rfind("\x93NUMPY", 0) != 0) {
    if (dtype == tensorflow::DT_STRING) return Tensor::stringScalar(std::move(bytes.value()));
    return Status::Error(what + ": " + path + " is not a .npy file (raw files are only accepted for string inputs; "
                         "this input is " + model::dtypeName(dtype) + ")");
  }
  auto host = model::parseNpy(bytes.value(), path);
  if (!host.ok()) return host.status().withContext(what);
  if (dtype != tensorflow::DT_INVALID && model::baseDtype(dtype) != host->dtype) {
    bool storage_match = (dtype == tensorflow::DT_QUINT8 && host->dtype == tensorflow::DT_UINT8) ||
                         (dtype == tensorflow::DT_QINT8 && host->dtype == tensorflow::DT_INT8) ||
                         (dtype == tensorflow::DT_QINT32 && host->dtype == tensorflow::DT_INT32);
    if (!storage_match)
      return Status::Error(what + ": " + path + " holds " + model::dtypeName(host->dtype) + " values but the input is " +
                           model::dtypeName(dtype));
    host->dtype = dtype;
  }
  return Tensor::fromHost(host.value());
}

}  // namespace gds::engine
