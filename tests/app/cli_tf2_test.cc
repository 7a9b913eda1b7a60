// TF2 SavedModels from the command line: summarize names the signatures,
// freeze writes a plain graph, and the frozen graphs compute what
// TensorFlow.js computes from them (../shared/tools/reference) and, for the
// Keras LSTM/GRU models whose loops freezing lowers, what Keras' recurrences
// compute with NumPy (tests/tools/keras_rnn_reference.py), which the
// interpreter's run of those loops must match too. The TF1
// half_plus_two SavedModel still freezes to y = 0.5 x + 2 exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <random>

#include <nlohmann/json.hpp>

#include "model/io.h"
#include "model/npy.h"
#include "tests/litert_util.h"
#include "tests/test_util.h"

namespace gds {
namespace {
namespace fs = std::filesystem;

std::string referenceDir() { return test::sharedDir() + "/tools/reference"; }

// TensorFlow.js needs Node.js and the reference runner's packages
// (`npm ci --ignore-scripts` in ../shared/tools/reference).
bool tfjsAvailable(std::string* why) {
  if (test::runProgram("node", {"--version"}).exit_code != 0) {
    *why = "node is not installed";
    return false;
  }
  if (!fs::exists(referenceDir() + "/node_modules/@tensorflow/tfjs")) {
    *why = "TensorFlow.js is not installed in " + referenceDir() + " (run npm ci --ignore-scripts there)";
    return false;
  }
  return true;
}

std::string writeInput(const std::string& dir, const model::Shape& shape, float low, float high, bool integers,
                       unsigned seed) {
  model::HostTensor t = model::HostTensor::zeros(tensorflow::DT_FLOAT, shape);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(low, high);
  for (std::int64_t i = 0; i < t.size(); ++i) t.as<float>()[i] = integers ? std::floor(u(rng)) : u(rng);
  std::string path = dir + "/input.npy";
  EXPECT_TRUE(model::writeNpy(path, t).ok());
  return path;
}

std::string npyName(std::string tensor) {
  for (char& c : tensor)
    if (c == '/' || c == ':') c = '_';
  return tensor + ".npy";
}

// Largest |a-b| / max(1, |b|).
double relativeDiff(const std::string& a_path, const std::string& b_path) {
  auto a = model::readNpy(a_path);
  auto b = model::readNpy(b_path);
  EXPECT_TRUE(a.ok()) << a.error();
  EXPECT_TRUE(b.ok()) << b.error();
  if (!a.ok() || !b.ok()) return 1e30;
  EXPECT_EQ(a->shape, b->shape) << a_path;
  if (a->shape != b->shape) return 1e30;
  double worst = 0;
  for (std::int64_t i = 0; i < a->size(); ++i) {
    double x = a->valueAt(i), y = b->valueAt(i);
    if (!std::isfinite(x) || !std::isfinite(y)) return 1e30;
    worst = std::max(worst, std::fabs(x - y) / std::max(1.0, std::fabs(y)));
  }
  return worst;
}

std::string freezeModel(const std::string& dir, const std::string& signature, const std::string& out_dir) {
  std::string out = out_dir + "/frozen.pb";
  auto r = test::runGdstudio({"freeze", "--input_saved_model_dir=" + test::modelPath(dir),
                              "--signature_name=" + signature, "--output_graph=" + out});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return out;
}

TEST(CliTf2, SummarizeNamesTheSignaturesOfEverySavedModel) {
  GDS_REQUIRE_SHARED();
  const std::vector<std::pair<std::string, std::vector<std::string>>> models = {
      {"tf2/binary_cnn_256", {"serving_default"}},
      {"tf2/mnist_ondevice_training_module", {"infer", "restore", "save", "train"}},
      {"tf2/stock_lstm4_relu", {"serving_default"}},
      {"tf2/tweet_sentiment_embedding_lstm", {"serving_default"}},
      {"tf2/openmv_mobilenet_bn_augment", {"serving_default"}},
      {"tf2/nordpool_gru_cudnn", {"serving_default"}},
      {"tf2/nordpool_conv1d", {"serving_default"}},
  };
  for (const auto& [dir, keys] : models) {
    auto r = test::runGdstudio({"summarize", "--in_graph=" + test::modelPath(dir)});
    ASSERT_EQ(r.exit_code, 0) << dir << ": " << r.err;
    EXPECT_EQ(r.out.rfind("SavedModel for TensorFlow 2.", 0), 0u) << r.out;
    for (const auto& k : keys) EXPECT_NE(r.out.find("\nSignature " + k + " ("), std::string::npos) << dir << " " << k;
    EXPECT_EQ(r.out.find("saver_filename"), std::string::npos) << dir;
  }
  // TF1 SavedModels: summarize_graph's report as before, then the signatures.
  const std::vector<std::pair<std::string, std::string>> tf1 = {
      {"tfserving_half_plus_two_savedmodel",
       "Signatures: classify_x_to_y regress_x2_to_y3 regress_x_to_y regress_x_to_y2 serving_default\n"},
      {"mlnet_mnist_conv_savedmodel", "Signatures: serving_default\n"},
      {"jpmml_dnn_classifier_iris_savedmodel", "Signatures: default_input_alternative:None serving_default\n"},
  };
  for (const auto& [dir, last] : tf1) {
    auto r = test::runGdstudio({"summarize", test::modelPath(dir)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("Found ", 0), 0u) << r.out;
    ASSERT_GE(r.out.size(), last.size());
    EXPECT_EQ(r.out.substr(r.out.size() - last.size()), last) << r.out;
  }
}

TEST(CliTf2, FreezePrintsWhatItDid) {
  GDS_REQUIRE_SHARED();
  std::string dir = test::modelPath("tf2/nordpool_conv1d");
  std::string out = test::tempDir() + "/conv1d.pb";
  auto r = test::runGdstudio({"freeze", "--input_saved_model_dir=" + dir, "--output_graph=" + out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, "Froze signature 'serving_default' (function __inference_signature_wrapper_536872): 2 calls "
                   "inlined, 0 control-flow ops lowered.\n"
                   "Converted 4 variables to const ops.\n"
                   "24 ops in the final graph.\n"
                   "Checkpoint: " + dir + "/variables/variables\n"
                   "Inputs: input_1\n"
                   "Outputs: dense\n"
                   "Wrote " + out + " (" + std::to_string(fs::file_size(out)) + " bytes)\n");
  auto frozen = model::load(out);
  ASSERT_TRUE(frozen.ok()) << frozen.error();
  EXPECT_EQ(frozen->kind, model::ModelKind::GraphDef);
  EXPECT_FALSE(frozen->graph.has_library());

  auto module = test::runGdstudio({"freeze", "--input_saved_model_dir=" +
                                                 test::modelPath("tf2/mnist_ondevice_training_module"),
                                   "--output_graph=" + out});
  EXPECT_EQ(module.exit_code, 1);
  EXPECT_EQ(module.err, "error: " + test::modelPath("tf2/mnist_ondevice_training_module") +
                            "/saved_model.pb: no output nodes given and no 'serving_default' signature; choose one "
                            "with --signature_name: infer, restore, save, train\n");
}

TEST(CliTf2, HalfPlusTwoTf1SavedModelIsStillExact) {
  GDS_REQUIRE_SHARED();
  std::string dir = test::tempDir();
  auto f = test::runGdstudio({"freeze", "--input_saved_model_dir=" + test::modelPath("tfserving_half_plus_two_savedmodel"),
                              "--output_graph=" + dir + "/hp2.pb"});
  ASSERT_EQ(f.exit_code, 0) << f.err;
  model::HostTensor x = model::HostTensor::zeros(tensorflow::DT_FLOAT, {6, 1});
  const float xs[] = {0.f, 1.f, 2.5f, -4.f, 1e6f, 3.25f};
  for (int i = 0; i < 6; ++i) x.as<float>()[i] = xs[i];
  ASSERT_TRUE(model::writeNpy(dir + "/x.npy", x).ok());
  auto r = test::runGdstudio({"run", "--graph=" + dir + "/hp2.pb", "--input=x=" + dir + "/x.npy", "--output=y",
                              "--out_dir=" + dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto y = model::readNpy(dir + "/y.npy");
  ASSERT_TRUE(y.ok()) << y.error();
  ASSERT_EQ(y->size(), 6);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(y->as<float>()[i], 0.5f * xs[i] + 2.f) << xs[i];
}

struct RunCase {
  const char* dir;
  const char* signature;
  const char* input;
  model::Shape shape;
  float low, high;
  bool integers;
  std::vector<std::string> outputs;  // compared, before and after the last activation where it saturates
};

TEST(CliTf2, FrozenGraphsMatchTensorFlowJs) {
  GDS_REQUIRE_SHARED();
  std::string why;
  if (!tfjsAvailable(&why)) GTEST_SKIP() << why;
  const std::string seq = "StatefulPartitionedCall/StatefulPartitionedCall/sequential/";
  const RunCase cases[] = {
      {"tf2/binary_cnn_256", "serving_default", "conv2d_input", {2, 256, 256, 3}, 0.f, 1.f, false,
       {"dense_1", seq + "dense_1/BiasAdd"}},
      {"tf2/mnist_ondevice_training_module", "infer", "x", {3, 28, 28}, 0.f, 1.f, false, {"logits", "output"}},
      {"tf2/nordpool_conv1d", "serving_default", "input_1", {4, 5, 1}, -1.f, 1.f, false, {"dense"}},
      {"tf2/openmv_mobilenet_bn_augment", "serving_default", "sequential_input", {1, 160, 120, 1}, 0.f, 255.f, false,
       {"model"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.dir);
    std::string dir = test::tempDir();
    std::string graph = freezeModel(c.dir, c.signature, dir);
    std::string input = writeInput(dir, c.shape, c.low, c.high, c.integers, 11);
    std::string outs;
    for (const auto& o : c.outputs) outs += (outs.empty() ? "" : ",") + o;
    auto mine = test::runGdstudio({"run", "--graph=" + graph, "--input=" + std::string(c.input) + "=" + input,
                                   "--output=" + outs, "--out_dir=" + dir + "/gds"});
    ASSERT_EQ(mine.exit_code, 0) << mine.err;
    auto tfjs = test::runProgram("node", {referenceDir() + "/tfjs_run.js", "--graph", graph, "--input",
                                          std::string(c.input) + "=" + input, "--output", outs, "--out_dir",
                                          dir + "/tfjs"});
    ASSERT_EQ(tfjs.exit_code, 0) << tfjs.err;
    for (const auto& o : c.outputs)
      EXPECT_LE(relativeDiff(dir + "/gds/" + npyName(o), dir + "/tfjs/" + npyName(o)), 1e-4) << o;
  }
}

TEST(CliTf2, LoweredRecurrentLoopsComputeKerasRecurrencesInTensorFlowJs) {
  GDS_REQUIRE_SHARED();
  std::string why;
  if (!tfjsAvailable(&why)) GTEST_SKIP() << why;
  // TensorFlow.js runs the lowered loops (executeAsync) and must give Keras'
  // numbers; the interpreter (TensorList kernels) must give TensorFlow.js's.
  const RunCase cases[] = {
      {"tf2/nordpool_gru_cudnn", "serving_default", "input_1", {3, 5, 1}, -1.f, 1.f, false, {"dense_1"}},
      {"tf2/stock_lstm4_relu", "serving_default", "lstm_input", {2, 100, 1}, 0.f, 1.f, false, {"dense"}},
      {"tf2/tweet_sentiment_embedding_lstm", "serving_default", "embedding_input", {3, 40}, 0.f, 2713.f, true,
       {"dense"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.dir);
    std::string dir = test::tempDir();
    std::string graph = freezeModel(c.dir, c.signature, dir);
    std::string input = writeInput(dir, c.shape, c.low, c.high, c.integers, 5);
    auto tfjs = test::runProgram("node", {test::sourceDir() + "/tests/tools/tfjs_run_async.js", "--reference",
                                          referenceDir(), "--graph", graph, "--input",
                                          std::string(c.input) + "=" + input, "--output", c.outputs[0], "--out_dir",
                                          dir + "/tfjs"});
    ASSERT_EQ(tfjs.exit_code, 0) << tfjs.err;
    auto keras = test::runProgram("/usr/bin/python3", {test::sourceDir() + "/tests/tools/keras_rnn_reference.py",
                                                       test::sharedDir() + "/tools/tf2inspect",
                                                       test::modelPath(c.dir), input, dir + "/keras.npy"});
    ASSERT_EQ(keras.exit_code, 0) << keras.err;
    EXPECT_LE(relativeDiff(dir + "/tfjs/" + npyName(c.outputs[0]), dir + "/keras.npy"), 1e-4);
    auto mine = test::runGdstudio({"run", "--graph=" + graph, "--input=" + std::string(c.input) + "=" + input,
                                   "--output=" + c.outputs[0], "--out_dir=" + dir + "/gds"});
    ASSERT_EQ(mine.exit_code, 0) << mine.err;
    EXPECT_LE(relativeDiff(dir + "/gds/" + npyName(c.outputs[0]), dir + "/tfjs/" + npyName(c.outputs[0])), 1e-4);
  }
}

// The Keras LSTM/GRU SavedModels to TensorFlow Lite with no name given: the
// lowered While loops are unrolled (100 steps x 4 stacked LSTMs for
// stock_lstm4_relu), the .tflite runs by the signature's names and gives
// the SavedModel's output, and TensorFlow Lite's own kernels give the same.
TEST(CliTf2, RecurrentSavedModelsConvertUnrolledAndGiveTheirOutputs) {
  GDS_REQUIRE_SHARED();
  const RunCase cases[] = {
      {"tf2/nordpool_gru_cudnn", "serving_default", "input_1", {1, 5, 1}, -1.f, 1.f, false, {"dense_1"}},
      {"tf2/stock_lstm4_relu", "serving_default", "lstm_input", {1, 100, 1}, 0.f, 1.f, false, {"dense"}},
      {"tf2/tweet_sentiment_embedding_lstm", "serving_default", "embedding_input", {1, 40}, 0.f, 2713.f, true,
       {"dense"}},
  };
  const std::map<std::string, std::string> operators = {
      {"tf2/nordpool_gru_cudnn",
       "Operators: 80 (20 ADD, 11 FULLY_CONNECTED, 10 LOGISTIC, 15 MUL, 1 PACK, 1 RESHAPE, 9 SPLIT, 1 STRIDED_SLICE, "
       "5 SUB, 5 TANH, 1 TRANSPOSE, 1 UNPACK)\n"},
      {"tf2/stock_lstm4_relu",
       "Operators: 5605 (1193 ADD, 797 FULLY_CONNECTED, 1200 LOGISTIC, 1200 MUL, 4 PACK, 796 RELU, 2 RESHAPE, "
       "400 SPLIT, 9 TRANSPOSE, 4 UNPACK)\n"},
      {"tf2/tweet_sentiment_embedding_lstm",
       "Operators: 1156 (196 ADD, 1 CAST, 317 FULLY_CONNECTED, 1 GATHER, 121 LOGISTIC, 436 MUL, 1 PACK, "
       "1 STRIDED_SLICE, 80 TANH, 1 TRANSPOSE, 1 UNPACK)\n"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.dir);
    const std::string dir = test::tempDir();
    const std::string tflite = dir + "/m.tflite";
    auto converted = test::runGdstudio({"tflite_convert", "--saved_model_dir=" + test::modelPath(c.dir),
                                        "--output_file=" + tflite});
    ASSERT_EQ(converted.exit_code, 0) << converted.err;
    EXPECT_NE(converted.out.find(operators.at(c.dir)), std::string::npos) << converted.out;
    const std::string input = writeInput(dir, c.shape, c.low, c.high, c.integers, 7);
    const std::string feed = "--input=" + std::string(c.input) + "=" + input;
    auto saved = test::runGdstudio({"run", "--graph=" + test::modelPath(c.dir), feed, "--out_dir=" + dir + "/saved"});
    ASSERT_EQ(saved.exit_code, 0) << saved.err;
    auto lite = test::runGdstudio({"run", "--graph=" + tflite, feed, "--output=" + c.outputs[0],
                                   "--out_dir=" + dir + "/lite"});
    ASSERT_EQ(lite.exit_code, 0) << lite.err;
    const std::string out = npyName(c.outputs[0]);
    EXPECT_LE(relativeDiff(dir + "/lite/" + out, dir + "/saved/" + out), 1e-6);
    if (!test::litertUnavailable().empty()) continue;
    auto tfl = test::runProgram("node", {test::litertDir() + "/run_tflite.mjs", tflite, input, "--out", dir + "/tfl"});
    ASSERT_EQ(tfl.exit_code, 0) << tfl.err;
    EXPECT_LE(relativeDiff(dir + "/lite/" + out, dir + "/tfl/" + out), 1e-6);
    // int8 (calibrated on seeded random inputs): TensorFlow Lite's built-in
    // kernels give the same output bits. (Arm NN 20.08 cannot check these:
    // it does not parse CAST, and its int8 PACK, Keras' stacked sequence,
    // corrupts its heap: "free(): invalid next size".)
    const std::string int8 = dir + "/m_int8.tflite";
    auto q = test::runGdstudio({"tflite_convert", "--saved_model_dir=" + test::modelPath(c.dir), "--output_file=" + int8,
                                "--quantize=int8", "--calibration_data=random:8"});
    ASSERT_EQ(q.exit_code, 0) << q.err;
    auto ours = test::runGdstudio({"run", "--graph=" + int8, feed, "--output=" + c.outputs[0],
                                   "--arithmetic=tflite-builtin", "--out_dir=" + dir + "/int8"});
    ASSERT_EQ(ours.exit_code, 0) << ours.err;
    auto theirs = test::runProgram("node", {test::litertDir() + "/run_tflite.mjs", int8, input, "--out",
                                            dir + "/tfl_int8"});
    ASSERT_EQ(theirs.exit_code, 0) << theirs.err;
    EXPECT_EQ(relativeDiff(dir + "/int8/" + out, dir + "/tfl_int8/" + out), 0.0);
  }
}

TEST(CliTf2, TransformInlinesTheOuterGraph) {
  GDS_REQUIRE_SHARED();
  std::string out = test::tempDir() + "/inlined.pb";
  auto r = test::runGdstudio({"transform", "--in_graph=" + test::modelPath("tf2/binary_cnn_256"),
                              "--out_graph=" + out, "--outputs=StatefulPartitionedCall",
                              "--transforms=inline_partitionedcall"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto g = model::load(out);
  ASSERT_TRUE(g.ok()) << g.error();
  int calls = 0, convs = 0;
  for (const auto& n : g->graph.node()) {
    calls += n.op() == "StatefulPartitionedCall" || n.op() == "PartitionedCall";
    convs += n.op() == "Conv2D";
  }
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(convs, 2);
}

// A TF2 Keras CNN with one sigmoid output, from its SavedModel to an int8
// .tflite compared with the frozen float graph on the photos: no name given
// anywhere, and a dataset comparison of an output that is no classifier's
// gives each input's SQNR and the output's errors instead of refusing.
TEST(CliTf2, SigmoidModelFrozenConvertedAndComparedOnAFolder) {
  GDS_REQUIRE_SHARED();
  const std::string dir = test::tempDir();
  const std::string saved = test::modelPath("tf2/binary_cnn_256");
  auto frozen = test::runGdstudio({"freeze", "--input_saved_model_dir=" + saved, "--output_graph=" + dir + "/frozen.pb"});
  ASSERT_EQ(frozen.exit_code, 0) << frozen.err;
  EXPECT_NE(frozen.out.find("Inputs: conv2d_input\nOutputs: dense_1\n"), std::string::npos) << frozen.out;
  auto int8 = test::runGdstudio({"tflite_convert", "--saved_model_dir=" + saved, "--output_file=" + dir + "/int8.tflite",
                                 "--quantize=int8", "--calibration_data=" + test::dataPath("images")});
  ASSERT_EQ(int8.exit_code, 0) << int8.err;
  EXPECT_NE(int8.out.find("Calibrated on 7 inputs from "), std::string::npos) << int8.out;
  auto compared = test::runGdstudio({"compare", "--graph=" + dir + "/frozen.pb", "--graph2=" + dir + "/int8.tflite",
                                     "--dataset=" + test::dataPath("images"), "--format=json"});
  ASSERT_EQ(compared.exit_code, 0) << compared.err;
  const auto j = nlohmann::json::parse(compared.out);
  EXPECT_EQ(j["inputs"], 7);
  EXPECT_EQ(j["classifier"], false);
  EXPECT_FALSE(j.contains("top1_agreement"));
  ASSERT_EQ(j["items"].size(), 7u);
  EXPECT_EQ(j["items"][0]["file"], "astronaut.png");
  ASSERT_EQ(j["outputs"].size(), 1u);
  EXPECT_EQ(j["outputs"][0]["name"], "dense_1:0");
  // The float sigmoid is within one step of the int8 output's scale (1/256) on every photo.
  EXPECT_LE(j["outputs"][0]["max_abs"].get<double>(), 1.0 / 256 + 1e-9);
  EXPECT_GT(j["mean_sqnr_db"].get<double>(), 40.0);
  auto text = test::runGdstudio({"compare", "--graph=" + dir + "/frozen.pb", "--graph2=" + dir + "/int8.tflite",
                                 "--dataset=" + test::dataPath("images")});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.out.rfind("file\tsqnr_db\nastronaut.png\t", 0), 0u) << text.out;
  EXPECT_NE(text.out.find("\ninputs\t7\nmean_sqnr_db\t"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("\noutput\tmax_abs\tmean_abs\trmse\ndense_1:0\t"), std::string::npos) << text.out;
}

}  // namespace
}  // namespace gds
