// The Keras corpus (../shared/models/keras, see its MANIFEST.md): real
// .keras and .h5 files from public repositories. Each opens, summarizes
// with its layer list and runs; where the repository holds a .tflite that
// TensorFlow converted from the same model, gdstudio's run of the Keras file
// equals that .tflite's reference output (computed by TFLite's own kernels)
// within 1e-4 of the output range, and so does gdstudio's own float .tflite
// export of it, in gdstudio and in Arm NN; the int8 export calibrated on
// seeded data agrees with Arm NN within one quantization step.
#include <gtest/gtest.h>

#include <cctype>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "engine/plan.h"
#include "engine/rewrite/optimize_for_inference.h"
#include "model/io.h"
#include "model/npy.h"
#include "model/summary.h"
#include "model/tflite/dialect.h"
#include "model/tflite/writer.h"
#include "tests/armnn_util.h"
#include "tests/keras/keras_test_util.h"
#include "tests/test_util.h"
#include "transforms/tflite/convert.h"

namespace gds::model::keras {
namespace {

using engine::Tensor;

// How a file's outputs are checked.
enum class Reference {
  Tflite,           // the TensorFlow-made .tflite's reference output, within 1e-4 of the range
  QuantizedTflite,  // a hybrid-quantized .tflite (int8 weights): within its quantization error, same top-1
  NumPy,            // tests/tools/keras_corpus_reference.py's float64 run of the file
};

struct CorpusFile {
  std::string name;            // under models/keras/
  std::string layers;          // the start of the summary's layer list
  Reference reference = Reference::NumPy;
  float lo = 0, hi = 1;        // seeded inputs
  bool token_ids = false;      // inputs are token ids below `hi`
  Shape run_shape = {};        // the input shape run when the file's has free dimensions
};

// toycar_dense_ae's .tflite was not made from this .h5's batch-norm
// statistics: its kernels equal the BN-folded .h5 kernels to 7e-7, but its
// biases differ by up to 0.61 (layer dense_5), so its reference output is
// 1.3% of the range away from the model; the NumPy run checks it instead.
const std::vector<CorpusFile>& corpus() {
  static const std::vector<CorpusFile> files = {
      {"dwcnn_semiconductor_k3.13.keras",
       "InputLayer input, Conv2D conv_stem, BatchNormalization bn_stem, ReLU relu_stem", Reference::Tflite, 0, 1},
      {"keypoint_mlp_k3.8.keras", "InputLayer input_layer_2, Dropout dropout_4, Dense dense_6", Reference::Tflite, -1,
       1},
      {"cifar_resnet8_k2.4.h5", "InputLayer input_1, Conv2D conv2d, BatchNormalization batch_normalization",
       Reference::Tflite, 0, 255},
      {"toycar_dense_ae_k2.4.h5", "InputLayer input_1, Dense dense, BatchNormalization batch_normalization",
       Reference::NumPy, 0, 1},
      {"intent_embedding_k3.8.h5", "InputLayer input_layer, Embedding embedding, GlobalAveragePooling1D",
       Reference::Tflite, 0, 1000, true},
      {"icu_mlp_k3.12.h5", "InputLayer input_layer, Dense dense, Dense dense_1", Reference::Tflite, 0, 1},
      {"keypoint_bn_mish_k2.15.keras",
       "InputLayer input_2, BatchNormalization batch_normalization_1, Dense dense_4", Reference::QuantizedTflite, -1,
       1},
      {"can_gru_k2.15.keras", "InputLayer input_3, GRU gru_2, Dense dense_4", Reference::NumPy, -1, 1},
      {"lettuce_lstm_k3.6.keras", "InputLayer input_layer, LSTM lstm, Dense dense", Reference::NumPy, -1, 1},
      {"autompg_normalization_k3.3.keras", "InputLayer input_layer_3, Normalization normalization, Dense dense_5",
       Reference::NumPy, 0, 100},
      {"docclean_conv_ae_k2.14.keras", "InputLayer image_input, Conv2D Conv1, MaxPooling2D pool1", Reference::NumPy,
       0, 1, false, {1, 32, 48, 3}},
      {"ultrasonic_conv1d_k3.10.keras", "InputLayer input_layer, Conv1D conv1d, BatchNormalization",
       Reference::NumPy, -1, 1},
  };
  return files;
}

std::string corpusPath(const std::string& name) { return test::modelPath("keras/" + name); }
std::string stem(const std::string& name) { return name.substr(0, name.rfind('.')); }

const tensorflow::NodeDef* placeholder(const tensorflow::GraphDef& g) {
  for (const auto& n : g.node())
    if (n.op() == "Placeholder") return &n;
  return nullptr;
}

// A seeded input for `f`: uniform in [lo, hi), or token ids, batch 1.
HostTensor seededInput(const CorpusFile& f, const tensorflow::GraphDef& g, unsigned seed) {
  const auto* p = placeholder(g);
  Shape shape = f.run_shape;
  if (shape.empty()) {
    shape = shapeFromProto(p->attr().at("shape").shape());
    shape[0] = 1;
  }
  HostTensor t = HostTensor::zeros(tensorflow::DT_FLOAT, shape);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(f.lo, f.hi);
  for (std::int64_t i = 0; i < t.size(); ++i) t.as<float>()[i] = f.token_ids ? std::floor(u(rng)) : u(rng);
  return t;
}

Result<std::vector<HostTensor>> runModel(const tensorflow::GraphDef& g, const std::vector<std::string>& feeds,
                                         const std::vector<std::string>& fetches, const std::vector<HostTensor>& inputs) {
  auto plan = engine::compileForInference(g, feeds, fetches, {});
  if (!plan.ok()) return plan.status();
  std::vector<Tensor> in;
  for (const auto& x : inputs) in.push_back(Tensor::fromHost(x));
  auto out = (*plan)->run(in);
  if (!out.ok()) return out.status();
  std::vector<HostTensor> host;
  for (const auto& t : *out) host.push_back(t.toHost());
  return host;
}

TEST(KerasCorpus, EveryFileOpensSummarizesWithItsLayersAndRuns) {
  GDS_REQUIRE_SHARED();
  for (const auto& f : corpus()) {
    SCOPED_TRACE(f.name);
    auto m = model::load(corpusPath(f.name));
    ASSERT_TRUE(m.ok()) << m.error();
    EXPECT_EQ(m->kind, ModelKind::Keras);
    auto s = model::summarizeModel(*m);
    ASSERT_TRUE(s.ok()) << s.error();
    EXPECT_NE(s->keras_model.find(f.layers), std::string::npos) << s->keras_model;
    ASSERT_EQ(s->inputs.size(), 1u);
    ASSERT_EQ(s->outputs.size(), 1u);
    auto out = runModel(m->graph, {s->inputs[0].name}, {s->outputs[0].first}, {seededInput(f, m->graph, 7)});
    ASSERT_TRUE(out.ok()) << out.error();
    for (std::int64_t i = 0; i < out->at(0).size(); ++i) ASSERT_TRUE(std::isfinite(out->at(0).valueAt(i)));
  }
}

// The model's run on `input` against `want`: the largest difference
// relative to the output range.
test::Difference runAgainst(const CorpusFile& f, const HostTensor& input, const HostTensor& want,
                            std::int64_t* top1 = nullptr) {
  auto m = model::load(corpusPath(f.name));
  EXPECT_TRUE(m.ok()) << m.error();
  if (!m.ok()) return {};
  auto s = model::summarizeModel(*m);
  EXPECT_TRUE(s.ok()) << s.error();
  if (!s.ok()) return {};
  auto out = runModel(m->graph, {s->inputs[0].name}, {s->outputs[0].first},
                      {test::castLike(input, m->graph, s->inputs[0].name)});
  EXPECT_TRUE(out.ok()) << out.error();
  if (!out.ok()) return {};
  EXPECT_EQ(out->at(0).shape, want.shape);
  if (top1) {
    std::int64_t best = 0;
    for (std::int64_t i = 1; i < out->at(0).size(); ++i)
      if (out->at(0).valueAt(i) > out->at(0).valueAt(best)) best = i;
    *top1 = best;
  }
  return test::compareOutputs(out->at(0), want);
}

std::int64_t argmax(const HostTensor& t) {
  std::int64_t best = 0;
  for (std::int64_t i = 1; i < t.size(); ++i)
    if (t.valueAt(i) > t.valueAt(best)) best = i;
  return best;
}

TEST(KerasCorpus, RunsEqualTensorFlowLitesReferenceOutputs) {
  GDS_REQUIRE_SHARED();
  for (const auto& f : corpus()) {
    if (f.reference == Reference::NumPy) continue;
    SCOPED_TRACE(f.name);
    auto x = readNpy(test::modelPath("keras/" + stem(f.name) + ".input.npy"));
    auto want = readNpy(test::modelPath("keras/" + stem(f.name) + ".tflite_output.npy"));
    ASSERT_TRUE(x.ok() && want.ok());
    std::int64_t top1 = -1;
    const test::Difference d = runAgainst(f, *x, *want, &top1);
    // The quantized .tflite's int8 weights put its softmax 0.055 (7.7% of
    // the range) from the float model's.
    const double tolerance = f.reference == Reference::Tflite ? 1e-4 : 0.1;
    EXPECT_LE(d.relative, tolerance) << "largest difference " << d.absolute << " at " << d.index
                                     << ", output range " << d.range;
    EXPECT_EQ(top1, argmax(*want));
  }
}

TEST(KerasCorpus, RunsEqualNumPysRunsOfTheFiles) {
  GDS_REQUIRE_SHARED();
  const std::string dir = test::kerasCorpusReferences();
  if (dir.empty()) GTEST_SKIP() << test::kerasLayerFilesUnavailable();
  for (const auto& f : corpus()) {
    if (f.reference != Reference::NumPy) continue;
    SCOPED_TRACE(f.name);
    auto x = readNpy(dir + "/" + stem(f.name) + ".input.npy");
    auto want = readNpy(dir + "/" + stem(f.name) + ".numpy_output.npy");
    ASSERT_TRUE(x.ok() && want.ok());
    const test::Difference d = runAgainst(f, *x, *want);
    EXPECT_LE(d.relative, 1e-4) << "largest difference " << d.absolute << " at " << d.index << ", output range "
                                << d.range;
  }
}

// The export of a corpus file, written, read back (the model gdstudio
// opens) and its output's quantization step (int8).
struct Export {
  std::string path, input, output;
  tensorflow::GraphDef graph;
  float output_step = 0;
};

Result<Export> exportFile(const CorpusFile& f, bool int8, const std::vector<std::vector<Tensor>>& calibration,
                          const std::string& output = "") {
  auto m = model::load(corpusPath(f.name));
  if (!m.ok()) return m.status();
  auto s = model::summarizeModel(*m);
  if (!s.ok()) return s.status();
  transforms::tflite::ConvertOptions o;
  o.inputs = {s->inputs[0].name};
  o.outputs = {output.empty() ? s->outputs[0].first : output};
  if (!f.run_shape.empty()) o.input_shapes = {f.run_shape};
  if (int8) {
    o.quantize = transforms::tflite::Quantize::Int8;
    o.calibration = calibration;
  }
  auto converted = transforms::tflite::convertToTflite(m->graph, o);
  if (!converted.ok()) return converted.status();
  Export e;
  e.path = test::tempDir() + "/" + stem(f.name) + (int8 ? "_int8" : "_float") + (output.empty() ? "" : "_cut") + ".tflite";
  GDS_RETURN_IF_ERROR(tflite::saveTflite(converted->graph, e.path));
  auto loaded = model::load(e.path);
  if (!loaded.ok()) return loaded.status();
  e.graph = loaded->graph;
  e.input = s->inputs[0].name;
  e.output = transforms::tflite::fileOutputs(*converted).at(0);
  const TensorRef out = parseTensorName(e.output);
  for (const auto& n : e.graph.node())
    if (n.name() == out.node && n.op() == "tfl.dequantize")
      for (const auto& p : e.graph.node())
        if (p.name() == parseTensorName(n.input(0)).node) {
          const tflite::Quantization q = tflite::quantizationOf(p, parseTensorName(n.input(0)).port);
          if (!q.scale.empty()) e.output_step = q.scale[0];
        }
  return e;
}

std::vector<HostTensor> seededSamples(const CorpusFile& f, const tensorflow::GraphDef& g, int count) {
  std::vector<HostTensor> out;
  for (int i = 0; i < count; ++i) out.push_back(seededInput(f, g, 1000 + static_cast<unsigned>(i)));
  return out;
}

// Arm NN 20.08's TfLiteParser has no CAST (Embedding's ids) or LOG (mish's
// softplus): it refuses those exports by name.
const std::map<std::string, std::string>& armnnUnsupported() {
  static const std::map<std::string, std::string> ops = {{"intent_embedding_k3.8.h5", "CAST"},
                                                         {"keypoint_bn_mish_k2.15.keras", "LOG"}};
  return ops;
}

TEST(KerasCorpus, FloatTfliteExportsComputeWhatTheKerasFilesCompute) {
  GDS_REQUIRE_SHARED();
  const bool armnn = test::armnnUnavailable().empty();
  for (const auto& f : corpus()) {
    SCOPED_TRACE(f.name);
    auto m = model::load(corpusPath(f.name));
    ASSERT_TRUE(m.ok()) << m.error();
    auto s = model::summarizeModel(*m);
    ASSERT_TRUE(s.ok());
    auto e = exportFile(f, false, {});
    ASSERT_TRUE(e.ok()) << e.error();
    const std::vector<HostTensor> samples = seededSamples(f, m->graph, 3);
    std::vector<std::vector<HostTensor>> armnn_inputs;
    for (const auto& x : samples) {
      auto keras = runModel(m->graph, {s->inputs[0].name}, {s->outputs[0].first}, {test::castLike(x, m->graph, e->input)});
      auto lite = runModel(e->graph, {e->input}, {e->output}, {x});
      ASSERT_TRUE(keras.ok()) << keras.error();
      ASSERT_TRUE(lite.ok()) << lite.error();
      EXPECT_LE(test::compareOutputs(lite->at(0), keras->at(0)).relative, 1e-4);
      armnn_inputs.push_back({x});
    }
    if (!armnn) continue;
    const test::ArmnnBatchResult r = test::armnnRunSamples(e->path, armnn_inputs);
    auto unsupported = armnnUnsupported().find(f.name);
    if (unsupported != armnnUnsupported().end()) {
      EXPECT_FALSE(r.ok);
      EXPECT_NE(r.error.find(unsupported->second), std::string::npos) << r.error;
      continue;
    }
    ASSERT_TRUE(r.ok) << r.error;
    for (std::size_t k = 0; k < samples.size(); ++k) {
      auto keras = runModel(m->graph, {s->inputs[0].name}, {s->outputs[0].first}, {samples[k]});
      ASSERT_TRUE(keras.ok());
      EXPECT_LE(test::compareOutputs(r.outputs[k].at(0), keras->at(0)).relative, 1e-4) << "Arm NN, sample " << k;
    }
  }
}

// gdstudio's run of the int8 export (TensorFlow Lite's arithmetic) against
// Arm NN's on the same samples: the largest difference in output steps.
double int8StepsFromArmNn(const Export& e, const std::vector<HostTensor>& samples) {
  std::vector<std::vector<HostTensor>> inputs;
  for (const auto& x : samples) inputs.push_back({x});
  const test::ArmnnBatchResult r = test::armnnRunSamples(e.path, inputs);
  EXPECT_TRUE(r.ok) << r.error;
  if (!r.ok || e.output_step <= 0) return INFINITY;
  double worst = 0;
  for (std::size_t k = 0; k < samples.size(); ++k) {
    auto ours = runModel(e.graph, {e.input}, {e.output}, {samples[k]});
    EXPECT_TRUE(ours.ok()) << ours.error();
    if (!ours.ok()) return INFINITY;
    worst = std::max(worst, test::compareOutputs(ours->at(0), r.outputs[k].at(0)).absolute);
  }
  return worst / e.output_step;
}

TEST(KerasCorpus, Int8ExportsAgreeWithArmNnWithinOneStep) {
  GDS_REQUIRE_SHARED();
  GDS_REQUIRE_ARMNN();
  for (const auto& f : corpus()) {
    if (f.reference == Reference::NumPy && f.name != "toycar_dense_ae_k2.4.h5") continue;
    SCOPED_TRACE(f.name);
    auto m = model::load(corpusPath(f.name));
    ASSERT_TRUE(m.ok()) << m.error();
    std::vector<std::vector<Tensor>> calibration;
    for (const auto& x : seededSamples(f, m->graph, 16)) calibration.push_back({Tensor::fromHost(x)});
    auto e = exportFile(f, true, calibration);
    auto unsupported = armnnUnsupported().find(f.name);
    if (unsupported != armnnUnsupported().end()) {
      // Their CAST and LOG have no int8 form in TensorFlow Lite's
      // full-integer scheme: they stay float, as TensorFlow's converter
      // leaves them, which Arm NN 20.08 does not run.
      ASSERT_TRUE(e.ok()) << e.error();
      std::string op = "tfl." + unsupported->second;
      for (char& c : op) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      bool float_op = false;
      for (const auto& n : e->graph.node())
        if (n.op() == op) float_op = true;
      EXPECT_TRUE(float_op) << op;
      continue;
    }
    ASSERT_TRUE(e.ok()) << e.error();
    auto x = readNpy(test::modelPath("keras/" + stem(f.name) + ".input.npy"));
    ASSERT_TRUE(x.ok());
    std::vector<HostTensor> samples = seededSamples(f, m->graph, 4);
    samples.push_back(*x);
    const double steps = int8StepsFromArmNn(*e, samples);
    std::printf("%s int8: gdstudio vs Arm NN max |difference| %.2f steps of %.3g\n", f.name.c_str(), steps,
                e->output_step);
    if (f.name != "toycar_dense_ae_k2.4.h5") {
      EXPECT_LE(steps, 1.0001);
      continue;
    }
    // Ten fully connected layers: each agrees within one step on the same
    // input (the first layer's output is checked alone), and the
    // differences carry through the chain: at most one step per layer at
    // the output (5 measured).
    auto first = exportFile(f, true, calibration, "activation/Relu");
    ASSERT_TRUE(first.ok()) << first.error();
    EXPECT_LE(int8StepsFromArmNn(*first, samples), 1.0001);
    EXPECT_LE(steps, 10.0001);
  }
}

}  // namespace
}  // namespace gds::model::keras
