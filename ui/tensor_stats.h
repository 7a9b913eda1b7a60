// Statistics of a constant tensor for the properties panel: range, mean,
// standard deviation, sparsity (fraction of exact zeros) and a histogram.
#pragma once

#include <cstdint>
#include <vector>

#include "model/tensor.h"

namespace gds::ui {

struct TensorStats {
  std::int64_t count = 0;     // elements
  std::int64_t zeros = 0;     // exact zeros
  std::int64_t non_finite = 0;  // NaN and inf, left out of the other figures
  double min = 0, max = 0, mean = 0, stddev = 0;
  double sparsity() const { return count ? static_cast<double>(zeros) / static_cast<double>(count) : 0.0; }
  // Equal-width bins over [min, max]; max falls into the last bin.
  std::vector<std::int64_t> histogram;
};

// Numeric dtypes only (strings give count = 0).
TensorStats computeTensorStats(const model::HostTensor& tensor, int bins = 32);

}  // namespace gds::ui
