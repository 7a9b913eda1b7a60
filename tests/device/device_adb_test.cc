// The adb flow (adb push, adb shell, adb pull) against an adb STAND-IN that
// serves a local folder as /data/local/tmp: no phone can be attached where
// the tests run. The commands are those of TensorFlow's benchmark guide.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "device/device_benchmark.h"
#include "model/io.h"
#include "model/tflite/writer.h"
#include "tests/test_util.h"
#include "transforms/tflite/convert.h"

namespace gds::device {
namespace {
namespace fs = std::filesystem;

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string l;
  while (std::getline(ss, l)) out.push_back(l);
  return out;
}

class AdbStandIn : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = test::tempDir();
    fs::create_directories(root_ + "/data/local/tmp");
    log_ = root_ + "/adb.log";
    const std::string dir = test::sourceDir() + "/tests/device/";
    setenv("ADB_STANDIN_ROOT", root_.c_str(), 1);
    setenv("ADB_STANDIN_LOG", log_.c_str(), 1);
    setenv("ADB_STANDIN_SERIAL", "emulator-5554", 1);
    options_.uri = *parseDeviceUri("adb:emulator-5554");
    options_.transport.adb_program = dir + "adb_standin.sh";
    options_.num_threads = 4;
    options_.command_timeout_s = 30;
  }
  std::string root_, log_;
  DeviceBenchOptions options_;
};

// The guide: adb push benchmark_model /data/local/tmp; adb shell chmod +x;
// adb push the model; adb shell /data/local/tmp/benchmark_model --graph=...
// --num_threads=4. Here benchmark_model is a stand-in printing the README's
// profile, mapped onto the corpus MobileNet exported by gdstudio.
TEST_F(AdbStandIn, TfliteBenchmarkWithAStandInBenchmarkModel) {
  GDS_REQUIRE_SHARED();
  const std::string dir = test::sourceDir() + "/tests/device/";
  const std::string device_tmp = root_ + "/data/local/tmp";
  fs::copy_file(dir + "benchmark_model_standin.sh", device_tmp + "/benchmark_model");
  fs::copy_file(dir + "data/tflite_readme_op_profiling.txt", device_tmp + "/tflite_readme_op_profiling.txt");
  fs::permissions(device_tmp + "/benchmark_model", fs::perms::owner_all);

  auto loaded = model::load(test::modelPath("mobilenet_v1_0.25_128_frozen.pb"));
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  transforms::tflite::ConvertOptions co;
  co.inputs = {"input"};
  co.outputs = {"MobilenetV1/Predictions/Reshape_1"};
  auto converted = transforms::tflite::convertToTflite(loaded->graph, co);
  ASSERT_TRUE(converted.ok()) << converted.error();
  const std::string tflite = test::tempDir() + "/mobilenet.tflite";
  ASSERT_TRUE(model::tflite::saveTflite(converted->graph, tflite).ok());
  DeviceModel model;
  model.label = "float";
  model.path = tflite;
  model.operators = OperatorMap::fromDialectGraph(converted->graph);
  for (const auto& n : loaded->graph.node()) model.graph_nodes.insert(n.name());

  options_.runtime_path = "/data/local/tmp/benchmark_model";
  auto bench = DeviceBench::open(options_);
  ASSERT_TRUE(bench.ok()) << bench.error();
  const std::string folder = (*bench)->folder();
  ASSERT_EQ(folder.rfind("/data/local/tmp/gdstudio-", 0), 0u) << folder;  // the device's path
  EXPECT_TRUE(fs::is_directory(root_ + folder));
  auto run = (*bench)->run(model);
  ASSERT_TRUE(run.ok()) << run.error();
  ASSERT_EQ(run->profile.ops.size(), 31u);
  EXPECT_EQ(run->profile.ops[3].node, "MobilenetV1/MobilenetV1/Conv2d_2_depthwise/Relu6");
  EXPECT_DOUBLE_EQ(run->profile.latency.avg_us, 79760.9);
  ASSERT_TRUE((*bench)->close().ok());
  EXPECT_FALSE(fs::exists(root_ + folder));

  // The calls, with the folder name made generic.
  const std::string name = fs::path(folder).filename().string();
  std::vector<std::string> calls;
  for (auto l : lines(readFile(log_))) {
    for (std::size_t at; (at = l.find(name)) != std::string::npos;) l.replace(at, name.size(), "gdstudio-X");
    calls.push_back(l);
  }
  ASSERT_EQ(calls.size(), 7u) << readFile(log_);
  EXPECT_EQ(calls[0].rfind("adb -s emulator-5554 shell umask 077; base=/data/local/tmp; ", 0), 0u) << calls[0];
  EXPECT_EQ(calls[1], "adb -s emulator-5554 shell command -v /data/local/tmp/benchmark_model");
  EXPECT_EQ(calls[2], "adb -s emulator-5554 push " + tflite + " /data/local/tmp/gdstudio-X/");
  EXPECT_NE(calls[3].find("/data/local/tmp/benchmark_model --graph=/data/local/tmp/gdstudio-X/mobilenet.tflite "
                          "--num_threads=4 --warmup_runs=1 --num_runs=50 --max_secs=150 --enable_op_profiling=true "
                          "--op_profiling_output_mode=csv "
                          "--op_profiling_output_file=/data/local/tmp/gdstudio-X/op_profile.csv"),
            std::string::npos)
      << calls[3];
  EXPECT_EQ(calls[4], "adb -s emulator-5554 shell test -s /data/local/tmp/gdstudio-X/op_profile.csv");
  EXPECT_EQ(calls[5], "adb -s emulator-5554 shell cd /data/local/tmp/gdstudio-X && rm -f op_profile.csv mobilenet.tflite");
  EXPECT_EQ(calls[6].rfind("adb -s emulator-5554 shell cd /; if [ -f /data/local/tmp/gdstudio-X/run.pid ]", 0), 0u)
      << calls[6];
}

TEST_F(AdbStandIn, GdstudioRuntimeWithInputsPushedAndPulledBack) {
  GDS_REQUIRE_SHARED();
  options_.runtime = RuntimeKind::Gdstudio;
  options_.runtime_path = test::gdstudioPath();
  options_.num_runs = 2;
  options_.num_threads = 1;
  auto bench = DeviceBench::open(options_);
  ASSERT_TRUE(bench.ok()) << bench.error();
  DeviceModel model;
  model.label = "float";
  model.path = test::modelPath("mobilenet_v1_0.25_128_frozen.pb");
  model.input_names = {"input"};
  model.input_shapes = {"1,128,128,3"};
  model.input_types = {"float"};
  model.outputs = {"MobilenetV1/Predictions/Reshape_1"};
  model.graph_nodes = {"MobilenetV1/MobilenetV1/Conv2d_0/Relu6"};
  auto run = (*bench)->run(model);
  ASSERT_TRUE(run.ok()) << run.error();
  EXPECT_EQ(run->profile.latency.count, 2);
  int credited = 0;
  for (const auto& r : run->profile.ops) credited += r.node.empty() ? 0 : 1;
  EXPECT_EQ(credited, 1);
  ASSERT_TRUE((*bench)->close().ok());
  EXPECT_TRUE(fs::is_empty(root_ + "/data/local/tmp"));
}

TEST_F(AdbStandIn, AnUnknownSerialIsAConnectError) {
  options_.uri = *parseDeviceUri("adb:R58M123");
  options_.runtime = RuntimeKind::Gdstudio;
  auto bench = DeviceBench::open(options_);
  ASSERT_FALSE(bench.ok());
  EXPECT_EQ(bench.error(), "device adb:R58M123: connect: adb: exit status 1: error: device 'R58M123' not found");
}

}  // namespace
}  // namespace gds::device
