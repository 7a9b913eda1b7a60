// A quantization-aware-trained graph (FakeQuantWithMinMaxVars after the
// activations, as TensorFlow's contrib.quantize writes it) runs in float with
// TensorFlow's FakeQuant arithmetic, and again after quantize_nodes turns the
// FakeQuant into a Requantize with the trained range: the two agree within
// the 8-bit steps, and the float graph's outputs sit on the trained grid.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "engine/ops/fake_quant.h"
#include "engine/rewrite/optimize_for_inference.h"
#include "transforms/transform.h"
#include "transforms/transform_utils.h"

namespace gds::transforms {
namespace {

using tensorflow::DT_FLOAT;

NodeDef node(const std::string& name, const std::string& op, std::vector<std::string> inputs) {
  NodeDef n;
  n.set_name(name);
  n.set_op(op);
  for (auto& i : inputs) n.add_input(i);
  setTypeAttr(&n, "T", DT_FLOAT);
  return n;
}

// image [1,8,8,3] -> input -> conv (3x3x3x4) -> bias -> relu -> act_quant
// (FakeQuantWithMinMaxVars over the trained [0, 6]) -> pool.
GraphDef qatGraph() {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  GraphDef g;
  NodeDef image;
  image.set_name("image");
  image.set_op("Placeholder");
  setTypeAttr(&image, "dtype", DT_FLOAT);
  *g.add_node() = image;
  *g.add_node() = node("input", "Identity", {"image"});
  std::vector<float> w(3 * 3 * 3 * 4), b(4);
  for (auto& x : w) x = d(rng);
  for (auto& x : b) x = d(rng);
  *g.add_node() = makeConst("weights", floatTensor({3, 3, 3, 4}, w));
  *g.add_node() = makeConst("biases", floatTensor({4}, b));
  NodeDef conv = node("conv", "Conv2D", {"input", "weights"});
  for (int i = 0; i < 4; ++i) (*conv.mutable_attr())["strides"].mutable_list()->add_i(1);
  setStringAttr(&conv, "padding", "SAME");
  *g.add_node() = conv;
  *g.add_node() = node("bias", "BiasAdd", {"conv", "biases"});
  *g.add_node() = node("relu", "Relu", {"bias"});
  *g.add_node() = makeConst("act_quant/min", floatTensor({}, {0.0f}));
  *g.add_node() = makeConst("act_quant/max", floatTensor({}, {6.0f}));
  NodeDef fq;
  fq.set_name("act_quant");
  fq.set_op("FakeQuantWithMinMaxVars");
  fq.add_input("relu");
  fq.add_input("act_quant/min");
  fq.add_input("act_quant/max");
  (*fq.mutable_attr())["num_bits"].set_i(8);
  (*fq.mutable_attr())["narrow_range"].set_b(false);
  *g.add_node() = fq;
  NodeDef pool = node("pool", "MaxPool", {"act_quant"});
  for (auto v : {1, 2, 2, 1}) (*pool.mutable_attr())["ksize"].mutable_list()->add_i(v);
  for (auto v : {1, 2, 2, 1}) (*pool.mutable_attr())["strides"].mutable_list()->add_i(v);
  setStringAttr(&pool, "padding", "VALID");
  *g.add_node() = pool;
  return g;
}

std::vector<float> runGraph(const GraphDef& g, const engine::Tensor& input) {
  auto plan = engine::compileForInference(g, {"image"}, {"pool"});
  EXPECT_TRUE(plan.ok()) << plan.error();
  if (!plan.ok()) return {};
  auto out = (*plan)->run({input});
  EXPECT_TRUE(out.ok()) << out.error();
  if (!out.ok()) return {};
  const engine::Tensor& t = (*out)[0];
  return std::vector<float>(t.data<float>(), t.data<float>() + t.numElements());
}

TEST(FakeQuantGraph, RunsBeforeAndAfterQuantizeNodes) {
  const GraphDef g = qatGraph();
  const TransformInfo* t = TransformRegistry::builtin().find("quantize_nodes");
  ASSERT_NE(t, nullptr);
  auto q = t->fn(g, TransformContext("quantize_nodes", {"image"}, {"pool"}, {}));
  ASSERT_TRUE(q.ok()) << q.error();
  for (const auto& n : q->node()) EXPECT_NE(n.op(), "FakeQuantWithMinMaxVars") << n.name();
  // [0, 6] needs no nudging: scale 6/255, zero point 0.
  const float step = engine::ops::nudgeFakeQuantRange(0.0f, 6.0f, 0, 255).scale;
  EXPECT_EQ(step, 6.0f / 255.0f);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> d(-2.0f, 2.0f);
  engine::Tensor image(DT_FLOAT, {1, 8, 8, 3});
  for (std::int64_t i = 0; i < image.numElements(); ++i) image.data<float>()[i] = d(rng);
  const auto expected = runGraph(g, image);
  const auto got = runGraph(*q, image);
  ASSERT_EQ(expected.size(), 16u * 4u);
  ASSERT_EQ(got.size(), expected.size());
  float max_err = 0, max_value = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    // The float graph's activations lie on the trained grid k * 6/255 within [0, 6].
    const float k = expected[i] / step;
    EXPECT_NEAR(k, std::round(k), 1e-3) << i;
    EXPECT_GE(expected[i], 0.0f);
    EXPECT_LE(expected[i], 6.0f);
    max_err = std::max(max_err, std::fabs(expected[i] - got[i]));
    max_value = std::max(max_value, expected[i]);
  }
  EXPECT_GT(max_value, 1.0f);
  // The 8-bit graph also rounds its inputs and weights: within a few steps.
  EXPECT_LE(max_err, 4 * step);
}

}  // namespace
}  // namespace gds::transforms
