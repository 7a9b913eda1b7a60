// The ranges of a quantization-aware trained graph, as TensorFlow's converter
// takes them for --inference_type=INT8: each FakeQuant gives the range of the
// tensor it reads (FakeQuantWithMinMaxArgs' attrs, FakeQuantWithMinMaxVars'
// constant inputs) and becomes an Identity of it.
#include <gtest/gtest.h>

#include "tests/transforms/graph_text.h"
#include "transforms/tflite/fake_quant.h"

namespace gds::transforms::test {
namespace {

const char* kPlaceholder =
    "node { name: \"x\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } } }\n";

std::string fakeQuantArgs(const std::string& name, const std::string& input, float lo, float hi, int bits) {
  return "node { name: \"" + name + "\" op: \"FakeQuantWithMinMaxArgs\" input: \"" + input +
         "\" attr { key: \"min\" value { f: " + std::to_string(lo) + " } } attr { key: \"max\" value { f: " +
         std::to_string(hi) + " } } attr { key: \"num_bits\" value { i: " + std::to_string(bits) + " } } }\n";
}

TEST(TfliteFakeQuantRanges, TakesArgsAndVarsRangesAndBypassesTheNodes) {
  tensorflow::GraphDef g = parseGraph(
      std::string(kPlaceholder) + fakeQuantArgs("in_quant", "x", -1.0f, 1.0f, 8) +
      "node { name: \"relu\" op: \"Relu\" input: \"in_quant\" attr { key: \"T\" value { type: DT_FLOAT } } }\n" +
      floatConst("act_min", {}, {0.0f}) + floatConst("act_max", {}, {6.0f}) +
      "node { name: \"act_quant\" op: \"FakeQuantWithMinMaxVars\" input: \"relu\" input: \"act_min\" input: "
      "\"act_max\" }\n");
  auto r = tflite::takeFakeQuantRanges(&g);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->removed, 2);
  ASSERT_EQ(r->ranges.size(), 4u);
  EXPECT_EQ(r->ranges.at("x:0").min, -1.0f);
  EXPECT_EQ(r->ranges.at("x:0").max, 1.0f);
  EXPECT_EQ(r->ranges.at("in_quant:0").max, 1.0f);
  EXPECT_EQ(r->ranges.at("relu:0").min, 0.0f);
  EXPECT_EQ(r->ranges.at("relu:0").max, 6.0f);
  EXPECT_EQ(r->ranges.at("act_quant:0").max, 6.0f);
  EXPECT_EQ(findNode(g, "in_quant")->op(), "Identity");
  EXPECT_EQ(inputsOf(g, "in_quant"), std::vector<std::string>({"x"}));
  EXPECT_EQ(findNode(g, "act_quant")->op(), "Identity");
  EXPECT_EQ(inputsOf(g, "act_quant"), std::vector<std::string>({"relu"}));
}

TEST(TfliteFakeQuantRanges, RefusesOtherBitWidthsAndVariableRanges) {
  tensorflow::GraphDef four_bits = parseGraph(std::string(kPlaceholder) + fakeQuantArgs("q4", "x", 0, 1, 4));
  auto r = tflite::takeFakeQuantRanges(&four_bits);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "FakeQuant node 'q4' quantizes to 4 bits; TensorFlow Lite's quantized types are 8 bits");

  tensorflow::GraphDef vars = parseGraph(
      std::string(kPlaceholder) + floatConst("hi", {}, {6.0f}) +
      "node { name: \"lo\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } } }\n"
      "node { name: \"q\" op: \"FakeQuantWithMinMaxVars\" input: \"x\" input: \"lo\" input: \"hi\" }\n");
  auto v = tflite::takeFakeQuantRanges(&vars);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error(), "FakeQuant node 'q': its min ('lo') is not a constant; freeze the graph first");
}

}  // namespace
}  // namespace gds::transforms::test
