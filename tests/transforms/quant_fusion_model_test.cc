// The plan's 8-bit layer fusion on a real model: MobileNet 0.25/128 through
// the tutorial's 8-bit pipeline gives the same bits fused and unfused, on
// every GEMM backend.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "engine/kernel_choice.h"
#include "engine/lowp/gemm.h"
#include "engine/rewrite/optimize_for_inference.h"
#include "model/io.h"
#include "tests/test_util.h"
#include "transforms/pipeline.h"

namespace gds::engine {
namespace {

TEST(QuantFusionModel, MobilenetEightBitGraphIsBitIdenticalFusedAndUnfused) {
  GDS_REQUIRE_SHARED();
  auto loaded = model::load(test::modelPath("mobilenet_v1_0.25_128_frozen.pb"));
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  const std::string output = "MobilenetV1/Predictions/Reshape_1";
  transforms::PipelineOptions popt;
  popt.compute_diff = false;
  auto eight = transforms::applyTransforms(loaded->graph, transforms::eightBitPipeline({"input"}, {"1,128,128,3"}),
                                           {"input"}, {output}, popt);
  ASSERT_TRUE(eight.ok()) << eight.error();
  auto graph = std::make_shared<tensorflow::GraphDef>(eight->graph);

  Tensor image(tensorflow::DT_FLOAT, {1, 128, 128, 3});
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  for (std::int64_t i = 0; i < image.numElements(); ++i) image.data<float>()[i] = d(rng);

  auto run = [&](bool fuse, int* fused_nodes) {
    InferenceRewrites rewrites;
    rewrites.fuse_quantized = fuse;
    auto plan = compileForInference(graph, {"input"}, {output}, {}, rewrites);
    EXPECT_TRUE(plan.ok()) << plan.error();
    if (!plan.ok()) return Tensor();
    *fused_nodes = 0;
    for (const auto& n : (*plan)->nodes()) *fused_nodes += n.op == "_FusedQuantizedConv2D" ? 1 : 0;
    auto out = (*plan)->run({image});
    EXPECT_TRUE(out.ok()) << out.error();
    return out.ok() ? (*out)[0] : Tensor();
  };
  int fused_nodes = 0;
  const Tensor expected = run(false, &fused_nodes);
  ASSERT_EQ(0, fused_nodes);
  ASSERT_EQ((Shape{1, 1001}), expected.shape());
  std::vector<lowp::GemmBackend> backends = {lowp::GemmBackend::kGemmlowp};
  if (lowp::dnnlAvailable()) backends.push_back(lowp::GemmBackend::kDnnl);
  for (auto backend : backends) {
    Tensor got;
    {
      ScopedKernelChoice choice(backend);
      got = run(true, &fused_nodes);
    }
    // Every pointwise and full convolution of the model (15) is one node.
    EXPECT_EQ(15, fused_nodes) << lowp::gemmBackendName(backend);
    ASSERT_EQ(expected.shape(), got.shape());
    EXPECT_EQ(0, std::memcmp(expected.raw(), got.raw(), static_cast<std::size_t>(expected.numElements()) * 4))
        << lowp::gemmBackendName(backend);
  }
}

}  // namespace
}  // namespace gds::engine
