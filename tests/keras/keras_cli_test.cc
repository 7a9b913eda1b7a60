// Keras files through the command line: summarize lists the layers, run
// computes the TensorFlow Lite reference, tflite_convert --keras_model_file
// (TensorFlow's flag) writes a model whose signature keeps the Keras names;
// and bad files (a .keras without a member, a truncated .h5, a weight that
// is absent or has the wrong shape, a layer class that does not exist,
// absurd shapes) exit 1 with a message naming the file and the layer or
// member at fault.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "model/io.h"
#include "model/npy.h"
#include "tests/keras/keras_test_util.h"
#include "tests/test_util.h"

namespace gds::test {
namespace {

std::string corpus(const std::string& name) { return modelPath("keras/" + name); }

TEST(KerasCli, SummarizeListsTheLayers) {
  GDS_REQUIRE_SHARED();
  const CommandResult r = runGdstudio({"summarize", "--in_graph=" + corpus("keypoint_mlp_k3.8.keras")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Found 1 possible inputs: (name=input_layer_2, type=float(1), shape=[?,42]) \n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Found 1 possible outputs: (name=dense_8, op=Identity) \n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Keras model Sequential 'sequential_2' (Keras 3.8.0, .keras archive): InputLayer "
                       "input_layer_2, Dropout dropout_4, Dense dense_6, Dropout dropout_5, Dense dense_7, Dense "
                       "dense_8\n"),
            std::string::npos)
      << r.out;
}

TEST(KerasCli, RunComputesTheTfliteReference) {
  GDS_REQUIRE_SHARED();
  const std::string out = tempDir();
  const CommandResult r =
      runGdstudio({"run", "--graph=" + corpus("cifar_resnet8_k2.4.h5"), "--input=input_1=" + corpus("cifar_resnet8_k2.4.input.npy"),
                   "--output=dense", "--out_dir=" + out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto got = model::readNpy(out + "/dense.npy");
  auto want = model::readNpy(corpus("cifar_resnet8_k2.4.tflite_output.npy"));
  ASSERT_TRUE(got.ok() && want.ok());
  EXPECT_LE(compareOutputs(*got, *want).relative, 1e-4);
}

TEST(KerasCli, TfliteConvertTakesKerasModelFile) {
  GDS_REQUIRE_SHARED();
  const std::string out = tempDir() + "/icu.tflite";
  const CommandResult r =
      runGdstudio({"tflite_convert", "--keras_model_file=" + corpus("icu_mlp_k3.12.h5"), "--output_file=" + out});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  // Dense(sigmoid) is FULLY_CONNECTED then LOGISTIC, as in the TensorFlow-made icu_mlp_k3.12.tflite.
  EXPECT_NE(r.out.find("Operators: 4 (3 FULLY_CONNECTED, 1 LOGISTIC)"), std::string::npos) << r.out;
  auto m = model::load(out);
  ASSERT_TRUE(m.ok()) << m.error();
  ASSERT_EQ(m->signatures.size(), 1u);
  EXPECT_EQ(m->signatures[0].key, "serving_default");
  ASSERT_EQ(m->signatures[0].inputs.size(), 1u);
  EXPECT_EQ(m->signatures[0].inputs[0].first, "input_layer");
  ASSERT_EQ(m->signatures[0].outputs.size(), 1u);
  EXPECT_EQ(m->signatures[0].outputs[0].first, "dense_2");
  // A graph is not a Keras model.
  const CommandResult wrong = runGdstudio(
      {"tflite_convert", "--keras_model_file=" + sourceDir() + "/resources/sample_model.pb", "--output_file=" + out});
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_NE(wrong.err.find("sample_model.pb is a GraphDef, not a Keras model"), std::string::npos) << wrong.err;
}

// The graph of a Keras file goes through the Graph Transform Tool rewrites
// like any other: folding the batch norms into the convolutions (Keras 2's
// FusedBatchNormV3, Keras 3's Mul/Add arithmetic) leaves no batch norm and
// the same outputs.
TEST(KerasCli, TransformFoldsTheBatchNormsAndKeepsTheOutputs) {
  GDS_REQUIRE_SHARED();
  struct Case {
    const char* file;
    const char* input;
    const char* output;
  };
  for (const Case& c : {Case{"cifar_resnet8_k2.4.h5", "input_1", "dense"},
                        Case{"dwcnn_semiconductor_k3.13.keras", "input", "output"}}) {
    SCOPED_TRACE(c.file);
    const std::string dir = tempDir();
    const CommandResult t = runGdstudio(
        {"transform", "--in_graph=" + corpus(c.file), "--out_graph=" + dir + "/folded.pb", std::string("--inputs=") + c.input,
         std::string("--outputs=") + c.output,
         "--transforms=fold_constants(ignore_errors=true) fold_batch_norms fold_old_batch_norms strip_unused_nodes"});
    ASSERT_EQ(t.exit_code, 0) << t.err;
    auto folded = model::load(dir + "/folded.pb");
    ASSERT_TRUE(folded.ok()) << folded.error();
    for (const auto& n : folded->graph.node()) {
      EXPECT_EQ(n.op().find("FusedBatchNorm"), std::string::npos) << n.name();
      EXPECT_NE(n.op(), "Rsqrt") << n.name();
    }
    const std::string stem = std::string(c.file).substr(0, std::string(c.file).rfind('.'));
    for (const std::string& graph : {corpus(c.file), dir + "/folded.pb"}) {
      const CommandResult r = runGdstudio({"run", "--graph=" + graph, std::string("--input=") + c.input + "=" + corpus(stem + ".input.npy"),
                                           std::string("--output=") + c.output, "--out_dir=" + dir});
      ASSERT_EQ(r.exit_code, 0) << r.err;
      auto got = model::readNpy(dir + "/" + c.output + ".npy");
      auto want = model::readNpy(corpus(stem + ".tflite_output.npy"));
      ASSERT_TRUE(got.ok() && want.ok());
      EXPECT_LE(compareOutputs(*got, *want).relative, 1e-4) << graph;
    }
  }
}

struct BadFile {
  std::string file;      // under the script's bad/ folder
  std::string message;   // what the error must say (after the file's path)
};

TEST(KerasCli, BadFilesExitOneNamingTheFileAndTheLayer) {
  const std::string dir = kerasLayerFiles();
  if (dir.empty()) GTEST_SKIP() << kerasLayerFilesUnavailable();
  const std::vector<BadFile> cases = {
      {"missing_weights.keras", ": member model.weights.h5 is missing from the archive"},
      {"missing_config.keras", ": member config.json is missing from the archive"},
      {"wrong_shape.keras",
       ": layer 'layer' (Dense): weight 'kernel' has shape [6,5] in the file, the layer needs [6,7]"},
      {"unknown_class.keras",
       ": layer 'layer' (NoSuchLayer): the layer class NoSuchLayer is not one gdstudio converts"},
      {"absurd_shape.keras", ": input layer 'input_layer' has shape [?,6,2147483648,2147483648]"},
      {"absent_weight.keras", ": layer 'layer' (Dense): "},
      {"truncated.h5", ": not a valid HDF5 file (corrupt or truncated)"},
      {"truncated.keras", ": not a valid zip archive"},
  };
  for (const auto& c : cases) {
    const std::string path = dir + "/bad/" + c.file;
    const CommandResult r = runGdstudio({"summarize", "--in_graph=" + path});
    EXPECT_EQ(r.exit_code, 1) << c.file << ": " << r.out;
    EXPECT_NE(r.err.find(path + c.message), std::string::npos) << c.file << ": " << r.err;
  }
  // The absent weight: the store's count against the layer's, by name.
  const CommandResult r = runGdstudio({"summarize", "--in_graph=" + dir + "/bad/absent_weight.keras"});
  EXPECT_NE(r.err.find("model.weights.h5 holds 1 weights at layers/dense/vars, the layer has 2 (kernel, bias)"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace gds::test
