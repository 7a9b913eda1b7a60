// Keras layers to TensorFlow ops, one synthetic model per case: each .keras
// or .h5 file written by tests/tools/keras_layers.py the way Keras lays it
// out, converted by gdstudio and run in its interpreter, must give the
// outputs the script computed with NumPy from the layers' own semantics
// (padding modes, data formats, fused activations, BatchNormalization's
// epsilon, recurrent return_sequences/go_backwards/reset_after, masks,
// nested and shared layers), within 1e-4 of the output range.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <mutex>

#include <nlohmann/json.hpp>

#include "engine/plan.h"
#include "engine/rewrite/optimize_for_inference.h"
#include "model/keras/keras_file.h"
#include "model/io.h"
#include "model/npy.h"
#include "model/tflite/writer.h"
#include "transforms/tflite/convert.h"
#include "tests/keras/keras_test_util.h"
#include "tests/test_util.h"

namespace gds::model::keras {
namespace {

// Every case tests/tools/keras_layers.py writes (checked against its
// manifest below, so that neither list drifts).
const std::vector<std::string>& caseNames() {
  static const std::vector<std::string> names = {
      "dense_relu", "dense_rank3_nobias_softmax", "activation_linear", "activation_relu", "activation_relu6",
      "activation_sigmoid", "activation_tanh", "activation_elu", "activation_selu", "activation_softplus",
      "activation_softsign", "activation_exponential", "activation_swish", "activation_silu", "activation_gelu",
      "activation_hard_sigmoid", "activation_hard_silu", "activation_hard_swish", "activation_mish",
      "activation_leaky_relu", "activation_softmax", "activation_log_softmax", "activation_hard_tanh",
      "activation_log_sigmoid", "activation_tanh_shrink", "activation_squareplus", "activation_celu",
      "activation_sparse_sigmoid", "activation_sparse_plus", "activation_hard_shrink", "activation_soft_shrink",
      "activation_fn_dict", "relu_max_slope_threshold", "relu_6", "leaky_relu_layer", "prelu_shared_axes",
      "elu_alpha", "softmax_axis1", "inference_identity_dropout", "inference_identity_spatialdropout1d",
      "inference_identity_gaussiannoise", "inference_identity_alphadropout", "rescaling", "embedding_float_ids",
      "flatten", "flatten_channels_first", "reshape_minus1", "permute", "repeat_vector", "lambda_named_function",
      "conv2d_same_strided_relu", "conv2d_valid_dilated", "conv2d_groups", "conv2d_channels_first",
      "conv1d_causal_dilated", "conv1d_same_strided_tanh", "depthwise_same_multiplier2", "depthwise1d_valid",
      "separable_conv2d", "separable_conv1d", "conv2d_transpose_same_strided",
      "conv2d_transpose_valid_output_padding", "maxpool2d_same", "avgpool2d_same",
      "avgpool2d_valid_default_strides", "maxpool1d", "avgpool1d_same", "maxpool2d_channels_first",
      "gap2d_keepdims", "gmp1d", "gap1d_channels_first", "zeropadding2d", "zeropadding1d", "cropping2d",
      "cropping1d", "upsampling2d_nearest", "upsampling2d_bilinear", "upsampling1d", "resizing_bilinear",
      "resizing_nearest_crop", "center_crop", "merge_add", "merge_subtract", "merge_multiply", "merge_average",
      "merge_maximum", "merge_minimum", "merge_concatenate_axis1", "dot_vectors", "dot_3d_normalized",
      "batchnorm_dense_keras3", "batchnorm_no_scale", "batchnorm_channels_first", "batchnorm_keras2_fused_epsilon",
      "layernorm", "layernorm_two_axes_no_center", "normalization_adapted", "normalization_config_invert",
      "unit_normalization", "lstm_sequences", "lstm_backwards_relu", "gru_reset_after",
      "gru_reset_before_sequences_backwards", "simplernn_relu", "rnn_generic_lstmcell",
      "bidirectional_concat_sequences", "bidirectional_sum_keras2_backward", "time_distributed_dense",
      "masked_embedding_lstm_average", "masking_gru", "nested_functional_base", "shared_layer_two_outputs",
      "keras214_layer_checkpoint_dependencies", "keras215_windows_backslashes",
      "h5_keras2_sequential_implicit_input", "h5_keras2_tfoplambda"};
  return names;
}

class KerasLayer : public ::testing::TestWithParam<std::string> {};

TEST(KerasLayers, TheScriptWritesExactlyTheListedCases) {
  const std::string dir = test::kerasLayerFiles();
  if (dir.empty()) GTEST_SKIP() << test::kerasLayerFilesUnavailable();
  std::ifstream in(dir + "/manifest.json");
  const auto manifest = nlohmann::json::parse(in, nullptr, false);
  ASSERT_TRUE(manifest.is_array());
  std::vector<std::string> written;
  for (const auto& c : manifest) written.push_back(c["name"].get<std::string>());
  EXPECT_EQ(written, caseNames());
}

TEST_P(KerasLayer, ComputesWhatNumPyComputes) {
  const std::string dir = test::kerasLayerFiles();
  if (dir.empty()) GTEST_SKIP() << test::kerasLayerFilesUnavailable();
  std::ifstream in(dir + "/manifest.json");
  const auto manifest = nlohmann::json::parse(in, nullptr, false);
  nlohmann::json entry;
  for (const auto& c : manifest)
    if (c["name"] == GetParam()) entry = c;
  ASSERT_TRUE(entry.is_object()) << GetParam() << " is not in the manifest";
  const std::string file = dir + "/" + entry["file"].get<std::string>();
  auto read = readKerasFile(file);
  ASSERT_TRUE(read.ok()) << read.error();
  std::vector<std::string> feeds = entry["inputs"].get<std::vector<std::string>>();
  ASSERT_EQ(feeds, read->inputs);
  std::vector<engine::Tensor> inputs;
  for (std::size_t k = 0; k < feeds.size(); ++k) {
    auto x = model::readNpy(dir + "/" + GetParam() + ".in" + std::to_string(k) + ".npy");
    ASSERT_TRUE(x.ok()) << x.error();
    inputs.push_back(engine::Tensor::fromHost(test::castLike(*x, read->graph, feeds[k])));
  }
  auto plan = engine::compileForInference(read->graph, feeds, read->outputs, {});
  ASSERT_TRUE(plan.ok()) << plan.error();
  auto outs = (*plan)->run(inputs);
  ASSERT_TRUE(outs.ok()) << outs.error();
  ASSERT_EQ(outs->size(), entry["outputs"].get<std::size_t>());
  for (std::size_t k = 0; k < outs->size(); ++k) {
    auto want = model::readNpy(dir + "/" + GetParam() + ".out" + std::to_string(k) + ".npy");
    ASSERT_TRUE(want.ok()) << want.error();
    const HostTensor got = (*outs)[k].toHost();
    EXPECT_EQ(got.shape, want->shape) << "output " << k;
    const test::Difference d = test::compareOutputs(got, *want);
    EXPECT_LE(d.relative, entry["tol"].get<double>())
        << "output " << k << ": largest difference " << d.absolute << " at element " << d.index << " (output range "
        << d.range << ")";
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, KerasLayer, ::testing::ValuesIn(caseNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// Cases whose float .tflite export is refused, with the op that has no
// TensorFlow Lite builtin in gdstudio's lowering.
const std::map<std::string, std::string>& notExported() {
  static const std::map<std::string, std::string> cases = {
      {"activation_selu", "Selu"},
      {"activation_softsign", "Softsign"},
      {"activation_gelu", "Erf"},
      {"activation_soft_shrink", "Sign"},
      {"masking_gru", "Any"},
      // A batch norm with no layer before it to fold into.
      {"batchnorm_keras2_fused_epsilon", "FusedBatchNormV3"}};
  return cases;
}

class KerasLayerExport : public ::testing::TestWithParam<std::string> {};

// The same case exported to a float .tflite (the TFLite dialect, written
// and read back) and run in gdstudio's TensorFlow Lite interpreter.
TEST_P(KerasLayerExport, TfliteExportComputesWhatNumPyComputes) {
  const std::string dir = test::kerasLayerFiles();
  if (dir.empty()) GTEST_SKIP() << test::kerasLayerFilesUnavailable();
  auto read = readKerasFile(dir + "/" + GetParam() + (GetParam().rfind("h5_", 0) == 0 ||
                                                                  GetParam() == "batchnorm_keras2_fused_epsilon"
                                                              ? ".h5"
                                                              : ".keras"));
  ASSERT_TRUE(read.ok()) << read.error();
  transforms::tflite::ConvertOptions options;
  options.inputs = read->inputs;
  options.outputs = read->outputs;
  std::vector<engine::Tensor> inputs;
  for (std::size_t k = 0; k < read->inputs.size(); ++k) {
    auto x = model::readNpy(dir + "/" + GetParam() + ".in" + std::to_string(k) + ".npy");
    ASSERT_TRUE(x.ok()) << x.error();
    options.input_shapes.push_back(x->shape);
    inputs.push_back(engine::Tensor::fromHost(*x));
  }
  auto converted = transforms::tflite::convertToTflite(read->graph, options);
  auto refused = notExported().find(GetParam());
  if (refused != notExported().end()) {
    ASSERT_FALSE(converted.ok());
    EXPECT_NE(converted.error().find("(" + refused->second + ")"), std::string::npos) << converted.error();
    return;
  }
  ASSERT_TRUE(converted.ok()) << converted.error();
  const std::string path = test::tempDir() + "/" + GetParam() + ".tflite";
  const Status saved = model::tflite::saveTflite(converted->graph, path);
  ASSERT_TRUE(saved.ok()) << saved.message();
  auto loaded = model::load(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  auto plan = engine::compileForInference(loaded->graph, read->inputs, transforms::tflite::fileOutputs(*converted), {});
  ASSERT_TRUE(plan.ok()) << plan.error();
  auto outs = (*plan)->run(inputs);
  ASSERT_TRUE(outs.ok()) << outs.error();
  for (std::size_t k = 0; k < outs->size(); ++k) {
    auto want = model::readNpy(dir + "/" + GetParam() + ".out" + std::to_string(k) + ".npy");
    ASSERT_TRUE(want.ok()) << want.error();
    const test::Difference d = test::compareOutputs((*outs)[k].toHost(), *want);
    EXPECT_LE(d.relative, 1e-4) << "output " << k << ": largest difference " << d.absolute << " at " << d.index;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, KerasLayerExport, ::testing::ValuesIn(caseNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace gds::model::keras
