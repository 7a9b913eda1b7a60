// engine::compare metrics on hand-made tensors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "engine/eval/compare.h"
#include "tests/engine/core_test_util.h"
#include "tests/engine/quant_test_util.h"

namespace gds::engine {
namespace {

using qtest::makeTensor;

// x (float [4]) -> Relu "r", "s" and Identity "out", as a float graph and as
// quantize_nodes leaves it: r only as "r/eightbit"'s quint8 triple, s also
// behind a Dequantize named s, "t/eightbit" a 32-bit result.
tensorflow::GraphDef layersGraph(bool quantized) {
  std::string text = R"(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "out" op: "Identity" input: "x" })";
  if (!quantized) {
    for (const char* name : {"r", "s", "t"})
      text += std::string(R"( node { name: ")") + name + R"(" op: "Relu" input: "x" })";
  } else {
    text += R"(
      node { name: "q" op: "Const" attr { key: "dtype" value { type: DT_QUINT8 } }
             attr { key: "value" value { tensor { dtype: DT_QUINT8 tensor_shape { dim { size: 4 } }
                                                  tensor_content: "\000\063\146\377" } } } }
      node { name: "lo" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
             attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 0 } } } }
      node { name: "hi" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
             attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2.55 } } } }
      node { name: "s" op: "Dequantize" input: "s/eightbit" input: "s/eightbit:1" input: "s/eightbit:2"
             attr { key: "T" value { type: DT_QUINT8 } } attr { key: "mode" value { s: "MIN_FIRST" } } })";
    for (const char* name : {"r", "s", "t"})
      text += std::string(R"( node { name: ")") + name + R"(/eightbit" op: "QuantizedRelu" input: "q" input: "lo"
          input: "hi" attr { key: "Tinput" value { type: DT_QUINT8 } }
          attr { key: "out_type" value { type: )" + (name[0] == 't' ? "DT_QINT32" : "DT_QUINT8") + " } } }";
  }
  return coretest::parseGraph(text);
}

TEST(QuantCompare, LayersInsideAQuantizedRunAreReadFromTheirTriples) {
  const Tensor x = makeTensor<float>(tensorflow::DT_FLOAT, {4}, {0.0f, 0.5f, 1.0f, 2.55f});
  auto r = compare(layersGraph(false), layersGraph(true), {"x"}, {x}, {"out"});
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(1u, r->outputs.size());
  EXPECT_TRUE(std::isinf(r->outputs[0].stats.sqnr_db));
  // r from r/eightbit dequantized on the host (MIN_FIRST: 0, 0.51, 1.02,
  // 2.55), s once (its Dequantize), t not at all (qint32).
  ASSERT_EQ(2u, r->layers.size());
  for (const ErrorStats& layer : r->layers) {
    SCOPED_TRACE(layer.name);
    EXPECT_TRUE(layer.name == "r" || layer.name == "s");
    EXPECT_EQ(4, layer.count);
    EXPECT_NEAR(0.02, layer.max_abs, 1e-6);
    EXPECT_NEAR(std::sqrt((0.01 * 0.01 + 0.02 * 0.02) / 4), layer.rmse, 1e-6);
    EXPECT_NEAR(0.01, layer.step, 1e-8);
    EXPECT_NEAR(std::sqrt(0.000125) / 0.01, layer.rmse_over_step, 1e-4);
  }
  EXPECT_NE(r->layers[0].name, r->layers[1].name);
  CompareOptions no_layers;
  no_layers.per_layer = false;
  auto plain = compare(layersGraph(false), layersGraph(true), {"x"}, {x}, {"out"}, no_layers);
  ASSERT_TRUE(plain.ok()) << plain.error();
  EXPECT_TRUE(plain->layers.empty());
}

TEST(QuantCompare, TensorMetrics) {
  const Tensor a = makeTensor<float>(tensorflow::DT_FLOAT, {4}, {1, 2, 3, 4});
  const Tensor b = makeTensor<float>(tensorflow::DT_FLOAT, {4}, {1, 2, 3, 5});
  auto s = compareTensors("x", a, b, 0.5);
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(4, s->count);
  EXPECT_DOUBLE_EQ(1.0, s->max_abs);
  EXPECT_DOUBLE_EQ(0.25, s->mean_abs);
  EXPECT_DOUBLE_EQ(0.5, s->rmse);
  EXPECT_NEAR(10.0 * std::log10(30.0), s->sqnr_db, 1e-9);
  EXPECT_NEAR((1 + 4 + 9 + 20) / (std::sqrt(30.0) * std::sqrt(39.0)), s->cosine, 1e-12);
  EXPECT_DOUBLE_EQ(1.0, s->rmse_over_step);
  auto same = compareTensors("x", a, a);
  ASSERT_TRUE(same.ok());
  EXPECT_TRUE(std::isinf(same->sqnr_db));
  EXPECT_DOUBLE_EQ(1.0, same->cosine);
  auto bad = compareTensors("y", a, makeTensor<float>(tensorflow::DT_FLOAT, {2, 2}, {1, 2, 3, 4}));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ("'y': shapes differ: [4] vs [2,2]", bad.error());
}

}  // namespace
}  // namespace gds::engine
