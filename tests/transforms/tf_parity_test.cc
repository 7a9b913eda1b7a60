// Transforms whose TensorFlow unit tests are ported here case by case
// (tensorflow/tools/graph_transforms/*_test.cc): sparsify_gather,
// backport_tensor_array_v3, strip_unused_nodes, fold_constants with
// _output_shapes, and the registry's error for an unknown transform.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "tests/model/checkpoint_test_writer.h"
#include "tests/test_util.h"
#include "tests/transforms/graph_text.h"
#include "transforms/parser.h"
#include "transforms/pipeline.h"
#include "transforms/transform_utils.h"

namespace gds::transforms {
namespace {

using test::findNode;
using test::run;

NodeDef* addNode(GraphDef* g, const std::string& name, const std::string& op, const std::vector<std::string>& inputs,
                 bool control = false) {
  NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op(op);
  for (const auto& i : inputs) n->add_input(control ? "^" + i : i);
  return n;
}

void setFloats(NodeDef* n, const model::Shape& shape, const std::vector<float>& values) {
  setTensorAttr(n, "value", floatTensor(shape, values));
}

void setDtype(NodeDef* n, tensorflow::DataType t) { setTypeAttr(n, "dtype", t); }

model::HostTensor strings(const std::vector<std::string>& values) {
  model::HostTensor t;
  t.dtype = tensorflow::DT_STRING;
  t.shape = {static_cast<std::int64_t>(values.size())};
  t.strings = values;
  return t;
}

std::map<std::string, const NodeDef*> byName(const GraphDef& g) {
  std::map<std::string, const NodeDef*> m;
  for (const auto& n : g.node()) m[n.name()] = &n;
  return m;
}

void makeGather(GraphDef* g, const std::string& name, bool v2, const std::string& params, const std::string& ids) {
  if (v2) {
    NodeDef* axis = addNode(g, name + "_axis", "Const", {});
    model::HostTensor zero = model::HostTensor::zeros(tensorflow::DT_INT32, {});
    setTensorAttr(axis, "value", zero);
    setDtype(axis, tensorflow::DT_INT32);
    addNode(g, name, "GatherV2", {params, ids, name + "_axis"});
  } else {
    addNode(g, name, "Gather", {params, ids});
  }
}

const std::vector<float> kWeights = {0.2f, 0.000001f, 1.2f, 0.001f};

// TensorFlow's SparsifyGatherTest::TestSinglePartition.
void singlePartition(bool gather_v2, bool include_shared_init, bool test_variable, bool test_kept_concat,
                     const std::string& shared_init_name = "group_deps") {
  SCOPED_TRACE(std::string(gather_v2 ? "GatherV2" : "Gather") + (test_variable ? " variable" : " const") +
               (include_shared_init ? " shared init" : "") + (test_kept_concat ? " kept concat" : "") + " " +
               shared_init_name);
  GraphDef g;
  addNode(&g, "ids", "Const", {});
  const std::string checkpoint = gds::test::tempDir() + "/checkpoint_single";
  NodeDef* w;
  if (!test_variable) {
    w = addNode(&g, "w/part_1", "Const", {});
    setFloats(w, {4, 1}, kWeights);
  } else {
    w = addNode(&g, "w/part_1", "VariableV2", {});
    addNode(&g, "w/part_1/Initializer/zeros/shape_as_tensor", "Const", {});
    addNode(&g, "w/part_1/Initializer/zeros/Const", "Const", {});
    addNode(&g, "w/part_1/Initializer/zeros", "Fill",
            {"w/part_1/Initializer/zeros/shape_as_tensor", "w/part_1/Initializer/zeros/Const"});
    addNode(&g, "w/part_1/Assign", "Assign", {"w/part_1", "w/part_1/Initializer/zeros"});
    addNode(&g, "save/Const", "Const", {});
    setTensorAttr(addNode(&g, "save/RestoreV2/tensor_names", "Const", {}), "value", strings({"w"}));
    setTensorAttr(addNode(&g, "save/RestoreV2/shape_and_slices", "Const", {}), "value", strings({"4 1 0,4:0,1"}));
    addNode(&g, "save/RestoreV2", "RestoreV2",
            {"save/Const", "save/RestoreV2/tensor_names", "save/RestoreV2/shape_and_slices"});
    addNode(&g, "save/Assign", "Assign", {"w/part_1", "save/RestoreV2"});
    model::testing::BundleBuilder bundle;
    bundle.add("w", floatTensor({4, 1}, kWeights));
    ASSERT_TRUE(bundle.write(checkpoint).ok());
  }
  setDtype(w, tensorflow::DT_FLOAT);
  addNode(&g, "w/read", "Identity", {"w/part_1"});
  makeGather(&g, "gather", gather_v2, "w/read", "ids");
  if (include_shared_init) {
    if (!test_variable) addNode(&g, shared_init_name, "NoOp", {});
    else addNode(&g, shared_init_name, "NoOp", {"w/part_1/Assign"}, true);
  }
  addNode(&g, "linear/concat/axis", "Const", {});
  addNode(&g, "concat/input/node", "Const", {});
  NodeDef* concat;
  if (!test_kept_concat) {
    concat = addNode(&g, "concat/node", "ConcatV2", {"w/read", "concat/input/node", "linear/concat/axis"});
    (*concat->mutable_attr())["N"].set_i(2);
  } else {
    addNode(&g, "concat/input/node_2", "Const", {});
    concat = addNode(&g, "concat/node", "ConcatV2",
                     {"w/read", "concat/input/node", "concat/input/node_2", "linear/concat/axis"});
    (*concat->mutable_attr())["N"].set_i(3);
  }
  TransformParams params;
  if (test_variable) params["input_checkpoint"] = {checkpoint};
  if (shared_init_name != "group_deps") params["group_init_node"] = {shared_init_name};
  auto out = run("sparsify_gather", g, params, {"ids"}, {"gather"});
  ASSERT_TRUE(out.ok()) << out.error();
  auto n = byName(*out);
  EXPECT_EQ(0u, n.count("w/part_1/Initializer/zeros/shape_as_tensor"));
  EXPECT_EQ(0u, n.count("w/part_1/Initializer/zeros/Const"));
  EXPECT_EQ(0u, n.count("w/part_1/Initializer/zeros"));
  EXPECT_EQ(0u, n.count("w/part_1/Assign"));
  ASSERT_EQ(1u, n.count("ids"));
  EXPECT_EQ("Const", n.at("ids")->op());
  ASSERT_EQ(1u, n.count("concat/node"));
  const NodeDef* c = n.at("concat/node");
  if (!test_kept_concat) {
    EXPECT_EQ(0u, n.count("linear/concat/axis"));
    EXPECT_EQ("Identity", c->op());
    ASSERT_EQ(1, c->input_size());
    EXPECT_EQ("concat/input/node", c->input(0));
  } else {
    EXPECT_EQ(1u, n.count("linear/concat/axis"));
    EXPECT_EQ("ConcatV2", c->op());
    ASSERT_EQ(3, c->input_size());
    EXPECT_EQ("concat/input/node", c->input(0));
    EXPECT_EQ("concat/input/node_2", c->input(1));
    EXPECT_EQ("linear/concat/axis", c->input(2));
    EXPECT_EQ(2, c->attr().at("N").i());
  }
  ASSERT_EQ(1u, n.count("w/part_1/indices"));
  auto indices = tensorAttr(*n.at("w/part_1/indices"));
  ASSERT_TRUE(indices.ok());
  ASSERT_EQ(indices->dtype, tensorflow::DT_INT64);
  EXPECT_EQ(std::vector<std::int64_t>(indices->as<std::int64_t>(), indices->as<std::int64_t>() + indices->size()),
            (std::vector<std::int64_t>{0, 2, 3}));
  EXPECT_EQ(test::floatValues(*out, "w/part_1/values"), (std::vector<float>{0.2f, 1.2f, 0.001f}));
  EXPECT_EQ("HashTable", n.at("w/part_1/HashTable")->op());
  EXPECT_EQ("InitializeTable", n.at("w/part_1/InitializeTable")->op());
  EXPECT_EQ("LookupTableFind", n.at("gather/LookupTableFind")->op());
  EXPECT_EQ(test::floatValues(*out, "gather/Const"), (std::vector<float>{0.0f}));
  auto dim = tensorAttr(*n.at("gather/ExpandDims/Const"));
  ASSERT_TRUE(dim.ok());
  EXPECT_EQ(dim->as<std::int32_t>()[0], -1);
  EXPECT_EQ("ExpandDims", n.at("gather")->op());
  ASSERT_EQ(1u, n.count(shared_init_name));
  EXPECT_EQ("NoOp", n.at(shared_init_name)->op());
  EXPECT_EQ(test::inputsOf(*out, "w/part_1/InitializeTable"),
            (std::vector<std::string>{"w/part_1/HashTable", "w/part_1/indices", "w/part_1/values"}));
  EXPECT_EQ(test::inputsOf(*out, "gather/LookupTableFind"),
            (std::vector<std::string>{"w/part_1/HashTable", "ids", "gather/Const"}));
  EXPECT_EQ(test::inputsOf(*out, "gather")[0], "gather/LookupTableFind");
  EXPECT_EQ(test::inputsOf(*out, shared_init_name), (std::vector<std::string>{"^w/part_1/InitializeTable"}));
  EXPECT_TRUE(checkInputsExist(*out).ok());
}

TEST(SparsifyGather, SinglePartitionLikeTensorFlow) {
  for (bool v2 : {false, true}) {
    singlePartition(v2, false, false, false);
    singlePartition(v2, true, false, false);
    singlePartition(v2, false, true, false);
    singlePartition(v2, true, true, false);
    singlePartition(v2, true, true, true);
    singlePartition(v2, false, false, false, "shared_inits");
    singlePartition(v2, true, false, false, "shared_inits");
    singlePartition(v2, true, true, false, "shared_inits");
  }
}

// TensorFlow's TestMultiPartition: two tables read by gathers sharing their ids.
TEST(SparsifyGather, MultiPartitionSharedIds) {
  for (bool v2 : {false, true})
    for (bool variable : {false, true}) {
      SCOPED_TRACE(std::string(v2 ? "GatherV2" : "Gather") + (variable ? " variable" : " const"));
      GraphDef g;
      addNode(&g, "ids", "Const", {});
      const std::string checkpoint = gds::test::tempDir() + "/checkpoint_multiple";
      if (!variable) {
        for (const char* w : {"w1/part_1", "w2/part_1"}) {
          NodeDef* n = addNode(&g, w, "Const", {});
          setFloats(n, {4, 1}, kWeights);
          setDtype(n, tensorflow::DT_FLOAT);
        }
      } else {
        addNode(&g, "save/Const", "Const", {});
        setTensorAttr(addNode(&g, "save/RestoreV2/tensor_names", "Const", {}), "value", strings({"w1", "w2"}));
        setTensorAttr(addNode(&g, "save/RestoreV2/shape_and_slices", "Const", {}), "value",
                      strings({"4 1 0,4:0,1", "4 1 0,4:0,1"}));
        addNode(&g, "save/RestoreV2", "RestoreV2",
                {"save/Const", "save/RestoreV2/tensor_names", "save/RestoreV2/shape_and_slices"});
        int k = 0;
        for (const std::string w : {"w1", "w2"}) {
          setDtype(addNode(&g, w + "/part_1", "VariableV2", {}), tensorflow::DT_FLOAT);
          addNode(&g, w + "/part_1/Initializer/zeros/shape_as_tensor", "Const", {});
          addNode(&g, w + "/part_1/Initializer/zeros/Const", "Const", {});
          addNode(&g, w + "/part_1/Initializer/zeros", "Fill",
                  {w + "/part_1/Initializer/zeros/shape_as_tensor", w + "/part_1/Initializer/zeros/Const"});
          addNode(&g, w + "/part_1/Assign", "Assign", {w + "/part_1", w + "/part_1/Initializer/zeros"});
          addNode(&g, k++ == 0 ? "save/Assign" : "save/Assign_1", "Assign", {w + "/part_1", "save/RestoreV2"});
        }
        model::testing::BundleBuilder bundle;
        bundle.add("w1", floatTensor({4, 1}, kWeights));
        bundle.add("w2", floatTensor({4, 1}, kWeights));
        ASSERT_TRUE(bundle.write(checkpoint).ok());
      }
      addNode(&g, "w1/part_1/read", "Identity", {"w1/part_1"});
      addNode(&g, "w2/part_1/read", "Identity", {"w2/part_1"});
      makeGather(&g, "gather1", v2, "w1/part_1/read", "ids");
      makeGather(&g, "gather2", v2, "w2/part_1/read", "ids");
      addNode(&g, "linear/concat/axis", "Const", {});
      (*addNode(&g, "concat/node", "ConcatV2", {"w1/part_1/read", "w2/part_1/read", "linear/concat/axis"})
            ->mutable_attr())["N"]
          .set_i(2);
      TransformParams params;
      if (variable) params["input_checkpoint"] = {checkpoint};
      auto out = run("sparsify_gather", g, params, {"ids"}, {"gather1", "gather2"});
      ASSERT_TRUE(out.ok()) << out.error();
      auto n = byName(*out);
      EXPECT_EQ(0u, n.count("concat/node"));  // both of its values went: the concat goes too
      EXPECT_EQ(0u, n.count("linear/concat/axis"));
      for (const std::string w : {"w1", "w2"}) {
        EXPECT_EQ(0u, n.count(w + "/part_1/Assign"));
        EXPECT_EQ(test::floatValues(*out, w + "/part_1/values"), (std::vector<float>{0.2f, 1.2f, 0.001f}));
        EXPECT_EQ("HashTable", n.at(w + "/part_1/HashTable")->op());
      }
      for (const std::string gather : {"gather1", "gather2"}) {
        EXPECT_EQ("ExpandDims", n.at(gather)->op());
        EXPECT_EQ(test::inputsOf(*out, gather + "/LookupTableFind")[1], "ids");
      }
      auto init = test::inputsOf(*out, "group_deps");
      std::sort(init.begin(), init.end());
      EXPECT_EQ(init, (std::vector<std::string>{"^w1/part_1/InitializeTable", "^w2/part_1/InitializeTable"}));
      EXPECT_TRUE(checkInputsExist(*out).ok());
    }
}

TEST(SparsifyGather, ResourceGatherAndErrors) {
  // A resource variable read by ResourceGather (beyond TensorFlow's transform).
  GraphDef g;
  addNode(&g, "ids", "Placeholder", {});
  setDtype(addNode(&g, "emb", "VarHandleOp", {}), tensorflow::DT_FLOAT);
  addNode(&g, "lookup", "ResourceGather", {"emb", "ids"});
  const std::string checkpoint = gds::test::tempDir() + "/resource";
  model::testing::BundleBuilder bundle;
  bundle.add("emb", floatTensor({3, 1}, {0.f, 5.f, 0.f}));
  ASSERT_TRUE(bundle.write(checkpoint).ok());
  auto out = run("sparsify_gather", g, {{"input_checkpoint", {checkpoint}}}, {"ids"}, {"lookup"});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(findNode(*out, "emb"), nullptr);
  EXPECT_EQ(findNode(*out, "lookup")->op(), "ExpandDims");
  EXPECT_EQ(test::floatValues(*out, "emb/values"), (std::vector<float>{5.f}));
  // Without the checkpoint the variable's value is unknown.
  EXPECT_EQ(run("sparsify_gather", g, {}, {"ids"}, {"lookup"}).error(),
            "sparsify_gather: 'emb' is a VarHandleOp: give input_checkpoint=PREFIX to read the table's value");
  // Only [N, 1] float tables, only axis 0.
  GraphDef wide;
  addNode(&wide, "ids", "Const", {});
  NodeDef* w = addNode(&wide, "w", "Const", {});
  setFloats(w, {2, 2}, {1, 2, 3, 4});
  setDtype(w, tensorflow::DT_FLOAT);
  addNode(&wide, "w/read", "Identity", {"w"});
  addNode(&wide, "gather", "Gather", {"w/read", "ids"});
  EXPECT_EQ(run("sparsify_gather", wide, {}, {"ids"}, {"gather"}).error(),
            "sparsify_gather: Transform only applicable to subgraph with 'Const' with tensor of shape [N, 1]. But "
            "instead get shape [2,2].");
  GraphDef axis1;
  addNode(&axis1, "ids", "Const", {});
  NodeDef* t = addNode(&axis1, "w", "Const", {});
  setFloats(t, {2, 1}, {1, 0});
  setDtype(t, tensorflow::DT_FLOAT);
  addNode(&axis1, "w/read", "Identity", {"w"});
  NodeDef* axis = addNode(&axis1, "axis", "Const", {});
  model::HostTensor one = model::HostTensor::zeros(tensorflow::DT_INT32, {});
  one.as<std::int32_t>()[0] = 1;
  setTensorAttr(axis, "value", one);
  addNode(&axis1, "gather", "GatherV2", {"w/read", "ids", "axis"});
  EXPECT_EQ(run("sparsify_gather", axis1, {}, {"ids"}, {"gather"}).error(),
            "sparsify_gather: Transform only applicable to subgraph with GatherV2 over axis 0. Found axis 1.");
}

// TensorFlow's BackportTensorArrayV3Test.
TEST(BackportTensorArrayV3, EveryV3OpBecomesV2) {
  GraphDef g;
  addNode(&g, "size_op", "Const", {});
  addNode(&g, "tensor_array", "TensorArrayV3", {"size_op"});
  addNode(&g, "handle_output", "Identity", {"tensor_array:0"});
  addNode(&g, "flow_output", "Identity", {"tensor_array:1"});
  addNode(&g, "grad", "TensorArrayGradV3", {"tensor_array:0", "tensor_array:1"});
  addNode(&g, "grad_flow", "Identity", {"grad:1"});
  const std::vector<std::string> ops = {"Write", "Read", "Gather", "Scatter", "Concat", "Split", "Size", "Close"};
  for (const auto& op : ops) addNode(&g, "ta_" + op, "TensorArray" + op + "V3", {"tensor_array:0", "tensor_array:1"});
  auto out = run("backport_tensor_array_v3", g);
  ASSERT_TRUE(out.ok()) << out.error();
  auto n = byName(*out);
  EXPECT_EQ("TensorArrayV2", n.at("tensor_array")->op());
  EXPECT_EQ("TensorArrayGradV2", n.at("grad")->op());
  EXPECT_EQ("tensor_array:0", n.at("handle_output")->input(0));
  EXPECT_EQ("tensor_array/replacement_flow_node", n.at("flow_output")->input(0));
  EXPECT_EQ("grad/replacement_flow_node", n.at("grad_flow")->input(0));
  EXPECT_EQ("Const", n.at("tensor_array/replacement_flow_node")->op());
  EXPECT_EQ(test::floatValues(*out, "tensor_array/replacement_flow_node"), (std::vector<float>{1.0f}));
  for (const auto& op : ops) {
    EXPECT_EQ("TensorArray" + op + "V2", n.at("ta_" + op)->op());
    EXPECT_EQ(test::inputsOf(*out, "ta_" + op),
              (std::vector<std::string>{"tensor_array:0", "tensor_array/replacement_flow_node"}));
  }
  EXPECT_TRUE(checkInputsExist(*out).ok());
}

// TensorFlow's StripUnusedNodesTest, case by case.
GraphDef addMulGraph() {
  GraphDef g;
  addNode(&g, "add_node", "Add", {"mul_node", "a_node"});
  addNode(&g, "mul_node", "Mul", {"b_node", "c_node"});
  addNode(&g, "a_node", "Const", {});
  addNode(&g, "b_node", "Const", {});
  addNode(&g, "c_node", "Const", {});
  return g;
}

TEST(StripUnusedNodesTf, SimpleAdd) {
  GraphDef g;
  addNode(&g, "add_node", "Add", {"a_node", "b_node"});
  addNode(&g, "a_node", "Const", {});
  addNode(&g, "b_node", "Const", {});
  addNode(&g, "c_node", "Const", {});
  auto out = run("strip_unused_nodes", g, {}, {}, {"add_node"});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(test::nodeNames(*out), (std::vector<std::string>{"add_node", "a_node", "b_node"}));
}

TEST(StripUnusedNodesTf, CommonAncestorKeepsADanglingInput) {
  GraphDef g;
  addNode(&g, "add_node1", "Add", {"add_node2", "add_node3"});
  addNode(&g, "add_node2", "Add", {"const_node1", "const_node2"});
  addNode(&g, "add_node3", "Add", {"const_node1", "const_node3"});
  addNode(&g, "const_node1", "Const", {});
  addNode(&g, "const_node2", "Const", {});
  addNode(&g, "const_node3", "Const", {});
  addNode(&g, "dangling_input", "Const", {});
  addNode(&g, "add_node4", "Add", {"add_node2", "add_node3"});
  auto out = run("strip_unused_nodes", g, {}, {"dangling_input"}, {"add_node1"});
  ASSERT_TRUE(out.ok()) << out.error();
  auto n = byName(*out);
  for (const char* kept : {"add_node1", "add_node2", "add_node3", "const_node1", "const_node2", "const_node3"})
    EXPECT_EQ(1u, n.count(kept)) << kept;
  EXPECT_EQ(0u, n.count("add_node4"));
  // No output needs it, but it is an input: kept, as a Placeholder.
  ASSERT_EQ(1u, n.count("dangling_input"));
  EXPECT_EQ("Placeholder", n.at("dangling_input")->op());
  EXPECT_EQ(tensorflow::DT_FLOAT, n.at("dangling_input")->attr().at("dtype").type());
}

TEST(StripUnusedNodesTf, PlaceholdersDefaultAndNamedArgs) {
  auto out = run("strip_unused_nodes", addMulGraph(), {}, {"mul_node"}, {"add_node"});
  ASSERT_TRUE(out.ok()) << out.error();
  auto n = byName(*out);
  EXPECT_EQ("Placeholder", n.at("mul_node")->op());
  EXPECT_EQ(tensorflow::DT_FLOAT, n.at("mul_node")->attr().at("dtype").type());
  EXPECT_EQ(0, n.at("mul_node")->attr().at("shape").shape().dim_size());
  EXPECT_EQ(1u, n.count("a_node"));
  EXPECT_EQ(0u, n.count("b_node"));
  EXPECT_EQ(0u, n.count("c_node"));

  out = run("strip_unused_nodes", addMulGraph(), {{"type", {"int32"}}, {"shape", {"1,2,3"}}}, {"mul_node"},
            {"add_node"});
  ASSERT_TRUE(out.ok()) << out.error();
  n = byName(*out);
  EXPECT_EQ(tensorflow::DT_INT32, n.at("mul_node")->attr().at("dtype").type());
  EXPECT_EQ(model::shapeFromProto(n.at("mul_node")->attr().at("shape").shape()), (model::Shape{1, 2, 3}));

  out = run("strip_unused_nodes", addMulGraph(),
            {{"name", {"a_node", "mul_node"}}, {"type_for_name", {"int64", "quint8"}},
             {"shape_for_name", {"1,2", "1, 2, 3"}}},
            {"mul_node", "a_node"}, {"add_node"});
  ASSERT_TRUE(out.ok()) << out.error();
  n = byName(*out);
  EXPECT_EQ(tensorflow::DT_QUINT8, n.at("mul_node")->attr().at("dtype").type());
  EXPECT_EQ(model::shapeFromProto(n.at("mul_node")->attr().at("shape").shape()), (model::Shape{1, 2, 3}));
  EXPECT_EQ("Placeholder", n.at("a_node")->op());
  EXPECT_EQ(tensorflow::DT_INT64, n.at("a_node")->attr().at("dtype").type());
  EXPECT_EQ(model::shapeFromProto(n.at("a_node")->attr().at("shape").shape()), (model::Shape{1, 2}));
}

// With clear_output_shapes=false, TensorFlow imports the graph honouring
// _output_shapes: Shape of a Placeholder that records its shape folds, and so
// does the Cast computed from it.
TEST(FoldConstantsOutputShapes, RecordedPlaceholderShapeFolds) {
  const auto g = test::parseGraph(R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "_output_shapes" value { list { shape { dim { size: 1 } dim { size: 2 } dim { size: 3 } } } } } }
node { name: "s" op: "Shape" input: "x" attr { key: "T" value { type: DT_FLOAT } }
       attr { key: "out_type" value { type: DT_INT32 } } }
node { name: "c" op: "Cast" input: "s" attr { key: "SrcT" value { type: DT_INT32 } }
       attr { key: "DstT" value { type: DT_FLOAT } } }
node { name: "out" op: "Mul" input: "c" input: "c" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "y" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "sy" op: "Shape" input: "y" attr { key: "T" value { type: DT_FLOAT } }
       attr { key: "out_type" value { type: DT_INT32 } } }
node { name: "out2" op: "Neg" input: "sy" attr { key: "T" value { type: DT_INT32 } } }
)");
  auto kept = run("fold_constants", g, {{"clear_output_shapes", {"false"}}}, {"x"}, {"out", "out2"});
  ASSERT_TRUE(kept.ok()) << kept.error();
  EXPECT_EQ(findNode(*kept, "s"), nullptr);
  EXPECT_EQ(findNode(*kept, "c"), nullptr);
  const NodeDef* out = findNode(*kept, "out");
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->op(), "Const");  // an output that folds keeps its name
  EXPECT_EQ(test::floatValues(*kept, "out"), (std::vector<float>{1, 4, 9}));
  // The recorded shape flows through Relu to the second Shape.
  EXPECT_EQ(findNode(*kept, "out2")->op(), "Const");
  EXPECT_TRUE(findNode(*kept, "x")->attr().count("_output_shapes"));
  // Cleared (the default), nothing says what x's shape is: nothing folds.
  auto cleared = run("fold_constants", g, {}, {"x"}, {"out", "out2"});
  ASSERT_TRUE(cleared.ok()) << cleared.error();
  EXPECT_EQ(findNode(*cleared, "s")->op(), "Shape");
  EXPECT_EQ(findNode(*cleared, "out")->op(), "Mul");
}

TEST(TransformRegistryErrors, UnknownTransformAsTensorFlowSaysIt) {
  auto steps = parseTransforms("fold_constants fold_everything");
  ASSERT_FALSE(steps.ok());
  EXPECT_EQ(steps.error().rfind("Transform 'fold_everything' not recognized. Valid transforms: add_default_attributes, "
                                "backport_concatv2, backport_tensor_array_v3, ",
                                0),
            0u)
      << steps.error();
  EXPECT_NE(steps.error().find(", sparsify_gather, strip_unused_nodes"), std::string::npos);
}

}  // namespace
}  // namespace gds::transforms
