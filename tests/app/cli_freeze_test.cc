// gdstudio freeze: freeze_graph.py's command line, end to end.
#include <gtest/gtest.h>

#include <filesystem>

#include "model/io.h"
#include "tests/test_util.h"

namespace gds {
namespace {
namespace fs = std::filesystem;

TEST(CliFreeze, SavedModelWithServingSignature) {
  GDS_REQUIRE_SHARED();
  std::string dir = test::modelPath("tfserving_half_plus_two_savedmodel");
  std::string out = test::tempDir() + "/frozen.pb";
  auto r = test::runGdstudio({"freeze", "--input_saved_model_dir=" + dir, "--saved_model_tags=serve",
                              "--signature_name=serving_default", "--output_graph=" + out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Converted 2 variables to const ops.\n17 ops in the final graph.\nCheckpoint: " + dir +
                       "/variables/variables\nOutputs: y\nWrote " + out + " (" + std::to_string(fs::file_size(out)) +
                       " bytes)\n");
  EXPECT_EQ(r.err, "");
  auto frozen = model::load(out);
  ASSERT_TRUE(frozen.ok()) << frozen.error();
  EXPECT_EQ(frozen->kind, model::ModelKind::GraphDef);
  int consts = 0;
  for (const auto& n : frozen->graph.node()) {
    EXPECT_NE(n.op(), "VariableV2");
    if (n.name() == "a" || n.name() == "b") {
      EXPECT_EQ(n.op(), "Const");
      EXPECT_EQ(n.attr().at("value").tensor().float_val(0), n.name() == "a" ? 0.5f : 2.0f);
      ++consts;
    }
  }
  EXPECT_EQ(consts, 2);
}

TEST(CliFreeze, MetaGraphAndCheckpointLikeFreezeGraphPy) {
  GDS_REQUIRE_SHARED();
  std::string prefix = test::modelPath("mlnet_cifar_checkpoint/model.ckpt");
  std::string out = test::tempDir() + "/cifar_frozen.pbtxt";
  // A command line as TensorFlow's documentation writes it.
  auto r = test::runGdstudio({"freeze", "--input_graph=" + prefix + ".meta", "--input_binary=true",
                              "--input_checkpoint=" + prefix, "--output_node_names=Output",
                              "--output_graph=" + out, "--restore_op_name=save/restore_all",
                              "--filename_tensor_name=save/Const:0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("Converted 3 variables to const ops.\n13 ops in the final graph.\n", 0), 0u) << r.out;
  auto frozen = model::load(out);
  ASSERT_TRUE(frozen.ok()) << frozen.error();
  EXPECT_TRUE(frozen->text);  // .pbtxt output is text
  EXPECT_EQ(frozen->graph.node_size(), 13);
}

TEST(CliFreeze, Errors) {
  GDS_REQUIRE_SHARED();
  std::string dir = test::tempDir();
  std::string meta = test::modelPath("mlnet_cifar_checkpoint/model.ckpt.meta");
  auto missing = test::runGdstudio({"freeze", "--input_graph=" + meta, "--input_checkpoint=" + dir + "/none",
                                    "--output_node_names=Output", "--output_graph=" + dir + "/out.pb"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.err, "error: " + dir + "/none.index: no such file (expected a TensorFlow V2 checkpoint: " + dir +
                             "/none.index and " + dir + "/none.data-00000-of-NNNNN)\n");
  EXPECT_FALSE(fs::exists(dir + "/out.pb"));

  auto no_out = test::runGdstudio({"freeze", "--input_graph=" + meta, "--output_node_names=Output"});
  EXPECT_EQ(no_out.exit_code, 1);
  EXPECT_EQ(no_out.err, "error: --output_graph is required (where to write the frozen GraphDef)\n");

  auto bad_node = test::runGdstudio({"freeze", "--input_graph=" + meta, "--output_node_names=Outptu",
                                     "--output_graph=" + dir + "/out.pb"});
  EXPECT_EQ(bad_node.exit_code, 1);
  EXPECT_EQ(bad_node.err, "error: " + meta + ": output node 'Outptu' is not in the graph\n");

  auto frozen_pb = test::modelPath("mlnet_cifar_frozen.pb");
  auto no_ckpt = test::runGdstudio({"freeze", "--input_graph=" + frozen_pb, "--output_node_names=Output",
                                    "--output_graph=" + dir + "/out.pb"});
  EXPECT_EQ(no_ckpt.exit_code, 1);
  EXPECT_EQ(no_ckpt.err, "error: --input_checkpoint=PREFIX is required with --input_graph (e.g. model.ckpt-1000)\n");
}

}  // namespace
}  // namespace gds

namespace gds {
namespace {

TEST(CliMemmapped, ConvertsMobilenet) {
  GDS_REQUIRE_SHARED();
  std::string out = test::tempDir() + "/mobilenet.mmpb";
  auto r = test::runGdstudio({"memmapped", "--in_graph=" + test::modelPath("mobilenet_v1_0.25_128_frozen.pb"),
                              "--out_graph=" + out, "--min_conversion_tensor_size=10000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("Converted ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("Wrote " + out + " (" + std::to_string(fs::file_size(out)) + " bytes, "), std::string::npos)
      << r.out;

  auto meta = test::runGdstudio({"memmapped", "--in_graph=" + test::modelPath("mlnet_cifar_checkpoint/model.ckpt.meta"),
                                 "--out_graph=" + out + "2"});
  EXPECT_EQ(meta.exit_code, 1);
  EXPECT_EQ(meta.err, "error: " + test::modelPath("mlnet_cifar_checkpoint/model.ckpt.meta") +
                          ": is a MetaGraphDef; freeze it first (gdstudio freeze) to get a GraphDef without variables\n");
}

}  // namespace
}  // namespace gds

namespace gds {
namespace {

TEST(CliCheckpoint, ListsAndPrints) {
  GDS_REQUIRE_SHARED();
  std::string prefix = test::modelPath("tfserving_half_plus_two_savedmodel/variables/variables");
  auto list = test::runGdstudio({"checkpoint", "--file_name=" + prefix});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(list.out, "a (DT_FLOAT) []\na2 (DT_FLOAT) []\nb (DT_FLOAT) []\nc (DT_FLOAT) []\nc2 (DT_FLOAT) []\n");
  auto one = test::runGdstudio({"checkpoint", "--file_name=" + prefix, "--tensor_name=b"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(one.out, "tensor_name:  b\n2.0\n");  // a scalar, as NumPy prints it
  auto iris = test::runGdstudio(
      {"checkpoint", "--file_name=" + test::modelPath("jpmml_dnn_classifier_iris_savedmodel"),
       "--tensor_name=dnn/logits/biases"});
  ASSERT_EQ(iris.exit_code, 0) << iris.err;
  EXPECT_EQ(iris.out, "tensor_name:  dnn/logits/biases\n[ 0.24576192  0.13556768 -0.3992026 ]\n");
  // --max_values=N summarizes as --printoptions threshold=N does.
  auto summarized = test::runGdstudio(
      {"checkpoint", "--file_name=" + test::modelPath("jpmml_dnn_classifier_iris_savedmodel"),
       "--tensor_name=dnn/logits/biases", "--max_values=2", "--printoptions", "edgeitems=1"});
  EXPECT_EQ(summarized.out, "tensor_name:  dnn/logits/biases\n[ 0.24576192 ... -0.3992026 ]\n");
  auto missing = test::runGdstudio({"checkpoint", "--file_name=" + prefix, "--tensor_name=zz"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.err, "error: checkpoint " + prefix + " has no tensor named 'zz'\n");
}

}  // namespace
}  // namespace gds
