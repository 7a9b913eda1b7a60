// Every frozen float model of the corpus gives the same outputs on the
// interpreter before and after each applicable transform pipeline
// (max abs error <= 1e-4, relative for large values).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "engine/eval/feeds.h"
#include "engine/rewrite/optimize_for_inference.h"
#include "model/io.h"
#include "model/npy.h"
#include "tests/test_util.h"
#include "transforms/pipeline.h"

namespace gds::transforms {
namespace {

struct Feed {
  std::string name;
  engine::Tensor value;
  std::string strip_type;   // strip_unused_nodes type for this input
  std::string strip_shape;  // and shape ("" = scalar)
};

struct Case {
  std::string file;
  std::vector<Feed> feeds;
  std::vector<std::string> outputs;
};

engine::Tensor randomFloat(const model::Shape& shape, std::uint64_t seed) {
  return engine::randomTensor(tensorflow::DT_FLOAT, shape, seed, "test input").value();
}

engine::Tensor fileBytes(const std::string& path) {
  return engine::tensorFromFile(path, tensorflow::DT_STRING, "wav_data").value();
}

std::vector<Case> corpusCases() {
  const std::string wav = test::dataPath("speech/yes_en-us_140.wav");
  std::vector<Case> cases = {
      {"mnist_softmax_android.pb", {{"input/x_input", randomFloat({1, 784}, 1), "float", "1,784"}}, {"layer/final_result"}},
      {"utensor_cifar10_cnn.pb", {{"Placeholder", randomFloat({1, 32, 32, 3}, 2), "float", "1,32,32,3"}},
       {"fully_connect_2/logits", "pred"}},
      {"utensor_cifar10_cnn_dropout.pb",
       {{"Placeholder", randomFloat({1, 32, 32, 3}, 3), "float", "1,32,32,3"},
        {"keep_prob", engine::tensorFromValues(tensorflow::DT_FLOAT, {}, "1", "keep_prob").value(), "float", ""}},
       {"pred"}},
      {"tf2onnx_static_lstm_dropout.pb",
       {{"X", randomFloat({1, 784}, 4), "float", "1,784"},
        {"keep_prob", engine::tensorFromValues(tensorflow::DT_FLOAT, {}, "1", "keep_prob").value(), "float", ""}},
       {"output"}},
      {"mlnet_cifar_frozen.pb", {{"Input", randomFloat({1, 32, 32, 3}, 5), "float", "1,32,32,3"}}, {"Output"}},
      {"mobilenet_v1_0.25_128_frozen.pb", {{"input", randomFloat({1, 128, 128, 3}, 6), "float", "1,128,128,3"}},
       {"MobilenetV1/Predictions/Reshape_1"}},
      {"mobilenet_v1_0.25_128_poets_retrained_optimized.pb",
       {{"input", randomFloat({1, 128, 128, 3}, 7), "float", "1,128,128,3"}}, {"final_result"}},
      {"opencv_face_detector_uint8.pb", {{"data", randomFloat({1, 300, 300, 3}, 8), "float", "1,300,300,3"}},
       {"mbox_conf_flatten", "mbox_loc"}},
  };
  for (const char* m : {"speech_commands_conv_actions_frozen.pb", "kws_ds_cnn_s.pb", "kws_cnn_s.pb", "kws_lstm_s.pb",
                        "kws_crnn_s.pb"})
    cases.push_back({m, {{"wav_data", fileBytes(wav), "string", ""}}, {"labels_softmax"}});
  // The generated models with TensorFlow.js reference inputs.
  std::ifstream in(test::modelPath("generated/index.json"));
  auto index = nlohmann::json::parse(in);
  for (const auto& entry : index) {
    std::string model = entry["model"];
    if (model == "mobilenet_v1_1.0_224_random.pb") continue;  // the same graph as the 0.5/96 one, larger
    Case c{"generated/" + model, {}, {}};
    for (const auto& [name, file] : entry["input"].items()) {
      auto host = model::readNpy(test::modelPath("generated/" + file.get<std::string>())).value();
      std::string shape;
      for (size_t i = 0; i < host.shape.size(); ++i) shape += (i ? "," : "") + std::to_string(host.shape[i]);
      c.feeds.push_back({name, engine::Tensor::fromHost(host), "float", shape});
    }
    for (const auto& [name, file] : entry["outputs"].items()) c.outputs.push_back(name);
    cases.push_back(std::move(c));
  }
  return cases;
}

bool hasWhileLoop(const tensorflow::GraphDef& g) {
  for (const auto& n : g.node())
    if (n.op() == "Enter") return true;
  return false;
}

Result<std::vector<engine::Tensor>> runGraph(const tensorflow::GraphDef& g, const Case& c) {
  std::vector<std::string> names;
  std::vector<engine::Tensor> values;
  for (const auto& f : c.feeds) {
    names.push_back(f.name);
    values.push_back(f.value);
  }
  auto plan = engine::compileForInference(g, names, c.outputs);
  if (!plan.ok()) return plan.status();
  auto out = (*plan)->run(values);
  if (!out.ok()) return out.status();
  // Copy out: fetched Consts may borrow the GraphDef's bytes.
  std::vector<engine::Tensor> copies;
  for (const auto& t : *out) copies.push_back(engine::Tensor::fromHost(t.toHost()));
  return copies;
}

void expectSameOutputs(const std::vector<engine::Tensor>& a, const std::vector<engine::Tensor>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t k = 0; k < a.size(); ++k) {
    ASSERT_EQ(a[k].dtype(), b[k].dtype()) << what;
    ASSERT_EQ(a[k].shape(), b[k].shape()) << what;
    double worst = 0;
    for (std::int64_t i = 0; i < a[k].numElements(); ++i) {
      const double x = a[k].valueAt(i), y = b[k].valueAt(i);
      worst = std::max(worst, std::fabs(x - y) / std::max(1.0, std::fabs(x)));
    }
    EXPECT_LE(worst, 1e-4) << what << ", output " << k;
  }
}

TEST(TransformEquivalence, EveryFrozenFloatModelKeepsItsOutputs) {
  GDS_REQUIRE_SHARED();
  int graphs_checked = 0;
  for (const Case& c : corpusCases()) {
    auto loaded = model::load(test::modelPath(c.file));
    ASSERT_TRUE(loaded.ok()) << loaded.error();
    const tensorflow::GraphDef& original = loaded->graph;
    auto expected = runGraph(original, c);
    ASSERT_TRUE(expected.ok()) << c.file << ": " << expected.error();

    std::vector<std::string> inputs;
    std::string strip = "strip_unused_nodes(";
    for (size_t i = 0; i < c.feeds.size(); ++i) {
      const Feed& f = c.feeds[i];
      inputs.push_back(f.name);
      strip += std::string(i ? ", " : "") + "name=" + f.name + ", type_for_name=" + f.strip_type;
      strip += ", shape_for_name=\"" + f.strip_shape + "\"";  // "" is a scalar
    }
    strip += ")";
    const std::vector<std::string> pipelines = {
        strip + " remove_nodes(op=Identity, op=CheckNumerics) fold_constants(ignore_errors=true) fold_batch_norms "
                "fold_old_batch_norms merge_duplicate_nodes sort_by_execution_order",
        "fold_batch_norms fold_old_batch_norms",
        // Inside a while loop a Const's control input from the loop's pivot puts
        // it in the loop's frame; without it TensorFlow's executor (and ours)
        // rejects the graph, so remove_control_dependencies does not apply there.
        hasWhileLoop(original) ? "obfuscate_names remove_device add_default_attributes"
                               : "obfuscate_names remove_device remove_control_dependencies add_default_attributes",
        "flatten_atrous_conv fuse_pad_and_conv backport_concatv2",
    };
    for (const auto& p : pipelines) {
      PipelineOptions options;
      options.compute_diff = false;
      auto r = applyTransforms(original, p, inputs, c.outputs, options);
      ASSERT_TRUE(r.ok()) << c.file << " / " << p << ": " << r.error();
      auto got = runGraph(r->graph, c);
      ASSERT_TRUE(got.ok()) << c.file << " / " << p << ": " << got.error();
      expectSameOutputs(*expected, *got, c.file + " / " + p);
      ++graphs_checked;
    }
  }
  EXPECT_EQ(graphs_checked, 4 * 17);
}

}  // namespace
}  // namespace gds::transforms
