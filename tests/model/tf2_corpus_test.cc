// The TF2 SavedModels of ../shared/models/tf2 (MANIFEST.md there): load,
// signatures, summarize, and freeze, whose constants must equal the
// checkpoint values found independently (tests/tools/tf2_expected_variables.py,
// by node id with tf2inspect's reader, where gdstudio matches by name).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "model/freeze.h"
#include "model/functions.h"
#include "model/graph.h"
#include "model/npy.h"
#include "model/saved_model_v2.h"
#include "model/summary.h"
#include "tests/test_util.h"

namespace gds::model {
namespace {

struct CorpusModel {
  const char* dir;
  const char* signature;
  std::vector<std::string> inputs;   // Placeholders of the frozen graph
  std::vector<std::string> outputs;
  int variables;                     // captured by the signature
  int lowered;                       // While loops lowered
};

const std::vector<CorpusModel>& corpus() {
  static const std::vector<CorpusModel> models = {
      {"tf2/binary_cnn_256", "serving_default", {"conv2d_input"}, {"dense_1"}, 8, 0},
      {"tf2/mnist_ondevice_training_module", "infer", {"x"}, {"logits", "output"}, 4, 0},
      {"tf2/stock_lstm4_relu", "serving_default", {"lstm_input"}, {"dense"}, 14, 4},
      {"tf2/tweet_sentiment_embedding_lstm", "serving_default", {"embedding_input"}, {"dense"}, 6, 1},
      {"tf2/openmv_mobilenet_bn_augment", "serving_default", {"sequential_input"}, {"model"}, 137, 0},
      {"tf2/nordpool_gru_cudnn", "serving_default", {"input_1"}, {"dense_1"}, 7, 1},
      {"tf2/nordpool_conv1d", "serving_default", {"input_1"}, {"dense"}, 4, 0},
  };
  return models;
}

TEST(Tf2Corpus, SignaturesResolveToTheirFunctions) {
  GDS_REQUIRE_SHARED();
  const std::map<std::string, std::vector<std::string>> expected = {
      {"tf2/binary_cnn_256", {"serving_default=__inference_signature_wrapper_1455"}},
      {"tf2/mnist_ondevice_training_module",
       {"infer=__inference_signature_wrapper_180620", "restore=__inference_signature_wrapper_180654",
        "save=__inference_signature_wrapper_180634", "train=__inference_signature_wrapper_180604"}},
      {"tf2/nordpool_conv1d", {"serving_default=__inference_signature_wrapper_536872"}},
      {"tf2/nordpool_gru_cudnn", {"serving_default=__inference_signature_wrapper_292726"}},
  };
  for (const auto& c : corpus()) {
    auto m = load(test::modelPath(c.dir));
    ASSERT_TRUE(m.ok()) << m.error();
    EXPECT_TRUE(m->object_based) << c.dir;
    EXPECT_TRUE(m->warnings.empty()) << c.dir << ": " << m->warnings[0];
    std::vector<std::string> got;
    for (const Signature* s : userSignatures(*m)) {
      EXPECT_NE(FunctionLibrary(m->graph.library()).find(s->function), nullptr) << c.dir << " " << s->key;
      got.push_back(s->key + "=" + s->function);
    }
    if (expected.count(c.dir)) {
      EXPECT_EQ(got, expected.at(c.dir)) << c.dir;
    } else {
      EXPECT_EQ(got.size(), 1u) << c.dir;
    }
  }
}

TEST(Tf2Corpus, KerasLayersFromMetadata) {
  GDS_REQUIRE_SHARED();
  auto conv = load(test::modelPath("tf2/nordpool_conv1d"));  // keras_metadata.pb
  ASSERT_TRUE(conv.ok());
  std::vector<std::string> layers;
  for (const auto& k : conv->keras_objects) layers.push_back(k.path + " " + k.class_name + " " + k.name);
  EXPECT_EQ(layers, (std::vector<std::string>{
                        "root Sequential sequential", "root.layer_with_weights-0 Conv1D conv1d",
                        "root.layer-1 Flatten flatten", "root.layer_with_weights-1 Dense dense",
                        "root.keras_api.metrics.0 Mean loss",
                        "root.keras_api.metrics.1 MeanMetricWrapper mean_absolute_error",
                        "root.keras_api.metrics.2 MeanMetricWrapper mean_absolute_percentage_error",
                        "root.keras_api.metrics.3 RootMeanSquaredError root_mean_squared_error"}));
  auto cnn = load(test::modelPath("tf2/binary_cnn_256"));  // TF 2.3: metadata on the objects
  ASSERT_TRUE(cnn.ok());
  auto s = summarizeModel(*cnn);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->keras_model,
            "Sequential: Conv2D conv2d, MaxPooling2D max_pooling2d, Conv2D conv2d_1, MaxPooling2D max_pooling2d_1, "
            "Flatten flatten, Dense dense, Dense dense_1");
}

TEST(Tf2Corpus, SummarizeNamesTheSignatures) {
  GDS_REQUIRE_SHARED();
  std::string dir = test::modelPath("tf2/nordpool_conv1d");
  auto m = load(dir);
  ASSERT_TRUE(m.ok());
  auto s = summarizeModel(*m);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(formatSummaryText(*s),
            "SavedModel for TensorFlow 2.10.0: 1 signatures, 24 functions\n"
            "Signature serving_default (tensorflow/serving/predict) runs __inference_signature_wrapper_536872:\n"
            "Found 1 possible inputs: (name=input_1, type=float(1), shape=[?,5,1]) \n"
            "Found 1 possible outputs: (name=dense, type=float(1), shape=[?,1]) \n"
            "Found 4 variables: (name=conv1d/kernel, type=float(1), shape=[5,1,32]) (name=conv1d/bias, "
            "type=float(1), shape=[32]) (name=dense/kernel, type=float(1), shape=[32,1]) (name=dense/bias, "
            "type=float(1), shape=[1]) \n"
            "Found 225 (225) variable parameters in 2 functions\n"
            "Op types used: 4 ReadVariableOp, 3 Const, 2 BiasAdd, 2 ExpandDims, 2 Identity, 2 NoOp, 1 Conv2D, "
            "1 MatMul, 1 Relu, 1 Reshape, 1 Squeeze, 1 StatefulPartitionedCall\n"
            "To use with gdstudio freeze try these arguments:\n"
            "gdstudio freeze --input_saved_model_dir=" + dir +
            " --signature_name=serving_default --output_graph=frozen.pb\n"
            "Keras model Sequential: Conv1D conv1d, Flatten flatten, Dense dense\n"
            "Found 57 nodes in the outer graph, file size 97175 bytes (97.17k)\n");
  // Every signature of the module, none of TensorFlow's init op.
  auto mnist = load(test::modelPath("tf2/mnist_ondevice_training_module"));
  ASSERT_TRUE(mnist.ok());
  auto ms = summarizeModel(*mnist);
  ASSERT_TRUE(ms.ok());
  std::string text = formatSummaryText(*ms);
  EXPECT_EQ(text.substr(0, text.find('\n')), "SavedModel for TensorFlow 2.15.0: 4 signatures, 30 functions");
  for (const char* line : {"Signature infer (tensorflow/serving/predict) runs __inference_signature_wrapper_180620:\n"
                           "Found 1 possible inputs: (name=x, type=float(1), shape=[?,28,28]) \n"
                           "Found 2 possible outputs: (name=logits, type=float(1), shape=[?,10]) (name=output, "
                           "type=float(1), shape=[?,10]) \n",
                           "Signature restore (tensorflow/serving/predict) runs __inference_signature_wrapper_180654:\n"
                           "Found 1 possible inputs: (name=checkpoint_path, type=string(7), shape=[]) \n"})
    EXPECT_NE(text.find(line), std::string::npos) << text;
  EXPECT_EQ(text.find("saver_filename"), std::string::npos);
  EXPECT_EQ(text.find("__saved_model_init_op"), std::string::npos);
}

// Runs tests/tools/tf2_expected_variables.py; the values by variable name.
std::map<std::string, HostTensor> expectedVariables(const std::string& dir, const std::string& signature,
                                                    std::map<std::string, std::string>* keys) {
  std::string out = test::tempDir();
  auto r = test::runProgram("/usr/bin/python3", {test::sourceDir() + "/tests/tools/tf2_expected_variables.py",
                                                  test::sharedDir() + "/tools/tf2inspect", dir, signature, out});
  EXPECT_EQ(r.exit_code, 0) << r.err << " (needs Debian's python3-numpy and python3-protobuf)";
  std::map<std::string, HostTensor> values;
  std::ifstream f(out + "/manifest.json");
  auto j = nlohmann::json::parse(f, nullptr, false);
  if (j.is_discarded()) {
    ADD_FAILURE() << "no manifest from the helper";
    return values;
  }
  for (const auto& e : j) {
    auto t = readNpy(out + "/" + e["file"].get<std::string>());
    EXPECT_TRUE(t.ok()) << t.error();
    if (t.ok()) values[e["name"].get<std::string>()] = std::move(t.value());
    (*keys)[e["name"].get<std::string>()] = e["key"].get<std::string>();
  }
  return values;
}

TEST(Tf2Corpus, FreezeEveryModelToAPlainGraphWithTheCheckpointValues) {
  GDS_REQUIRE_SHARED();
  for (const auto& c : corpus()) {
    SCOPED_TRACE(c.dir);
    std::string dir = test::modelPath(c.dir);
    auto m = load(dir);
    ASSERT_TRUE(m.ok()) << m.error();
    FreezeOptions o;
    o.signature = c.signature;
    auto r = freeze(*m, o);
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(r->inputs, c.inputs);
    EXPECT_EQ(r->outputs, c.outputs);
    EXPECT_EQ(r->lowered_control_flow, c.lowered);
    EXPECT_FALSE(r->graph.has_library());
    ASSERT_TRUE(Graph::build(r->graph).ok());
    std::set<std::string> placeholders;
    for (const auto& n : r->graph.node()) {
      EXPECT_FALSE(isPartitionedCall(n.op()) || isFunctionalControlFlow(n.op())) << n.name() << " " << n.op();
      // No variables, and no dropout or augmentation: serving functions are
      // traced for inference (openmv's RandomFlip/RandomRotation/... and the
      // LSTMs' dropout masks exist only in the training functions).
      for (const char* op : {"VarHandleOp", "ReadVariableOp", "ResourceGather", "VariableV2", "AssignVariableOp",
                             "RandomUniform", "RandomStandardNormal", "RngReadAndSkip", "StatelessRandomUniformV2",
                             "ImageProjectiveTransformV3", "AdjustContrastv2"})
        EXPECT_NE(n.op(), op) << n.name();
      if (n.op() == "Placeholder") placeholders.insert(n.name());
      for (const auto& [k, v] : n.attr()) {
        if (v.value_case() == tensorflow::AttrValue::kType) {
          EXPECT_NE(v.type(), tensorflow::DT_RESOURCE) << n.name();
        }
      }
    }
    EXPECT_EQ(placeholders, std::set<std::string>(c.inputs.begin(), c.inputs.end()));
    // The constants are the checkpoint values, resolved independently.
    std::map<std::string, std::string> keys;
    auto expected = expectedVariables(dir, c.signature, &keys);
    ASSERT_EQ(static_cast<int>(expected.size()), c.variables);
    ASSERT_EQ(static_cast<int>(r->converted.size()), c.variables);
    for (const auto& v : r->converted) {
      ASSERT_TRUE(keys.count(v.node)) << v.node;
      EXPECT_EQ(v.checkpoint_key, keys[v.node]) << v.node;
      const tensorflow::NodeDef* node = nullptr;
      for (const auto& n : r->graph.node())
        if (n.name() == v.node) node = &n;
      ASSERT_NE(node, nullptr) << v.node;
      EXPECT_EQ(node->op(), "Const");
      auto got = decodeTensor(node->attr().at("value").tensor());
      ASSERT_TRUE(got.ok()) << got.error();
      const HostTensor& want = expected[v.node];
      EXPECT_EQ(got->dtype, want.dtype) << v.node;
      EXPECT_EQ(got->shape, want.shape) << v.node;
      EXPECT_TRUE(got->data == want.data) << v.node << ": values differ";
    }
  }
}

TEST(Tf2Corpus, TheGpuVariantIsNotInlined) {
  GDS_REQUIRE_SHARED();
  // The GRU's cuDNN function is in the library but the CPU one runs.
  auto m = load(test::modelPath("tf2/nordpool_gru_cudnn"));
  ASSERT_TRUE(m.ok());
  auto r = freeze(*m, {});
  ASSERT_TRUE(r.ok()) << r.error();
  std::map<std::string, int> ops;
  for (const auto& n : r->graph.node()) ++ops[n.op()];
  EXPECT_EQ(ops.count("CudnnRNNV3") + ops.count("CudnnRNN"), 0u);
  EXPECT_EQ(ops["Enter"] > 0 && ops["Exit"] > 0 && ops["LoopCond"] == 1 && ops["NextIteration"] > 0, true);
}

TEST(Tf2Corpus, SignaturesThatUpdateOrSaveCannotBeFrozen) {
  GDS_REQUIRE_SHARED();
  std::string dir = test::modelPath("tf2/mnist_ondevice_training_module");
  auto m = load(dir);
  ASSERT_TRUE(m.ok());
  auto none = freeze(*m, {});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error(), dir + "/saved_model.pb: no output nodes given and no 'serving_default' signature; choose "
                                "one with --signature_name: infer, restore, save, train");
  FreezeOptions train;
  train.signature = "train";
  auto t = freeze(*m, train);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().find("signature 'train' updates variable '"), std::string::npos) << t.error();
  FreezeOptions restore;
  restore.signature = "restore";
  auto r = freeze(*m, restore);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("signature 'restore' updates variable '"), std::string::npos) << r.error();
  // Saving only reads the variables: the frozen graph saves the constants.
  FreezeOptions save;
  save.signature = "save";
  auto s = freeze(*m, save);
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(s->inputs, std::vector<std::string>{"checkpoint_path"});
  int saves = 0;
  for (const auto& n : s->graph.node()) saves += n.op() == "Save";
  EXPECT_EQ(saves, 1);
}

}  // namespace
}  // namespace gds::model
