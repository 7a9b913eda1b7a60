// Reductions, ArgMax/ArgMin, Softmax and BatchMatMul: exact values and the
// optimized path against the reference loops.
#include <random>

#include "tests/engine/core_test_util.h"

namespace gds::engine {
namespace {

using namespace coretest;

Tensor iota(Shape s) {
  Tensor t(tensorflow::DT_FLOAT, s);
  for (std::int64_t i = 0; i < t.numElements(); ++i) t.data<float>()[i] = static_cast<float>(i);
  return t;
}

const char* kKeep = "attr { key: 'keep_dims' value { b: true } } attr { key: 'Tidx' value { type: DT_INT32 } }";
const char* kDrop = "attr { key: 'keep_dims' value { b: false } } attr { key: 'Tidx' value { type: DT_INT32 } }";

TEST(OpsReduction, SumMeanMaxMinProdOverAxes) {
  Tensor x = iota({2, 3});
  Tensor s = runBoth("Sum", {x, I({1}, {1})}, kDrop);
  EXPECT_EQ(s.shape(), (Shape{2}));
  EXPECT_EQ(values<float>(s), (std::vector<float>{3, 12}));
  Tensor m = runBoth("Mean", {x, I({1}, {0})}, kKeep);
  EXPECT_EQ(m.shape(), (Shape{1, 3}));
  EXPECT_EQ(values<float>(m), (std::vector<float>{1.5f, 2.5f, 3.5f}));
  Tensor mx = runBoth("Max", {x, I({2}, {0, -1})}, kDrop);
  EXPECT_EQ(mx.shape(), (Shape{}));
  EXPECT_EQ(mx.data<float>()[0], 5);
  EXPECT_EQ(values<float>(runBoth("Min", {x, I({}, {-1})}, kDrop)), (std::vector<float>{0, 3}));
  EXPECT_EQ(values<float>(runBoth("Prod", {F({2, 2}, {1, 2, 3, 4}), I({}, {0})}, kDrop)), (std::vector<float>{3, 8}));
  // Mean over H and W of NHWC, the global average pool of many graphs.
  Tensor hw = runBoth("Mean", {iota({1, 2, 2, 3}), I({2}, {1, 2})}, kKeep);
  EXPECT_EQ(hw.shape(), (Shape{1, 1, 1, 3}));
  EXPECT_EQ(values<float>(hw), (std::vector<float>{4.5f, 5.5f, 6.5f}));
  // Non-contiguous axes go through the general path.
  Tensor nc = runBoth("Sum", {iota({2, 3, 2}), I({2}, {0, 2})}, kDrop);
  EXPECT_EQ(values<float>(nc), (std::vector<float>{0 + 1 + 6 + 7, 2 + 3 + 8 + 9, 4 + 5 + 10 + 11}));
  EXPECT_EQ(values<std::int32_t>(runBoth("Sum", {I({3}, {1, 2, 3}), I({}, {0})}, kDrop)), (std::vector<std::int32_t>{6}));
  OpRun bad = runOp("Sum", {x, I({1}, {2})}, kDrop);
  EXPECT_EQ(bad.status.message(), "node 'op' (Sum): reduction axis 2 is out of range for input shape [2,3]");
}

TEST(OpsReduction, AllAnyArgMaxArgMin) {
  Tensor b = B({2, 2}, {true, false, true, true});
  EXPECT_EQ(values<bool>(runBoth("All", {b, I({}, {1})}, kDrop)), (std::vector<bool>{false, true}));
  EXPECT_EQ(values<bool>(runBoth("Any", {b, I({}, {0})}, kDrop)), (std::vector<bool>{true, true}));
  Tensor x = F({2, 3}, {1, 9, 9, 7, 2, 0});
  OpRun am = runOp("ArgMax", {x, I({}, {1})});
  ASSERT_TRUE(am.status.ok()) << am.status.message();
  EXPECT_EQ(am.outputs[0].dtype(), tensorflow::DT_INT64);
  EXPECT_EQ(values<std::int64_t>(am.outputs[0]), (std::vector<std::int64_t>{1, 0}));  // first of ties
  OpRun an = runOp("ArgMin", {x, I({}, {-2})}, "attr { key: 'output_type' value { type: DT_INT32 } }");
  ASSERT_TRUE(an.status.ok());
  EXPECT_EQ(values<std::int32_t>(an.outputs[0]), (std::vector<std::int32_t>{0, 1, 1}));
}

TEST(OpsReduction, SoftmaxAndLogSoftmax) {
  Tensor s = runBoth("Softmax", {F({2, 3}, {1, 2, 3, 0, 0, 0})});
  const double e = std::exp(1.0), z = 1 + e + e * e;
  EXPECT_NEAR(s.data<float>()[0], 1 / z, 1e-7);
  EXPECT_NEAR(s.data<float>()[2], e * e / z, 1e-7);
  EXPECT_NEAR(s.data<float>()[4], 1.0 / 3, 1e-7);
  Tensor l = runBoth("LogSoftmax", {F({3}, {1, 2, 3})});
  EXPECT_NEAR(l.data<float>()[0], -std::log(z), 1e-6);
}

TEST(OpsReduction, BatchMatMulBroadcastsBatches) {
  Tensor a = iota({2, 2, 3}), b = iota({1, 3, 2});
  Tensor c = runBoth("BatchMatMulV2", {a, b});
  EXPECT_EQ(c.shape(), (Shape{2, 2, 2}));
  // a[0] = [[0,1,2],[3,4,5]], b = [[0,1],[2,3],[4,5]]
  EXPECT_EQ(values<float>(c)[0], 10);
  EXPECT_EQ(values<float>(c)[3], 3 * 1 + 4 * 3 + 5 * 5);
  Tensor t = runBoth("BatchMatMul", {iota({1, 3, 2}), iota({1, 3, 2})}, "attr { key: 'adj_x' value { b: true } }");
  EXPECT_EQ(t.shape(), (Shape{1, 2, 2}));
  EXPECT_EQ(values<float>(t)[0], 0 * 0 + 2 * 2 + 4 * 4);
}

TEST(OpsReduction, OptimizedMatchesReferenceOnRandomInputs) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-2, 2);
  Tensor x(tensorflow::DT_FLOAT, {3, 17, 9, 5});
  for (std::int64_t i = 0; i < x.numElements(); ++i) x.data<float>()[i] = u(rng);
  for (const char* op : {"Sum", "Mean", "Max", "Min"})
    for (auto axes : {I({1}, {3}), I({2}, {1, 2}), I({1}, {0}), I({3}, {0, 1, 2}), I({2}, {1, 3})}) {
      SCOPED_TRACE(op);
      runBoth(op, {x, axes}, kKeep);
    }
  runBoth("Softmax", {x});
}

}  // namespace
}  // namespace gds::engine
