// Building the tensors fed to a plan: zeros, explicit values, seeded random
// values, or files (.npy; raw bytes for string inputs such as WAV or JPEG).
#pragma once

#include <cstdint>
#include <string>

#include "engine/tensor.h"
#include "model/status.h"

namespace gds::engine {

// Values "1,2,3" (benchmark_model's --input_layer_values): fewer values than
// elements repeat cyclically; empty means zeros. `what` names the input in errors.
Result<Tensor> tensorFromValues(DataType dtype, const Shape& shape, const std::string& values,
                                const std::string& what);
// Uniform values: floats in [0, 1), integers in [0, 256), bools 0/1; the same
// seed gives the same tensor.
Result<Tensor> randomTensor(DataType dtype, const Shape& shape, std::uint64_t seed, const std::string& what);
// A .npy file (its dtype must match `dtype` unless `dtype` is DT_INVALID;
// quantized inputs take their storage type), or for DT_STRING inputs any other
// file (a WAV clip, a JPEG) as one string scalar.
Result<Tensor> tensorFromFile(const std::string& path, DataType dtype, const std::string& what);

}  // namespace gds::engine
