// Tensor values printed as NumPy prints them (inspect_checkpoint's output).
// The expected strings are str(ndarray) from NumPy 1.24 for the same values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "app/numpy_print.h"

namespace gds::app {
namespace {

model::HostTensor f32(const model::Shape& shape, const std::vector<float>& v) {
  model::HostTensor t = model::HostTensor::zeros(tensorflow::DT_FLOAT, shape);
  std::copy(v.begin(), v.end(), t.as<float>());
  return t;
}

std::string print(const model::HostTensor& t, const std::vector<std::string>& options = {}) {
  NumpyPrintOptions o;
  for (const auto& kv : options) EXPECT_TRUE(setPrintOption(&o, kv).ok()) << kv;
  return numpyString(t, o);
}

std::vector<float> range(int n, float scale, float offset = 0) {
  std::vector<float> v;
  for (int i = 0; i < n; ++i) v.push_back((static_cast<float>(i) - offset) / scale);
  return v;
}

TEST(NumpyPrint, FloatVectorsLikeNumpy) {
  EXPECT_EQ(print(f32({2}, {0.1f, 0.25f})), "[0.1  0.25]");
  EXPECT_EQ(print(f32({2}, {1, 2})), "[1. 2.]");
  EXPECT_EQ(print(f32({2}, {1.5f, 2})), "[1.5 2. ]");
  EXPECT_EQ(print(f32({3}, {-0.5f, 2.25f, 100})), "[ -0.5    2.25 100.  ]");
  EXPECT_EQ(print(f32({2}, {1e-5f, 1})), "[1.e-05 1.e+00]");
  EXPECT_EQ(print(f32({2}, {1e9f, 1})), "[1.e+09 1.e+00]");
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(print(f32({4}, {std::nanf(""), 1.5f, inf, -inf})), "[ nan  1.5  inf -inf]");
  EXPECT_EQ(print(f32({2}, {std::nanf(""), inf})), "[nan inf]");
  EXPECT_EQ(print(f32({2}, {std::nanf(""), -inf})), "[ nan -inf]");
  EXPECT_EQ(print(f32({2}, {static_cast<float>(M_PI), static_cast<float>(M_E)}), {"precision=3"}), "[3.142 2.718]");
  EXPECT_EQ(print(f32({2}, {1e-6f, 1}), {"suppress=true"}), "[0.000001 1.      ]");
  model::HostTensor d = model::HostTensor::zeros(tensorflow::DT_DOUBLE, {2});
  d.as<double>()[0] = 0.1;
  d.as<double>()[1] = 1.0 / 3;
  EXPECT_EQ(print(d), "[0.1        0.33333333]");
}

TEST(NumpyPrint, ShapesWrappingAndSummaries) {
  EXPECT_EQ(print(f32({2, 3}, range(6, 7))), "[[0.         0.14285715 0.2857143 ]\n [0.42857143 0.5714286  0.71428573]]");
  EXPECT_EQ(print(f32({2, 2, 2}, range(8, 1))), "[[[0. 1.]\n  [2. 3.]]\n\n [[4. 5.]\n  [6. 7.]]]");
  EXPECT_EQ(print(f32({2000}, range(2000, 3))),
            "[0.0000000e+00 3.3333334e-01 6.6666669e-01 ... 6.6566669e+02 6.6600000e+02\n 6.6633331e+02]");
  EXPECT_EQ(print(f32({30}, range(30, 3, 15))),
            "[-5.         -4.6666665  -4.3333335  -4.         -3.6666667  -3.3333333\n"
            " -3.         -2.6666667  -2.3333333  -2.         -1.6666666  -1.3333334\n"
            " -1.         -0.6666667  -0.33333334  0.          0.33333334  0.6666667\n"
            "  1.          1.3333334   1.6666666   2.          2.3333333   2.6666667\n"
            "  3.          3.3333333   3.6666667   4.          4.3333335   4.6666665 ]");
  EXPECT_EQ(print(f32({40, 40}, range(1600, 1)), {"threshold=10", "edgeitems=2"}),
            "[[0.000e+00 1.000e+00 ... 3.800e+01 3.900e+01]\n [4.000e+01 4.100e+01 ... 7.800e+01 7.900e+01]\n ...\n"
            " [1.520e+03 1.521e+03 ... 1.558e+03 1.559e+03]\n [1.560e+03 1.561e+03 ... 1.598e+03 1.599e+03]]");
}

TEST(NumpyPrint, OtherDtypesAndScalars) {
  model::HostTensor i = model::HostTensor::zeros(tensorflow::DT_INT32, {3});
  i.as<std::int32_t>()[0] = 1;
  i.as<std::int32_t>()[1] = -20;
  i.as<std::int32_t>()[2] = 300;
  EXPECT_EQ(print(i), "[  1 -20 300]");
  model::HostTensor b = model::HostTensor::zeros(tensorflow::DT_BOOL, {2});
  b.data[0] = 1;
  EXPECT_EQ(print(b), "[ True False]");
  model::HostTensor s;
  s.dtype = tensorflow::DT_STRING;
  s.shape = {2};
  s.strings = {"ab", "c'd"};
  EXPECT_EQ(print(s), "[b'ab' b\"c'd\"]");
  EXPECT_EQ(print(f32({}, {2.0f})), "2.0");
  EXPECT_EQ(print(f32({}, {1e-5f})), "1e-05");
  model::HostTensor seven = model::HostTensor::zeros(tensorflow::DT_INT32, {});
  seven.as<std::int32_t>()[0] = 7;
  EXPECT_EQ(print(seven), "7");
}

TEST(NumpyPrint, Options) {
  NumpyPrintOptions o;
  EXPECT_EQ(setPrintOption(&o, "colour=red").message(), "'colour' is not a valid printoption.");
  EXPECT_EQ(setPrintOption(&o, "threshold").message(), "'threshold' is not in the form k=v.");
  EXPECT_EQ(setPrintOption(&o, "formatter=x").message(), "Setting 'formatter' from the command line is not supported.");
  EXPECT_EQ(setPrintOption(&o, "precision=many").message(),
            "printoption 'precision' expects an integer from 0 to 17, got 'many'");
  EXPECT_TRUE(setPrintOption(&o, "threshold=100000").ok());
  EXPECT_EQ(o.threshold, 100000);
}

}  // namespace
}  // namespace gds::app
