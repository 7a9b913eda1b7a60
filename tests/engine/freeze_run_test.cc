// Frozen graphs made by `model::freeze` run in the interpreter and give what
// TensorFlow's own frozen graph / predictions give.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

#include "engine/rewrite/optimize_for_inference.h"
#include "model/freeze.h"
#include "model/io.h"
#include "tests/test_util.h"

namespace gds {
namespace {

using engine::compileForInference;
using engine::Tensor;

TEST(FreezeRun, CifarSameOutputsAsTensorFlowsFrozenGraph) {
  GDS_REQUIRE_SHARED();
  auto meta = model::load(test::modelPath("mlnet_cifar_checkpoint/model.ckpt.meta"));
  ASSERT_TRUE(meta.ok()) << meta.error();
  model::FreezeOptions options;
  options.output_nodes = {"Output"};
  auto ours = model::freeze(meta.value(), options);
  ASSERT_TRUE(ours.ok()) << ours.error();
  auto tf = model::load(test::modelPath("mlnet_cifar_frozen.pb"));
  ASSERT_TRUE(tf.ok()) << tf.error();

  auto plan_ours = compileForInference(ours->graph, {"Input"}, {"Output"});
  ASSERT_TRUE(plan_ours.ok()) << plan_ours.error();
  auto plan_tf = compileForInference(tf->graph, {"Input"}, {"Output"});
  ASSERT_TRUE(plan_tf.ok()) << plan_tf.error();

  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(0.f, 1.f);
  for (int trial = 0; trial < 3; ++trial) {
    Tensor input(tensorflow::DT_FLOAT, {2, 32, 32, 3});
    for (std::int64_t i = 0; i < input.numElements(); ++i) input.data<float>()[i] = uniform(rng);
    auto a = (*plan_ours)->run({input});
    auto b = (*plan_tf)->run({input});
    ASSERT_TRUE(a.ok()) << a.error();
    ASSERT_TRUE(b.ok()) << b.error();
    ASSERT_EQ((*a)[0].shape(), (model::Shape{2, 10}));
    ASSERT_EQ((*a)[0].shape(), (*b)[0].shape());
    float max_err = 0;
    for (std::int64_t i = 0; i < (*a)[0].numElements(); ++i)
      max_err = std::max(max_err, std::fabs((*a)[0].data<float>()[i] - (*b)[0].data<float>()[i]));
    EXPECT_LE(max_err, 1e-5f);
  }
}

std::vector<std::vector<std::string>> readCsv(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::vector<std::string> cells;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

TEST(FreezeRun, IrisPredictionsMatchTensorFlow) {
  GDS_REQUIRE_SHARED();
  std::string dir = test::modelPath("jpmml_dnn_classifier_iris_savedmodel");
  auto m = model::load(dir);
  ASSERT_TRUE(m.ok()) << m.error();
  auto frozen = model::freeze(m.value(), {});
  ASSERT_TRUE(frozen.ok()) << frozen.error();
  auto input = readCsv(dir + "/Iris_input.csv");
  auto expected = readCsv(dir + "/DNNClassificationIris_tf_predictions.csv");
  ASSERT_EQ(input.size(), 151u);
  ASSERT_EQ(expected.size(), 151u);
  const std::vector<std::string> columns = {"Sepal.Length", "Sepal.Width", "Petal.Length", "Petal.Width"};
  ASSERT_EQ(std::vector<std::string>(input[0].begin(), input[0].begin() + 4), columns);
  const std::int64_t n = 150;
  std::vector<Tensor> feeds;
  for (size_t c = 0; c < columns.size(); ++c) {
    Tensor t(tensorflow::DT_DOUBLE, {n, 1});
    for (std::int64_t r = 0; r < n; ++r) t.data<double>()[r] = std::stod(input[static_cast<size_t>(r) + 1][c]);
    feeds.push_back(t);
  }
  // TF 1.1 wrote the Placeholders' shape attr empty (its "unknown shape");
  // their _output_shapes say [-1,1], which is what we feed.
  engine::PlanOptions plan_options;
  for (const auto& c : columns) plan_options.input_shapes[c] = {n, 1};
  auto plan =
      compileForInference(frozen->graph, columns, {"dnn/multi_class_head/predictions/probabilities"}, plan_options);
  ASSERT_TRUE(plan.ok()) << plan.error();
  auto out = (*plan)->run(feeds);
  ASSERT_TRUE(out.ok()) << out.error();
  const Tensor& probs = (*out)[0];
  ASSERT_EQ(probs.shape(), (model::Shape{n, 3}));
  double max_err = 0;
  for (std::int64_t r = 0; r < n; ++r) {
    const auto& want = expected[static_cast<size_t>(r) + 1];
    int best = 0;
    for (int k = 0; k < 3; ++k) {
      float p = probs.data<float>()[r * 3 + k];
      max_err = std::max(max_err, std::fabs(p - std::stod(want[static_cast<size_t>(k) + 1])));
      if (p > probs.data<float>()[r * 3 + best]) best = k;
    }
    EXPECT_EQ(best, std::stoi(want[0])) << "row " << r;
  }
  EXPECT_LE(max_err, 1e-5);
}

TEST(FreezeRun, MnistSavedModelServingDefaultRuns) {
  GDS_REQUIRE_SHARED();
  auto m = model::load(test::modelPath("mlnet_mnist_conv_savedmodel"));
  ASSERT_TRUE(m.ok()) << m.error();
  model::FreezeOptions options;
  options.signature = "serving_default";
  auto frozen = model::freeze(m.value(), options);
  ASSERT_TRUE(frozen.ok()) << frozen.error();
  auto plan = compileForInference(frozen->graph, {"Features"}, {"Prediction"});
  ASSERT_TRUE(plan.ok()) << plan.error();
  Tensor input(tensorflow::DT_FLOAT, {3, 28, 28, 1});
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> uniform(0.f, 1.f);
  for (std::int64_t i = 0; i < input.numElements(); ++i) input.data<float>()[i] = uniform(rng);
  auto out = (*plan)->run({input});
  ASSERT_TRUE(out.ok()) << out.error();
  ASSERT_EQ((*out)[0].shape(), (model::Shape{3, 10}));
  for (int r = 0; r < 3; ++r) {
    double sum = 0;
    for (int k = 0; k < 10; ++k) sum += (*out)[0].data<float>()[r * 10 + k];
    EXPECT_NEAR(sum, 1.0, 1e-5);  // softmax rows; DropoutProb defaults to 1 (no dropout)
  }
  // Deterministic: the dropout mask is floor(1 + U[0,1)) = 1.
  auto again = (*plan)->run({input});
  ASSERT_TRUE(again.ok()) << again.error();
  for (int i = 0; i < 30; ++i) EXPECT_EQ((*again)[0].data<float>()[i], (*out)[0].data<float>()[i]);
}

}  // namespace
}  // namespace gds
