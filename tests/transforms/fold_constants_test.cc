// fold_constants on small graphs, evaluated by the interpreter.
#include <gtest/gtest.h>

#include "tests/transforms/graph_text.h"

namespace gds::transforms {
namespace {

using test::findNode;
using test::floatConst;
using test::floatValues;
using test::inputsOf;
using test::intConst;
using test::nodeNames;
using test::parseGraph;
using test::run;
using Names = std::vector<std::string>;
using Floats = std::vector<float>;

const std::string kGraph =
    R"(node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } })"
    "\n" +
    floatConst("a", {2}, {1, 2}) + floatConst("b", {2}, {3, 4}) + R"(
node { name: "s" op: "Add" input: "a" input: "b" input: "^x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "m" op: "Mul" input: "s" input: "a" attr { key: "T" value { type: DT_FLOAT } } attr { key: "_output_shapes" value { list { shape { dim { size: 2 } } } } } }
node { name: "y" op: "Mul" input: "x" input: "m" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "out" op: "Add" input: "y" input: "s" attr { key: "T" value { type: DT_FLOAT } } }
)";

TEST(FoldConstants, BoundaryTensorsBecomeNamedConsts) {
  auto out = run("fold_constants", parseGraph(kGraph), {}, {"x"}, {"out"});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(nodeNames(*out), (Names{"x", "y", "out", "m/_0__cf__0", "s/_1__cf__1"}));
  EXPECT_EQ(inputsOf(*out, "y"), (Names{"x", "m/_0__cf__0"}));
  EXPECT_EQ(inputsOf(*out, "out"), (Names{"y", "s/_1__cf__1"}));
  EXPECT_EQ(floatValues(*out, "m/_0__cf__0"), (Floats{4, 12}));
  EXPECT_EQ(floatValues(*out, "s/_1__cf__1"), (Floats{4, 6}));
  // The control dependency of the folded Add moves onto its Consts.
  EXPECT_EQ(inputsOf(*out, "s/_1__cf__1"), (Names{"^x"}));
  EXPECT_EQ(inputsOf(*out, "m/_0__cf__0"), (Names{"^x"}));
  EXPECT_EQ(findNode(*out, "m/_0__cf__0")->attr().at("dtype").type(), tensorflow::DT_FLOAT);
}

TEST(FoldConstants, ExcludeOpAndNode) {
  auto out = run("fold_constants", parseGraph(kGraph), {{"exclude_op", {"Mul"}}}, {"x"}, {"out"});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(nodeNames(*out), (Names{"x", "a", "m", "y", "out", "s/_0__cf__0"}));
  EXPECT_EQ(inputsOf(*out, "m"), (Names{"s/_0__cf__0", "a"}));
  EXPECT_FALSE(findNode(*out, "m")->attr().count("_output_shapes"));  // clear_output_shapes=true
  out = run("fold_constants", parseGraph(kGraph), {{"exclude_node", {"s"}}, {"clear_output_shapes", {"false"}}},
            {"x"}, {"out"});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(nodeNames(*out), (Names{"x", "a", "b", "s", "m", "y", "out"}));
  EXPECT_TRUE(findNode(*out, "m")->attr().count("_output_shapes"));
}

TEST(FoldConstants, MaxConstantSize) {
  auto out = run("fold_constants", parseGraph(kGraph), {{"max_constant_size_in_bytes", {"4"}}}, {"x"}, {"out"});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(nodeNames(*out), (Names{"x", "a", "b", "s", "m", "y", "out"}));  // 8-byte results stay computed
}

TEST(FoldConstants, FoldableOutputKeepsItsName) {
  auto out = run("fold_constants", parseGraph(kGraph), {}, {"x"}, {"m"});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(nodeNames(*out), (Names{"x", "m"}));
  EXPECT_EQ(findNode(*out, "m")->op(), "Const");
  EXPECT_EQ(floatValues(*out, "m"), (Floats{4, 12}));
}

// Random numbers and graph inputs are not constants: what they feed stays
// computed, while the constant-only Add beside them folds. x is a Placeholder
// not named in --inputs, so only its op keeps it (and its consumer) out.
TEST(FoldConstants, RandomAndPlaceholderFedSubgraphsStay) {
  const std::string graph = intConst("shape", {1}, {2}) + floatConst("a", {2}, {1, 2}) +
                            floatConst("b", {2}, {3, 4}) + R"(
node { name: "r" op: "RandomUniform" input: "shape" attr { key: "T" value { type: DT_INT32 } } attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "seed" value { i: 7 } } attr { key: "seed2" value { i: 9 } } }
node { name: "rm" op: "Mul" input: "r" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "xa" op: "Add" input: "x" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "s" op: "Add" input: "a" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "out1" op: "Add" input: "rm" input: "s" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "out2" op: "Add" input: "xa" input: "s" attr { key: "T" value { type: DT_FLOAT } } }
)";
  auto out = run("fold_constants", parseGraph(graph), {}, {}, {"out1", "out2"});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(nodeNames(*out), (Names{"shape", "a", "r", "rm", "x", "xa", "out1", "out2", "s/_0__cf__0"}));
  EXPECT_EQ(findNode(*out, "r")->op(), "RandomUniform");
  EXPECT_EQ(inputsOf(*out, "rm"), (Names{"r", "a"}));
  EXPECT_EQ(findNode(*out, "x")->op(), "Placeholder");
  EXPECT_EQ(inputsOf(*out, "xa"), (Names{"x", "a"}));
  EXPECT_EQ(inputsOf(*out, "out1"), (Names{"rm", "s/_0__cf__0"}));
  EXPECT_EQ(floatValues(*out, "s/_0__cf__0"), (Floats{4, 6}));
}

TEST(FoldConstants, Errors) {
  EXPECT_EQ(run("fold_constants", parseGraph(kGraph), {}, {"x"}, {"nope"}).error(),
            "fold_constants: output node 'nope' (from --outputs) not found in the graph");
  EXPECT_EQ(run("fold_constants", parseGraph(kGraph), {}, {"x"}, {}).error(),
            "fold_constants: needs --outputs: nodes the outputs do not need are removed");
  EXPECT_EQ(run("fold_constants", parseGraph(kGraph), {{"max_constant_size_in_bytes", {"big"}}}, {"x"}, {"out"}).error(),
            "fold_constants: parameter 'max_constant_size_in_bytes' must be an integer, got 'big'");
}

}  // namespace
}  // namespace gds::transforms
