// Whole models against outputs computed by TensorFlow.js (an independent
// implementation of TensorFlow's ops): every case of models/generated and
// models/reference index.json. A missing kernel fails with the plan's
// "no kernel for op" message, never a skip. Also the keyword-spotting RNNs
// (while loops) end to end on WAV clips.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "model/io.h"
#include "model/npy.h"
#include "tests/engine/core_test_util.h"
#include "tests/test_util.h"

namespace gds::engine {
namespace {

struct Case {
  std::string model;
  std::vector<std::pair<std::string, std::string>> inputs;   // name, npy path
  std::vector<std::pair<std::string, std::string>> outputs;  // name, npy path
};

std::vector<Case> readIndex(const std::string& dir) {
  std::ifstream in(test::modelPath(dir + "/index.json"));
  nlohmann::json j = nlohmann::json::parse(in);
  std::vector<Case> cases;
  for (const auto& c : j) {
    Case k;
    k.model = c.at("model").get<std::string>();
    const auto& inputs = c.contains("inputs") ? c.at("inputs") : c.at("input");
    for (auto it = inputs.begin(); it != inputs.end(); ++it)
      k.inputs.push_back({it.key(), test::modelPath(dir + "/" + it.value().get<std::string>())});
    for (auto it = c.at("outputs").begin(); it != c.at("outputs").end(); ++it)
      k.outputs.push_back({it.key(), test::modelPath(dir + "/" + it.value().get<std::string>())});
    cases.push_back(k);
  }
  return cases;
}

// Runs one case; max abs error <= 1e-4 (relative 1e-4 above magnitude 1).
void runCase(const std::string& dir, const Case& c, bool reference_kernels) {
  SCOPED_TRACE(dir + "/" + c.model + (reference_kernels ? " (reference kernels)" : ""));
  std::string path = test::modelPath(dir + "/" + c.model);
  if (!std::ifstream(path).good()) path = test::modelPath(c.model);  // reference/ cases name models one level up
  auto m = model::load(path);
  ASSERT_TRUE(m.ok()) << m.error();
  std::vector<std::string> feeds, fetches;
  std::vector<Tensor> values;
  for (const auto& [name, npy] : c.inputs) {
    auto h = model::readNpy(npy);
    ASSERT_TRUE(h.ok()) << h.error();
    feeds.push_back(name);
    values.push_back(Tensor::fromHost(*h));
  }
  for (const auto& o : c.outputs) fetches.push_back(o.first);
  PlanOptions options;
  options.reference_kernels = reference_kernels;
  auto plan = compileForInference(m->graph, feeds, fetches, options);
  ASSERT_TRUE(plan.ok()) << plan.error();
  auto out = (*plan)->run(values);
  ASSERT_TRUE(out.ok()) << out.error();
  for (size_t i = 0; i < c.outputs.size(); ++i) {
    auto expected = model::readNpy(c.outputs[i].second);
    ASSERT_TRUE(expected.ok()) << expected.error();
    const Tensor& got = (*out)[i];
    ASSERT_EQ(got.numElements(), expected->size()) << c.outputs[i].first;
    double worst = 0;
    for (std::int64_t k = 0; k < got.numElements(); ++k) {
      double want = expected->valueAt(k);
      double err = std::fabs(got.valueAt(k) - want) / std::max(1.0, std::fabs(want));
      worst = std::max(worst, err);
    }
    EXPECT_LE(worst, 1e-4) << c.outputs[i].first << ": max error " << worst;
  }
}

TEST(CoreReferenceModels, GeneratedIndex) {
  GDS_REQUIRE_SHARED();
  auto cases = readIndex("generated");
  ASSERT_EQ(cases.size(), 5u);
  for (const auto& c : cases) runCase("generated", c, false);
}

TEST(CoreReferenceModels, ReferenceIndex) {
  GDS_REQUIRE_SHARED();
  auto cases = readIndex("reference");
  ASSERT_EQ(cases.size(), 6u);
  for (const auto& c : cases) runCase("reference", c, false);
}

TEST(CoreReferenceModels, ReferenceKernelsOnSmallModels) {
  GDS_REQUIRE_SHARED();
  for (const auto& c : readIndex("generated"))
    if (c.model == "tiny_cnn.pb") runCase("generated", c, true);
  for (const auto& c : readIndex("reference"))
    if (c.model == "mnist_softmax_android.pb" || c.model == "mlnet_cifar_frozen.pb") runCase("reference", c, true);
}

// The KWS while-loop models from the WAV bytes: DecodeWav -> AudioSpectrogram
// -> Mfcc -> dynamic_rnn. Clips of the speech folder with a keyword label.
void kwsAccuracy(const std::string& model_file, int min_correct_percent) {
  GDS_REQUIRE_SHARED();
  auto m = model::load(test::modelPath(model_file));
  ASSERT_TRUE(m.ok()) << m.error();
  auto plan = compileForInference(m->graph, {"wav_data"}, {"labels_softmax"});
  ASSERT_TRUE(plan.ok()) << plan.error();
  std::vector<std::string> labels;
  {
    std::ifstream in(test::modelPath("kws_labels.txt"));
    for (std::string line; std::getline(in, line);) labels.push_back(line);
  }
  std::ifstream csv(test::dataPath("speech/labels.csv"));
  std::string line;
  std::getline(csv, line);
  int total = 0, correct = 0;
  while (std::getline(csv, line)) {
    auto comma = line.find(',');
    std::string file = line.substr(0, comma), label = line.substr(comma + 1);
    if (std::find(labels.begin(), labels.end(), label) == labels.end()) continue;
    auto bytes = model::readFile(test::dataPath("speech/" + file));
    ASSERT_TRUE(bytes.ok()) << bytes.error();
    auto out = (*plan)->run({Tensor::stringScalar(*bytes)});
    ASSERT_TRUE(out.ok()) << file << ": " << out.error();
    const Tensor& p = (*out)[0];
    int best = 0;
    for (int k = 1; k < p.numElements(); ++k)
      if (p.data<float>()[k] > p.data<float>()[best]) best = k;
    ++total;
    if (labels[static_cast<size_t>(best)] == label) ++correct;
  }
  ASSERT_GT(total, 20);
  std::printf("%s: %d/%d keyword clips classified as labelled\n", model_file.c_str(), correct, total);
  EXPECT_GE(100 * correct, min_correct_percent * total) << model_file << ": " << correct << "/" << total << " correct";
}

// Measured: LSTM 80/100, CRNN 87/100 clips classified as labelled.
TEST(CoreReferenceModels, KwsLstmOnSpeechClips) { kwsAccuracy("kws_lstm_s.pb", 75); }
TEST(CoreReferenceModels, KwsCrnnOnSpeechClips) { kwsAccuracy("kws_crnn_s.pb", 80); }

}  // namespace
}  // namespace gds::engine
