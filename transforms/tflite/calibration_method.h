// How calibration turns what the representative inputs showed into a range
// per tensor: TensorFlow's calibration methods (the MLIR quantizer's
// CalibrationOptions, tensorflow/compiler/mlir/quantization), computed as
// TensorFlow computes them.
//
// - min_max: the smallest minimum and the largest maximum over all samples
//   (TFLite's calibrator; the default).
// - average_min_max: the mean of the samples' minimums and of their maximums.
// - histogram_percentile: the min_percentile-th and max_percentile-th
//   percentiles of the values (0.001 and 99.999 by default).
// - histogram_mse_bruteforce, histogram_mse_max_frequency,
//   histogram_mse_symmetric: the range whose 8-bit quantization of the
//   histogram's bin centres has the least weighted squared error, over every
//   pair of centres, or expanding from the fullest bin or from the middle.
//
// The histogram is TensorFlow's: each sample's values fall in num_bins bins
// of a power-of-two width over the sample's range; samples are merged into
// the first sample's bins (wider bins spread in proportion), the histogram
// growing to either side as needed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/status.h"

namespace gds::transforms::tflite {

// The range of one tensor: observed, or chosen by a calibration method.
struct TensorRange {
  float min = 0, max = 0;
};

enum class CalibrationMethod {
  MinMax,
  AverageMinMax,
  HistogramPercentile,
  HistogramMseBruteforce,
  HistogramMseMaxFrequency,
  HistogramMseSymmetric,
};

struct CalibrationOptions {
  CalibrationMethod method = CalibrationMethod::MinMax;
  int num_bins = 512;  // per sample (TensorFlow's default)
  double min_percentile = 0.001, max_percentile = 99.999;  // histogram_percentile, in [0, 100]
};

// "min_max", "average_min_max", "histogram_percentile", ...; TensorFlow's
// enum names (CALIBRATION_METHOD_HISTOGRAM_PERCENTILE) are taken too. Errors
// list the choices.
Result<CalibrationMethod> parseCalibrationMethod(const std::string& text);
const char* calibrationMethodName(CalibrationMethod method);
std::vector<std::string> calibrationMethodNames();
// The options' own errors (bins, percentiles), naming the flag.
Status checkCalibrationOptions(const CalibrationOptions& options);

// What the calibration samples showed of one tensor.
class TensorStatistics {
 public:
  explicit TensorStatistics(int num_bins = 512) : num_bins_(num_bins) {}

  // One sample's values of the tensor (finite).
  void add(const float* values, std::int64_t count);

  int samples() const { return samples_; }
  TensorRange observed() const { return {min_, max_}; }
  // The histogram: bin i holds the values in [lowerBound() + i * binWidth(),
  // lowerBound() + (i + 1) * binWidth()); trailing empty bins are dropped.
  // Empty when every sample held a single value.
  float lowerBound() const { return lower_bound_; }
  float binWidth() const { return bin_width_; }
  std::vector<float> histogram() const;

  // The range `options.method` takes from these statistics. A histogram
  // method on a tensor whose histogram has fewer than two bins takes the
  // observed range.
  TensorRange range(const CalibrationOptions& options) const;
  // The share of the values outside `range`, from the histogram: a bin's
  // values counted at its centre, as TensorFlow's histogram methods take
  // them, held within the observed range (the observed range clips
  // nothing).
  double clippedShare(const TensorRange& range) const;

 private:
  void merge(float min, float max, const std::vector<std::int64_t>& sample_hist);
  void fitSpan(float lower, float upper);
  std::size_t holdBin(std::int64_t idx);

  int num_bins_;
  int samples_ = 0;
  float min_ = 0, max_ = 0;
  float min_sum_ = 0, max_sum_ = 0;  // float, as TensorFlow's collector sums them
  float lower_bound_ = 0, bin_width_ = 0;
  // Merged frequencies, float as TensorFlow keeps them (a wider bin spreads
  // fractions).
  std::vector<float> hist_;
  // Samples of a single value seen before the histogram had bins.
  std::vector<std::pair<float, std::int64_t>> pending_;
};

}  // namespace gds::transforms::tflite
