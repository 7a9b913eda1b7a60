// Elementwise kernels: exact values, TensorFlow broadcasting, and the
// optimized path against the reference loops on the same inputs.
#include <cmath>
#include <random>

#include "tests/engine/core_test_util.h"

namespace gds::engine {
namespace {

using namespace coretest;

TEST(OpsElementwise, AddBroadcastsRowAndColumn) {
  Tensor out = runBoth("Add", {F({2, 3}, {1, 2, 3, 4, 5, 6}), F({2, 1}, {10, 20})});
  EXPECT_EQ(out.shape(), (Shape{2, 3}));
  EXPECT_EQ(values<float>(out), (std::vector<float>{11, 12, 13, 24, 25, 26}));
  out = runBoth("AddV2", {F({3}, {1, 2, 3}), F({2, 1}, {10, 20})});
  EXPECT_EQ(out.shape(), (Shape{2, 3}));
  EXPECT_EQ(values<float>(out), (std::vector<float>{11, 12, 13, 21, 22, 23}));
  out = runBoth("Sub", {F({}, {10}), F({2, 2}, {1, 2, 3, 4})});
  EXPECT_EQ(values<float>(out), (std::vector<float>{9, 8, 7, 6}));
}

TEST(OpsElementwise, BroadcastMiddleDimension) {
  // [2,1,3] * [1,2,1] -> [2,2,3]
  Tensor out = runBoth("Mul", {F({2, 1, 3}, {1, 2, 3, 4, 5, 6}), F({1, 2, 1}, {1, 10})});
  EXPECT_EQ(out.shape(), (Shape{2, 2, 3}));
  EXPECT_EQ(values<float>(out), (std::vector<float>{1, 2, 3, 10, 20, 30, 4, 5, 6, 40, 50, 60}));
}

TEST(OpsElementwise, IncompatibleShapesNameTheNode) {
  OpRun r = runOp("Add", {F({2, 3}, {1, 2, 3, 4, 5, 6}), F({4}, {1, 2, 3, 4})});
  ASSERT_FALSE(r.status.ok());
  EXPECT_EQ(r.status.message(), "node 'op' (Add): incompatible shapes for broadcasting: [2,3] and [4]");
}

TEST(OpsElementwise, InputCountFollowsTheOpsArgsAsTensorFlowsImporter) {
  // Kernels read the inputs their op declares: too few or too many is the
  // node's compile error (found by fuzzing: a kernel read past its inputs).
  OpRun few = runOp("Mean", {F({2}, {1, 2})});
  EXPECT_EQ(few.status.message(), "node 'op' (Mean): expects 2 inputs (input, reduction_indices), has 1");
  OpRun many = runOp("Add", {F({1}, {1}), F({1}, {2}), F({1}, {3})});
  EXPECT_EQ(many.status.message(), "node 'op' (Add): expects 2 inputs (x, y), has 3");
  OpRun none = runOp("AddN", {});
  EXPECT_FALSE(none.status.ok());
}

TEST(OpsElementwise, UnsupportedDtypeIsACompileErrorNamingTheNode) {
  OpRun r = runOp("Sqrt", {I({2}, {4, 9})});
  ASSERT_FALSE(r.status.ok());
  EXPECT_EQ(r.status.message(),
            "node 'op' (Sqrt): unsupported dtype int32 (float, double); convert the graph's inputs or remove the node");
  OpRun b = runOp("Add", {B({1}, {true}), B({1}, {false})});
  EXPECT_EQ(b.status.message(), "node 'op' (Add): unsupported dtype bool (float, double, int32, int64); convert the "
                                "graph's inputs or remove the node");
}

TEST(OpsElementwise, IntegerDivisionAndModuloFollowTensorFlow) {
  Tensor a = I({4}, {7, -7, 7, -7}), b = I({4}, {2, 2, -2, -2});
  EXPECT_EQ(values<std::int32_t>(runBoth("FloorDiv", {a, b})), (std::vector<std::int32_t>{3, -4, -4, 3}));
  EXPECT_EQ(values<std::int32_t>(runBoth("FloorMod", {a, b})), (std::vector<std::int32_t>{1, 1, -1, -1}));
  EXPECT_EQ(values<std::int32_t>(runBoth("Div", {a, b})), (std::vector<std::int32_t>{3, -3, -3, 3}));
  Tensor fm = runBoth("FloorMod", {F({2}, {-7.5f, 7.5f}), F({2}, {2, -2})});
  EXPECT_FLOAT_EQ(fm.data<float>()[0], 0.5f);
  EXPECT_FLOAT_EQ(fm.data<float>()[1], -0.5f);
  OpRun zero = runOp("FloorDiv", {I({1}, {1}), I({1}, {0})});
  EXPECT_EQ(zero.status.message(), "node 'op' (FloorDiv): integer division by zero");
}

TEST(OpsElementwise, IntegerOverflowWrapsAsTensorFlowDoes) {
  // Two's-complement wrap-around (computed unsigned: signed overflow is
  // undefined in C++ and min / -1 traps on x86).
  constexpr std::int32_t kMax = 2147483647, kMin = -2147483647 - 1;
  EXPECT_EQ(values<std::int32_t>(runBoth("Add", {I({2}, {kMax, kMin}), I({2}, {1, -1})})),
            (std::vector<std::int32_t>{kMin, kMax}));
  EXPECT_EQ(values<std::int32_t>(runBoth("Sub", {I({1}, {kMin}), I({1}, {1})})), (std::vector<std::int32_t>{kMax}));
  EXPECT_EQ(values<std::int32_t>(runBoth("Mul", {I({1}, {65536}), I({1}, {65536})})), (std::vector<std::int32_t>{0}));
  EXPECT_EQ(values<std::int32_t>(runBoth("Pow", {I({2}, {3, 2}), I({2}, {21, 31})})),
            (std::vector<std::int32_t>{1870418611, kMin}));  // 3^21 mod 2^32, 2^31
  EXPECT_EQ(values<std::int32_t>(runBoth("Div", {I({1}, {kMin}), I({1}, {-1})})), (std::vector<std::int32_t>{kMin}));
  EXPECT_EQ(values<std::int32_t>(runBoth("FloorDiv", {I({2}, {kMin, kMin}), I({2}, {-1, 3})})),
            (std::vector<std::int32_t>{kMin, -715827883}));
  EXPECT_EQ(values<std::int32_t>(runBoth("FloorMod", {I({2}, {kMin, kMin}), I({2}, {-1, 3})})),
            (std::vector<std::int32_t>{0, 1}));
  EXPECT_EQ(values<std::int32_t>(runBoth("SquaredDifference", {I({1}, {kMax}), I({1}, {-1})})),
            (std::vector<std::int32_t>{0}));  // (2^31)^2 mod 2^32
  EXPECT_EQ(values<std::int32_t>(runBoth("Neg", {I({1}, {kMin})})), (std::vector<std::int32_t>{kMin}));
  EXPECT_EQ(values<std::int32_t>(runBoth("Abs", {I({1}, {kMin})})), (std::vector<std::int32_t>{kMin}));
}

TEST(OpsElementwise, MaximumMinimumSquaredDifferencePow) {
  Tensor a = F({3}, {1, 5, -2}), b = F({3}, {3, 2, -1});
  EXPECT_EQ(values<float>(runBoth("Maximum", {a, b})), (std::vector<float>{3, 5, -1}));
  EXPECT_EQ(values<float>(runBoth("Minimum", {a, b})), (std::vector<float>{1, 2, -2}));
  EXPECT_EQ(values<float>(runBoth("SquaredDifference", {a, b})), (std::vector<float>{4, 9, 1}));
  EXPECT_EQ(values<float>(runBoth("Pow", {F({3}, {2, 3, 4}), F({}, {2})})), (std::vector<float>{4, 9, 16}));
  EXPECT_EQ(values<std::int32_t>(runBoth("Pow", {I({3}, {2, 3, -2}), I({}, {3})})),
            (std::vector<std::int32_t>{8, 27, -8}));
  EXPECT_EQ(values<float>(runBoth("RealDiv", {F({2}, {1, 3}), F({}, {2})})), (std::vector<float>{0.5f, 1.5f}));
}

TEST(OpsElementwise, UnaryMathAndActivations) {
  Tensor x = F({5}, {-7, -0.5f, 0, 0.5f, 8});
  EXPECT_EQ(values<float>(runBoth("Relu", {x})), (std::vector<float>{0, 0, 0, 0.5f, 8}));
  EXPECT_EQ(values<float>(runBoth("Relu6", {x})), (std::vector<float>{0, 0, 0, 0.5f, 6}));
  EXPECT_EQ(values<float>(runBoth("Neg", {x})), (std::vector<float>{7, 0.5f, -0, -0.5f, -8}));
  EXPECT_EQ(values<float>(runBoth("Abs", {x})), (std::vector<float>{7, 0.5f, 0, 0.5f, 8}));
  EXPECT_EQ(values<float>(runBoth("Floor", {x})), (std::vector<float>{-7, -1, 0, 0, 8}));
  EXPECT_EQ(values<float>(runBoth("Square", {x})), (std::vector<float>{49, 0.25f, 0, 0.25f, 64}));
  Tensor e = runBoth("Elu", {x});
  EXPECT_NEAR(e.data<float>()[0], std::expm1(-7.0), 1e-6);
  EXPECT_FLOAT_EQ(e.data<float>()[4], 8);
  Tensor p = F({3}, {0.25f, 1, 4});
  EXPECT_EQ(values<float>(runBoth("Sqrt", {p})), (std::vector<float>{0.5f, 1, 2}));
  EXPECT_EQ(values<float>(runBoth("Rsqrt", {p})), (std::vector<float>{2, 1, 0.5f}));
  EXPECT_EQ(values<float>(runBoth("Reciprocal", {p})), (std::vector<float>{4, 1, 0.25f}));
  Tensor t = runBoth("Tanh", {x});
  Tensor s = runBoth("Sigmoid", {x});
  Tensor ex = runBoth("Exp", {x});
  Tensor lg = runBoth("Log", {p});
  for (int i = 0; i < 5; ++i) {
    double v = x.data<float>()[i];
    EXPECT_NEAR(t.data<float>()[i], std::tanh(v), 1e-6);
    EXPECT_NEAR(s.data<float>()[i], 1 / (1 + std::exp(-v)), 1e-6);
    EXPECT_NEAR(ex.data<float>()[i], std::exp(v), 1e-6 * std::exp(v));
  }
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(lg.data<float>()[i], std::log(p.data<float>()[i]), 1e-6);
}

TEST(OpsElementwise, ComparisonsLogicalAndSelect) {
  Tensor a = F({4}, {1, 2, 3, 4}), b = F({}, {2.5f});
  EXPECT_EQ(values<bool>(runBoth("Less", {a, b})), (std::vector<bool>{true, true, false, false}));
  EXPECT_EQ(values<bool>(runBoth("GreaterEqual", {a, F({4}, {1, 3, 3, 5})})),
            (std::vector<bool>{true, false, true, false}));
  EXPECT_EQ(values<bool>(runBoth("Equal", {I({3}, {1, 2, 3}), I({3}, {1, 0, 3})})),
            (std::vector<bool>{true, false, true}));
  Tensor p = B({4}, {true, false, true, false}), q = B({4}, {true, true, false, false});
  EXPECT_EQ(values<bool>(runBoth("LogicalAnd", {p, q})), (std::vector<bool>{true, false, false, false}));
  OpRun n = runOp("LogicalNot", {p}, "", 1, false, "");
  ASSERT_TRUE(n.status.ok()) << n.status.message();
  EXPECT_EQ(values<bool>(n.outputs[0]), (std::vector<bool>{false, true, false, true}));
  // Select with a vector condition picks rows.
  OpRun s = runOp("Select", {B({2}, {false, true}), F({2, 2}, {1, 2, 3, 4}), F({2, 2}, {5, 6, 7, 8})}, "", 1, false, "");
  ASSERT_TRUE(s.status.ok()) << s.status.message();
  EXPECT_EQ(values<float>(s.outputs[0]), (std::vector<float>{5, 6, 3, 4}));
}

TEST(OpsElementwise, CastAddNAndFillLike) {
  OpRun c = runOp("Cast", {F({4}, {-1.7f, 0, 2.9f, 3})}, "attr { key: 'DstT' value { type: DT_INT32 } }", 1, false,
                  "SrcT");
  ASSERT_TRUE(c.status.ok()) << c.status.message();
  EXPECT_EQ(values<std::int32_t>(c.outputs[0]), (std::vector<std::int32_t>{-1, 0, 2, 3}));
  OpRun cb = runOp("Cast", {F({3}, {0, 0.5f, -2})}, "attr { key: 'DstT' value { type: DT_BOOL } }", 1, false, "SrcT");
  ASSERT_TRUE(cb.status.ok());
  EXPECT_EQ(values<bool>(cb.outputs[0]), (std::vector<bool>{false, true, true}));
  Tensor s = runBoth("AddN", {F({2}, {1, 2}), F({2}, {10, 20}), F({2}, {100, 200})});
  EXPECT_EQ(values<float>(s), (std::vector<float>{111, 222}));
  EXPECT_EQ(values<float>(runBoth("ZerosLike", {F({2}, {1, 2})})), (std::vector<float>{0, 0}));
  EXPECT_EQ(values<std::int32_t>(runBoth("OnesLike", {I({3}, {5, 6, 7})})), (std::vector<std::int32_t>{1, 1, 1}));
}

TEST(OpsElementwise, OptimizedMatchesReferenceOnLargeBroadcasts) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-3, 3);
  auto random = [&](Shape s) {
    Tensor t(tensorflow::DT_FLOAT, s);
    for (std::int64_t i = 0; i < t.numElements(); ++i) t.data<float>()[i] = u(rng);
    return t;
  };
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{4, 33, 17, 8}, {8}}, {{4, 33, 17, 8}, {4, 1, 1, 8}}, {{1, 1, 1, 8}, {4, 33, 17, 1}},
      {{5, 1, 7}, {1, 6, 1}}, {{1000}, {}}, {{}, {1000}}};
  for (const auto& [sa, sb] : cases)
    for (const char* op : {"Add", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "SquaredDifference"}) {
      SCOPED_TRACE(std::string(op) + " " + model::shapeString(sa) + " " + model::shapeString(sb));
      runBoth(op, {random(sa), random(sb)});
    }
  Tensor big = random({3, 1000});
  for (const char* op : {"Tanh", "Sigmoid", "Exp", "Relu", "Relu6", "Elu", "Abs", "Square"}) runBoth(op, {big});
}

}  // namespace
}  // namespace gds::engine
