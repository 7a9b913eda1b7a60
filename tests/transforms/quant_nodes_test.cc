// quantize_nodes, insert_logging, freeze_requantization_ranges and the
// one-step calibration: TensorFlow's node naming, and graphs that still run
// and agree with float.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <random>

#include "engine/eval/calibrate.h"
#include "engine/eval/compare.h"
#include "engine/rewrite/optimize_for_inference.h"
#include "tests/test_util.h"
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

void setInts(NodeDef* n, const std::string& attr, const std::vector<std::int64_t>& v) {
  auto* list = (*n->mutable_attr())[attr].mutable_list();
  for (auto x : v) list->add_i(x);
}

// image [1,8,8,3] -> input (Identity) -> conv (3x3x3x4, SAME) -> bias ->
// relu -> pool (2x2 max). The Identity keeps quantize_nodes' control inputs
// ("^input" on its Consts) off the fed Placeholder.
GraphDef floatGraph() {
  std::mt19937 rng(1);
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
  setInts(&conv, "strides", {1, 1, 1, 1});
  setStringAttr(&conv, "padding", "SAME");
  *g.add_node() = conv;
  *g.add_node() = node("bias", "BiasAdd", {"conv", "biases"});
  *g.add_node() = node("relu", "Relu", {"bias"});
  NodeDef pool = node("pool", "MaxPool", {"relu"});
  setInts(&pool, "ksize", {1, 2, 2, 1});
  setInts(&pool, "strides", {1, 2, 2, 1});
  setStringAttr(&pool, "padding", "VALID");
  *g.add_node() = pool;
  return g;
}

Result<GraphDef> apply(const std::string& name, const GraphDef& g, TransformParams params,
                       std::vector<std::string> outputs = {"pool"}) {
  const TransformInfo* t = TransformRegistry::builtin().find(name);
  if (!t) return Status::Error("no transform " + name);
  return t->fn(g, TransformContext(name, {"image"}, outputs, std::move(params)));
}

std::map<std::string, const NodeDef*> byName(const GraphDef& g) {
  std::map<std::string, const NodeDef*> m;
  for (const auto& n : g.node()) m[n.name()] = &n;
  return m;
}

engine::Tensor randomImage(int seed) {
  std::mt19937 rng(static_cast<unsigned>(seed));
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  engine::Tensor t(DT_FLOAT, {1, 8, 8, 3});
  for (std::int64_t i = 0; i < t.numElements(); ++i) t.data<float>()[i] = d(rng);
  return t;
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

TEST(QuantizeNodes, NamesFollowTensorFlow) {
  auto q = apply("quantize_nodes", floatGraph(), {});
  ASSERT_TRUE(q.ok()) << q.error();
  auto m = byName(*q);
  ASSERT_TRUE(m.count("conv/eightbit"));
  EXPECT_EQ("QuantizedConv2D", m["conv/eightbit"]->op());
  EXPECT_EQ("QuantizeV2", m["conv_eightbit/input/quantize"]->op());
  EXPECT_EQ("QuantizeV2", m["conv_eightbit/weights/quantize"]->op());
  EXPECT_EQ("Reshape", m["conv_eightbit/input/reshape"]->op());
  EXPECT_EQ("Min", m["conv_eightbit/input/min"]->op());
  EXPECT_EQ("Const", m["conv_eightbit/input/reshape_dims"]->op());
  EXPECT_EQ("RequantizationRange", m["conv/eightbit/requant_range"]->op());
  EXPECT_EQ("Requantize", m["conv/eightbit/requantize"]->op());
  EXPECT_EQ("QuantizedBiasAdd", m["bias/eightbit"]->op());
  EXPECT_EQ("QuantizedRelu", m["relu/eightbit"]->op());
  EXPECT_EQ("QuantizedMaxPool", m["pool/eightbit"]->op());
  // The final Dequantize keeps the float op's name.
  EXPECT_EQ("Dequantize", m["pool"]->op());
  EXPECT_EQ("pool/eightbit:0", m["pool"]->input(0));
  // Dequantize -> QuantizeV2 pairs between eight-bit ops are gone: the
  // BiasAdd reads the conv's Requantize directly.
  EXPECT_EQ("conv/eightbit/requantize:0", m["bias/eightbit"]->input(0));
  EXPECT_EQ("conv/eightbit/requantize:1", m["bias/eightbit"]->input(2));
  EXPECT_EQ("relu/eightbit:0", m["pool/eightbit"]->input(0));
  // TensorFlow keeps the now unused float branch (the recipe ends with
  // strip_unused_nodes); nothing reads its QuantizeV2 any more.
  for (const auto& n : q->node())
    for (const auto& in : n.input()) EXPECT_EQ(std::string::npos, in.find("bias_eightbit/conv/quantize")) << n.name();
  // Inputs of QuantizedConv2D: data, then min/max pairs (contiguous order).
  const NodeDef& conv = *m["conv/eightbit"];
  ASSERT_EQ(6, conv.input_size());
  EXPECT_EQ("conv_eightbit/input/quantize:0", conv.input(0));
  EXPECT_EQ("conv_eightbit/weights/quantize:0", conv.input(1));
  EXPECT_EQ("conv_eightbit/input/quantize:1", conv.input(2));
  EXPECT_EQ("conv_eightbit/weights/quantize:2", conv.input(5));
  EXPECT_EQ(tensorflow::DT_QINT32, conv.attr().at("out_type").type());
  EXPECT_EQ("SAME", conv.attr().at("padding").s());
}

TEST(QuantizeNodes, QuantizedGraphRunsAndTracksFloat) {
  const GraphDef g = floatGraph();
  auto q = apply("quantize_nodes", g, {});
  ASSERT_TRUE(q.ok()) << q.error();
  for (int seed = 0; seed < 3; ++seed) {
    const engine::Tensor image = randomImage(seed);
    auto expected = runGraph(g, image);
    auto got = runGraph(*q, image);
    ASSERT_EQ(expected.size(), got.size());
    float max_value = 0, max_err = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      max_value = std::max(max_value, std::fabs(expected[i]));
      max_err = std::max(max_err, std::fabs(expected[i] - got[i]));
    }
    EXPECT_LT(max_err, 0.03f * max_value) << "seed " << seed;
  }
}

TEST(QuantizeNodes, FallbackRangeReplacesRequantizationRange) {
  auto q = apply("quantize_nodes", floatGraph(), {{"fallback_min", {"-10"}}, {"fallback_max", {"10"}}});
  ASSERT_TRUE(q.ok()) << q.error();
  auto m = byName(*q);
  EXPECT_EQ(0u, m.count("conv/eightbit/requant_range"));
  ASSERT_TRUE(m.count("conv/eightbit/fallback_min"));
  EXPECT_EQ("Const", m["conv/eightbit/fallback_min"]->op());
  EXPECT_EQ("conv/eightbit/fallback_max", m["conv/eightbit/requantize"]->input(4));
  auto lo = floatTensorAttr(*m["conv/eightbit/fallback_min"]);
  ASSERT_TRUE(lo.ok());
  EXPECT_EQ(-10.0f, lo->as<float>()[0]);
}

TEST(QuantizeNodes, InputRangeQuantizesPlaceholders) {
  auto q = apply("quantize_nodes", floatGraph(), {{"input_min", {"-1"}}, {"input_max", {"1"}}});
  ASSERT_TRUE(q.ok()) << q.error();
  auto m = byName(*q);
  EXPECT_EQ(tensorflow::DT_QUINT8, m["image"]->attr().at("dtype").type());
  ASSERT_TRUE(m.count("image_eightbit/dequantize"));
  EXPECT_EQ("image", m["image_eightbit/dequantize"]->input(0));
  EXPECT_EQ("image_eightbit/min", m["image_eightbit/dequantize"]->input(1));
  // Former consumers of the placeholder read the dequantized value.
  EXPECT_EQ("image_eightbit/dequantize", m["input"]->input(0));
}

TEST(QuantizeNodes, IgnoreOpAndErrors) {
  auto q = apply("quantize_nodes", floatGraph(), {{"ignore_op", {"Relu", "MaxPool"}}});
  ASSERT_TRUE(q.ok()) << q.error();
  auto m = byName(*q);
  EXPECT_EQ("Relu", m["relu"]->op());
  EXPECT_EQ("MaxPool", m["pool"]->op());
  EXPECT_EQ("bias", m["relu"]->input(0));
  EXPECT_EQ("Dequantize", m["bias"]->op());
  auto bad = apply("quantize_nodes", floatGraph(), {{"input_min", {"-1"}}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ("quantize_nodes: You must pass both input_min and input_max into quantize_nodes", bad.error());
}

TEST(InsertLogging, AddsPrintNodesForRequantizationRanges) {
  auto q = apply("quantize_nodes", floatGraph(), {});
  ASSERT_TRUE(q.ok()) << q.error();
  auto logged = apply("insert_logging", *q,
                      {{"op", {"RequantizationRange"}}, {"show_name", {"true"}}, {"message", {"__requant_min_max:"}}});
  ASSERT_TRUE(logged.ok()) << logged.error();
  auto m = byName(*logged);
  ASSERT_TRUE(m.count("conv/eightbit/requant_range__print__"));
  const NodeDef& print = *m["conv/eightbit/requant_range__print__"];
  EXPECT_EQ("Print", print.op());
  EXPECT_EQ(";conv/eightbit/requant_range__print__;__requant_min_max:", print.attr().at("message").s());
  ASSERT_EQ(3, print.input_size());
  EXPECT_EQ("conv/eightbit/requant_range:0", print.input(0));
  EXPECT_EQ("conv/eightbit/requant_range:1", print.input(2));
  EXPECT_EQ(1024, print.attr().at("summarize").i());
  // The Requantize reads its min through the Print.
  EXPECT_EQ("conv/eightbit/requant_range__print__:0", m["conv/eightbit/requantize"]->input(3));
  EXPECT_EQ("conv/eightbit/requant_range:1", m["conv/eightbit/requantize"]->input(4));
}

TEST(FreezeRequantizationRanges, UsesPercentilesOfTheLog) {
  auto q = apply("quantize_nodes", floatGraph(), {});
  ASSERT_TRUE(q.ok()) << q.error();
  const std::string log = test::tempDir() + "/minmax.log";
  {
    std::ofstream f(log);
    f << "unrelated line\n";
    for (int i = 0; i < 20; ++i)
      f << "I tensorflow/core/kernels/logging_ops.cc:79] ;conv/eightbit/requant_range__print__;__requant_min_max:["
        << -static_cast<float>(i) << "][" << static_cast<float>(i) << "]\n";
  }
  auto frozen = apply("freeze_requantization_ranges", *q, {{"min_max_log_file", {log}}});
  ASSERT_TRUE(frozen.ok()) << frozen.error();
  auto m = byName(*frozen);
  EXPECT_EQ(0u, m.count("conv/eightbit/requant_range"));
  auto lo = floatTensorAttr(*m["conv/eightbit/requant_range/frozen_min"]);
  auto hi = floatTensorAttr(*m["conv/eightbit/requant_range/frozen_max"]);
  ASSERT_TRUE(lo.ok() && hi.ok());
  // 20 records: sorted mins [-19..0] at round(20*0.05)=1 -> -18; maxes at round(20*0.95)=19 -> 19.
  EXPECT_EQ(-18.0f, lo->as<float>()[0]);
  EXPECT_EQ(19.0f, hi->as<float>()[0]);
  EXPECT_EQ("conv/eightbit/requant_range/frozen_min", m["conv/eightbit/requantize"]->input(3));
  EXPECT_EQ("conv/eightbit/requant_range/frozen_max", m["conv/eightbit/requantize"]->input(4));
  // Other RequantizationRanges stay dynamic.
  EXPECT_EQ("RequantizationRange", m["bias/eightbit/requant_range"]->op());
  auto missing = apply("freeze_requantization_ranges", *q, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ("freeze_requantization_ranges: You must pass a file name to min_max_log_file", missing.error());
}

TEST(Calibration, FreezesEveryRangeFromRepresentativeInputs) {
  const GraphDef g = floatGraph();
  auto q = apply("quantize_nodes", g, {});
  ASSERT_TRUE(q.ok()) << q.error();
  std::vector<std::vector<engine::Tensor>> inputs;
  for (int i = 0; i < 8; ++i) inputs.push_back({randomImage(100 + i)});
  auto cal = engine::calibrate(*q, {"image"}, inputs);
  ASSERT_TRUE(cal.ok()) << cal.error();
  EXPECT_EQ(2u, cal->samples.size());  // conv and bias
  for (const auto& [name, list] : cal->samples) EXPECT_EQ(8u, list.size()) << name;
  for (const auto& n : cal->graph.node()) EXPECT_NE("RequantizationRange", n.op()) << n.name();
  // The calibrated graph still tracks float.
  const engine::Tensor image = randomImage(7);
  auto expected = runGraph(g, image);
  auto got = runGraph(cal->graph, image);
  ASSERT_EQ(expected.size(), got.size());
  float max_value = 0, max_err = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    max_value = std::max(max_value, std::fabs(expected[i]));
    max_err = std::max(max_err, std::fabs(expected[i] - got[i]));
  }
  EXPECT_LT(max_err, 0.1f * max_value);
  // The frozen range is the percentile of what was observed.
  const auto& conv = cal->samples.at("conv/eightbit/requant_range");
  const engine::RangeSample chosen = engine::percentileRange(conv, 5.0f, 5.0f);
  EXPECT_EQ(chosen.min, cal->frozen.at("conv/eightbit/requant_range").min);
  EXPECT_EQ(chosen.max, cal->frozen.at("conv/eightbit/requant_range").max);
}

}  // namespace
}  // namespace gds::transforms

namespace gds::transforms {
namespace {

TEST(Compare, FloatAgainstQuantizeNodesGraph) {
  const GraphDef g = floatGraph();
  auto q = apply("quantize_nodes", g, {});
  ASSERT_TRUE(q.ok()) << q.error();
  auto result = engine::compare(g, *q, {"image"}, {randomImage(3)}, {"pool"});
  ASSERT_TRUE(result.ok()) << result.error();
  ASSERT_EQ(1u, result->outputs.size());
  const engine::OutputComparison& out = result->outputs[0];
  EXPECT_EQ("pool", out.stats.name);
  EXPECT_EQ(64, out.stats.count);
  EXPECT_GT(out.stats.sqnr_db, 25.0);
  EXPECT_GT(out.stats.cosine, 0.99);
  EXPECT_TRUE(out.classifier);  // last dimension 4
  EXPECT_EQ(16, out.rows);
  // Layers matched by name: the Dequantize nodes named after conv, bias, relu.
  std::set<std::string> names;
  for (const auto& l : result->layers) names.insert(l.name);
  EXPECT_TRUE(names.count("conv")) << "layers: " << names.size();
  for (std::size_t i = 1; i < result->layers.size(); ++i)
    EXPECT_LE(result->layers[i - 1].sqnr_db, result->layers[i].sqnr_db);
  for (const auto& l : result->layers) {
    if (l.step > 0) {
      EXPECT_LT(l.rmse_over_step, 2.0) << l.name;
    }
  }
}

}  // namespace
}  // namespace gds::transforms

namespace gds::transforms {
namespace {

// insert_logging's Print nodes run in the interpreter and their stderr lines
// are what freeze_requantization_ranges reads: the two-step TensorFlow recipe
// gives exactly the ranges of the one-step calibration.
TEST(Calibration, InsertLoggingLogFreezesTheSameRangesAsCalibrate) {
  auto q = apply("quantize_nodes", floatGraph(), {});
  ASSERT_TRUE(q.ok()) << q.error();
  auto logged = apply("insert_logging", *q,
                      {{"op", {"RequantizationRange"}}, {"show_name", {"true"}}, {"message", {"__requant_min_max:"}}});
  ASSERT_TRUE(logged.ok()) << logged.error();
  std::vector<std::vector<engine::Tensor>> inputs;
  for (int i = 0; i < 5; ++i) inputs.push_back({randomImage(200 + i)});
  auto plan = engine::compileForInference(*logged, {"image"}, {"pool"});
  ASSERT_TRUE(plan.ok()) << plan.error();
  testing::internal::CaptureStderr();
  for (const auto& in : inputs) ASSERT_TRUE((*plan)->run(in).ok());
  const std::string log_text = testing::internal::GetCapturedStderr();
  EXPECT_NE(std::string::npos, log_text.find(";conv/eightbit/requant_range__print__;__requant_min_max:[")) << log_text;
  const std::string log = test::tempDir() + "/printed.log";
  {
    std::ofstream f(log);
    f << log_text;
  }
  auto frozen = apply("freeze_requantization_ranges", *q, {{"min_max_log_file", {log}}});
  ASSERT_TRUE(frozen.ok()) << frozen.error();
  auto cal = engine::calibrate(*q, {"image"}, inputs);
  ASSERT_TRUE(cal.ok()) << cal.error();
  auto m = byName(*frozen);
  for (const auto& [name, range] : cal->frozen) {
    ASSERT_TRUE(m.count(name + "/frozen_min")) << name;
    EXPECT_EQ(range.min, floatTensorAttr(*m[name + "/frozen_min"])->as<float>()[0]) << name;
    EXPECT_EQ(range.max, floatTensorAttr(*m[name + "/frozen_max"])->as<float>()[0]) << name;
  }
  EXPECT_EQ(2u, cal->frozen.size());
}

TEST(QuantizeWeights, PerChannelStoresSymmetricQint8PerOutputChannel) {
  auto q = apply("quantize_weights", floatGraph(), {{"minimum_size", {"1"}}, {"per_channel", {"true"}}});
  ASSERT_TRUE(q.ok()) << q.error();
  auto m = byName(*q);
  const NodeDef& dq = *m["weights"];
  EXPECT_EQ("Dequantize", dq.op());
  EXPECT_EQ("SCALED", dq.attr().at("mode").s());
  EXPECT_EQ(tensorflow::DT_QINT8, dq.attr().at("T").type());
  EXPECT_EQ(3, dq.attr().at("axis").i());
  // The bias is read by BiasAdd, not as weights: TensorFlow's per-tensor form.
  EXPECT_EQ("MIN_FIRST", m["biases"]->attr().at("mode").s());
  // Every weight is within half a step of its channel's scale m / 127, and
  // each channel's largest magnitude is exactly +-127.
  auto original = floatTensorAttr(*byName(floatGraph())["weights"]);
  auto lo = floatTensorAttr(*m["weights_quantized_min"]);
  auto hi = floatTensorAttr(*m["weights_quantized_max"]);
  auto values = model::decodeTensor(m["weights_quantized_const"]->attr().at("value").tensor());
  ASSERT_TRUE(original.ok() && lo.ok() && hi.ok() && values.ok());
  ASSERT_EQ(4, lo->size());
  std::vector<int> peak(4, 0);
  for (std::int64_t i = 0; i < original->size(); ++i) {
    const int c = static_cast<int>(i % 4);
    EXPECT_EQ(-lo->as<float>()[c], hi->as<float>()[c]);
    const float scale = hi->as<float>()[c] / 127.0f;
    const int v = values->as<std::int8_t>()[i];
    EXPECT_NEAR(original->as<float>()[i], v * scale, 0.5f * scale + 1e-6f);
    peak[static_cast<std::size_t>(c)] = std::max(peak[static_cast<std::size_t>(c)], std::abs(v));
  }
  EXPECT_EQ((std::vector<int>{127, 127, 127, 127}), peak);
}

TEST(QuantizeNodes, PerChannelFusesConvBiasAndRelu) {
  const GraphDef g = floatGraph();
  auto weights = apply("quantize_weights", g, {{"minimum_size", {"1"}}, {"per_channel", {"true"}}});
  ASSERT_TRUE(weights.ok()) << weights.error();
  auto q = apply("quantize_nodes", *weights, {{"per_channel", {"true"}}});
  ASSERT_TRUE(q.ok()) << q.error();
  auto m = byName(*q);
  ASSERT_TRUE(m.count("relu/eightbit"));
  const NodeDef& fused = *m["relu/eightbit"];
  EXPECT_EQ("QuantizedFusedConv2D", fused.op());
  EXPECT_EQ("Relu", fused.attr().at("activation").s());
  EXPECT_EQ("SAME", fused.attr().at("padding").s());
  ASSERT_EQ(7, fused.input_size());
  EXPECT_EQ("relu_eightbit/input/quantize:0", fused.input(0));
  EXPECT_EQ("relu_eightbit/weights", fused.input(1));
  EXPECT_EQ("relu_eightbit/bias", fused.input(2));
  EXPECT_EQ("relu_eightbit/weights_max", fused.input(6));
  // quantize_weights' per-channel values are used as they are.
  auto before = model::decodeTensor(byName(*weights)["weights_quantized_const"]->attr().at("value").tensor());
  auto after = model::decodeTensor(m["relu_eightbit/weights"]->attr().at("value").tensor());
  ASSERT_TRUE(before.ok() && after.ok());
  EXPECT_EQ(before->data, after->data);
  // The max pool reads the fused layer in 8 bits; the float names stay.
  EXPECT_EQ("relu/eightbit:0", m["pool/eightbit"]->input(0));
  EXPECT_EQ("Dequantize", m["relu"]->op());
  EXPECT_EQ(0u, m.count("conv/eightbit"));
  for (const auto& n : q->node()) EXPECT_NE("RequantizationRange", n.op()) << n.name();
  // Closer to float than TensorFlow's per-tensor chain.
  auto plain = apply("quantize_nodes", g, {});
  ASSERT_TRUE(plain.ok()) << plain.error();
  for (int seed = 0; seed < 3; ++seed) {
    const engine::Tensor image = randomImage(seed);
    auto expected = runGraph(g, image);
    auto fused_out = runGraph(*q, image);
    auto plain_out = runGraph(*plain, image);
    ASSERT_EQ(expected.size(), fused_out.size());
    ASSERT_EQ(expected.size(), plain_out.size());
    double fused_err = 0, plain_err = 0, max_value = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      max_value = std::max<double>(max_value, std::fabs(expected[i]));
      fused_err = std::max<double>(fused_err, std::fabs(expected[i] - fused_out[i]));
      plain_err = std::max<double>(plain_err, std::fabs(expected[i] - plain_out[i]));
    }
    EXPECT_LT(fused_err, 0.01 * max_value) << "seed " << seed;
    EXPECT_LT(fused_err, plain_err) << "seed " << seed;
  }
}

TEST(QuantizeNodes, PerChannelHonoursIgnoreOp) {
  auto q = apply("quantize_nodes", floatGraph(), {{"per_channel", {"true"}}, {"ignore_op", {"Relu"}}});
  ASSERT_TRUE(q.ok()) << q.error();
  auto m = byName(*q);
  ASSERT_TRUE(m.count("bias/eightbit"));
  EXPECT_EQ("QuantizedFusedConv2D", m["bias/eightbit"]->op());
  EXPECT_EQ("None", m["bias/eightbit"]->attr().at("activation").s());
  EXPECT_EQ("Relu", m["relu"]->op());
  EXPECT_EQ("bias", m["relu"]->input(0));
  auto all = apply("quantize_nodes", floatGraph(), {{"per_channel", {"true"}}, {"ignore_op", {"Conv2D"}}});
  ASSERT_TRUE(all.ok()) << all.error();
  EXPECT_EQ("Conv2D", byName(*all)["conv"]->op());
}

TEST(QuantizeNodes, RedundantPairRemovalKeepsPerChannelWeightDequantize) {
  // Per-channel weights feeding TensorFlow's plain quantize_nodes: the
  // QuantizeV2(Dequantize(qint8 SCALED axis)) pair cannot be wired through
  // (QuantizedConv2D takes one quint8 range), so it stays.
  auto weights = apply("quantize_weights", floatGraph(), {{"minimum_size", {"1"}}, {"per_channel", {"true"}}});
  ASSERT_TRUE(weights.ok()) << weights.error();
  auto q = apply("quantize_nodes", *weights, {});
  ASSERT_TRUE(q.ok()) << q.error();
  auto m = byName(*q);
  EXPECT_EQ("conv_eightbit/weights/quantize:0", m["conv/eightbit"]->input(1));
  EXPECT_EQ("weights", m["conv_eightbit/weights/quantize"]->input(0));
  const engine::Tensor image = randomImage(4);
  auto expected = runGraph(floatGraph(), image);
  auto got = runGraph(*q, image);
  ASSERT_EQ(expected.size(), got.size());
  double max_value = 0, max_err = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    max_value = std::max<double>(max_value, std::fabs(expected[i]));
    max_err = std::max<double>(max_err, std::fabs(expected[i] - got[i]));
  }
  EXPECT_LT(max_err, 0.05 * max_value);
}

}  // namespace
}  // namespace gds::transforms
