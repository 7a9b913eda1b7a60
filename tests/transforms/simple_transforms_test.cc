// Attribute, device, name and ordering transforms on small hand-built graphs.
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

const char* kSmall = R"(
node { name: "a" op: "Placeholder" device: "/cpu:0" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "b" op: "Mul" input: "a" input: "a" input: "^c" device: ""
       attr { key: "T" value { type: DT_FLOAT } } attr { key: "foo" value { i: 1 } } }
node { name: "c" op: "NoOp" }
node { name: "d" op: "Add" input: "b:0" input: "a" attr { key: "T" value { type: DT_FLOAT } } attr { key: "foo" value { i: 2 } } }
)";

TEST(RemoveAttribute, AllNodesOrOneOpType) {
  auto out = run("remove_attribute", parseGraph(kSmall), {{"attribute_name", {"foo"}}, {"op_name", {"Mul"}}});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_FALSE(findNode(*out, "b")->attr().count("foo"));
  EXPECT_TRUE(findNode(*out, "d")->attr().count("foo"));
  out = run("remove_attribute", parseGraph(kSmall), {{"attribute_name", {"foo"}}});
  EXPECT_FALSE(findNode(*out, "d")->attr().count("foo"));
  EXPECT_EQ(run("remove_attribute", parseGraph(kSmall), {}).error(),
            "remove_attribute: expects exactly one 'attribute_name' parameter, e.g. remove_attribute(op_name=Mul, "
            "attribute_name=foo)");
}

TEST(RenameAttribute, KeepsValue) {
  auto out = run("rename_attribute", parseGraph(kSmall),
                 {{"old_attribute_name", {"foo"}}, {"new_attribute_name", {"bar"}}, {"op_name", {"Add"}}});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(findNode(*out, "d")->attr().at("bar").i(), 2);
  EXPECT_FALSE(findNode(*out, "d")->attr().count("foo"));
  EXPECT_EQ(findNode(*out, "b")->attr().at("foo").i(), 1);
}

TEST(RenameOp, ChangesType) {
  auto out = run("rename_op", parseGraph(kSmall), {{"old_op_name", {"Mul"}}, {"new_op_name", {"Multiply"}}});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(findNode(*out, "b")->op(), "Multiply");
  EXPECT_EQ(run("rename_op", parseGraph(kSmall), {{"old_op_name", {"Mul"}}}).error(),
            "rename_op: expects exactly one 'old_op_name' and one 'new_op_name' parameter, e.g. "
            "rename_op(old_op_name=Mul, new_op_name=Multiply)");
}

TEST(RenameNode, RewritesInputsKeepingPortsAndControl) {
  auto g = parseGraph(kSmall);
  auto out = run("rename_node", g, {{"old_node_name", {"b"}}, {"new_node_name", {"x"}}});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(nodeNames(*out), (Names{"a", "x", "c", "d"}));
  EXPECT_EQ(inputsOf(*out, "d"), (Names{"x:0", "a"}));
  out = run("rename_node", g, {{"old_node_name", {"c"}}, {"new_node_name", {"y"}}});
  EXPECT_EQ(inputsOf(*out, "b"), (Names{"a", "a", "^y"}));
  EXPECT_EQ(run("rename_node", g, {{"old_node_name", {"b"}}, {"new_node_name", {"d"}}}).error(),
            "rename_node: a node is already named 'd'");
  EXPECT_EQ(run("rename_node", g, {{"old_node_name", {"zz"}}, {"new_node_name", {"q"}}}).error(),
            "rename_node: no node named 'zz' in the graph");
}

TEST(SetDevice, AllOrOnlyDefault) {
  auto g = parseGraph(kSmall);
  auto out = run("set_device", g, {{"device", {"/gpu:0"}}});
  for (const auto& n : out->node()) EXPECT_EQ(n.device(), "/gpu:0");
  out = run("set_device", g, {{"device", {"/gpu:0"}}, {"if_default", {"true"}}});
  EXPECT_EQ(findNode(*out, "a")->device(), "/cpu:0");
  EXPECT_EQ(findNode(*out, "b")->device(), "/gpu:0");
  EXPECT_EQ(run("set_device", g, {{"device", {"/gpu:0"}}, {"if_default", {"yes"}}}).error(),
            "set_device: parameter 'if_default' must be true, false, 1 or 0, got 'yes'");
}

TEST(RemoveDevice, ClearsAll) {
  auto out = run("remove_device", parseGraph(kSmall));
  for (const auto& n : out->node()) EXPECT_EQ(n.device(), "");
}

TEST(RemoveControlDependencies, DropsCaretInputs) {
  auto out = run("remove_control_dependencies", parseGraph(kSmall));
  EXPECT_EQ(inputsOf(*out, "b"), (Names{"a", "a"}));
}

TEST(SortByExecutionOrder, LifoKahnOrder) {
  auto g = parseGraph(R"(
    node { name: "d" op: "Add" input: "b" input: "c" }
    node { name: "c" op: "Neg" input: "a" }
    node { name: "b" op: "Neg" input: "a" }
    node { name: "a" op: "Placeholder" }
  )");
  auto out = run("sort_by_execution_order", g);
  ASSERT_TRUE(out.ok()) << out.error();
  // Ready list is a stack: a, then its consumers c, b pushed in node order (c first) -> b runs first.
  EXPECT_EQ(nodeNames(*out), (Names{"a", "b", "c", "d"}));
  auto cyc = parseGraph(R"(
    node { name: "x" op: "Neg" input: "y" }
    node { name: "y" op: "Neg" input: "x" }
    node { name: "z" op: "Const" }
  )");
  EXPECT_EQ(run("sort_by_execution_order", cyc).error(), "sort_by_execution_order: 2 nodes in a cycle");
}

TEST(ObfuscateNames, Base62AndKeepsInputsOutputs) {
  auto out = run("obfuscate_names", parseGraph(kSmall), {}, {"a"}, {"d"});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(nodeNames(*out), (Names{"a", "0", "1", "d"}));
  EXPECT_EQ(inputsOf(*out, "0"), (Names{"a", "a", "^1"}));
  EXPECT_EQ(inputsOf(*out, "d"), (Names{"0:0", "a"}));
}

TEST(BackportConcatV2, AxisFirstTidxRemoved) {
  auto g = parseGraph(R"(
    node { name: "x" op: "Placeholder" }
    node { name: "y" op: "Placeholder" }
    node { name: "axis" op: "Const" }
    node { name: "cat" op: "ConcatV2" input: "x" input: "y:1" input: "axis"
           attr { key: "N" value { i: 2 } } attr { key: "Tidx" value { type: DT_INT32 } } attr { key: "T" value { type: DT_FLOAT } } }
  )");
  auto out = run("backport_concatv2", g);
  ASSERT_TRUE(out.ok()) << out.error();
  const auto* cat = findNode(*out, "cat");
  EXPECT_EQ(cat->op(), "Concat");
  EXPECT_EQ(inputsOf(*out, "cat"), (Names{"axis", "x", "y:1"}));
  EXPECT_FALSE(cat->attr().count("Tidx"));
  EXPECT_EQ(cat->attr().at("N").i(), 2);
}

TEST(AddDefaultAttributes, FillsMissingFromOpMetadata) {
  auto g = parseGraph(R"(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "w" op: "Const" }
    node { name: "conv" op: "Conv2D" input: "x" input: "w" attr { key: "data_format" value { s: "NCHW" } } }
    node { name: "unknown" op: "NoSuchOp" }
  )");
  auto out = run("add_default_attributes", g);
  ASSERT_TRUE(out.ok()) << out.error();
  const auto* conv = findNode(*out, "conv");
  EXPECT_EQ(conv->attr().at("data_format").s(), "NCHW");  // present attrs are kept
  EXPECT_TRUE(conv->attr().at("use_cudnn_on_gpu").b());
  ASSERT_EQ(conv->attr().at("dilations").list().i_size(), 4);
  EXPECT_TRUE(findNode(*out, "x")->attr().at("shape").shape().unknown_rank());
  EXPECT_TRUE(findNode(*out, "unknown")->attr().empty());
}

TEST(MergeDuplicateNodes, MergesToFixpointKeepingFirst) {
  auto g = parseGraph(R"(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "c1" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT float_val: 2 } } } }
    node { name: "c2" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT float_val: 2 } } } }
    node { name: "m1" op: "Mul" input: "x" input: "c1" }
    node { name: "m2" op: "Mul" input: "x:0" input: "c2" }
    node { name: "r1" op: "RandomUniform" input: "x" }
    node { name: "r2" op: "RandomUniform" input: "x" }
    node { name: "out" op: "Add" input: "m1" input: "m2" input: "r1" input: "r2" }
  )");
  auto out = run("merge_duplicate_nodes", g, {}, {"x"}, {"out"});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(nodeNames(*out), (Names{"x", "c1", "m1", "r1", "r2", "out"}));
  EXPECT_EQ(inputsOf(*out, "out"), (Names{"m1", "m1", "r1", "r2"}));
}

// Two identical updates of a variable are two updates: Assign and the other
// ref-updating ops (TensorFlow does not mark them stateful) are never merged,
// nor are control-flow nodes; the identical reads beside them are.
TEST(MergeDuplicateNodes, KeepsVariableUpdatesAndControlFlow) {
  auto g = parseGraph(R"(
    node { name: "v" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
    node { name: "i" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 int_val: 0 } } } }
    node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT float_val: 2 } } } }
    node { name: "as1" op: "Assign" input: "v" input: "c" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "as2" op: "Assign" input: "v" input: "c" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "sm1" op: "ScatterMax" input: "v" input: "i" input: "c" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "sm2" op: "ScatterMax" input: "v" input: "i" input: "c" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "t1" op: "ControlTrigger" input: "^as1" }
    node { name: "t2" op: "ControlTrigger" input: "^as1" }
    node { name: "id1" op: "Identity" input: "v" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "id2" op: "Identity" input: "v" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "out" op: "AddN" input: "as1" input: "as2" input: "sm1" input: "sm2" input: "id1" input: "id2" input: "^t1" input: "^t2" }
  )");
  auto out = run("merge_duplicate_nodes", g, {}, {}, {"out"});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(nodeNames(*out), (Names{"v", "i", "c", "as1", "as2", "sm1", "sm2", "t1", "t2", "id1", "out"}));
  EXPECT_EQ(inputsOf(*out, "out"), (Names{"as1", "as2", "sm1", "sm2", "id1", "id1", "^t1", "^t2"}));
}

}  // namespace
}  // namespace gds::transforms
