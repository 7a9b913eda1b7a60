// Plan-time fusion of 8-bit layers (engine/rewrite/quantized_fusion.h): a fused
// layer gives exactly the bits of the unfused ops, on every GEMM backend, and
// fetching or feeding an intermediate tensor keeps that tensor.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "engine/eval/benchmark.h"
#include "engine/kernel_choice.h"
#include "engine/lowp/gemm.h"
#include "engine/quantized/fused_chain.h"
#include "engine/rewrite/optimize_for_inference.h"
#include "engine/rewrite/quantized_fusion.h"
#include "model/tensor.h"

namespace gds::engine {
namespace {

using tensorflow::GraphDef;
using tensorflow::NodeDef;

NodeDef* addNode(GraphDef* g, const std::string& name, const std::string& op, const std::vector<std::string>& inputs) {
  NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op(op);
  for (const auto& i : inputs) n->add_input(i);
  return n;
}

void setType(NodeDef* n, const std::string& attr, DataType t) { (*n->mutable_attr())[attr].set_type(t); }

template <typename T>
void addConst(GraphDef* g, const std::string& name, DataType dtype, const Shape& shape, const std::vector<T>& v) {
  model::HostTensor t;
  t.dtype = dtype;
  t.shape = shape;
  t.data.resize(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(t.data.data(), v.data(), t.data.size());
  NodeDef* n = addNode(g, name, "Const", {});
  setType(n, "dtype", dtype);
  model::encodeTensor(t, (*n->mutable_attr())["value"].mutable_tensor());
}

void addScalar(GraphDef* g, const std::string& name, float v) {
  addConst<float>(g, name, tensorflow::DT_FLOAT, {}, {v});
}

std::vector<std::uint8_t> randomBytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(0, 255);
  std::vector<std::uint8_t> v(n);
  for (auto& x : v) x = static_cast<std::uint8_t>(d(rng));
  return v;
}

// Requantize of `src` (int32 with range at ports 1, 2) to quint8: dynamic
// (RequantizationRange) or to the given frozen range.
std::string requantize(GraphDef* g, const std::string& src, const std::string& name, bool frozen, float lo = 0,
                       float hi = 0) {
  std::string range_min, range_max;
  if (frozen) {
    addScalar(g, name + "/min", lo);
    addScalar(g, name + "/max", hi);
    range_min = name + "/min";
    range_max = name + "/max";
  } else {
    NodeDef* rr = addNode(g, name + "/requant_range", "RequantizationRange", {src, src + ":1", src + ":2"});
    setType(rr, "Tinput", tensorflow::DT_QINT32);
    range_min = name + "/requant_range";
    range_max = name + "/requant_range:1";
  }
  NodeDef* r = addNode(g, name, "Requantize", {src, src + ":1", src + ":2", range_min, range_max});
  setType(r, "Tinput", tensorflow::DT_QINT32);
  setType(r, "out_type", tensorflow::DT_QUINT8);
  return name;
}

struct LayerOptions {
  bool matmul = false;
  bool frozen_first = false;  // first Requantize to a constant range
  bool relu6 = true;
  bool dequantize = true;
  bool add = false;  // QuantizedAdd of the bias vector instead of QuantizedBiasAdd
  std::string dequantize_mode = "MIN_FIRST";
};

// input (float) -> QuantizeV2 -> QuantizedConv2D 3x3 (or MatMul) -> Requantize
// -> QuantizedBiasAdd -> Requantize -> QuantizedRelu6 -> Dequantize "out",
// the shape of quantize_nodes' output for Conv2D + BiasAdd + Relu6.
GraphDef layerGraph(const LayerOptions& o) {
  GraphDef g;
  NodeDef* in = addNode(&g, "input", "Placeholder", {});
  setType(in, "dtype", tensorflow::DT_FLOAT);
  addScalar(&g, "input/min", -1.0f);
  addScalar(&g, "input/max", 1.5f);
  NodeDef* q = addNode(&g, "input/quantize", "QuantizeV2", {"input", "input/min", "input/max"});
  setType(q, "T", tensorflow::DT_QUINT8);
  (*q->mutable_attr())["mode"].set_s("MIN_FIRST");
  const std::int64_t in_c = 5, out_c = 7;
  const std::int64_t k = o.matmul ? 12 : 3 * 3 * in_c;
  addConst<std::uint8_t>(&g, "weights", tensorflow::DT_QUINT8, o.matmul ? Shape{k, out_c} : Shape{3, 3, in_c, out_c},
                         randomBytes(static_cast<std::size_t>(k * out_c), 7));
  addScalar(&g, "weights/min", -0.7f);
  addScalar(&g, "weights/max", 0.9f);
  NodeDef* head =
      addNode(&g, "layer/eightbit", o.matmul ? "QuantizedMatMul" : "QuantizedConv2D",
              {"input/quantize", "weights", "input/quantize:1", "input/quantize:2", "weights/min", "weights/max"});
  if (o.matmul) {
    setType(head, "T1", tensorflow::DT_QUINT8);
    setType(head, "T2", tensorflow::DT_QUINT8);
    setType(head, "Toutput", tensorflow::DT_QINT32);
  } else {
    setType(head, "Tinput", tensorflow::DT_QUINT8);
    setType(head, "Tfilter", tensorflow::DT_QUINT8);
    setType(head, "out_type", tensorflow::DT_QINT32);
    auto* strides = (*head->mutable_attr())["strides"].mutable_list();
    for (int s : {1, 1, 1, 1}) strides->add_i(s);
    (*head->mutable_attr())["padding"].set_s("SAME");
  }
  const std::string r1 = requantize(&g, "layer/eightbit", "layer/eightbit/requantize", o.frozen_first, -3.0f, 5.0f);
  addConst<std::uint8_t>(&g, "bias", tensorflow::DT_QUINT8, {out_c}, randomBytes(static_cast<std::size_t>(out_c), 9));
  addScalar(&g, "bias/min", -0.5f);
  addScalar(&g, "bias/max", 0.25f);
  NodeDef* b = addNode(&g, "bias_add/eightbit", o.add ? "QuantizedAdd" : "QuantizedBiasAdd",
                       {r1, "bias", r1 + ":1", r1 + ":2", "bias/min", "bias/max"});
  setType(b, "T1", tensorflow::DT_QUINT8);
  setType(b, "T2", tensorflow::DT_QUINT8);
  setType(b, o.add ? "Toutput" : "out_type", tensorflow::DT_QINT32);
  std::string last = requantize(&g, "bias_add/eightbit", "bias_add/eightbit/requantize", false);
  if (o.relu6) {
    NodeDef* relu = addNode(&g, "relu/eightbit", "QuantizedRelu6", {last, last + ":1", last + ":2"});
    setType(relu, "Tinput", tensorflow::DT_QUINT8);
    setType(relu, "out_type", tensorflow::DT_QUINT8);
    last = "relu/eightbit";
  }
  if (o.dequantize) {
    NodeDef* dq = addNode(&g, "out", "Dequantize", {last, last + ":1", last + ":2"});
    setType(dq, "T", tensorflow::DT_QUINT8);
    (*dq->mutable_attr())["mode"].set_s(o.dequantize_mode);
  }
  return g;
}

// large: enough rows (>= 1024) for the per-channel table of the output
// stages, and enough values for the passes (and the convolution's GEMM) to
// run on two threads.
Tensor inputFor(bool matmul, unsigned seed, bool large = false) {
  Tensor t(tensorflow::DT_FLOAT,
           matmul ? Shape{large ? 10000 : 9, 12} : Shape{large ? 4 : 2, large ? 64 : 6, large ? 64 : 8, 5});
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.2f, 1.8f);
  for (std::int64_t i = 0; i < t.numElements(); ++i) t.data<float>()[i] = d(rng);
  return t;
}

struct RunResult {
  std::vector<Tensor> outputs;
  std::vector<std::string> ops;  // op types in the compiled plan
};

RunResult runGraph(const GraphDef& g, const std::vector<std::string>& fetches, const Tensor& input, bool fuse,
                   int threads = 1) {
  PlanOptions options;
  options.num_threads = threads;
  InferenceRewrites rewrites;
  rewrites.fuse_quantized = fuse;
  auto plan = compileForInference(g, {"input"}, fetches, options, rewrites);
  EXPECT_TRUE(plan.ok()) << plan.error();
  if (!plan.ok()) return {};
  auto out = (*plan)->run({input});
  EXPECT_TRUE(out.ok()) << out.error();
  RunResult r;
  if (out.ok()) r.outputs = *out;
  for (const auto& n : (*plan)->nodes()) r.ops.push_back(n.op);
  return r;
}

bool sameBytes(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  const std::size_t bytes = static_cast<std::size_t>(a.numElements()) * model::dtypeSize(a.dtype());
  return std::memcmp(a.raw(), b.raw(), bytes) == 0;
}

int count(const std::vector<std::string>& ops, const std::string& op) {
  return static_cast<int>(std::count(ops.begin(), ops.end(), op));
}

using BackendScope = ScopedKernelChoice;

std::vector<lowp::GemmBackend> backends() {
  std::vector<lowp::GemmBackend> b = {lowp::GemmBackend::kReference, lowp::GemmBackend::kGemmlowp};
  if (lowp::dnnlAvailable()) b.push_back(lowp::GemmBackend::kDnnl);
  return b;
}

TEST(QuantFusion, RewriteReplacesTheChainByOneNodeNamedAfterItsLastOp) {
  const GraphDef g = layerGraph({});
  QuantizedFusionStats stats;
  auto fused = fuseQuantizedLayers(g, {"input"}, {"out"}, &stats);
  ASSERT_NE(nullptr, fused);
  EXPECT_EQ(1, stats.layers);
  // conv, 2 x (range + requantize), bias add, relu6; Dequantize becomes the fused node.
  EXPECT_EQ(7, stats.nodes_removed);
  const NodeDef* node = nullptr;
  for (const auto& n : fused->node())
    if (n.name() == "out") node = &n;
  ASSERT_NE(nullptr, node);
  EXPECT_EQ("_FusedQuantizedConv2D", node->op());
  const auto& list = node->attr().at("fused_ops").list();
  ASSERT_EQ(5, list.s_size());
  EXPECT_EQ("Requantize", list.s(0));
  EXPECT_EQ("BiasAdd", list.s(1));
  EXPECT_EQ("Requantize", list.s(2));
  EXPECT_EQ("Relu6", list.s(3));
  EXPECT_EQ("Dequantize", list.s(4));
  EXPECT_EQ("MIN_FIRST", node->attr().at("dequantize_mode").s());
  ASSERT_EQ(9, node->input_size());
  EXPECT_EQ("input/quantize", node->input(0));
  EXPECT_EQ("bias", node->input(6));
  EXPECT_EQ("bias/max", node->input(8));
  // The graph nodes it replaced, in data-flow order, around the convolution.
  const auto by_node = fusedOpsByNode(*fused);
  ASSERT_EQ(1u, by_node.count("out"));
  EXPECT_EQ(by_node.at("out").nodes,
            (std::vector<std::string>{"layer/eightbit", "layer/eightbit/requantize/requant_range",
                                      "layer/eightbit/requantize", "bias_add/eightbit",
                                      "bias_add/eightbit/requantize/requant_range", "bias_add/eightbit/requantize",
                                      "relu/eightbit", "out"}));
  EXPECT_EQ(by_node.at("out").head, "layer/eightbit");
  // A float graph is left alone.
  GraphDef plain;
  addNode(&plain, "input", "Placeholder", {});
  EXPECT_EQ(nullptr, fuseQuantizedLayers(plain, {"input"}, {"input"}));
}

TEST(QuantFusion, FusedLayerIsBitIdenticalOnEveryBackendAndThreadCount) {
  for (bool matmul : {false, true})
    for (bool frozen : {false, true})
      for (const char* mode : {"MIN_FIRST", "MIN_COMBINED", "Add"}) {
        LayerOptions o;
        o.add = std::string(mode) == "Add";
        if (o.add) mode = "MIN_FIRST";
        o.matmul = matmul;
        o.frozen_first = frozen;
        o.dequantize_mode = mode;
        const GraphDef g = layerGraph(o);
        for (bool large : {false, true}) {
          const Tensor input = inputFor(matmul, 11, large);
          const RunResult expected = runGraph(g, {"out"}, input, false);
          ASSERT_EQ(1u, expected.outputs.size());
          for (auto backend : backends()) {
            BackendScope scope(backend);
            for (int threads : {1, 2}) {
              const RunResult got = runGraph(g, {"out"}, input, true, threads);
              ASSERT_EQ(1u, got.outputs.size());
              EXPECT_TRUE(sameBytes(expected.outputs[0], got.outputs[0]))
                  << "matmul=" << matmul << " frozen=" << frozen << " mode=" << mode << " add=" << o.add
                  << " backend=" << lowp::gemmBackendName(backend) << " threads=" << threads
                  << " rows=" << input.dim(0) * (matmul ? 1 : input.dim(1) * input.dim(2));
              EXPECT_EQ(1, count(got.ops, matmul ? "_FusedQuantizedMatMul" : "_FusedQuantizedConv2D"));
              EXPECT_EQ(0, count(got.ops, "Requantize"));
            }
          }
        }
      }
}

TEST(QuantFusion, ChainEndingInQuint8KeepsTheRangeOutputs) {
  LayerOptions o;
  o.dequantize = false;
  const GraphDef g = layerGraph(o);
  const Tensor input = inputFor(false, 5);
  const std::vector<std::string> fetches = {"relu/eightbit", "relu/eightbit:1", "relu/eightbit:2"};
  const RunResult expected = runGraph(g, fetches, input, false);
  const RunResult got = runGraph(g, fetches, input, true);
  ASSERT_EQ(3u, got.outputs.size());
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(sameBytes(expected.outputs[i], got.outputs[i])) << "output " << i;
  EXPECT_EQ(tensorflow::DT_QUINT8, got.outputs[0].dtype());
  EXPECT_EQ(1, count(got.ops, "_FusedQuantizedConv2D"));
}

TEST(QuantFusion, FetchingAnIntermediateStopsTheChainThere) {
  const GraphDef g = layerGraph({});
  const Tensor input = inputFor(false, 3);
  // The bias add's int32 output is fetched: the first fused node ends there,
  // and the rest (Requantize, Relu6, Dequantize) is no GEMM chain.
  const std::vector<std::string> fetches = {"out", "bias_add/eightbit", "bias_add/eightbit:1"};
  const RunResult expected = runGraph(g, fetches, input, false);
  const RunResult got = runGraph(g, fetches, input, true);
  ASSERT_EQ(3u, got.outputs.size());
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(sameBytes(expected.outputs[i], got.outputs[i])) << "output " << i;
  EXPECT_EQ(1, count(got.ops, "_FusedQuantizedConv2D"));
  EXPECT_EQ(1, count(got.ops, "Requantize"));
  EXPECT_EQ(1, count(got.ops, "QuantizedRelu6"));
  // Fetching the convolution itself keeps every op.
  const RunResult head = runGraph(g, {"out", "layer/eightbit"}, input, true);
  EXPECT_EQ(0, count(head.ops, "_FusedQuantizedConv2D"));
  EXPECT_EQ(1, count(head.ops, "QuantizedConv2D"));
  ASSERT_EQ(2u, head.outputs.size());
  EXPECT_TRUE(sameBytes(expected.outputs[0], head.outputs[0]));
  // A RequantizationRange read by something else stays, and so does its chain link.
  const RunResult range = runGraph(g, {"out", "layer/eightbit/requantize/requant_range"}, input, true);
  EXPECT_EQ(0, count(range.ops, "_FusedQuantizedConv2D"));
}

TEST(QuantFusion, FeedingAnIntermediateStopsTheChain) {
  const GraphDef g = layerGraph({});
  // Feed the first Requantize's output: the conv is not needed, the bias add
  // reads the fed value.
  auto plan = compileForInference(
      g, {"layer/eightbit/requantize", "layer/eightbit/requantize:1", "layer/eightbit/requantize:2"}, {"out"});
  ASSERT_TRUE(plan.ok()) << plan.error();
  Tensor q(tensorflow::DT_QUINT8, {2, 6, 8, 7});
  auto bytes = randomBytes(static_cast<std::size_t>(q.numElements()), 1);
  std::memcpy(q.raw(), bytes.data(), bytes.size());
  Tensor lo(tensorflow::DT_FLOAT, {}), hi(tensorflow::DT_FLOAT, {});
  lo.data<float>()[0] = -2.0f;
  hi.data<float>()[0] = 3.0f;
  auto out = (*plan)->run({q, lo, hi});
  ASSERT_TRUE(out.ok()) << out.error();
  InferenceRewrites unfused_rewrites;
  unfused_rewrites.fuse_quantized = false;
  auto unfused = compileForInference(
      g, {"layer/eightbit/requantize", "layer/eightbit/requantize:1", "layer/eightbit/requantize:2"}, {"out"}, {},
      unfused_rewrites);
  ASSERT_TRUE(unfused.ok()) << unfused.error();
  auto expected = (*unfused)->run({q, lo, hi});
  ASSERT_TRUE(expected.ok()) << expected.error();
  EXPECT_TRUE(sameBytes((*expected)[0], (*out)[0]));
}

TEST(QuantFusion, RequestedRangeWithoutZeroIsReportedByTheFusedNode) {
  LayerOptions o;
  o.frozen_first = true;
  GraphDef g = layerGraph(o);
  for (auto& n : *g.mutable_node())
    if (n.name() == "layer/eightbit/requantize/min") {
      model::HostTensor t;
      t.dtype = tensorflow::DT_FLOAT;
      t.data.resize(4);
      const float v = 0.5f;
      std::memcpy(t.data.data(), &v, 4);
      model::encodeTensor(t, (*n.mutable_attr())["value"].mutable_tensor());
    }
  auto plan = compileForInference(g, {"input"}, {"out"});
  ASSERT_TRUE(plan.ok()) << plan.error();
  auto out = (*plan)->run({inputFor(false, 1)});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(std::string::npos, out.error().find("node 'out' (_FusedQuantizedConv2D)")) << out.error();
  EXPECT_NE(std::string::npos, out.error().find("requested_output_min must be <= 0, but got 0.5")) << out.error();
}

// quantize_nodes' quantization of a float tensor (a DepthwiseConv2dNative's
// output in the 8-bit MobileNets): Reshape(x, [-1]) -> Min, Max ->
// QuantizeV2 -> QuantizedBiasAdd -> Requantize -> QuantizedRelu6 -> Dequantize.
GraphDef ownRangeGraph(bool relu6, bool dequantize) {
  GraphDef g;
  NodeDef* in = addNode(&g, "input", "Placeholder", {});
  setType(in, "dtype", tensorflow::DT_FLOAT);
  addConst<std::int32_t>(&g, "q/reshape_dims", tensorflow::DT_INT32, {1}, {-1});
  addConst<std::int32_t>(&g, "q/reduction_dims", tensorflow::DT_INT32, {1}, {0});
  setType(addNode(&g, "q/reshape", "Reshape", {"input", "q/reshape_dims"}), "T", tensorflow::DT_FLOAT);
  setType(addNode(&g, "q/min", "Min", {"q/reshape", "q/reduction_dims"}), "T", tensorflow::DT_FLOAT);
  setType(addNode(&g, "q/max", "Max", {"q/reshape", "q/reduction_dims"}), "T", tensorflow::DT_FLOAT);
  NodeDef* q = addNode(&g, "q/quantize", "QuantizeV2", {"input", "q/min", "q/max"});
  setType(q, "T", tensorflow::DT_QUINT8);
  (*q->mutable_attr())["mode"].set_s("MIN_FIRST");
  addConst<std::uint8_t>(&g, "bias", tensorflow::DT_QUINT8, {6}, randomBytes(6, 4));
  addScalar(&g, "bias/min", -0.3f);
  addScalar(&g, "bias/max", 0.6f);
  NodeDef* b = addNode(&g, "bias_add/eightbit", "QuantizedBiasAdd",
                       {"q/quantize", "bias", "q/quantize:1", "q/quantize:2", "bias/min", "bias/max"});
  setType(b, "T1", tensorflow::DT_QUINT8);
  setType(b, "T2", tensorflow::DT_QUINT8);
  setType(b, "out_type", tensorflow::DT_QINT32);
  std::string last = requantize(&g, "bias_add/eightbit", "bias_add/eightbit/requantize", false);
  if (relu6) {
    NodeDef* relu = addNode(&g, "relu/eightbit", "QuantizedRelu6", {last, last + ":1", last + ":2"});
    setType(relu, "Tinput", tensorflow::DT_QUINT8);
    setType(relu, "out_type", tensorflow::DT_QUINT8);
    last = "relu/eightbit";
  }
  if (dequantize) {
    NodeDef* dq = addNode(&g, "out", "Dequantize", {last, last + ":1", last + ":2"});
    setType(dq, "T", tensorflow::DT_QUINT8);
    (*dq->mutable_attr())["mode"].set_s("MIN_FIRST");
  }
  return g;
}

TEST(QuantFusion, QuantizationOfAFloatTensorWithItsOwnRangeIsOneBitIdenticalNode) {
  Tensor input(tensorflow::DT_FLOAT, {1, 9, 7, 6});
  std::mt19937 rng(21);
  std::uniform_real_distribution<float> d(-2.5f, 7.0f);
  for (std::int64_t i = 0; i < input.numElements(); ++i) input.data<float>()[i] = d(rng);
  {
    QuantizedFusionStats stats;
    auto fused = fuseQuantizedLayers(ownRangeGraph(true, true), {"input"}, {"out"}, &stats);
    ASSERT_NE(nullptr, fused);
    EXPECT_EQ(1, stats.layers);
    // reshape, min, max, quantize, bias add, range, requantize, relu6
    EXPECT_EQ(8, stats.nodes_removed);
  }
  for (bool dequantize : {true, false}) {
    const GraphDef g = ownRangeGraph(true, dequantize);
    const std::vector<std::string> fetches =
        dequantize ? std::vector<std::string>{"out"}
                   : std::vector<std::string>{"relu/eightbit", "relu/eightbit:1", "relu/eightbit:2"};
    const RunResult expected = runGraph(g, fetches, input, false);
    for (int threads : {1, 2}) {
      const RunResult got = runGraph(g, fetches, input, true, threads);
      ASSERT_EQ(expected.outputs.size(), got.outputs.size());
      for (std::size_t i = 0; i < got.outputs.size(); ++i)
        EXPECT_TRUE(sameBytes(expected.outputs[i], got.outputs[i])) << "output " << i << " threads " << threads;
      EXPECT_EQ(1, count(got.ops, "_QuantizeV2OwnRange"));
      EXPECT_EQ(0, count(got.ops, "Min"));
      EXPECT_EQ(0, count(got.ops, "QuantizedBiasAdd"));
    }
  }
  // Fetching the Min keeps the quantization as it is.
  const GraphDef g = ownRangeGraph(true, true);
  const RunResult kept = runGraph(g, {"out", "q/min"}, input, true);
  EXPECT_EQ(0, count(kept.ops, "_QuantizeV2OwnRange"));
  EXPECT_EQ(1, count(kept.ops, "QuantizeV2"));
}

// quantize_nodes around a float residual Add (ResNet's shortcuts): two 8-bit
// tensors dequantized, added in float, quantized over their own range, then
// QuantizedRelu and a Dequantize. `b_shape` lets the Add broadcast;
// `known_shape` false leaves the input's shape unknown.
GraphDef residualGraph(const Shape& shape, const Shape& b_shape, bool known_shape = true) {
  GraphDef g;
  NodeDef* in = addNode(&g, "input", "Placeholder", {});
  setType(in, "dtype", tensorflow::DT_FLOAT);
  if (known_shape) {
    auto* dims = (*in->mutable_attr())["shape"].mutable_shape();
    for (std::int64_t d : shape) dims->add_dim()->set_size(d);
  }
  addScalar(&g, "a/min", -2.5f);
  addScalar(&g, "a/max", 7.0f);
  NodeDef* qa = addNode(&g, "a", "QuantizeV2", {"input", "a/min", "a/max"});
  setType(qa, "T", tensorflow::DT_QUINT8);
  (*qa->mutable_attr())["mode"].set_s("MIN_FIRST");
  std::string b_source = "input";
  if (b_shape != shape) {
    std::vector<float> values(static_cast<std::size_t>(model::numElements(b_shape)));
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = 0.1f * static_cast<float>(i) - 0.3f;
    addConst<float>(&g, "b/source", tensorflow::DT_FLOAT, b_shape, values);
    b_source = "b/source";
  }
  addScalar(&g, "b/min", -1.0f);
  addScalar(&g, "b/max", 1.5f);
  NodeDef* qb = addNode(&g, "b", "QuantizeV2", {b_source, "b/min", "b/max"});
  setType(qb, "T", tensorflow::DT_QUINT8);
  (*qb->mutable_attr())["mode"].set_s("MIN_COMBINED");
  for (const char* x : {"a", "b"}) {
    const std::string name = std::string(x) + "/dequantize";
    NodeDef* dq = addNode(&g, name, "Dequantize", {x, std::string(x) + ":1", std::string(x) + ":2"});
    setType(dq, "T", tensorflow::DT_QUINT8);
    (*dq->mutable_attr())["mode"].set_s(x[0] == 'a' ? "MIN_FIRST" : "MIN_COMBINED");
  }
  setType(addNode(&g, "add", "AddV2", {"a/dequantize", "b/dequantize"}), "T", tensorflow::DT_FLOAT);
  // quantize_nodes anchors the reshape's and reductions' constants on the
  // Add by control edges.
  addConst<std::int32_t>(&g, "q/reshape_dims", tensorflow::DT_INT32, {1}, {-1});
  g.mutable_node(g.node_size() - 1)->add_input("^add");
  addConst<std::int32_t>(&g, "q/reduction_dims", tensorflow::DT_INT32, {1}, {0});
  g.mutable_node(g.node_size() - 1)->add_input("^add");
  setType(addNode(&g, "q/reshape", "Reshape", {"add", "q/reshape_dims"}), "T", tensorflow::DT_FLOAT);
  setType(addNode(&g, "q/min", "Min", {"q/reshape", "q/reduction_dims"}), "T", tensorflow::DT_FLOAT);
  setType(addNode(&g, "q/max", "Max", {"q/reshape", "q/reduction_dims"}), "T", tensorflow::DT_FLOAT);
  NodeDef* q = addNode(&g, "q/quantize", "QuantizeV2", {"add", "q/min", "q/max"});
  setType(q, "T", tensorflow::DT_QUINT8);
  (*q->mutable_attr())["mode"].set_s("MIN_FIRST");
  NodeDef* relu = addNode(&g, "relu/eightbit", "QuantizedRelu", {"q/quantize", "q/quantize:1", "q/quantize:2"});
  setType(relu, "Tinput", tensorflow::DT_QUINT8);
  setType(relu, "out_type", tensorflow::DT_QUINT8);
  NodeDef* dq = addNode(&g, "out", "Dequantize", {"relu/eightbit", "relu/eightbit:1", "relu/eightbit:2"});
  setType(dq, "T", tensorflow::DT_QUINT8);
  (*dq->mutable_attr())["mode"].set_s("MIN_FIRST");
  return g;
}

TEST(QuantFusion, AResidualSumOfTwo8BitTensorsIsOneBitIdenticalNode) {
  const Shape shape = {1, 64, 64, 32};  // large enough for the two-thread path
  Tensor input(tensorflow::DT_FLOAT, shape);
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> d(-3.0f, 8.0f);
  for (std::int64_t i = 0; i < input.numElements(); ++i) input.data<float>()[i] = d(rng);
  const GraphDef g = residualGraph(shape, shape);
  QuantizedFusionStats stats;
  auto fused = fuseQuantizedLayers(g, {"input"}, {"out"}, &stats);
  ASSERT_NE(nullptr, fused);
  EXPECT_EQ(1, stats.layers);
  // 2 dequantizes, the add, 2 anchored constants, reshape, min, max, quantize, relu
  EXPECT_EQ(10, stats.nodes_removed);
  const RunResult expected = runGraph(g, {"out"}, input, false);
  for (int threads : {1, 2}) {
    const RunResult got = runGraph(g, {"out"}, input, true, threads);
    ASSERT_EQ(got.outputs.size(), 1u);
    EXPECT_TRUE(sameBytes(expected.outputs[0], got.outputs[0])) << "threads " << threads;
    EXPECT_EQ(1, count(got.ops, "_QuantizedAddOwnRange"));
    EXPECT_EQ(0, count(got.ops, "AddV2"));
    EXPECT_EQ(0, count(got.ops, "Dequantize"));
    EXPECT_EQ(0, count(got.ops, "QuantizedRelu"));
  }
  // The sum fetched, a broadcasting Add, or shapes not known when the plan
  // is made: left as they are.
  const RunResult kept = runGraph(g, {"out", "add"}, input, true);
  EXPECT_EQ(0, count(kept.ops, "_QuantizedAddOwnRange"));
  EXPECT_EQ(1, count(kept.ops, "AddV2"));
  // (The quantization after the Add still fuses as _QuantizeV2OwnRange.)
  for (const bool broadcast : {true, false}) {
    auto other = fuseQuantizedLayers(residualGraph(shape, broadcast ? Shape{32} : shape, broadcast), {"input"}, {"out"});
    ASSERT_NE(nullptr, other);
    for (const NodeDef& n : other->node()) EXPECT_NE(n.op(), "_QuantizedAddOwnRange") << n.name();
  }
  // ... unless the plan is told the input's shape.
  QuantizedFusionStats told;
  ASSERT_NE(nullptr, fuseQuantizedLayers(residualGraph(shape, shape, false), {"input"}, {"out"}, &told,
                                         {{"input", shape}}));
  EXPECT_EQ(10, told.nodes_removed);
}

// quantize_nodes around the Pad before ResNet's max pool: an 8-bit tensor
// dequantized, padded with zeros, quantized over its own range, then the
// 8-bit max pool (VALID).
GraphDef padPoolGraph(const std::string& dequantize_mode, std::int64_t pad, std::int64_t window) {
  GraphDef g;
  NodeDef* in = addNode(&g, "input", "Placeholder", {});
  setType(in, "dtype", tensorflow::DT_FLOAT);
  addScalar(&g, "a/min", -2.5f);
  addScalar(&g, "a/max", 7.0f);
  NodeDef* qa = addNode(&g, "a", "QuantizeV2", {"input", "a/min", "a/max"});
  setType(qa, "T", tensorflow::DT_QUINT8);
  (*qa->mutable_attr())["mode"].set_s("MIN_FIRST");
  NodeDef* dq = addNode(&g, "a/dequantize", "Dequantize", {"a", "a:1", "a:2"});
  setType(dq, "T", tensorflow::DT_QUINT8);
  (*dq->mutable_attr())["mode"].set_s(dequantize_mode);
  addConst<std::int32_t>(&g, "paddings", tensorflow::DT_INT32, {4, 2},
                         {0, 0, static_cast<std::int32_t>(pad), static_cast<std::int32_t>(pad),
                          static_cast<std::int32_t>(pad), static_cast<std::int32_t>(pad + 1), 0, 0});
  setType(addNode(&g, "pad", "Pad", {"a/dequantize", "paddings"}), "T", tensorflow::DT_FLOAT);
  addConst<std::int32_t>(&g, "q/reshape_dims", tensorflow::DT_INT32, {1}, {-1});
  g.mutable_node(g.node_size() - 1)->add_input("^pad");
  addConst<std::int32_t>(&g, "q/reduction_dims", tensorflow::DT_INT32, {1}, {0});
  g.mutable_node(g.node_size() - 1)->add_input("^pad");
  setType(addNode(&g, "q/reshape", "Reshape", {"pad", "q/reshape_dims"}), "T", tensorflow::DT_FLOAT);
  setType(addNode(&g, "q/min", "Min", {"q/reshape", "q/reduction_dims"}), "T", tensorflow::DT_FLOAT);
  setType(addNode(&g, "q/max", "Max", {"q/reshape", "q/reduction_dims"}), "T", tensorflow::DT_FLOAT);
  NodeDef* q = addNode(&g, "q/quantize", "QuantizeV2", {"pad", "q/min", "q/max"});
  setType(q, "T", tensorflow::DT_QUINT8);
  (*q->mutable_attr())["mode"].set_s("MIN_FIRST");
  NodeDef* pool = addNode(&g, "pool", "QuantizedMaxPool", {"q/quantize", "q/quantize:1", "q/quantize:2"});
  setType(pool, "T", tensorflow::DT_QUINT8);
  (*pool->mutable_attr())["padding"].set_s("VALID");
  for (const char* name : {"ksize", "strides"}) {
    auto* list = (*pool->mutable_attr())[name].mutable_list();
    for (std::int64_t v : {std::int64_t{1}, name[0] == 'k' ? window : 2, name[0] == 'k' ? window : 2, std::int64_t{1}})
      list->add_i(v);
  }
  return g;
}

TEST(QuantFusion, PadBeforeAMaxPoolOf8BitValuesIsOneBitIdenticalNode) {
  const Shape shape = {1, 23, 20, 16};
  struct Case {
    const char* mode;
    std::int64_t pad, window;
    float lo, hi;  // input values
  };
  // Negative inputs make the padding's zeros the window maxima at the
  // borders; positive ones keep them out; a padding as wide as the window
  // leaves windows with nothing but padding (the general path).
  for (const Case& c : {Case{"MIN_FIRST", 1, 3, -2.4f, 6.9f}, Case{"MIN_COMBINED", 1, 3, -2.4f, -0.5f},
                        Case{"MIN_FIRST", 1, 3, 0.3f, 6.5f}, Case{"MIN_FIRST", 3, 3, -2.0f, 5.0f}}) {
    SCOPED_TRACE(std::string(c.mode) + " pad " + std::to_string(c.pad) + " values [" + std::to_string(c.lo) + ", " +
                 std::to_string(c.hi) + "]");
    Tensor input(tensorflow::DT_FLOAT, shape);
    std::mt19937 rng(4);
    std::uniform_real_distribution<float> d(c.lo, c.hi);
    for (std::int64_t i = 0; i < input.numElements(); ++i) input.data<float>()[i] = d(rng);
    const GraphDef g = padPoolGraph(c.mode, c.pad, c.window);
    const std::vector<std::string> fetches = {"pool", "pool:1", "pool:2"};
    const RunResult expected = runGraph(g, fetches, input, false);
    for (int threads : {1, 2}) {
      const RunResult got = runGraph(g, fetches, input, true, threads);
      ASSERT_EQ(got.outputs.size(), 3u);
      for (std::size_t i = 0; i < 3; ++i)
        EXPECT_TRUE(sameBytes(expected.outputs[i], got.outputs[i])) << "output " << i << " threads " << threads;
      EXPECT_EQ(1, count(got.ops, "_QuantizedPadMaxPool"));
      EXPECT_EQ(0, count(got.ops, "Pad"));
      EXPECT_EQ(0, count(got.ops, "QuantizedMaxPool"));
    }
  }
  // Fetching the Pad keeps the ops apart.
  Tensor input(tensorflow::DT_FLOAT, shape);
  for (std::int64_t i = 0; i < input.numElements(); ++i) input.data<float>()[i] = 0.01f * static_cast<float>(i % 300);
  const RunResult kept = runGraph(padPoolGraph("MIN_FIRST", 1, 3), {"pool", "pad"}, input, true);
  EXPECT_EQ(0, count(kept.ops, "_QuantizedPadMaxPool"));
  EXPECT_EQ(1, count(kept.ops, "QuantizedMaxPool"));
}

TEST(QuantFusion, StagesAppliedToABufferMatchTheStandaloneKernelsOnEmptyAndWideRanges) {
  // No rows: the ranges still come out as RequantizationRange reports them
  // for an empty tensor.
  std::vector<quantized::FusedStage> stages(1);
  stages[0].kind = quantized::FusedStageKind::kRequantize;
  float lo = 0, hi = 0;
  std::vector<std::uint8_t> out;
  ASSERT_TRUE(quantized::applyFusedStages(stages, nullptr, 0, 4, -10.0f, 10.0f, out.data(), &lo, &hi, nullptr).ok());
  EXPECT_EQ(0.0f, lo);
  EXPECT_GE(hi, 0.0f);
  // Wrong order of stages is an error naming the stage.
  stages[0].kind = quantized::FusedStageKind::kRelu;
  Status s = quantized::checkFusedStages(stages);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ("fused stage 0 (Relu) cannot follow a qint32 value", s.message());
}

}  // namespace
}  // namespace gds::engine
