// engine::compare metrics on hand-made tensors.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/compare.h"
#include "tests/engine/quant_test_util.h"

namespace gds::engine {
namespace {

using qtest::makeTensor;

TEST(QuantCompare, TensorMetrics) {
  const Tensor a = makeTensor<float>(tensorflow::DT_FLOAT, {4}, {1, 2, 3, 4});
  const Tensor b = makeTensor<float>(tensorflow::DT_FLOAT, {4}, {1, 2, 3, 5});
  auto s = compareTensors("x", a, b, 0.5);
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(4, s->count);
  EXPECT_DOUBLE_EQ(1.0, s->max_abs);
  EXPECT_DOUBLE_EQ(0.25, s->mean_abs);
  EXPECT_DOUBLE_EQ(0.5, s->rmse);
  EXPECT_NEAR(10.0 * std::log10(30.0), s->sqnr_db, 1e-9);
  EXPECT_NEAR((1 + 4 + 9 + 20) / (std::sqrt(30.0) * std::sqrt(39.0)), s->cosine, 1e-12);
  EXPECT_DOUBLE_EQ(1.0, s->rmse_over_step);
  auto same = compareTensors("x", a, a);
  ASSERT_TRUE(same.ok());
  EXPECT_TRUE(std::isinf(same->sqnr_db));
  EXPECT_DOUBLE_EQ(1.0, same->cosine);
  auto bad = compareTensors("y", a, makeTensor<float>(tensorflow::DT_FLOAT, {2, 2}, {1, 2, 3, 4}));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ("'y': shapes differ: [4] vs [2,2]", bad.error());
}

}  // namespace
}  // namespace gds::engine
