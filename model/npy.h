// NumPy .npy files (format versions 1-3, little-endian, C order): how tensors
// are stored on disk.
#pragma once

#include <string>

#include "model/status.h"
#include "model/tensor.h"

namespace gds::model {

Result<HostTensor> parseNpy(const std::string& bytes, const std::string& name);
Result<HostTensor> readNpy(const std::string& path);
std::string toNpy(const HostTensor& tensor);  // numeric dtypes (quantized types as their storage)
Status writeNpy(const std::string& path, const HostTensor& tensor);  // atomic
// The file `gdstudio run --out_dir` writes a fetched tensor to: its name with
// '/' and ':' as '_', plus ".npy" ("dense_1:0" -> "dense_1_0.npy").
std::string npyFileName(const std::string& tensor);

}  // namespace gds::model
