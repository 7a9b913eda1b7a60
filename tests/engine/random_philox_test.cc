// The stateful random ops follow TensorFlow's Philox4x32-10 stream exactly:
// the generator against Random123's published known-answer vectors, the
// float/double conversions against their bit-level definition, and the ops'
// use of the stream (seed/seed2 layout, 4 floats or 2 doubles per sample,
// 256 samples reserved per output element and run, truncated-normal groups)
// against the generator called directly.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "engine/ops/philox.h"
#include "tests/engine/core_test_util.h"

namespace gds::engine {
namespace {

using coretest::parseGraph;
using philox::Block;
using philox::Key;

// Random123 kat_vectors, "philox4x32 10" lines: counter, key -> output.
TEST(Philox, KnownAnswerVectors) {
  EXPECT_EQ(philox::philox4x32_10({0, 0, 0, 0}, {0, 0}), (Block{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(philox::philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
            (Block{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(philox::philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
            (Block{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(Philox, SeedsFillKeyAndUpperCounterAndEachCallAdvancesByOne) {
  philox::PhiloxRandom gen(0x1122334455667788ull, 0x99aabbccddeeff00ull);
  EXPECT_EQ(gen.key(), (Key{0x55667788, 0x11223344}));
  EXPECT_EQ(gen.counter(), (Block{0, 0, 0xddeeff00, 0x99aabbcc}));
  const Key key{0x55667788, 0x11223344};
  EXPECT_EQ(gen(), philox::philox4x32_10({0, 0, 0xddeeff00, 0x99aabbcc}, key));
  EXPECT_EQ(gen(), philox::philox4x32_10({1, 0, 0xddeeff00, 0x99aabbcc}, key));
  EXPECT_EQ(gen.counter(), (Block{2, 0, 0xddeeff00, 0x99aabbcc}));
}

TEST(Philox, SkipCarriesAcrossCounterWords) {
  philox::PhiloxRandom gen(Block{0xffffffff, 0xffffffff, 7, 0}, Key{1, 2});
  gen.skip(1);
  EXPECT_EQ(gen.counter(), (Block{0, 0, 8, 0}));
  gen.skip(0x100000003ull);
  EXPECT_EQ(gen.counter(), (Block{3, 1, 8, 0}));
  philox::PhiloxRandom top(Block{0xffffffff, 0xffffffff, 0xffffffff, 4}, Key{0, 0});
  top();
  EXPECT_EQ(top.counter(), (Block{0, 0, 0, 5}));
}

float bitsToFloat(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// 1.0 with the word's low 23 bits as mantissa, minus 1: multiples of 2^-23.
TEST(Philox, Uint32ToFloatUsesTheLow23BitsAsMantissa) {
  EXPECT_EQ(philox::uint32ToFloat(0), 0.0f);
  EXPECT_EQ(philox::uint32ToFloat(0x00400000), 0.5f);
  EXPECT_EQ(philox::uint32ToFloat(0x00000001), std::ldexp(1.0f, -23));
  EXPECT_EQ(philox::uint32ToFloat(0x007fffff), 1.0f - std::ldexp(1.0f, -23));
  EXPECT_EQ(philox::uint32ToFloat(0xff800000), 0.0f);  // upper 9 bits ignored
  EXPECT_EQ(philox::uint32ToFloat(0xdeadbeef), bitsToFloat(0x3f800000 | (0xdeadbeef & 0x7fffff)) - 1.0f);
}

TEST(Philox, Uint64ToDoubleUsesTwentyBitsOfTheFirstWordAndAllOfTheSecond) {
  EXPECT_EQ(philox::uint64ToDouble(0, 0), 0.0);
  EXPECT_EQ(philox::uint64ToDouble(0x00080000, 0), 0.5);
  EXPECT_EQ(philox::uint64ToDouble(0, 1), std::ldexp(1.0, -52));
  EXPECT_EQ(philox::uint64ToDouble(0xfff00000, 0), 0.0);  // upper 12 bits ignored
  EXPECT_EQ(philox::uint64ToDouble(0x000fffff, 0xffffffff), 1.0 - std::ldexp(1.0, -52));
}

TEST(Philox, BoxMullerClampsTheLogArgumentAndPutsSinFirst) {
  float f0 = 0, f1 = 0;
  // u1 = 0 is clamped to 1e-7: radius sqrt(-2 ln 1e-7) = 5.6777; angle 2*pi*0.25.
  philox::boxMullerFloat(0, 0x00200000, &f0, &f1);
  const float radius = std::sqrt(-2.0f * std::log(1.0e-7f));
  EXPECT_NEAR(f0, radius, 1e-5);
  EXPECT_NEAR(f1, 0.0f, 1e-5);
  double d0 = 0, d1 = 0;
  philox::boxMullerDouble(0x00080000, 0, 0, 0, &d0, &d1);  // u1 = 0.5, angle 0
  EXPECT_DOUBLE_EQ(d0, 0.0);
  EXPECT_DOUBLE_EQ(d1, std::sqrt(-2.0 * std::log(0.5)));
}

// A RandomUniform/RandomStandardNormal/TruncatedNormal node fed its shape.
std::unique_ptr<Plan> randomPlan(const std::string& op, const std::string& dtype, std::int64_t seed,
                                 std::int64_t seed2) {
  auto g = parseGraph(
      "node { name: 'shape' op: 'Placeholder' attr { key: 'dtype' value { type: DT_INT32 } } }\n"
      "node { name: 'r' op: '" + op + "' input: 'shape' attr { key: 'T' value { type: DT_INT32 } }"
      " attr { key: 'dtype' value { type: " + dtype + " } }"
      " attr { key: 'seed' value { i: " + std::to_string(seed) + " } }"
      " attr { key: 'seed2' value { i: " + std::to_string(seed2) + " } } }\n");
  auto plan = compileForInference(std::make_shared<const tensorflow::GraphDef>(std::move(g)), {"shape"}, {"r"});
  EXPECT_TRUE(plan.ok()) << plan.error();
  return plan.ok() ? std::move(plan).value() : nullptr;
}

Tensor runShape(Plan& plan, std::initializer_list<std::int32_t> dims) {
  auto out = plan.run({coretest::I({static_cast<std::int64_t>(dims.size())}, dims)});
  EXPECT_TRUE(out.ok()) << out.error();
  return out.ok() ? (*out)[0] : Tensor();
}

TEST(RandomOps, UniformFloatIsFourWordsPerSampleAndEachRunSkips256PerElement) {
  const std::int64_t seed = 87654321, seed2 = 1234;
  auto plan = randomPlan("RandomUniform", "DT_FLOAT", seed, seed2);
  ASSERT_TRUE(plan);
  const Key key{static_cast<std::uint32_t>(seed), 0};
  Tensor first = runShape(*plan, {2, 5});
  ASSERT_EQ(first.shape(), (Shape{2, 5}));
  for (std::int64_t i = 0; i < 10; ++i) {
    const Block b = philox::philox4x32_10({static_cast<std::uint32_t>(i / 4), 0, 1234, 0}, key);
    ASSERT_EQ(first.data<float>()[i], philox::uint32ToFloat(b[i % 4])) << i;
  }
  // The first run reserved 10 * 256 samples: the second starts at counter 2560.
  Tensor second = runShape(*plan, {3});
  const Block b = philox::philox4x32_10({2560, 0, 1234, 0}, key);
  for (std::int64_t i = 0; i < 3; ++i) EXPECT_EQ(second.data<float>()[i], philox::uint32ToFloat(b[i]));
  Tensor third = runShape(*plan, {1});
  EXPECT_EQ(third.data<float>()[0], philox::uint32ToFloat(philox::philox4x32_10({2560 + 768, 0, 1234, 0}, key)[0]));
}

TEST(RandomOps, SameSeedsGiveTheSameStreamInEveryPlan) {
  auto a = randomPlan("RandomUniform", "DT_FLOAT", 5, 7);
  auto b = randomPlan("RandomUniform", "DT_FLOAT", 5, 7);
  auto c = randomPlan("RandomUniform", "DT_FLOAT", 5, 8);
  ASSERT_TRUE(a && b && c);
  Tensor x = runShape(*a, {16}), y = runShape(*b, {16}), z = runShape(*c, {16});
  EXPECT_EQ(coretest::values<float>(x), coretest::values<float>(y));
  EXPECT_NE(coretest::values<float>(x), coretest::values<float>(z));
  for (float v : coretest::values<float>(x)) {
    EXPECT_GE(v, 0.0f);
    EXPECT_LT(v, 1.0f);
  }
  // seed == seed2 == 0: fresh random seeds for every kernel, as TensorFlow.
  auto d = randomPlan("RandomUniform", "DT_FLOAT", 0, 0);
  auto e = randomPlan("RandomUniform", "DT_FLOAT", 0, 0);
  ASSERT_TRUE(d && e);
  EXPECT_NE(coretest::values<float>(runShape(*d, {16})), coretest::values<float>(runShape(*e, {16})));
}

TEST(RandomOps, UniformDoubleIsTwoValuesPerSample) {
  auto plan = randomPlan("RandomUniform", "DT_DOUBLE", 3, 0);
  ASSERT_TRUE(plan);
  Tensor t = runShape(*plan, {3});
  ASSERT_EQ(t.dtype(), tensorflow::DT_DOUBLE);
  const Block b0 = philox::philox4x32_10({0, 0, 0, 0}, {3, 0});
  const Block b1 = philox::philox4x32_10({1, 0, 0, 0}, {3, 0});
  EXPECT_EQ(t.data<double>()[0], philox::uint64ToDouble(b0[0], b0[1]));
  EXPECT_EQ(t.data<double>()[1], philox::uint64ToDouble(b0[2], b0[3]));
  EXPECT_EQ(t.data<double>()[2], philox::uint64ToDouble(b1[0], b1[1]));
}

TEST(RandomOps, StandardNormalIsBoxMullerOnWordPairs) {
  auto plan = randomPlan("RandomStandardNormal", "DT_FLOAT", 42, 9);
  ASSERT_TRUE(plan);
  Tensor t = runShape(*plan, {6});
  const Key key{42, 0};
  float expected[8];
  for (std::uint32_t s = 0; s < 2; ++s) {
    const Block b = philox::philox4x32_10({s, 0, 9, 0}, key);
    philox::boxMullerFloat(b[0], b[1], &expected[4 * s], &expected[4 * s + 1]);
    philox::boxMullerFloat(b[2], b[3], &expected[4 * s + 2], &expected[4 * s + 3]);
  }
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t.data<float>()[i], expected[i]) << i;
}

TEST(RandomOps, TruncatedNormalGroupsStart256WordsPerElementApartAndRejectTwoSigma) {
  const std::int64_t n = 4001;
  auto plan = randomPlan("TruncatedNormal", "DT_FLOAT", 11, 22);
  ASSERT_TRUE(plan);
  Tensor t = runShape(*plan, {static_cast<std::int32_t>(n)});
  ASSERT_EQ(t.numElements(), n);
  const Key key{11, 0};
  // Group g of four outputs reads single words from sample g * 256 on,
  // keeping Box-Muller values with |x| < 2.
  bool saw_rejection = false;
  for (std::int64_t g = 0; g * 4 < n; ++g) {
    std::uint32_t sample = static_cast<std::uint32_t>(g * 256);
    Block block = philox::philox4x32_10({sample, 0, 22, 0}, key);
    int used = 0, index = 0;
    auto word = [&] {
      if (used == 4) {
        block = philox::philox4x32_10({++sample, 0, 22, 0}, key);
        used = 0;
      }
      return block[used++];
    };
    while (index < 4) {
      const std::uint32_t x0 = word(), x1 = word();
      float f[2];
      philox::boxMullerFloat(x0, x1, &f[0], &f[1]);
      for (int k = 0; k < 2 && index < 4; ++k) {
        if (std::abs(f[k]) >= 2.0f) {
          saw_rejection = true;
          continue;
        }
        if (g * 4 + index < n) {
          ASSERT_EQ(t.data<float>()[g * 4 + index], f[k]) << g * 4 + index;
        }
        ++index;
      }
    }
  }
  EXPECT_TRUE(saw_rejection);  // about 4.6% of draws fall outside two sigma
  for (float v : coretest::values<float>(t)) ASSERT_LT(std::abs(v), 2.0f);
}

TEST(RandomOps, UnsupportedDtypeAndNegativeShapeAreErrorsNamingTheNode) {
  auto g = parseGraph(
      "node { name: 'shape' op: 'Placeholder' attr { key: 'dtype' value { type: DT_INT32 } } }\n"
      "node { name: 'r' op: 'RandomUniform' input: 'shape' attr { key: 'dtype' value { type: DT_INT32 } } }\n");
  auto bad = compileForInference(g, {"shape"}, {"r"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("'r'"), std::string::npos) << bad.error();
  EXPECT_NE(bad.error().find("dtype int32 is not supported (float or double)"), std::string::npos) << bad.error();
  auto plan = randomPlan("RandomUniform", "DT_FLOAT", 1, 1);
  ASSERT_TRUE(plan);
  auto out = plan->run({coretest::I({2}, {2, -1})});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().find("shape [2,-1] has a negative dimension"), std::string::npos) << out.error();
}

}  // namespace
}  // namespace gds::engine
