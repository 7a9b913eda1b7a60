// Freezing graphs built here: resource variables (VarHandleOp, ReadVariableOp
// through an Identity, ResourceGather) and partitioned variables without a
// saver, with checkpoints written in TensorFlow's bundle layout.
#include <gtest/gtest.h>

#include "model/freeze.h"
#include "tests/model/checkpoint_test_writer.h"
#include "tests/test_util.h"

namespace gds::model {
namespace {

using testing::BundleBuilder;
using testing::floats;

tensorflow::NodeDef* addNode(tensorflow::GraphDef* g, const std::string& name, const std::string& op,
                             std::vector<std::string> inputs = {}) {
  auto* n = g->add_node();
  n->set_name(name);
  n->set_op(op);
  for (auto& i : inputs) n->add_input(i);
  return n;
}
void setType(tensorflow::NodeDef* n, const std::string& attr, tensorflow::DataType t) {
  (*n->mutable_attr())[attr].set_type(t);
}
const tensorflow::NodeDef& node(const tensorflow::GraphDef& g, const std::string& name) {
  for (const auto& n : g.node())
    if (n.name() == name) return n;
  static tensorflow::NodeDef none;
  ADD_FAILURE() << "no node " << name;
  return none;
}

TEST(FreezeResource, VarHandleReadAndGather) {
  tensorflow::GraphDef g;
  auto* v = addNode(&g, "v", "VarHandleOp");
  setType(v, "dtype", tensorflow::DT_FLOAT);
  (*v->mutable_attr())["shared_name"].set_s("v");
  v->set_device("/device:CPU:0");
  setType(addNode(&g, "v_id", "Identity", {"v"}), "T", tensorflow::DT_RESOURCE);
  setType(addNode(&g, "read", "ReadVariableOp", {"v_id", "^init"}), "dtype", tensorflow::DT_FLOAT);
  setType(addNode(&g, "idx", "Placeholder"), "dtype", tensorflow::DT_INT32);
  auto* gather = addNode(&g, "gather", "ResourceGather", {"v", "idx"});
  setType(gather, "dtype", tensorflow::DT_FLOAT);
  setType(gather, "Tindices", tensorflow::DT_INT32);
  (*gather->mutable_attr())["batch_dims"].set_i(0);
  setType(addNode(&g, "init_value", "Const"), "dtype", tensorflow::DT_FLOAT);
  setType(addNode(&g, "init", "AssignVariableOp", {"v", "init_value"}), "dtype", tensorflow::DT_FLOAT);
  setType(addNode(&g, "out", "Identity", {"read"}), "T", tensorflow::DT_FLOAT);
  setType(addNode(&g, "out2", "Identity", {"gather"}), "T", tensorflow::DT_FLOAT);

  BundleBuilder b;
  b.add("v", floats({2, 3}, 1.f));
  std::string prefix = test::tempDir() + "/resource";
  ASSERT_TRUE(b.write(prefix).ok());
  auto ckpt = CheckpointReader::open(prefix);
  ASSERT_TRUE(ckpt.ok()) << ckpt.error();

  FreezeOptions o;
  o.output_nodes = {"out", "out2"};
  auto r = freezeGraph(g, nullptr, ckpt.value(), o);
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(r->converted.size(), 1u);
  EXPECT_EQ(r->converted[0].op, "VarHandleOp");
  const auto& c = node(r->graph, "v");
  EXPECT_EQ(c.op(), "Const");
  EXPECT_TRUE(c.device().empty());
  EXPECT_EQ(c.attr().at("dtype").type(), tensorflow::DT_FLOAT);
  auto value = decodeTensor(c.attr().at("value").tensor());
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(value->data, floats({2, 3}, 1.f).data);
  // The Identity between handle and read now carries floats.
  EXPECT_EQ(node(r->graph, "v_id").attr().at("T").type(), tensorflow::DT_FLOAT);
  // ReadVariableOp -> Identity of its handle input (control inputs dropped, as TF does).
  const auto& read = node(r->graph, "read");
  EXPECT_EQ(read.op(), "Identity");
  ASSERT_EQ(read.input_size(), 1);
  EXPECT_EQ(read.input(0), "v_id");
  EXPECT_EQ(read.attr().at("T").type(), tensorflow::DT_FLOAT);
  // ResourceGather -> GatherV2 with a Const axis "<name>/axis" placed before it.
  const auto& gv2 = node(r->graph, "gather");
  EXPECT_EQ(gv2.op(), "GatherV2");
  EXPECT_EQ(std::vector<std::string>(gv2.input().begin(), gv2.input().end()),
            (std::vector<std::string>{"v", "idx", "gather/axis"}));
  EXPECT_EQ(gv2.attr().at("Tparams").type(), tensorflow::DT_FLOAT);
  EXPECT_EQ(gv2.attr().at("Taxis").type(), tensorflow::DT_INT32);
  const auto& axis = node(r->graph, "gather/axis");
  EXPECT_EQ(axis.op(), "Const");
  EXPECT_EQ(axis.attr().at("value").tensor().int_val_size(), 1);
  EXPECT_EQ(axis.attr().at("value").tensor().int_val(0), 0);
  int axis_at = -1, gather_at = -1;
  for (int i = 0; i < r->graph.node_size(); ++i) {
    if (r->graph.node(i).name() == "gather/axis") axis_at = i;
    if (r->graph.node(i).name() == "gather") gather_at = i;
  }
  EXPECT_EQ(axis_at + 1, gather_at);
  // The initializer is not needed by the outputs... except through the read's
  // control input, so it stays, and the user is told it cannot run.
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_EQ(r->warnings[0],
            "node 'init' (AssignVariableOp) uses variable 'v', which is now a constant; the frozen graph cannot run it");
}

TEST(FreezeResource, PartitionedPartsWithoutSaver) {
  // w/part_0 and w/part_1 are the row halves of "w" [4,6]; no restore ops, so
  // the parts are matched to the saved slices in order.
  tensorflow::GraphDef g;
  for (const char* part : {"w/part_0", "w/part_1"}) {
    auto* v = addNode(&g, part, "VariableV2");
    setType(v, "dtype", tensorflow::DT_FLOAT);
    shapeToProto({2, 6}, (*v->mutable_attr())["shape"].mutable_shape());
    setType(addNode(&g, std::string(part) + "/read", "Identity", {part}), "T", tensorflow::DT_FLOAT);
  }
  setType(addNode(&g, "axis", "Const"), "dtype", tensorflow::DT_INT32);
  addNode(&g, "w", "ConcatV2", {"w/part_0/read", "w/part_1/read", "axis"});
  BundleBuilder b;
  b.addPartitioned("w", tensorflow::DT_FLOAT, {4, 6},
                   {{TensorSlice::parse("0,2:-").value(), floats({2, 6}, 0.f)},
                    {TensorSlice::parse("2,2:-").value(), floats({2, 6}, 12.f)}});
  std::string prefix = test::tempDir() + "/parts";
  ASSERT_TRUE(b.write(prefix).ok());
  auto ckpt = CheckpointReader::open(prefix);
  ASSERT_TRUE(ckpt.ok()) << ckpt.error();
  FreezeOptions o;
  o.output_nodes = {"w"};
  auto r = freezeGraph(g, nullptr, ckpt.value(), o);
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(r->converted.size(), 2u);
  EXPECT_EQ(r->converted[1].checkpoint_key, "w");
  EXPECT_EQ(r->converted[1].slice, "2,2:-");
  auto part1 = decodeTensor(node(r->graph, "w/part_1").attr().at("value").tensor());
  ASSERT_TRUE(part1.ok());
  EXPECT_EQ(part1->data, floats({2, 6}, 12.f).data);

  // A declared shape that does not match the checkpoint is an error.
  (*g.mutable_node(0)->mutable_attr())["shape"].mutable_shape()->mutable_dim(1)->set_size(5);
  auto bad = freezeGraph(g, nullptr, ckpt.value(), o);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "variable 'w/part_0' (VariableV2) has shape [2,5] but checkpoint " + prefix +
                             " holds [2,6] for 'w' slice 0,2:-");
}

TEST(FreezeResource, RefControlFlowBecomesValueTyped) {
  // A VariableV2 read inside a while loop goes through RefEnter.
  tensorflow::GraphDef g;
  auto* v = addNode(&g, "v", "VariableV2");
  setType(v, "dtype", tensorflow::DT_FLOAT);
  setType(addNode(&g, "loop/Enter", "RefEnter", {"v"}), "T", tensorflow::DT_FLOAT_REF);
  setType(addNode(&g, "loop/read", "Identity", {"loop/Enter"}), "T", tensorflow::DT_FLOAT);
  BundleBuilder b;
  b.add("v", floats({3}));
  std::string prefix = test::tempDir() + "/loop";
  ASSERT_TRUE(b.write(prefix).ok());
  auto ckpt = CheckpointReader::open(prefix);
  ASSERT_TRUE(ckpt.ok()) << ckpt.error();
  FreezeOptions o;
  o.output_nodes = {"loop/read"};
  auto r = freezeGraph(g, nullptr, ckpt.value(), o);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(node(r->graph, "loop/Enter").op(), "Enter");
  EXPECT_EQ(node(r->graph, "loop/Enter").attr().at("T").type(), tensorflow::DT_FLOAT);
  EXPECT_TRUE(r->warnings.empty());
}

}  // namespace
}  // namespace gds::model
