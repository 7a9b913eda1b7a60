// gdstudio tflite_convert with TensorFlow's own tflite_convert flags
// (TF 1.x and 2.x command lines), and calibration data checked against the
// model's input: a colour photo for a one-channel input, a .npy of another
// shape, random calibration with its warning.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/npy.h"
#include "model/tensor.h"
#include "tests/test_util.h"

namespace gds::test {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const char* kMobileNet = "mobilenet_v1_0.25_128_frozen.pb";
const char* kMobileNetOps =
    "Operators: 33 (1 AVERAGE_POOL_2D, 15 CONV_2D, 13 DEPTHWISE_CONV_2D, 2 RESHAPE, 1 SOFTMAX, 1 SQUEEZE)\n";

TEST(CliTfliteTfFlags, TensorFlowFloatCommandLineWritesTheSameFile) {
  GDS_REQUIRE_SHARED();
  const std::string dir = tempDir();
  const std::string pb = modelPath(kMobileNet);
  CommandResult own = runGdstudio({"tflite_convert", "--graph_def_file=" + pb, "--output_file=" + dir + "/own.tflite"});
  ASSERT_EQ(own.exit_code, 0) << own.err;
  // TensorFlow 1.x's documented command line; --input_shape is argparse's
  // abbreviation of --input_shapes.
  CommandResult tf = runGdstudio({"tflite_convert", "--graph_def_file=" + pb, "--output_file=" + dir + "/tf.tflite",
                                  "--output_format=TFLITE", "--inference_type=FLOAT", "--input_arrays=input",
                                  "--output_arrays=MobilenetV1/Predictions/Reshape_1", "--input_shape=1,128,128,3",
                                  "--enable_v1_converter", "--experimental_new_converter=true"});
  ASSERT_EQ(tf.exit_code, 0) << tf.err;
  EXPECT_TRUE(contains(tf.out, kMobileNetOps)) << tf.out;
  EXPECT_EQ(readAll(dir + "/tf.tflite"), readAll(dir + "/own.tflite"));
}

TEST(CliTfliteTfFlags, DummyQuantizationWithMeanValuesAndDefaultRanges) {
  GDS_REQUIRE_SHARED();
  const std::string dir = tempDir();
  CommandResult q = runGdstudio({"tflite_convert", "--graph_def_file=" + modelPath(kMobileNet),
                                 "--output_file=" + dir + "/q.tflite", "--inference_type=INT8", "--mean_values=0",
                                 "--std_dev_values=127", "--default_ranges_min=0", "--default_ranges_max=6"});
  ASSERT_EQ(q.exit_code, 0) << q.err;
  EXPECT_TRUE(contains(q.out, kMobileNetOps)) << q.out;  // int8 in and out: no QUANTIZE/DEQUANTIZE
  EXPECT_TRUE(contains(q.out, "Quantized to int8 with 0 FakeQuant ranges, the inputs' from "
                              "--mean_values/--std_dev_values, [0, 6] (--default_ranges_min/max) for the rest\n"))
      << q.out;
  CommandResult s = runGdstudio({"summarize", "--in_graph=" + dir + "/q.tflite"});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_TRUE(contains(s.out, "(name=input, type=int8(6), shape=[1,128,128,3])")) << s.out;

  CommandResult none = runGdstudio({"tflite_convert", "--graph_def_file=" + modelPath(kMobileNet),
                                    "--output_file=" + dir + "/n.tflite", "--inference_type=INT8"});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_TRUE(contains(none.err, "is lacking min/max data, which quantization needs: give the graph FakeQuant nodes "
                                 "(quantization-aware training), the inputs --mean_values and --std_dev_values, or "
                                 "pass --default_ranges_min= and --default_ranges_max= for easy experimentation"))
      << none.err;
  EXPECT_FALSE(fs::exists(dir + "/n.tflite"));
}

TEST(CliTfliteTfFlags, FlagsThatCannotBeHonouredNameTheFlagThatDoesTheJob) {
  GDS_REQUIRE_SHARED();
  const std::string dir = tempDir();
  const std::vector<std::string> base = {"tflite_convert", "--graph_def_file=" + modelPath(kMobileNet),
                                         "--output_file=" + dir + "/x.tflite"};
  auto run = [&](const std::string& flag) {
    std::vector<std::string> args = base;
    args.push_back(flag);
    return runGdstudio(args);
  };
  CommandResult u8 = run("--inference_type=QUANTIZED_UINT8");
  EXPECT_EQ(u8.exit_code, 1);
  EXPECT_EQ(u8.err, "error: --inference_type=QUANTIZED_UINT8: TensorFlow Lite's legacy uint8 models are not written "
                    "by gdstudio; --inference_type=INT8 (with the same --mean_values minus 128) writes the int8 model "
                    "TensorFlow's converter writes today, and --quantize=int8 --calibration_data=DIR calibrates it\n");
  CommandResult format = run("--output_format=TFLITE_FLATBUFFER");
  EXPECT_EQ(format.exit_code, 1);
  EXPECT_EQ(format.err,
            "error: --output_format: invalid choice: 'TFLITE_FLATBUFFER' (choose from 'TFLITE', 'GRAPHVIZ_DOT')\n");
  CommandResult renamed = run("--input_file=m.pb");
  EXPECT_EQ(renamed.exit_code, 1);
  EXPECT_TRUE(contains(renamed.err, "unknown flag --input_file for 'tflite_convert': use --graph_def_file instead of "
                                    "--input_file"))
      << renamed.err;
  CommandResult ambiguous = run("--input=x");
  EXPECT_EQ(ambiguous.exit_code, 1);
  EXPECT_TRUE(contains(ambiguous.err, "ambiguous option: --input could match --input_arrays, --input_shapes, "
                                      "--input_mean, --input_std"))
      << ambiguous.err;
  EXPECT_FALSE(fs::exists(dir + "/x.tflite"));
}

TEST(CliTfliteTfFlags, GraphvizOutputAndConversionDumps) {
  GDS_REQUIRE_SHARED();
  const std::string dir = tempDir();
  CommandResult d = runGdstudio({"tflite_convert", "--graph_def_file=" + modelPath(kMobileNet),
                                 "--output_file=" + dir + "/m.dot", "--output_format=GRAPHVIZ_DOT",
                                 "--dump_graphviz_dir=" + dir + "/dumps", "--conversion_summary_dir=" + dir + "/sum"});
  ASSERT_EQ(d.exit_code, 0) << d.err;
  EXPECT_TRUE(contains(d.out, kMobileNetOps)) << d.out;
  EXPECT_FALSE(contains(d.out, "Tensors:")) << d.out;
  EXPECT_TRUE(contains(d.out, "Wrote " + dir + "/dumps/toco_AT_IMPORT.dot\nWrote " + dir +
                                  "/dumps/toco_AFTER_TRANSFORMATIONS.dot\nWrote " + dir +
                                  "/sum/toco_conversion_summary.html\n"))
      << d.out;
  EXPECT_EQ(readAll(dir + "/m.dot").rfind("digraph", 0), 0u);
  const std::string html = readAll(dir + "/sum/toco_conversion_summary.html");
  EXPECT_TRUE(contains(html, "<tr><td>Conv2D</td><td>15</td></tr>")) << html;
  EXPECT_TRUE(contains(html, "<tr><td>CONV_2D</td><td>15</td></tr>")) << html;
}

TEST(CliTfliteTfFlags, RandomCalibrationWarnsAndSaysSoInTheModel) {
  GDS_REQUIRE_SHARED();
  const std::string dir = tempDir();
  CommandResult r = runGdstudio({"tflite_convert", "--graph_def_file=" + modelPath(kMobileNet),
                                 "--output_file=" + dir + "/r.tflite", "--quantize=int8",
                                 "--calibration_data=random:3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "Calibrated on 3 random inputs (not real data)\n")) << r.out;
  EXPECT_TRUE(contains(r.err, "warning: --calibration_data=random:3: the int8 ranges come from 3 seeded random inputs "
                              "(uniform in [0, 1)), not from your data"))
      << r.err;
  EXPECT_TRUE(contains(readAll(dir + "/r.tflite"),
                       "gdstudio; WARNING: int8 ranges calibrated on 3 random inputs (uniform in [0, 1)), not on real "
                       "data: not for deployment"));
  CommandResult again = runGdstudio({"tflite_convert", "--graph_def_file=" + modelPath(kMobileNet),
                                     "--output_file=" + dir + "/r2.tflite", "--quantize=int8",
                                     "--calibration_data=random:3"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(readAll(dir + "/r2.tflite"), readAll(dir + "/r.tflite"));  // seeded
  CommandResult bad = runGdstudio({"tflite_convert", "--graph_def_file=" + modelPath(kMobileNet),
                                   "--output_file=" + dir + "/b.tflite", "--quantize=int8",
                                   "--calibration_data=random:0"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.err, "error: --calibration_data=random:0: random:N takes a sample count from 1 to 100000\n");
}

TEST(CliTfliteTfFlags, CalibrationDataMustFitTheInput) {
  GDS_REQUIRE_SHARED();
  const std::string dir = tempDir();
  // A one-channel MNIST model calibrated on colour photos.
  CommandResult grey = runGdstudio({"tflite_convert", "--saved_model_dir=" + modelPath("mlnet_mnist_conv_savedmodel"),
                                    "--output_file=" + dir + "/m.tflite", "--quantize=int8",
                                    "--calibration_data=" + dataPath("images")});
  EXPECT_EQ(grey.exit_code, 1);
  EXPECT_EQ(grey.err, "error: --calibration_data: " + dataPath("images") +
                          "/astronaut.png is a colour image (3 channels); input 'Features' (float[?,28,28,1]) takes "
                          "one channel: convert the images to grey with --grayscale, or give images of one channel\n");
  // A .npy without its batch dimension gets it; one of another shape names
  // the file and the input's shape.
  fs::create_directories(dir + "/good");
  fs::create_directories(dir + "/bad");
  ASSERT_TRUE(model::writeNpy(dir + "/good/x.npy", model::HostTensor::zeros(tensorflow::DT_FLOAT, {784})).ok());
  ASSERT_TRUE(model::writeNpy(dir + "/bad/x.npy", model::HostTensor::zeros(tensorflow::DT_FLOAT, {28, 28})).ok());
  const std::string mnist = modelPath("mnist_softmax_android.pb");
  CommandResult good = runGdstudio({"tflite_convert", "--graph_def_file=" + mnist, "--output_file=" + dir + "/g.tflite",
                                    "--quantize=int8", "--calibration_data=" + dir + "/good"});
  EXPECT_EQ(good.exit_code, 0) << good.err;
  EXPECT_TRUE(contains(good.out, "Calibrated on 1 inputs from " + dir + "/good\n")) << good.out;
  CommandResult bad = runGdstudio({"tflite_convert", "--graph_def_file=" + mnist, "--output_file=" + dir + "/b.tflite",
                                   "--quantize=int8", "--calibration_data=" + dir + "/bad"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.err, "error: --calibration_data: " + dir + "/bad/x.npy holds float[28,28]; input 'input/x_input' "
                         "(float[?,784]) takes [?,784]\n");
  EXPECT_FALSE(fs::exists(dir + "/b.tflite"));
}

}  // namespace
}  // namespace gds::test
