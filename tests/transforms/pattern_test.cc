// OpTypePattern matching and replaceMatchingOpTypes, with TensorFlow's rules.
#include <gtest/gtest.h>

#include "tests/transforms/graph_text.h"
#include "transforms/transform_utils.h"

namespace gds::transforms {
namespace {

using test::nodeNames;
using test::parseGraph;
using Names = std::vector<std::string>;

const char* kChain = R"(
node { name: "x" op: "Placeholder" }
node { name: "w" op: "Const" }
node { name: "conv" op: "Conv2D" input: "x" input: "w" input: "^c" }
node { name: "b" op: "Const" }
node { name: "bias" op: "BiasAdd" input: "conv" input: "b" }
node { name: "c" op: "NoOp" }
)";

TEST(Pattern, AlternativesWildcardAndControlInputsIgnored) {
  auto g = parseGraph(kChain);
  GraphMatcher matcher(g);
  auto matches = matcher.getOpTypeMatches({"BiasAdd|Add", {{"Conv2D", {{"*"}, {"Const"}}}, {"Const"}}});
  ASSERT_EQ(matches.size(), 1u);
  EXPECT_EQ(matches[0].def().name(), "bias");
  EXPECT_EQ(matches[0].inputs[0].inputs[0].def().name(), "x");
  Names in_match;
  for (const auto* n : matchedNodes(matches[0])) in_match.push_back(n->name());
  EXPECT_EQ(in_match, (Names{"bias", "conv", "b", "x", "w"}));
  EXPECT_TRUE(opMatches("A|B", "B"));
  EXPECT_FALSE(opMatches("A|B", "AB"));
}

TEST(Pattern, InputCountMustMatchUnlessPatternHasNone) {
  auto g = parseGraph(kChain);
  EXPECT_EQ(GraphMatcher(g).getOpTypeMatches({"Conv2D", {{"*"}}}).size(), 0u);
  EXPECT_EQ(GraphMatcher(g).getOpTypeMatches({"Conv2D"}).size(), 1u);
}

TEST(Pattern, NodeJoinsAtMostOneMatch) {
  auto g = parseGraph(R"(
    node { name: "x" op: "Placeholder" }
    node { name: "a" op: "Relu" input: "x" }
    node { name: "b" op: "Relu" input: "a" }
    node { name: "c" op: "Relu" input: "b" }
  )");
  auto matches = GraphMatcher(g).getOpTypeMatches({"Relu", {{"*"}}});
  // Execution order: a matches with x; b's input a is taken; c matches with b.
  ASSERT_EQ(matches.size(), 2u);
  EXPECT_EQ(matches[0].def().name(), "a");
  EXPECT_EQ(matches[1].def().name(), "c");
}

TEST(Pattern, ReplacementDroppingAnOutsideUseIsCancelled) {
  auto g = parseGraph(std::string(kChain) + R"(node { name: "other" op: "Relu" input: "conv" })");
  auto drop_all = [](const NodeMatch& match, const std::set<std::string>& inputs, const std::set<std::string>& outputs,
                     std::vector<NodeDef>* new_nodes) {
    EXPECT_EQ(outputs, (std::set<std::string>{"conv"}));  // "other" reads conv
    EXPECT_EQ(inputs, (std::set<std::string>{"conv"}));  // conv has the outside control input ^c
    NodeDef n = match.def();
    n.set_op("Fused");
    new_nodes->push_back(n);
    return Status::Ok();
  };
  GraphDef out;
  ASSERT_TRUE(replaceMatchingOpTypes(g, {"BiasAdd", {{"Conv2D", {{"*"}, {"Const"}}}, {"Const"}}}, drop_all, {}, &out).ok());
  // Cancelled: the original nodes stay where they were.
  EXPECT_EQ(nodeNames(out), nodeNames(g));
  EXPECT_EQ(out.node(4).op(), "BiasAdd");
  ASSERT_TRUE(replaceMatchingOpTypes(g, {"BiasAdd", {{"Conv2D", {{"*"}, {"Const"}}}, {"Const"}}}, drop_all, {true}, &out).ok());
  EXPECT_EQ(nodeNames(out), (Names{"bias", "c", "other"}));
  EXPECT_EQ(out.node(0).op(), "Fused");
}

TEST(Pattern, GeneratorErrorsPropagate) {
  auto g = parseGraph(kChain);
  GraphDef out;
  Status s = replaceMatchingOpTypes(
      g, {"Const"},
      [](const NodeMatch& m, const std::set<std::string>&, const std::set<std::string>&, std::vector<NodeDef>*) {
        return Status::Error("bad " + m.def().name());
      },
      {}, &out);
  EXPECT_EQ(s.message(), "bad w");
}

}  // namespace
}  // namespace gds::transforms
