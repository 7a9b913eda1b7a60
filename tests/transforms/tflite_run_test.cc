// The .tflite files gdstudio's converter writes for the corpus run in
// gdstudio's interpreter with TensorFlow Lite's arithmetic and agree with Arm
// NN 20.08 (an independent TFLite runtime) on the same inputs: float within
// 1e-4 of the output range; int8 within one quantization step where the
// rounding differences of the layers do not add up, else within what the
// softmax makes of the logits' difference (see the test); the int8
// MobileNet run in gdstudio keeps the float graph's top-1 on the photos.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "engine/eval/dataset.h"
#include "engine/plan.h"
#include "engine/rewrite/optimize_for_inference.h"
#include "model/freeze.h"
#include "model/graph.h"
#include "model/io.h"
#include "model/tflite/dialect.h"
#include "model/tflite/writer.h"
#include "tests/armnn_util.h"
#include "tests/test_util.h"
#include "tests/transforms/tflite_corpus.h"
#include "transforms/tflite/calibrate.h"
#include "transforms/tflite/convert.h"

namespace gds::transforms::tflite {
namespace {

namespace mt = gds::model::tflite;
using engine::Tensor;
using model::HostTensor;

std::int64_t argmax(const HostTensor& t) {
  std::int64_t best = 0;
  for (std::int64_t i = 1; i < t.size(); ++i)
    if (t.valueAt(i) > t.valueAt(best)) best = i;
  return best;
}

// Converts, writes and reads back the .tflite (the model gdstudio opens).
struct Exported {
  std::string path;
  tensorflow::GraphDef graph;  // as read from the file
  std::string input, output;   // model input node, output tensor
  float output_step = 0;       // int8: the quantization step of the output before DEQUANTIZE
};
Exported exportModel(const ExportedCorpusModel& m, const tensorflow::GraphDef& graph, bool int8,
                     const std::vector<std::vector<Tensor>>& calibration, const std::string& output = "") {
  ConvertOptions o = corpusConvertOptions(m);
  if (!output.empty()) o.outputs = {output};
  if (int8) {
    o.quantize = Quantize::Int8;
    o.calibration = calibration;
  }
  Exported e;
  auto converted = convertToTflite(graph, o);
  EXPECT_TRUE(converted.ok()) << converted.error();
  if (!converted.ok()) return e;
  e.path = test::tempDir() + "/run_" + std::to_string(std::hash<std::string>()(m.name + output)) +
           (int8 ? "_int8" : "_float") + ".tflite";
  Status s = mt::saveTflite(converted->graph, e.path);
  EXPECT_TRUE(s.ok()) << s.message();
  auto loaded = model::load(e.path);
  EXPECT_TRUE(loaded.ok()) << loaded.error();
  if (!loaded.ok()) return e;
  e.graph = loaded->graph;
  e.input = m.inputs[0];
  e.output = transforms::tflite::fileOutputs(*converted).at(0);
  const model::TensorRef out = model::parseTensorName(e.output);
  for (const auto& n : e.graph.node())
    if (n.name() == out.node && n.op() == "tfl.dequantize") {
      const model::TensorRef in = model::parseTensorName(n.input(0));
      for (const auto& p : e.graph.node())
        if (p.name() == in.node) {
          const mt::Quantization q = mt::quantizationOf(p, in.port);
          if (!q.scale.empty()) e.output_step = q.scale[0];
        }
    }
  return e;
}

std::vector<HostTensor> runInGdstudio(const Exported& e, const std::vector<std::vector<Tensor>>& samples) {
  engine::PlanOptions options;
  options.num_threads = 2;
  auto plan = engine::compileForInference(e.graph, {e.input}, {e.output}, options);
  EXPECT_TRUE(plan.ok()) << plan.error();
  std::vector<HostTensor> out;
  if (!plan.ok()) return out;
  for (const auto& s : samples) {
    auto r = (*plan)->run(s);
    EXPECT_TRUE(r.ok()) << r.error();
    if (!r.ok()) return out;
    out.push_back(r->at(0).toHost());
  }
  return out;
}

// gdstudio's and Arm NN's outputs of e on the samples: the largest
// difference (float: relative to Arm NN's output range; int8 exports: in
// output units) and whether top-1 is the same on every sample.
void compareWithArmNn(const Exported& e, const std::vector<std::vector<Tensor>>& samples,
                      const std::vector<std::vector<HostTensor>>& armnn_inputs, double* worst, bool* top1_equal) {
  const std::vector<HostTensor> ours = runInGdstudio(e, samples);
  ASSERT_EQ(ours.size(), samples.size());
  const test::ArmnnBatchResult armnn = test::armnnRunSamples(e.path, armnn_inputs);
  ASSERT_TRUE(armnn.ok) << armnn.error;
  for (std::size_t s = 0; s < samples.size(); ++s) {
    const HostTensor& a = ours[s];
    const HostTensor& b = armnn.outputs[s].at(0);
    ASSERT_EQ(a.size(), b.size());
    double lo = b.valueAt(0), hi = b.valueAt(0), diff = 0;
    for (std::int64_t i = 0; i < b.size(); ++i) {
      lo = std::min(lo, b.valueAt(i));
      hi = std::max(hi, b.valueAt(i));
      diff = std::max(diff, std::fabs(a.valueAt(i) - b.valueAt(i)));
    }
    if (e.output_step == 0) diff /= std::max(hi - lo, 1e-6);
    *worst = std::max(*worst, diff);
    *top1_equal = *top1_equal && argmax(a) == argmax(b);
  }
}

TEST(TfliteRun, ConvertedCorpusModelsAgreeWithArmNn) {
  GDS_REQUIRE_SHARED();
  GDS_REQUIRE_ARMNN();
  for (const ExportedCorpusModel& m : exportedCorpus()) {
    auto loaded = model::load(test::modelPath(m.name));
    ASSERT_TRUE(loaded.ok()) << loaded.error();
    const std::vector<std::vector<Tensor>> calibration = corpusSamples(m, loaded->graph, 20);
    ASSERT_FALSE(calibration.empty());
    const std::vector<std::vector<Tensor>> samples(calibration.begin(), calibration.begin() + 3);
    std::vector<std::vector<HostTensor>> armnn_inputs;
    for (const auto& s : samples) armnn_inputs.push_back({s[0].toHost()});
    for (bool int8 : {false, true}) {
      SCOPED_TRACE(m.name + (int8 ? " int8" : " float"));
      const Exported e = exportModel(m, loaded->graph, int8, calibration);
      ASSERT_FALSE(e.graph.node().empty());
      double worst = 0;
      bool top1_equal = true;
      compareWithArmNn(e, samples, armnn_inputs, &worst, &top1_equal);
      if (!int8) {
        std::printf("%s float: gdstudio vs Arm NN max |difference| %.3g (relative to the output range)\n",
                    m.name.c_str(), worst);
        EXPECT_LE(worst, 1e-4);
        continue;
      }
      ASSERT_GT(e.output_step, 0.0f);
      std::printf("%s int8: gdstudio vs Arm NN max |difference| %.2f steps of %.3g, top-1 %s\n", m.name.c_str(),
                  worst / e.output_step, e.output_step, top1_equal ? "equal" : "DIFFERENT");
      EXPECT_TRUE(top1_equal);
      if (m.logits.empty()) {  // the output within one step
        EXPECT_LE(worst, e.output_step * 1.0001) << "more than one quantization step";
        continue;
      }
      // Each layer agrees with Arm NN within one step on the same input
      // (tflite_armnn_layers_test.cc says where and why they differ by
      // one); in these deeper models the differences carry on to the
      // logits. The softmax's Jacobian diag(p) - p p^T has rows of absolute
      // sum 2 p (1 - p) <= 1/2, so two exact softmaxes of logits that
      // differ by at most d (real units) differ by at most d / 2, and each
      // runtime's rounding adds at most half a step.
      const Exported l = exportModel(m, loaded->graph, true, calibration, m.logits);
      ASSERT_GT(l.output_step, 0.0f);
      double logits_worst = 0;
      bool logits_top1 = true;
      compareWithArmNn(l, samples, armnn_inputs, &logits_worst, &logits_top1);
      const double bound = logits_worst / 2 + e.output_step;
      std::printf("%s int8 logits %s: gdstudio vs Arm NN max |difference| %.2f steps of %.3g; softmax bound %.2f steps\n",
                  m.name.c_str(), m.logits.c_str(), logits_worst / l.output_step, l.output_step,
                  bound / e.output_step);
      EXPECT_LE(worst, bound * 1.0001) << "the softmax output differs by more than its input's difference explains";
    }
  }
}

TEST(TfliteRun, Int8MobileNetInGdstudioKeepsFloatTop1OnThePhotos) {
  GDS_REQUIRE_SHARED();
  const ExportedCorpusModel& m = exportedCorpus()[0];
  auto loaded = model::load(test::modelPath(m.name));
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  const std::vector<std::vector<Tensor>> photos = corpusSamples(m, loaded->graph, 1000);
  ASSERT_EQ(photos.size(), 7u);
  const Exported e = exportModel(m, loaded->graph, true, photos);
  const std::vector<HostTensor> int8 = runInGdstudio(e, photos);
  ASSERT_EQ(int8.size(), photos.size());
  auto plan = engine::compileForInference(loaded->graph, m.inputs, {m.output});
  ASSERT_TRUE(plan.ok()) << plan.error();
  int agree = 0;
  for (std::size_t s = 0; s < photos.size(); ++s) {
    auto f = (*plan)->run(photos[s]);
    ASSERT_TRUE(f.ok()) << f.error();
    agree += argmax(f->at(0).toHost()) == argmax(int8[s]);
  }
  std::printf("int8 MobileNet 0.25/128 run in gdstudio: top-1 agrees with float on %d of 7 photos\n", agree);
  // With XNNPACK's arithmetic (the default, what the device computes) the
  // int8 model keeps float's top-1 on 5 of the 7 photos; chelsea flips.
  EXPECT_GE(agree, 5);
}

// A Keras TF2 SavedModel whose Resizing layer crops and resizes with sizes
// computed from tf.shape (Shape -> StridedSlice -> Cast -> ... -> Slice):
// with the input shape static, the converter folds that chain to constants
// as TensorFlow's converter does, so the model exports (a SLICE crop, then
// RESIZE_BILINEAR and the MobileNet) and computes what the GraphDef does.
// Arm NN 20.08 runs the file; its RESIZE_BILINEAR ignores
// half_pixel_centers (Keras resizes with it), so the float comparison with
// Arm NN starts after the resize, where ../tflite/openmv_mobilenet_int8.tflite
// (TensorFlow's converter) starts too.
TEST(TfliteRun, Tf2SavedModelWithShapeComputationsExportsAndRunsInArmNn) {
  GDS_REQUIRE_SHARED();
  GDS_REQUIRE_ARMNN();
  auto loaded = model::load(test::modelPath("tf2/openmv_mobilenet_bn_augment"));
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  auto frozen = model::freeze(*loaded, model::FreezeOptions{});
  ASSERT_TRUE(frozen.ok()) << frozen.error();
  const ExportedCorpusModel m{"tf2/openmv_mobilenet_bn_augment", {"sequential_input"}, {}, "model", "images", ""};
  const std::vector<std::vector<Tensor>> calibration = corpusSamples(m, frozen->graph);
  ASSERT_EQ(calibration.size(), 7u);
  ASSERT_EQ(calibration[0][0].shape(), (model::Shape{1, 160, 120, 1}));  // grey photos, as the model takes them
  std::vector<std::vector<HostTensor>> armnn_inputs;
  for (const auto& s : calibration) armnn_inputs.push_back({s[0].toHost()});
  // The float GraphDef's predictions.
  auto plan = engine::compileForInference(frozen->graph, m.inputs, {m.output});
  ASSERT_TRUE(plan.ok()) << plan.error();
  std::vector<HostTensor> reference;
  for (const auto& s : calibration) {
    auto f = (*plan)->run(s);
    ASSERT_TRUE(f.ok()) << f.error();
    reference.push_back(f->at(0).toHost());
  }
  for (bool int8 : {false, true}) {
    SCOPED_TRACE(int8 ? "int8" : "float");
    const Exported e = exportModel(m, frozen->graph, int8, calibration);
    ASSERT_FALSE(e.graph.node().empty());
    std::map<std::string, int> ops;
    for (const auto& n : e.graph.node()) ++ops[n.op()];
    EXPECT_EQ(ops["tfl.slice"], 1);
    EXPECT_EQ(ops["tfl.resize_bilinear"], 1);
    EXPECT_EQ(ops["tfl.conv_2d"], 15);
    EXPECT_EQ(ops["tfl.depthwise_conv_2d"], 13);
    EXPECT_EQ(ops["tfl.strided_slice"] + ops["tfl.shape"], 0);  // the shape computations folded
    const std::vector<HostTensor> ours = runInGdstudio(e, calibration);
    ASSERT_EQ(ours.size(), reference.size());
    int agree = 0;
    double worst_vs_graph = 0;
    for (std::size_t s = 0; s < ours.size(); ++s) {
      agree += argmax(ours[s]) == argmax(reference[s]) ? 1 : 0;
      for (std::int64_t i = 0; i < ours[s].size(); ++i)
        worst_vs_graph = std::max(worst_vs_graph, std::fabs(ours[s].valueAt(i) - reference[s].valueAt(i)));
    }
    double worst = 0;
    bool top1_equal = true;
    compareWithArmNn(e, calibration, armnn_inputs, &worst, &top1_equal);
    std::printf(
        "openmv TF2 %s: vs the GraphDef max |difference| %.3g, top-1 equal on %d of 7; vs Arm NN %.3g%s, "
        "top-1 %s\n",
        int8 ? "int8" : "float", worst_vs_graph, agree, int8 ? worst / e.output_step : worst,
        int8 ? " steps" : " (relative, Arm NN resizing without half-pixel centers)",
        top1_equal ? "equal" : "DIFFERENT");
    EXPECT_EQ(agree, 7);
    EXPECT_TRUE(top1_equal);
    if (int8) {
      EXPECT_LE(worst, e.output_step * 1.0001) << "more than one quantization step from Arm NN";
      continue;
    }
    EXPECT_LE(worst_vs_graph, 1e-5);
    // From the resized image on, Arm NN computes what gdstudio does.
    const std::string resize =
        "StatefulPartitionedCall/StatefulPartitionedCall/sequential_1/resizing/resize/ResizeBilinear";
    const ExportedCorpusModel after{m.name, {resize}, {{1, 96, 96, 1}}, m.output, m.data, ""};
    const std::vector<std::vector<Tensor>> resized = corpusSamples(after, frozen->graph);
    ASSERT_EQ(resized.size(), 7u);
    std::vector<std::vector<HostTensor>> resized_inputs;
    for (const auto& s : resized) resized_inputs.push_back({s[0].toHost()});
    const Exported net = exportModel(after, frozen->graph, false, {});
    double net_worst = 0;
    bool net_top1 = true;
    compareWithArmNn(net, resized, resized_inputs, &net_worst, &net_top1);
    std::printf("openmv TF2 float from the resized image on: vs Arm NN %.3g (relative to the output range)\n",
                net_worst);
    EXPECT_LE(net_worst, 1e-4);
    EXPECT_TRUE(net_top1);
  }
}

// Graphs that end in ArgMax (uTensor's CIFAR-10 CNN) export with ARG_MAX,
// float and int8 (the int8 input compared as stored, the index output
// unquantized); the exported class equals the GraphDef's on the photos.
// Arm NN 20.08 has no ARG_MAX ("Operator not supported"), so this is
// checked against gdstudio's runs only. A retrained graph whose unfed
// PlaceholderWithDefault ([?,1001]) feeds the head converts with static
// shapes.
TEST(TfliteRun, ArgMaxAndPlaceholderWithDefaultGraphsExport) {
  GDS_REQUIRE_SHARED();
  auto loaded = model::load(test::modelPath("utensor_cifar10_cnn.pb"));
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  const ExportedCorpusModel m{"utensor_cifar10_cnn.pb", {"Placeholder"}, {}, "pred", "images", ""};
  const std::vector<std::vector<Tensor>> samples = corpusSamples(m, loaded->graph);
  ASSERT_EQ(samples.size(), 7u);
  auto plan = engine::compileForInference(loaded->graph, m.inputs, {m.output});
  ASSERT_TRUE(plan.ok()) << plan.error();
  std::vector<std::int64_t> graph_class;
  for (const auto& s : samples) {
    auto r = (*plan)->run(s);
    ASSERT_TRUE(r.ok()) << r.error();
    ASSERT_EQ(r->at(0).dtype(), tensorflow::DT_INT64);
    graph_class.push_back(r->at(0).toHost().as<std::int64_t>()[0]);
  }
  for (bool int8 : {false, true}) {
    SCOPED_TRACE(int8 ? "int8" : "float");
    const Exported e = exportModel(m, loaded->graph, int8, samples);
    ASSERT_FALSE(e.graph.node().empty());
    const model::TensorRef out = model::parseTensorName(e.output);
    const tensorflow::NodeDef* arg_max = nullptr;
    for (const auto& n : e.graph.node())
      if (n.name() == out.node) arg_max = &n;
    ASSERT_NE(arg_max, nullptr);
    EXPECT_EQ(arg_max->op(), "tfl.arg_max");
    EXPECT_EQ(arg_max->attr().at("output_type").s(), "INT64");
    EXPECT_TRUE(mt::quantizationOf(*arg_max, 0).empty());
    const std::vector<HostTensor> classes = runInGdstudio(e, samples);
    ASSERT_EQ(classes.size(), samples.size());
    int agree = 0;
    for (std::size_t s = 0; s < classes.size(); ++s) {
      ASSERT_EQ(classes[s].dtype, tensorflow::DT_INT64);
      agree += classes[s].as<std::int64_t>()[0] == graph_class[s] ? 1 : 0;
    }
    std::printf("uTensor CIFAR-10 %s export: ARG_MAX class as the GraphDef's on %d of 7\n", int8 ? "int8" : "float",
                agree);
    EXPECT_EQ(agree, 7);
  }
  auto poets = model::load(test::modelPath("mobilenet_v1_0.25_128_poets_retrained.pb"));
  ASSERT_TRUE(poets.ok()) << poets.error();
  ConvertOptions o;
  o.inputs = {"input"};
  o.outputs = {"final_result"};
  auto converted = convertToTflite(poets->graph, o);
  ASSERT_TRUE(converted.ok()) << converted.error();
  EXPECT_EQ(mt::outputShape(converted->graph.node(converted->graph.node_size() - 1), 0), (model::Shape{1, 6}));
}

}  // namespace
}  // namespace gds::transforms::tflite
