// gdstudio run: .npy and raw string inputs, .npy outputs named after the
// tensors, one summary line per output, errors with exit code 1.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "model/npy.h"
#include "tests/test_util.h"

namespace gds {
namespace {

TEST(CliRun, WritesNpyOutputsAndSummaries) {
  GDS_REQUIRE_SHARED();
  const std::string dir = test::tempDir();
  auto r = test::runGdstudio({"run", "--graph=" + test::modelPath("mnist_softmax_android.pb"),
                              "--input=input/x_input=" + test::modelPath("reference/mnist_softmax_android.random.input_x_input.npy"),
                              "--output=output,layer/final_result", "--out_dir=" + dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("output: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("layer/final_result: float[2,10] min="), std::string::npos) << r.out;
  auto got = model::readNpy(dir + "/layer_final_result.npy");
  ASSERT_TRUE(got.ok()) << got.error();
  auto want = model::readNpy(test::modelPath("reference/mnist_softmax_android.random/layer_final_result.npy"));
  ASSERT_TRUE(want.ok());
  ASSERT_EQ(got->shape, want->shape);
  for (std::int64_t i = 0; i < want->size(); ++i) EXPECT_NEAR(got->valueAt(i), want->valueAt(i), 1e-5);
  auto arg = model::readNpy(dir + "/output.npy");
  ASSERT_TRUE(arg.ok());
  auto arg_want = model::readNpy(test::modelPath("reference/mnist_softmax_android.random/output.npy"));
  ASSERT_TRUE(arg_want.ok());
  for (std::int64_t i = 0; i < arg_want->size(); ++i) EXPECT_EQ(arg->valueAt(i), arg_want->valueAt(i));
}

// A photo feeds an image input as label_image reads it with the same
// scaling: resized to the input's 128x128, (x - 127.5) / 127.5.
TEST(CliRun, APhotoFeedsAnImageInputAsLabelImageReadsIt) {
  GDS_REQUIRE_SHARED();
  const std::string dir = test::tempDir();
  const std::string graph = test::modelPath("mobilenet_v1_0.25_128_frozen.pb");
  const std::string photo = test::dataPath("images/coffee.png");
  auto r = test::runGdstudio({"run", "--graph=" + graph, "--input=input=" + photo, "--out_dir=" + dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("MobilenetV1/Predictions/Reshape_1: float[1,1001] min="), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" max=0.97642 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" argmax=968"), std::string::npos) << r.out;  // espresso
  auto label = test::runGdstudio({"label_image", "--graph=" + graph, "--image=" + photo,
                                  "--labels=" + test::modelPath("mobilenet_v1_0.25_128_labels.txt"),
                                  "--input_mean=127.5", "--input_std=127.5", "--input_height=128",
                                  "--input_width=128", "--input_layer=input",
                                  "--output_layer=MobilenetV1/Predictions/Reshape_1"});
  ASSERT_EQ(label.exit_code, 0) << label.err;
  EXPECT_NE(label.out.find("968:espresso (968): 0.97642"), std::string::npos) << label.out;
  // Another scaling is another input.
  auto scaled = test::runGdstudio({"run", "--graph=" + graph, "--input=input=" + photo, "--input_mean=0",
                                   "--input_std=255", "--out_dir=" + dir + "/scaled"});
  ASSERT_EQ(scaled.exit_code, 0) << scaled.err;
  EXPECT_EQ(scaled.out.find(" max=0.97642 "), std::string::npos) << scaled.out;
  // An int8 input of a .tflite takes the photo quantized with its scale and zero point.
  auto int8 = test::runGdstudio({"run", "--graph=" + test::modelPath("tflite/openmv_mobilenet_int8.tflite"),
                                 "--input=" + photo, "--input_mean=0", "--input_std=1", "--out_dir=" + dir + "/int8"});
  ASSERT_EQ(int8.exit_code, 0) << int8.err;
  EXPECT_NE(int8.out.find(": int8[1,5] min="), std::string::npos) << int8.out;
}

TEST(CliRun, RawWavFileFeedsAStringPlaceholder) {
  GDS_REQUIRE_SHARED();
  const std::string dir = test::tempDir();
  for (const char* threads : {"1", "2"}) {
    auto r = test::runGdstudio({"run", "--graph=" + test::modelPath("kws_ds_cnn_s.pb"),
                                "--input=wav_data=" + test::dataPath("speech/yes_en-us_140.wav"),
                                "--output=labels_softmax", "--out_dir=" + dir, std::string("--num_threads=") + threads});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // kws_labels.txt: _silence_ _unknown_ yes ... -> "yes" is class 2.
    EXPECT_NE(r.out.find("labels_softmax: float[1,12] "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("argmax=2"), std::string::npos) << r.out;
  }
  auto p = model::readNpy(dir + "/labels_softmax.npy");
  ASSERT_TRUE(p.ok());
  double sum = 0;
  for (std::int64_t i = 0; i < p->size(); ++i) sum += p->valueAt(i);
  EXPECT_NEAR(sum, 1.0, 1e-5);
}

TEST(CliRun, ReferenceKernelsGiveTheSameAnswer) {
  GDS_REQUIRE_SHARED();
  const std::string a = test::tempDir(), b = test::tempDir();
  const std::string input = "--input=input=" + test::modelPath("generated/tiny_cnn.input.npy");
  auto fast = test::runGdstudio({"run", "--graph=" + test::modelPath("generated/tiny_cnn.pb"), input, "--output=prob",
                                 "--out_dir=" + a});
  auto ref = test::runGdstudio({"run", "--graph=" + test::modelPath("generated/tiny_cnn.pb"), input, "--output=prob",
                                "--out_dir=" + b, "--reference"});
  ASSERT_EQ(fast.exit_code, 0) << fast.err;
  ASSERT_EQ(ref.exit_code, 0) << ref.err;
  auto x = model::readNpy(a + "/prob.npy");
  auto y = model::readNpy(b + "/prob.npy");
  ASSERT_TRUE(x.ok() && y.ok());
  for (std::int64_t i = 0; i < x->size(); ++i) EXPECT_NEAR(x->valueAt(i), y->valueAt(i), 1e-5);
}

TEST(CliRun, ErrorsExitWithCodeOne) {
  GDS_REQUIRE_SHARED();
  const std::string dir = test::tempDir();
  auto missing = test::runGdstudio({"run", "--output=x", "--out_dir=" + dir});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.err, "error: --graph is required (model file (.pb, .pbtxt, .meta, .tflite or SavedModel))\n");
  // A float input given as a raw (non-.npy) file.
  auto raw = test::runGdstudio({"run", "--graph=" + test::modelPath("mnist_softmax_android.pb"),
                                "--input=input/x_input=" + test::dataPath("speech/labels.csv"), "--output=output",
                                "--out_dir=" + dir});
  EXPECT_EQ(raw.exit_code, 1);
  EXPECT_NE(raw.err.find("is not a .npy file (raw files are only accepted for string inputs; this input is float)"),
            std::string::npos)
      << raw.err;
  // No input given: the error lists the model's inputs and says how to feed them.
  auto unfed = test::runGdstudio({"run", "--graph=" + test::modelPath("mnist_softmax_android.pb"), "--output=output",
                                  "--out_dir=" + dir});
  EXPECT_EQ(unfed.exit_code, 1);
  EXPECT_EQ(unfed.err, "error: " + test::modelPath("mnist_softmax_android.pb") +
                           " has 1 input (input/x_input (float[?,784])): give it a value with --input=NAME=FILE.npy "
                           "or --input=FILE.npy\n");
  // A SavedModel, by its signature's key.
  const std::string saved = test::modelPath("tf2/nordpool_conv1d");
  auto unfed_saved = test::runGdstudio({"run", "--graph=" + saved, "--out_dir=" + dir});
  EXPECT_EQ(unfed_saved.exit_code, 1);
  EXPECT_NE(unfed_saved.err.find("error: " + saved + " has 1 input (input_1 (float[?,5,1])): give it a value"),
            std::string::npos)
      << unfed_saved.err;
  // A training graph reading variables: the error says to freeze it.
  auto train = test::runGdstudio({"run", "--graph=" + test::modelPath("mlnet_cifar_checkpoint/model.ckpt.meta"),
                                  "--output=Adam", "--input=Input=" + test::modelPath("reference/mlnet_cifar_frozen.random.Input.npy"),
                                  "--out_dir=" + dir});
  EXPECT_EQ(train.exit_code, 1);
  EXPECT_NE(train.err.find("(VariableV2): no kernel for op 'VariableV2': the graph reads variables; freeze it first"),
            std::string::npos)
      << train.err;
}

}  // namespace
}  // namespace gds
