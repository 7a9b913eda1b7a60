// gdstudio benchmark: benchmark_model's flags, tables and JSON.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/test_util.h"

namespace gds {
namespace {

const std::string kSampleOutput = "MobilenetV1/Predictions/Softmax";

std::string sample() { return test::sourceDir() + "/resources/sample_model.pb"; }
// Nodes of resources/sample_model.pb as loaded (gdstudio summarize).
constexpr int kSampleGraphNodes = 176;

TEST(CliBenchmark, PrintsTensorFlowTablesForTheSampleModel) {
  auto r = test::runGdstudio({"benchmark", "--graph=" + sample(), "--input_layer=input", "--input_layer_shape=1,64,64,3",
                              "--input_layer_type=float", "--output_layer=" + kSampleOutput, "--max_num_runs=3",
                              "--show_flops", "--num_threads=1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Running benchmark for max 3 iterations, max 10 seconds without detailed stat logging"),
            std::string::npos);
  EXPECT_NE(r.out.find("============================== Run Order =============================="), std::string::npos);
  EXPECT_NE(r.out.find("============================== Top by Computation Time =============================="),
            std::string::npos);
  EXPECT_NE(r.out.find("============================== Top by Memory Use =============================="),
            std::string::npos);
  EXPECT_NE(r.out.find("============================== Summary by node type =============================="),
            std::string::npos);
  EXPECT_NE(r.out.find("Timings (microseconds): count=3 "), std::string::npos);
  // 2,159,872 FLOPs, the figure summarize reports for the same graph and shape.
  EXPECT_NE(r.out.find("FLOPs estimate: 2.16M\n"), std::string::npos);
  // Every executed node is observed: the plan folds the batch-norm arithmetic
  // into the filters and runs each convolution with its bias and Relu6 as one
  // node (engine/rewrite/fold_and_fuse.h), so 10 fused convolutions, AvgPool,
  // Squeeze, Softmax and 20 Consts run (the Placeholder is fed).
  EXPECT_NE(r.out.find("Number of nodes executed: 33\n"), std::string::npos);
}

TEST(CliBenchmark, JsonHasLatencyFlopsMemoryAndTables) {
  auto r = test::runGdstudio({"benchmark", "--graph", sample(), "--input_layer", "input", "--input_layer_shape",
                              "1,64,64,3", "--output_layer", kSampleOutput, "--max_num_runs=4", "--warmup_runs=2",
                              "--format=json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["latency_ms"]["runs"], 4);
  // The figures are measured: only their order is certain.
  EXPECT_GE(j["latency_ms"]["min"].get<double>(), 0.0);
  EXPECT_LE(j["latency_ms"]["min"].get<double>(), j["latency_ms"]["median"].get<double>());
  EXPECT_GE(j["latency_ms"]["max"].get<double>(), j["latency_ms"]["median"].get<double>());
  EXPECT_EQ(j["flops"].get<double>(), 2159872.0);
  EXPECT_GT(j["peak_memory_bytes"].get<std::int64_t>(), 0);
  EXPECT_EQ(j["nodes"].size(), 33u);
  bool saw_conv = false;
  for (const auto& t : j["node_types"])
    if (t["type"] == "_FusedConv2D") {
      saw_conv = true;
      EXPECT_EQ(t["count"], 6);
    }
  EXPECT_TRUE(saw_conv);
}

TEST(CliBenchmark, CsvTables) {
  auto r = test::runGdstudio({"benchmark", "--graph=" + sample(), "--input_layer=input", "--input_layer_shape=1,64,64,3",
                              "--output_layer=" + kSampleOutput, "--max_num_runs=2", "--format=csv",
                              "--show_run_order=false", "--show_time=false", "--show_memory=false"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("node type, count, avg_ms, avg %, cdf %, mem KB, times called\n"), std::string::npos);
  EXPECT_NE(r.out.find("\n_FusedConv2D, 6, "), std::string::npos);
}

TEST(CliBenchmark, Errors) {
  auto missing = test::runGdstudio({"benchmark", "--input_layer=input"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.err, "error: --graph is required (model file (.pb, .pbtxt, .meta, .tflite) or SavedModel directory)\n");

  auto shapes = test::runGdstudio({"benchmark", "--graph=" + sample(), "--input_layer=input,other",
                                   "--input_layer_shape=1,64,64,3", "--input_layer_type=float,float",
                                   "--output_layer=" + kSampleOutput});
  EXPECT_EQ(shapes.exit_code, 1);
  EXPECT_EQ(shapes.err,
            "error: --input_layer names 2 inputs but --input_layer_shape gives 1 shapes (separate shapes with ':')\n");

  auto unknown = test::runGdstudio({"benchmark", "--graph=" + sample(), "--input_layer=input",
                                    "--input_layer_shape=1,64,64,3", "--output_layer=no_such_node"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("no_such_node"), std::string::npos) << unknown.err;

  auto type = test::runGdstudio({"benchmark", "--graph=" + sample(), "--input_layer=input",
                                 "--input_layer_shape=1,64,64,3", "--input_layer_type=floaty",
                                 "--output_layer=" + kSampleOutput});
  EXPECT_EQ(type.exit_code, 1);
  EXPECT_NE(type.err.find("--input_layer_type: unknown data type 'floaty'"), std::string::npos) << type.err;

  auto format = test::runGdstudio({"benchmark", "--graph=" + sample(), "--format=xml"});
  EXPECT_EQ(format.exit_code, 1);
  EXPECT_EQ(format.err, "error: --format must be text, csv or json, got 'xml'\n");
}

// One text row of a table: the line whose last tab-separated fields are `name` (and `fused`).
std::string rowOf(const std::string& out, const std::string& tail) {
  const std::size_t at = out.find("\t" + tail + "\n");
  if (at == std::string::npos) return "";
  return out.substr(out.rfind('\n', at) + 1, at + tail.size() + 1 - out.rfind('\n', at));
}

// TensorFlow's profile as the guides read it: N nodes defined (the graph as
// loaded) against M observed (kernels that ran), Const rows at 0 KB, and in
// the default fused mode a last column naming the graph ops of each fused
// row; --optimize_graph=false runs every node on its own and has no such column.
TEST(CliBenchmark, ProfileTablesLikeTensorFlow) {
  auto run = [](const std::string& optimize) {
    return test::runGdstudio({"benchmark", "--graph=" + sample(), "--input_layer=input",
                              "--input_layer_shape=1,64,64,3", "--output_layer=" + kSampleOutput,
                              "--max_num_runs=2", "--num_threads=1", "--show_time=false", "--show_memory=false",
                              "--optimize_graph=" + optimize});
  };
  auto fused = run("true");
  ASSERT_EQ(fused.exit_code, 0) << fused.err;
  EXPECT_NE(fused.out.find("\n" + std::to_string(kSampleGraphNodes) + " nodes defined 33 nodes observed\n"),
            std::string::npos) << fused.out;
  EXPECT_NE(fused.out.find("\t[times called]\t[Name]\t[Fused ops]\n"), std::string::npos);
  // The first convolution with its batch norm folded into the bias, and its Relu6.
  const std::string conv = rowOf(fused.out, "MobilenetV1/Conv2d_0/Relu6\tConv2D+BiasAdd+Relu6");
  EXPECT_EQ(conv.rfind("\t            _FusedConv2D\t", 0), 0u) << fused.out;
  // TensorFlow gives constants 0 KB: the weights are not allocated per run.
  const std::string weights = rowOf(fused.out, "MobilenetV1/Conv2d_0/Relu6/_fused_filter");
  ASSERT_FALSE(weights.empty()) << fused.out;
  EXPECT_EQ(weights.rfind("\t                   Const\t", 0), 0u) << weights;
  EXPECT_NE(weights.find("%\t     0.000\t        1\t"), std::string::npos) << weights;
  // What per-node timing leaves out of the latency.
  EXPECT_NE(fused.out.find("\nPer-node times sum to "), std::string::npos);
  EXPECT_NE(fused.out.find(" ms each profiled run took ("), std::string::npos) << fused.out;

  auto plain = run("false");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out.find("[Fused ops]"), std::string::npos);
  EXPECT_EQ(plain.out.find("_Fused"), std::string::npos);
  EXPECT_NE(plain.out.find("\t[times called]\t[Name]\n"), std::string::npos);
  // Every node of the graph but the fed Placeholder runs as its own kernel.
  EXPECT_NE(plain.out.find("\n" + std::to_string(kSampleGraphNodes) + " nodes defined " +
                           std::to_string(kSampleGraphNodes - 1) + " nodes observed\n"),
            std::string::npos) << plain.out;
  EXPECT_EQ(rowOf(plain.out, "MobilenetV1/Conv2d_0/Conv2D").rfind("\t                  Conv2D\t", 0), 0u)
      << plain.out;
  const std::string plain_weights = rowOf(plain.out, "MobilenetV1/Conv2d_0/weights");
  EXPECT_NE(plain_weights.find("%\t     0.000\t        1\t"), std::string::npos) << plain.out;
}

// --show_summary and --show_time each print their part, as in TensorFlow.
TEST(CliBenchmark, ShowSummaryAndShowTime) {
  auto run = [](const std::string& time, const std::string& summary) {
    return test::runGdstudio({"benchmark", "--graph=" + sample(), "--input_layer=input",
                              "--input_layer_shape=1,64,64,3", "--output_layer=" + kSampleOutput,
                              "--max_num_runs=2", "--show_run_order=false", "--show_memory=false", "--show_type=false",
                              "--show_time=" + time, "--show_summary=" + summary});
  };
  auto both = run("true", "true");
  ASSERT_EQ(both.exit_code, 0) << both.err;
  EXPECT_NE(both.out.find("============================== Top by Computation Time ==============================\n"),
            std::string::npos);
  EXPECT_NE(both.out.find("\nTimings (microseconds): count=2 "), std::string::npos);
  auto summary = run("false", "true");
  EXPECT_EQ(summary.out.find("Top by Computation Time"), std::string::npos);
  EXPECT_NE(summary.out.find("\nTimings (microseconds): count=2 "), std::string::npos);
  auto time = run("true", "false");
  EXPECT_NE(time.out.find("Top by Computation Time"), std::string::npos);
  EXPECT_EQ(time.out.find("Timings (microseconds)"), std::string::npos);
}

TEST(CliBenchmark, RealModelWithNpyInput) {
  GDS_REQUIRE_SHARED();
  auto r = test::runGdstudio({"benchmark", "--graph=" + test::modelPath("mobilenet_v1_0.25_128_frozen.pb"),
                              "--input_layer=input",
                              "--input_layer_files=" + test::modelPath("reference/mobilenet_v1_0.25_128_frozen.chelsea.input.npy"),
                              "--input_layer_type=float", "--output_layer=MobilenetV1/Predictions/Reshape_1",
                              "--max_num_runs=2", "--format=json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  // TensorFlow's rule (convolutions and matrix products, 2 per multiply-add):
  // the same 27,140,608 that summarize reports statically for this graph.
  EXPECT_EQ(j["flops"].get<double>(), 27140608.0);
  EXPECT_EQ(j["latency_ms"]["runs"], 2);
}

}  // namespace
}  // namespace gds
