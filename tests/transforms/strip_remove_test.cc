// strip_unused_nodes and remove_nodes.
#include <gtest/gtest.h>

#include "tests/transforms/graph_text.h"

namespace gds::transforms {
namespace {

using test::findNode;
using test::inputsOf;
using test::nodeNames;
using test::parseGraph;
using test::run;
using Names = std::vector<std::string>;

const char* kStrip = R"(
node { name: "src" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "mid" op: "Neg" input: "src" }
node { name: "unused" op: "Relu" input: "src" }
node { name: "out" op: "Relu" input: "mid" }
)";

TEST(StripUnusedNodes, KeepsWhatOutputsNeedAndMakesPlaceholders) {
  auto out = run("strip_unused_nodes", parseGraph(kStrip), {{"type", {"float"}}, {"shape", {"1,2"}}}, {"mid"}, {"out"});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(nodeNames(*out), (Names{"mid", "out"}));
  const auto* ph = findNode(*out, "mid");
  EXPECT_EQ(ph->op(), "Placeholder");
  EXPECT_TRUE(ph->input().empty());
  EXPECT_EQ(ph->attr().at("dtype").type(), tensorflow::DT_FLOAT);
  ASSERT_EQ(ph->attr().at("shape").shape().dim_size(), 2);
  EXPECT_EQ(ph->attr().at("shape").shape().dim(1).size(), 2);
}

TEST(StripUnusedNodes, ExistingPlaceholderKeptAndPerNameTypes) {
  auto g = parseGraph(kStrip);
  auto out = run("strip_unused_nodes", g, {{"shape", {"1,2"}}}, {"src"}, {"out"});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(nodeNames(*out), (Names{"src", "mid", "out"}));
  EXPECT_FALSE(findNode(*out, "src")->attr().count("shape"));  // unchanged, as TensorFlow does
  out = run("strip_unused_nodes", g, {{"name", {"mid"}}, {"type_for_name", {"int32"}}, {"shape_for_name", {"3"}}},
            {"mid"}, {"out:0"});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(findNode(*out, "mid")->attr().at("dtype").type(), tensorflow::DT_INT32);
  EXPECT_EQ(findNode(*out, "mid")->attr().at("shape").shape().dim(0).size(), 3);
  // Without a shape the new Placeholder is a scalar.
  out = run("strip_unused_nodes", g, {}, {"mid"}, {"out"});
  EXPECT_EQ(findNode(*out, "mid")->attr().at("shape").shape().dim_size(), 0);
}

TEST(StripUnusedNodes, Errors) {
  auto g = parseGraph(kStrip);
  EXPECT_EQ(run("strip_unused_nodes", g, {}, {"mid"}, {"nope"}).error(),
            "strip_unused_nodes: output node 'nope' (from --outputs) not found in the graph");
  EXPECT_EQ(run("strip_unused_nodes", g, {}, {"gone"}, {"out"}).error(),
            "strip_unused_nodes: input node 'gone' (from --inputs) not found in the graph");
  EXPECT_EQ(run("strip_unused_nodes", g, {}, {"mid"}, {}).error(),
            "strip_unused_nodes: needs --outputs: the nodes to keep are those the outputs depend on");
  EXPECT_EQ(run("strip_unused_nodes", g, {{"shape", {"1,x"}}}, {"mid"}, {"out"}).error(),
            "strip_unused_nodes: could not parse '1,x' as a shape (expected comma-separated sizes, e.g. "
            "\"1,224,224,3\")");
  EXPECT_EQ(run("strip_unused_nodes", g, {{"type", {"floaty"}}}, {"mid"}, {"out"}).error(),
            "strip_unused_nodes: could not understand type 'floaty'");
  EXPECT_EQ(run("strip_unused_nodes", g, {{"name", {"mid"}}, {"type_for_name", {"float", "int32"}}}, {"mid"}, {"out"})
                .error(),
            "strip_unused_nodes: pass a 'type_for_name' for every 'name', e.g. strip_unused_nodes(name=foo, "
            "type_for_name=float, name=bar, type_for_name=quint8)");
}

TEST(RemoveNodes, IdentityChainsAndControlInputs) {
  auto g = parseGraph(R"(
    node { name: "x" op: "Placeholder" }
    node { name: "id1" op: "Identity" input: "x" }
    node { name: "id2" op: "Identity" input: "id1" }
    node { name: "r" op: "Relu" input: "id2" input: "^id1" }
    node { name: "out" op: "Identity" input: "r" }
  )");
  auto out = run("remove_nodes", g, {{"op", {"Identity"}}}, {"x"}, {"out"});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(nodeNames(*out), (Names{"x", "r", "out"}));
  EXPECT_EQ(inputsOf(*out, "r"), (Names{"x", "^x"}));
  EXPECT_EQ(inputsOf(*out, "out"), (Names{"r"}));
}

TEST(RemoveNodes, KeepsPortsAndSeveralOps) {
  auto g = parseGraph(R"(
    node { name: "sp" op: "Unpack" }
    node { name: "id" op: "Identity" input: "sp:1" }
    node { name: "chk" op: "CheckNumerics" input: "id" }
    node { name: "r" op: "Relu" input: "chk" }
  )");
  auto out = run("remove_nodes", g, {{"op", {"Identity", "CheckNumerics"}}});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(nodeNames(*out), (Names{"sp", "r"}));
  EXPECT_EQ(inputsOf(*out, "r"), (Names{"sp:1"}));
}

TEST(RemoveNodes, MaxInputsAndErrors) {
  auto g = parseGraph(R"(
    node { name: "a" op: "Placeholder" }
    node { name: "b" op: "Placeholder" }
    node { name: "n" op: "AddN" input: "a" input: "b" }
    node { name: "r" op: "Relu" input: "n" }
  )");
  auto out = run("remove_nodes", g, {{"op", {"AddN"}}});
  EXPECT_EQ(nodeNames(*out), (Names{"a", "b", "n", "r"}));  // two inputs > max_inputs=1
  out = run("remove_nodes", g, {{"op", {"AddN"}}, {"max_inputs", {"2"}}});
  EXPECT_EQ(nodeNames(*out), (Names{"a", "b", "r"}));
  EXPECT_EQ(inputsOf(*out, "r"), (Names{"a"}));
  EXPECT_EQ(run("remove_nodes", g, {}).error(),
            "remove_nodes: expects at least one 'op' parameter, e.g. remove_nodes(op=Identity)");
  EXPECT_EQ(run("remove_nodes", g, {{"op", {"AddN"}}, {"max_inputs", {"two"}}}).error(),
            "remove_nodes: parameter 'max_inputs' must be an integer, got 'two'");
}

TEST(StripUnusedNodes, SizeBeyondInt64IsAnErrorNamingTheParameter) {
  // strtoll saturated to 9223372036854775807, which went into the graph.
  auto g = parseGraph(kStrip);
  EXPECT_EQ(run("strip_unused_nodes", g, {{"shape", {"99999999999999999999,3"}}}, {"mid"}, {"out"}).error(),
            "strip_unused_nodes: parameter 'shape': size 99999999999999999999 in '99999999999999999999,3' does not "
            "fit in 64 bits (TensorFlow's TensorShapeFromString refuses it too)");
  EXPECT_EQ(run("strip_unused_nodes", g,
                {{"name", {"mid"}}, {"type_for_name", {"float"}}, {"shape_for_name", {"1,-99999999999999999999"}}},
                {"mid"}, {"out"})
                .error(),
            "strip_unused_nodes: parameter 'shape_for_name': size -99999999999999999999 in '1,-99999999999999999999' "
            "does not fit in 64 bits (TensorFlow's TensorShapeFromString refuses it too)");
}

TEST(RemoveNodes, ChainOfThirtyThousandIdentities) {
  // Resolved iteratively: a recursive walk overflowed the stack here.
  constexpr int kChain = 30000;
  tensorflow::GraphDef g;
  auto* x = g.add_node();
  x->set_name("x");
  x->set_op("Placeholder");
  std::string prev = "x";
  for (int i = 0; i < kChain; ++i) {
    auto* n = g.add_node();
    n->set_name("id" + std::to_string(i));
    n->set_op("Identity");
    n->add_input(prev);
    prev = n->name();
  }
  auto* r = g.add_node();
  r->set_name("r");
  r->set_op("Relu");
  r->add_input(prev);
  r->add_input("^id" + std::to_string(kChain / 2));
  auto out = run("remove_nodes", g, {{"op", {"Identity"}}}, {"x"}, {"r"});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(nodeNames(*out), (Names{"x", "r"}));
  EXPECT_EQ(inputsOf(*out, "r"), (Names{"x", "^x"}));
}

TEST(RemoveNodes, CycleOfRemovedNodesIsAnError) {
  auto g = parseGraph(R"(
    node { name: "a" op: "Identity" input: "b" }
    node { name: "b" op: "Identity" input: "a" }
    node { name: "r" op: "Relu" input: "a" }
  )");
  EXPECT_EQ(run("remove_nodes", g, {{"op", {"Identity"}}}).error(),
            "remove_nodes: removed nodes form a cycle through 'a'");
}

}  // namespace
}  // namespace gds::transforms
