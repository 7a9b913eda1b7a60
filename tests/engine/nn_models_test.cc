// Real models through the Plan: the speech models on the clips of
// data/speech (WAV bytes fed to wav_data), MobileNet v1 0.25/128 on the
// labelled images, the 8-bit-weight models, and the reference kernels
// against the optimized ones on a whole network.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "engine/ops/conv.h"
#include "engine/ops/image_decode.h"
#include "engine/ops/nn.h"
#include "engine/rewrite/optimize_for_inference.h"
#include "model/io.h"
#include "tests/test_util.h"

namespace gds::engine {
namespace {

std::vector<std::string> readLines(const std::string& path) {
  std::ifstream f(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(f, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

// Rows of a two-column CSV after the header.
std::vector<std::pair<std::string, std::string>> readCsv(const std::string& path) {
  std::vector<std::pair<std::string, std::string>> rows;
  const auto lines = readLines(path);
  for (size_t i = 1; i < lines.size(); ++i) {
    const auto comma = lines[i].find(',');
    if (comma == std::string::npos) continue;
    rows.emplace_back(lines[i].substr(0, comma), lines[i].substr(comma + 1));
  }
  return rows;
}

std::shared_ptr<const tensorflow::GraphDef> loadGraph(const std::string& name) {
  auto loaded = model::load(test::modelPath(name));
  EXPECT_TRUE(loaded.ok()) << loaded.status().message();
  if (!loaded.ok()) return nullptr;
  return std::make_shared<const tensorflow::GraphDef>(loaded->graph);
}

std::vector<int> topK(const Tensor& t, int k) {
  std::vector<int> idx(static_cast<size_t>(t.numElements()));
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int>(i);
  std::partial_sort(idx.begin(), idx.begin() + k, idx.end(),
                    [&](int a, int b) { return t.data<float>()[a] > t.data<float>()[b]; });
  idx.resize(static_cast<size_t>(k));
  return idx;
}

struct SpeechResult {
  int correct = 0, total = 0;
  std::map<std::string, int> predicted;
};

SpeechResult runSpeechModel(const std::string& model, const std::string& labels_file) {
  SpeechResult r;
  auto graph = loadGraph(model);
  if (!graph) return r;
  auto plan = compileForInference(graph, {"wav_data"}, {"labels_softmax"});
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  if (!plan.ok()) return r;
  const auto labels = readLines(test::modelPath(labels_file));
  for (const auto& [file, label] : readCsv(test::dataPath("speech/labels.csv"))) {
    auto out = (*plan)->run({Tensor::stringScalar(test::readAll(test::dataPath("speech/" + file)))});
    EXPECT_TRUE(out.ok()) << file << ": " << out.status().message();
    if (!out.ok()) continue;
    const Tensor& p = (*out)[0];
    EXPECT_EQ(p.numElements(), static_cast<std::int64_t>(labels.size()));
    double sum = 0;
    for (std::int64_t i = 0; i < p.numElements(); ++i) sum += p.data<float>()[i];
    EXPECT_NEAR(sum, 1.0, 1e-4) << file;
    const int best = topK(p, 1)[0];
    const std::string predicted = labels[static_cast<size_t>(best)];
    ++r.predicted[predicted];
    r.correct += predicted == label;
    ++r.total;
  }
  return r;
}

std::string summary(const SpeechResult& r) {
  std::string s = std::to_string(r.correct) + "/" + std::to_string(r.total) + " correct; predicted:";
  for (const auto& [label, n] : r.predicted) s += " " + label + "=" + std::to_string(n);
  return s;
}

TEST(NnModelsTest, KwsDsCnnRecognizesTheClips) {
  GDS_REQUIRE_SHARED();
  const auto r = runSpeechModel("kws_ds_cnn_s.pb", "kws_labels.txt");
  std::printf("kws_ds_cnn_s: %s\n", summary(r).c_str());
  ASSERT_EQ(r.total, 100);
  EXPECT_GE(r.correct, 60) << summary(r);
}

TEST(NnModelsTest, KwsCnnRecognizesTheClips) {
  GDS_REQUIRE_SHARED();
  const auto r = runSpeechModel("kws_cnn_s.pb", "kws_labels.txt");
  std::printf("kws_cnn_s: %s\n", summary(r).c_str());
  ASSERT_EQ(r.total, 100);
  EXPECT_GE(r.correct, 60) << summary(r);
}

TEST(NnModelsTest, SpeechCommandsConvActionsRuns) {
  GDS_REQUIRE_SHARED();
  // This user-trained model knows only _silence_, _unknown_, bed, bell, cat:
  // none of the clips' words, so "_unknown_" is the right answer for them.
  auto r = runSpeechModel("speech_commands_conv_actions_frozen.pb", "speech_commands_conv_actions_labels.txt");
  std::printf("speech_commands_conv_actions: %s\n", summary(r).c_str());
  ASSERT_EQ(r.total, 100);
  EXPECT_GE(r.predicted["_unknown_"], 50) << summary(r);
}

// RGB image resized to size x size (bilinear, half-pixel centers), scaled to [-1, 1].
Tensor mobilenetInput(const std::string& file, int size) {
  ops::DecodedImage im;
  EXPECT_EQ(ops::decodeImage(test::readAll(test::dataPath("images/" + file)), 3, &im), "") << file;
  std::vector<float> f(im.pixels.begin(), im.pixels.end());
  Tensor t(tensorflow::DT_FLOAT, {1, size, size, 3});
  ops::resizeBilinear(f.data(), 1, im.height, im.width, 3, size, size, false, true, t.data<float>());
  for (std::int64_t i = 0; i < t.numElements(); ++i) t.data<float>()[i] = (t.data<float>()[i] - 127.5f) / 127.5f;
  return t;
}

bool topFiveHasLabel(const Tensor& probs, const std::vector<std::string>& labels, const std::string& expected_any) {
  std::vector<std::string> wanted;
  std::stringstream ss(expected_any);
  for (std::string w; std::getline(ss, w, '|');) wanted.push_back(w);
  for (int idx : topK(probs, 5)) {
    const std::string& line = labels[static_cast<size_t>(idx)];
    for (const auto& w : wanted)
      if (line.find(w) != std::string::npos) return true;
  }
  return false;
}

TEST(NnModelsTest, MobileNetPutsLabelledClassesInTopFive) {
  GDS_REQUIRE_SHARED();
  const auto labels = readLines(test::modelPath("mobilenet_v1_0.25_128_labels.txt"));
  ASSERT_EQ(labels.size(), 1001u);
  for (const char* name : {"mobilenet_v1_0.25_128_frozen.pb", "mobilenet_v1_0.25_128_quantized.pb"}) {
    auto graph = loadGraph(name);
    ASSERT_TRUE(graph);
    PlanOptions options;
    options.num_threads = 2;
    auto plan = compileForInference(graph, {"input"}, {"MobilenetV1/Predictions/Reshape_1"}, options);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    int checked = 0;
    for (const auto& [file, expected] : readCsv(test::dataPath("images/labels.csv"))) {
      auto out = (*plan)->run({mobilenetInput(file, 128)});
      ASSERT_TRUE(out.ok()) << file << ": " << out.status().message();
      ASSERT_EQ((*out)[0].numElements(), 1001);
      const int top = topK((*out)[0], 1)[0];
      std::printf("%s %s: top-1 %s\n", name, file.c_str(), labels[static_cast<size_t>(top)].c_str());
      if (expected.empty()) continue;
      EXPECT_TRUE(topFiveHasLabel((*out)[0], labels, expected)) << name << " " << file << " expected " << expected;
      ++checked;
    }
    EXPECT_EQ(checked, 3);
  }
}

TEST(NnModelsTest, ReferenceKernelsMatchOptimizedOnMobileNet) {
  GDS_REQUIRE_SHARED();
  auto graph = loadGraph("mobilenet_v1_0.25_128_frozen.pb");
  ASSERT_TRUE(graph);
  const Tensor input = mobilenetInput("chelsea.png", 128);
  std::vector<Tensor> results;
  for (bool reference : {false, true}) {
    PlanOptions options;
    options.reference_kernels = reference;
    options.num_threads = reference ? 1 : 2;
    // The last convolution's logits, before the softmax flattens differences.
    auto plan = compileForInference(graph, {"input"}, {"MobilenetV1/Logits/Conv2d_1c_1x1/BiasAdd"}, options);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    auto out = (*plan)->run({input});
    ASSERT_TRUE(out.ok()) << out.status().message();
    results.push_back((*out)[0]);
  }
  ASSERT_EQ(results[0].shape(), results[1].shape());
  float max_err = 0, max_abs = 0;
  for (std::int64_t i = 0; i < results[0].numElements(); ++i) {
    max_err = std::max(max_err, std::fabs(results[0].data<float>()[i] - results[1].data<float>()[i]));
    max_abs = std::max(max_abs, std::fabs(results[1].data<float>()[i]));
  }
  EXPECT_LE(max_err, 1e-4f * std::max(1.0f, max_abs));
}

TEST(NnModelsTest, OpenCvFaceDetectorRuns) {
  GDS_REQUIRE_SHARED();
  auto graph = loadGraph("opencv_face_detector_uint8.pb");
  ASSERT_TRUE(graph);
  PlanOptions options;
  options.num_threads = 2;
  options.input_shapes["data"] = {1, 300, 300, 3};
  auto plan = compileForInference(graph, {"data"}, {"mbox_loc", "mbox_conf_flatten"}, options);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  // BGR minus OpenCV's mean (104, 177, 123).
  ops::DecodedImage im;
  ASSERT_EQ(ops::decodeImage(test::readAll(test::dataPath("images/astronaut.png")), 3, &im), "");
  std::vector<float> rgb(im.pixels.begin(), im.pixels.end());
  Tensor x(tensorflow::DT_FLOAT, {1, 300, 300, 3});
  ops::resizeBilinear(rgb.data(), 1, im.height, im.width, 3, 300, 300, false, true, x.data<float>());
  const float mean[3] = {104, 177, 123};
  for (std::int64_t p = 0; p < 300 * 300; ++p) {
    float* px = x.data<float>() + p * 3;
    std::swap(px[0], px[2]);
    for (int c = 0; c < 3; ++c) px[c] -= mean[c];
  }
  auto out = (*plan)->run({x});
  ASSERT_TRUE(out.ok()) << out.status().message();
  const Tensor& loc = (*out)[0];
  const Tensor& conf = (*out)[1];
  ASSERT_EQ(loc.dims(), 2);
  ASSERT_EQ(conf.dims(), 2);
  EXPECT_EQ(loc.dim(1), 2 * conf.dim(1));  // 4 box coordinates vs 2 classes per prior
  // Softmaxed (face, background) pairs sum to 1.
  for (std::int64_t i = 0; i + 1 < conf.dim(1); i += 2)
    ASSERT_NEAR(conf.data<float>()[i] + conf.data<float>()[i + 1], 1.0f, 1e-4) << i;
  float best_face = 0;
  for (std::int64_t i = 1; i < conf.dim(1); i += 2) best_face = std::max(best_face, conf.data<float>()[i]);
  std::printf("opencv_face_detector: %lld priors, best face confidence %.3f\n",
              static_cast<long long>(conf.dim(1) / 2), best_face);
  EXPECT_GT(best_face, 0.5f);  // the astronaut's face
}

TEST(NnModelsTest, NchwConvFromTheCorpusMatchesNhwcReference) {
  GDS_REQUIRE_SHARED();
  auto graph = loadGraph("op_tests_migraphx/conv_nchw_test.pb");
  ASSERT_TRUE(graph);
  const tensorflow::NodeDef* conv = nullptr;
  const tensorflow::NodeDef* filter_node = nullptr;
  Shape in_shape;
  for (const auto& n : graph->node()) {
    if (n.op() == "Conv2D") conv = &n;
    if (n.op() == "Const") filter_node = &n;
    if (n.op() == "Placeholder") in_shape = model::shapeFromProto(n.attr().at("shape").shape());
  }
  ASSERT_TRUE(conv && filter_node);
  ASSERT_EQ(conv->attr().at("data_format").s(), "NCHW");
  ASSERT_EQ(in_shape.size(), 4u);
  auto filter = model::decodeTensor(filter_node->attr().at("value").tensor());
  ASSERT_TRUE(filter.ok());
  Tensor x(tensorflow::DT_FLOAT, in_shape);
  for (std::int64_t i = 0; i < x.numElements(); ++i) x.data<float>()[i] = std::sin(0.37f * static_cast<float>(i));
  auto plan = compileForInference(graph, {conv->input(0)}, {conv->name()});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  auto out = (*plan)->run({x});
  ASSERT_TRUE(out.ok()) << out.status().message();
  // Expected: NHWC reference convolution of the transposed input.
  ops::ConvGeometry s;
  s.batch = in_shape[0];
  s.in_c = in_shape[1];
  s.in_h = in_shape[2];
  s.in_w = in_shape[3];
  s.filter_h = filter->shape[0];
  s.filter_w = filter->shape[1];
  s.out_c = filter->shape[3];
  const auto& strides = conv->attr().at("strides").list().i();
  s.stride_h = strides[2];
  s.stride_w = strides[3];
  ops::Padding padding;
  ASSERT_TRUE(ops::parsePadding(conv->attr().at("padding").s(), &padding));
  ASSERT_TRUE(ops::computeConvGeometry(padding, &s));
  std::vector<float> nhwc(static_cast<size_t>(x.numElements())), ref(static_cast<size_t>(s.batch * s.out_h * s.out_w * s.out_c)),
      expected(ref.size());
  ops::nchwToNhwc(x.data<float>(), nhwc.data(), s.batch, s.in_c, s.in_h, s.in_w);
  ops::conv2dReference(s, nhwc.data(), filter->as<float>(), ref.data());
  ops::nhwcToNchw(ref.data(), expected.data(), s.batch, s.out_h, s.out_w, s.out_c);
  const Tensor& y = (*out)[0];
  ASSERT_EQ(y.shape(), (Shape{s.batch, s.out_c, s.out_h, s.out_w}));
  for (size_t i = 0; i < expected.size(); ++i) ASSERT_NEAR(y.data<float>()[i], expected[i], 1e-4) << i;
}

}  // namespace
}  // namespace gds::engine
