// The device runners against a real OpenSSH server on 127.0.0.1 (Debian's
// sshd, keys made for the test): corpus models benchmarked with gdstudio
// and with Arm NN on the "device", their rows credited to the desktop
// graph's nodes; the temporary folder gone afterwards; a connection killed
// mid-run, a timeout, an unreachable host, a refused key, a folder that
// cannot be written and a runtime printing garbage all give one error naming
// the device and the step, and leave no process and no file behind.
#include <gtest/gtest.h>

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <future>

#include "device/device_benchmark.h"
#include "model/io.h"
#include "model/tflite/writer.h"
#include "tests/device/sshd_server.h"
#include "tests/test_util.h"
#include "transforms/tflite/convert.h"

namespace gds::device {
namespace {
namespace fs = std::filesystem;

class DeviceSsh : public test::SshdTest {
 protected:
  DeviceBenchOptions options(RuntimeKind runtime) const {
    DeviceBenchOptions o;
    o.uri = *parseDeviceUri(server_->uri(remote_));
    o.transport.ssh_options = server_->clientOptions();
    o.transport.connect_timeout_s = 10;
    o.runtime = runtime;
    o.num_runs = 3;
    o.warmup_runs = 1;
    o.num_threads = 1;
    o.command_timeout_s = 30;
    o.run_timeout_s = 120;
    return o;
  }
  // What is left in the device's folder (there should be nothing).
  std::vector<std::string> leftovers() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(remote_)) names.push_back(e.path().filename().string());
    return names;
  }
  // gdstudio on the device with a run far longer than any test waits for.
  DeviceBenchOptions longRun() const {
    auto o = options(RuntimeKind::Gdstudio);
    o.runtime_path = test::gdstudioPath();
    o.num_runs = 1000000;
    o.max_time_s = 120;
    return o;
  }
  const std::string& remote_ = remote();
};

// The corpus MobileNet v1 0.25/128: the frozen graph and its float .tflite.
struct Mobilenet {
  std::string pb, tflite;
  std::unordered_set<std::string> nodes;
  OperatorMap map;
};
const Mobilenet& mobilenet() {
  static const Mobilenet m = [] {
    Mobilenet x;
    x.pb = test::modelPath("mobilenet_v1_0.25_128_frozen.pb");
    auto loaded = model::load(x.pb);
    if (!loaded.ok()) return x;
    for (const auto& n : loaded->graph.node()) x.nodes.insert(n.name());
    transforms::tflite::ConvertOptions o;
    o.inputs = {"input"};
    o.outputs = {"MobilenetV1/Predictions/Reshape_1"};
    auto converted = transforms::tflite::convertToTflite(loaded->graph, o);
    if (!converted.ok()) return x;
    x.tflite = test::tempDir() + "/mobilenet_float.tflite";
    if (!model::tflite::saveTflite(converted->graph, x.tflite).ok()) return x;
    x.map = OperatorMap::fromDialectGraph(converted->graph);
    return x;
  }();
  return m;
}

DeviceModel gdstudioModel(const Mobilenet& m) {
  DeviceModel model;
  model.label = "float";
  model.path = m.pb;
  model.graph_nodes = m.nodes;
  model.input_names = {"input"};
  model.input_shapes = {"1,128,128,3"};
  model.input_types = {"float"};
  model.outputs = {"MobilenetV1/Predictions/Reshape_1"};
  return model;
}

TEST_F(DeviceSsh, GdstudioOnTheDeviceCreditsTheGraphsNodes) {
  GDS_REQUIRE_SHARED();
  const auto& m = mobilenet();
  auto o = options(RuntimeKind::Gdstudio);
  o.runtime_path = test::gdstudioPath();
  auto bench = DeviceBench::open(o);
  ASSERT_TRUE(bench.ok()) << bench.error();
  const std::string folder = (*bench)->folder();
  EXPECT_EQ(folder.rfind(remote_ + "/gdstudio-", 0), 0u) << folder;
  EXPECT_TRUE(fs::is_directory(folder));
  auto run = (*bench)->run(gdstudioModel(m));
  ASSERT_TRUE(run.ok()) << run.error();
  EXPECT_EQ(run->profile.latency.count, 3);
  EXPECT_GT(run->profile.latency.avg_us, 0);
  int credited = 0;
  for (const auto& row : run->profile.ops) {
    if (row.node.empty()) continue;
    ++credited;
    EXPECT_TRUE(m.nodes.count(row.node)) << row.node;
  }
  // 27 convolution layers, the pool, the logits and the softmax at least.
  EXPECT_GE(credited, 30);
  bool conv0 = false;
  for (const auto& row : run->profile.ops) conv0 = conv0 || row.node == "MobilenetV1/MobilenetV1/Conv2d_0/Relu6";
  EXPECT_TRUE(conv0);
  // The model's copy went after its run; the folder goes with the bench.
  EXPECT_FALSE(fs::exists(folder + "/mobilenet_v1_0.25_128_frozen.pb"));
  ASSERT_TRUE((*bench)->close().ok());
  EXPECT_FALSE(fs::exists(folder));
  EXPECT_TRUE(leftovers().empty());
}

TEST_F(DeviceSsh, ArmnnOnTheDeviceCreditsTheGraphsNodes) {
  GDS_REQUIRE_SHARED();
  if (!runProcess({"/usr/bin/python3", "-c", "import pyarmnn"}).succeeded())
    GTEST_SKIP() << "pyarmnn is not installed (python3-pyarmnn, libarmnn-cpuref-backend22)";
  const auto& m = mobilenet();
  ASSERT_FALSE(m.tflite.empty());
  auto o = options(RuntimeKind::Armnn);
  o.armnn_backend = "CpuRef";
  o.runtime_path = "/usr/bin/python3";  // Debian's, which python3-pyarmnn is for
  auto bench = DeviceBench::open(o);
  ASSERT_TRUE(bench.ok()) << bench.error();
  DeviceModel model;
  model.label = "float .tflite";
  model.path = m.tflite;
  model.operators = m.map;
  model.graph_nodes = m.nodes;
  auto run = (*bench)->run(model);
  ASSERT_TRUE(run.ok()) << run.error();
  EXPECT_EQ(run->profile.latency.count, 3);
  ASSERT_FALSE(run->profile.ops.empty());
  EXPECT_EQ(run->profile.ops[0].name, "Conv2D:0:0");
  EXPECT_EQ(run->profile.ops[0].op_index, 0);
  EXPECT_EQ(run->profile.ops[0].node, "MobilenetV1/MobilenetV1/Conv2d_0/Relu6");
  std::unordered_set<std::string> credited;
  for (const auto& row : run->profile.ops)
    if (!row.node.empty()) credited.insert(row.node);
  // Every operator, activations folded in; Arm NN merges the Squeeze into the
  // Reshape after it ("merged-Squeeze:0:29-with-Reshape:0:30"), credited to the Reshape.
  EXPECT_EQ(credited.size() + 1, m.map.operators().size());
  bool merged = false;
  for (const auto& row : run->profile.ops) merged = merged || row.name.rfind("merged-Squeeze:0:", 0) == 0;
  EXPECT_TRUE(merged);
  const std::string folder = (*bench)->folder();
  ASSERT_TRUE((*bench)->close().ok());
  EXPECT_FALSE(fs::exists(folder));
  EXPECT_TRUE(leftovers().empty());
}

TEST_F(DeviceSsh, AnArmnnBackendTheDeviceLacksIsAnErrorNamingIt) {
  GDS_REQUIRE_SHARED();
  if (!runProcess({"/usr/bin/python3", "-c", "import pyarmnn"}).succeeded()) GTEST_SKIP() << "pyarmnn is not installed";
  auto o = options(RuntimeKind::Armnn);
  o.armnn_backend = "GpuAcc";
  o.runtime_path = "/usr/bin/python3";
  auto bench = DeviceBench::open(o);
  ASSERT_TRUE(bench.ok()) << bench.error();
  DeviceModel model;
  model.label = "float .tflite";
  model.path = mobilenet().tflite;
  auto run = (*bench)->run(model);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error(), "device " + o.uri.text() + ": run: armnn runtime (python3) failed on float .tflite, exit "
                         "status 1: error: the backend GpuAcc is not available on this device (it has CpuRef)");
}

// A long run whose connection is killed: one error, and the watchdog on the
// device stops the runtime and deletes the folder.
TEST_F(DeviceSsh, AKilledConnectionMidRunLeavesNothingBehind) {
  GDS_REQUIRE_SHARED();
  auto o = longRun();
  auto bench = DeviceBench::open(o);
  ASSERT_TRUE(bench.ok()) << bench.error();
  const std::string folder = (*bench)->folder();
  auto pending = std::async(std::launch::async, [&] { return (*bench)->run(gdstudioModel(mobilenet())); });
  ASSERT_TRUE(test::waitFor(60, [&] { return fs::exists(folder + "/run.pid"); })) << "the run did not start";
  ASSERT_TRUE(test::waitFor(10, [&] { return !test::processesMentioning(folder + "/mobilenet").empty(); }));
  const auto sshd_sessions = server_->sshdSessionProcesses();
  ASSERT_FALSE(sshd_sessions.empty());
  for (pid_t p : sshd_sessions) ::kill(p, SIGKILL);
  auto run = pending.get();
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().rfind("device " + o.uri.text() + ": run: the connection was lost before the runtime finished "
                              "(ssh: exit status 255",
                              0),
            0u)
      << run.error();
  EXPECT_TRUE(test::waitFor(10, [&] { return test::processesMentioning(folder).empty(); }))
      << "a process still mentions " << folder;
  (void)(*bench)->close();
  EXPECT_TRUE(test::waitFor(10, [&] { return !fs::exists(folder); }));
  // sshd reaps the killed sessions' children on its own schedule; what matters is that none stays.
  EXPECT_TRUE(test::waitFor(10, [&] { return server_->sessionProcesses().empty(); }))
      << test::describeProcesses(server_->sessionProcesses());
  EXPECT_TRUE(leftovers().empty());
}

TEST_F(DeviceSsh, ATimeoutStopsTheRemoteRun) {
  GDS_REQUIRE_SHARED();
  auto o = longRun();
  o.run_timeout_s = 3;
  auto bench = DeviceBench::open(o);
  ASSERT_TRUE(bench.ok()) << bench.error();
  const std::string folder = (*bench)->folder();
  auto run = (*bench)->run(gdstudioModel(mobilenet()));
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error(), "device " + o.uri.text() + ": run: timed out after 3 s; the run was stopped");
  EXPECT_TRUE(test::waitFor(10, [&] { return test::processesMentioning(folder).empty(); }));
  EXPECT_TRUE((*bench)->close().ok());
  EXPECT_FALSE(fs::exists(folder));
  EXPECT_TRUE(leftovers().empty());
}

TEST_F(DeviceSsh, AnUnreachableHostIsAConnectError) {
  auto o = options(RuntimeKind::Gdstudio);
  o.uri.port = 1;  // nothing listens there
  auto bench = DeviceBench::open(o);
  ASSERT_FALSE(bench.ok());
  EXPECT_EQ(bench.error(), "device " + o.uri.text() + ": connect: ssh: exit status 255: ssh: connect to host "
                           "127.0.0.1 port 1: Connection refused");
}

TEST_F(DeviceSsh, ARefusedKeyIsAConnectError) {
  auto o = options(RuntimeKind::Gdstudio);
  o.transport.ssh_options = server_->refusedKeyOptions();
  auto bench = DeviceBench::open(o);
  ASSERT_FALSE(bench.ok());
  EXPECT_EQ(bench.error().rfind("device " + o.uri.text() + ": connect: ssh: exit status 255: ", 0), 0u) << bench.error();
  EXPECT_NE(bench.error().find("Permission denied (publickey)"), std::string::npos) << bench.error();
}

TEST_F(DeviceSsh, AFolderWithoutWritePermissionIsACopyError) {
  auto o = options(RuntimeKind::Gdstudio);
  // Not writable even by root.
  o.uri.folder = "/proc/1";
  auto bench = DeviceBench::open(o);
  ASSERT_FALSE(bench.ok());
  EXPECT_EQ(bench.error().rfind("device " + o.uri.text() + ": copy: cannot make a working folder in /proc/1: mkdir: ", 0),
            0u)
      << bench.error();
}

TEST_F(DeviceSsh, AMissingRuntimeNamesTheRuntime) {
  auto o = options(RuntimeKind::Tflite);
  o.runtime_path = "/nonexistent/benchmark_model";
  auto bench = DeviceBench::open(o);
  ASSERT_FALSE(bench.ok());
  EXPECT_EQ(bench.error(), "device " + o.uri.text() + ": run: the tflite runtime '/nonexistent/benchmark_model' does "
                           "not exist or is not executable; give its path on the device with --device_runtime_path");
  EXPECT_TRUE(leftovers().empty());
}

TEST_F(DeviceSsh, ARuntimePrintingGarbageIsAnError) {
  GDS_REQUIRE_SHARED();
  const std::string garbage = test::tempDir() + "/garbage.sh";
  std::ofstream(garbage) << "#!/bin/sh\necho 'Segmentation fault?'; printf '\\001\\002\\003 not a benchmark'\n";
  fs::permissions(garbage, fs::perms::owner_all);
  auto o = options(RuntimeKind::Tflite);
  o.runtime_path = garbage;
  auto bench = DeviceBench::open(o);
  ASSERT_TRUE(bench.ok()) << bench.error();
  DeviceModel model;
  model.label = "float .tflite";
  model.path = mobilenet().tflite;
  auto run = (*bench)->run(model);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error(), "device " + o.uri.text() + ": run: tflite runtime (garbage.sh) on float .tflite: "
                         "benchmark_model printed no latency (no 'count=' line after 'Running benchmark' and no "
                         "'Inference timings in us' line)");
  EXPECT_TRUE((*bench)->close().ok());
  EXPECT_TRUE(leftovers().empty());
}

}  // namespace
}  // namespace gds::device
