#include "ui/tensor_stats.h"

#include <algorithm>
#include <cmath>

namespace gds::ui {

TensorStats computeTensorStats(const model::HostTensor& tensor, int bins) {
  TensorStats s;
  if (tensor.dtype == tensorflow::DT_STRING || model::dtypeSize(tensor.dtype) == 0) return s;
  const std::int64_t n = tensor.size();
  if (n <= 0) return s;
  s.count = n;
  // Welford's update keeps the variance accurate for large tensors.
  double mean = 0, m2 = 0;
  std::int64_t finite = 0;
  bool first = true;
  for (std::int64_t i = 0; i < n; ++i) {
    double v = tensor.valueAt(i);
    if (!std::isfinite(v)) {
      ++s.non_finite;
      continue;
    }
    if (v == 0) ++s.zeros;
    if (first) {
      s.min = s.max = v;
      first = false;
    } else {
      s.min = std::min(s.min, v);
      s.max = std::max(s.max, v);
    }
    ++finite;
    double d = v - mean;
    mean += d / static_cast<double>(finite);
    m2 += d * (v - mean);
  }
  s.mean = mean;
  s.stddev = finite ? std::sqrt(m2 / static_cast<double>(finite)) : 0.0;
  if (bins <= 0 || finite == 0) return s;
  s.histogram.assign(static_cast<std::size_t>(bins), 0);
  const double width = (s.max - s.min) / bins;
  for (std::int64_t i = 0; i < n; ++i) {
    double v = tensor.valueAt(i);
    if (!std::isfinite(v)) continue;
    int b = width > 0 ? static_cast<int>((v - s.min) / width) : 0;
    b = std::clamp(b, 0, bins - 1);
    ++s.histogram[static_cast<std::size_t>(b)];
  }
  return s;
}

}  // namespace gds::ui
