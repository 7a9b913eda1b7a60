// TF GraphDef -> TensorFlow Lite: the five corpus CNN and keyword-spotting
// models convert to float and int8 .tflite files that Arm NN 20.08 (an
// independent runtime) loads and runs; float exports compute what gdstudio's
// run of the GraphDef computes; the int8 MobileNet keeps float's top-1 on the
// sample photos at under 30% of the size; the dialect follows TensorFlow Lite's
// quantization rules; ops without a builtin are refused by node and op.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>

#include "engine/eval/dataset.h"
#include "engine/plan.h"
#include "model/io.h"
#include "model/npy.h"
#include "model/tflite/dialect.h"
#include "model/tflite/reader.h"
#include "model/tflite/writer.h"
#include "tests/armnn_util.h"
#include "tests/test_util.h"
#include "tests/transforms/tflite_corpus.h"
#include "transforms/tflite/calibrate.h"
#include "transforms/tflite/convert.h"
#include "transforms/tflite/quantize.h"

namespace gds::transforms::tflite {
namespace {

namespace mt = gds::model::tflite;
using engine::Tensor;
using model::HostTensor;

tensorflow::GraphDef loadGraph(const std::string& name) {
  auto m = model::load(test::modelPath(name));
  EXPECT_TRUE(m.ok()) << m.error();
  return m.ok() ? m->graph : tensorflow::GraphDef{};
}

// gdstudio's run of the float GraphDef from the model's input tensors.
std::vector<Tensor> runGraph(const tensorflow::GraphDef& graph, const ExportedCorpusModel& m,
                             const std::vector<Tensor>& feed) {
  auto plan = engine::Plan::compile(graph, m.inputs, {m.output});
  EXPECT_TRUE(plan.ok()) << plan.error();
  if (!plan.ok()) return {};
  auto out = (*plan)->run(feed);
  EXPECT_TRUE(out.ok()) << out.error();
  return out.ok() ? std::move(*out) : std::vector<Tensor>{};
}

std::int64_t argmax(const HostTensor& t) {
  std::int64_t best = 0;
  for (std::int64_t i = 1; i < t.size(); ++i)
    if (t.valueAt(i) > t.valueAt(best)) best = i;
  return best;
}

std::string save(const tensorflow::GraphDef& g, const std::string& name) {
  const std::string path = test::tempDir() + "/" + name + ".tflite";
  Status s = mt::saveTflite(g, path);
  EXPECT_TRUE(s.ok()) << s.message();
  return path;
}

const tensorflow::NodeDef* findNode(const tensorflow::GraphDef& g, const std::string& name) {
  for (const auto& n : g.node())
    if (n.name() == name) return &n;
  return nullptr;
}

int count(const tensorflow::GraphDef& g, const std::string& op) {
  int n = 0;
  for (const auto& node : g.node()) n += node.op() == op;
  return n;
}

TEST(TfliteConvert, FloatExportsComputeWhatTheGraphComputesInArmNn) {
  GDS_REQUIRE_SHARED();
  GDS_REQUIRE_ARMNN();
  for (const ExportedCorpusModel& m : exportedCorpus()) {
    SCOPED_TRACE(m.name);
    const tensorflow::GraphDef graph = loadGraph(m.name);
    auto converted = convertToTflite(graph, corpusConvertOptions(m));
    ASSERT_TRUE(converted.ok()) << converted.error();
    const std::string path = save(converted->graph, "float");
    const auto samples = corpusSamples(m, graph, 2);
    ASSERT_EQ(samples.size(), 2u);
    std::vector<std::vector<HostTensor>> inputs;
    for (const auto& s : samples) inputs.push_back({s[0].toHost()});
    const test::ArmnnBatchResult armnn = test::armnnRunSamples(path, inputs);
    ASSERT_TRUE(armnn.ok) << armnn.error;
    for (std::size_t s = 0; s < samples.size(); ++s) {
      const HostTensor expected = runGraph(graph, m, samples[s]).at(0).toHost();
      const HostTensor& got = armnn.outputs[s].at(0);
      ASSERT_EQ(got.shape, expected.shape);
      double lo = expected.valueAt(0), hi = lo, worst = 0;
      for (std::int64_t i = 0; i < expected.size(); ++i) {
        lo = std::min(lo, expected.valueAt(i));
        hi = std::max(hi, expected.valueAt(i));
        worst = std::max(worst, std::abs(expected.valueAt(i) - got.valueAt(i)));
      }
      std::printf("%s float sample %zu: max |error| %.3g over range %.3g (%.3g relative)\n", m.name.c_str(), s, worst,
                  hi - lo, worst / (hi - lo));
      EXPECT_LE(worst, 1e-4 * (hi - lo));
      EXPECT_EQ(argmax(got), argmax(expected));
    }
  }
}

TEST(TfliteConvert, Int8ExportsLoadAndRunInArmNn) {
  GDS_REQUIRE_SHARED();
  GDS_REQUIRE_ARMNN();
  for (const ExportedCorpusModel& m : exportedCorpus()) {
    SCOPED_TRACE(m.name);
    const tensorflow::GraphDef graph = loadGraph(m.name);
    ConvertOptions options = corpusConvertOptions(m);
    options.quantize = Quantize::Int8;
    options.calibration = corpusSamples(m, graph, 20);
    auto converted = convertToTflite(graph, options);
    ASSERT_TRUE(converted.ok()) << converted.error();
    const std::string path = save(converted->graph, "int8");
    const test::ArmnnBatchResult armnn = test::armnnRunSamples(path, {{options.calibration[0][0].toHost()}});
    ASSERT_TRUE(armnn.ok) << armnn.error;
    const HostTensor expected = runGraph(graph, m, options.calibration[0]).at(0).toHost();
    const HostTensor& got = armnn.outputs[0].at(0);
    EXPECT_EQ(got.shape, expected.shape);
    EXPECT_EQ(got.dtype, tensorflow::DT_FLOAT);
    double worst = 0;
    for (std::int64_t i = 0; i < expected.size(); ++i)
      worst = std::max(worst, std::abs(expected.valueAt(i) - got.valueAt(i)));
    std::printf("%s int8 vs float on a calibration sample: max |error| %.3g, top-1 %lld vs %lld\n", m.name.c_str(),
                worst, static_cast<long long>(argmax(got)), static_cast<long long>(argmax(expected)));
    for (std::int64_t i = 0; i < got.size(); ++i) {  // probabilities
      EXPECT_GE(got.valueAt(i), 0.0);
      EXPECT_LE(got.valueAt(i), 1.0);
    }
  }
}

TEST(TfliteConvert, Int8MobileNetKeepsFloatTop1OnThePhotosAtUnder30PercentOfTheSize) {
  GDS_REQUIRE_SHARED();
  GDS_REQUIRE_ARMNN();
  const ExportedCorpusModel& m = exportedCorpus()[0];
  const tensorflow::GraphDef graph = loadGraph(m.name);
  ConvertOptions options = corpusConvertOptions(m);
  options.quantize = Quantize::Int8;
  options.calibration = corpusSamples(m, graph);
  ASSERT_EQ(options.calibration.size(), 7u);
  auto converted = convertToTflite(graph, options);
  ASSERT_TRUE(converted.ok()) << converted.error();
  const std::string path = save(converted->graph, "mobilenet_int8");
  const auto pb_bytes = std::filesystem::file_size(test::modelPath(m.name));
  const auto tflite_bytes = std::filesystem::file_size(path);
  std::printf("int8 MobileNet: %ju bytes, %.1f%% of the float .pb (%ju bytes)\n", static_cast<std::uintmax_t>(tflite_bytes),
              100.0 * static_cast<double>(tflite_bytes) / static_cast<double>(pb_bytes), static_cast<std::uintmax_t>(pb_bytes));
  EXPECT_LE(tflite_bytes, pb_bytes * 30 / 100);
  std::vector<std::vector<HostTensor>> inputs;
  for (const auto& s : options.calibration) inputs.push_back({s[0].toHost()});
  const test::ArmnnBatchResult armnn = test::armnnRunSamples(path, inputs);
  ASSERT_TRUE(armnn.ok) << armnn.error;
  int agree = 0;
  for (std::size_t s = 0; s < inputs.size(); ++s) {
    const HostTensor expected = runGraph(graph, m, options.calibration[s]).at(0).toHost();
    agree += argmax(expected) == argmax(armnn.outputs[s].at(0));
  }
  std::printf("int8 MobileNet in Arm NN: top-1 agrees with float on %d of %zu photos\n", agree, inputs.size());
  EXPECT_GE(agree, 6);
}

TEST(TfliteConvert, KeywordSpottingAccuracyFloatAndInt8) {
  GDS_REQUIRE_SHARED();
  GDS_REQUIRE_ARMNN();
  auto dataset = engine::openDataset(test::dataPath("speech"));
  ASSERT_TRUE(dataset.ok()) << dataset.error();
  auto labels = engine::readLabelMap(test::modelPath("kws_labels.txt"));
  ASSERT_TRUE(labels.ok());
  for (const ExportedCorpusModel& m : {exportedCorpus()[3], exportedCorpus()[4]}) {
    SCOPED_TRACE(m.name);
    const tensorflow::GraphDef graph = loadGraph(m.name);
    ConvertOptions options = corpusConvertOptions(m);
    options.quantize = Quantize::Int8;
    options.calibration = corpusSamples(m, graph);
    auto converted = convertToTflite(graph, options);
    ASSERT_TRUE(converted.ok()) << converted.error();
    const std::string path = save(converted->graph, "kws_int8");
    std::vector<std::vector<HostTensor>> inputs;
    for (const auto& s : options.calibration) inputs.push_back({s[0].toHost()});
    const test::ArmnnBatchResult armnn = test::armnnRunSamples(path, inputs);
    ASSERT_TRUE(armnn.ok) << armnn.error;
    int labelled = 0, float_right = 0, int8_right = 0, agree = 0;
    for (std::size_t s = 0; s < inputs.size(); ++s) {
      const auto& accepted = dataset->labels[dataset->files[s]];
      const std::int64_t f = argmax(runGraph(graph, m, options.calibration[s]).at(0).toHost());
      const std::int64_t q = argmax(armnn.outputs[s].at(0));
      agree += f == q;
      if (accepted.empty()) continue;
      ++labelled;
      float_right += engine::labelMatches((*labels)[static_cast<std::size_t>(f)], accepted);
      int8_right += engine::labelMatches((*labels)[static_cast<std::size_t>(q)], accepted);
    }
    std::printf("%s on %d labelled clips: float %d right, TFLite int8 (Arm NN) %d right, top-1 agreement %d/%zu\n",
                m.name.c_str(), labelled, float_right, int8_right, agree, inputs.size());
    EXPECT_EQ(labelled, 100);
    EXPECT_GE(agree, 90);
    EXPECT_GE(int8_right, float_right - 5);
  }
}

TEST(TfliteConvert, FloatDialectKeepsTheGraphsNamesAndLayouts) {
  GDS_REQUIRE_SHARED();
  const tensorflow::GraphDef graph = loadGraph("mobilenet_v1_0.25_128_frozen.pb");
  auto converted = convertToTflite(graph, corpusConvertOptions(exportedCorpus()[0]));
  ASSERT_TRUE(converted.ok()) << converted.error();
  const tensorflow::GraphDef& g = converted->graph;
  EXPECT_EQ(count(g, "tfl.conv_2d"), 15);
  EXPECT_EQ(count(g, "tfl.depthwise_conv_2d"), 13);
  EXPECT_EQ(count(g, "tfl.average_pool_2d"), 1);
  EXPECT_EQ(count(g, "tfl.softmax"), 1);
  EXPECT_EQ(count(g, "Placeholder"), 1);
  // Fused chains are named after their last node, which the float graph has:
  // the exported model compares with it layer by layer.
  for (const auto& n : g.node()) {
    if (!mt::isDialectOp(n.op())) continue;
    EXPECT_NE(findNode(graph, n.name()), nullptr) << n.name() << " is not a node of the float graph";
  }
  const auto* conv0 = findNode(g, "MobilenetV1/MobilenetV1/Conv2d_0/Relu6");
  ASSERT_NE(conv0, nullptr);
  EXPECT_EQ(conv0->op(), "tfl.conv_2d");
  EXPECT_EQ(conv0->attr().at("fused_activation_function").s(), "RELU6");
  EXPECT_EQ(conv0->attr().at("stride_w").i(), 2);
  EXPECT_EQ(conv0->attr().at("padding").s(), "SAME");
  EXPECT_EQ(mt::outputShape(*conv0, 0), (model::Shape{1, 64, 64, 8}));
  const auto* filter = findNode(g, conv0->input(1));
  ASSERT_NE(filter, nullptr);
  EXPECT_EQ(model::shapeFromProto(filter->attr().at("value").tensor().tensor_shape()), (model::Shape{8, 3, 3, 3}));
  const auto* dw = findNode(g, "MobilenetV1/MobilenetV1/Conv2d_1_depthwise/Relu6");
  ASSERT_NE(dw, nullptr);
  EXPECT_EQ(dw->attr().at("depth_multiplier").i(), 1);
  const auto* reshape = findNode(g, "MobilenetV1/Predictions/Reshape_1");
  ASSERT_NE(reshape, nullptr);
  EXPECT_EQ(reshape->attr().at(mt::kOutputIndexAttr).list().i(0), 0);
  const auto& ns = reshape->attr().at("new_shape").list().i();
  EXPECT_EQ(std::vector<std::int64_t>(ns.begin(), ns.end()), (std::vector<std::int64_t>{1, 1001}));
  // Written and read back, the graph is the same.
  auto bytes = mt::writeTflite(g);
  ASSERT_TRUE(bytes.ok()) << bytes.error();
  auto back = mt::readTflite(*bytes, "mobilenet.tflite");
  ASSERT_TRUE(back.ok()) << back.error();
  std::map<std::string, int> versions(back->op_versions.begin(), back->op_versions.end());
  EXPECT_EQ(versions, (std::map<std::string, int>{{"tfl.average_pool_2d", 1}, {"tfl.conv_2d", 1},
                                                   {"tfl.depthwise_conv_2d", 1}, {"tfl.reshape", 1},
                                                   {"tfl.softmax", 1}, {"tfl.squeeze", 1}}));
  EXPECT_EQ(back->graph.node_size(), g.node_size());
}

TEST(TfliteConvert, Int8FollowsTensorFlowLitesQuantizationRules) {
  GDS_REQUIRE_SHARED();
  const ExportedCorpusModel& m = exportedCorpus()[0];
  const tensorflow::GraphDef graph = loadGraph(m.name);
  ConvertOptions options = corpusConvertOptions(m);
  options.quantize = Quantize::Int8;
  options.calibration = corpusSamples(m, graph);
  auto converted = convertToTflite(graph, options);
  ASSERT_TRUE(converted.ok()) << converted.error();
  const tensorflow::GraphDef& g = converted->graph;
  // Float edges: input -> QUANTIZE "input_int8"; the output's DEQUANTIZE keeps its name.
  const auto* quantize = findNode(g, "input_int8");
  ASSERT_NE(quantize, nullptr);
  EXPECT_EQ(quantize->op(), "tfl.quantize");
  const mt::Quantization in_q = mt::quantizationOf(*quantize, 0);
  const TensorRange observed = converted->ranges.at("input:0");
  float scale = 0;
  std::int64_t zp = 0;
  asymmetricParams(observed.min, observed.max, &scale, &zp);
  EXPECT_EQ(in_q.scale, std::vector<float>{scale});
  EXPECT_EQ(in_q.zero_point, std::vector<std::int64_t>{zp});
  const auto* out = findNode(g, "MobilenetV1/Predictions/Reshape_1");
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->op(), "tfl.dequantize");
  EXPECT_EQ(out->input(0), "MobilenetV1/Predictions/Reshape_1_int8");
  EXPECT_EQ(out->attr().at(mt::kOutputIndexAttr).list().i(0), 0);
  // Softmax's fixed output; the Reshape after it keeps those parameters.
  const auto* softmax = findNode(g, "MobilenetV1/Predictions/Softmax");
  ASSERT_NE(softmax, nullptr);
  EXPECT_EQ(mt::quantizationOf(*softmax, 0).str(), "scale=0.00390625 zero_point=-128");
  EXPECT_EQ(mt::quantizationOf(*findNode(g, "MobilenetV1/Predictions/Reshape_1_int8"), 0).str(),
            "scale=0.00390625 zero_point=-128");
  // The average pool takes its input's parameters.
  const auto* pool = findNode(g, "MobilenetV1/Logits/AvgPool_1a/AvgPool");
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(mt::quantizationOf(*pool, 0), mt::quantizationOf(*findNode(g, pool->input(0)), 0));
  // Every convolution: int8 weights per output channel (dimension 0, 3 for
  // depthwise), zero points 0, values in [-127, 127]; int32 bias with scale
  // input scale x weight scale on dimension 0.
  int layers = 0;
  for (const auto& n : g.node()) {
    if (n.op() != "tfl.conv_2d" && n.op() != "tfl.depthwise_conv_2d") continue;
    ++layers;
    const auto* w = findNode(g, n.input(1));
    const auto* b = findNode(g, n.input(2));
    ASSERT_TRUE(w && b);
    EXPECT_EQ(w->attr().at("dtype").type(), tensorflow::DT_INT8);
    EXPECT_EQ(b->attr().at("dtype").type(), tensorflow::DT_INT32);
    const mt::Quantization wq = mt::quantizationOf(*w, 0), bq = mt::quantizationOf(*b, 0);
    const float s_in = mt::quantizationOf(*findNode(g, n.input(0)), 0).scale.at(0);
    EXPECT_EQ(wq.quantized_dimension, n.op() == "tfl.conv_2d" ? 0 : 3) << n.name();
    EXPECT_EQ(bq.quantized_dimension, 0) << n.name();
    ASSERT_EQ(bq.scale.size(), wq.scale.size());
    for (std::size_t c = 0; c < wq.scale.size(); ++c) {
      EXPECT_EQ(wq.zero_point[c], 0);
      EXPECT_EQ(bq.scale[c], s_in * wq.scale[c]) << n.name() << " channel " << c;
    }
    const std::string& bytes = w->attr().at("value").tensor().tensor_content();
    for (char v : bytes) EXPECT_GE(static_cast<int>(static_cast<std::int8_t>(v)), -127);
    const mt::Quantization oq = mt::quantizationOf(n, 0);
    if (n.attr().at("fused_activation_function").s() != "RELU6") continue;  // the logits layer
    // RELU6 fused: the range is inside [0, 6], so zero_point is -128.
    EXPECT_EQ(oq.zero_point.at(0), -128) << n.name();
    EXPECT_LE(oq.scale.at(0), 6.0f / 255 + 1e-7f) << n.name();
  }
  EXPECT_EQ(layers, 28);
  auto bytes = mt::writeTflite(g);
  ASSERT_TRUE(bytes.ok()) << bytes.error();
  auto back = mt::readTflite(*bytes, "mobilenet_int8.tflite");
  ASSERT_TRUE(back.ok()) << back.error();
  std::map<std::string, int> versions(back->op_versions.begin(), back->op_versions.end());
  EXPECT_EQ(versions, (std::map<std::string, int>{{"tfl.average_pool_2d", 2}, {"tfl.conv_2d", 3},
                                                   {"tfl.depthwise_conv_2d", 3}, {"tfl.dequantize", 2},
                                                   {"tfl.quantize", 1}, {"tfl.reshape", 1},
                                                   {"tfl.softmax", 2}, {"tfl.squeeze", 1}}));
}

TEST(TfliteConvert, Int8InputsAndOutputsAndRequantizedConcatInputs) {
  GDS_REQUIRE_SHARED();
  const ExportedCorpusModel& m = exportedCorpus()[2];  // inception_mini: two concatenations
  const tensorflow::GraphDef graph = loadGraph(m.name);
  ConvertOptions options = corpusConvertOptions(m);
  options.quantize = Quantize::Int8;
  options.calibration = corpusSamples(m, graph);
  options.inference_input_type = tensorflow::DT_INT8;
  options.inference_output_type = tensorflow::DT_INT8;
  auto converted = convertToTflite(graph, options);
  ASSERT_TRUE(converted.ok()) << converted.error();
  const tensorflow::GraphDef& g = converted->graph;
  const auto* input = findNode(g, "input");
  ASSERT_NE(input, nullptr);
  EXPECT_EQ(input->attr().at("dtype").type(), tensorflow::DT_INT8);
  EXPECT_FALSE(mt::quantizationOf(*input, 0).empty());
  EXPECT_EQ(count(g, "tfl.dequantize"), 0);
  const auto* softmax = findNode(g, "softmax");
  ASSERT_NE(softmax, nullptr);
  EXPECT_EQ(mt::outputType(*softmax, 0), tensorflow::DT_INT8);
  int concats = 0;
  for (const auto& n : g.node()) {
    if (n.op() != "tfl.concatenation") continue;
    ++concats;
    const mt::Quantization q = mt::quantizationOf(n, 0);
    for (const std::string& in : n.input()) EXPECT_EQ(mt::quantizationOf(*findNode(g, in), 0), q) << n.name() << " " << in;
  }
  EXPECT_EQ(concats, 2);
  EXPECT_GT(count(g, "tfl.quantize"), 0);  // the requantized concatenation inputs
}

TEST(TfliteConvert, OpsWithoutABuiltinAreRefusedByNodeAndOp) {
  GDS_REQUIRE_SHARED();
  // The audio front end: the string input says where to start.
  auto r = convertToTflite(loadGraph("kws_ds_cnn_s.pb"), {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "input 'wav_data' is string: it feeds the audio front end, and TensorFlow Lite has no builtin "
                       "for node 'Mfcc' (Mfcc); start the model after it, e.g. --input_arrays=Mfcc "
                       "--input_shapes=1,49,10 for the speech_commands graphs");
  ConvertOptions from_spectrogram;
  from_spectrogram.inputs = {"AudioSpectrogram"};
  from_spectrogram.input_shapes = {{1, 49, 513}};
  from_spectrogram.outputs = {"labels_softmax"};
  r = convertToTflite(loadGraph("kws_ds_cnn_s.pb"), from_spectrogram);
  ASSERT_FALSE(r.ok());
  // Mfcc also reads the decoder's sample rate, so the decoder stays too.
  EXPECT_EQ(r.error(), "node 'decoded_sample_data' (DecodeWav): TensorFlow Lite has no builtin for the audio front "
                       "end; start the model after it (e.g. --input_arrays=Mfcc --input_shapes=1,49,10 for the "
                       "speech_commands graphs) and compute the features outside the model");
  // The LSTM model's while loop is unrolled (unroll_while_loops): 25 steps
  // of two FULLY_CONNECTED, the classifier's the 51st.
  ConvertOptions lstm = corpusConvertOptions(recurrentCorpus()[0]);
  r = convertToTflite(loadGraph("kws_lstm_s.pb"), lstm);
  ASSERT_TRUE(r.ok()) << r.error();
  std::map<std::string, int> ops;
  for (const auto& n : r->graph.node()) ++ops[n.op()];
  EXPECT_EQ(ops["tfl.fully_connected"], 51);
  EXPECT_EQ(ops["tfl.split"], 25);
  EXPECT_EQ(ops["tfl.unpack"], 1);
  ConvertOptions missing = corpusConvertOptions(exportedCorpus()[0]);
  missing.inputs = {"no_such_node"};
  r = convertToTflite(loadGraph(exportedCorpus()[0].name), missing);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "--input_arrays: the graph has no node named 'no_such_node'");
  ConvertOptions uncalibrated = corpusConvertOptions(exportedCorpus()[0]);
  uncalibrated.quantize = Quantize::Int8;
  r = convertToTflite(loadGraph(exportedCorpus()[0].name), uncalibrated);
  ASSERT_FALSE(r.ok());
  // No samples: TensorFlow 1.x's ranges (FakeQuant, --default_ranges_*),
  // which this graph lacks.
  EXPECT_EQ(r.error(), "tensor 'MobilenetV1/Logits/AvgPool_1a/AvgPool:0' (computed by node "
                       "'MobilenetV1/Logits/AvgPool_1a/AvgPool') is lacking min/max data, which quantization needs: "
                       "give the graph FakeQuant nodes (quantization-aware training), the inputs --mean_values and "
                       "--std_dev_values, or pass --default_ranges_min= and --default_ranges_max= for easy "
                       "experimentation; --quantize=int8 --calibration_data=DIR calibrates them on real inputs instead");
}

// ConvertOptions::cancelled reaches the calibration runs (a Cancel button,
// Ctrl+C in Python): the conversion ends with "cancelled" and returns nothing.
TEST(TfliteConvert, CancelledCalibrationStopsTheConversion) {
  GDS_REQUIRE_SHARED();
  const ExportedCorpusModel& m = exportedCorpus()[0];
  const tensorflow::GraphDef graph = loadGraph(m.name);
  ConvertOptions options = corpusConvertOptions(m);
  options.quantize = Quantize::Int8;
  options.calibration = corpusSamples(m, graph, 2);
  int polls = 0;
  options.cancelled = [&polls] { return ++polls > 3; };
  auto r = convertToTflite(graph, options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "calibration input 0: cancelled");
}

TEST(TfliteQuantize, AsymmetricParametersAreTensorFlowLites) {
  float scale = 0;
  std::int64_t zp = 0;
  asymmetricParams(0.0f, 6.0f, &scale, &zp);
  EXPECT_EQ(scale, 6.0f / 255.0f);
  EXPECT_EQ(zp, -128);
  asymmetricParams(-1.0f, 1.0f, &scale, &zp);
  EXPECT_EQ(scale, 2.0f / 255.0f);
  EXPECT_EQ(zp, -1);  // round(-128 + 127.5), half away from zero
  asymmetricParams(0.5f, 2.0f, &scale, &zp);  // widened to contain 0
  EXPECT_EQ(scale, 2.0f / 255.0f);
  EXPECT_EQ(zp, -128);
  asymmetricParams(-3.0f, -1.0f, &scale, &zp);
  EXPECT_EQ(scale, 3.0f / 255.0f);
  EXPECT_EQ(zp, 127);
  asymmetricParams(0.0f, 0.0f, &scale, &zp);
  EXPECT_EQ(scale, 1.0f);
  EXPECT_EQ(zp, -128);
}

}  // namespace
}  // namespace gds::transforms::tflite
