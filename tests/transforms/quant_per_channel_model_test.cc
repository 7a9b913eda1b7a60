// The optimized per-channel fused 8-bit layers on a real model: MobileNet
// 0.25/128 through the tutorial's 8-bit pipeline with per_channel=true gives
// the same bits (every layer's output and range) as the reference kernels, on
// every GEMM backend, at 1 and 2 threads.
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

TEST(QuantPerChannelModel, MobilenetPerChannelLayersAreBitIdenticalToTheReferenceKernels) {
  GDS_REQUIRE_SHARED();
  auto loaded = model::load(test::modelPath("mobilenet_v1_0.25_128_frozen.pb"));
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  transforms::PipelineOptions popt;
  popt.compute_diff = false;
  auto eight = transforms::applyTransforms(loaded->graph,
                                           transforms::eightBitPipeline({"input"}, {"1,128,128,3"}, true),
                                           {"input"}, {"MobilenetV1/Predictions/Reshape_1"}, popt);
  ASSERT_TRUE(eight.ok()) << eight.error();
  auto graph = std::make_shared<tensorflow::GraphDef>(eight->graph);
  // Every layer's quint8 output and its min/max (the final float ops'
  // reference kernels round differently, so the layers are compared).
  std::vector<std::string> fetches;
  int depthwise = 0;
  for (const auto& node : graph->node()) {
    if (node.op().rfind("QuantizedFused", 0) != 0) continue;
    depthwise += node.op() == "QuantizedFusedDepthwiseConv2dNative" ? 1 : 0;
    for (int port = 0; port < 3; ++port) fetches.push_back(node.name() + ":" + std::to_string(port));
  }
  ASSERT_EQ(28 * 3, static_cast<int>(fetches.size()));
  ASSERT_EQ(13, depthwise);

  Tensor image(tensorflow::DT_FLOAT, {1, 128, 128, 3});
  std::mt19937 rng(23);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  for (std::int64_t i = 0; i < image.numElements(); ++i) image.data<float>()[i] = d(rng);

  auto run = [&](bool reference, int threads) {
    PlanOptions options;
    options.reference_kernels = reference;
    options.num_threads = threads;
    auto plan = compileForInference(graph, {"input"}, fetches, options);
    EXPECT_TRUE(plan.ok()) << plan.error();
    if (!plan.ok()) return std::vector<Tensor>();
    // Twice: the second run uses the weights packed by the first.
    (void)(*plan)->run({image});
    auto out = (*plan)->run({image});
    EXPECT_TRUE(out.ok()) << out.error();
    return out.ok() ? *out : std::vector<Tensor>();
  };
  const std::vector<Tensor> expected = run(true, 1);
  ASSERT_EQ(fetches.size(), expected.size());
  std::vector<lowp::GemmBackend> backends = {lowp::GemmBackend::kGemmlowp};
  if (lowp::dnnlAvailable()) backends.push_back(lowp::GemmBackend::kDnnl);
  for (auto backend : backends) {
    for (int threads : {1, 2}) {
      std::vector<Tensor> got;
      {
        ScopedKernelChoice choice(backend);
        got = run(false, threads);
      }
      ASSERT_EQ(expected.size(), got.size());
      for (std::size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(expected[i].shape(), got[i].shape()) << fetches[i];
        ASSERT_EQ(expected[i].dtype(), got[i].dtype()) << fetches[i];
        const std::size_t bytes =
            static_cast<std::size_t>(got[i].numElements()) * (got[i].dtype() == tensorflow::DT_FLOAT ? 4 : 1);
        EXPECT_EQ(0, std::memcmp(expected[i].raw(), got[i].raw(), bytes))
            << fetches[i] << " " << lowp::gemmBackendName(backend) << " " << threads << " threads";
      }
    }
  }
}

}  // namespace
}  // namespace gds::engine
