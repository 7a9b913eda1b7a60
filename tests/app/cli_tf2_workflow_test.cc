// The whole workflow on frozen TF2 Keras models, from the command line:
// freeze, optimise with transforms (the output must not move), benchmark,
// then the 8-bit graph (quantize_weights, quantize_nodes) and the TensorFlow
// Lite int8 model compared with the float graph on ../shared/data/images.
// The Arm MobileNet takes one-channel 160x120 images (the dataset's colour
// images are read in grey); the binary CNN takes 256x256 RGB.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <map>

#include "model/io.h"
#include "tests/test_util.h"

namespace gds {
namespace {

std::map<std::string, int> opCounts(const std::string& path) {
  std::map<std::string, int> ops;
  auto m = model::load(path);
  EXPECT_TRUE(m.ok()) << m.error();
  if (m.ok())
    for (const auto& n : m->graph.node()) ++ops[n.op()];
  return ops;
}

nlohmann::json runJson(const std::vector<std::string>& args) {
  auto r = test::runGdstudio(args);
  EXPECT_EQ(r.exit_code, 0) << args[0] << ": " << r.err;
  if (r.exit_code != 0) return nlohmann::json::object();
  return nlohmann::json::parse(r.out);
}

TEST(CliTf2Workflow, MobileNetTransformsBenchmarkAndEightBitOnImages) {
  GDS_REQUIRE_SHARED();
  const std::string dir = test::tempDir();
  const std::string frozen = dir + "/frozen.pb", opt = dir + "/opt.pb", q8 = dir + "/q8.pb";
  auto f = test::runGdstudio({"freeze", "--input_saved_model_dir=" + test::modelPath("tf2/openmv_mobilenet_bn_augment"),
                              "--output_graph=" + frozen});
  ASSERT_EQ(f.exit_code, 0) << f.err;

  // Optimise: the 27 batch norms fold into the convolutions.
  auto t = test::runGdstudio({"transform", "--in_graph=" + frozen, "--out_graph=" + opt, "--inputs=sequential_input",
                              "--outputs=model",
                              "--transforms=strip_unused_nodes(type=float, shape=\"1,160,120,1\") "
                              "remove_nodes(op=Identity, op=CheckNumerics) fold_constants(ignore_errors=true) "
                              "fold_batch_norms fold_old_batch_norms"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  auto before = opCounts(frozen), after = opCounts(opt);
  EXPECT_EQ(before["FusedBatchNormV3"], 27);
  EXPECT_EQ(after["FusedBatchNormV3"], 0);
  EXPECT_EQ(after["Conv2D"] + after["DepthwiseConv2dNative"], 28);
  // ... and the predictions stay (one image, raw 0..255 pixels as Keras was fed).
  const std::string image = test::dataPath("images/chelsea.png");
  auto same = runJson({"compare", "--graph=" + frozen, "--graph2=" + opt, "--output=model", "--input=" + image,
                       "--input_mean=0", "--input_std=1", "--format=json"});
  ASSERT_TRUE(same.contains("outputs"));
  EXPECT_LE(same["outputs"][0]["max_abs"].get<double>(), 1e-5);

  // Benchmark: the optimised graph's FLOPs and its three timed runs.
  auto bench = runJson({"benchmark", "--graph=" + opt, "--input_layer=sequential_input",
                        "--input_layer_shape=1,160,120,1", "--output_layer=model", "--num_runs=3", "--format=json"});
  ASSERT_TRUE(bench.contains("flops"));
  EXPECT_GT(bench["flops"].get<double>(), 14e6);
  EXPECT_LT(bench["flops"].get<double>(), 15e6);
  EXPECT_EQ(bench["latency_ms"]["runs"].get<int>(), 3);
  EXPECT_GE(bench["latency_ms"]["mean"].get<double>(), bench["latency_ms"]["min"].get<double>());
  EXPECT_LE(bench["latency_ms"]["mean"].get<double>(), bench["latency_ms"]["max"].get<double>());

  // 8-bit: quantize and compare on the images folder.
  auto q = test::runGdstudio({"transform", "--in_graph=" + opt, "--out_graph=" + q8, "--inputs=sequential_input",
                              "--outputs=model", "--transforms=quantize_weights quantize_nodes"});
  ASSERT_EQ(q.exit_code, 0) << q.err;
  EXPECT_GT(opCounts(q8)["QuantizedConv2D"], 0);
  auto cmp = runJson({"compare", "--graph=" + opt, "--graph2=" + q8, "--output=model",
                      "--dataset=" + test::dataPath("images"), "--input_mean=0", "--input_std=1", "--format=json"});
  ASSERT_TRUE(cmp.contains("inputs"));
  EXPECT_EQ(cmp["inputs"].get<int>(), 7);
  ASSERT_EQ(cmp["items"].size(), 7u);
  for (const auto& item : cmp["items"]) {
    // Five classes; both variants answer one of them, with a finite error.
    for (const char* key : {"top1_float", "top1_8bit"}) {
      const int cls = std::stoi(item[key].get<std::string>());
      EXPECT_GE(cls, 0);
      EXPECT_LT(cls, 5);
    }
    EXPECT_TRUE(std::isfinite(item["sqnr_db"].get<double>())) << item.dump();
    EXPECT_GT(item["sqnr_db"].get<double>(), 0) << item.dump();
  }
  EXPECT_GE(cmp["top1_agreement"].get<int>(), 1);
  EXPECT_LE(cmp["top1_agreement"].get<int>(), 7);
}

TEST(CliTf2Workflow, BinaryCnnTfliteInt8AgainstTheFloatGraph) {
  GDS_REQUIRE_SHARED();
  const std::string dir = test::tempDir();
  const std::string frozen = dir + "/frozen.pb", tflite = dir + "/int8.tflite";
  auto f = test::runGdstudio({"freeze", "--input_saved_model_dir=" + test::modelPath("tf2/binary_cnn_256"),
                              "--output_graph=" + frozen});
  ASSERT_EQ(f.exit_code, 0) << f.err;
  const std::string out = "StatefulPartitionedCall/StatefulPartitionedCall/sequential/dense_1/Sigmoid";
  auto c = test::runGdstudio({"tflite_convert", "--graph_def_file=" + frozen, "--output_file=" + tflite,
                              "--output_arrays=" + out, "--quantize=int8",
                              "--calibration_data=" + test::dataPath("images"), "--input_mean=0", "--input_std=255"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_NE(c.out.find("Operators: 10 (2 CONV_2D, 1 DEQUANTIZE, 2 FULLY_CONNECTED, 1 LOGISTIC, 2 MAX_POOL_2D, "
                       "1 QUANTIZE, 1 RESHAPE)"),
            std::string::npos)
      << c.out;
  EXPECT_NE(c.out.find("Calibrated on 7 inputs"), std::string::npos) << c.out;
  // Each image through both: the sigmoid's int8 output is within one
  // output step (1/256) of the float graph's.
  for (const char* image : {"chelsea.png", "rocket.jpg", "flower.jpg"}) {
    SCOPED_TRACE(image);
    auto cmp = runJson({"compare", "--graph=" + frozen, "--graph2=" + tflite, "--output=" + out,
                        "--input=" + test::dataPath(std::string("images/") + image), "--input_mean=0",
                        "--input_std=255", "--format=json"});
    ASSERT_TRUE(cmp.contains("outputs"));
    const auto& o = cmp["outputs"][0];
    EXPECT_EQ(o["name"].get<std::string>(), out);
    EXPECT_LE(o["max_abs"].get<double>(), 1.0 / 256 + 1e-6);
  }
}

}  // namespace
}  // namespace gds
