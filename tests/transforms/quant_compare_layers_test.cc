// engine::compare's per-layer table on MobileNet v1 0.25/128 through the
// tutorial's 8-bit pipeline: inside a quantized run the float values live
// only as quantize_nodes' (tensor, min, max) outputs (`X/eightbit`,
// `X/eightbit/requantize`, the QuantizedFused* layers of per_channel=true),
// so every convolution layer gets a row under its float name, and fetching
// those tensors leaves the compared outputs exactly as they were.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/eval/compare.h"
#include "engine/eval/dataset.h"
#include "model/io.h"
#include "tests/test_util.h"
#include "transforms/pipeline.h"

namespace gds::transforms {
namespace {

const char* kOutput = "MobilenetV1/Predictions/Reshape_1";

struct Setup {
  GraphDef float_graph;
  engine::Tensor image;
};

const Setup& setup() {
  static const Setup s = [] {
    Setup out;
    auto loaded = model::load(test::modelPath("mobilenet_v1_0.25_128_frozen.pb"));
    EXPECT_TRUE(loaded.ok()) << loaded.error();
    if (loaded.ok()) out.float_graph = loaded->graph;
    engine::InputSpec input{"input", tensorflow::DT_FLOAT, {1, 128, 128, 3}};
    auto image = engine::loadSample(test::dataPath("images/chelsea.png"), input, engine::ImagePreprocess{});
    EXPECT_TRUE(image.ok()) << image.error();
    if (image.ok()) out.image = *image;
    return out;
  }();
  return s;
}

Result<GraphDef> eightBit(bool per_channel) {
  PipelineOptions options;
  options.compute_diff = false;
  auto r = applyTransforms(setup().float_graph, eightBitPipeline({"input"}, {"1,128,128,3"}, per_channel), {"input"},
                           {kOutput}, options);
  if (!r.ok()) return r.status();
  return r->graph;
}

// The 27 convolution layers of MobileNet v1 before the logits.
std::vector<std::string> convLayers() {
  std::vector<std::string> layers = {"Conv2d_0"};
  for (int i = 1; i <= 13; ++i)
    for (const char* kind : {"_depthwise", "_pointwise"})
      layers.push_back("Conv2d_" + std::to_string(i) + kind);
  return layers;
}

struct Expected {
  bool per_channel;
  std::size_t rows;
  double first_pointwise_sqnr;  // MobilenetV1/MobilenetV1/Conv2d_1_pointwise/Relu6
};

void checkLayers(const Expected& e) {
  SCOPED_TRACE(e.per_channel ? "per_channel" : "per_tensor");
  const Setup& s = setup();
  auto q = eightBit(e.per_channel);
  ASSERT_TRUE(q.ok()) << q.error();
  engine::CompareOptions with, without;
  without.per_layer = false;
  auto on = engine::compare(s.float_graph, *q, {"input"}, {s.image}, {kOutput}, with);
  ASSERT_TRUE(on.ok()) << on.error();
  auto off = engine::compare(s.float_graph, *q, {"input"}, {s.image}, {kOutput}, without);
  ASSERT_TRUE(off.ok()) << off.error();
  EXPECT_TRUE(off->layers.empty());

  // The output figures do not depend on the per-layer fetches.
  ASSERT_EQ(1u, on->outputs.size());
  ASSERT_EQ(1u, off->outputs.size());
  const engine::OutputComparison& a = on->outputs[0];
  const engine::OutputComparison& b = off->outputs[0];
  EXPECT_EQ(a.stats.max_abs, b.stats.max_abs);
  EXPECT_EQ(a.stats.mean_abs, b.stats.mean_abs);
  EXPECT_EQ(a.stats.rmse, b.stats.rmse);
  EXPECT_EQ(a.stats.sqnr_db, b.stats.sqnr_db);
  EXPECT_EQ(a.stats.cosine, b.stats.cosine);
  EXPECT_EQ(a.top1_other, b.top1_other);
  EXPECT_EQ(a.top5_overlap, b.top5_overlap);

  // One row per float tensor, each under a float graph name.
  std::set<std::string> float_names;
  for (const auto& n : s.float_graph.node()) float_names.insert(n.name());
  std::set<std::string> rows;
  std::map<std::string, const engine::ErrorStats*> by_name;
  for (const engine::ErrorStats& layer : on->layers) {
    EXPECT_TRUE(float_names.count(layer.name)) << layer.name;
    EXPECT_TRUE(rows.insert(layer.name).second) << "two rows for " << layer.name;
    by_name[layer.name] = &layer;
  }
  EXPECT_EQ(e.rows, on->layers.size());
  // Every convolution layer's output (its Relu6) has a row with a
  // quantization step.
  for (const std::string& layer : convLayers()) {
    const std::string relu = "MobilenetV1/MobilenetV1/" + layer + "/Relu6";
    ASSERT_TRUE(by_name.count(relu)) << relu;
    EXPECT_GT(by_name[relu]->step, 0) << relu;
  }
  ASSERT_TRUE(by_name.count("MobilenetV1/Logits/Conv2d_1c_1x1/BiasAdd"));
  const std::string first_pointwise = "MobilenetV1/MobilenetV1/Conv2d_1_pointwise/Relu6";
  if (e.per_channel) {
    // Read from the fused layer's quint8 output: no Dequantize is left there.
    // The fused ops are named after their chain's last float op.
    std::map<std::string, std::string> ops;
    for (const auto& n : q->node()) ops[n.name()] = n.op();
    EXPECT_EQ(0u, ops.count(first_pointwise));
    EXPECT_EQ("QuantizedFusedConv2D", ops[first_pointwise + "/eightbit"]);
    EXPECT_EQ("QuantizedFusedConv2D", ops["MobilenetV1/Logits/Conv2d_1c_1x1/BiasAdd/eightbit"]);
    EXPECT_EQ("Dequantize", ops["MobilenetV1/Logits/Conv2d_1c_1x1/BiasAdd"]);
  }
  const engine::ErrorStats& pointwise = *by_name[first_pointwise];
  EXPECT_NEAR(e.first_pointwise_sqnr, pointwise.sqnr_db, 0.0005);
  EXPECT_EQ(64 * 64 * 16, pointwise.count);
}

TEST(QuantCompareLayers, PerChannelGraphHasARowForEveryConvolution) {
  GDS_REQUIRE_SHARED();
  checkLayers({true, 32, 44.248});
}

TEST(QuantCompareLayers, TensorFlowRecipeHasARowForEveryConvolution) {
  GDS_REQUIRE_SHARED();
  checkLayers({false, 74, 33.281});
}

}  // namespace
}  // namespace gds::transforms
