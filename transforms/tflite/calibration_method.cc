#include "transforms/tflite/calibration_method.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

namespace gds::transforms::tflite {

namespace {

struct MethodName {
  CalibrationMethod method;
  const char* name;
};
constexpr MethodName kMethods[] = {
    {CalibrationMethod::MinMax, "min_max"},
    {CalibrationMethod::AverageMinMax, "average_min_max"},
    {CalibrationMethod::HistogramPercentile, "histogram_percentile"},
    {CalibrationMethod::HistogramMseBruteforce, "histogram_mse_bruteforce"},
    {CalibrationMethod::HistogramMseMaxFrequency, "histogram_mse_max_frequency"},
    {CalibrationMethod::HistogramMseSymmetric, "histogram_mse_symmetric"},
};

// TensorFlow's calibration_parameters.h: a power-of-two bin width, a lower
// bound on a multiple of it, the bin of a value.
float binWidthFor(float min, float max, std::int64_t bins) {
  const float raw = (max - min) / static_cast<float>(bins);
  return static_cast<float>(std::pow(2.0f, std::ceil(std::log2(raw))));
}
float lowerBoundFor(float min, float bin_width) { return std::floor(min / bin_width) * bin_width; }
std::int64_t binIndex(float value, float lower_bound, float bin_width) {
  return static_cast<std::int64_t>(std::floor((value - lower_bound) / bin_width));
}

// The frequencies of [start, end) in a histogram of `bin_width` from
// `lower_bound` (TensorFlow's GetRangeFrequencies: a bin the range covers in
// part counts in proportion; float, as TensorFlow sums).
float rangeFrequencies(const std::vector<std::int64_t>& hist, float bin_width, float lower_bound, float start,
                       float end) {
  float sum = 0.f;
  for (float r = std::max(start, lower_bound); r < end; r += bin_width) {
    const std::int64_t idx = binIndex(r, lower_bound, bin_width);
    if (idx >= static_cast<std::int64_t>(hist.size())) break;
    const float proportion = std::min(end - r, bin_width) / bin_width;
    sum += static_cast<float>(hist[static_cast<std::size_t>(idx)]) * proportion;
  }
  return sum;
}

// The histogram methods (TensorFlow's calibration_algorithm.py), in double
// as numpy computes them.
class HistogramAlgorithms {
 public:
  HistogramAlgorithms(float lower_bound, float bin_width, std::vector<float> freq)
      : freq_(freq.begin(), freq.end()), mids_(freq.size()) {
    // np.linspace(first_mid, last_mid, n): start + i * step, the last exact.
    const double first = static_cast<double>(lower_bound) + static_cast<double>(bin_width) / 2;
    const double last = first + static_cast<double>(freq.size() - 1) * static_cast<double>(bin_width);
    const std::size_t n = mids_.size();
    const double step = n > 1 ? (last - first) / static_cast<double>(n - 1) : 0.0;
    for (std::size_t i = 0; i < n; ++i) mids_[i] = static_cast<double>(i) * step + first;
    if (n > 1) mids_[n - 1] = last;
    // Empty bins add nothing to an error: skipped.
    for (std::size_t i = 0; i < n; ++i)
      if (freq_[i] != 0) occupied_.push_back(i);
  }

  TensorRange percentile(double min_percentile, double max_percentile) const {
    double total = 0;
    for (double f : freq_) total += f;
    std::vector<double> cumsum(freq_.size());
    double running = 0;
    for (std::size_t i = 0; i < freq_.size(); ++i) {
      running += freq_[i];
      cumsum[i] = running / total;
    }
    const double lo_q = min_percentile / 100.0, hi_q = max_percentile / 100.0;
    // searchsorted side='right' and side='left'.
    std::size_t lo = static_cast<std::size_t>(std::upper_bound(cumsum.begin(), cumsum.end(), lo_q) - cumsum.begin());
    std::size_t hi = static_cast<std::size_t>(std::lower_bound(cumsum.begin(), cumsum.end(), hi_q) - cumsum.begin());
    lo = std::min(lo, mids_.size() - 1);
    hi = std::min(hi, mids_.size() - 1);
    return {static_cast<float>(mids_[lo]), static_cast<float>(mids_[hi])};
  }

  TensorRange mseBruteforce() const {
    Best best;
    for (std::size_t left = 0; left < mids_.size(); ++left)
      for (std::size_t right = left + 1; right < mids_.size(); ++right) consider(left, right, &best);
    return best.range();
  }

  // From `start`, one bin to the left, then one to the right, alternately
  // (to the side that can still move), down to the whole histogram.
  TensorRange mseExpanding(std::size_t start) const {
    Best best;
    std::size_t left = start, right = start;
    const std::size_t last = mids_.size() - 1;
    bool move_left = true;
    while (!(left == 0 && right == last)) {
      if ((move_left && left > 0) || right == last) left = left > 0 ? left - 1 : 0;
      else right = std::min(right + 1, last);
      move_left = !move_left;
      consider(left, right, &best);
    }
    return best.range();
  }

  std::size_t fullestBin() const {
    return static_cast<std::size_t>(std::max_element(freq_.begin(), freq_.end()) - freq_.begin());
  }
  std::size_t bins() const { return mids_.size(); }

 private:
  // (error, min, max), the least by Python's tuple order.
  struct Best {
    double error = std::numeric_limits<double>::infinity();
    double min = std::numeric_limits<double>::infinity(), max = std::numeric_limits<double>::infinity();
    TensorRange range() const { return {static_cast<float>(min), static_cast<float>(max)}; }
  };

  void consider(std::size_t left, std::size_t right, Best* best) const {
    const double lo = mids_[left], hi = mids_[right];
    const double error = weightedSquaredError(lo, hi);
    if (std::tie(error, lo, hi) <= std::tie(best->error, best->min, best->max)) *best = {error, lo, hi};
  }

  // The bin centres quantized to 8 bits over [lo, hi] and back, against
  // themselves, weighted by the bins' frequencies.
  double weightedSquaredError(double lo, double hi) const {
    constexpr double kMaxBound = 255, kMinBound = 0;
    double scale = (hi - lo) / kMaxBound;
    double zero_point = -lo / scale;
    if (std::abs(zero_point) > 9e9) zero_point = 9e9;
    if (std::abs(scale) < 1e-9) scale = 1e-9;
    zero_point = std::nearbyint(zero_point);  // Python's round: halves to even
    double error = 0;
    for (std::size_t i : occupied_) {
      const double q = std::clamp(std::nearbyint(mids_[i] / scale) + zero_point, kMinBound, kMaxBound);
      const double d = mids_[i] - scale * (q - zero_point);
      error += d * d * freq_[i];
    }
    return error;
  }

  std::vector<double> freq_, mids_;
  std::vector<std::size_t> occupied_;
};

}  // namespace

Result<CalibrationMethod> parseCalibrationMethod(const std::string& text) {
  std::string name;
  for (char c : text) name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string prefix = "calibration_method_";
  if (name.rfind(prefix, 0) == 0) name = name.substr(prefix.size());
  if (name.empty()) return CalibrationMethod::MinMax;
  for (const MethodName& m : kMethods)
    if (name == m.name) return m.method;
  std::string choices;
  for (const MethodName& m : kMethods) choices += std::string(choices.empty() ? "" : ", ") + m.name;
  return Status::Error("'" + text + "' is not a calibration method (expected " + choices + ")");
}

const char* calibrationMethodName(CalibrationMethod method) {
  for (const MethodName& m : kMethods)
    if (m.method == method) return m.name;
  return "?";
}

std::vector<std::string> calibrationMethodNames() {
  std::vector<std::string> out;
  for (const MethodName& m : kMethods) out.emplace_back(m.name);
  return out;
}

Status checkCalibrationOptions(const CalibrationOptions& options) {
  if (options.num_bins < 2 || options.num_bins > 65536)
    return Status::Error("--calibration_num_bins must be from 2 to 65536, got " + std::to_string(options.num_bins));
  const auto in_range = [](double p) { return std::isfinite(p) && p >= 0 && p <= 100; };
  if (!in_range(options.min_percentile) || !in_range(options.max_percentile) ||
      options.min_percentile >= options.max_percentile)
    return Status::Error("--calibration_min_percentile and --calibration_max_percentile must be percentiles (0 to "
                         "100), the minimum's below the maximum's");
  return Status::Ok();
}

void TensorStatistics::add(const float* values, std::int64_t count) {
  if (count <= 0) return;
  const auto [lo_it, hi_it] = std::minmax_element(values, values + count);
  const float lo = *lo_it, hi = *hi_it;
  if (samples_ == 0) {
    min_ = lo;
    max_ = hi;
  } else {
    min_ = std::min(min_, lo);
    max_ = std::max(max_, hi);
  }
  min_sum_ += lo;
  max_sum_ += hi;
  ++samples_;
  const float width = hi > lo ? binWidthFor(lo, hi, num_bins_) : 0.f;
  if (!(width > 0) || !std::isfinite(width)) {
    // One value (or a range below float's resolution): a point mass, kept
    // until there are bins to put it in.
    pending_.emplace_back(lo, count);
  } else {
    // The sample's own histogram, as TensorFlow's CustomAggregator makes it.
    const float lower = lowerBoundFor(lo, width);
    std::vector<std::int64_t> sample(static_cast<std::size_t>(num_bins_), 0);
    for (std::int64_t i = 0; i < count; ++i)
      ++sample[static_cast<std::size_t>(std::clamp<std::int64_t>(binIndex(values[i], lower, width), 0, num_bins_ - 1))];
    merge(lo, hi, sample);
  }
  if (hist_.empty()) return;
  for (const auto& [value, n] : pending_) {
    fitSpan(value, value);
    hist_[holdBin(binIndex(value, lower_bound_, bin_width_))] += static_cast<float>(n);
  }
  pending_.clear();
}

// TensorFlow's CalibrationStatisticsCollectorHistogram::Collect.
void TensorStatistics::merge(float min, float max, const std::vector<std::int64_t>& sample_hist) {
  const float width = binWidthFor(min, max, static_cast<std::int64_t>(sample_hist.size()));
  const float lower = lowerBoundFor(min, width);
  const float upper = std::ceil(max / width) * width;
  if (hist_.empty()) {
    bin_width_ = width;
    lower_bound_ = lower;
  }
  fitSpan(lower, upper);
  // The left end first: growing to the left moves the lower bound.
  const std::size_t lower_idx = holdBin(binIndex(lower, lower_bound_, bin_width_));
  const std::size_t upper_idx = holdBin(binIndex(upper, lower_bound_, bin_width_));
  for (std::size_t idx = lower_idx; idx <= upper_idx; ++idx) {
    const float start = lower_bound_ + static_cast<float>(idx) * bin_width_;
    hist_[idx] += rangeFrequencies(sample_hist, width, lower, start, start + bin_width_);
  }
}

// Grows the histogram to hold bin `idx` (negative: left of the first);
// returns that bin's index afterwards (TensorFlow's ExpandHistogramIfNeeded).
std::size_t TensorStatistics::holdBin(std::int64_t idx) {
  if (idx < 0) {
    hist_.insert(hist_.begin(), static_cast<std::size_t>(-idx), 0.f);
    lower_bound_ -= bin_width_ * static_cast<float>(-idx);
    idx = 0;
  }
  if (idx >= static_cast<std::int64_t>(hist_.size())) hist_.resize(static_cast<std::size_t>(idx + 1), 0.f);
  return static_cast<std::size_t>(idx);
}

// Beyond TensorFlow: a later sample far wider than the first would need
// (upper - lower) / width bins; past kMaxBins the bins double in width
// (neighbours summed) until the span fits, instead of growing without bound.
void TensorStatistics::fitSpan(float lower, float upper) {
  constexpr double kMaxBins = 1 << 16;
  if (hist_.empty()) return;
  for (;;) {
    const double lo = std::min<double>(lower, lower_bound_);
    const double hi = std::max<double>(upper, lower_bound_ + static_cast<double>(hist_.size()) * bin_width_);
    if ((hi - lo) / bin_width_ <= kMaxBins) return;
    const float wide = bin_width_ * 2;
    if (lowerBoundFor(lower_bound_, wide) != lower_bound_) {
      hist_.insert(hist_.begin(), 0.f);
      lower_bound_ -= bin_width_;
    }
    std::vector<float> merged((hist_.size() + 1) / 2, 0.f);
    for (std::size_t i = 0; i < hist_.size(); ++i) merged[i / 2] += hist_[i];
    hist_ = std::move(merged);
    bin_width_ = wide;
  }
}

std::vector<float> TensorStatistics::histogram() const {
  std::size_t size = hist_.size();
  while (size > 0 && hist_[size - 1] == 0) --size;
  return std::vector<float>(hist_.begin(), hist_.begin() + static_cast<std::ptrdiff_t>(size));
}

TensorRange TensorStatistics::range(const CalibrationOptions& options) const {
  switch (options.method) {
    case CalibrationMethod::MinMax: return observed();
    case CalibrationMethod::AverageMinMax:
      if (samples_ == 0) return observed();
      return {static_cast<float>(static_cast<double>(min_sum_) / samples_),
              static_cast<float>(static_cast<double>(max_sum_) / samples_)};
    default: break;
  }
  const std::vector<float> hist = histogram();
  if (hist.size() < 2) return observed();
  const HistogramAlgorithms algorithms(lower_bound_, bin_width_, hist);
  switch (options.method) {
    case CalibrationMethod::HistogramPercentile:
      return algorithms.percentile(options.min_percentile, options.max_percentile);
    case CalibrationMethod::HistogramMseBruteforce: return algorithms.mseBruteforce();
    case CalibrationMethod::HistogramMseMaxFrequency: return algorithms.mseExpanding(algorithms.fullestBin());
    case CalibrationMethod::HistogramMseSymmetric: return algorithms.mseExpanding(algorithms.bins() / 2);
    default: return observed();
  }
}

double TensorStatistics::clippedShare(const TensorRange& range) const {
  if (hist_.empty()) {
    // Point masses only: the values are the sample minimums.
    std::int64_t total = 0, out = 0;
    for (const auto& [value, n] : pending_) {
      total += n;
      if (value < range.min || value > range.max) out += n;
    }
    return total > 0 ? static_cast<double>(out) / static_cast<double>(total) : 0.0;
  }
  double total = 0, clipped = 0;
  for (std::size_t i = 0; i < hist_.size(); ++i) {
    // The bin's centre, within the values seen: the last bin of a ReLU6
    // output starts at 6 and holds only 6s, which a range up to 6 keeps.
    const double mid = std::clamp(static_cast<double>(lower_bound_) + (static_cast<double>(i) + 0.5) * bin_width_,
                                  static_cast<double>(min_), static_cast<double>(max_));
    total += hist_[i];
    if (mid < range.min || mid > range.max) clipped += hist_[i];
  }
  return total > 0 ? clipped / total : 0.0;
}

}  // namespace gds::transforms::tflite
