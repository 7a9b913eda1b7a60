// Freezing real TensorFlow exports and comparing with what TensorFlow's own
// freeze_graph produced.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "model/freeze.h"
#include "model/graph.h"
#include "model/io.h"
#include "tests/test_util.h"

namespace gds::model {
namespace {

const tensorflow::NodeDef* findNode(const tensorflow::GraphDef& g, const std::string& name) {
  for (const auto& n : g.node())
    if (n.name() == name) return &n;
  return nullptr;
}

std::set<std::string> opsOf(const tensorflow::GraphDef& g) {
  std::set<std::string> ops;
  for (const auto& n : g.node()) ops.insert(n.op());
  return ops;
}

float scalarConst(const tensorflow::GraphDef& g, const std::string& name) {
  const auto* n = findNode(g, name);
  EXPECT_NE(n, nullptr) << name;
  if (!n) return -1;
  EXPECT_EQ(n->op(), "Const");
  const auto& t = n->attr().at("value").tensor();
  EXPECT_EQ(t.dtype(), tensorflow::DT_FLOAT);
  EXPECT_EQ(t.float_val_size(), 1) << "make_tensor_proto stores one value in float_val";
  EXPECT_TRUE(t.tensor_content().empty());
  return t.float_val_size() ? t.float_val(0) : -1;
}

TEST(Freeze, HalfPlusTwoSavedModelServingDefault) {
  GDS_REQUIRE_SHARED();
  auto m = load(test::modelPath("tfserving_half_plus_two_savedmodel"));
  ASSERT_TRUE(m.ok()) << m.error();
  auto r = freeze(m.value(), {});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->outputs, (std::vector<std::string>{"y"}));
  EXPECT_EQ(r->inputs, (std::vector<std::string>{"x:0"}));
  EXPECT_EQ(r->checkpoint_prefix, test::modelPath("tfserving_half_plus_two_savedmodel") + "/variables/variables");
  ASSERT_EQ(r->converted.size(), 2u);
  EXPECT_EQ(r->converted[0].node, "a");
  EXPECT_EQ(r->converted[1].node, "b");
  EXPECT_EQ(scalarConst(r->graph, "a"), 0.5f);
  EXPECT_EQ(scalarConst(r->graph, "b"), 2.0f);
  // y = Identity(Add(Mul(a/read, x), b/read)); nothing of the saver or the
  // initializers is left.
  const auto* y = findNode(r->graph, "y");
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(y->input(0), "Add");
  EXPECT_EQ(findNode(r->graph, "Add")->input(0), "Mul");
  EXPECT_EQ(findNode(r->graph, "Add")->input(1), "b/read");
  EXPECT_EQ(findNode(r->graph, "Mul")->input(0), "a/read");
  EXPECT_EQ(findNode(r->graph, "a/read")->op(), "Identity");
  EXPECT_EQ(findNode(r->graph, "a/read")->input(0), "a");
  for (const auto& n : r->graph.node()) {
    EXPECT_EQ(n.name().rfind("save/", 0), std::string::npos) << n.name();
    EXPECT_TRUE(n.device().empty()) << n.name();  // --clear_devices
  }
  for (const char* op : {"VariableV2", "Assign", "SaveV2", "RestoreV2", "NoOp"}) EXPECT_EQ(opsOf(r->graph).count(op), 0u) << op;
  EXPECT_EQ(r->graph.node_size(), 17);
  EXPECT_FALSE(r->graph.has_versions());  // convert_variables_to_constants leaves versions empty
}

TEST(Freeze, HalfPlusTwoAllOutputs) {
  GDS_REQUIRE_SHARED();
  auto m = load(test::modelPath("tfserving_half_plus_two_savedmodel"));
  ASSERT_TRUE(m.ok()) << m.error();
  FreezeOptions o;
  o.output_nodes = {"y", "y2:0", "y3"};
  auto r = freeze(m.value(), o);
  ASSERT_TRUE(r.ok()) << r.error();
  std::vector<std::string> converted;
  for (const auto& c : r->converted) converted.push_back(c.node);
  std::sort(converted.begin(), converted.end());
  EXPECT_EQ(converted, (std::vector<std::string>{"a", "a2", "b", "c", "c2"}));
  EXPECT_EQ(scalarConst(r->graph, "a"), 0.5f);
  EXPECT_EQ(scalarConst(r->graph, "a2"), 0.5f);
  EXPECT_EQ(scalarConst(r->graph, "b"), 2.0f);
  EXPECT_EQ(scalarConst(r->graph, "c"), 3.0f);
  EXPECT_EQ(scalarConst(r->graph, "c2"), 3.0f);
  // y = a*x + b, y2 = a*x + c, y3 = a2*x2 + c2
  EXPECT_EQ(findNode(r->graph, "Add")->input(1), "b/read");
  EXPECT_EQ(findNode(r->graph, "Add_1")->input(1), "c/read");
  EXPECT_EQ(findNode(r->graph, "Add_2")->input(1), "c2/read");
  EXPECT_EQ(findNode(r->graph, "Mul_2")->input(0), "a2/read");
  EXPECT_TRUE(r->inputs.empty());  // outputs were given, no signature used
}

TEST(Freeze, CifarMetaGraphEqualsTensorFlowsFrozenGraph) {
  GDS_REQUIRE_SHARED();
  auto m = load(test::modelPath("mlnet_cifar_checkpoint/model.ckpt.meta"));
  ASSERT_TRUE(m.ok()) << m.error();
  FreezeOptions o;
  o.output_nodes = {"Output"};
  o.checkpoint = test::modelPath("mlnet_cifar_checkpoint/model.ckpt");
  auto r = freeze(m.value(), o);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->converted.size(), 3u);

  auto tf = load(test::modelPath("mlnet_cifar_frozen.pb"));
  ASSERT_TRUE(tf.ok()) << tf.error();
  ASSERT_EQ(r->graph.node_size(), tf->graph.node_size());
  int consts = 0;
  for (int i = 0; i < tf->graph.node_size(); ++i) {
    const auto& want = tf->graph.node(i);
    const auto& got = r->graph.node(i);
    EXPECT_EQ(got.name(), want.name());
    EXPECT_EQ(got.op(), want.op()) << want.name();
    EXPECT_EQ(std::vector<std::string>(got.input().begin(), got.input().end()),
              std::vector<std::string>(want.input().begin(), want.input().end()))
        << want.name();
    if (want.op() == "Const") {
      // Same bytes (attrs serialized in sorted order on both sides). The
      // meta graph carries _output_shapes annotations the session graph TF
      // froze did not; freezing keeps attrs as they are, as TF does.
      tensorflow::NodeDef mine = got;
      mine.mutable_attr()->erase("_output_shapes");
      EXPECT_EQ(serialize(mine), serialize(want)) << want.name();
      ++consts;
    }
  }
  EXPECT_EQ(consts, 4);  // three frozen variables and Reshape/shape
  // The library (empty here) and no versions, as TensorFlow wrote it.
  EXPECT_EQ(serialize(r->graph.library()), serialize(tf->graph.library()));
}

TEST(Freeze, IrisPartitionedVariablesFromTextSavedModel) {
  GDS_REQUIRE_SHARED();
  std::string dir = test::modelPath("jpmml_dnn_classifier_iris_savedmodel");
  auto m = load(dir);
  ASSERT_TRUE(m.ok()) << m.error();
  ASSERT_TRUE(m->text);
  auto r = freeze(m.value(), {});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->outputs, (std::vector<std::string>{"dnn/multi_class_head/Tile",
                                                  "dnn/multi_class_head/predictions/probabilities"}));
  EXPECT_EQ(r->inputs, (std::vector<std::string>{"Petal.Length:0", "Petal.Width:0", "Sepal.Length:0", "Sepal.Width:0"}));
  ASSERT_EQ(r->converted.size(), 6u);
  // Each part variable maps to its full tensor through the saver's slice spec.
  EXPECT_EQ(r->converted[0].node, "dnn/hiddenlayer_0/weights/part_0");
  EXPECT_EQ(r->converted[0].checkpoint_key, "dnn/hiddenlayer_0/weights");
  EXPECT_EQ(r->converted[0].slice, "0,4:0,12");
  auto ckpt = CheckpointReader::open(dir + "/variables/variables");
  ASSERT_TRUE(ckpt.ok()) << ckpt.error();
  for (const auto& c : r->converted) {
    const auto* n = findNode(r->graph, c.node);
    ASSERT_NE(n, nullptr);
    EXPECT_EQ(n->op(), "Const");
    auto value = decodeTensor(n->attr().at("value").tensor());
    ASSERT_TRUE(value.ok()) << value.error();
    auto expected = ckpt->read(c.checkpoint_key);
    ASSERT_TRUE(expected.ok()) << expected.error();
    EXPECT_EQ(value->shape, expected->shape) << c.node;
    EXPECT_EQ(value->data, expected->data) << c.node;
  }
  // The partitioned read path stays: weights = Identity(part_0/read).
  EXPECT_EQ(findNode(r->graph, "dnn/hiddenlayer_0/weights")->input(0), "dnn/hiddenlayer_0/weights/part_0/read");
  for (const char* op : {"VariableV2", "ScalarSummary", "HistogramSummary", "RestoreV2", "Assign"})
    EXPECT_EQ(opsOf(r->graph).count(op), 0u) << op;
  EXPECT_EQ(r->graph.node_size(), 51);
}

TEST(Freeze, MnistSavedModelServingDefaultDropsTraining) {
  GDS_REQUIRE_SHARED();
  auto m = load(test::modelPath("mlnet_mnist_conv_savedmodel"));
  ASSERT_TRUE(m.ok()) << m.error();
  FreezeOptions o;
  o.signature = "serving_default";
  auto r = freeze(m.value(), o);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->outputs, (std::vector<std::string>{"Prediction"}));
  EXPECT_EQ(r->inputs, (std::vector<std::string>{"Features:0"}));
  EXPECT_EQ(r->converted.size(), 10u);
  auto ops = opsOf(r->graph);
  for (const char* op : {"VariableV2", "ApplyMomentum", "SparseSoftmaxCrossEntropyWithLogits", "SaveV2", "Assign"})
    EXPECT_EQ(ops.count(op), 0u) << op;
  EXPECT_EQ(findNode(r->graph, "Features")->op(), "Placeholder");
  EXPECT_EQ(findNode(r->graph, "Prediction")->op(), "Softmax");
  EXPECT_EQ(findNode(r->graph, "Variable_6")->attr().at("value").tensor().tensor_content().size(), 1176u * 200u * 4u);
  auto rt = Graph::build(r->graph);
  EXPECT_TRUE(rt.ok()) << rt.error();
}

TEST(Freeze, Errors) {
  GDS_REQUIRE_SHARED();
  auto m = load(test::modelPath("mlnet_mnist_conv_savedmodel"));
  ASSERT_TRUE(m.ok()) << m.error();
  const std::string file = m->file;
  FreezeOptions o;
  o.output_nodes = {"NoSuchNode"};
  EXPECT_EQ(freeze(m.value(), o).error(), file + ": output node 'NoSuchNode' is not in the graph");
  o.output_nodes.clear();
  o.signature = "predict";
  EXPECT_EQ(freeze(m.value(), o).error(), file + ": signature 'predict' not found; available: serving_default");

  // The graph's variables are not in another model's checkpoint.
  auto cifar = load(test::modelPath("mlnet_cifar_checkpoint/model.ckpt.meta"));
  ASSERT_TRUE(cifar.ok()) << cifar.error();
  FreezeOptions wrong;
  wrong.output_nodes = {"Output"};
  wrong.checkpoint = test::modelPath("tfserving_half_plus_two_savedmodel/variables/variables");
  EXPECT_EQ(freeze(cifar.value(), wrong).error(),
            cifar->file + ": variable 'Wconv1' (VariableV2) is restored from 'Wconv1', which checkpoint " +
                wrong.checkpoint + " does not contain");

  // A plain GraphDef needs a checkpoint.
  auto frozen = load(test::modelPath("mlnet_cifar_frozen.pb"));
  ASSERT_TRUE(frozen.ok());
  FreezeOptions none;
  none.output_nodes = {"Output"};
  EXPECT_EQ(freeze(frozen.value(), none).error(),
            test::modelPath("mlnet_cifar_frozen.pb") + ": no checkpoint given (--input_checkpoint=PREFIX)");
  // ...and outputs when it has no signature.
  FreezeOptions no_outputs;
  no_outputs.checkpoint = test::modelPath("mlnet_cifar_checkpoint/model.ckpt");
  EXPECT_EQ(freeze(frozen.value(), no_outputs).error(),
            test::modelPath("mlnet_cifar_frozen.pb") +
                ": no output nodes given (--output_node_names) and the model has no signature to choose them");
}

TEST(Freeze, DenylistKeepsVariable) {
  GDS_REQUIRE_SHARED();
  auto m = load(test::modelPath("tfserving_half_plus_two_savedmodel"));
  ASSERT_TRUE(m.ok()) << m.error();
  FreezeOptions o;
  o.variable_denylist = {"b"};
  auto r = freeze(m.value(), o);
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(r->converted.size(), 1u);
  EXPECT_EQ(findNode(r->graph, "b")->op(), "VariableV2");
  EXPECT_EQ(findNode(r->graph, "a")->op(), "Const");
}

}  // namespace
}  // namespace gds::model
