// The runtimes' outputs: benchmark_model's tables (TensorFlow's README) and
// CSV, the Arm NN runner's JSON, gdstudio's --format=json; and what garbage
// gives.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "device/runtime_output.h"
#include "device/tflite_output.h"
#include "tests/device/sshd_server.h"
#include "tests/test_util.h"

namespace gds::device {
namespace {

std::string readData(const std::string& name) { return test::deviceTestData(name); }

// tensorflow/lite/tools/benchmark/README.md's profile of MobileNet v1 quant.
TEST(BenchmarkModelOutput, ReadsTheReadmeTables) {
  const std::string text = readData("tflite_readme_op_profiling.txt");
  ASSERT_FALSE(text.empty());
  auto p = parseBenchmarkModelOutput(text, "");
  ASSERT_TRUE(p.ok()) << p.error();
  ASSERT_EQ(p->ops.size(), 31u);  // the Run Order table, not Top by Computation Time
  EXPECT_EQ(p->ops[0].type, "CONV_2D");
  EXPECT_EQ(p->ops[0].name, "[MobilenetV1/MobilenetV1/Conv2d_0/Relu6]");
  EXPECT_EQ(p->ops[0].op_index, -1);  // this build names outputs only
  EXPECT_DOUBLE_EQ(p->ops[0].first_ms, 4.269);
  EXPECT_DOUBLE_EQ(p->ops[0].avg_ms, 4.269);
  EXPECT_EQ(p->ops[0].times_called, 1);  // printed as 0 by that build
  EXPECT_EQ(p->ops[30].type, "SOFTMAX");
  EXPECT_DOUBLE_EQ(p->ops[30].avg_ms, 0.029);
  EXPECT_EQ(p->ops[30].name, "[MobilenetV1/Predictions/Softmax]");
  // No count= line after "Running benchmark": the average line gives it.
  EXPECT_DOUBLE_EQ(p->latency.avg_us, 79760.9);
  EXPECT_DOUBLE_EQ(p->init_ms, 38.467);
  EXPECT_DOUBLE_EQ(p->warmup_ms, 83.235);
}

TEST(BenchmarkModelOutput, ReadsTheCsvAndTheLatencyLines) {
  const std::string log =
      "INFO: STARTING!\n"
      "INFO: Running benchmark for at least 1 iterations and at least 0.5 seconds but terminate if exceeding 150 seconds.\n"
      "INFO: count=6 first=98000 curr=83000 min=81000 max=98000 avg=86000 std=5000\n"
      "\n"
      "INFO: Running benchmark for at least 50 iterations and at least 1 seconds but terminate if exceeding 150 seconds.\n"
      "INFO: count=50 first=79449 curr=81350 min=77385 max=88213 avg=79732 std=1929\n"
      "\n"
      "INFO: Inference timings in us: Init: 38467, First inference: 98000, Warmup (avg): 86000, Inference (avg): 79732\n";
  auto p = parseBenchmarkModelOutput(log, readData("tflite_op_profile_csv.txt"));
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p->latency.count, 50);
  EXPECT_DOUBLE_EQ(p->latency.avg_us, 79732);
  EXPECT_DOUBLE_EQ(p->latency.min_us, 77385);
  EXPECT_DOUBLE_EQ(p->latency.std_us, 1929);
  EXPECT_EQ(p->latency.toString(), "count=50 first=79449 curr=81350 min=77385 max=88213 avg=79732 std=1929");
  EXPECT_DOUBLE_EQ(p->warmup_ms, 86.0);
  EXPECT_DOUBLE_EQ(p->init_ms, 38.467);
  ASSERT_EQ(p->ops.size(), 6u);
  EXPECT_EQ(p->ops[0].name, "[MobilenetV1/MobilenetV1/Conv2d_0/Relu6]:0");
  EXPECT_EQ(p->ops[0].op_index, 0);
  EXPECT_DOUBLE_EQ(p->ops[1].avg_ms, 2.15);
  EXPECT_EQ(p->ops[2].op_index, 2);
  // The delegate's kernel and an operator inside it, whose type holds ", ".
  EXPECT_EQ(p->ops[4].type, "TfLiteXNNPackDelegate");
  EXPECT_EQ(p->ops[4].name, "[]:31");
  EXPECT_EQ(p->ops[5].type, "Convolution (NHWC, F32) IGEMM");
  EXPECT_EQ(p->ops[5].name, "Delegate/Convolution (NHWC, F32) IGEMM:0");
  EXPECT_EQ(p->ops[5].op_index, -1);
  EXPECT_DOUBLE_EQ(p->ops[5].avg_ms, 1.1);
}

TEST(BenchmarkModelOutput, GarbageIsAnErrorSayingWhatIsMissing) {
  auto p = parseBenchmarkModelOutput("Segmentation fault\n\x01\x02 random bytes", "");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error(), "benchmark_model printed no latency (no 'count=' line after 'Running benchmark' and no "
                       "'Inference timings in us' line)");
}

TEST(ArmnnOutput, ReadsTheRunnersDocument) {
  const std::string out =
      "Your ArmNN library instance does not support Onnx models parser functionality.\n"
      R"({"runtime": "armnn", "backend": "CpuRef", "init_us": 5533.0, "warmup_us": [204.0], "runs_us": [16.0, 8.0, 7.0],)"
      R"( "layers": [{"workload": "RefFullyConnectedWorkload", "times_us": [1.5, 0.5, 0.5], "name": "FullyConnected:0:0",)"
      R"( "type": "FullyConnected", "backend": "CpuRef"}, {"workload": "RefActivationWorkload", "times_us": [0.5, 0.25, 0.25],)"
      R"( "name": "FullyConnected:0:0:RELU", "type": "Activation", "backend": "CpuRef"}, {"workload": "RefFooWorkload",)"
      R"( "times_us": [3.0], "name": "", "type": "Foo", "backend": ""}]})"
      "\n";
  auto p = parseArmnnOutput(out);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p->latency.count, 3);
  EXPECT_DOUBLE_EQ(p->latency.median_us, 8.0);
  EXPECT_DOUBLE_EQ(p->latency.min_us, 7.0);
  EXPECT_DOUBLE_EQ(p->init_ms, 5.533);
  EXPECT_DOUBLE_EQ(p->warmup_ms, 0.204);
  ASSERT_EQ(p->ops.size(), 3u);
  EXPECT_EQ(p->ops[0].op_index, 0);
  EXPECT_DOUBLE_EQ(p->ops[0].avg_ms, 2.5 / 3 / 1000.0);
  EXPECT_DOUBLE_EQ(p->ops[0].first_ms, 0.0015);
  EXPECT_EQ(p->ops[1].op_index, 0);  // the fused activation goes to its operator
  EXPECT_EQ(p->ops[2].name, "RefFooWorkload");
  EXPECT_EQ(p->ops[2].op_index, -1);
  EXPECT_EQ(p->notes, std::vector<std::string>{"Arm NN backend CpuRef"});
}

TEST(ArmnnOutput, GarbageIsAnErrorQuotingIt) {
  EXPECT_EQ(parseArmnnOutput("hello\nworld").error(), "armnn_benchmark.py printed no JSON result: 'hello world'");
  EXPECT_EQ(parseArmnnOutput("").error(), "armnn_benchmark.py printed no JSON result (nothing)");
  EXPECT_EQ(parseArmnnOutput("{\"runtime\": \"tflite\"}").error(),
            "armnn_benchmark.py printed a JSON document without runtime 'armnn' and runs_us");
}

TEST(GdstudioOutput, ReadsBenchmarksJson) {
  const std::string out = R"({
  "graph": "/tmp/gdstudio-1/model.pb",
  "latency_ms": {"median": 1.5, "p90": 2.0, "min": 1.25, "max": 3.0, "mean": 1.75, "std": 0.5, "runs": 20},
  "warmup_ms": 4.0, "init_seconds": 0.25,
  "nodes": [{"name": "conv/Relu6", "type": "_FusedConv2D", "run_order": 0, "start_ms": 0, "first_ms": 1.0,
             "avg_ms": 0.75, "mem_bytes": 0, "times_called": 1, "fused_ops": "Conv2D+BiasAdd+Relu6"}]
})";
  auto p = parseGdstudioOutput(out);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p->latency.count, 20);
  EXPECT_DOUBLE_EQ(p->latency.median_us, 1500);
  EXPECT_DOUBLE_EQ(p->latency.avg_us, 1750);
  EXPECT_DOUBLE_EQ(p->init_ms, 250);
  ASSERT_EQ(p->ops.size(), 1u);
  EXPECT_EQ(p->ops[0].name, "conv/Relu6");
  EXPECT_DOUBLE_EQ(p->ops[0].avg_ms, 0.75);
  EXPECT_EQ(parseGdstudioOutput("{\"nodes\": []}").error(), "gdstudio benchmark printed a JSON document without latency_ms");
}

}  // namespace
}  // namespace gds::device
