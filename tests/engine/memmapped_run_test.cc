// A memory-mapped MobileNet runs with its weights borrowed from the mapping
// and gives exactly the outputs of the original frozen graph.
#include <gtest/gtest.h>

#include <random>

#include "engine/plan.h"
#include "model/io.h"
#include "model/memmapped.h"
#include "tests/test_util.h"

namespace gds {
namespace {

TEST(MemmappedRun, MobilenetSameOutputsAsOriginal) {
  GDS_REQUIRE_SHARED();
  auto m = model::load(test::modelPath("mobilenet_v1_0.25_128_frozen.pb"));
  ASSERT_TRUE(m.ok()) << m.error();
  std::string path = test::tempDir() + "/mobilenet.mmpb";
  auto w = model::writeMemmapped(m->graph, path);
  ASSERT_TRUE(w.ok()) << w.error();
  auto mapped = model::MemmappedFile::open(path);
  ASSERT_TRUE(mapped.ok()) << mapped.error();

  const std::string out = "MobilenetV1/Predictions/Reshape_1";
  auto original = engine::Plan::compile(m->graph, {"input"}, {out});
  ASSERT_TRUE(original.ok()) << original.error();
  auto memmapped = engine::Plan::compile((*mapped)->graph(), {"input"}, {out});
  ASSERT_TRUE(memmapped.ok()) << memmapped.error();

  engine::Tensor input(tensorflow::DT_FLOAT, {1, 128, 128, 3});
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> uniform(-1.f, 1.f);
  for (std::int64_t i = 0; i < input.numElements(); ++i) input.data<float>()[i] = uniform(rng);
  auto a = (*original)->run({input});
  auto b = (*memmapped)->run({input});
  ASSERT_TRUE(a.ok()) << a.error();
  ASSERT_TRUE(b.ok()) << b.error();
  ASSERT_EQ((*b)[0].shape(), (model::Shape{1, 1001}));
  for (std::int64_t i = 0; i < 1001; ++i) ASSERT_EQ((*a)[0].data<float>()[i], (*b)[0].data<float>()[i]) << i;

  // The plan keeps the mapping alive after the file object is released.
  mapped->reset();
  auto c = (*memmapped)->run({input});
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ((*c)[0].data<float>()[5], (*a)[0].data<float>()[5]);
}

}  // namespace
}  // namespace gds
