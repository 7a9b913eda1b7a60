// `gdstudio benchmark --variants= --device=` end to end against the local
// sshd: the variants in turns on the desktop and on the "device" (gdstudio,
// then Arm NN on CpuRef), the device's tables with the graph's nodes, the
// side-by-side summary, JSON, and the errors a user can cause; `compare
// --device` against the desktop's outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "device/process.h"
#include "model/npy.h"
#include "tests/device/sshd_server.h"
#include "tests/test_util.h"

namespace gds {
namespace {
namespace fs = std::filesystem;

const char* const kOutput = "MobilenetV1/Predictions/Reshape_1";

class CliDevice : public test::SshdTest {
 protected:
  void SetUp() override {
    test::SshdTest::SetUp();
    if (IsSkipped()) return;
    GDS_REQUIRE_SHARED();
  }
  std::vector<std::string> args(const std::string& variants, const std::string& runtime) const {
    return {"benchmark", "--graph=" + test::modelPath("mobilenet_v1_0.25_128_frozen.pb"), "--input_layer=input",
            "--input_layer_shape=1,128,128,3", "--output_layer=" + std::string(kOutput), "--max_num_runs=3",
            "--num_threads=1", "--variants=" + variants, "--device=" + server_->uri(remote_),
            "--device_runtime=" + runtime, "--device_ssh_options=-F " + server_->dir() + "/ssh_config"};
  }
  const std::string& remote_ = remote();
};

TEST_F(CliDevice, ThreeVariantsOnGdstudioAndTheDesktop) {
  auto a = args("float,tflite_int8,eightbit", "gdstudio");
  a.push_back("--device_runtime_path=" + test::gdstudioPath());
  auto r = test::runGdstudio(a);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* label : {"Variant: float", "Variant: TFLite int8", "Variant: 8-bit (TF recipe)"})
    EXPECT_NE(r.out.find(label), std::string::npos) << label;
  EXPECT_NE(r.out.find("Device: " + server_->uri(remote_)), std::string::npos);
  EXPECT_NE(r.out.find("\t[Name]\t[Node]"), std::string::npos);
  EXPECT_NE(r.out.find("\tMobilenetV1/MobilenetV1/Conv2d_0/Relu6\tMobilenetV1/MobilenetV1/Conv2d_0/Relu6\n"),
            std::string::npos);
  EXPECT_NE(r.out.find("variant\tdesktop_ms\tdevice_ms\tdevice/desktop\n"), std::string::npos);
  EXPECT_NE(r.out.find("Fastest on " + server_->uri(remote_) + ": "), std::string::npos);
  EXPECT_TRUE(fs::is_empty(remote_));
}

TEST_F(CliDevice, ArmnnRunsTheTfliteExportsAndSkipsTheRecipe) {
  if (!device::runProcess({"/usr/bin/python3", "-c", "import pyarmnn"}).succeeded())
    GTEST_SKIP() << "pyarmnn is not installed";
  auto a = args("float,tflite_int8,eightbit", "armnn");
  a.insert(a.end(), {"--device_backend=CpuRef", "--device_runtime_path=/usr/bin/python3", "--format=json"});
  auto r = test::runGdstudio(a);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["variants"].size(), 3u);
  EXPECT_EQ(j["variants"][0]["variant"], "float");
  EXPECT_EQ(j["variants"][0]["device"]["ops"][0]["name"], "Conv2D:0:0");
  EXPECT_EQ(j["variants"][0]["device"]["ops"][0]["node"], "MobilenetV1/MobilenetV1/Conv2d_0/Relu6");
  // The int8 model quantizes its float input first (operator 0).
  EXPECT_EQ(j["variants"][1]["device"]["ops"][0]["name"], "Conv2D:0:1");
  EXPECT_EQ(j["variants"][1]["device"]["ops"][0]["node"], "MobilenetV1/MobilenetV1/Conv2d_0/Relu6");
  EXPECT_GT(j["variants"][1]["desktop"]["latency_ms"]["runs"], 0);
  EXPECT_EQ(j["variants"][2]["device_error"],
            "TensorFlow's 8-bit recipe makes Quantized* ops that the armnn runtime does not run (use "
            "--device_runtime=gdstudio)");
  EXPECT_TRUE(j.contains("fastest_on_device"));
  EXPECT_TRUE(fs::is_empty(remote_));
}

TEST_F(CliDevice, ErrorsNameTheDeviceAndTheStep) {
  auto a = args("float", "gdstudio");
  a[8] = "--device=ssh://" + server_->user() + "@127.0.0.1:1";
  auto r = test::runGdstudio(a);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: device ssh://" + server_->user() + "@127.0.0.1:1: connect: ssh: exit status 255: ssh: "
                   "connect to host 127.0.0.1 port 1: Connection refused\n");
  a = args("float", "tensorrt");
  r = test::runGdstudio(a);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: --device_runtime must be tflite (TensorFlow Lite's benchmark_model), armnn (Arm NN through "
                   "pyarmnn) or gdstudio, got 'tensorrt'\n");
  a = args("float,int4", "gdstudio");
  r = test::runGdstudio(a);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: --variants: unknown variant 'int4' (expected float, tflite_int8 or eightbit, separated by "
                   "commas)\n");
}

// `compare --device`: the model on the desktop and on the device, on the
// same input, output by output.
class CliDeviceCompare : public CliDevice {
 protected:
  std::vector<std::string> compareArgs(const std::string& graph, const std::string& input,
                                       const std::string& runtime) const {
    return {"compare", "--graph=" + graph, "--input=" + input, "--device=" + server_->uri(remote_),
            "--device_runtime=" + runtime, "--device_ssh_options=-F " + server_->dir() + "/ssh_config"};
  }
};

// gdstudio on the device runs the same graph with the same kernels: every
// element of MobileNet's output equal on a photo.
TEST_F(CliDeviceCompare, GdstudioOnTheDeviceComputesWhatTheDesktopShows) {
  auto a = compareArgs(test::modelPath("mobilenet_v1_0.25_128_frozen.pb"), test::dataPath("images/chelsea.png"),
                       "gdstudio");
  a.push_back("--device_runtime_path=" + test::gdstudioPath());
  auto r = test::runGdstudio(a);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("desktop (gdstudio, tflite-xnnpack) vs " + server_->uri(remote_) + " with gdstudio (" +
                       test::gdstudioPath() + "), input chelsea.png\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(std::string(kOutput) + "\t-\t0\t0 of 1001\t0 of 1\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the device computes exactly what the desktop shows"), std::string::npos);
  EXPECT_TRUE(fs::is_empty(remote_));
}

// Arm NN on the device (CpuRef) against the desktop's Arm NN arithmetic on a
// TensorFlow-made int8 .tflite: 0 steps at its output.
TEST_F(CliDeviceCompare, ArmnnOnTheDeviceAgreesWithTheArmnnArithmetic) {
  if (!device::runProcess({"/usr/bin/python3", "-c", "import pyarmnn"}).succeeded())
    GTEST_SKIP() << "pyarmnn is not installed";
  auto a = compareArgs(test::modelPath("tflite/openmv_mobilenet_int8.tflite"),
                       test::modelPath("tflite/openmv_mobilenet_int8.input.npy"), "armnn");
  a.insert(a.end(), {"--arithmetic=armnn", "--device_backend=CpuRef", "--device_runtime_path=/usr/bin/python3",
                     "--format=json"});
  auto r = test::runGdstudio(a);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["desktop"], "desktop (gdstudio, armnn)");
  EXPECT_EQ(j["device"], server_->uri(remote_));
  ASSERT_EQ(j["outputs"].size(), 1u);
  EXPECT_EQ(j["outputs"][0]["max_steps"], 0.0);
  EXPECT_EQ(j["outputs"][0]["differing"], 0);
  EXPECT_GT(j["outputs"][0]["total"], 1);
  EXPECT_EQ(j["equal"], true);
  EXPECT_NE(j["command"].get<std::string>().find("--save_outputs"), std::string::npos);
  EXPECT_TRUE(fs::is_empty(remote_));
}

// Journeys that end on the device: the model a user has, converted to int8
// with no name beyond its own, then compared on the device under Arm NN
// with the desktop's Arm NN arithmetic: the keyword LSTM (a TensorFlow 1.x
// dynamic_rnn, unrolled) calibrated on the speech clips, and a TF2 Keras
// SavedModel by its signature's input name.
TEST_F(CliDeviceCompare, ConvertedModelsOnTheDeviceAgreeWithTheArmnnArithmetic) {
  if (!device::runProcess({"/usr/bin/python3", "-c", "import pyarmnn"}).succeeded())
    GTEST_SKIP() << "pyarmnn is not installed";
  const std::string dir = test::tempDir();
  model::HostTensor mfcc = model::HostTensor::zeros(tensorflow::DT_FLOAT, {1, 25, 10});
  for (int i = 0; i < 250; ++i) mfcc.as<float>()[i] = 15.0f * std::sin(0.21f * static_cast<float>(i)) - 5.0f;
  ASSERT_TRUE(model::writeNpy(dir + "/mfcc.npy", mfcc).ok());
  model::HostTensor prices = model::HostTensor::zeros(tensorflow::DT_FLOAT, {1, 5, 1});
  for (int i = 0; i < 5; ++i) prices.as<float>()[i] = 0.2f * static_cast<float>(i) - 0.3f;
  ASSERT_TRUE(model::writeNpy(dir + "/prices.npy", prices).ok());
  struct Journey {
    std::vector<std::string> convert;
    std::string input, output;
  };
  const Journey journeys[] = {
      {{"--graph_def_file=" + test::modelPath("kws_lstm_s.pb"), "--input_arrays=Mfcc", "--input_shapes=1,25,10",
        "--output_arrays=labels_softmax", "--calibration_data=" + test::dataPath("speech")},
       "Mfcc=" + dir + "/mfcc.npy", "labels_softmax"},
      {{"--saved_model_dir=" + test::modelPath("tf2/nordpool_conv1d"), "--calibration_data=random:16"},
       "input_1=" + dir + "/prices.npy", "dense"},
  };
  for (const Journey& j : journeys) {
    SCOPED_TRACE(j.output);
    const std::string tflite = dir + "/" + j.output + "_int8.tflite";
    std::vector<std::string> convert = {"tflite_convert", "--output_file=" + tflite, "--quantize=int8"};
    convert.insert(convert.end(), j.convert.begin(), j.convert.end());
    auto c = test::runGdstudio(convert);
    ASSERT_EQ(c.exit_code, 0) << c.err;
    auto a = compareArgs(tflite, j.input, "armnn");
    a.insert(a.end(), {"--arithmetic=armnn", "--device_backend=CpuRef", "--device_runtime_path=/usr/bin/python3",
                       "--format=json"});
    auto r = test::runGdstudio(a);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto doc = nlohmann::json::parse(r.out);
    ASSERT_EQ(doc["outputs"].size(), 1u);
    EXPECT_EQ(doc["outputs"][0]["name"], j.output);
    EXPECT_EQ(doc["outputs"][0]["max_steps"], 0.0);
    EXPECT_EQ(doc["outputs"][0]["differing"], 0);
    EXPECT_EQ(doc["equal"], true);
    EXPECT_TRUE(fs::is_empty(remote_));
  }
}

TEST_F(CliDeviceCompare, ErrorsSayWhichRuntimeCanAndWhatToGive) {
  const std::string pb = test::modelPath("mobilenet_v1_0.25_128_frozen.pb");
  const std::string photo = test::dataPath("images/chelsea.png");
  auto r = test::runGdstudio(compareArgs(pb, photo, "tflite"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: --device_runtime=tflite: TensorFlow Lite's benchmark_model writes no output tensors; "
                   "compare on the device with --device_runtime=armnn or gdstudio\n");
  r = test::runGdstudio(compareArgs(pb, photo, "armnn"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: --device_runtime=armnn runs a .tflite; " + pb +
                       " is a GraphDef (convert it with gdstudio tflite_convert, or compare with "
                       "--device_runtime=gdstudio)\n");
  auto a = compareArgs(pb, photo, "gdstudio");
  a.push_back("--graph2=" + pb);
  r = test::runGdstudio(a);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: --device compares --graph on the desktop with the device's run of it; leave out --graph2 "
                   "and --arithmetic2\n");
  EXPECT_TRUE(fs::is_empty(remote_));
}

}  // namespace
}  // namespace gds
