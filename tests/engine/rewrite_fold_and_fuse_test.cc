// Plan-time constant folding and contraction fusion
// (engine/rewrite/fold_and_fuse.h) and the oneDNN convolution path
// (engine/ops/dnnl_float.h): every fused or oneDNN result equals the unfused
// reference kernels on the same inputs (1e-4), the fused node keeps the last
// node's name, and a fed or fetched intermediate keeps its pair apart.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "engine/eval/benchmark.h"
#include "engine/kernel_choice.h"
#include "engine/ops/conv.h"
#include "engine/ops/dnnl_float.h"
#include "engine/ops/dnnl_float_parallel.h"
#include "engine/ops/gemm.h"
#include "engine/ops/nn.h"
#include "engine/ops/winograd.h"
#include "engine/rewrite/fold_and_fuse.h"
#include "engine/rewrite/optimize_for_inference.h"
#include "engine/thread_pool.h"
#include "model/graph_builder.h"
#include "model/io.h"
#include "model/memory_budget.h"
#include "tests/test_util.h"

namespace gds::engine {
namespace {

using model::GraphBuilder;

std::vector<float> wave(std::int64_t n, float scale, float offset = 0.0f) {
  std::vector<float> v(static_cast<size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = std::sin(scale * static_cast<float>(i + 1)) + offset;
  return v;
}

Tensor floatTensor(const Shape& shape, const std::vector<float>& values) {
  Tensor t(tensorflow::DT_FLOAT, shape);
  std::copy(values.begin(), values.end(), t.data<float>());
  return t;
}

struct Config {
  bool optimize;
  bool reference;
  ops::GemmBackend backend;
  int threads;
  std::string name() const {
    return std::string(optimize ? "fused" : "unfused") + (reference ? " reference" : "") + " " +
           ops::gemmBackendName(backend) + " x" + std::to_string(threads);
  }
};

// Restores the float backend a test changed.
class FusionTest : public ::testing::Test {
 protected:
  void TearDown() override { (void)setKernelChoice(saved_); }
  KernelChoice saved_ = kernelChoice();
};

struct RunResult {
  std::vector<Tensor> outputs;
  std::vector<std::pair<std::string, std::string>> nodes;  // (name, op) of the plan's nodes
};

RunResult run(const tensorflow::GraphDef& g, const std::vector<std::string>& feeds, const std::vector<Tensor>& values,
              const std::vector<std::string>& fetches, const Config& c) {
  KernelChoice choice = kernelChoice();
  choice.float_gemm = c.backend;
  const Status set = setKernelChoice(choice);
  EXPECT_TRUE(set.ok()) << set.message();
  PlanOptions options;
  options.reference_kernels = c.reference;
  options.num_threads = c.threads;
  InferenceRewrites rewrites;
  rewrites.fold_and_fuse = c.optimize;
  auto plan = compileForInference(g, feeds, fetches, options, rewrites);
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  RunResult r;
  if (!plan.ok()) return r;
  for (const auto& n : (*plan)->nodes()) r.nodes.push_back({n.name, n.op});
  // Twice: the second run reuses the primitives and reordered weights.
  for (int k = 0; k < 2; ++k) {
    auto out = (*plan)->run(values);
    EXPECT_TRUE(out.ok()) << out.status().message();
    if (out.ok()) r.outputs = *out;
  }
  return r;
}

float maxAbsDiff(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.shape(), b.shape());
  if (a.shape() != b.shape()) return 1e9f;
  float d = 0;
  for (std::int64_t i = 0; i < a.numElements(); ++i) d = std::max(d, std::fabs(a.data<float>()[i] - b.data<float>()[i]));
  return d;
}

std::vector<Config> optimizedConfigs() {
  std::vector<Config> configs;
  for (int threads : {1, 2}) {
    configs.push_back({true, true, ops::GemmBackend::kEigen, threads});
    configs.push_back({true, false, ops::GemmBackend::kEigen, threads});
    configs.push_back({false, false, ops::GemmBackend::kEigen, threads});
    if (dnnl_float::available()) {
      configs.push_back({true, false, ops::GemmBackend::kOneDnn, threads});
      configs.push_back({false, false, ops::GemmBackend::kOneDnn, threads});
    }
  }
  return configs;
}

// Every configuration against the unfused reference kernels; returns the
// nodes of the fused optimized plan.
std::vector<std::pair<std::string, std::string>> expectAllAgree(const tensorflow::GraphDef& g, const Tensor& input,
                                                                 const std::string& fetch) {
  const RunResult ref = run(g, {"input"}, {input}, {fetch}, {false, true, ops::GemmBackend::kEigen, 1});
  std::vector<std::pair<std::string, std::string>> fused_nodes;
  for (const Config& c : optimizedConfigs()) {
    SCOPED_TRACE(c.name());
    const RunResult r = run(g, {"input"}, {input}, {fetch}, c);
    if (r.outputs.empty() || ref.outputs.empty()) continue;
    EXPECT_LE(maxAbsDiff(r.outputs[0], ref.outputs[0]), 1e-4f);
    if (c.optimize && !c.reference) fused_nodes = r.nodes;
  }
  return fused_nodes;
}

bool hasNode(const std::vector<std::pair<std::string, std::string>>& nodes, const std::string& name,
             const std::string& op) {
  return std::find(nodes.begin(), nodes.end(), std::make_pair(name, op)) != nodes.end();
}

int countOp(const std::vector<std::pair<std::string, std::string>>& nodes, const std::string& op) {
  return static_cast<int>(std::count_if(nodes.begin(), nodes.end(), [&](const auto& n) { return n.second == op; }));
}

// input [1, 9, 11, 3] -> Conv2D 3x3 stride 2 SAME (8 outputs) -> BiasAdd -> Relu.
tensorflow::GraphDef convBiasRelu(GraphBuilder& b) {
  const std::string x = b.placeholder("input", tensorflow::DT_FLOAT, {1, 9, 11, 3});
  const std::string w = b.constantFloat("w", {3, 3, 3, 8}, wave(3 * 3 * 3 * 8, 0.37f));
  const std::string conv = b.conv2d("conv", x, w, {1, 2, 2, 1}, "SAME");
  const std::string bias = b.biasAdd("bias", conv, b.constantFloat("b", {8}, wave(8, 1.3f)));
  b.relu("relu", bias);
  return b.graph();
}

// The rewrites read the inputs an op declares: a window op with none (a
// damaged file) made the Pad absorption read past the node's inputs
// (found by the sanitized run fuzzer). The graph runs unrewritten and the
// compile names the node.
TEST(FusionInput, NodeWithFewerInputsThanItsOpIsNamedNotRewritten) {
  tensorflow::GraphDef g;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString("node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } }\n"
                                    "node { name: 'pool' op: 'MaxPool' attr { key: 'T' value { type: DT_FLOAT } }\n"
                                    "  attr { key: 'padding' value { s: 'VALID' } } attr { key: 'ksize' value { list { i: 1 i: 2 i: 2 i: 1 } } }\n"
                                    "  attr { key: 'strides' value { list { i: 1 i: 1 i: 1 i: 1 } } } }\n",
                                    &g));
  auto plan = compileForInference(g, {"x"}, {"pool"});
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().message(), "node 'pool' (MaxPool): expects 1 input (input), has 0");
}

TEST_F(FusionTest, Conv2DBiasAddReluBecomesOneFusedConv2DNamedAfterTheRelu) {
  GraphBuilder b;
  const auto g = convBiasRelu(b);
  const Tensor input = floatTensor({1, 9, 11, 3}, wave(9 * 11 * 3, 0.11f));
  const auto nodes = expectAllAgree(g, input, "relu");
  EXPECT_TRUE(hasNode(nodes, "relu", "_FusedConv2D"));
  EXPECT_EQ(countOp(nodes, "Conv2D"), 0);
  EXPECT_EQ(countOp(nodes, "BiasAdd"), 0);
  EXPECT_EQ(countOp(nodes, "Relu"), 0);
}

TEST_F(FusionTest, FetchingTheBiasAddKeepsItApartFromTheRelu) {
  GraphBuilder b;
  const auto g = convBiasRelu(b);
  const Tensor input = floatTensor({1, 9, 11, 3}, wave(9 * 11 * 3, 0.11f));
  const RunResult ref = run(g, {"input"}, {input}, {"bias", "relu"}, {false, true, ops::GemmBackend::kEigen, 1});
  const RunResult fused = run(g, {"input"}, {input}, {"bias", "relu"}, {true, false, ops::gemmBackend(), 1});
  ASSERT_EQ(fused.outputs.size(), 2u);
  ASSERT_EQ(ref.outputs.size(), 2u);
  EXPECT_LE(maxAbsDiff(fused.outputs[0], ref.outputs[0]), 1e-4f);
  EXPECT_LE(maxAbsDiff(fused.outputs[1], ref.outputs[1]), 1e-4f);
  // Conv2D + BiasAdd still fuse (under the BiasAdd's name); the Relu runs alone.
  EXPECT_TRUE(hasNode(fused.nodes, "bias", "_FusedConv2D"));
  EXPECT_TRUE(hasNode(fused.nodes, "relu", "Relu"));
}

TEST_F(FusionTest, FetchingTheConvolutionDisablesFusion) {
  GraphBuilder b;
  const auto g = convBiasRelu(b);
  const Tensor input = floatTensor({1, 9, 11, 3}, wave(9 * 11 * 3, 0.11f));
  const RunResult fused = run(g, {"input"}, {input}, {"conv", "relu"}, {true, false, ops::gemmBackend(), 1});
  EXPECT_TRUE(hasNode(fused.nodes, "conv", "Conv2D"));
  EXPECT_TRUE(hasNode(fused.nodes, "bias", "BiasAdd"));
  EXPECT_TRUE(hasNode(fused.nodes, "relu", "Relu"));
}

TEST_F(FusionTest, FeedingTheBiasAddRunsTheReluOnTheFeed) {
  GraphBuilder b;
  const auto g = convBiasRelu(b);
  const Tensor fed = floatTensor({1, 5, 6, 8}, wave(5 * 6 * 8, 0.5f, -0.2f));
  const RunResult r = run(g, {"bias"}, {fed}, {"relu"}, {true, false, ops::gemmBackend(), 1});
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(countOp(r.nodes, "_FusedConv2D"), 0);
  EXPECT_TRUE(hasNode(r.nodes, "relu", "Relu"));
  for (std::int64_t i = 0; i < fed.numElements(); ++i)
    EXPECT_EQ(r.outputs[0].data<float>()[i], std::max(0.0f, fed.data<float>()[i]));
}

TEST_F(FusionTest, DepthwiseWithFusedBatchNormAndRelu6FoldsTheNormIntoTheFilter) {
  GraphBuilder b;
  const std::string x = b.placeholder("input", tensorflow::DT_FLOAT, {1, 8, 7, 4});
  const std::string w = b.constantFloat("w", {3, 3, 4, 2}, wave(3 * 3 * 4 * 2, 0.61f));
  const std::string dw = b.depthwiseConv2d("dw", x, w, {1, 1, 1, 1}, "SAME");
  const std::string bn = b.fusedBatchNorm("bn", dw, b.constantFloat("gamma", {8}, wave(8, 0.9f, 1.5f)),
                                          b.constantFloat("beta", {8}, wave(8, 1.7f)),
                                          b.constantFloat("mean", {8}, wave(8, 0.3f)),
                                          b.constantFloat("var", {8}, wave(8, 0.5f, 1.2f)), 0.001f);
  b.relu6("relu6", bn);
  const Tensor input = floatTensor({1, 8, 7, 4}, wave(8 * 7 * 4, 0.23f, 0.5f));
  const auto nodes = expectAllAgree(b.graph(), input, "relu6");
  EXPECT_TRUE(hasNode(nodes, "relu6", "_FusedDepthwiseConv2dNative"));
  EXPECT_EQ(countOp(nodes, "FusedBatchNorm"), 0);
}

// ResNet's residual blocks: conv + bias + batch norm, plus the shortcut, then Relu.
TEST_F(FusionTest, ResidualAddAndReluJoinTheConvolution) {
  GraphBuilder b;
  const std::string x = b.placeholder("input", tensorflow::DT_FLOAT, {1, 12, 10, 8});
  const std::string w = b.constantFloat("w", {3, 3, 8, 8}, wave(3 * 3 * 8 * 8, 0.31f));
  const std::string bias = b.biasAdd("bias", b.conv2d("conv", x, w, {1, 1, 1, 1}, "SAME"),
                                     b.constantFloat("b", {8}, wave(8, 1.1f)));
  const std::string bn = b.fusedBatchNorm("bn", bias, b.constantFloat("gamma", {8}, wave(8, 0.9f, 1.5f)),
                                          b.constantFloat("beta", {8}, wave(8, 1.7f)),
                                          b.constantFloat("mean", {8}, wave(8, 0.3f)),
                                          b.constantFloat("var", {8}, wave(8, 0.5f, 1.2f)), 0.001f);
  b.relu("relu", b.binary("AddV2", "add", bn, x));
  const Tensor input = floatTensor({1, 12, 10, 8}, wave(12 * 10 * 8, 0.17f));
  const auto nodes = expectAllAgree(b.graph(), input, "relu");
  EXPECT_TRUE(hasNode(nodes, "relu", "_FusedConv2D"));
  EXPECT_EQ(countOp(nodes, "AddV2"), 0);
  EXPECT_EQ(countOp(nodes, "Relu"), 0);
}

// ResNet's stem: Pad(3) then a VALID 7x7 stride-2 convolution.
TEST_F(FusionTest, PadBeforeAValidConvolutionBecomesItsExplicitPadding) {
  GraphBuilder b;
  const std::string x = b.placeholder("input", tensorflow::DT_FLOAT, {1, 20, 17, 3});
  auto* pad = b.add("Pad", "pad", {x, b.constantInt32("pads", {4, 2}, {0, 0, 3, 2, 1, 3, 0, 0})});
  model::setAttrType(pad, "T", tensorflow::DT_FLOAT);
  const std::string w = b.constantFloat("w", {7, 7, 3, 8}, wave(7 * 7 * 3 * 8, 0.23f));
  const std::string conv = b.conv2d("conv", "pad", w, {1, 2, 2, 1}, "VALID");
  b.relu("relu", b.biasAdd("bias", conv, b.constantFloat("b", {8}, wave(8, 1.3f))));
  const Tensor input = floatTensor({1, 20, 17, 3}, wave(20 * 17 * 3, 0.09f));
  const auto nodes = expectAllAgree(b.graph(), input, "relu");
  EXPECT_TRUE(hasNode(nodes, "relu", "_FusedConv2D"));
  EXPECT_EQ(countOp(nodes, "Pad"), 0);
  // The fused node records every graph node it replaced, the Pad included,
  // and the convolution as the one doing the work.
  auto optimized = optimizeForInference(b.graph(), {"input"}, {"relu"});
  ASSERT_NE(optimized, nullptr);
  const auto fused = fusedOpsByNode(*optimized);
  ASSERT_EQ(fused.count("relu"), 1u);
  EXPECT_EQ(fused.at("relu").ops, "Conv2D+BiasAdd+Relu");
  EXPECT_EQ(fused.at("relu").nodes, (std::vector<std::string>{"pad", "conv", "bias", "relu"}));
  EXPECT_EQ(fused.at("relu").head, "conv");
}

// ResNet's pool: Pad(1) of a Relu's output, then a VALID 3x3 stride-2 max
// pool. The pool takes the padding over, with Pad's zeros taking part: here
// the inputs are all negative, so a window reaching into the padding is 0
// exactly, where a pool that skipped padding cells would give the largest
// negative input.
TEST_F(FusionTest, PadBeforeAValidMaxPoolBecomesItsPaddingOfZeros) {
  GraphBuilder b;
  const std::string x = b.placeholder("input", tensorflow::DT_FLOAT, {1, 9, 8, 5});
  auto* pad = b.add("Pad", "pad", {x, b.constantInt32("pads", {4, 2}, {0, 0, 1, 1, 1, 2, 0, 0})});
  model::setAttrType(pad, "T", tensorflow::DT_FLOAT);
  const std::string pool = b.pool("MaxPool", "pool", "pad", {1, 3, 3, 1}, {1, 2, 2, 1}, "VALID");
  const Tensor input = floatTensor({1, 9, 8, 5}, wave(9 * 8 * 5, 0.19f, -1.5f));
  for (std::int64_t i = 0; i < input.numElements(); ++i) ASSERT_LT(input.data<float>()[i], 0.0f);
  const auto nodes = expectAllAgree(b.graph(), input, pool);
  EXPECT_TRUE(hasNode(nodes, "pool", "MaxPool"));
  EXPECT_EQ(countOp(nodes, "Pad"), 0);
  auto optimized = optimizeForInference(b.graph(), {"input"}, {pool});
  ASSERT_NE(optimized, nullptr);
  const auto fused = fusedOpsByNode(*optimized);
  ASSERT_EQ(fused.count("pool"), 1u);
  EXPECT_EQ(fused.at("pool").ops, "");  // still a MaxPool: no fused_ops
  EXPECT_EQ(fused.at("pool").nodes, (std::vector<std::string>{"pad", "pool"}));
  EXPECT_EQ(fused.at("pool").head, "pool");
  const RunResult r = run(b.graph(), {"input"}, {input}, {pool}, {true, false, ops::gemmBackend(), 1});
  ASSERT_EQ(r.outputs.size(), 1u);
  // Output [1, 5, 5, 5]: row 0 and column 0 windows reach into the padding.
  ASSERT_EQ(r.outputs[0].shape(), (Shape{1, 5, 5, 5}));
  EXPECT_EQ(r.outputs[0].data<float>()[0], 0.0f);
  // Window (1, 1) covers input rows 1-3 and columns 1-3 only.
  float expected = -1e30f;
  for (int y = 1; y <= 3; ++y)
    for (int xx = 1; xx <= 3; ++xx) expected = std::max(expected, input.data<float>()[(y * 8 + xx) * 5 + 2]);
  EXPECT_EQ(r.outputs[0].data<float>()[(1 * 5 + 1) * 5 + 2], expected);
}

// A pool whose Pad is fetched keeps it.
TEST_F(FusionTest, AFetchedPadStaysBeforeTheMaxPool) {
  GraphBuilder b;
  const std::string x = b.placeholder("input", tensorflow::DT_FLOAT, {1, 6, 6, 2});
  auto* pad = b.add("Pad", "pad", {x, b.constantInt32("pads", {4, 2}, {0, 0, 1, 1, 1, 1, 0, 0})});
  model::setAttrType(pad, "T", tensorflow::DT_FLOAT);
  const std::string pool = b.pool("MaxPool", "pool", "pad", {1, 3, 3, 1}, {1, 2, 2, 1}, "VALID");
  const Tensor input = floatTensor({1, 6, 6, 2}, wave(72, 0.3f));
  const RunResult r = run(b.graph(), {"input"}, {input}, {"pad", pool}, {true, false, ops::gemmBackend(), 1});
  EXPECT_TRUE(hasNode(r.nodes, "pad", "Pad"));
  ASSERT_EQ(r.outputs.size(), 2u);
  EXPECT_EQ(r.outputs[0].shape(), (Shape{1, 8, 8, 2}));
}

// Winograd on a 3x3 stride-1 convolution with 64 channels and 30x28 outputs
// (winogradPays; oneDNN's F(4x4, 3x3) from 28x28 outputs up, F(2x2, 3x3)
// below), on one thread and split between two, against the direct
// convolution and the reference loops.
TEST_F(FusionTest, WinogradConvolutionAgreesWithTheDirectOne) {
  const Shape in_shape = {1, 30, 28, 64};
  GraphBuilder b;
  const std::string x = b.placeholder("input", tensorflow::DT_FLOAT, in_shape);
  const std::string w = b.constantFloat("w", {3, 3, 64, 64}, wave(3 * 3 * 64 * 64, 0.53f, 0.0f));
  const std::string conv = b.conv2d("conv", x, w, {1, 1, 1, 1}, "SAME");
  b.relu("relu", b.biasAdd("bias", conv, b.constantFloat("b", {64}, wave(64, 1.3f))));
  const Tensor input = floatTensor(in_shape, wave(model::numElements(in_shape), 0.07f));
  ops::ConvGeometry s;
  s.in_h = 30, s.in_w = 28, s.in_c = 64, s.filter_h = s.filter_w = 3, s.out_c = 64, s.out_h = 30, s.out_w = 28;
  s.pad_top = s.pad_left = 1;
  EXPECT_TRUE(dnnl_float::Convolution::winogradPays(s, false));
  if (dnnl_float::available()) {
    const std::vector<float> filter = wave(3 * 3 * 64 * 64, 0.53f);
    dnnl_float::Convolution::Options o;
    o.winograd = true;
    auto wino = dnnl_float::Convolution::create(s, false, filter.data(), nullptr, ops::Activation::kNone, o);
    ASSERT_NE(wino, nullptr);
    // oneDNN implements Winograd for AVX-512 only; elsewhere the request
    // falls back to its direct convolution, which must agree just the same.
    ops::ConvGeometry small = s;  // 14x14 outputs
    small.in_h = small.in_w = small.out_h = small.out_w = 14;
    auto wino_small = dnnl_float::Convolution::create(small, false, filter.data(), nullptr, ops::Activation::kNone, o);
    ASSERT_NE(wino_small, nullptr);
    if (__builtin_cpu_supports("avx512f")) {
      EXPECT_NE(wino->implementation().find("wino_4x3"), std::string::npos) << wino->implementation();
      EXPECT_NE(wino_small->implementation().find("wino_2x3"), std::string::npos) << wino_small->implementation();
    } else {
      EXPECT_EQ(wino->implementation().find("wino"), std::string::npos) << wino->implementation();
      EXPECT_EQ(wino_small->implementation().find("wino"), std::string::npos) << wino_small->implementation();
    }
  }
  const RunResult ref = run(b.graph(), {"input"}, {input}, {"relu"}, {false, true, ops::GemmBackend::kEigen, 1});
  ASSERT_EQ(ref.outputs.size(), 1u);
  for (bool winograd : {true, false})
    for (int threads : {1, 2}) {
      SCOPED_TRACE(std::string(winograd ? "winograd" : "direct") + " x" + std::to_string(threads));
      PlanOptions options;
      options.num_threads = threads;
      options.winograd = winograd;
      auto plan = compileForInference(b.graph(), {"input"}, {"relu"}, options);
      ASSERT_TRUE(plan.ok()) << plan.status().message();
      auto out = (*plan)->run({input});
      ASSERT_TRUE(out.ok()) << out.status().message();
      EXPECT_LE(maxAbsDiff((*out)[0], ref.outputs[0]), 1e-4f);
    }
  EXPECT_FALSE(dnnl_float::Convolution::winogradPays(s, true));  // never depthwise
  s.stride_h = 2;
  EXPECT_FALSE(dnnl_float::Convolution::winogradPays(s, false));
}

// The engine's Winograd (on AVX2 CPUs, where oneDNN has none) keeps a
// transformed filter four times the filter's size: under a memory budget
// too small for it the layer runs the direct convolution, bit for bit what
// --winograd=false computes; with room for it, its own rounding.
TEST_F(FusionTest, WinogradStaysWithinTheMemoryBudget) {
  ops::ConvGeometry s;
  s.in_h = 30, s.in_w = 28, s.in_c = 64, s.filter_h = s.filter_w = 3, s.out_c = 64, s.out_h = 30, s.out_w = 28;
  s.pad_top = s.pad_left = 1;
  if (!dnnl_float::available() || dnnl_float::Convolution::winogradAvailable() ||
      !ops::WinogradF43::supports(s, false))
    GTEST_SKIP() << "the engine's own Winograd is not used on this CPU";
  const Shape in_shape = {1, 30, 28, 64};
  GraphBuilder b;
  const std::string x = b.placeholder("input", tensorflow::DT_FLOAT, in_shape);
  const std::string w = b.constantFloat("w", {3, 3, 64, 64}, wave(3 * 3 * 64 * 64, 0.53f, 0.0f));
  b.relu("relu", b.biasAdd("bias", b.conv2d("conv", x, w, {1, 1, 1, 1}, "SAME"), b.constantFloat("b", {64}, wave(64, 1.3f))));
  const Tensor input = floatTensor(in_shape, wave(model::numElements(in_shape), 0.07f));
  auto runWith = [&](bool winograd, std::int64_t budget) {
    model::setMemoryBudget(budget);
    PlanOptions options;
    options.winograd = winograd;
    auto plan = compileForInference(b.graph(), {"input"}, {"relu"}, options);
    auto out = plan.ok() ? (*plan)->run({input}) : Result<std::vector<Tensor>>(plan.status());
    model::setMemoryBudget(0);
    EXPECT_TRUE(out.ok()) << out.status().message();
    return out.ok() ? (*out)[0] : Tensor();
  };
  const std::int64_t transformed = 36 * 64 * 64 * 4;
  const Tensor direct = runWith(false, 0);
  const Tensor squeezed = runWith(true, transformed - 1);
  const Tensor winograd = runWith(true, transformed);
  EXPECT_EQ(maxAbsDiff(squeezed, direct), 0.0f);
  EXPECT_GT(maxAbsDiff(winograd, direct), 0.0f);
  EXPECT_LE(maxAbsDiff(winograd, direct), 1e-4f);
}

// A filter larger than its input (ResNet's last stage): two threads split
// the output channels instead of the rows, each reading half the weights;
// with a residual Add and with a bias and Relu only.
TEST_F(FusionTest, ChannelSlicesOfAWeightHeavyConvolutionAgree) {
  for (bool residual : {false, true}) {
    SCOPED_TRACE(residual ? "residual" : "bias and relu");
    GraphBuilder b;
    const std::string x = b.placeholder("input", tensorflow::DT_FLOAT, {1, 5, 4, 64});
    const std::string w = b.constantFloat("w", {3, 3, 64, 96}, wave(3 * 3 * 64 * 96, 0.41f));
    const std::string bias = b.biasAdd("bias", b.conv2d("conv", x, w, {1, 1, 1, 1}, "SAME"),
                                       b.constantFloat("b", {96}, wave(96, 1.1f)));
    std::string last = bias;
    if (residual) {
      const std::string w2 = b.constantFloat("w2", {1, 1, 64, 96}, wave(64 * 96, 0.29f));
      last = b.binary("AddV2", "add", bias, b.conv2d("shortcut", x, w2, {1, 1, 1, 1}, "SAME"));
    }
    b.relu("relu", last);
    const Tensor input = floatTensor({1, 5, 4, 64}, wave(5 * 4 * 64, 0.13f));
    const auto nodes = expectAllAgree(b.graph(), input, "relu");
    EXPECT_TRUE(hasNode(nodes, "relu", "_FusedConv2D"));
  }
}

// A classifier's 1x1 convolution of a single pixel (MobileNet's logits,
// 1024 -> 1001) has one output row to split: two threads take halves of
// the output channels, each reading half of the weights, with the same
// results as one.
TEST_F(FusionTest, ASinglePixelConvolutionIsSplitByChannels) {
  if (!dnnl_float::available()) GTEST_SKIP() << "oneDNN is not built in";
  ops::ConvGeometry s;
  s.in_h = s.in_w = s.out_h = s.out_w = 1;
  s.in_c = 1024, s.out_c = 1001;
  const std::vector<float> filter = wave(s.in_c * s.out_c, 0.37f), bias = wave(s.out_c, 1.3f);
  const std::vector<float> input = wave(s.in_c, 0.11f);
  std::vector<std::vector<float>> outputs;
  for (int threads : {1, 2}) {
    auto conv = dnnl_float::ParallelConvolution::create(s, false, filter.data(), bias.data(), ops::Activation::kRelu,
                                                        false, true, threads);
    ASSERT_NE(conv, nullptr);
    EXPECT_EQ(conv->parts(), static_cast<std::size_t>(threads));
    ThreadPool pool(threads);
    outputs.emplace_back(static_cast<std::size_t>(s.out_c));
    conv->run(input.data(), outputs.back().data(), pool);
  }
  double max_diff = 0, expected0 = bias[0];
  for (std::int64_t c = 0; c < s.in_c; ++c) expected0 += static_cast<double>(input[c]) * filter[c * s.out_c];
  for (std::size_t i = 0; i < outputs[0].size(); ++i)
    max_diff = std::max(max_diff, static_cast<double>(std::fabs(outputs[0][i] - outputs[1][i])));
  EXPECT_LE(max_diff, 1e-5);
  EXPECT_NEAR(outputs[1][0], std::max(0.0, expected0), 1e-4);
}

// Two threads split a 1x1 convolution whose rows divide evenly by rows
// (whole rows per thread, as the next layer's parts read them), even where
// the filter outweighs the input, and every depthwise convolution, however
// small: the same values as one thread, residual included.
TEST_F(FusionTest, EvenRowsAndSmallDepthwiseLayersAreSplitBetweenThreads) {
  if (!dnnl_float::available()) GTEST_SKIP() << "oneDNN is not built in";
  for (bool depthwise : {false, true}) {
    SCOPED_TRACE(depthwise ? "depthwise 3x3" : "1x1 with a residual");
    ops::ConvGeometry s;
    s.in_h = s.in_w = s.out_h = s.out_w = depthwise ? 6 : 14;
    s.in_c = depthwise ? 32 : 64;
    s.out_c = depthwise ? 1 : 256;  // 1x1: 16384 weights against 12544 inputs, 6.4 MFLOP
    if (depthwise) s.filter_h = s.filter_w = 3, s.pad_top = s.pad_left = 1;
    const std::int64_t channels = s.outputChannels(depthwise), n = s.out_h * s.out_w * channels;
    const std::vector<float> filter = wave(s.filter_h * s.filter_w * s.in_c * s.out_c, 0.37f);
    const std::vector<float> bias = wave(channels, 1.3f), input = wave(s.in_h * s.in_w * s.in_c, 0.11f);
    const std::vector<float> addend = wave(n, 0.7f);
    std::vector<std::vector<float>> outputs;
    for (int threads : {1, 2}) {
      auto conv = dnnl_float::ParallelConvolution::create(s, depthwise, filter.data(), bias.data(),
                                                          ops::Activation::kRelu, !depthwise, true, threads);
      ASSERT_NE(conv, nullptr);
      EXPECT_EQ(conv->parts(), static_cast<std::size_t>(threads));
      ThreadPool pool(threads);
      outputs.push_back(depthwise ? std::vector<float>(static_cast<std::size_t>(n)) : addend);
      conv->run(input.data(), outputs.back().data(), pool);
    }
    EXPECT_EQ(outputs[0], outputs[1]);
    // Every output, against the reference loops.
    std::vector<float> expected(static_cast<std::size_t>(n));
    if (depthwise) ops::depthwiseConv2dReference(s, input.data(), filter.data(), expected.data());
    else ops::conv2dReference(s, input.data(), filter.data(), expected.data());
    ops::biasActivation(expected.data(), s.out_h * s.out_w, channels, bias.data(), ops::Activation::kRelu, nullptr,
                        depthwise ? nullptr : addend.data());
    for (std::int64_t i = 0; i < n; ++i)
      ASSERT_NEAR(outputs[1][static_cast<std::size_t>(i)], expected[static_cast<std::size_t>(i)], 1e-4) << i;
  }
}

// The residual's own buffer becomes the fused convolution's output when
// nothing else reads it (here a Sigmoid's result); fetching the Sigmoid as
// well keeps its buffer intact.
TEST_F(FusionTest, AResidualReadByNoOneElseIsAddedInPlace) {
  GraphBuilder b;
  const std::string x = b.placeholder("input", tensorflow::DT_FLOAT, {1, 7, 6, 16});
  const std::string w = b.constantFloat("w", {3, 3, 16, 16}, wave(3 * 3 * 16 * 16, 0.31f));
  const std::string bias = b.biasAdd("bias", b.conv2d("conv", x, w, {1, 1, 1, 1}, "SAME"),
                                     b.constantFloat("b", {16}, wave(16, 1.1f)));
  const std::string sig = b.unary("Sigmoid", "sig", x);
  b.relu("relu", b.binary("AddV2", "add", bias, sig));
  const Tensor input = floatTensor({1, 7, 6, 16}, wave(7 * 6 * 16, 0.17f));
  const auto nodes = expectAllAgree(b.graph(), input, "relu");
  EXPECT_TRUE(hasNode(nodes, "relu", "_FusedConv2D"));
  const RunResult ref = run(b.graph(), {"input"}, {input}, {"sig", "relu"}, {false, true, ops::GemmBackend::kEigen, 1});
  for (int threads : {1, 2}) {
    const RunResult r = run(b.graph(), {"input"}, {input}, {"sig", "relu"}, {true, false, ops::gemmBackend(), threads});
    ASSERT_EQ(r.outputs.size(), 2u);
    ASSERT_EQ(ref.outputs.size(), 2u);
    EXPECT_LE(maxAbsDiff(r.outputs[0], ref.outputs[0]), 1e-6f) << "the fetched Sigmoid was overwritten";
    EXPECT_LE(maxAbsDiff(r.outputs[1], ref.outputs[1]), 1e-4f);
  }
}

// An Add that broadcasts (here a [1, 1, 1, C] tensor computed at run time)
// is not the residual form: it stays a separate node.
TEST_F(FusionTest, BroadcastingAddIsNotFusedAsResidual) {
  GraphBuilder b;
  const std::string x = b.placeholder("input", tensorflow::DT_FLOAT, {1, 6, 5, 4});
  const std::string shift = b.placeholder("shift", tensorflow::DT_FLOAT, {1, 1, 1, 4});
  const std::string w = b.constantFloat("w", {1, 1, 4, 4}, wave(16, 0.31f));
  const std::string bias = b.biasAdd("bias", b.conv2d("conv", x, w, {1, 1, 1, 1}, "SAME"),
                                     b.constantFloat("b", {4}, wave(4, 1.1f)));
  b.relu("relu", b.binary("AddV2", "add", bias, shift));
  const Tensor input = floatTensor({1, 6, 5, 4}, wave(120, 0.17f));
  const Tensor shift_value = floatTensor({1, 1, 1, 4}, {0.5f, -0.25f, 1.0f, -2.0f});
  const RunResult ref = run(b.graph(), {"input", "shift"}, {input, shift_value}, {"relu"},
                            {false, true, ops::GemmBackend::kEigen, 1});
  const RunResult fused = run(b.graph(), {"input", "shift"}, {input, shift_value}, {"relu"},
                              {true, false, ops::gemmBackend(), 1});
  ASSERT_EQ(fused.outputs.size(), 1u);
  ASSERT_EQ(ref.outputs.size(), 1u);
  EXPECT_LE(maxAbsDiff(fused.outputs[0], ref.outputs[0]), 1e-4f);
  EXPECT_TRUE(hasNode(fused.nodes, "bias", "_FusedConv2D"));
  EXPECT_TRUE(hasNode(fused.nodes, "add", "AddV2"));
}

// The batch norm of older frozen graphs (MobileNet v1 0.25): Identity reads of
// the statistics, Rsqrt/Mul/Sub computed per run, then x * scale + shift.
// MobileNet v1 (the corpus model): each pointwise layer's Conv2D, the
// folded batch norm's Mul and Add, and its Relu6 become one _FusedConv2D
// named after the Relu6, which names those four nodes and the convolution.
TEST_F(FusionTest, FusedNodesOfMobileNetNameTheGraphNodesTheyReplaced) {
  GDS_REQUIRE_SHARED();
  auto loaded = model::load(test::modelPath("mobilenet_v1_0.25_128_frozen.pb"));
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  auto optimized = optimizeForInference(loaded->graph, {"input"}, {"MobilenetV1/Predictions/Reshape_1"});
  ASSERT_NE(optimized, nullptr);
  const auto fused = fusedOpsByNode(*optimized);
  const std::string layer = "MobilenetV1/MobilenetV1/Conv2d_1_pointwise/";
  ASSERT_EQ(fused.count(layer + "Relu6"), 1u);
  const FusedNode& f = fused.at(layer + "Relu6");
  EXPECT_EQ(f.ops, "Conv2D+BiasAdd+Relu6");
  EXPECT_EQ(f.nodes, (std::vector<std::string>{layer + "convolution", layer + "BatchNorm/batchnorm/mul_1",
                                               layer + "BatchNorm/batchnorm/add_1", layer + "Relu6"}));
  EXPECT_EQ(f.head, layer + "convolution");
  // Every fused node of the model says what it replaced, the names are the
  // loaded graph's, and no node is claimed twice.
  std::set<std::string> graph_names, claimed;
  for (const auto& n : loaded->graph.node()) graph_names.insert(n.name());
  int fused_convolutions = 0;
  for (const auto& [name, node] : fused) {
    SCOPED_TRACE(name);
    ASSERT_GE(node.nodes.size(), 2u);
    EXPECT_EQ(node.nodes.back(), name);
    EXPECT_NE(std::find(node.nodes.begin(), node.nodes.end(), node.head), node.nodes.end());
    for (const auto& n : node.nodes) {
      EXPECT_TRUE(graph_names.count(n)) << n;
      EXPECT_TRUE(claimed.insert(n).second) << n;
    }
    fused_convolutions += node.ops.rfind("Conv2D+", 0) == 0 || node.ops.rfind("DepthwiseConv2dNative+", 0) == 0;
  }
  EXPECT_EQ(fused_convolutions, 28);  // 15 Conv2D (the logits' included) and 13 depthwise
}

TEST_F(FusionTest, UnfoldedBatchNormArithmeticIsFoldedThenFused) {
  GraphBuilder b;
  const std::string x = b.placeholder("input", tensorflow::DT_FLOAT, {1, 6, 6, 5});
  const std::string w = b.identity("w/read", b.constantFloat("w", {1, 1, 5, 6}, wave(5 * 6, 0.41f)));
  const std::string conv = b.conv2d("conv", x, w, {1, 1, 1, 1}, "VALID");
  const std::string var = b.identity("var/read", b.constantFloat("var", {6}, wave(6, 0.5f, 1.2f)));
  const std::string eps = b.constantFloat("eps", {}, {0.001f});
  const std::string rsqrt = b.unary("Rsqrt", "rsqrt", b.binary("Add", "var_eps", var, eps));
  const std::string scale = b.binary("Mul", "scale", rsqrt, b.constantFloat("gamma", {6}, wave(6, 0.9f, 1.5f)));
  const std::string shift =
      b.binary("Sub", "shift", b.constantFloat("beta", {6}, wave(6, 1.7f)),
               b.binary("Mul", "mean_scale", b.constantFloat("mean", {6}, wave(6, 0.3f)), scale));
  const std::string scaled = b.binary("Mul", "bn/mul", conv, scale);
  const std::string shifted = b.binary("Add", "bn/add", scaled, shift);
  b.relu6("relu6", shifted);
  const Tensor input = floatTensor({1, 6, 6, 5}, wave(6 * 6 * 5, 0.19f));
  const auto nodes = expectAllAgree(b.graph(), input, "relu6");
  EXPECT_TRUE(hasNode(nodes, "relu6", "_FusedConv2D"));
  for (const char* op : {"Identity", "Rsqrt", "Mul", "Sub", "Add", "Relu6"}) EXPECT_EQ(countOp(nodes, op), 0) << op;

  FoldAndFuseStats stats;
  PlanOptions options;
  auto rewritten = foldAndFuse(b.graph(), {"input"}, {"relu6"}, options, &stats);
  ASSERT_TRUE(rewritten);
  EXPECT_EQ(stats.folded, 7);  // w/read, var/read, var_eps, rsqrt, scale, mean_scale, shift
  EXPECT_EQ(stats.fused, 1);
}

TEST_F(FusionTest, AFetchedConstantNodeIsFoldedToItsValue) {
  GraphBuilder b;
  const std::string a = b.constantFloat("a", {3}, {1.0f, 4.0f, 9.0f});
  b.unary("Sqrt", "root", a);
  PlanOptions options;
  auto plan = compileForInference(b.graph(), {}, {"root"}, options);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ASSERT_EQ((*plan)->nodes().size(), 1u);
  EXPECT_EQ((*plan)->nodes()[0].op, "Const");
  auto out = (*plan)->run({});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(std::vector<float>((*out)[0].data<float>(), (*out)[0].data<float>() + 3), (std::vector<float>{1, 2, 3}));
}

// Big enough to be split between two threads: by rows, or by columns for one row.
TEST_F(FusionTest, LargeMatMulAgreesAcrossBackends) {
  for (std::int64_t rows : {1, 4}) {
    SCOPED_TRACE(rows);
    GraphBuilder b;
    const std::string x = b.placeholder("input", tensorflow::DT_FLOAT, {rows, 2048});
    const std::string w = b.constantFloat("w", {2048, 520}, wave(2048 * 520, 0.029f));
    b.relu("relu", b.biasAdd("bias", b.matMul("mm", x, w), b.constantFloat("b", {520}, wave(520, 2.1f))));
    const Tensor input = floatTensor({rows, 2048}, wave(rows * 2048, 0.13f));
    expectAllAgree(b.graph(), input, "relu");
  }
}

TEST_F(FusionTest, MatMulBiasAddReluBecomesFusedMatMul) {
  for (bool transpose_b : {false, true}) {
    SCOPED_TRACE(transpose_b ? "transpose_b" : "plain");
    GraphBuilder b;
    const std::string x = b.placeholder("input", tensorflow::DT_FLOAT, {3, 20});
    const std::string w = b.constantFloat("w", transpose_b ? Shape{7, 20} : Shape{20, 7}, wave(140, 0.29f));
    const std::string mm = b.matMul("mm", x, w, false, transpose_b);
    b.relu("relu", b.biasAdd("bias", mm, b.constantFloat("b", {7}, wave(7, 2.1f))));
    const Tensor input = floatTensor({3, 20}, wave(60, 0.13f));
    const auto nodes = expectAllAgree(b.graph(), input, "relu");
    EXPECT_TRUE(hasNode(nodes, "relu", "_FusedMatMul"));
  }
}

// oneDNN's padding differs from TensorFlow's when VALID leaves input rows
// unused, or SAME pads unevenly: both must match the reference loops.
TEST_F(FusionTest, ConvolutionShapesAgreeAcrossBackends) {
  struct Case {
    Shape in, filter;
    std::int64_t stride, dilation;
    const char* padding;
    bool depthwise;
  };
  const Case cases[] = {
      {{1, 10, 9, 3}, {3, 3, 3, 5}, 2, 1, "VALID", false},  {{1, 10, 9, 3}, {3, 3, 3, 5}, 2, 1, "SAME", false},
      {{2, 11, 8, 4}, {3, 2, 4, 6}, 1, 2, "SAME", false},   {{1, 7, 7, 16}, {1, 1, 16, 32}, 1, 1, "VALID", false},
      {{1, 10, 9, 6}, {3, 3, 6, 1}, 2, 1, "SAME", true},    {{1, 10, 9, 6}, {5, 5, 6, 2}, 1, 1, "VALID", true},
      {{2, 9, 9, 8}, {3, 3, 8, 1}, 1, 2, "SAME", true},
      // Large enough for the oneDNN path to split the work between threads:
      // bands of output rows of one image, and groups of images.
      {{1, 41, 37, 16}, {3, 3, 16, 32}, 1, 1, "SAME", false}, {{1, 40, 38, 16}, {5, 5, 16, 16}, 1, 1, "VALID", false},
      {{1, 96, 91, 64}, {3, 3, 64, 1}, 1, 1, "SAME", true},   {{3, 20, 20, 16}, {3, 3, 16, 32}, 1, 1, "SAME", false}};
  for (const Case& c : cases) {
    SCOPED_TRACE(model::shapeString(c.in) + " " + model::shapeString(c.filter) + " " + c.padding +
                 (c.depthwise ? " depthwise" : ""));
    GraphBuilder b;
    const std::string x = b.placeholder("input", tensorflow::DT_FLOAT, c.in);
    const std::string w = b.constantFloat("w", c.filter, wave(model::numElements(c.filter), 0.53f));
    const std::vector<std::int64_t> strides = {1, c.stride, c.stride, 1};
    const std::string conv = c.depthwise ? b.depthwiseConv2d("conv", x, w, strides, c.padding)
                                         : b.conv2d("conv", x, w, strides, c.padding);
    tensorflow::GraphDef g = b.graph();
    for (auto& n : *g.mutable_node())
      if (n.name() == conv) model::setAttrInts(&n, "dilations", {1, c.dilation, c.dilation, 1});
    const Tensor input = floatTensor(c.in, wave(model::numElements(c.in), 0.07f));
    expectAllAgree(g, input, conv);
  }
}

TEST_F(FusionTest, UnsupportedFusedOpsNameTheNode) {
  GraphBuilder b;
  const std::string x = b.placeholder("input", tensorflow::DT_FLOAT, {1, 4, 4, 2});
  const std::string w = b.constantFloat("w", {1, 1, 2, 2}, wave(4, 0.5f));
  auto* n = b.add("_FusedConv2D", "fused", {x, w, b.constantFloat("b", {2}, {0, 0})});
  model::setAttrType(n, "T", tensorflow::DT_FLOAT);
  model::setAttrInts(n, "strides", {1, 1, 1, 1});
  model::setAttrString(n, "padding", "VALID");
  auto* list = (*n->mutable_attr())["fused_ops"].mutable_list();
  list->add_s("BiasAdd");
  list->add_s("Elu");
  (*n->mutable_attr())["num_args"].set_i(1);
  auto plan = compileForInference(b.graph(), {"input"}, {"fused"});
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().message(),
            "node 'fused' (_FusedConv2D): fused_ops [BiasAdd,Elu] with num_args 1 is not supported (expected BiasAdd, "
            "optionally Add, optionally followed by Relu or Relu6, with 1 or 2 args)");
}

}  // namespace
}  // namespace gds::engine
