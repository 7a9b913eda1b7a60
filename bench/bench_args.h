// What the benchmark programs share besides timing: TensorFlow-style
// --name=value flags, comma-separated thread lists, and seeded inputs.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "engine/tensor.h"

namespace gds::bench {

// The value of --name=VALUE, or `fallback` when it is not given.
inline std::string flag(int argc, char** argv, const std::string& name, const std::string& fallback) {
  const std::string prefix = "--" + name + "=";
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) return argv[i] + prefix.size();
  return fallback;
}

// "1,2,4" -> {1, 2, 4}
inline std::vector<int> intList(const std::string& text) {
  std::vector<int> v;
  for (std::size_t p = 0; p < text.size();) {
    std::size_t q = text.find(',', p);
    if (q == std::string::npos) q = text.size();
    v.push_back(std::stoi(text.substr(p, q - p)));
    p = q + 1;
  }
  return v;
}

// A float tensor uniform in [-1, 1) from a Mersenne Twister seeded with `seed`.
inline engine::Tensor randomInput(const std::vector<std::int64_t>& shape, unsigned seed) {
  engine::Tensor t(tensorflow::DT_FLOAT, shape);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  for (std::int64_t i = 0; i < t.numElements(); ++i) t.data<float>()[i] = d(rng);
  return t;
}

}  // namespace gds::bench
