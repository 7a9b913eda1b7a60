// FakeQuantWithMinMaxArgs / Vars / VarsPerChannel against values worked out
// by hand from TensorFlow's formulas (fake_quant_ops_functor.h). Ranges are
// chosen so every step is exact in float: scale 0.25 throughout.
//
// [-0.125, 63.625], 8 bits: scale = 63.75 / 255 = 0.25; zero point from min
//   = 0 + 0.125 / 0.25 = 0.5, rounded (half away from zero) to 1; nudged
//   range [(0 - 1) * 0.25, (255 - 1) * 0.25] = [-0.25, 63.5].
// narrow_range [-0.125, 63.375]: quant range [1, 255], scale = 63.5 / 254 =
//   0.25; zero point 1 + 0.5 = 1.5 -> 2; nudged [-0.25, 63.25].
// num_bits 4, [-1.5, 2.25]: quant range [0, 15], scale = 3.75 / 15 = 0.25;
//   zero point 6 exactly; nudged [-1.5, 2.25].
// [0.25, 64] (zero outside the range): zero point 0 - 1 = -1 < 0 -> 0;
//   nudged [0, 63.75] (the range moves to include zero).
#include <gtest/gtest.h>

#include <cstdio>

#include "engine/ops/fake_quant.h"
#include "tests/engine/core_test_util.h"

namespace gds::engine {
namespace {

using coretest::F;
using coretest::runOp;
using coretest::values;

// A float as text that reads back as the same float.
std::string exact(float v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", static_cast<double>(v));
  return buf;
}

std::string argsAttrs(float min, float max, int num_bits = 8, bool narrow = false) {
  return "attr { key: 'min' value { f: " + exact(min) + " } } attr { key: 'max' value { f: " + exact(max) +
         " } } attr { key: 'num_bits' value { i: " + std::to_string(num_bits) +
         " } } attr { key: 'narrow_range' value { b: " + (narrow ? "true" : "false") + " } }";
}

std::string varsAttrs(int num_bits = 8, bool narrow = false) {
  return "attr { key: 'num_bits' value { i: " + std::to_string(num_bits) + " } } attr { key: 'narrow_range' value { b: " +
         (narrow ? "true" : "false") + " } }";
}

std::vector<float> runVars(const Tensor& x, float min, float max, int num_bits = 8, bool narrow = false) {
  auto r = runOp("FakeQuantWithMinMaxVars", {x, F({}, {min}), F({}, {max})}, varsAttrs(num_bits, narrow), 1, false, "");
  EXPECT_TRUE(r.status.ok()) << r.status.message();
  return r.status.ok() ? values<float>(r.outputs[0]) : std::vector<float>{};
}

TEST(FakeQuant, NudgeMatchesTheWorkedRanges) {
  auto r = ops::nudgeFakeQuantRange(-0.125f, 63.625f, 0, 255);
  EXPECT_EQ(r.scale, 0.25f);
  EXPECT_EQ(r.nudged_min, -0.25f);
  EXPECT_EQ(r.nudged_max, 63.5f);
  r = ops::nudgeFakeQuantRange(-0.125f, 63.375f, 1, 255);
  EXPECT_EQ(r.nudged_min, -0.25f);
  EXPECT_EQ(r.nudged_max, 63.25f);
  r = ops::nudgeFakeQuantRange(0.25f, 64.0f, 0, 255);
  EXPECT_EQ(r.nudged_min, 0.0f);
  EXPECT_EQ(r.nudged_max, 63.75f);
  // 16 bits: the zero point needs more than 8 bits (TensorFlow keeps a uint16).
  // [-1024, 15359.75]: scale 16383.75 / 65535 = 0.25, zero point 4096.
  r = ops::nudgeFakeQuantRange(-1024.0f, 15359.75f, 0, 65535);
  EXPECT_EQ(r.scale, 0.25f);
  EXPECT_EQ(r.nudged_min, -1024.0f);
  EXPECT_EQ(r.nudged_max, 15359.75f);
}

TEST(FakeQuant, VarsNudgedRangeRoundsHalfUpAndClamps) {
  // -0.3 clamps to -0.25; -0.125 is half a step: floor(0.5 + 0.5) = 1 -> 0;
  // 0.3: (0.55 / 0.25) + 0.5 = 2.7 -> 2 -> 0.25; 63.375: 254.5 + 0.5 -> 255 -> 63.5; 70 clamps.
  const auto y = runVars(F({2, 3}, {-0.3f, -0.125f, 0.0f, 0.3f, 63.375f, 70.0f}), -0.125f, 63.625f);
  EXPECT_EQ(y, (std::vector<float>{-0.25f, 0.0f, 0.0f, 0.25f, 63.5f, 63.5f}));
}

TEST(FakeQuant, VarsNarrowRangeFourBitsAndZeroOutsideTheRange) {
  // narrow_range: nudged [-0.25, 63.25]; 0.13: (0.38 / 0.25) + 0.5 = 2.02 -> 2 -> 0.25.
  EXPECT_EQ(runVars(F({4}, {-1.0f, 0.1f, 0.13f, 63.3f}), -0.125f, 63.375f, 8, true),
            (std::vector<float>{-0.25f, 0.0f, 0.25f, 63.25f}));
  // 4 bits over [-1.5, 2.25]: 1.1 -> (2.6 / 0.25) + 0.5 = 10.9 -> 10 -> 1.0; 1.2 -> 11.3 -> 1.25.
  EXPECT_EQ(runVars(F({5}, {-2.0f, 1.0f, 1.1f, 1.2f, 3.0f}), -1.5f, 2.25f, 4),
            (std::vector<float>{-1.5f, 1.0f, 1.0f, 1.25f, 2.25f}));
  // [0.25, 64] moves to [0, 63.75]: 0.1 rounds to 0, 0.2 to 0.25.
  EXPECT_EQ(runVars(F({3}, {0.1f, 0.2f, 100.0f}), 0.25f, 64.0f), (std::vector<float>{0.0f, 0.25f, 63.75f}));
  // A range of exactly [0, 0] gives zeros (TensorFlow's special case).
  EXPECT_EQ(runVars(F({2}, {1.5f, -3.0f}), 0.0f, 0.0f), (std::vector<float>{0.0f, 0.0f}));
}

TEST(FakeQuant, ArgsTakesTheRangeFromAttrsWithTensorFlowDefaults) {
  auto r = runOp("FakeQuantWithMinMaxArgs", {F({4}, {-0.3f, 0.3f, 63.375f, 70.0f})}, argsAttrs(-0.125f, 63.625f), 1,
                 false, "");
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(values<float>(r.outputs[0]), (std::vector<float>{-0.25f, 0.25f, 63.5f, 63.5f}));
  // Defaults min=-6, max=6, 8 bits: scale 12/255, zero point 127.5 -> 128,
  // nudged [-128 * s, 127 * s]; 7 clamps to 127 * 12/255.
  r = runOp("FakeQuantWithMinMaxArgs", {F({2}, {7.0f, -7.0f})}, "", 1, false, "");
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  const float s = 12.0f / 255.0f;
  const float nudged_min = -128.0f * s;
  EXPECT_EQ(values<float>(r.outputs[0]),
            (std::vector<float>{std::floor((127.0f * s - nudged_min) * (1.0f / s) + 0.5f) * s + nudged_min, nudged_min}));
  r = runOp("FakeQuantWithMinMaxArgs", {F({1}, {0.0f})}, argsAttrs(1.0f, 1.0f), 1, false, "");
  EXPECT_EQ(r.status.message(), "node 'op' (FakeQuantWithMinMaxArgs): min has to be smaller than max, was: 1 >= 1");
  r = runOp("FakeQuantWithMinMaxArgs", {F({1}, {0.0f})}, argsAttrs(-1.0f, 1.0f, 17), 1, false, "");
  EXPECT_EQ(r.status.message(), "node 'op' (FakeQuantWithMinMaxArgs): num_bits must be between 2 and 16, inclusive, got 17");
}

// TensorFlow's Args functor multiplies by 1/scale where the Vars functor
// divides by scale; at a value half a step between two levels the two round
// differently, and each op must follow its own functor.
TEST(FakeQuant, ArgsMultipliesByTheInverseVarsDivides) {
  const float min = -0.955945909f, max = 4.25384617f, x = 0.90915972f;
  auto args = runOp("FakeQuantWithMinMaxArgs", {F({1}, {x})}, argsAttrs(min, max), 1, false, "");
  ASSERT_TRUE(args.status.ok()) << args.status.message();
  const auto vars = runVars(F({1}, {x}), min, max);
  ASSERT_EQ(vars.size(), 1u);
  EXPECT_EQ(values<float>(args.outputs[0])[0], 0.898944497f);
  EXPECT_EQ(vars[0], 0.919375062f);
}

TEST(FakeQuant, PerChannelUsesTheLastDimension) {
  // Channel 0: [-0.125, 63.625] -> [-0.25, 63.5]; channel 1: [0, 0] -> zeros;
  // channel 2: [-32, 31.75], zero point 128 exactly -> [-32, 31.75]:
  // -0.1 -> (31.9 / 0.25) + 0.5 = 128.1 -> 128 -> 0.
  const Tensor x = F({1, 2, 3}, {0.3f, 5.0f, 40.0f, -0.3f, -5.0f, -0.1f});
  auto r = runOp("FakeQuantWithMinMaxVarsPerChannel",
                 {x, F({3}, {-0.125f, 0.0f, -32.0f}), F({3}, {63.625f, 0.0f, 31.75f})}, varsAttrs(), 1, false, "");
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].shape(), (Shape{1, 2, 3}));
  EXPECT_EQ(values<float>(r.outputs[0]), (std::vector<float>{0.25f, 0.0f, 31.75f, -0.25f, 0.0f, 0.0f}));
  // narrow_range per channel: channel 0 [-0.125, 63.375] -> [-0.25, 63.25].
  r = runOp("FakeQuantWithMinMaxVarsPerChannel", {F({2, 1}, {70.0f, 0.13f}), F({1}, {-0.125f}), F({1}, {63.375f})},
            varsAttrs(8, true), 1, false, "");
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(values<float>(r.outputs[0]), (std::vector<float>{63.25f, 0.25f}));
  r = runOp("FakeQuantWithMinMaxVarsPerChannel", {x, F({2}, {-1.0f, -1.0f}), F({3}, {1.0f, 1.0f, 1.0f})}, varsAttrs(), 1,
            false, "");
  EXPECT_EQ(r.status.message(),
            "node 'op' (FakeQuantWithMinMaxVarsPerChannel): min has incorrect size, expected float [3] (the last "
            "dimension of inputs), was float [2]");
  r = runOp("FakeQuantWithMinMaxVars", {x, F({1}, {-1.0f}), F({}, {1.0f})}, varsAttrs(), 1, false, "");
  EXPECT_EQ(r.status.message(),
            "node 'op' (FakeQuantWithMinMaxVars): min must be a float scalar (rank 0), got float [1]");
}

}  // namespace
}  // namespace gds::engine
