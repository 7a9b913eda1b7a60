// TensorFlow's calibration methods: each range as TensorFlow's quantizer
// computes it (calibration_algorithm.py, on TensorFlow's own test histogram
// and on a skewed one, the expected values worked by that code), the
// histogram TensorFlow's collector builds from samples of different
// ranges, and what becomes of tensors that hold one value or ranges far
// apart.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "transforms/tflite/calibration_method.h"

namespace gds::transforms::tflite {
namespace {

// One sample whose value i + 0.5 appears freq[i] times: its histogram is
// freq, bins of width 1 from 0 (the first sample's range over 512 bins
// rounds the width up to a power of two: 1 for ranges of 257 to 512).
TensorStatistics statisticsOf(const std::vector<int>& freq) {
  std::vector<float> values;
  for (std::size_t i = 0; i < freq.size(); ++i) values.insert(values.end(), freq[i], static_cast<float>(i) + 0.5f);
  TensorStatistics s;
  s.add(values.data(), static_cast<std::int64_t>(values.size()));
  return s;
}

TensorRange rangeBy(const TensorStatistics& s, CalibrationMethod m, double lo = 0.001, double hi = 99.999) {
  CalibrationOptions o;
  o.method = m;
  o.min_percentile = lo;
  o.max_percentile = hi;
  return s.range(o);
}

// calibration_algorithm_test.py's histogram: 501 bins, an outlier at each
// end, the mass around the centre.
std::vector<int> tensorflowTestHistogram() {
  std::vector<int> h(501, 0);
  h[0] = h[500] = 1;
  h[250] = 1000;
  for (int i = 1; i <= 200; ++i) h[250 - i] = h[250 + i] = 1000 - i;
  return h;
}

TEST(TfliteCalibrationMethod, HistogramMethodsDropTensorFlowsTestOutliersAsTensorFlowDoes) {
  const TensorStatistics s = statisticsOf(tensorflowTestHistogram());
  ASSERT_EQ(s.histogram().size(), 501u);
  EXPECT_EQ(s.lowerBound(), 0.f);
  EXPECT_EQ(s.binWidth(), 1.f);
  EXPECT_EQ(s.observed().min, 0.5f);
  EXPECT_EQ(s.observed().max, 500.5f);
  // TensorFlow's test asks for [49, 51] and [449, 451]; its code gives these.
  const struct {
    CalibrationMethod method;
    float min, max;
  } want[] = {
      {CalibrationMethod::HistogramPercentile, 50.5f, 450.5f},
      {CalibrationMethod::HistogramMseMaxFrequency, 50.5f, 450.5f},
      {CalibrationMethod::HistogramMseSymmetric, 50.5f, 450.5f},
      {CalibrationMethod::HistogramMseBruteforce, 49.5f, 449.5f},
      {CalibrationMethod::MinMax, 0.5f, 500.5f},
      {CalibrationMethod::AverageMinMax, 0.5f, 500.5f},
  };
  for (const auto& w : want) {
    const TensorRange r = rangeBy(s, w.method);
    EXPECT_EQ(r.min, w.min) << calibrationMethodName(w.method);
    EXPECT_EQ(r.max, w.max) << calibrationMethodName(w.method);
  }
  // Outside [50.5, 450.5], counting each bin at its centre: the two
  // outliers (the centre's bins 50 to 450 hold the rest).
  const std::vector<float> hist = s.histogram();
  const double total = std::accumulate(hist.begin(), hist.end(), 0.0);
  double outside = 0;
  for (std::size_t i = 0; i < hist.size(); ++i)
    if (i + 0.5 < 50.5 || i + 0.5 > 450.5) outside += hist[i];
  EXPECT_DOUBLE_EQ(s.clippedShare({50.5f, 450.5f}), outside / total);
  EXPECT_DOUBLE_EQ(outside, 2.0);  // the two outliers
  EXPECT_EQ(s.clippedShare(s.observed()), 0.0);
}

// A ReLU6 output: a fifth of the values saturated at 6, which fall in the
// bin that starts at 6. The observed range clips none of them; a range that
// stops short of 6 clips exactly them.
TEST(TfliteCalibrationMethod, ValuesAtTheTopOfTheRangeAreNotClipped) {
  std::vector<float> values;
  for (int i = 0; i < 800; ++i) values.push_back(6.0f * static_cast<float>(i) / 800.0f);
  values.insert(values.end(), 200, 6.0f);
  TensorStatistics s;
  s.add(values.data(), static_cast<std::int64_t>(values.size()));
  EXPECT_EQ(s.observed().max, 6.0f);
  EXPECT_EQ(s.clippedShare(s.observed()), 0.0);
  EXPECT_EQ(s.clippedShare({0.0f, 6.0f}), 0.0);
  EXPECT_DOUBLE_EQ(s.clippedShare({0.0f, 5.995f}), 0.2);
}

TEST(TfliteCalibrationMethod, SkewedHistogramEachMethodAsTensorFlowComputesIt) {
  // A ReLU-like decay with three outliers at the far end.
  std::vector<int> h(300);
  for (int i = 0; i < 300; ++i) h[i] = static_cast<int>(1000 * std::exp(-i / 40.0));
  h[299] = 3;
  const TensorStatistics s = statisticsOf(h);
  const struct {
    CalibrationMethod method;
    double lo, hi;
    float min, max;
  } want[] = {
      {CalibrationMethod::HistogramPercentile, 0.001, 99.999, 0.5f, 299.5f},
      {CalibrationMethod::HistogramPercentile, 1, 99, 0.5f, 176.5f},
      {CalibrationMethod::HistogramMseMaxFrequency, 0.001, 99.999, 0.5f, 295.5f},
      {CalibrationMethod::HistogramMseSymmetric, 0.001, 99.999, 0.5f, 299.5f},
      {CalibrationMethod::HistogramMseBruteforce, 0.001, 99.999, 0.5f, 295.5f},
  };
  for (const auto& w : want) {
    const TensorRange r = rangeBy(s, w.method, w.lo, w.hi);
    EXPECT_EQ(r.min, w.min) << calibrationMethodName(w.method) << " " << w.lo << " " << w.hi;
    EXPECT_EQ(r.max, w.max) << calibrationMethodName(w.method) << " " << w.lo << " " << w.hi;
  }
}

TEST(TfliteCalibrationMethod, SamplesMergeIntoTheFirstSamplesBinsAsTensorFlowsCollectorDoes) {
  TensorStatistics s;
  // [0, 1): 512 values, bins of 2^-9, one value each.
  std::vector<float> a(512);
  for (int i = 0; i < 512; ++i) a[i] = (i + 0.5f) / 512;
  s.add(a.data(), 512);
  EXPECT_EQ(s.binWidth(), 1.f / 512);
  EXPECT_EQ(s.lowerBound(), 0.f);
  // [-2, 2): bins of 2^-7 in its own histogram, each spread evenly over the
  // four finer bins it covers; the histogram grows to the left.
  std::vector<float> b = {-2.f, -1.99f, 1.99f};
  s.add(b.data(), 3);
  EXPECT_EQ(s.lowerBound(), -2.f);
  const std::vector<float> hist = s.histogram();
  EXPECT_FLOAT_EQ(std::accumulate(hist.begin(), hist.end(), 0.f), 515.f);
  // -2's coarse bin [-2, -1.9921875) spread over four fine bins, then
  // -1.99's.
  EXPECT_FLOAT_EQ(hist[0], 0.25f);
  EXPECT_FLOAT_EQ(hist[3], 0.25f);
  EXPECT_FLOAT_EQ(hist[4], 0.25f);
  EXPECT_FLOAT_EQ(hist[8], 0.f);
  EXPECT_FLOAT_EQ(hist[1024], 1.f);  // the first sample's value in [0, 2^-9)
  EXPECT_FLOAT_EQ(hist.back(), 0.25f);  // 1.99's bin [1.984375, 1.9921875), its last quarter
  EXPECT_EQ(s.observed().min, -2.f);
  EXPECT_EQ(s.observed().max, 1.99f);
  // The means of the samples' minimums and maximums.
  const TensorRange avg = rangeBy(s, CalibrationMethod::AverageMinMax);
  EXPECT_FLOAT_EQ(avg.min, (a.front() + -2.f) / 2);
  EXPECT_FLOAT_EQ(avg.max, (a.back() + 1.99f) / 2);
}

TEST(TfliteCalibrationMethod, OneValueTensorsAndFarApartSamplesStayBounded) {
  // A tensor that holds one value in every sample (a ReLU that never
  // fires): no histogram, every method takes the observed range.
  TensorStatistics zeros;
  const std::vector<float> z(100, 0.f);
  zeros.add(z.data(), 100);
  zeros.add(z.data(), 100);
  EXPECT_TRUE(zeros.histogram().empty());
  for (const std::string& name : calibrationMethodNames()) {
    const TensorRange r = rangeBy(zeros, *parseCalibrationMethod(name));
    EXPECT_EQ(r.min, 0.f) << name;
    EXPECT_EQ(r.max, 0.f) << name;
  }
  EXPECT_EQ(zeros.clippedShare({0.f, 0.f}), 0.0);
  EXPECT_EQ(zeros.clippedShare({1.f, 2.f}), 1.0);

  // A first sample a millionth wide, then one two million wide: TensorFlow's
  // collector would keep the first width and need 2^41 bins; the bins widen
  // instead and no value is lost. A one-value sample joins as a point.
  TensorStatistics far;
  const std::vector<float> narrow = {0.f, 1e-6f};
  far.add(narrow.data(), 2);
  const std::vector<float> wide = {-1e6f, 0.5f, 1e6f};
  far.add(wide.data(), 3);
  const std::vector<float> one(4, 3.f);
  far.add(one.data(), 4);
  const std::vector<float> hist = far.histogram();
  EXPECT_LE(hist.size(), 65536u + 2);
  EXPECT_FLOAT_EQ(std::accumulate(hist.begin(), hist.end(), 0.f), 9.f);
  EXPECT_EQ(far.observed().min, -1e6f);
  EXPECT_EQ(far.observed().max, 1e6f);
  EXPECT_EQ(far.samples(), 3);
}

TEST(TfliteCalibrationMethod, NamesAndBadOptionsAreErrorsThatListTheChoices) {
  EXPECT_EQ(*parseCalibrationMethod("histogram_percentile"), CalibrationMethod::HistogramPercentile);
  EXPECT_EQ(*parseCalibrationMethod("CALIBRATION_METHOD_HISTOGRAM_MSE_SYMMETRIC"),
            CalibrationMethod::HistogramMseSymmetric);
  EXPECT_EQ(*parseCalibrationMethod(""), CalibrationMethod::MinMax);
  auto bad = parseCalibrationMethod("entropy");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(),
            "'entropy' is not a calibration method (expected min_max, average_min_max, histogram_percentile, "
            "histogram_mse_bruteforce, histogram_mse_max_frequency, histogram_mse_symmetric)");
  CalibrationOptions o;
  o.num_bins = 1;
  EXPECT_EQ(checkCalibrationOptions(o).message(), "--calibration_num_bins must be from 2 to 65536, got 1");
  o.num_bins = 512;
  o.min_percentile = 99;
  o.max_percentile = 1;
  EXPECT_FALSE(checkCalibrationOptions(o).ok());
  o.min_percentile = 0;
  o.max_percentile = 100;
  EXPECT_TRUE(checkCalibrationOptions(o).ok());
}

}  // namespace
}  // namespace gds::transforms::tflite
